/*
 * test_cache.c: the on-disk program binary cache. A second context building
 * the same source loads it (and its kernels still check their arguments);
 * entries are where docs/getting-started.md says; CLFRAME_CACHE=0 and CL_DEBUG leave it
 * alone; truncated and damaged entries are rebuilt, never loaded; options,
 * source and included files change the key; an unwritable cache costs
 * nothing but the time; processes writing one entry at once do not break it.
 * The cap (CLFRAME_CACHE_MAX): held after many stores, the least recently
 * used entry (a hit counts as a use) evicted first, an entry larger than
 * the cap not stored, malformed values refused, files that are not entries
 * left alone by eviction and clearing, processes storing and loading
 * against a small cap at once leaving whole entries within it, and
 * clframe-info --cache and --clear-cache.
 * Per-device settings (clctx_setting_get/put), kept in the same folder:
 * stored and read back, replaced, another name or a damaged file is no
 * value, bad values and an unwritable folder are errors with messages.
 *
 * Each test gets a cache folder of its own (XDG_CACHE_HOME), and leaves the
 * environment as it found it (under CK_FORK=no later suites share it). PoCL
 * keeps its own kernel cache under XDG_CACHE_HOME too (clframe puts it in its
 * folder), and fails to open its device when it cannot make it there: it
 * gets one folder for the whole run, POCL_CACHE_DIR, set before the test's
 * first OpenCL call. A folder others can write to is no cache, clframe's or
 * PoCL's.
 */
#include "internal.h"
#include "support.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

enum { N = 100, HEADER_BYTES = 40, KEY_LEN_OFFSET = 16 };

static const char *scale_source =
    "#ifndef SCALE\n#define SCALE 2\n#endif\n"
    "__kernel void scale(__global int *x, int n) {\n"
    "    int i = get_global_id(0);\n"
    "    if (i < n) x[i] *= SCALE;\n"
    "}\n";

/* ---- one cache folder per test ------------------------------------------- */

static const char *cache_vars[] = {"XDG_CACHE_HOME", "HOME", "CLFRAME_CACHE",
                                   "CL_DEBUG", "POCL_CACHE_DIR",
                                   "CLFRAME_CACHE_MAX"};
static char *saved[sizeof cache_vars / sizeof *cache_vars];
static char cache_home[256];      /* XDG_CACHE_HOME of the running test */
static char entry_dir[300];       /* cache_home/clframe */

/* clframe points PoCL's own kernel cache into its folder, pocl/ (cache.c):
 * keep PoCL at the folder it used before the test moved XDG_CACHE_HOME, so
 * that it finds what earlier runs compiled. Under valgrind, compiling is
 * most of this suite's time. */
static void keep_pocl_cache(void)
{
    char pocl[4096];
    const char *xdg = saved[0], *home = saved[1];
    if (xdg && xdg[0] == '/')
        snprintf(pocl, sizeof pocl, "%s/clframe/pocl", xdg);
    else if (home && home[0] == '/')
        snprintf(pocl, sizeof pocl, "%s/.cache/clframe/pocl", home);
    else
        snprintf(pocl, sizeof pocl, "%s/pocl-cache", test_tmpdir());
    setenv("POCL_CACHE_DIR", pocl, 1);
}

static void use_own_cache(void)
{
    for (size_t i = 0; i < sizeof cache_vars / sizeof *cache_vars; i++) {
        const char *v = getenv(cache_vars[i]);
        saved[i] = v ? strdup(v) : NULL;
    }
    snprintf(cache_home, sizeof cache_home, "%s/cache-XXXXXX", test_tmpdir());
    ck_assert_ptr_nonnull(mkdtemp(cache_home));
    snprintf(entry_dir, sizeof entry_dir, "%s/clframe", cache_home);
    setenv("XDG_CACHE_HOME", cache_home, 1);
    if (!saved[4])
        keep_pocl_cache();
    unsetenv("CLFRAME_CACHE");
    unsetenv("CL_DEBUG");
    unsetenv("CLFRAME_CACHE_MAX");
}

