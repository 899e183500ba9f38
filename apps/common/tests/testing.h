/*
 * testing.h: what the apps' suites share beyond tests/support.h (which
 * every suite, the library's too, includes): assertions that show the
 * apps' own error message (common/error.h, which is clframe's too), PNG
 * inputs, and programs run with a time and memory limit.
 */
#ifndef APPS_TESTING_H
#define APPS_TESTING_H

#include "support.h"

#include "common/error.h"

#include <stdint.h>
#include <string.h>

/* Asserts an app's call (or clframe's) returned 0, showing the message. */
#define ck_assert_app(call)                                                \
    do {                                                                   \
        int rc_ = (call);                                                  \
        ck_assert_msg(rc_ == 0, "%s returned %d: %s", #call, rc_,          \
                      app_last_error());                                   \
    } while (0)

/* Asserts a pointer-returning call succeeded. */
#define ck_assert_app_made(p)                                              \
    ck_assert_msg((p) != NULL, "%s is NULL: %s", #p, app_last_error())

/* Asserts a call failed with code and a message containing text. */
#define ck_assert_app_fails(call, code, text)                              \
    do {                                                                   \
        int rc_ = (call);                                                  \
        ck_assert_msg(rc_ == (code), "%s returned %d, expected %s; "       \
                      "message: %s", #call, rc_, #code, app_last_error()); \
        ck_assert_msg(strstr(app_last_error(), (text)) != NULL,            \
                      "message of %s lacks \"%s\": %s", #call, (text),     \
                      app_last_error());                                   \
    } while (0)

/* Writes path as a w x h PNG of libpng colour type `type` at depth 8 from
 * rows of bytes (channels per pixel, no padding); palette images get the
 * palette black, white, red, green. Returns path. */
const char *test_write_png(const char *path, uint32_t w, uint32_t h,
                           int type, const uint8_t *pixels, int channels);

/* How a program run by test_spawn ended. */
typedef struct test_exit {
    int status;             /* its exit status; -1 if a signal ended it */
    int timed_out;          /* 1 if it ran out of time and was killed */
    long max_rss_kib;       /* its peak resident memory in KiB, as wait4
                               says: Linux counts in it what the test
                               process held when forked to start it, so
                               compare it with a baseline run's */
} test_exit;

/* Runs argv (NULL-ended; argv[0] a path, such as test_program gives) with
 * standard input from the file `in` and standard output and error into the
 * file `out` (NULL: /dev/null), and kills it after `seconds`, so that a
 * program that would loop forever on hostile input fails its test rather
 * than hang it. `limit_mib` (0: none) caps its address space, so that one
 * allocating without bound fails at once; it is not applied to a sanitized
 * build, whose shadow memory takes terabytes of address space. Its output
 * is capped at TEST_SPAWN_MAX_OUTPUT bytes (a program writing without end
 * is killed by SIGXFSZ). */
enum { TEST_SPAWN_MAX_OUTPUT = 16 << 20 };
test_exit test_spawn(const char *const argv[], const char *in,
                     const char *out, unsigned seconds, unsigned limit_mib);

/* Runs program `name` (test_program's) with each of the argument lines of
 * args (NULL-ended; shell words, so "< FILE" may come too) and its
 * standard output on /dev/full, asserting that each exits with status 1
 * and says "NAME: standard output: writing failed" on stderr: a result
 * that could not be written is never a success. */
void test_assert_lost_output_fails(const char *name,
                                   const char *const args[]);

#endif
