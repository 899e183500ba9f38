/*
 * call.c: the README's headline call against the OpenCL it replaces.
 *
 *     clkernel_call(vadd, CLARG_IN(a, n), CLARG_IN(b, n), CLARG_OUT(c, n),
 *                   CLARG(n));
 *
 * is timed, as a user writes it (three host arrays and a scalar), against
 * hand-written OpenCL on the same cl_kernel, queue and device, which sets
 * the four arguments and enqueues two writes, the kernel and a read:
 *   - "kept": its three buffers made once and kept;
 *   - "per call": its buffers made and released on every call.
 * Blocking (the hand-written read blocks; clframe's call returns with c
 * filled), and as a loop of clkernel_enqueue (nothing blocks; one wait at
 * the end, inside the timed part). Then clfunction_call of a small device
 * function against the shim kernel a user would write for it, one
 * work-item in a group of one, its result kept in one buffer and read
 * back blocking. Every side's results are
 * checked before it is timed.
 *
 * Sides alternate in ABBA order (bench.h); each reports the median of its
 * runs in us per call, the ratio of the medians and the median of the
 * per-run ratios. The goals: clframe within 1.10x of "kept" and below
 * "per call". The pool's counters (clctx_get_stats) close the report.
 *
 * usage: bench-call [calls] [runs] [n ...]   (default 2000 7, and n of
 * 16 1000 100000 1000000 floats; sizes past 50000 floats run fewer calls:
 * calls * 50000 / n, at least 10)
 *        bench-call --profile calls    (the headline call at n = 16, then
 * clfunction_call, `calls` times each after a warm-up, in
 * profile_kernel_calls and profile_function_calls, for a profiler:
 *   valgrind --tool=callgrind --toggle-collect=profile_kernel_calls \
 *            bin/bench-call --profile 300)
 * CLFRAME_DEVICE=cpu or gpu chooses the device, as for every program.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L     /* localtime_r */
#endif
#include "bench.h"
#include "clframe.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern const clframe_source bench_kernel_sources[];

static const double GOAL_RATIO = 1.10;
enum { MAX_RUNS = 1024, MAX_SIZES = 16 };
static const int DEFAULT_SIZES[] = {16, 1000, 100000, 1000000};

typedef struct state {
    clkernel *vadd;
    cl_kernel kernel;           /* clkernel_raw(vadd): the very same object */
    cl_context context;
    cl_command_queue queue;
    float *a, *b, *c;
    cl_int n;
    int sizes[MAX_SIZES], nsizes;   /* the n of each row */
    cl_mem kept[3];             /* the hand-written side's kept buffers */
    clfunction *lerp;
    cl_kernel shim;             /* lerp_shim, by hand */
    cl_mem ret_mem;
    float ret, x, y, t;
} state;

/* ---- the headline call -------------------------------------------------- */

static int clframe_call(void *p, long calls)
{
    state *s = p;
    for (long i = 0; i < calls; i++) {
        int rc = clkernel_call(s->vadd, CLARG_IN(s->a, s->n),
                               CLARG_IN(s->b, s->n), CLARG_OUT(s->c, s->n),
                               CLARG(s->n));
        if (rc)
            return rc;
    }
    return 0;
}

static int clframe_enqueue(void *p, long calls)
{
    state *s = p;
    for (long i = 0; i < calls; i++) {
        int rc = clkernel_enqueue(s->vadd, CLARG_IN(s->a, s->n),
                                  CLARG_IN(s->b, s->n), CLARG_OUT(s->c, s->n),
                                  CLARG(s->n));
        if (rc)
            return rc;
    }
    return clctx_finish(NULL);
}

