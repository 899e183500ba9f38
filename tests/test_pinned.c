/*
 * test_pinned.c: pinned host memory (clframe_host_alloc): arrays in it give
 * the same results as pageable ones in every direction, whole or at an
 * offset, of any length; on a device that shares the host's memory (PoCL)
 * the ones used in place are copied zero bytes; persistent arguments keep
 * working, and double buffering over them with clarg_swap gives what it
 * gives over malloc'd arrays; freeing twice, a foreign pointer or with
 * work in flight.
 */
#include "support.h"
#include "internal.h"
#include "copy_kernels.h"

#include <stdlib.h>
#include <string.h>

/* The sizes per run (support.h). */
static const struct {
    test_sweep sweep;       /* the lengths of whole allocations ... */
    int length_step;        /* ... every how manyth of them */
    int in_flight_n;        /* the kernel still running at the free: */
    int in_flight_rounds;   /* its work-items, and each one's rounds */
} run_sizes[] = {
    [TEST_FULL]    = {TEST_EVERY_LENGTH, 37, 4096, 20000},
    [TEST_CHECKED] = {TEST_EDGE_LENGTHS, 5, 64, 10},
};

/* In place on PoCL; on Oclgrind, copied. */
static int shares_memory(clctx *ctx)
{
    cl_bool unified = CL_FALSE;
    clGetDeviceInfo(clctx_device(ctx), CL_DEVICE_HOST_UNIFIED_MEMORY,
                    sizeof unified, &unified, NULL);
    int expected = (clctx_device_type(ctx) & CL_DEVICE_TYPE_CPU) || unified;
    int oclgrind = strstr(clctx_describe(ctx), "Oclgrind") != NULL;
    ck_assert_int_eq(clctx_pinned_in_place(ctx), expected && !oclgrind);
    return clctx_pinned_in_place(ctx);
}

static size_t base_align(clctx *ctx)
{
    cl_uint bits = 0;
    clGetDeviceInfo(clctx_device(ctx), CL_DEVICE_MEM_BASE_ADDR_ALIGN,
                    sizeof bits, &bits, NULL);
    return bits / 8;
}

static void fill(float *p, int n, float base)
{
    for (int i = 0; i < n; i++)
        p[i] = base + (float)i;
}

/* Runs twice on n elements at in, out and io, and on pageable copies of
 * them, and asserts both give the same. Returns the bytes the pinned call
 * copied. */
static uint64_t call_against_pageable(clkernel *k, float *in, float *out,
                                      float *io, int n)
{
    size_t bytes = (size_t)n * sizeof(float) + 1;
    float *pin = malloc(bytes), *pout = malloc(bytes), *pio = malloc(bytes);
    ck_assert(pin && pout && pio);
    fill(in, n, 1);
    fill(io, n, 100);
    memcpy(pin, in, (size_t)n * sizeof *in);
    memcpy(pio, io, (size_t)n * sizeof *io);
    clctx *ctx = clkernel_ctx(k);
    ck_assert_cl(clkernel_global(k, n ? (size_t)n : 1));
    ck_assert_cl(clkernel_call(k, CLARG_IN(pin, n), CLARG_OUT(pout, n),
                               CLARG_INOUT(pio, n), CLARG(n)));
    clctx_stats before = clctx_get_stats(ctx);
    ck_assert_cl(clkernel_call(k, CLARG_IN(in, n), CLARG_OUT(out, n),
                               CLARG_INOUT(io, n), CLARG(n)));
    clctx_stats after = clctx_get_stats(ctx);
    ck_assert_msg(memcmp(out, pout, (size_t)n * sizeof *out) == 0 &&
                  memcmp(io, pio, (size_t)n * sizeof *io) == 0,
                  "pinned and pageable results differ at n = %d", n);
    free(pin);
    free(pout);
    free(pio);
    return (after.bytes_to_device - before.bytes_to_device) +
           (after.bytes_from_device - before.bytes_from_device);
}

