/*
 * test_pool.c: what a call borrows and when it waits. Calls of one size
 * class reuse the pool's buffers and give right answers; a buffer given
 * back by work in flight goes only to later work on the same queue; the
 * limit (set by a call or CLFRAME_POOL_BYTES) is never passed; trim, 0 and
 * clctx_free empty the pool, releasing its buffers; a device out of memory empties it and retries once. A
 * call's copies go without waiting, and a copy out of an array waits for
 * the reads still in flight into it.
 */
#include "support.h"
#include "copy_kernels.h"
#include "internal.h"           /* clctx's fail_allocs */

#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct arrays {
    int n;
    float *in, *out, *io;
} arrays;

static arrays make_arrays(int n, float base)
{
    arrays a = {n, malloc((size_t)n * sizeof(float)),
                malloc((size_t)n * sizeof(float)),
                malloc((size_t)n * sizeof(float))};
    ck_assert(a.in && a.out && a.io);
    for (int i = 0; i < n; i++) {
        a.in[i] = base + (float)(i % 100);
        a.out[i] = -1;
        a.io[i] = (float)i;
    }
    return a;
}

/* What kernel twice left: out = 2 in, io = i + in + 1. */
static void check_arrays(const arrays *a)
{
    for (int i = 0; i < a->n; i++) {
        ck_assert_quietly(a->out[i] == 2 * a->in[i], "out[%d] = %g, not %g", i,
                          a->out[i], 2 * a->in[i]);
        ck_assert_quietly(a->io[i] == (float)i + a->in[i] + 1,
                          "io[%d] = %g, not %g", i, a->io[i],
                          (float)i + a->in[i] + 1);
    }
}

static void free_arrays(arrays *a)
{
    free(a->in);
    free(a->out);
    free(a->io);
}

/* The bytes of the buffer an array of `bytes` borrows: its size class
 * (`rounded`, written out in the tests), or exactly its own on Oclgrind. */
static size_t held(const clctx *ctx, size_t bytes, size_t rounded)
{
    return ctx->pool.exact ? bytes : rounded;
}

static clkernel *twice_on(clctx *ctx, int n)
{
    clkernel *k = clkernel_source(ctx, copy_kernels, "twice", NULL);
    ck_assert_made(k);
    ck_assert_cl(clkernel_global(k, (size_t)n));
    return k;
}

/* A blocking call of twice on a new set of arrays, checked. */
static void call_twice(clkernel *k, int n, float base)
{
    arrays a = make_arrays(n, base);
    ck_assert_cl(clkernel_global(k, (size_t)n));
    ck_assert_cl(clkernel_call(k, CLARG_IN(a.in, n), CLARG_OUT(a.out, n),
                               CLARG_INOUT(a.io, n), CLARG(n)));
    check_arrays(&a);
    free_arrays(&a);
}

START_TEST(calls_of_one_size_class_reuse_buffers)
{
    clctx *ctx = clctx_new(NULL);
    ck_assert_made(ctx);
    clkernel *k = twice_on(ctx, 1000);
    long live = clctx_get_stats(ctx).live_objects;
    call_twice(k, 1000, 1);
    clctx_stats st = clctx_get_stats(ctx);
    ck_assert_uint_eq(st.pool_misses, 3);
    ck_assert_uint_eq(st.pool_hits, 0);
    ck_assert_uint_eq(st.pool_bytes, 3 * held(ctx, 4000, 4096));
    ck_assert_int_eq(st.live_objects, live);        /* held, not live */
    call_twice(k, 1000, 7);
    st = clctx_get_stats(ctx);
    ck_assert_uint_eq(st.pool_misses, 3);
    ck_assert_uint_eq(st.pool_hits, 3);
    call_twice(k, 900, 3);              /* 3600 bytes: 4096's class too */
    st = clctx_get_stats(ctx);
    ck_assert_uint_eq(st.pool_misses, ctx->pool.exact ? 6 : 3);
    ck_assert_uint_eq(st.pool_hits, ctx->pool.exact ? 3 : 6);
    uint64_t misses = st.pool_misses;
    call_twice(k, 1200, 5);                         /* 4800: another */
    st = clctx_get_stats(ctx);
    ck_assert_uint_eq(st.pool_misses, misses + 3);
    ck_assert_uint_le(st.pool_bytes, 3 * held(ctx, 4000, 4096) +
                                         3 * held(ctx, 3600, 0) +
                                         3 * held(ctx, 4800, 5120));
    ck_assert_int_eq(st.live_objects, live);
    call_twice(k, 1, 2);                            /* tiny and odd sizes */
    call_twice(k, 257, 2);
    call_twice(k, 4099, 2);
    clkernel_free(k);
    clctx_free(ctx);
}
END_TEST

