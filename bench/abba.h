/*
 * abba.h: timing several ways of doing the same work against each other,
 * for the benchmarks in bench/. Each side is a loop of `calls` repetitions;
 * after one warm-up run of each, every run times each side once, in turn,
 * the order reversed on every other run (ABBA), so that drift in the clock,
 * the driver or other load falls on all sides alike. Header-only.
 */
#ifndef CLFRAME_BENCH_ABBA_H
#define CLFRAME_BENCH_ABBA_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L     /* clock_gettime */
#endif
#include "clframe.h"
#include "common/median.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One side: `calls` repetitions on state; 0 or an OpenCL / clframe code. */
typedef int (*abba_loop)(void *state, long calls);

typedef struct abba_summary {
    double median, min, max;    /* ns per call over the runs */
} abba_summary;

static inline double abba_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ns per call of one run; the default context's queues drain after the
 * clock stops (a loop that must count its device work finishes itself). */
static inline int abba_run(void *state, abba_loop loop, long calls, double *ns)
{
    double t0 = abba_now_ns();
    int rc = loop(state, calls);
    double t1 = abba_now_ns();
    int done = clctx_finish(NULL);
    *ns = (t1 - t0) / (double)calls;
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

#endif