START_TEST(whole_allocations_are_used_in_place)
{
    clctx *ctx = test_run_context();
    clkernel *k = clkernel_source(ctx, copy_kernels, "twice", NULL);
    ck_assert_made(k);
    long live = clctx_get_stats(ctx).live_objects;
    int lengths[1100];
    int count = test_sweep_lengths(RUN_SIZE(sweep), 1025, lengths);
    for (int t = 0; t < count; t += RUN_SIZE(length_step)) {
        int n = lengths[t];
        size_t bytes = (size_t)n * sizeof(float);
        float *in = clframe_host_alloc(ctx, bytes);
        float *out = clframe_host_alloc(ctx, bytes);
        float *io = clframe_host_alloc(ctx, bytes);
        ck_assert_made(in);
        ck_assert_made(out);
        ck_assert_made(io);
        uint64_t copied = call_against_pageable(k, in, out, io, n);
        if (shares_memory(ctx))
            ck_assert_msg(copied == 0, "n = %d: %llu bytes copied", n,
                          (unsigned long long)copied);
        else
            ck_assert_uint_eq(copied, 4 * bytes);       /* io both ways */
        ck_assert_cl(clframe_host_free(in));
        ck_assert_cl(clframe_host_free(out));
        ck_assert_cl(clframe_host_free(io));
    }
    ck_assert_int_eq(clctx_get_stats(ctx).live_objects, live);
    clkernel_free(k);
    clctx_free(ctx);
}
END_TEST

/* Three arrays in one allocation, at aligned offsets (in place on PoCL) or
 * not (copied), of lengths that are multiples of nothing. */
START_TEST(arrays_inside_an_allocation)
{
    clctx *ctx = test_run_context();
    clkernel *k = clkernel_source(ctx, copy_kernels, "twice", NULL);
    ck_assert_made(k);
    size_t align = base_align(ctx);
    ck_assert_uint_gt(align, 0);
    const int n = 333;
    size_t span = ((size_t)n * sizeof(float) / align + 2) * align;
    char *block = clframe_host_alloc(ctx, 3 * span + 64);
    ck_assert_made(block);
    for (size_t skew = 0; skew <= 4; skew += 4) {
        float *in = (float *)(block + skew), *out = (float *)(block + span),
              *io = (float *)(block + 2 * span + skew);
        uint64_t copied = call_against_pageable(k, in, out, io, n);
        size_t misplaced = skew ? 3 * n * sizeof(float) : 0; /* in, io twice */
        if (shares_memory(ctx))
            ck_assert_msg(copied == misplaced, "skew %zu: %llu bytes copied, "
                          "%zu expected", skew, (unsigned long long)copied,
                          misplaced);
    }
    ck_assert_cl(clframe_host_free(block));
    clkernel_free(k);
    clctx_free(ctx);
}
END_TEST

START_TEST(zero_length_arrays_in_pinned_memory)
{
    clctx *ctx = test_run_context();
    clkernel *k = clkernel_source(ctx, copy_kernels, "twice", NULL);
    ck_assert_made(k);
    float *p = clframe_host_alloc(ctx, 64);
    ck_assert_made(p);
    p[0] = 7;
    ck_assert_uint_eq(call_against_pageable(k, p, p + 1, p + 2, 0), 0);
    ck_assert(p[0] == 7);
    ck_assert_cl(clframe_host_free(p));
    ck_assert_ptr_null(clframe_host_alloc(ctx, 0));
    ck_assert_error_has("0 bytes");
    clkernel_free(k);
    clctx_free(ctx);
}
END_TEST

/* No valid array straddles an allocation's end, so the lookup itself is
 * asked: a range partly inside is pageable. */
START_TEST(an_array_partly_inside_is_pageable)
{
    clctx *ctx = test_run_context();
    clctx *real = ctx ? ctx : clctx_default();
    char *p = clframe_host_alloc(ctx, 4096);
    ck_assert_made(p);
    ck_assert_ptr_null(clf_host_in_place(real, p + 4096 - 8, 16));
    ck_assert_ptr_null(clf_host_in_place(real, p - 8, 16));
    ck_assert_ptr_null(clf_host_in_place(real, p, 4097));
    ck_assert_ptr_null(clf_host_in_place(real, p, 0));
    cl_mem whole = clf_host_in_place(real, p, 4096);
    ck_assert_msg((whole != NULL) == shares_memory(ctx),
                  "the whole allocation is %sused in place",
                  whole ? "" : "not ");
    clf_release_mem(real, whole);
    ck_assert_cl(clframe_host_free(p));
    ck_assert_ptr_null(clf_host_in_place(real, p, 4096));
    clctx_free(ctx);
}
END_TEST