static int remove_entry(const char *path, const struct stat *st, int flag,
                        struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void drop_own_cache(void)
{
    nftw(cache_home, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    for (size_t i = 0; i < sizeof cache_vars / sizeof *cache_vars; i++) {
        if (saved[i])
            setenv(cache_vars[i], saved[i], 1);
        else
            unsetenv(cache_vars[i]);
        free(saved[i]);
        saved[i] = NULL;
    }
}

/* ---- helpers ------------------------------------------------------------- */

/* Files in dir (-1 if it does not exist); *entry gets the path of the last
 * one named <16 hex digits>.<suffix> (suffix "bin": a program entry). */
static int count_files(const char *dir, const char *suffix, char *entry,
                       size_t size)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        n++;
        if (entry && strspn(e->d_name, "0123456789abcdef") == 16 &&
            e->d_name[16] == '.' && strcmp(e->d_name + 17, suffix) == 0)
            snprintf(entry, size, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    return n;
}

/* The path of the one file in the test's cache, asserting there is one
 * and it is named <16 hex digits>.<suffix>. */
static const char *only_file(const char *suffix)
{
    static char path[600];
    path[0] = '\0';
    int n = count_files(entry_dir, suffix, path, sizeof path);
    ck_assert_msg(n == 1 && path[0], "%s holds %d files, expected one "
                  "<16 hex digits>.%s", entry_dir, n, suffix);
    return path;
}

static const char *only_entry(void)
{
    return only_file("bin");
}

static clctx *new_ctx(void)
{
    clctx *ctx = clctx_new(NULL);
    ck_assert_made(ctx);
    return ctx;
}

/* Builds kernel scale from source on ctx and checks that it multiplies by
 * factor, and that its arguments are still checked by type. */
static void check_scale(clctx *ctx, const char *source, const char *options,
                        int factor)
{
    clkernel *k = clkernel_source(ctx, source, "scale", options);
    ck_assert_made(k);
    ck_assert_ptr_nonnull(strstr(clkernel_signature(k), "__global int* x"));
    int x[N];
    for (int i = 0; i < N; i++)
        x[i] = i;
    ck_assert_cl(clkernel_global(k, 128));
    ck_assert_cl(clkernel_call(k, CLARG_INOUT(x, N), CLARG((int)N)));
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(x[i], factor * i);
    float wrong[N];
    ck_assert_int_eq(clkernel_call(k, CLARG_INOUT(wrong, N), CLARG((int)N)),
                     CLFRAME_ERR_ARG_TYPE);
    clkernel_free(k);
}

/* One build of source in a new context; asserts its hits and misses. */
static void build_counting(const char *source, const char *options,
                           int factor, uint64_t hits, uint64_t misses)
{
    clctx *ctx = new_ctx();
    check_scale(ctx, source, options, factor);
    clctx_stats st = clctx_get_stats(ctx);
    ck_assert_msg(st.cache_hits == hits && st.cache_misses == misses,
                  "cache hits %llu misses %llu, expected %llu and %llu",
                  (unsigned long long)st.cache_hits,
                  (unsigned long long)st.cache_misses,
                  (unsigned long long)hits, (unsigned long long)misses);
    ck_assert_int_eq(st.live_objects, 0);
    clctx_free(ctx);
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void flip_byte(const char *path, long offset)
{
    FILE *f = fopen(path, "r+b");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fseek(f, offset, SEEK_SET), 0);
    int c = fgetc(f);
    ck_assert_int_ne(c, EOF);
    ck_assert_int_eq(fseek(f, offset, SEEK_SET), 0);
    fputc(c ^ 0x20, f);
    fclose(f);
}

/* Where the binary starts in an entry: after the header and the key. */
static long binary_offset(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    uint64_t key_len = 0;
    ck_assert_int_eq(fseek(f, KEY_LEN_OFFSET, SEEK_SET), 0);
    ck_assert_int_eq(fread(&key_len, sizeof key_len, 1, f), 1);
    fclose(f);
    ck_assert(key_len > 0 && (long)key_len < file_size(path));
    return HEADER_BYTES + (long)key_len;
}

/* ---- tests --------------------------------------------------------------- */

START_TEST(a_second_context_loads_the_cached_binary)
{
    build_counting(scale_source, NULL, 2, 0, 1);
    const char *entry = only_entry();
    ck_assert_int_gt(file_size(entry), HEADER_BYTES);
    build_counting(scale_source, NULL, 2, 1, 0);
    build_counting(scale_source, NULL, 2, 1, 0);
    ck_assert_str_eq(only_entry(), entry);
}
END_TEST

START_TEST(without_xdg_cache_home_it_is_home_dot_cache)
{
    setenv("HOME", cache_home, 1);
    setenv("XDG_CACHE_HOME", "relative/folder", 1);   /* XDG: ignored */
    build_counting(scale_source, NULL, 2, 0, 1);
    snprintf(entry_dir, sizeof entry_dir, "%s/.cache/clframe", cache_home);
    only_entry();
    unsetenv("XDG_CACHE_HOME");
    build_counting(scale_source, NULL, 2, 1, 0);
    ck_assert_int_eq(access("relative/folder", F_OK), -1);
}
END_TEST

START_TEST(clframe_cache_0_writes_nothing_and_never_hits)
{
    setenv("CLFRAME_CACHE", "0", 1);
    build_counting(scale_source, NULL, 2, 0, 1);
    build_counting(scale_source, NULL, 2, 0, 1);
    ck_assert_int_eq(count_files(entry_dir, "bin", NULL, 0), -1);
    /* Nor does it read an entry that is there. */
    unsetenv("CLFRAME_CACHE");
    build_counting(scale_source, NULL, 2, 0, 1);
    setenv("CLFRAME_CACHE", "0", 1);
    build_counting(scale_source, NULL, 2, 0, 1);
    only_entry();
}
END_TEST

START_TEST(debug_mode_bypasses_the_cache)
{
    build_counting(scale_source, NULL, 2, 0, 1);
    const char *entry = only_entry();
    setenv("CL_DEBUG", "1", 1);
    clctx *ctx = new_ctx();
    ck_assert_int_eq(clctx_debug(ctx), 1);
    check_scale(ctx, scale_source, NULL, 2);
    check_scale(ctx, scale_source, "-DSCALE=3", 3);
    ck_assert_uint_eq(clctx_get_stats(ctx).cache_hits, 0);
    ck_assert_uint_eq(clctx_get_stats(ctx).cache_misses, 2);
    clctx_free(ctx);
    ck_assert_str_eq(only_entry(), entry);
}
END_TEST

START_TEST(truncated_entries_are_rebuilt)
{
    build_counting(scale_source, NULL, 2, 0, 1);
    const char *entry = only_entry();
    long size = file_size(entry);
    long cuts[] = {0, 7, HEADER_BYTES, HEADER_BYTES + 10,
                   binary_offset(entry), size / 2, size - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++) {
        ck_assert_int_eq(truncate(entry, cuts[i]), 0);
        build_counting(scale_source, NULL, 2, 0, 1);   /* a miss, rebuilt */
        ck_assert_int_gt(file_size(only_entry()), HEADER_BYTES);
        build_counting(scale_source, NULL, 2, 1, 0);   /* valid again */
    }
}
END_TEST

START_TEST(a_flipped_byte_anywhere_is_a_miss)
{
    build_counting(scale_source, NULL, 2, 0, 1);
    const char *entry = only_entry();
    /* magic, format, a length, the checksum, the key; then the binary's
     * first, middle and last byte (a rebuilt binary can differ in size:
     * PoCL adds the kernels it has compiled since) */
    long header_and_key[] = {0, 8, 24, 39, HEADER_BYTES + 3};
    for (int i = 0; i < 8; i++) {
        long size = file_size(entry), binary = binary_offset(entry);
        long at = i < 5 ? header_and_key[i]
                : i == 5 ? binary : i == 6 ? (binary + size) / 2 : size - 1;
        flip_byte(entry, at);
        build_counting(scale_source, NULL, 2, 0, 1);
        build_counting(scale_source, NULL, 2, 1, 0);
    }
}
END_TEST

START_TEST(options_source_and_includes_change_the_key)
{
    build_counting(scale_source, "-DSCALE=3", 3, 0, 1);
    build_counting(scale_source, "-DSCALE=5", 5, 0, 1);
    build_counting(scale_source, "-DSCALE=3", 3, 1, 0);
    build_counting(scale_source, "-DSCALE=5", 5, 1, 0);
    char other[512];
    snprintf(other, sizeof other, "/* another source */\n%s", scale_source);
    build_counting(other, NULL, 2, 0, 1);
    ck_assert_int_eq(count_files(entry_dir, "bin", NULL, 0), 3);

    /* The same text including a header whose content changes. */
    const char *header = test_write_file("cache-include/factor.h",
                                         "#define SCALE 7\n");
    char options[600];
    snprintf(options, sizeof options, "-I %.*s", (int)(strrchr(header, '/') -
             header), header);
    const char *includer = "#include \"factor.h\"\n"
        "__kernel void scale(__global int *x, int n) {\n"
        "    int i = get_global_id(0);\n"
        "    if (i < n) x[i] *= SCALE;\n"
        "}\n";
    build_counting(includer, options, 7, 0, 1);
    build_counting(includer, options, 7, 1, 0);
    test_write_file("cache-include/factor.h", "#define SCALE 11\n");
    build_counting(includer, options, 11, 0, 1);
}
END_TEST

static int errors_raised;

static void count_error(int code, const char *message)
{
    (void)message;
    if (code != CLFRAME_ERR_ARG_TYPE)   /* check_scale's deliberate one */
        errors_raised++;
}

/* Points XDG_CACHE_HOME at a plain file: the cache folder under it cannot
 * be made, even by root. */
static void cache_under_a_plain_file(void)
{
    char blocked[300];
    snprintf(blocked, sizeof blocked, "%s/plain-file", cache_home);
    FILE *f = fopen(blocked, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    setenv("XDG_CACHE_HOME", blocked, 1);
}

START_TEST(an_unwritable_cache_is_a_silent_miss)
{
    cache_under_a_plain_file();
    errors_raised = 0;
    clframe_error_handler old = clframe_set_error_handler(count_error);
    capture_stderr_begin();
    build_counting(scale_source, NULL, 2, 0, 1);
    build_counting(scale_source, NULL, 2, 0, 1);
    char *said = capture_stderr_end();
    clframe_set_error_handler(old);
    ck_assert_str_eq(said, "");
    free(said);
    ck_assert_int_eq(errors_raised, 0);
}
END_TEST

/* A cache folder that others can write to holds what anyone put there:
 * it is no cache (built every time, nothing loaded) until it is private. */
START_TEST(a_folder_others_can_write_is_no_cache)
{
    build_counting(scale_source, NULL, 2, 0, 1);
    only_entry();
    ck_assert_int_eq(chmod(entry_dir, 0777), 0);
    build_counting(scale_source, NULL, 2, 0, 1);
    ck_assert_int_eq(chmod(entry_dir, 0700), 0);
    build_counting(scale_source, NULL, 2, 1, 0);
}
END_TEST

/* ---- the cap ------------------------------------------------------------- */

/* 1 for a program entry's name, <16 hex digits>.bin. */
static int named_as_entry(const char *name)
{
    return strspn(name, "0123456789abcdef") == 16 &&
           strcmp(name + 16, ".bin") == 0;
}

/* The program entries in the test's folder: how many (*count) and their
 * bytes. Only files named as entries count: the lock and settings do not. */
static long entry_bytes(int *count)
{
    DIR *d = opendir(entry_dir);
    long bytes = 0;
    *count = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        char path[600];
        snprintf(path, sizeof path, "%s/%s", entry_dir, e->d_name);
        struct stat st;
        if (named_as_entry(e->d_name) && lstat(path, &st) == 0 &&
            S_ISREG(st.st_mode)) {
            bytes += (long)st.st_size;
            ++*count;
        }
    }
    if (d)
        closedir(d);
    return bytes;
}

static void set_cache_max(long bytes)
{
    char value[32];
    snprintf(value, sizeof value, "%ld", bytes);
    setenv("CLFRAME_CACHE_MAX", value, 1);
}

/* Sets the entry's last use, as a hit would, to a time of the test's. */
static void set_used(const char *path, time_t when)
{
    struct timespec times[2] = {{.tv_sec = when}, {.tv_sec = when}};
    ck_assert_int_eq(utimensat(AT_FDCWD, path, times, 0), 0);
}

static int exists(const char *path)
{
    return access(path, F_OK) == 0;
}

/* Builds scale_source with -DSCALE=factor, a miss, and gives the path of
 * the entry it stored in path (600 bytes): the one entry that is new. */
static void build_stored(int factor, char *path)
{
    enum { MOST = 32 };
    char before[MOST][256];
    int n = 0;
    DIR *d = opendir(entry_dir);
    for (struct dirent *e; d && (e = readdir(d)) && n < MOST;)
        snprintf(before[n++], sizeof before[0], "%s", e->d_name);
    if (d)
        closedir(d);
    char options[32];
    snprintf(options, sizeof options, "-DSCALE=%d", factor);
    build_counting(scale_source, options, factor, 0, 1);
    d = opendir(entry_dir);
    ck_assert_ptr_nonnull(d);
    path[0] = '\0';
    for (struct dirent *e; (e = readdir(d));) {
        int seen = 0;
        for (int i = 0; i < n && !seen; i++)
            seen = strcmp(before[i], e->d_name) == 0;
        if (!seen && named_as_entry(e->d_name)) {
            ck_assert_msg(path[0] == '\0', "two new entries");
            snprintf(path, 600, "%s/%s", entry_dir, e->d_name);
        }
    }
    closedir(d);
    ck_assert_msg(path[0], "%s stored no entry", options);
}

START_TEST(the_cap_holds_after_many_stores)
{
    char path[600];
    build_stored(2, path);
    long one = file_size(path), cap = 2 * one + one / 2;
    set_cache_max(cap);
    for (int factor = 3; factor <= 9; factor++) {
        build_stored(factor, path);      /* stored, though past the cap */
        int count;
        long bytes = entry_bytes(&count);
        ck_assert_msg(bytes <= cap, "%d entries hold %ld bytes, the cap is "
                      "%ld", count, bytes, cap);
        ck_assert_int_eq(count, 2);
    }
}
END_TEST

/* Entries of one source with options of one length: one size, give or take
 * what the driver varies, so that each new one pushes out one old one. */
START_TEST(the_least_recently_used_entry_goes_first)
{
    char a[600], b[600], c[600], d[600], e[600];
    build_stored(3, a);
    build_stored(5, b);
    build_stored(7, c);
    set_used(a, 1000);
    set_used(b, 2000);
    set_used(c, 3000);
    int count;
    set_cache_max(entry_bytes(&count) + file_size(a) / 2);
    build_stored(9, d);
    ck_assert_msg(!exists(a) && exists(b) && exists(c) && exists(d),
                  "not the oldest entry alone was evicted");

    /* A hit makes b, the oldest now, the most recently used: c goes. */
    set_used(b, 1000);
    set_used(c, 2000);
    set_used(d, 3000);
    build_counting(scale_source, "-DSCALE=5", 5, 1, 0);
    build_stored(6, e);
    ck_assert_msg(exists(b) && !exists(c) && exists(d) && exists(e),
                  "the entry just loaded was evicted, or the wrong one");
}
END_TEST

/* The entry stored is kept even when an older one claims a later use (a
 * clock set back, a copied folder): that one goes. */
START_TEST(the_entry_just_stored_is_never_evicted)
{
    char a[600], b[600];
    build_stored(3, a);
    set_used(a, 4102444800);            /* 2100-01-01 */
    set_cache_max(file_size(a) + file_size(a) / 2);
    build_stored(5, b);
    ck_assert_msg(!exists(a) && exists(b), "the entry just stored was "
                  "evicted, or none");
}
END_TEST

/* An entry larger than the whole cap is not stored, and evicts nothing;
 * CLFRAME_CACHE_MAX=0 stores nothing. What is there still loads. */
START_TEST(an_entry_larger_than_the_cap_is_not_stored)
{
    build_counting(scale_source, "-DSCALE=3", 3, 0, 1);
    char entry[600];
    snprintf(entry, sizeof entry, "%s", only_entry());
    set_cache_max(file_size(entry) - 1);
    build_counting(scale_source, "-DSCALE=5", 5, 0, 1);
    build_counting(scale_source, "-DSCALE=5", 5, 0, 1);
    ck_assert_str_eq(only_entry(), entry);
    setenv("CLFRAME_CACHE_MAX", "0", 1);
    build_counting(scale_source, "-DSCALE=7", 7, 0, 1);
    build_counting(scale_source, "-DSCALE=3", 3, 1, 0);
    ck_assert_str_eq(only_entry(), entry);
}
END_TEST

START_TEST(a_malformed_cache_max_is_an_error_naming_it)
{
    static const char *const good[] = {"0", "1", "64K", "300m", "2G"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        setenv("CLFRAME_CACHE_MAX", good[i], 1);
        clctx *ctx = clctx_new(NULL);
        ck_assert_made(ctx);
        clctx_free(ctx);
    }
    static const char *const bad[] = {"lots", "12Q", "-1", "8 K", "1e9",
                                      "1.5M", "99999999999999999999",
                                      "99999999999G"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        setenv("CLFRAME_CACHE_MAX", bad[i], 1);
        ck_assert_msg(clctx_new(NULL) == NULL, "CLFRAME_CACHE_MAX=%s taken",
                      bad[i]);
        ck_assert_error_has("CLFRAME_CACHE_MAX");
        ck_assert_error_has(bad[i]);
        clframe_cache_usage usage;
        ck_assert_fails(clframe_cache_get_usage(&usage), CLFRAME_ERR_USAGE,
                        "CLFRAME_CACHE_MAX");
        ck_assert_fails(clframe_cache_clear(&usage), CLFRAME_ERR_USAGE,
                        "CLFRAME_CACHE_MAX");
    }
}
END_TEST

/* Files beside the entries that are not entries, each as old as can be:
 * settings, notes, names almost an entry's, a writer's temporary, a
 * folder and a link named as entries. */
static const char *const strangers[] = {
    "notes.txt", "0123456789abcdef.txt", "0123456789abcde.bin",
    "0123456789ABCDEF.bin", "0123456789abcdef.bin.Xy12Zq",
    "0123456789abcdef0.bin", "fedcba9876543210.bin", "1111111111111111.bin"};

static void add_strangers(void)
{
    clctx *ctx = new_ctx();
    ck_assert_cl(clctx_setting_put(ctx, "test-tile", "8x8x16x16x16x4"));
    clctx_free(ctx);
    char path[600];
    for (int i = 0; i < 6; i++) {
        snprintf(path, sizeof path, "%s/%s", entry_dir, strangers[i]);
        FILE *f = fopen(path, "wb");
        ck_assert_ptr_nonnull(f);
        for (int k = 0; k < 4096; k++)
            fputs("not an entry\n", f);
        ck_assert_int_eq(fclose(f), 0);
        set_used(path, 1);
    }
    snprintf(path, sizeof path, "%s/%s", entry_dir, strangers[6]);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/%s", entry_dir, strangers[7]);
    ck_assert_int_eq(symlink("notes.txt", path), 0);
}

static void assert_strangers_left(void)
{
    char path[600];
    for (size_t i = 0; i < sizeof strangers / sizeof *strangers; i++) {
        snprintf(path, sizeof path, "%s/%s", entry_dir, strangers[i]);
        struct stat st;
        ck_assert_msg(lstat(path, &st) == 0, "%s removed", strangers[i]);
    }
    path[0] = '\0';
    count_files(entry_dir, "setting", path, sizeof path);
    ck_assert_msg(path[0], "the setting was removed");
}

START_TEST(eviction_and_clearing_leave_what_is_not_an_entry)
{
    char path[600];
    build_stored(2, path);
    add_strangers();
    long cap = file_size(path) + file_size(path) / 2;
    set_cache_max(cap);
    for (int factor = 3; factor <= 5; factor++)
        build_stored(factor, path);
    int count;
    long bytes = entry_bytes(&count);
    ck_assert_int_eq(count, 1);
    assert_strangers_left();

    clframe_cache_usage usage;
    ck_assert_cl(clframe_cache_get_usage(&usage));
    ck_assert_str_eq(usage.dir, entry_dir);
    ck_assert(usage.exists && usage.on);
    ck_assert_uint_eq(usage.entries, 1);
    ck_assert_uint_eq(usage.bytes, (uint64_t)bytes);
    ck_assert_uint_eq(usage.max, (uint64_t)cap);
    ck_assert_cl(clframe_cache_clear(&usage));
    ck_assert_uint_eq(usage.entries, 1);
    ck_assert_uint_eq(usage.bytes, (uint64_t)bytes);
    ck_assert(!exists(path));
    assert_strangers_left();
    ck_assert_cl(clframe_cache_get_usage(&usage));
    ck_assert_uint_eq(usage.entries, 0);
    ck_assert_uint_eq(usage.bytes, 0);
}
END_TEST

/* clframe-info OPTION in the test's environment: its exit status, and
 * what it printed, both streams, in *said (caller frees). */
static int run_info_option(const char *option, char **said)
{
    const char *out = test_tmp_path("cache", "info-output");
    int status = test_run("%s %s > %s 2>&1", test_program("clframe-info"),
                          option, out);
    size_t size;
    *said = test_read_file(out, &size);
    return status;
}

static void assert_info_says(const char *option, int status,
                             const char *text)
{
    char *said;
    int got = run_info_option(option, &said);
    ck_assert_msg(got == status && strstr(said, text), "clframe-info %s: "
                  "exit status %d, expected %d with \"%s\"; said: %s",
                  option, got, status, text, said);
    free(said);
}

START_TEST(clframe_info_shows_and_clears_the_cache)
{
    char a[600], b[600], text[800];
    assert_info_says("--cache", 0, "(not made yet: empty)");
    assert_info_says("--clear-cache", 0, "nothing to remove");
    build_stored(2, a);
    build_stored(3, b);
    add_strangers();
    int count;
    long bytes = entry_bytes(&count);
    snprintf(text, sizeof text, "program cache: %s\n    entries  2, %ld "
             "bytes", entry_dir, bytes);
    assert_info_says("--cache", 0, text);
    assert_info_says("--cache", 0, "cap      268435456 bytes (256.0 MiB)");
    setenv("CLFRAME_CACHE_MAX", "64K", 1);
    assert_info_says("--cache", 0, "cap      65536 bytes (64.0 KiB)");
    setenv("CLFRAME_CACHE_MAX", "64Q", 1);
    assert_info_says("--cache", 1, "CLFRAME_CACHE_MAX=\"64Q\"");
    unsetenv("CLFRAME_CACHE_MAX");
    setenv("CLFRAME_CACHE", "0", 1);
    assert_info_says("--cache", 0, "off: CLFRAME_CACHE=0");
    unsetenv("CLFRAME_CACHE");

    snprintf(text, sizeof text, "removed 2 entries (");
    assert_info_says("--clear-cache", 0, text);
    ck_assert(!exists(a) && !exists(b));
    assert_strangers_left();
    snprintf(text, sizeof text, "program cache: %s\n    entries  0, 0 bytes",
             entry_dir);
    assert_info_says("--cache", 0, text);
    assert_info_says("--clear-cache", 0, "removed 0 entries");

    ck_assert_int_eq(chmod(entry_dir, 0777), 0);
    assert_info_says("--cache", 1, "not yours alone");
    assert_info_says("--clear-cache", 1, "not yours alone");
    ck_assert_int_eq(chmod(entry_dir, 0700), 0);
    cache_under_a_plain_file();
    assert_info_says("--cache", 1, "plain-file/clframe: Not a directory");
}
END_TEST

/* clframe-info with the test's cache home: a process that loads the
 * drivers afresh, with PoCL's cache where nobody has said. */
static void run_info_in_own_cache(void)
{
    ck_assert_int_eq(test_run("env -u POCL_CACHE_DIR -u POCL_KERNEL_CACHE "
                              "XDG_CACHE_HOME='%s' %s > /dev/null", cache_home,
                              test_program("clframe-info")), 0);
}

/* PoCL's kernel cache goes into clframe's folder, private (0700), not
 * into a pocl/ folder of its own beside it. */
START_TEST(pocl_caches_in_clframes_folder)
{
    char pocl[400], beside[400];
    snprintf(pocl, sizeof pocl, "%s/pocl", entry_dir);
    snprintf(beside, sizeof beside, "%s/pocl", cache_home);
    run_info_in_own_cache();
    struct stat st;
    ck_assert_int_eq(stat(pocl, &st), 0);
    ck_assert(S_ISDIR(st.st_mode));
    ck_assert_int_eq(st.st_mode & 0777, 0700);
    ck_assert_int_eq(access(beside, F_OK), -1);
}
END_TEST

/* Under a clframe folder that others can write to, PoCL keeps no cache
 * (it builds in temporary folders of its own, pocl/uncached/). */
START_TEST(pocl_caches_nothing_under_a_folder_others_can_write)
{
    char pocl[400], beside[400];
    snprintf(pocl, sizeof pocl, "%s/pocl", entry_dir);
    snprintf(beside, sizeof beside, "%s/pocl/kcache", cache_home);
    ck_assert_int_eq(mkdir(entry_dir, 0700), 0);
    ck_assert_int_eq(chmod(entry_dir, 0777), 0);
    run_info_in_own_cache();
    ck_assert_int_eq(access(pocl, F_OK), -1);
    ck_assert_int_eq(access(beside, F_OK), -1);
}
END_TEST

/* A child of concurrent_writers: waits for the start signal, builds, runs,
 * and exits 0 when the kernel worked. POCL_KERNEL_CACHE=0 keeps PoCL's own
 * cache from making the builds too quick to overlap. */
static void writer(int start_fd)
{
    char go;
    if (read(start_fd, &go, 1) != 0)
        _exit(3);
    setenv("POCL_KERNEL_CACHE", "0", 1);
    clctx *ctx = clctx_new(NULL);
    clkernel *k = ctx ? clkernel_source(ctx, scale_source, "scale",
                                        "-DSCALE=13") : NULL;
    int x[N];
    for (int i = 0; i < N; i++)
        x[i] = i;
    int ok = k && clkernel_global(k, 128) == 0 &&
             clkernel_call(k, CLARG_INOUT(x, N), CLARG((int)N)) == 0 &&
             x[N - 1] == 13 * (N - 1);
    clkernel_free(k);
    clctx_free(ctx);
    _exit(ok ? 0 : 1);
}

/* Processes that build the same new source at once each write the entry;
 * the renames leave one whole entry and no temporary file. OpenCL does not
 * survive fork (PoCL's threads stay behind), so the writers are forked
 * before this process opens any device: in a process of its own. */
START_TEST(concurrent_writers_leave_one_valid_entry)
{
    if (test_run_apart("cache", "concurrent writers"))
        return;
    enum { WRITERS = 6 };
    int start[2];
    ck_assert_int_eq(pipe(start), 0);
    pid_t pids[WRITERS];
    for (int i = 0; i < WRITERS; i++) {
        pids[i] = fork();
        ck_assert_int_ge(pids[i], 0);
        if (pids[i] == 0) {
            close(start[1]);
            writer(start[0]);
        }
    }
    close(start[0]);
    close(start[1]);            /* every writer's read returns: go */
    for (int i = 0; i < WRITERS; i++) {
        int status = 0;
        ck_assert_int_eq(waitpid(pids[i], &status, 0), pids[i]);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                      "writer %d ended with status %d", i, status);
    }
    only_entry();
    build_counting(scale_source, "-DSCALE=13", 13, 1, 0);
}
END_TEST

/* ---- processes storing at the cap at once -------------------------------- */

enum { SHARERS = 4, SHARED_PROGRAMS = 2, ROUNDS = 3 };

/* The factor of child's k-th program: the first SHARED_PROGRAMS are every
 * child's, the last one is its own. */
static int sharer_factor(int child, int k)
{
    return k < SHARED_PROGRAMS ? 2 + k : 2 + SHARED_PROGRAMS + child;
}

/* A child of processes_at_the_cap: waits for the start signal, then for
 * ROUNDS rounds builds its programs on a new context each time (so that
 * each build loads from the cache or compiles and stores, evicting), runs
 * them, and exits 0 when every result was right. */
static void sharer(int start_fd, int child)
{
    char go;
    if (read(start_fd, &go, 1) != 0)
        _exit(3);
    int ok = 1;
    for (int round = 0; round < ROUNDS && ok; round++) {
        clctx *ctx = clctx_new(NULL);
        ok = ctx != NULL;
        for (int k = 0; k <= SHARED_PROGRAMS && ok; k++) {
            int factor = sharer_factor(child, k), x[N];
            char options[32];
            snprintf(options, sizeof options, "-DSCALE=%d", factor);
            clkernel *kernel = clkernel_source(ctx, scale_source, "scale",
                                               options);
            for (int i = 0; i < N; i++)
                x[i] = i;
            ok = kernel && clkernel_global(kernel, 128) == 0 &&
                 clkernel_call(kernel, CLARG_INOUT(x, N), CLARG((int)N)) == 0;
            for (int i = 0; i < N && ok; i++)
                ok = x[i] == factor * i;
            clkernel_free(kernel);
        }
        clctx_free(ctx);
    }
    _exit(ok ? 0 : 1);
}

/* Forks n children running child(start_fd, i), starts them at once and
 * asserts each exits 0. */
static void run_children(int n, void (*child)(int, int))
{
    int start[2];
    ck_assert_int_eq(pipe(start), 0);
    pid_t pids[SHARERS];
    ck_assert_int_le(n, SHARERS);
    for (int i = 0; i < n; i++) {
        pids[i] = fork();
        ck_assert_int_ge(pids[i], 0);
        if (pids[i] == 0) {
            close(start[1]);
            child(start[0], i);
        }
    }
    close(start[0]);
    close(start[1]);            /* every child's read returns: go */
    for (int i = 0; i < n; i++) {
        int status = 0;
        ck_assert_int_eq(waitpid(pids[i], &status, 0), pids[i]);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                      "child %d ended with status %d", i, status);
    }
}

