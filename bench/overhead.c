/*
 * overhead.c: the host time clframe adds to each kernel launch.
 *
 * clframe promises that calling a kernel like a C function costs next to
 * nothing over the OpenCL it replaces. This measures what it adds: the same
 * almost empty kernel (bench/kernels/empty.cl), on the same cl_kernel object,
 * buffer and queue, launched
 *
 *   - by clkernel_enqueue(k, a, CLARG(n)) with a persistent, no-copy buffer,
 *     against clSetKernelArg x2 + clEnqueueNDRangeKernel (global 64, no
 *     event): the loop of kernels on device-resident data;
 *   - by clkernel_call, against the same raw calls + clFinish: the blocking
 *     form most users write (calls/10 of them, each waits for the device).
 *
 * Only the host loop is timed (CLOCK_MONOTONIC); the queue drains afterwards,
 * outside the timed part. Raw and clframe runs alternate, in ABBA order, so
 * drift (clock, driver queues, other load) falls on both sides, after one
 * warm-up run of each. Each side reports the median of its runs in ns per
 * call, with min and max; the difference of the medians is clframe's added
 * time, whose goal is at most 1000 ns per call. The median of the per-pair
 * differences is printed beside it: on a busy or noisy host it is the
 * steadier of the two.
 *
 * If the device runs the empty kernels slower than the host enqueues them,
 * the queue fills and enqueues wait for the device, on both sides alike,
 * hiding the overhead: a raw time per call far above that of a shorter run
 * (bench-overhead 1000 101) says so.
 *
 * usage: bench-overhead [calls] [runs]   (default 20000 15)
 * CLFRAME_DEVICE=cpu or gpu chooses the device, as for every clframe program.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L     /* clock_gettime, localtime_r */
#endif
#include "bench.h"
#include "clframe.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* bench/kernels, compiled in (scripts/embed-sources). */
extern const clframe_source bench_kernel_sources[];

enum { GLOBAL_SIZE = 64, BUFFER_FLOATS = 1024 };
static const double GOAL_NS = 1000.0;

typedef struct bench {
    clkernel *k;
    clarg buf;                  /* persistent, CLARG_NO_COPY */
    cl_kernel kernel;           /* clkernel_raw(k): the very same object */
    cl_mem mem;                 /* clarg_mem(&buf) */
    cl_command_queue queue;     /* clctx_queue(NULL) */
    cl_int n;                   /* outside the global range: never writes */
} bench;

/* One comparison: side[0] raw, side[1] clframe, and the median of the
 * differences within each ABBA pair of runs, which drift between pairs
 * does not reach (a cross-check of median clframe - median raw). */
typedef struct result {
    abba_summary side[2];
    double paired;
} result;

/* ---- the four loops ------------------------------------------------------ */

static int raw_launch(const bench *b)
{
    static const size_t global = GLOBAL_SIZE;
    cl_int err = clSetKernelArg(b->kernel, 0, sizeof b->mem, &b->mem);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(b->kernel, 1, sizeof b->n, &b->n);
    if (err == CL_SUCCESS)
        err = clEnqueueNDRangeKernel(b->queue, b->kernel, 1, NULL, &global,
                                     NULL, 0, NULL, NULL);
    return err;
}

static int raw_enqueue_loop(void *state, long calls)
{
    const bench *b = state;
    for (long i = 0; i < calls; i++) {
        int err = raw_launch(b);
        if (err)
            return err;
    }
    return 0;
}

static int raw_call_loop(void *state, long calls)
{
    const bench *b = state;
    for (long i = 0; i < calls; i++) {
        int err = raw_launch(b);
        if (err == CL_SUCCESS)
            err = clFinish(b->queue);
        if (err)
            return err;
    }
    return 0;
}

/* The blocking loop again, asking for the kernel's profiling event (and, in
 * the second form, reading its times, as clkernel_last_ms needs): what the
 * driver itself charges for timing a call, for comparison with raw_call_loop. */