/* Pinned memory of one context is pageable to another's kernels. */
START_TEST(another_contexts_allocation_is_copied)
{
    clctx *ctx = test_run_context();
    clctx *other = clctx_new(NULL);
    ck_assert_made(other);
    clkernel *k = clkernel_source(ctx, copy_kernels, "twice", NULL);
    ck_assert_made(k);
    const int n = 100;
    float *block = clframe_host_alloc(other, 3 * n * sizeof(float));
    ck_assert_made(block);
    uint64_t copied = call_against_pageable(k, block, block + n,
                                            block + 2 * n, n);
    ck_assert_uint_eq(copied, 4 * n * sizeof(float));  /* io both ways */
    clkernel_free(k);
    clctx_free(other);                    /* frees block */
    ck_assert_fails(clframe_host_free(block), CLFRAME_ERR_USAGE,
                    "freed already");
    clctx_free(ctx);
}
END_TEST

START_TEST(persistent_arguments_in_pinned_memory)
{
    clctx *ctx = test_run_context();
    clkernel *k = clkernel_source(ctx, copy_kernels, "twice", NULL);
    ck_assert_made(k);
    const int n = 257, steps = 3;
    size_t bytes = n * sizeof(float);
    float *a = clframe_host_alloc(ctx, bytes), *b = clframe_host_alloc(ctx, bytes);
    float *io = clframe_host_alloc(ctx, bytes);
    float ref_a[257], ref_b[257], ref_io[257];
    ck_assert(a && b && io);
    fill(io, n, 5);
    fill(a, n, 3);
    memcpy(ref_io, io, bytes);
    memcpy(ref_a, a, bytes);
    /* Each step: next = 2 * cur, io += cur + 1, then the swap. */
    clarg cur = CLARG_INOUT(a, n), next = CLARG_INOUT(b, n);
    clarg acc = CLARG_INOUT(io, n);
    ck_assert_cl(clarg_keep_on_device(&cur, ctx, 1));
    ck_assert_cl(clarg_keep_on_device(&next, ctx, 0));
    ck_assert_cl(clarg_keep_on_device(&acc, ctx, 1));
    clctx_stats before = clctx_get_stats(ctx);
    ck_assert_cl(clkernel_global(k, n));
    for (int t = 0; t < steps; t++) {
        ck_assert_cl(clkernel_enqueue(k, cur, next, acc, CLARG(n)));
        for (int i = 0; i < n; i++) {
            ref_b[i] = 2 * ref_a[i];
            ref_io[i] += ref_a[i] + 1;
        }
        memcpy(ref_a, ref_b, bytes);
        ck_assert_cl(clarg_swap(&cur, &next));
    }
    ck_assert_cl(clarg_read(&acc));
    ck_assert_msg(memcmp(io, ref_io, bytes) == 0, "io differs");
    ck_assert_cl(clarg_read(&cur));       /* after 3 swaps: b's buffer into a */
    ck_assert_msg(memcmp(a, ref_a, bytes) == 0, "the state differs");
    clctx_stats after = clctx_get_stats(ctx);
    /* In place, acc copied nothing; a and b were copied into buffers of
     * their own at the first swap, and cur's read copied. */
    if (shares_memory(ctx))
        ck_assert_uint_eq(after.bytes_from_device - before.bytes_from_device +
                          after.bytes_to_device - before.bytes_to_device,
                          3 * bytes);
    clarg_release(&cur);
    clarg_release(&next);
    clarg_release(&acc);
    ck_assert_cl(clframe_host_free(a));
    ck_assert_cl(clframe_host_free(b));
    ck_assert_cl(clframe_host_free(io));
    clkernel_free(k);
    clctx_free(ctx);
}
END_TEST

/* ---- double buffering over pinned arrays ---------------------------------- */

/* A double-buffered pair's host arrays: combination c has the first (bit
 * 1) and the second (bit 2) in pinned memory, each an allocation of its
 * own, the rest malloc'd; combination 4 has both in one allocation at
 * aligned offsets (sub-buffers, in place). */
enum { PAIR_COMBOS = 5, PAIR_N = 301 };
static const char *const pair_names[PAIR_COMBOS] = {
    "both malloc'd", "the first pinned", "the second pinned", "both pinned",
    "both in one pinned allocation"};
static const float pair_poison = 12345.5f;

typedef struct pair {
    int combo;
    float *u, *v;                /* the first's array, the second's */
    void *block;                 /* combination 4's allocation */
} pair;

static int first_pinned(const pair *p) { return p->combo & 1 || p->block; }
static int second_pinned(const pair *p) { return p->combo & 2 || p->block; }