/* Asserts that the entry at path is whole, as clframe reads it, and is
 * named by its key. */
static void assert_entry_whole(const char *path)
{
    size_t size = 0, binary_len = 0;
    char *file = test_read_file(path, &size);
    uint64_t key_len = 0;
    ck_assert_uint_ge(size, HEADER_BYTES);
    memcpy(&key_len, file + KEY_LEN_OFFSET, sizeof key_len);
    ck_assert_uint_le(key_len, size - HEADER_BYTES);
    const char *key = file + HEADER_BYTES;
    ck_assert_msg(clf_cache_entry_binary((const unsigned char *)file, size,
                                         key, key_len, &binary_len) != NULL,
                  "%s is not a whole entry", path);
    char *named = clf_cache_path(entry_dir, key, key_len, "bin");
    ck_assert_str_eq(named, path);
    free(named);
    free(file);
}

/* Processes that store and load programs, some shared and some their own,
 * against a cap of a few entries, evicting one another's: each child's
 * kernels all work, and what they leave is within the cap, every entry
 * whole, and each loads. The children fork before this process opens a
 * device, as concurrent_writers_leave_one_valid_entry says. */
START_TEST(processes_at_the_cap_leave_whole_entries_within_it)
{
    if (test_run_apart("cache", "processes at the cap"))
        return;
    run_children(1, sharer);        /* one alone: an entry's size */
    int count;
    long bytes = entry_bytes(&count), cap = 3 * bytes / count;
    set_cache_max(cap);
    run_children(SHARERS, sharer);

    bytes = entry_bytes(&count);
    ck_assert_msg(count > 0 && bytes <= cap, "%d entries, %ld bytes, the cap "
                  "%ld", count, bytes, cap);
    DIR *d = opendir(entry_dir);
    ck_assert_ptr_nonnull(d);
    for (struct dirent *e; (e = readdir(d));) {
        char path[600];
        snprintf(path, sizeof path, "%s/%s", entry_dir, e->d_name);
        ck_assert_msg(!strstr(e->d_name, ".bin."), "%s left", e->d_name);
        if (named_as_entry(e->d_name))
            assert_entry_whole(path);
    }
    closedir(d);
    /* Each entry is one of the programs: loading them all, storing
     * nothing, hits once per entry. */
    setenv("CLFRAME_CACHE_MAX", "0", 1);
    uint64_t hits = 0;
    for (int factor = 2; factor < 2 + SHARED_PROGRAMS + SHARERS; factor++) {
        char options[32];
        snprintf(options, sizeof options, "-DSCALE=%d", factor);
        clctx *ctx = new_ctx();
        check_scale(ctx, scale_source, options, factor);
        hits += clctx_get_stats(ctx).cache_hits;
        clctx_free(ctx);
    }
    ck_assert_uint_eq(hits, (uint64_t)count);
}
END_TEST