/* Enqueued calls on one queue take each other's buffers (the queue runs
 * them in order), and each still gets its own answer. */
START_TEST(enqueued_calls_on_one_queue_share_buffers_in_order)
{
    enum { N = 5000, CALLS = 4 };
    clctx *ctx = clctx_new(NULL);
    ck_assert_made(ctx);
    clkernel *k = twice_on(ctx, N);
    arrays a[CALLS];
    for (int c = 0; c < CALLS; c++) {
        a[c] = make_arrays(N, (float)(10 * c));
        ck_assert_cl(clkernel_enqueue(k, CLARG_IN(a[c].in, N),
                                      CLARG_OUT(a[c].out, N),
                                      CLARG_INOUT(a[c].io, N), CLARG(N)));
    }
    ck_assert_cl(clctx_finish(ctx));
    clctx_stats st = clctx_get_stats(ctx);
    ck_assert_uint_eq(st.pool_misses, 3);
    ck_assert_uint_eq(st.pool_hits, 3 * (CALLS - 1));
    for (int c = 0; c < CALLS; c++) {
        check_arrays(&a[c]);
        free_arrays(&a[c]);
    }
    clkernel_free(k);
    clctx_free(ctx);
}
END_TEST

/* Work in flight on one stream keeps its buffers from the others until
 * that stream is known finished. */
START_TEST(streams_in_flight_never_share_a_buffer)
{
    enum { N = 3000 };
    clctx *ctx = clctx_new(NULL);
    ck_assert_made(ctx);
    clkernel *k = twice_on(ctx, N);
    clstream *s1 = clstream_new(ctx), *s2 = clstream_new(ctx);
    ck_assert(s1 && s2);
    arrays a = make_arrays(N, 1), b = make_arrays(N, 2), c = make_arrays(N, 3);
    ck_assert_cl(clkernel_enqueue_on(k, s1, CLARG_IN(a.in, N),
                                     CLARG_OUT(a.out, N),
                                     CLARG_INOUT(a.io, N), CLARG(N)));
    ck_assert_cl(clkernel_enqueue_on(k, s2, CLARG_IN(b.in, N),
                                     CLARG_OUT(b.out, N),
                                     CLARG_INOUT(b.io, N), CLARG(N)));
    clctx_stats st = clctx_get_stats(ctx);
    ck_assert_uint_eq(st.pool_hits, 0);
    ck_assert_uint_eq(st.pool_misses, 6);
    ck_assert_cl(clstream_wait(s1));    /* s1's buffers are free for all */
    ck_assert_cl(clkernel_enqueue(k, CLARG_IN(c.in, N), CLARG_OUT(c.out, N),
                                  CLARG_INOUT(c.io, N), CLARG(N)));
    st = clctx_get_stats(ctx);
    ck_assert_uint_eq(st.pool_hits, 3);         /* s1's, not s2's */
    ck_assert_cl(clctx_finish(ctx));
    check_arrays(&a);
    check_arrays(&b);
    check_arrays(&c);
    free_arrays(&a);
    free_arrays(&b);
    free_arrays(&c);
    clstream_free(s1);
    clstream_free(s2);
    clkernel_free(k);
    clctx_free(ctx);
}
END_TEST