static pair pair_new(clctx *ctx, int combo)
{
    size_t bytes = PAIR_N * sizeof(float);
    pair p = {.combo = combo};
    if (combo == 4) {
        size_t align = base_align(ctx);
        size_t span = (bytes + align - 1) / align * align;
        p.block = clframe_host_alloc(ctx, 2 * span);
        ck_assert_made(p.block);
        p.u = p.block;
        p.v = (float *)((char *)p.block + span);
        return p;
    }
    p.u = combo & 1 ? clframe_host_alloc(ctx, bytes) : malloc(bytes);
    p.v = combo & 2 ? clframe_host_alloc(ctx, bytes) : malloc(bytes);
    ck_assert(p.u && p.v);
    return p;
}

static void pair_free(pair *p)
{
    if (p->block) {
        ck_assert_cl(clframe_host_free(p->block));
        return;
    }
    if (p->combo & 1)
        ck_assert_cl(clframe_host_free(p->u));
    else
        free(p->u);
    if (p->combo & 2)
        ck_assert_cl(clframe_host_free(p->v));
    else
        free(p->v);
}

/* The kernel jacobi on the host: the reference. */
static void jacobi_reference(const float *in, float *out, int n)
{
    for (int i = 0; i < n; i++)
        out[i] = i == 0 || i == n - 1 ? in[i] : 0.5f * (in[i - 1] + in[i + 1]);
}

/* One more step of the reference: prev gets want, want the step. */
static void reference_step(float *want, float *prev)
{
    memcpy(prev, want, PAIR_N * sizeof *want);
    jacobi_reference(prev, want, PAIR_N);
}

/* A convergence check's measure: the largest difference of two states. */
static float largest_change(const float *a, const float *b)
{
    float most = 0;
    for (int i = 0; i < PAIR_N; i++) {
        float d = a[i] > b[i] ? a[i] - b[i] : b[i] - a[i];
        most = d > most ? d : most;
    }
    return most;
}

static void assert_state(const pair *p, const float *got, const float *want,
                         const char *what, int step)
{
    for (int i = 0; i < PAIR_N; i++)
        ck_assert_quietly(got[i] == want[i], "%s, %s after step %d, cell %d: "
                          "%g, want %g", pair_names[p->combo], what, step, i,
                          got[i], want[i]);
}

/* A convergence check: reads both arguments, the state (cur) or the step
 * before (next) first, and asserts each array is exactly the reference
 * and the change between them the reference's. */
static void read_both(const pair *p, clarg *cur, clarg *next, int next_first,
                      const float *want, const float *prev, int step)
{
    ck_assert_cl(clarg_read(next_first ? next : cur));
    ck_assert_cl(clarg_read(next_first ? cur : next));
    assert_state(p, p->u, want, "the state read", step);
    assert_state(p, p->v, prev, "the state before read", step);
    float change = largest_change(p->u, p->v);
    ck_assert_msg(change == largest_change(want, prev) && change > 0,
                  "%s, step %d: a change of %g, want %g", pair_names[p->combo],
                  step, change, largest_change(want, prev));
}

/* Jacobi steps double-buffered with clarg_swap give, read after 0 to 3
 * swaps and then after each further step (both arrays, in either order),
 * exactly what malloc'd arrays give, pinned or not: also clarg_write after
 * swaps and calls whose persistent arguments copy. The path is asserted:
 * on PoCL the pinned arrays are used in place until their first swap, on
 * Oclgrind copied. */