/* ---- per-device settings ------------------------------------------------- */

START_TEST(a_setting_is_stored_read_back_and_replaced)
{
    clctx *ctx = new_ctx();
    char value[32] = "untouched";
    ck_assert_int_eq(clctx_setting_get(ctx, "test-tile", value, sizeof value),
                     0);
    ck_assert_str_eq(value, "untouched");
    ck_assert_cl(clctx_setting_put(ctx, "test-tile", "8x8x16x16x16x4"));
    ck_assert_int_eq(clctx_setting_get(ctx, "test-tile", value, sizeof value),
                     1);
    ck_assert_str_eq(value, "8x8x16x16x16x4");
    only_file("setting");
    ck_assert_cl(clctx_setting_put(ctx, "test-tile", "4x4x8x8x8x0"));
    ck_assert_int_eq(clctx_setting_get(ctx, "test-tile", value, sizeof value),
                     1);
    ck_assert_str_eq(value, "4x4x8x8x8x0");
    only_file("setting");         /* replaced, no temporary file left */
    /* Another name is another setting; a buffer too small is no value. */
    ck_assert_int_eq(clctx_setting_get(ctx, "test-other", value,
                                       sizeof value), 0);
    ck_assert_int_eq(clctx_setting_get(ctx, "test-tile", value, 5), 0);
    /* A second context on the same device finds it. */
    clctx *again = new_ctx();
    ck_assert_int_eq(clctx_setting_get(again, "test-tile", value,
                                       sizeof value), 1);
    clctx_free(again);
    clctx_free(ctx);
}
END_TEST