/* Hand-written: set the arguments, write a and b, run, read c. */
static cl_int by_hand(state *s, const cl_mem *m, cl_bool blocking)
{
    size_t bytes = (size_t)s->n * sizeof(float), global = (size_t)s->n;
    cl_int err = clSetKernelArg(s->kernel, 0, sizeof m[0], &m[0]);
    err |= clSetKernelArg(s->kernel, 1, sizeof m[1], &m[1]);
    err |= clSetKernelArg(s->kernel, 2, sizeof m[2], &m[2]);
    err |= clSetKernelArg(s->kernel, 3, sizeof s->n, &s->n);
    if (err == CL_SUCCESS)
        err = clEnqueueWriteBuffer(s->queue, m[0], CL_FALSE, 0, bytes, s->a,
                                   0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueWriteBuffer(s->queue, m[1], CL_FALSE, 0, bytes, s->b,
                                   0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueNDRangeKernel(s->queue, s->kernel, 1, NULL, &global,
                                     NULL, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(s->queue, m[2], blocking, 0, bytes, s->c, 0,
                                  NULL, NULL);
    return err;
}

static cl_int make_buffers(state *s, cl_mem *m)
{
    size_t bytes = (size_t)s->n * sizeof(float);
    cl_int err = CL_SUCCESS;
    for (int i = 0; i < 3; i++) {
        m[i] = NULL;
        if (err == CL_SUCCESS)
            m[i] = clCreateBuffer(s->context, CL_MEM_READ_WRITE, bytes, NULL,
                                  &err);
    }
    return err;
}

static void release_buffers(cl_mem *m)
{
    for (int i = 0; i < 3; i++)
        if (m[i])
            clReleaseMemObject(m[i]);
}

static cl_int by_hand_per_call(state *s, cl_bool blocking)
{
    cl_mem m[3];
    cl_int err = make_buffers(s, m);
    if (err == CL_SUCCESS)
        err = by_hand(s, m, blocking);
    release_buffers(m);
    return err;
}

static int hand_kept(void *p, long calls)
{
    state *s = p;
    for (long i = 0; i < calls; i++) {
        cl_int err = by_hand(s, s->kept, CL_TRUE);
        if (err)
            return err;
    }
    return 0;
}

static int hand_per_call(void *p, long calls)
{
    state *s = p;
    for (long i = 0; i < calls; i++) {
        cl_int err = by_hand_per_call(s, CL_TRUE);
        if (err)
            return err;
    }
    return 0;
}

static int hand_kept_async(void *p, long calls)
{
    state *s = p;
    for (long i = 0; i < calls; i++) {
        cl_int err = by_hand(s, s->kept, CL_FALSE);
        if (err)
            return err;
    }
    return clFinish(s->queue);
}

static int hand_per_call_async(void *p, long calls)
{
    state *s = p;
    for (long i = 0; i < calls; i++) {
        cl_int err = by_hand_per_call(s, CL_FALSE);
        if (err)
            return err;
    }
    return clFinish(s->queue);
}

/* ---- clfunction_call ---------------------------------------------------- */

static int clframe_function(void *p, long calls)
{
    state *s = p;
    for (long i = 0; i < calls; i++) {
        int rc = clfunction_call(s->lerp, &s->ret, CLARG(s->x), CLARG(s->y),
                                 CLARG(s->t));
        if (rc)
            return rc;
    }
    return 0;
}

static int hand_shim(void *p, long calls)
{
    state *s = p;
    static const size_t one = 1;
    for (long i = 0; i < calls; i++) {
        cl_int err = clSetKernelArg(s->shim, 0, sizeof s->ret_mem, &s->ret_mem);
        err |= clSetKernelArg(s->shim, 1, sizeof s->x, &s->x);
        err |= clSetKernelArg(s->shim, 2, sizeof s->y, &s->y);
        err |= clSetKernelArg(s->shim, 3, sizeof s->t, &s->t);
        if (err == CL_SUCCESS)
            err = clEnqueueNDRangeKernel(s->queue, s->shim, 1, NULL, &one,
                                         &one, 0, NULL, NULL);
        if (err == CL_SUCCESS)
            err = clEnqueueReadBuffer(s->queue, s->ret_mem, CL_TRUE, 0,
                                      sizeof s->ret, &s->ret, 0, NULL, NULL);
        if (err)
            return err;
    }
    return 0;
}

/* ---- checking ----------------------------------------------------------- */

static int fail(const char *what, int rc)
{
    fprintf(stderr, "bench-call: %s failed (%d %s): %s\n", what, rc,
            clframe_error_name(rc), clframe_last_error());
    return rc ? rc : 1;
}

/* One call of loop must leave c = a + b (it starts as NaN). */
static int check_vadd(state *s, abba_loop loop, const char *name)
{
    for (int i = 0; i < s->n; i++)
        s->c[i] = NAN;
    int rc = loop(s, 1);
    if (rc == 0)
        rc = clctx_finish(NULL);
    if (rc)
        return fail(name, rc);
    for (int i = 0; i < s->n; i++)
        if (s->c[i] != s->a[i] + s->b[i]) {
            fprintf(stderr, "bench-call: %s: c[%d] = %g, not %g + %g\n", name,
                    i, s->c[i], s->a[i], s->b[i]);
            return 1;
        }
    return 0;
}

static int check_mix(state *s, abba_loop loop, const char *name)
{
    s->ret = NAN;
    int rc = loop(s, 1);
    if (rc)
        return fail(name, rc);
    float want = s->x + (s->y - s->x) * s->t;
    if (fabsf(s->ret - want) > 1e-6f * fabsf(want)) {
        fprintf(stderr, "bench-call: %s returned %g, not %g\n", name, s->ret,
                want);
        return 1;
    }
    return 0;
}

/* ---- report ------------------------------------------------------------- */

/* The median over runs of side s's time over side 0's, run by run. */
static double paired_ratio(const double *ns, int runs, int s)
{
    double r[MAX_RUNS];
    for (int i = 0; i < runs; i++)
        r[i] = ns[s * runs + i] / ns[i];
    return median_of(r, runs);
}

/* Times the sides (side 0 clframe's) and prints one row and its RESULT. */
static int compare(state *s, const char *key, const abba_loop *loops,
                   int sides, long calls, int runs)
{
    double ns[3 * MAX_RUNS];
    int rc = abba_time(s, loops, sides, calls, runs, ns);
    if (rc)
        return fail(key, rc);
    abba_summary m[3];
    for (int i = 0; i < sides; i++)
        m[i] = abba_summarize(ns + i * runs, runs);
    double kept = m[0].median / m[1].median;
    printf("  %8d %6ld %10.1f %10.1f", (int)s->n, calls, m[0].median / 1e3,
           m[1].median / 1e3);
    if (sides == 3)
        printf(" %10.1f", m[2].median / 1e3);
    else
        printf(" %10s", "");
    printf(" %7.2f", kept);
    if (sides == 3)
        printf(" %9.2f", m[0].median / m[2].median);
    printf("\n");
    int met = kept <= GOAL_RATIO && (sides < 3 || m[0].median < m[2].median);
    printf("RESULT %s device=%s n=%d calls=%ld runs=%d clframe_us=%.2f "
           "hand_us=%.2f", key, bench_device_word(), (int)s->n, calls, runs,
           m[0].median / 1e3, m[1].median / 1e3);
    if (sides == 3)
        printf(" per_call_us=%.2f ratio_per_call=%.3f", m[2].median / 1e3,
               m[0].median / m[2].median);
    printf(" ratio=%.3f paired_ratio=%.3f min_us=%.2f/%.2f max_us=%.2f/%.2f "
           "goal=%s\n", kept, 1 / paired_ratio(ns, runs, 1), m[0].min / 1e3,
           m[1].min / 1e3, m[0].max / 1e3, m[1].max / 1e3,
           met ? "met" : "not_met");
    return 0;
}

static void print_header(int argc, char **argv)
{
    bench_print_header(NULL, argc, argv);
    if (clctx_debug(NULL) || getenv("CLFRAME_PROFILE"))
        printf("note: CL_DEBUG or CLFRAME_PROFILE is set: clframe waits or "
               "keeps events on every call, so its times include that\n");
}

static void print_columns(const char *title, const char *second,
                          const char *third)
{
    printf("\n%s\n", title);
    printf("  %8s %6s %10s %10s %10s %7s %9s\n", "n", "calls", "clframe",
           second, third, third[0] ? "/kept" : "/hand",
           third[0] ? "/per call" : "");
}

/* ---- setup -------------------------------------------------------------- */

static int open_state(state *s)
{
    if (clframe_add_sources(bench_kernel_sources))
        return fail("adding the benchmark's sources", CLFRAME_ERR_USAGE);
    const char *path = "bench/kernels/call.cl";
    s->vadd = clkernel_file(NULL, path, "vadd", NULL);
    s->lerp = clfunction_file(NULL, path, "lerp", NULL);
    if (!s->vadd || !s->lerp)
        return fail("building bench/kernels/call.cl", CLFRAME_ERR_BUILD);
    s->kernel = clkernel_raw(s->vadd);
    s->context = clctx_context(NULL);
    s->queue = clctx_queue(NULL);
    cl_program program;
    cl_int err = clGetKernelInfo(s->kernel, CL_KERNEL_PROGRAM, sizeof program,
                                 &program, NULL);
    if (err == CL_SUCCESS)
        s->shim = clCreateKernel(program, "lerp_shim", &err);
    if (err == CL_SUCCESS)
        s->ret_mem = clCreateBuffer(s->context, CL_MEM_READ_WRITE,
                                    sizeof(float), NULL, &err);
    int most = 1;
    for (int i = 0; i < s->nsizes; i++)
        most = s->sizes[i] > most ? s->sizes[i] : most;
    s->a = malloc((size_t)most * sizeof(float));
    s->b = malloc((size_t)most * sizeof(float));
    s->c = malloc((size_t)most * sizeof(float));
    if (err != CL_SUCCESS || !s->a || !s->b || !s->c)
        return fail("preparing the hand-written side", CLFRAME_ERR_NO_MEMORY);
    for (int i = 0; i < most; i++) {
        s->a[i] = (float)(i % 1000) * 0.5f;
        s->b[i] = (float)(i % 7) - 3.0f;
    }
    s->x = 1.5f;
    s->y = 4.0f;
    s->t = 0.25f;
    return 0;
}

static void close_state(state *s)
{
    release_buffers(s->kept);
    if (s->ret_mem)
        clReleaseMemObject(s->ret_mem);
    if (s->shim)
        clReleaseKernel(s->shim);
    clfunction_free(s->lerp);
    clkernel_free(s->vadd);
    free(s->a);
    free(s->b);
    free(s->c);
}

/* One table: the three sides of a mode at every size. */
static int run_mode(state *s, const char *key, const char *title,
                    const abba_loop *loops, long calls, int runs)
{
    static const char *const names[3] = {"clframe", "by hand, kept",
                                         "by hand, per call"};
    print_columns(title, "kept", "per call");
    int rc = 0;
    for (int i = 0; rc == 0 && i < s->nsizes; i++) {
        int n = s->sizes[i];
        s->n = n;
        if ((rc = clkernel_global(s->vadd, (size_t)n)))
            return fail("clkernel_global", rc);
        release_buffers(s->kept);
        if ((rc = make_buffers(s, s->kept)))
            return fail("clCreateBuffer", rc);
        for (int j = 0; j < 3; j++)
            if (check_vadd(s, loops[j], names[j]))
                return 1;
        long scaled = n > 50000 ? calls * 50000 / n : calls;
        rc = compare(s, key, loops, 3, scaled < 10 ? 10 : scaled, runs);
    }
    return rc;
}

static void print_pool(void)
{
    clctx_stats st = clctx_get_stats(NULL);
    printf("\nthe pool: %llu hits, %llu misses, %zu bytes held; kernels run "
           "%llu\n", (unsigned long long)st.pool_hits,
           (unsigned long long)st.pool_misses, st.pool_bytes,
           (unsigned long long)st.kernel_runs);
    printf("RESULT call_pool device=%s hits=%llu misses=%llu bytes=%zu\n",
           bench_device_word(), (unsigned long long)st.pool_hits,
           (unsigned long long)st.pool_misses, st.pool_bytes);
}

/* The calls a profiler looks at, nothing else (noinline: a profiler
 * finds them by name). */
__attribute__((noinline)) static int profile_kernel_calls(state *s,
                                                          long calls)
{
    return clframe_call(s, calls);
}

__attribute__((noinline)) static int profile_function_calls(state *s,
                                                            long calls)
{
    return clframe_function(s, calls);
}

static int profile(long calls)
{
    state s = {.sizes = {16}, .nsizes = 1};
    int rc = open_state(&s);
    s.n = 16;
    if (rc == 0)
        rc = clkernel_global(s.vadd, (size_t)s.n);
    if (rc == 0)                                /* first launches: outside */
        rc = clframe_call(&s, 1);
    if (rc == 0)
        rc = clframe_function(&s, 1);
    if (rc == 0)
        rc = profile_kernel_calls(&s, calls);
    if (rc == 0)
        rc = profile_function_calls(&s, calls);
    if (rc)
        fail("profiling", rc);
    close_state(&s);
    return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--profile") == 0) {
        long calls = bench_count_arg(argc, argv, 2, 300, 100000000);
        if (calls < 1) {
            fprintf(stderr, "usage: %s --profile calls\n", argv[0]);
            return 2;
        }
        return profile(calls);
    }
    long calls = bench_count_arg(argc, argv, 1, 2000, 100000000);
    long runs = bench_count_arg(argc, argv, 2, 7, MAX_RUNS);
    state s = {.nsizes = argc > 3 ? argc - 3 : 4};
    for (int i = 0; i < s.nsizes && i < MAX_SIZES; i++)
        s.sizes[i] = argc > 3 ? (int)bench_count_arg(argc, argv, 3 + i, 0, 1 << 28)
                              : DEFAULT_SIZES[i];
    int sized = s.nsizes <= MAX_SIZES;
    for (int i = 0; sized && i < s.nsizes; i++)
        sized = s.sizes[i] > 0;
    if (calls < 1 || runs < 1 || !sized) {
        fprintf(stderr, "usage: %s [calls >= 1] [runs 1 to %d] [n ...] "
                "(up to %d sizes, default 16 1000 100000 1000000)\n", argv[0],
                MAX_RUNS, MAX_SIZES);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);   /* in order with clframe's stderr */
    if (!clctx_default())
        return fail("opening the device", CLFRAME_ERR_NO_DEVICE);
    print_header(argc, argv);
    int rc = open_state(&s);
    static const abba_loop blocking[3] = {clframe_call, hand_kept,
                                          hand_per_call};
    static const abba_loop queued[3] = {clframe_enqueue, hand_kept_async,
                                        hand_per_call_async};
    if (rc == 0)
        rc = run_mode(&s, "call_blocking", "blocking: clkernel_call against "
                      "the same by hand, us per call", blocking, calls,
                      (int)runs);
    if (rc == 0)
        rc = run_mode(&s, "call_enqueue", "a loop of clkernel_enqueue, one "
                      "wait at the end, us per call", queued, calls,
                      (int)runs);
    if (rc == 0 && !(rc = check_mix(&s, clframe_function, "clfunction_call")) &&
        !(rc = check_mix(&s, hand_shim, "the hand-written shim"))) {
        static const abba_loop sides[2] = {clframe_function, hand_shim};
        print_columns("clfunction_call(lerp, &ret, x, y, t) against its shim "
                      "by hand, us per call", "by hand", "");
        s.n = 1;
        rc = compare(&s, "call_function", sides, 2, calls, (int)runs);
    }
    if (rc == 0)
        print_pool();
    close_state(&s);
    return rc ? 1 : 0;
}