START_TEST(double_buffering_over_pinned_arrays_is_as_over_malloc)
{
    clctx *ctx = test_run_context();
    const int combo = _i;
    int in_place = shares_memory(ctx);
    clkernel *k = clkernel_source(ctx, copy_kernels, "jacobi", NULL);
    ck_assert_made(k);
    ck_assert_cl(clkernel_global(k, PAIR_N));
    long live = clctx_get_stats(ctx ? ctx : clctx_default()).live_objects;
    float want[PAIR_N], prev[PAIR_N];
    for (int steps = 0; steps <= 3; steps++) {
        pair p = pair_new(ctx, combo);
        for (int i = 0; i < PAIR_N; i++) {
            p.u[i] = want[i] = (float)((i * 7919) % 101 - 50);
            p.v[i] = pair_poison;
        }
        p.u[0] = want[0] = 100;
        p.u[PAIR_N - 1] = want[PAIR_N - 1] = -100;
        clarg cur = CLARG_INOUT(p.u, PAIR_N), next = CLARG_INOUT(p.v, PAIR_N);
        ck_assert_cl(clarg_keep_on_device(&cur, ctx, 1));
        ck_assert_cl(clarg_keep_on_device(&next, ctx, 0));
        ck_assert_int_eq(clf_arg_in_place(&cur), in_place && first_pinned(&p));
        ck_assert_int_eq(clf_arg_in_place(&next), in_place &&
                         second_pinned(&p));

        /* The state alone after `steps` swaps, then the one before. */
        for (int t = 0; t < steps; t++) {
            ck_assert_cl(clkernel_enqueue(k, cur, next, CLARG(PAIR_N)));
            ck_assert_cl(clarg_swap(&cur, &next));
            reference_step(want, prev);
        }
        ck_assert_cl(clarg_read(&cur));
        assert_state(&p, p.u, want, "the state read alone", steps);
        if (steps > 0) {
            ck_assert_cl(clarg_read(&next));
            assert_state(&p, p.v, prev, "the state before", steps);
            assert_state(&p, p.u, want, "the state, once the one before "
                         "was read", steps);
        }

        /* A convergence loop: a step, both read. */
        int step = steps;
        for (; step < steps + 3; step++) {
            ck_assert_cl(clkernel_enqueue(k, cur, next, CLARG(PAIR_N)));
            ck_assert_cl(clarg_swap(&cur, &next));
            reference_step(want, prev);
            read_both(&p, &cur, &next, step % 2, want, prev, step + 1);
        }

        /* clarg_write after the swaps: a new state from the host, the
         * other array's poison, overwritten by the step, written last. */
        for (int i = 0; i < PAIR_N; i++) {
            p.u[i] = want[i] = (float)(i % 13) - 6;
            p.v[i] = pair_poison;
        }
        ck_assert_cl(clarg_write(&cur));
        ck_assert_cl(clarg_write(&next));
        ck_assert_cl(clkernel_call(k, cur, next, CLARG(PAIR_N)));
        ck_assert_cl(clarg_swap(&cur, &next));
        reference_step(want, prev);
        read_both(&p, &cur, &next, 0, want, prev, ++step);

        /* Persistent arguments whose calls copy: the state in from the
         * first's array, the step back into the second's. */
        for (int i = 0; i < PAIR_N; i++)
            p.u[i] = want[i] = (float)(i % 7) * 0.25f;
        p.v[0] = pair_poison;
        ck_assert_cl(clarg_set_flags(&cur, CLARG_TO_DEVICE));
        ck_assert_cl(clarg_set_flags(&next, CLARG_FROM_DEVICE));
        ck_assert_cl(clkernel_call(k, cur, next, CLARG(PAIR_N)));
        reference_step(want, prev);
        step++;
        assert_state(&p, p.v, want, "the step a call copied back", step);
        assert_state(&p, p.u, prev, "the state a call copied in", step);
        ck_assert_cl(clarg_swap(&cur, &next));
        ck_assert_cl(clarg_set_flags(&cur, CLARG_NO_COPY));
        ck_assert_cl(clarg_set_flags(&next, CLARG_NO_COPY));
        read_both(&p, &cur, &next, 1, want, prev, step);

        clarg_release(&cur);
        clarg_release(&next);
        pair_free(&p);
    }
    ck_assert_int_eq(clctx_get_stats(ctx ? ctx : clctx_default()).live_objects,
                     live);
    clkernel_free(k);
    clctx_free(ctx);
}
END_TEST

START_TEST(bad_frees_are_errors_with_messages)
{
    clctx *ctx = test_run_context();
    char *p = clframe_host_alloc(ctx, 1000);
    ck_assert_made(p);
    ck_assert_fails(clframe_host_free(p + 10), CLFRAME_ERR_USAGE,
                    "10 bytes into an allocation of 1000 bytes");
    ck_assert_cl(clframe_host_free(p));
    ck_assert_fails(clframe_host_free(p), CLFRAME_ERR_USAGE, "freed already");
    int local;
    ck_assert_fails(clframe_host_free(&local), CLFRAME_ERR_USAGE,
                    "is not memory from clframe_host_alloc");
    /* Not from malloc: malloc may hand back the address of an allocation
     * freed above or in an earlier test, which clframe rightly names as
     * freed already (seen once under Oclgrind). */
    static char never_allocated[16];
    ck_assert_fails(clframe_host_free(never_allocated), CLFRAME_ERR_USAGE,
                    "is not memory from clframe_host_alloc");
    ck_assert_cl(clframe_host_free(NULL));
    clctx_free(ctx);
}
END_TEST

/* An allocation that holds a persistent argument's host array is not
 * freed while the argument lives (its reads and writes would go to memory
 * no longer mapped); once every such argument, or a copy of it, is
 * released, it is. */