START_TEST(a_damaged_setting_is_no_value_and_is_removed)
{
    clctx *ctx = new_ctx();
    char value[32];
    ck_assert_cl(clctx_setting_put(ctx, "test-tile", "8x8x16x16x16x4"));
    const char *path = only_file("setting");
    long size = file_size(path);
    /* The key, the length, the checksum (every digit: a flip can make a
     * digit a control character or a letter upper case) and the value
     * ("value 14 <16 hex digits>\n8x8x16x16x16x4\n" ends the file). */
    long offsets[22] = {3, size - 35, size - 5, size - 1};
    for (int i = 0; i < 16; i++)
        offsets[4 + i] = size - 32 + i;
    offsets[20] = size - 16;        /* the newline after the checksum */
    offsets[21] = size - 38;
    for (size_t i = 0; i < sizeof offsets / sizeof *offsets; i++) {
        ck_assert_cl(clctx_setting_put(ctx, "test-tile", "8x8x16x16x16x4"));
        flip_byte(path, offsets[i]);
        ck_assert_msg(clctx_setting_get(ctx, "test-tile", value,
                                        sizeof value) == 0,
                      "byte %ld flipped: still read", offsets[i]);
        ck_assert_int_eq(access(path, F_OK), -1);
    }
    /* Cut short. */
    ck_assert_cl(clctx_setting_put(ctx, "test-tile", "8x8x16x16x16x4"));
    ck_assert_int_eq(truncate(path, size - 3), 0);
    ck_assert_int_eq(clctx_setting_get(ctx, "test-tile", value, sizeof value),
                     0);
    /* Lengths that wrap the arithmetic, with or without what follows. */
    static const char *const tails[] = {
        "value 18446744073709551615", "value -1",
        "value 18446744073709551615 0123456789abcdef\n",
        "value -1 0123456789abcdef\n", "value 0 0123456789abcdef\n",
        "value 18446744073709551615 0123456789abcdef\n8x8x16x16x16x4\n",
        "value +14 0123456789abcdef\n8x8x16x16x16x4\n"};
    for (size_t i = 0; i < sizeof tails / sizeof *tails; i++) {
        ck_assert_cl(clctx_setting_put(ctx, "test-tile", "8x8x16x16x16x4"));
        FILE *f = fopen(path, "r+b");
        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(fseek(f, size - 41, SEEK_SET), 0);  /* "value " */
        ck_assert_int_eq(fputs(tails[i], f) >= 0, 1);
        long end = ftell(f);
        ck_assert_int_eq(fclose(f), 0);
        ck_assert_int_eq(truncate(path, end), 0);
        ck_assert_msg(clctx_setting_get(ctx, "test-tile", value,
                                        sizeof value) == 0,
                      "\"%s\" read as a value", tails[i]);
        ck_assert_int_eq(access(path, F_OK), -1);
    }
    clctx_free(ctx);
}
END_TEST

