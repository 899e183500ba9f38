/*
 * test_pinned.c: pinned host memory (clframe_host_alloc): arrays in it give
 * the same results as pageable ones in every direction, whole or at an
 * offset, of any length; on a device that shares the host's memory (PoCL)
 * the ones used in place are copied zero bytes; persistent arguments keep
 * working; freeing twice, a foreign pointer or with work in flight.
 */
#include "support.h"
#include "internal.h"
#include "copy_kernels.h"

#include <stdlib.h>
#include <string.h>

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
    int count = test_sweep_lengths(1025, lengths);
    for (int t = 0; t < count; t += test_memory_run() ? 5 : 37) {
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
    if (shares_memory(ctx))               /* only the swapped read copied */
        ck_assert_uint_eq(after.bytes_from_device - before.bytes_from_device +
                          after.bytes_to_device - before.bytes_to_device,
                          bytes);
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

/* A kernel long enough to be running when the free comes: the free waits
 * for it, so the pageable result it enqueued is complete when free
 * returns, with no clctx_finish. */
START_TEST(free_with_work_in_flight_finishes_the_queue)
{
    clctx *ctx = test_run_context();
    clkernel *k = clkernel_source(ctx, copy_kernels, "slow_pair", NULL);
    ck_assert_made(k);
    int n = test_memory_run() ? 64 : 4096;
    int rounds = test_memory_run() ? 10 : 20000;
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
    TCase *frees = test_case("frees");
    tcase_add_test(frees, bad_frees_are_errors_with_messages);
    tcase_add_test(frees, free_with_work_in_flight_finishes_the_queue);
    tcase_add_test(frees, freeing_the_context_frees_its_allocations);
    suite_add_tcase(s, frees);
    return s;
}
