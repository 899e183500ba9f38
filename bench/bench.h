/*
 * bench.h: what the library's benchmarks (bench/) share. Timing several
 * ways of doing the same work against each other: each side is a loop of
 * `calls` repetitions; after one warm-up run of each, every run times each
 * side once, in turn, the order reversed on every other run (ABBA), so
 * that drift in the clock, the driver or other load falls on all sides
 * alike. And the clock, the median, the report's first line and
 * command-line counts. Header-only; nothing here comes from the apps.
 */
#ifndef CLFRAME_BENCH_H
#define CLFRAME_BENCH_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L     /* clock_gettime, localtime_r */
#endif
#include "clframe.h"
#include "median.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One side: `calls` repetitions on state; 0 or an OpenCL / clframe code. */
typedef int (*abba_loop)(void *state, long calls);

typedef struct abba_summary {
    double median, min, max;    /* ns per call over the runs */
} abba_summary;

/* The monotonic clock every benchmark here reads (wall time, unaffected
 * by changes to the date), in seconds and in milliseconds. */
static inline double bench_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline double bench_ms(void)
{
    return bench_seconds() * 1e3;
}

/* ns per call of one run; the default context's queues drain after the
 * clock stops (a loop that must count its device work finishes itself). */
static inline int abba_run(void *state, abba_loop loop, long calls, double *ns)
{
    double t0 = bench_seconds();
    int rc = loop(state, calls);
    double t1 = bench_seconds();
    int done = clctx_finish(NULL);
    *ns = (t1 - t0) * 1e9 / (double)calls;
    return rc ? rc : done;
}

/* ns[s * runs + r]: side s's time in run r, ns per call. */
static inline int abba_time(void *state, const abba_loop *loops, int sides,
                            long calls, int runs, double *ns)
{
    double warm;
    int rc = 0;
    for (int s = 0; s < sides && rc == 0; s++)
        rc = abba_run(state, loops[s], calls, &warm);
    for (int r = 0; r < runs && rc == 0; r++)
        for (int i = 0; i < sides && rc == 0; i++) {
            int s = r % 2 ? sides - 1 - i : i;
            rc = abba_run(state, loops[s], calls, &ns[s * runs + r]);
        }
    return rc;
}

/* Median, min and max of x[0..n), n <= 1024, x left as it was. */
static inline abba_summary abba_summarize(const double *x, int n)
{
    double sorted[1024];
    n = n < 1024 ? n : 1024;
    memcpy(sorted, x, (size_t)n * sizeof *x);
    abba_summary s;
    s.median = median_of(sorted, n);
    s.min = sorted[0];
    s.max = sorted[n - 1];
    return s;
}

/* "device: <how ctx's device was chosen> | <date> | command: <argv>". */
static inline void bench_print_header(clctx *ctx, int argc, char **argv)
{
    char date[64];
    time_t now = time(NULL);
    struct tm tm;
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z",
             localtime_r(&now, &tm));
    printf("device: %s | %s | command:", clctx_describe(ctx), date);
    for (int i = 0; i < argc; i++)
        printf(" %s", argv[i]);
    printf("\n");
}

/* "gpu", "cpu" or "other": the default device, for RESULT lines. */
static inline const char *bench_device_word(void)
{
    cl_device_type t = clctx_device_type(NULL);
    return t & CL_DEVICE_TYPE_GPU ? "gpu" : t & CL_DEVICE_TYPE_CPU ? "cpu"
                                                                   : "other";
}

/* text as a count from 1 to max, a whole word of decimal digits (no sign,
 * no space, nothing after it); -1 when it is not such a number. */
static inline long bench_count(const char *text, long max)
{
    if (text[0] < '0' || text[0] > '9')
        return -1;      /* strtol would take a sign or leading spaces */
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    return *end || errno || v < 1 || v > max ? -1 : v;
}

/* A count from argv[i], 1 to max, or def when there is no argv[i]; -1
 * when it is not such a number. */
static inline long bench_count_arg(int argc, char **argv, int i, long def,
                                   long max)
{
    return i < argc ? bench_count(argv[i], max) : def;
}

#endif