/* A FIFO or a folder where an entry or a setting should be is a miss,
 * never a reader waiting for a writer: it is removed and the program
 * built (or the setting stored) again. */
START_TEST(a_fifo_in_the_cache_is_a_miss)
{
    clctx *ctx = new_ctx();
    char value[32];
    ck_assert_cl(clctx_setting_put(ctx, "test-tile", "8x8x16x16x16x4"));
    char setting[600];
    snprintf(setting, sizeof setting, "%s", only_file("setting"));
    ck_assert_int_eq(unlink(setting), 0);
    ck_assert_int_eq(mkfifo(setting, 0600), 0);
    ck_assert_int_eq(clctx_setting_get(ctx, "test-tile", value, sizeof value),
                     0);
    ck_assert_cl(clctx_setting_put(ctx, "test-tile", "8x8x16x16x16x4"));
    ck_assert_int_eq(clctx_setting_get(ctx, "test-tile", value, sizeof value),
                     1);
    ck_assert_int_eq(unlink(setting), 0);

    clctx_free(ctx);

    build_counting(scale_source, NULL, 2, 0, 1);
    char entry[600];
    snprintf(entry, sizeof entry, "%s", only_entry());
    ck_assert_int_eq(unlink(entry), 0);
    ck_assert_int_eq(mkfifo(entry, 0600), 0);
    build_counting(scale_source, NULL, 2, 0, 1);        /* a miss */
    struct stat st;
    ck_assert_int_eq(stat(entry, &st), 0);
    ck_assert(S_ISREG(st.st_mode));                     /* stored again */
    build_counting(scale_source, NULL, 2, 1, 0);
}
END_TEST

