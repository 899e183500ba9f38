/*
 * support.c: what every Check suite shares (support.h): the library's and
 * each app's, so that every test binary is its suites and a short main.
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <ftw.h>
#include <spawn.h>
#include <stdarg.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0   /* valgrind's runs then set the sizes */
#endif

extern char **environ;

static int saved_stderr = -1;
static FILE *capture_file;

void capture_stderr_begin(void)
{
    fflush(stderr);
    capture_file = tmpfile();
    ck_assert_ptr_nonnull(capture_file);
    saved_stderr = dup(2);
    dup2(fileno(capture_file), 2);
}

char *capture_stderr_end(void)
{
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    long size = ftell(capture_file);
    char *text = calloc(1, (size_t)(size > 0 ? size : 0) + 1);
    rewind(capture_file);
    if (size > 0 && fread(text, 1, (size_t)size, capture_file) != (size_t)size)
        text[0] = '\0';
    fclose(capture_file);
    return text;
}

const char *test_tmpdir(void)
{
    static char dir[64];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/clframe-test-%d", (int)getpid());
        mkdir(dir, 0700);
    }
    return dir;
}

const char *test_write_file(const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", test_tmpdir(), name);
    for (char *p = path + strlen(test_tmpdir()) + 1; (p = strchr(p, '/')); p++) {
        *p = '\0';
        mkdir(path, 0700);
        *p = '/';
    }
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    return path;
}

uint32_t test_random(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return *state >> 8;
}

clctx *test_run_context(void)
{
    clctx *ctx = clctx_default();
    ck_assert_made(ctx);
    if (!strstr(clctx_device_name(ctx), "Oclgrind"))
        return NULL;
    ctx = clctx_new(NULL);
    ck_assert_made(ctx);
    return ctx;
}

int test_run(const char *fmt, ...)
{
    char command[8192];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(command, sizeof command, fmt, ap);
    va_end(ap);
    ck_assert_msg(n >= 0 && (size_t)n < sizeof command, "command too long");
    int status = system(command);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

const char *test_tmp_path(const char *prefix, const char *name)
{
    static char paths[8][1024];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, sizeof paths[0], "%s/%s-%s", test_tmpdir(), prefix, name);
    return p;
}

char *test_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    ck_assert_msg(n >= 0, "cannot tell the size of %s", path);
    char *data = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(data);
    ck_assert_msg(fread(data, 1, (size_t)n, f) == (size_t)n, "cannot read %s",
                  path);
    data[n] = '\0';
    fclose(f);
    *size = (size_t)n;
    return data;
}

void test_assert_file_holds(const char *path, const char *text)
{
    size_t size;
    char *got = test_read_file(path, &size);
    ck_assert_msg(size == strlen(text) && !memcmp(got, text, size),
                  "%s holds \"%s\", expected \"%s\"", path, got, text);
    free(got);
}

void test_assert_no_hidden_file(const char *dir)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    for (struct dirent *e; (e = readdir(d));)
        ck_assert_msg(e->d_name[0] != '.' || !strcmp(e->d_name, ".") ||
                      !strcmp(e->d_name, ".."), "%s/%s was left", dir,
                      e->d_name);
    closedir(d);
}

clkernel *test_kernel(const char *source, const char *name)
{
    clkernel *k = clkernel_source(NULL, source, name, NULL);
    ck_assert_made(k);
    return k;
}

int test_sweep_lengths(test_sweep sweep, int max, int *out)
{
    static const int edges[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32,
                                33, 63, 64, 65, 99, 100, 101, 127, 128, 129,
                                255, 256, 257, 1000, 1023, 1024, 1025};
    int n = 0;
    if (sweep == TEST_EDGE_LENGTHS) {
        for (size_t i = 0; i < sizeof edges / sizeof *edges; i++)
            if (edges[i] <= max)
                out[n++] = edges[i];
    } else {
        for (int len = 1; len <= max; len++)
            out[n++] = len;
    }
    return n;
}

/* 1 when this process runs under Oclgrind: `oclgrind PROGRAM` preloads
 * its OpenCL runtime, which then is among the process's mappings. */
static int under_oclgrind(void)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps)
        return 0;
    char line[8192];
    int found = 0;
    while (!found && fgets(line, sizeof line, maps))
        found = strstr(line, "/liboclgrind-rt.so") != NULL;
    fclose(maps);
    return found;
}

/* The column that CLFRAME_TEST_SIZES names into *column: 1, or 0 when it
 * is not set; -1, with a message, when it names none. */
static int sizes_asked(test_size_column *column)
{
    const char *asked = getenv("CLFRAME_TEST_SIZES");
    if (!asked)
        return 0;
    if (strcmp(asked, "full") == 0 || strcmp(asked, "checked") == 0) {
        *column = asked[0] == 'f' ? TEST_FULL : TEST_CHECKED;
        return 1;
    }
    fprintf(stderr, "CLFRAME_TEST_SIZES=%s: expected full or checked\n",
            asked);
    return -1;
}