static int raw_event_loop(const bench *b, long calls, int query)
{
    static const size_t global = GLOBAL_SIZE;
    for (long i = 0; i < calls; i++) {
        cl_event ev = NULL;
        cl_int err = clSetKernelArg(b->kernel, 0, sizeof b->mem, &b->mem);
        if (err == CL_SUCCESS)
            err = clSetKernelArg(b->kernel, 1, sizeof b->n, &b->n);
        if (err == CL_SUCCESS)
            err = clEnqueueNDRangeKernel(b->queue, b->kernel, 1, NULL, &global,
                                         NULL, 0, NULL, &ev);
        if (err == CL_SUCCESS)
            err = clFinish(b->queue);
        if (err == CL_SUCCESS && query) {
            cl_ulong t0, t1;
            err = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START,
                                          sizeof t0, &t0, NULL);
            if (err == CL_SUCCESS)
                err = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END,
                                              sizeof t1, &t1, NULL);
        }
        if (ev)
            clReleaseEvent(ev);
        if (err)
            return err;
    }
    return 0;
}

static int raw_event_only_loop(void *state, long calls)
{
    const bench *b = state;
    return raw_event_loop(b, calls, 0);
}

static int raw_event_query_loop(void *state, long calls)
{
    const bench *b = state;
    return raw_event_loop(b, calls, 1);
}

static int clframe_enqueue_loop(void *state, long calls)
{
    const bench *b = state;
    for (long i = 0; i < calls; i++) {
        int rc = clkernel_enqueue(b->k, b->buf, CLARG(b->n));
        if (rc)
            return rc;
    }
    return 0;
}

static int clframe_call_loop(void *state, long calls)
{
    const bench *b = state;
    for (long i = 0; i < calls; i++) {
        int rc = clkernel_call(b->k, b->buf, CLARG(b->n));
        if (rc)
            return rc;
    }
    return 0;
}

/* ---- timing -------------------------------------------------------------- */

/* One warm-up run of each side, then `runs` of each in ABBA order. */
static int compare(const bench *b, abba_loop raw, abba_loop cf, long calls,
                   int runs, result *out)
{
    double *ns = malloc(2 * (size_t)runs * sizeof *ns);
    if (!ns)
        return CLFRAME_ERR_NO_MEMORY;
    abba_loop sides[2] = {raw, cf};
    int rc = abba_time((void *)b, sides, 2, calls, runs, ns);
    if (rc == 0) {
        double diff[1024];
        for (int r = 0; r < runs; r++)
            diff[r] = ns[runs + r] - ns[r];
        out->paired = median_of(diff, runs);
        for (int s = 0; s < 2; s++)
            out->side[s] = abba_summarize(ns + s * runs, runs);
    }
    free(ns);
    return rc;
}

/* ---- report -------------------------------------------------------------- */

/* One comparison's table and RESULT line. names label the two sides; the
 * 1 us goal applies only to clframe against raw OpenCL (with_goal). */
static void print_table(const char *title, const char *key,
                        const char *const names[2], long calls, int runs,
                        const result *res, int with_goal)
{
    const abba_summary *s = res->side;
    double added = s[1].median - s[0].median;
    double ratio = s[0].median > 0 ? s[1].median / s[0].median : 0;
    printf("\n%s\n", title);
    char label[64];
    snprintf(label, sizeof label, "%d runs of %ld calls, ns/call", runs, calls);
    printf("  %-32s %10s %10s %10s\n", label, "median", "min", "max");
    for (int i = 0; i < 2; i++)
        printf("  %-32s %10.1f %10.1f %10.1f\n", names[i], s[i].median,
               s[i].min, s[i].max);
    printf("  added by %s: %.1f ns per call, ratio %.2f (median of the "
           "paired differences: %.1f ns)\n", names[1], added, ratio,
           res->paired);
    const char *goal = !with_goal ? "none" : added <= GOAL_NS ? "met" : "not_met";
    if (with_goal)
        printf("  goal: <= %.0f ns added per call: %s\n", GOAL_NS,
               added <= GOAL_NS ? "met" : "NOT met");
    printf("RESULT %s device=%s calls=%ld runs=%d %s=%.1f %s=%.1f "
           "added=%.1f ratio=%.3f paired=%.1f min=%.1f/%.1f max=%.1f/%.1f "
           "goal=%s\n", key, bench_device_word(), calls, runs,
           with_goal ? "raw" : "without", s[0].median,
           with_goal ? "clframe" : "with", s[1].median, added, ratio,
           res->paired, s[0].min, s[1].min, s[0].max, s[1].max, goal);
}