START_TEST(setting_errors_say_what_and_where)
{
    clctx *ctx = new_ctx();
    char value[32];
    ck_assert_fails(clctx_setting_put(ctx, "test-tile", "two\nlines"),
                    CLFRAME_ERR_USAGE, "one line of text");
    ck_assert_fails(clctx_setting_put(ctx, "test-tile", ""),
                    CLFRAME_ERR_USAGE, "one line of text");
    ck_assert_fails(clctx_setting_put(NULL, "test-tile", "x"),
                    CLFRAME_ERR_USAGE, "needs a context");
    setenv("CLFRAME_CACHE", "0", 1);
    ck_assert_fails(clctx_setting_put(ctx, "test-tile", "x"),
                    CLFRAME_ERR_USAGE, "CLFRAME_CACHE=0");
    unsetenv("CLFRAME_CACHE");
    ck_assert_cl(clctx_setting_put(ctx, "test-tile", "x"));
    setenv("CLFRAME_CACHE", "0", 1);
    ck_assert_int_eq(clctx_setting_get(ctx, "test-tile", value, sizeof value),
                     0);
    unsetenv("CLFRAME_CACHE");
    cache_under_a_plain_file();
    ck_assert_fails(clctx_setting_put(ctx, "test-tile", "x"), CLFRAME_ERR_IO,
                    "plain-file/clframe/");
    clctx_free(ctx);
}
END_TEST

