/*
 * testing.c: the apps' shared test helpers (testing.h).
 */
#define _DEFAULT_SOURCE         /* wait4: a child's own peak memory */

#include "testing.h"

#include <fcntl.h>
#include <png.h>
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Whether this build runs under AddressSanitizer (gcc says so with a
 * macro, clang with __has_feature). */
#if defined(__SANITIZE_ADDRESS__)
#define TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_ASAN 1
#endif
#endif
#ifndef TEST_ASAN
#define TEST_ASAN 0
#endif

const char *test_write_png(const char *path, uint32_t w, uint32_t h,
                           int type, const uint8_t *pixels, int channels)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL,
                                              NULL, NULL);
    png_infop info = png_create_info_struct(png);
    ck_assert(png && info);
    png_init_io(png, f);
    png_set_IHDR(png, info, w, h, 8, type, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (type == PNG_COLOR_TYPE_PALETTE) {
        png_color palette[4] = {{0, 0, 0}, {255, 255, 255}, {255, 0, 0},
                                {0, 200, 90}};
        png_set_PLTE(png, info, palette, 4);
    }
    png_write_info(png, info);
    for (uint32_t y = 0; y < h; y++)
        png_write_row(png, (png_const_bytep)pixels + (size_t)y * w * channels);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    fclose(f);
    return path;
}

/* In the child of test_spawn, before exec: only calls that are safe after
 * fork in a threaded process (no allocation, no stdio). */
static void spawned_child(const char *const argv[], const char *in,
                          const char *out, unsigned limit_mib)
{
    int fd_in = open(in ? in : "/dev/null", O_RDONLY);
    int fd_out = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC,
                      0600);
    if (fd_in < 0 || fd_out < 0 || dup2(fd_in, 0) < 0 || dup2(fd_out, 1) < 0 ||
        dup2(fd_out, 2) < 0)
        _exit(126);
    struct rlimit fsize = {TEST_SPAWN_MAX_OUTPUT, TEST_SPAWN_MAX_OUTPUT};
    setrlimit(RLIMIT_FSIZE, &fsize);
    if (limit_mib && !TEST_ASAN) {
        struct rlimit as = {(rlim_t)limit_mib << 20, (rlim_t)limit_mib << 20};
        setrlimit(RLIMIT_AS, &as);
    }
    execv(argv[0], (char *const *)argv);
    _exit(127);
}

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

test_exit test_spawn(const char *const argv[], const char *in,
                     const char *out, unsigned seconds, unsigned limit_mib)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    ck_assert_msg(pid >= 0, "cannot fork to run %s", argv[0]);
    if (pid == 0)
        spawned_child(argv, in, out, limit_mib);
    test_exit result = {-1, 0, 0};
    double deadline = seconds_now() + seconds;
    struct rusage usage;
    int status;
    pid_t done;
    /* Polled rather than with alarm(): Check times its tests by SIGALRM. */
    while ((done = wait4(pid, &status, WNOHANG, &usage)) == 0) {
        if (seconds_now() > deadline) {
            kill(pid, SIGKILL);
            result.timed_out = 1;
            done = wait4(pid, &status, 0, &usage);
            break;
        }
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    ck_assert_msg(done == pid, "lost track of %s", argv[0]);
    if (WIFEXITED(status))
        result.status = WEXITSTATUS(status);
    result.max_rss_kib = usage.ru_maxrss;
    return result;
}

void test_assert_lost_output_fails(const char *name,
                                   const char *const args[])
{
    const char *err = test_tmp_path("testing", "lost-output");
    char expect[128];
    snprintf(expect, sizeof expect, "%s: standard output: writing failed",
             name);
    for (size_t i = 0; args[i]; i++) {
        int status = test_run("%s %s > /dev/full 2> %s", test_program(name),
                              args[i], err);
        size_t size;
        char *said = test_read_file(err, &size);
        ck_assert_msg(status == 1 && strstr(said, expect),
                      "%s %s > /dev/full: exit status %d, said: %s", name,
                      args[i], status, said);
        free(said);
    }
}