START_TEST(a_free_waits_for_the_persistent_arguments_in_it)
{
    clctx *ctx = test_run_context();
    float *p = clframe_host_alloc(ctx, 4096);
    ck_assert_made(p);
    clarg a = CLARG_INOUT(p, 1024), b = CLARG_IN(p + 512, 256);
    ck_assert_cl(clarg_persist(&a, ctx));
    ck_assert_cl(clarg_persist(&b, ctx));
    ck_assert_fails(clframe_host_free(p), CLFRAME_ERR_USAGE,
                    "host arrays of 2 persistent arguments");
    clarg copy = b;
    clarg_release(&copy);                   /* a copy releases b's buffer */
    clarg_release(&b);                      /* and this is a no-op */
    ck_assert_fails(clframe_host_free(p), CLFRAME_ERR_USAGE,
                    "host array of 1 persistent argument: clarg_release it");
    ck_assert_cl(clarg_write(&a));          /* still mapped: usable */
    ck_assert_cl(clarg_read(&a));
    clarg_release(&a);
    ck_assert_cl(clframe_host_free(p));
    float *q = malloc(64 * sizeof *q);      /* not pinned: nothing held */
    ck_assert_ptr_nonnull(q);
    clarg c = CLARG_IN(q, 64);
    ck_assert_cl(clarg_persist(&c, ctx));
    clarg_release(&c);
    free(q);
    clctx_free(ctx);
}
END_TEST

/* A kernel long enough to be running when the free comes: the free waits
 * for it, so the pageable result it enqueued is complete when free
 * returns, with no clctx_finish. */
START_TEST(free_with_work_in_flight_finishes_the_queue)
{
    clctx *ctx = test_run_context();
    clkernel *k = clkernel_source(ctx, copy_kernels, "slow_pair", NULL);
    ck_assert_made(k);
    int n = RUN_SIZE(in_flight_n), rounds = RUN_SIZE(in_flight_rounds);
    float *pinned = clframe_host_alloc(ctx, (size_t)n * sizeof(float));
    float *out = calloc((size_t)n, sizeof *out);
    ck_assert(pinned && out);
    ck_assert_cl(clkernel_global(k, n));
    ck_assert_cl(clkernel_enqueue(k, CLARG_OUT(pinned, n), CLARG_OUT(out, n),
                                  CLARG(n), CLARG(rounds)));
    ck_assert_cl(clframe_host_free(pinned));
    for (int i = 0; i < n; i++)
        ck_assert_quietly(out[i] == (float)i, "out[%d] = %g", i, out[i]);
    free(out);
    clkernel_free(k);
    clctx_free(ctx);
}
END_TEST

/* Allocations left to clctx_free are freed there (ASan and valgrind see
 * any leak), and a later free of one says so. */
START_TEST(freeing_the_context_frees_its_allocations)
{
    clctx *ctx = clctx_new(NULL);
    ck_assert_made(ctx);
    void *p = clframe_host_alloc(ctx, 100), *q = clframe_host_alloc(ctx, 1 << 20);
    ck_assert(p && q);
    memset(q, 1, 1 << 20);
    clctx_free(ctx);
    ck_assert_fails(clframe_host_free(q), CLFRAME_ERR_USAGE, "freed already");
}
END_TEST

Suite *pinned_suite(void)
{
    Suite *s = suite_create("pinned");
    TCase *calls = test_case("calls");
    tcase_add_test(calls, whole_allocations_are_used_in_place);
    tcase_add_test(calls, arrays_inside_an_allocation);
    tcase_add_test(calls, zero_length_arrays_in_pinned_memory);
    tcase_add_test(calls, an_array_partly_inside_is_pageable);
    tcase_add_test(calls, another_contexts_allocation_is_copied);
    tcase_add_test(calls, persistent_arguments_in_pinned_memory);
    suite_add_tcase(s, calls);
    TCase *swaps = test_case("swaps");
    tcase_add_loop_test(swaps, double_buffering_over_pinned_arrays_is_as_over_malloc,
                        0, PAIR_COMBOS);
    suite_add_tcase(s, swaps);
    TCase *frees = test_case("frees");
    tcase_add_test(frees, bad_frees_are_errors_with_messages);
    tcase_add_test(frees, a_free_waits_for_the_persistent_arguments_in_it);
    tcase_add_test(frees, free_with_work_in_flight_finishes_the_queue);
    tcase_add_test(frees, freeing_the_context_frees_its_allocations);
    suite_add_tcase(s, frees);
    return s;
}