Suite *cache_suite(void)
{
    Suite *s = suite_create("cache");
    TCase *tc = test_case("binaries");
    tcase_add_checked_fixture(tc, use_own_cache, drop_own_cache);
    tcase_add_test(tc, a_second_context_loads_the_cached_binary);
    tcase_add_test(tc, without_xdg_cache_home_it_is_home_dot_cache);
    tcase_add_test(tc, clframe_cache_0_writes_nothing_and_never_hits);
    tcase_add_test(tc, debug_mode_bypasses_the_cache);
    tcase_add_test(tc, truncated_entries_are_rebuilt);
    tcase_add_test(tc, a_flipped_byte_anywhere_is_a_miss);
    tcase_add_test(tc, options_source_and_includes_change_the_key);
    tcase_add_test(tc, an_unwritable_cache_is_a_silent_miss);
    tcase_add_test(tc, a_setting_is_stored_read_back_and_replaced);
    tcase_add_test(tc, a_damaged_setting_is_no_value_and_is_removed);
    tcase_add_test(tc, a_fifo_in_the_cache_is_a_miss);
    tcase_add_test(tc, a_folder_others_can_write_is_no_cache);
    tcase_add_test(tc, pocl_caches_in_clframes_folder);
    tcase_add_test(tc, pocl_caches_nothing_under_a_folder_others_can_write);
    tcase_add_test(tc, setting_errors_say_what_and_where);
    tcase_add_test(tc, the_cap_holds_after_many_stores);
    tcase_add_test(tc, the_least_recently_used_entry_goes_first);
    tcase_add_test(tc, the_entry_just_stored_is_never_evicted);
    tcase_add_test(tc, an_entry_larger_than_the_cap_is_not_stored);
    tcase_add_test(tc, a_malformed_cache_max_is_an_error_naming_it);
    tcase_add_test(tc, eviction_and_clearing_leave_what_is_not_an_entry);
    tcase_add_test(tc, clframe_info_shows_and_clears_the_cache);
    suite_add_tcase(s, tc);
    /* A process that has opened no device yet (test_run_apart); not
     * under Oclgrind, whose log each forked test would truncate. */
    TCase *apart = test_case("concurrent writers");
    tcase_set_tags(apart, "no-oclgrind");
    tcase_add_checked_fixture(apart, use_own_cache, drop_own_cache);
    tcase_add_test(apart, concurrent_writers_leave_one_valid_entry);
    suite_add_tcase(s, apart);
    TCase *at_cap = test_case("processes at the cap");
    tcase_set_tags(at_cap, "no-oclgrind");
    tcase_add_checked_fixture(at_cap, use_own_cache, drop_own_cache);
    tcase_add_test(at_cap, processes_at_the_cap_leave_whole_entries_within_it);
    suite_add_tcase(s, at_cap);
    return s;
}
