/*
 * support.h: what every Check suite shares, the library's and the apps':
 * the runner, assertions that print clframe's own error message when a call
 * fails (so a red test says why), temporary files, programs, sweeps.
 */
#ifndef CLFRAME_TEST_SUPPORT_H
#define CLFRAME_TEST_SUPPORT_H

#include "clframe.h"

#include <check.h>
#include <stddef.h>
#include <stdint.h>

/* Runs the suites that the NULL-ended list makes, in one runner (so a
 * binary ends with one summary line), in a temporary folder removed at the
 * end; the exit status for main: EXIT_SUCCESS if every test passed.
 * CLFRAME_TEST_PART=K/N runs every Nth suite from the Kth alone, so that a
 * slow run (valgrind) can be spread over N processes. */
int test_main(Suite *(*const suites[])(void));

/* Asserts a clframe call returned 0, showing clframe_last_error() if not. */
#define ck_assert_cl(call)                                                 \
    do {                                                                   \
        int rc_ = (call);                                                  \
        ck_assert_msg(rc_ == 0, "%s returned %d (%s): %s", #call, rc_,     \
                      clframe_error_name(rc_), clframe_last_error());      \
    } while (0)

/* ck_assert_msg for big loops: Check records every passing assertion (a
 * write to a file; under valgrind the MWC64X suite's millions of them were
 * most of its time), so this calls into Check only to fail. */
#define ck_assert_quietly(cond, ...)                                       \
    do {                                                                   \
        if (!(cond))                                                       \
            ck_abort_msg(__VA_ARGS__);                                     \
    } while (0)

/* Asserts a pointer-returning clframe call succeeded. */
#define ck_assert_made(p)                                                  \
    ck_assert_msg((p) != NULL, "%s is NULL: %s", #p, clframe_last_error())

/* Asserts a call failed with code and a message containing text. */
#define ck_assert_fails(call, code, text)                                  \
    do {                                                                   \
        int rc_ = (call);                                                  \
        ck_assert_msg(rc_ == (code), "%s returned %d (%s), expected %s; "  \
                      "message: %s", #call, rc_, clframe_error_name(rc_),  \
                      #code, clframe_last_error());                        \
        ck_assert_msg(strstr(clframe_last_error(), (text)) != NULL,        \
                      "message of %s lacks \"%s\": %s", #call, (text),     \
                      clframe_last_error());                               \
    } while (0)

/* Asserts clframe_last_error() contains text. */
#define ck_assert_error_has(text)                                          \
    ck_assert_msg(strstr(clframe_last_error(), (text)) != NULL,            \
                  "the message lacks \"%s\": %s", (text),                 \
                  clframe_last_error())

/* A kernel from a source string, built on the default context. */
clkernel *test_kernel(const char *source, const char *name);

/* Sends stderr to a temporary file until capture_stderr_end, which returns
 * what was written (caller frees). */
void capture_stderr_begin(void);
char *capture_stderr_end(void);

/* A temporary folder for test files, and a file written in it (the path is
 * returned in a static buffer). */
const char *test_tmpdir(void);
const char *test_write_file(const char *name, const char *text);

/* ---- sizes per run ----------------------------------------------------
 * Every run of a suite makes the same assertions. Only its sizes (lengths,
 * counts, steps, lists of shapes) may differ between a full run and a
 * checked one: valgrind and Oclgrind check memory, not arithmetic, and run
 * many times slower. A suite declares its sizes in one table at its
 * top, one column per kind of run, and reads this run's with RUN_SIZE:
 *
 *     static const struct { int agents, days; } run_sizes[] = {
 *         [TEST_FULL]    = {.agents = 500, .days = 4},
 *         [TEST_CHECKED] = {.agents = 8,   .days = 2},
 *     };
 *     ... RUN_SIZE(agents) ...
 */
typedef enum { TEST_FULL, TEST_CHECKED } test_size_column;

/* This run's column: TEST_CHECKED under valgrind (RUNNING_ON_VALGRIND) or
 * Oclgrind (its runtime, liboclgrind-rt.so, is loaded), else TEST_FULL.
 * CLFRAME_TEST_SIZES=checked or =full picks the column instead: the
 * native pass before each valgrind run takes the checked sizes, so that
 * it compiles the kernels valgrind's pass then finds in PoCL's cache. */
test_size_column test_sizes(void);

#define RUN_SIZE(field) (run_sizes[test_sizes()].field)

/* What lengths a sweep tests: every one from 1 to max, or the edges, those
 * at and around powers of two and a few odd ones. */
typedef enum { TEST_EVERY_LENGTH, TEST_EDGE_LENGTHS } test_sweep;

/* The lengths of a sweep up to max, into out (room for max); how many. */
int test_sweep_lengths(test_sweep sweep, int max, int *out);

/* The path of program `name` built beside this test runner (bin/ or the
 * sanitized tree's bin/), so tests run the build they belong to. The
 * path is in one of four static buffers, used in turn. */
const char *test_program(const char *name);

/* For a test that needs a process which has opened no device yet (OpenCL
 * does not survive fork). When the tests share one process (CK_FORK=no, as
 * in `make test`), runs case `tcase` of suite `suite` in a new process of
 * this program, a fork per test, fails unless it passes, and returns 1: the
 * test then returns. Returns 0 in a process of its own: go on. */
int test_run_apart(const char *suite, const char *tcase);

/* The next number (24 bits) of a small deterministic generator: the same
 * sequence for a seed on every machine, so a failure can be replayed. */
uint32_t test_random(uint32_t *state);

/* The context a test should run a kernel workload on: NULL (clframe's
 * default), except under Oclgrind a new one, which the caller frees with
 * clctx_free (a no-op on NULL). Oclgrind's uninitialized-value tracking
 * goes wrong when a buffer is allocated where one of the same context was
 * freed: a double-buffered run then reads, as "never written", cells its
 * first launch wrote (the results are right; with a fresh context, or with
 * the old address still taken, the report goes away). Any earlier test's
 * buffers on the default context can cause it, so every run starts clean. */
clctx *test_run_context(void);

/* Runs a shell command line made from a format: its exit status, or -1 if
 * it did not exit (a signal). */
int test_run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "TMPDIR/PREFIX-NAME" in test_tmpdir(): suites share the folder, so each
 * names its files with its own prefix. One of eight static buffers, used
 * in turn. */
const char *test_tmp_path(const char *prefix, const char *name);

/* The whole of a file (caller frees; a '\0' follows the data). */
char *test_read_file(const char *path, size_t *size);

/* Asserts that the file at path holds exactly text. */
void test_assert_file_holds(const char *path, const char *text);

/* Asserts that dir holds no hidden file (a writer's temporary left). */
void test_assert_no_hidden_file(const char *dir);

/* A test case with a timeout long enough for first builds on PoCL. */
TCase *test_case(const char *name);

#endif