START_TEST(the_limit_is_never_passed)
{
    clctx *ctx = clctx_new(NULL);
    ck_assert_made(ctx);
    clkernel *k = twice_on(ctx, 1000);
    size_t one = held(ctx, 4000, 4096);
    ck_assert_cl(clctx_pool_limit(ctx, 10000));     /* two of them fit */
    call_twice(k, 1000, 1);
    clctx_stats st = clctx_get_stats(ctx);
    ck_assert_uint_eq(st.pool_bytes, 2 * one);
    call_twice(k, 1000, 2);                 /* two hits, one miss */
    st = clctx_get_stats(ctx);
    ck_assert_uint_eq(st.pool_hits, 2);
    ck_assert_uint_eq(st.pool_misses, 4);
    ck_assert_uint_le(st.pool_bytes, 10000);
    call_twice(k, 3000, 3);                 /* 12000 bytes: never kept */
    ck_assert_uint_le(clctx_get_stats(ctx).pool_bytes, 10000);
    ck_assert_cl(clctx_pool_limit(ctx, 4096));      /* drops the oldest */
    ck_assert_uint_eq(clctx_get_stats(ctx).pool_bytes, one);
    ck_assert_cl(clctx_pool_limit(ctx, 0));         /* the pool off */
    ck_assert_uint_eq(clctx_get_stats(ctx).pool_bytes, 0);
    uint64_t misses = clctx_get_stats(ctx).pool_misses;
    call_twice(k, 1000, 4);
    call_twice(k, 1000, 5);
    st = clctx_get_stats(ctx);
    ck_assert_uint_eq(st.pool_misses, misses + 6);
    ck_assert_uint_eq(st.pool_bytes, 0);
    clkernel_free(k);
    clctx_free(ctx);
}
END_TEST

START_TEST(trim_keeps_at_most_what_it_is_asked)
{
    clctx *ctx = clctx_new(NULL);
    ck_assert_made(ctx);
    clkernel *k = twice_on(ctx, 1000);
    size_t small = held(ctx, 4000, 4096), big = held(ctx, 8000, 8192);
    call_twice(k, 1000, 1);
    call_twice(k, 2000, 1);
    ck_assert_uint_eq(clctx_get_stats(ctx).pool_bytes, 3 * small + 3 * big);
    ck_assert_cl(clctx_pool_trim(ctx, 3 * big));    /* the older go first */
    ck_assert_uint_eq(clctx_get_stats(ctx).pool_bytes, 3 * big);
    uint64_t hits = clctx_get_stats(ctx).pool_hits;
    call_twice(k, 2000, 2);
    ck_assert_uint_eq(clctx_get_stats(ctx).pool_hits, hits + 3);
    ck_assert_cl(clctx_pool_trim(ctx, 0));
    ck_assert_uint_eq(clctx_get_stats(ctx).pool_bytes, 0);
    ck_assert_int_eq(clctx_pool_trim(NULL, 0), 0);  /* the default's */
    clkernel_free(k);
    clctx_free(ctx);                        /* releases what is held */
}
END_TEST

/* The buffers the pool holds are released by trim and by clctx_free, as
 * the driver's own destructor callbacks show. */
static int released;

static void CL_CALLBACK count_release(cl_mem mem, void *data)
{
    (void)mem;
    (void)data;
    __atomic_add_fetch(&released, 1, __ATOMIC_SEQ_CST);
}

/* Asks to hear of each held buffer's release; how many there are. */
static int watch_held(clctx *ctx)
{
    __atomic_store_n(&released, 0, __ATOMIC_SEQ_CST);
    for (size_t i = 0; i < ctx->pool.count; i++)
        ck_assert_int_eq(clSetMemObjectDestructorCallback(
                             ctx->pool.held[i].mem, count_release, NULL),
                         CL_SUCCESS);
    return (int)ctx->pool.count;
}