static void print_header(const bench *b, int argc, char **argv)
{
    bench_print_header(NULL, argc, argv);
    printf("kernel: %s, global %d, persistent %d-float buffer, no copies\n",
           clkernel_signature(b->k), GLOBAL_SIZE, BUFFER_FLOATS);
    if (clctx_debug(NULL) || getenv("CLFRAME_PROFILE"))
        printf("note: CL_DEBUG or CLFRAME_PROFILE is set: clframe waits or "
               "keeps events on every call, so its times include that\n");
}

/* ---- setup --------------------------------------------------------------- */

static int bench_open(bench *b, float *host)
{
    b->k = clframe_add_sources(bench_kernel_sources) ? NULL
           : clkernel_file(NULL, "bench/kernels/empty.cl", "empty", NULL);
    if (!b->k)
        return CLFRAME_ERR_NOT_FOUND;
    int rc = clkernel_global(b->k, GLOBAL_SIZE);
    b->buf = CLARG_INOUT(host, BUFFER_FLOATS);
    if (rc == 0)
        rc = clarg_persist(&b->buf, NULL);
    if (rc == 0)
        rc = clarg_set_flags(&b->buf, CLARG_NO_COPY);
    b->kernel = clkernel_raw(b->k);
    b->mem = clarg_mem(&b->buf);
    b->queue = clctx_queue(NULL);
    b->n = BUFFER_FLOATS;
    return rc;
}

static void bench_close(bench *b)
{
    clarg_release(&b->buf);
    clkernel_free(b->k);
}

static int fail(const char *what, int rc)
{
    fprintf(stderr, "bench-overhead: %s failed (%s): %s\n", what,
            clframe_error_name(rc), clframe_last_error());
    return 1;
}

int main(int argc, char **argv)
{
    long calls = bench_count_arg(argc, argv, 1, 20000, 100000000);
    long runs = bench_count_arg(argc, argv, 2, 15, 1024);
    if (calls < 10 || runs < 1 || argc > 3) {
        fprintf(stderr, "usage: %s [calls >= 10] [runs >= 1]\n", argv[0]);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);   /* in order with clframe's stderr */
    if (!clctx_default())
        return fail("opening the device", CLFRAME_ERR_NO_DEVICE);
    static float host[BUFFER_FLOATS];
    bench b = {0};
    int rc = bench_open(&b, host);
    if (rc) {
        bench_close(&b);
        return fail("preparing the kernel and its buffer", rc);
    }
    print_header(&b, argc, argv);
    static const char *const sides[2] = {"raw OpenCL", "clframe"};
    static const char *const event_sides[2] = {"no event", "an event"};
    static const char *const query_sides[2] = {"no event", "an event, read"};
    result res;
    rc = compare(&b, raw_enqueue_loop, clframe_enqueue_loop, calls, (int)runs,
                 &res);
    if (rc == 0)
        print_table("enqueue, no wait: clkernel_enqueue vs clSetKernelArg x2 "
                    "+ clEnqueueNDRangeKernel", "overhead_enqueue_ns_median",
                    sides, calls, (int)runs, &res, 1);
    long blocking = calls / 10;
    if (rc == 0)
        rc = compare(&b, raw_call_loop, clframe_call_loop, blocking,
                     (int)runs, &res);
    if (rc == 0)
        print_table("blocking call: clkernel_call vs clSetKernelArg x2 + "
                    "clEnqueueNDRangeKernel + clFinish",
                    "overhead_call_ns_median", sides, blocking, (int)runs,
                    &res, 1);
    if (rc == 0)
        rc = compare(&b, raw_call_loop, raw_event_only_loop, blocking,
                     (int)runs, &res);
    if (rc == 0)
        print_table("the driver's price of timing a call: the raw blocking "
                    "loop without and with a profiling event (why clframe "
                    "times calls only when asked)", "driver_event_ns_median",
                    event_sides, blocking, (int)runs, &res, 0);
    if (rc == 0)
        rc = compare(&b, raw_call_loop, raw_event_query_loop, blocking,
                     (int)runs, &res);
    if (rc == 0)
        print_table("the same, also reading the event's start and end times",
                    "driver_event_query_ns_median", query_sides, blocking,
                    (int)runs, &res, 0);
    bench_close(&b);
    return rc ? fail("a timed run", rc) : 0;
}