test_size_column test_sizes(void)
{
    static int known;
    static test_size_column column;
    if (!known) {
        if (sizes_asked(&column) != 1)
            column = RUNNING_ON_VALGRIND || under_oclgrind() ? TEST_CHECKED
                                                             : TEST_FULL;
        known = 1;
    }
    return column;
}

/* This program's path into path[4096] (under valgrind, the program's, not
 * valgrind's). */
static void own_path(char *path)
{
    ssize_t n = readlink("/proc/self/exe", path, 4095);
    ck_assert_msg(n > 0, "cannot find the test runner's own path");
    path[n] = '\0';
}

const char *test_program(const char *name)
{
    static char paths[4][4096];     /* a few may be in use at once */
    static int next;
    char *path = paths[next++ % 4];
    own_path(path);
    char *slash = strrchr(path, '/');
    snprintf(slash + 1, sizeof paths[0] - (size_t)(slash + 1 - path), "%s",
             name);
    ck_assert_msg(access(path, X_OK) == 0, "%s is not built", path);
    return path;
}

int test_run_apart(const char *suite, const char *tcase)
{
    const char *fork_mode = getenv("CK_FORK");
    if (!fork_mode || strcmp(fork_mode, "no") != 0)
        return 0;
    /* The run's own log files stay the parent's: a child writing them
     * would replace what the parent has logged. */
    static const char *const replaced[] = {
        "CK_FORK=", "CK_RUN_SUITE=", "CK_RUN_CASE=", "CK_LOG_FILE_NAME=",
        "CK_XML_LOG_FILE_NAME=", "CK_TAP_LOG_FILE_NAME="};
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 4, sizeof *env);
    ck_assert_ptr_nonnull(env);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        int keep = 1;
        for (size_t r = 0; r < sizeof replaced / sizeof *replaced; r++)
            keep &= strncmp(environ[i], replaced[r], strlen(replaced[r])) != 0;
        if (keep)
            env[m++] = environ[i];
    }
    char run_suite[256], run_case[256], path[4096];
    snprintf(run_suite, sizeof run_suite, "CK_RUN_SUITE=%s", suite);
    snprintf(run_case, sizeof run_case, "CK_RUN_CASE=%s", tcase);
    env[m++] = "CK_FORK=yes";
    env[m++] = run_suite;
    env[m++] = run_case;
    own_path(path);
    char *argv[] = {path, NULL};
    fflush(stdout);
    pid_t pid;
    int status = -1;
    int spawned = posix_spawn(&pid, path, NULL, NULL, argv, env) == 0 &&
                  waitpid(pid, &status, 0) == pid;
    free(env);
    ck_assert_msg(spawned, "cannot run %s again", path);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "%s / %s failed in a process of its own", suite, tcase);
    return 1;
}

TCase *test_case(const char *name)
{
    TCase *tc = tcase_create(name);
    tcase_set_timeout(tc, 300);
    return tc;
}

static int remove_entry(const char *path, const struct stat *st, int flag,
                        struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}


/* Reads CLFRAME_TEST_PART=K/N as the first suite's index (K - 1) and the
 * step (N): 0 and 1 when it is not set. Returns 0, with a message, when it
 * is not K/N. */
static int test_part(int *first, int *step)
{
    const char *part = getenv("CLFRAME_TEST_PART");
    int k = 1, n = 1, end = 0;
    if (part && (sscanf(part, "%d/%d%n", &k, &n, &end) != 2 ||
                 part[end] != '\0' || n < 1 || k < 1 || k > n)) {
        fprintf(stderr, "CLFRAME_TEST_PART=%s: expected K/N with 1 <= K <= "
                "N, such as 2/3\n", part);
        return 0;
    }
    *first = k - 1;
    *step = n;
    return 1;
}

int test_main(Suite *(*const suites[])(void))
{
    int part, parts;
    test_size_column column;
    if (!test_part(&part, &parts) || sizes_asked(&column) < 0)
        return EXIT_FAILURE;
    test_tmpdir();                  /* made once here, shared by the forks */
    /* clframe's program cache is off unless CLFRAME_CACHE says otherwise:
     * test sources named after this run's temporary folder would fill the
     * user's cache, and on PoCL storing the binaries of the many programs
     * some suites build makes them many times slower. `make test` shares
     * PoCL's own kernel cache between the plain and the checked runs
     * instead (XDG_CACHE_HOME). The cache suite uses folders of its own. */
    setenv("CLFRAME_CACHE", "0", 0);
    int count = 0;
    while (suites[count])
        count++;
    int failed = 0;
    if (part < count) {                         /* else a part with none */
        SRunner *sr = srunner_create(suites[part]());
        for (int i = part + parts; i < count; i += parts)
            srunner_add_suite(sr, suites[i]());
        srunner_run_all(sr, CK_NORMAL);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
    }
    nftw(test_tmpdir(), remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