/* The count of releases heard, once it reaches want or a second passed
 * (a driver may call back from a thread of its own). */
static int releases_heard(int want)
{
    for (int tries = 0; tries < 100; tries++) {
        int n = __atomic_load_n(&released, __ATOMIC_SEQ_CST);
        if (n >= want)
            return n;
        struct timespec ten_ms = {0, 10000000};
        nanosleep(&ten_ms, NULL);
    }
    return __atomic_load_n(&released, __ATOMIC_SEQ_CST);
}

START_TEST(trim_and_free_release_the_buffers_held)
{
    clctx *ctx = clctx_new(NULL);
    ck_assert_made(ctx);
    clkernel *k = twice_on(ctx, 1000);
    call_twice(k, 1000, 1);
    call_twice(k, 2000, 1);
    int held_now = watch_held(ctx);
    ck_assert_int_eq(held_now, 6);
    ck_assert_cl(clctx_pool_trim(ctx, 0));
    ck_assert_int_eq(releases_heard(6), 6);
    call_twice(k, 1000, 2);
    ck_assert_int_eq(watch_held(ctx), 3);
    clkernel_free(k);
    clctx_free(ctx);
    ck_assert_int_eq(releases_heard(3), 3);
}
END_TEST

START_TEST(the_limit_comes_from_the_environment)
{
    setenv("CLFRAME_POOL_BYTES", "8K", 1);
    clctx *ctx = clctx_new(NULL);
    ck_assert_made(ctx);
    clkernel *k = twice_on(ctx, 1000);
    call_twice(k, 1000, 1);                 /* two of three kept */
    ck_assert_uint_eq(clctx_get_stats(ctx).pool_bytes,
                      2 * held(ctx, 4000, 4096));
    clkernel_free(k);
    clctx_free(ctx);

    setenv("CLFRAME_POOL_BYTES", "0", 1);
    ck_assert_made(ctx = clctx_new(NULL));
    k = twice_on(ctx, 1000);
    call_twice(k, 1000, 1);
    call_twice(k, 1000, 2);
    ck_assert_uint_eq(clctx_get_stats(ctx).pool_hits, 0);
    ck_assert_uint_eq(clctx_get_stats(ctx).pool_bytes, 0);
    clkernel_free(k);
    clctx_free(ctx);

    static const char *const bad[] = {"lots", "12Q", "-1", "8 K", "1e9",
                                      "99999999999999999999", "99999999999G"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        setenv("CLFRAME_POOL_BYTES", bad[i], 1);
        ck_assert_msg(clctx_new(NULL) == NULL, "CLFRAME_POOL_BYTES=%s taken",
                      bad[i]);
        ck_assert_error_has("CLFRAME_POOL_BYTES");
        ck_assert_error_has(bad[i]);
    }
    unsetenv("CLFRAME_POOL_BYTES");
}
END_TEST

START_TEST(out_of_memory_empties_the_pool_and_retries_once)
{
    clctx *ctx = clctx_new(NULL);
    ck_assert_made(ctx);
    clkernel *k = twice_on(ctx, 1000);
    call_twice(k, 1000, 1);
    ck_assert_uint_eq(clctx_get_stats(ctx).pool_bytes,
                      3 * held(ctx, 4000, 4096));
    ctx->fail_allocs = 1;           /* the next buffer made fails */
    call_twice(k, 2000, 2);         /* retried after emptying the pool */
    ck_assert_int_eq(ctx->fail_allocs, 0);
    ck_assert_uint_eq(clctx_get_stats(ctx).pool_bytes,
                      3 * held(ctx, 8000, 8192));

    ctx->fail_allocs = 2;           /* fails again after the retry */
    arrays a = make_arrays(3000, 1);
    ck_assert_cl(clkernel_global(k, 3000));
    ck_assert_fails(clkernel_call(k, CLARG_IN(a.in, 3000),
                                  CLARG_OUT(a.out, 3000),
                                  CLARG_INOUT(a.io, 3000), CLARG(3000)),
                    CL_MEM_OBJECT_ALLOCATION_FAILURE, "argument 1, 12000 bytes");
    ck_assert_uint_eq(clctx_get_stats(ctx).pool_bytes, 0);
    ctx->fail_allocs = 1;           /* an empty pool: no retry */
    ck_assert_fails(clkernel_call(k, CLARG_IN(a.in, 3000),
                                  CLARG_OUT(a.out, 3000),
                                  CLARG_INOUT(a.io, 3000), CLARG(3000)),
                    CL_MEM_OBJECT_ALLOCATION_FAILURE, "clCreateBuffer");
    ck_assert_int_eq(ctx->fail_allocs, 0);
    ck_assert_cl(clkernel_call(k, CLARG_IN(a.in, 3000), CLARG_OUT(a.out, 3000),
                               CLARG_INOUT(a.io, 3000), CLARG(3000)));
    check_arrays(&a);
    free_arrays(&a);
    clkernel_free(k);
    clctx_free(ctx);
}
END_TEST

/* An enqueued call's results feed the next call: its copy in must wait for
 * them to land (NVIDIA's driver takes a copy's host data when it is
 * enqueued, so without the wait it would send what was there before). */
START_TEST(a_copy_in_waits_for_the_reads_into_its_array)
{
    enum { N = 2000 };
    clctx *ctx = clctx_new(NULL);
    ck_assert_made(ctx);
    clkernel *k = twice_on(ctx, N);
    arrays a = make_arrays(N, 1), b = make_arrays(N, 2), c = make_arrays(N, 3);
    ck_assert_cl(clkernel_enqueue(k, CLARG_IN(a.in, N), CLARG_OUT(a.out, N),
                                  CLARG_INOUT(a.io, N), CLARG(N)));
    ck_assert_uint_eq(ctx->nreads, 2);          /* out and io */
    ck_assert_cl(clkernel_enqueue(k, CLARG_IN(b.in, N), CLARG_OUT(b.out, N),
                                  CLARG_INOUT(b.io, N), CLARG(N)));
    ck_assert_uint_eq(ctx->nreads, 4);          /* no bytes in common */
    free(c.in);
    c.in = a.out;                               /* a's results, in flight */
    ck_assert_cl(clkernel_call(k, CLARG_IN(c.in, N), CLARG_OUT(c.out, N),
                               CLARG_INOUT(c.io, N), CLARG(N)));
    ck_assert_uint_eq(ctx->nreads, 0);
    check_arrays(&a);
    check_arrays(&b);
    check_arrays(&c);                           /* c.out = 2 a.out */
    ck_assert(c.out[N - 1] == 4 * a.in[N - 1]);
    c.in = NULL;
    free_arrays(&a);
    free_arrays(&b);
    free_arrays(&c);
    clkernel_free(k);
    clctx_free(ctx);
}
END_TEST

Suite *pool_suite(void)
{
    Suite *s = suite_create("pool");
    TCase *t = tcase_create("pool");
    tcase_add_test(t, calls_of_one_size_class_reuse_buffers);
    tcase_add_test(t, enqueued_calls_on_one_queue_share_buffers_in_order);
    tcase_add_test(t, streams_in_flight_never_share_a_buffer);
    tcase_add_test(t, the_limit_is_never_passed);
    tcase_add_test(t, trim_keeps_at_most_what_it_is_asked);
    tcase_add_test(t, trim_and_free_release_the_buffers_held);
    tcase_add_test(t, the_limit_comes_from_the_environment);
    tcase_add_test(t, out_of_memory_empties_the_pool_and_retries_once);
    tcase_add_test(t, a_copy_in_waits_for_the_reads_into_its_array);
    tcase_set_timeout(t, 120);
    suite_add_tcase(s, t);
    return s;
}
