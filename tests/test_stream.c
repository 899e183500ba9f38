/*
 * test_stream.c: streams, asynchronous copies and chunked calls. Copies in
 * parts on one stream, a kernel on another and copies back on a third give
 * the host's result; waiting for one stream leaves the others running;
 * a chunked call gives what the whole call gives, for lengths that are not
 * multiples of the chunk, in 1-D and by rows, from pinned and pageable
 * memory; the misuses are errors with messages.
 */
#include "support.h"
#include "copy_kernels.h"

#include <stdlib.h>
#include <string.h>

/* The sizes per run (support.h). */
static const struct {
    test_sweep sweep;       /* the array lengths copied in parts, ... */
    int parts_step;         /* ... every how manyth of them */
    int chunked_step;       /* ... and for the chunked calls */
    int slow_n;             /* the slow kernel's work-items, */
    int slow_rounds;        /* and each one's rounds */
    int async_n;            /* floats under the asynchronous copy */
} run_sizes[] = {
    [TEST_FULL]    = {TEST_EVERY_LENGTH, 29, 17, 4096, 5000, 1 << 20},
    [TEST_CHECKED] = {TEST_EDGE_LENGTHS, 5, 9, 64, 10, 1000},
};

static const float bias[7] = {0.5f, -1, 2, 3.25f, -4, 5, 6};

static void fill(float *p, int n, float base)
{
    for (int i = 0; i < n; i++)
        p[i] = base + (float)(i % 1000);
}

/* Host arrays of n floats, pinned or pageable. */
static float *take(clctx *ctx, int pinned, int n)
{
    size_t bytes = (size_t)(n ? n : 1) * sizeof(float);
    float *p = pinned ? clframe_host_alloc(ctx, bytes) : malloc(bytes);
    ck_assert_made(p);
    return p;
}

static void give(int pinned, float *p)
{
    if (pinned)
        ck_assert_cl(clframe_host_free(p));
    else
        free(p);
}

/* Where three parts cut n elements: uneven, some empty. */
static void cuts(int n, size_t at[4])
{
    at[0] = 0;
    at[1] = (size_t)n / 3;
    at[2] = at[1] + ((size_t)n - at[1]) / 2;
    at[3] = (size_t)n;
}

/* in goes up in three parts on `up`, the kernel runs on the context's
 * queue after them, out and io come back in parts on `down` after it: the
 * host waits for `down` alone. */
static void parts_on_streams(clctx *ctx, clkernel *k, int pinned, int n)
{
    float *in = take(ctx, pinned, n), *out = take(ctx, pinned, n);
    float *io = take(ctx, pinned, n);
    float *want_out = malloc((size_t)(n + 1) * sizeof(float));
    float *want_io = malloc((size_t)(n + 1) * sizeof(float));
    ck_assert(want_out && want_io);
    fill(in, n, 1);
    fill(io, n, 50);
    for (int i = 0; i < n; i++) {
        want_out[i] = 2 * in[i] + bias[i % 7];
        want_io[i] = io[i] + in[i];
    }
    clarg a_in = CLARG_IN(in, n), a_out = CLARG_OUT(out, n);
    clarg a_io = CLARG_INOUT(io, n);
    ck_assert_cl(clarg_keep_on_device(&a_in, ctx, 0));
    ck_assert_cl(clarg_keep_on_device(&a_out, ctx, 0));
    ck_assert_cl(clarg_keep_on_device(&a_io, ctx, 0));
    clstream *up = clstream_new(ctx), *down = clstream_new(ctx);
    ck_assert(up && down);
    size_t at[4];
    cuts(n, at);
    for (int p = 0; p < 3; p++) {
        ck_assert_cl(clarg_write_async(&a_in, at[p], at[p + 1] - at[p], up));
        ck_assert_cl(clarg_write_async(&a_io, at[p], at[p + 1] - at[p], up));
    }
    ck_assert_cl(clstream_after(NULL, up));
    ck_assert_cl(clkernel_global(k, n ? (size_t)n : 1));
    ck_assert_cl(clkernel_enqueue(k, a_in, a_out, a_io, CLARG_IN(bias, 7),
                                  CLARG(n)));
    ck_assert_cl(clstream_after(down, NULL));
    for (int p = 2; p >= 0; p--) {        /* any order */
        ck_assert_cl(clarg_read_async(&a_out, at[p], at[p + 1] - at[p], down));
        ck_assert_cl(clarg_read_async(&a_io, at[p], at[p + 1] - at[p], down));
    }
    ck_assert_cl(clstream_wait(down));
    ck_assert_msg(memcmp(out, want_out, (size_t)n * sizeof *out) == 0 &&
                  memcmp(io, want_io, (size_t)n * sizeof *io) == 0,
                  "n = %d, %s: results differ", n, pinned ? "pinned" : "pageable");
    clstream_free(up);
    clstream_free(down);
    clarg_release(&a_in);
    clarg_release(&a_out);
    clarg_release(&a_io);
    give(pinned, in);
    give(pinned, out);
    give(pinned, io);
    free(want_out);
    free(want_io);
}

START_TEST(copies_in_parts_on_streams)
{
    clctx *ctx = test_run_context();
    clkernel *k = clkernel_source(ctx, copy_kernels, "blend", NULL);
    ck_assert_made(k);
    long live = clctx_get_stats(ctx).live_objects;
    int lengths[1100];
    int count = test_sweep_lengths(RUN_SIZE(sweep), 1025, lengths);
    for (int t = 0; t < count; t += RUN_SIZE(parts_step))
        for (int pinned = 0; pinned < 2; pinned++)
            parts_on_streams(ctx, k, pinned, lengths[t]);
    ck_assert_int_eq(clctx_get_stats(ctx).live_objects, live);
    clkernel_free(k);
    clctx_free(ctx);
}
END_TEST

/* A slow kernel on one stream and a quick one on another: waiting for the
 * quick one gives its result (the slow one may still run), then the slow
 * one's. Lazy buffers on a stream are made, filled and read there. */
START_TEST(waiting_for_one_stream_of_several)
{
    clctx *ctx = test_run_context();
    clkernel *slow = clkernel_source(ctx, copy_kernels, "slow", NULL);
    clkernel *blend = clkernel_source(ctx, copy_kernels, "blend", NULL);
    ck_assert(slow && blend);
    int n = RUN_SIZE(slow_n), rounds = RUN_SIZE(slow_rounds);
    float *x = malloc((size_t)n * sizeof *x), *in = malloc((size_t)n * sizeof *in);
    float *out = calloc((size_t)n, sizeof *out), *io = calloc((size_t)n, sizeof *io);
    ck_assert(x && in && out && io);
    fill(x, n, 0);
    fill(in, n, 3);
    clstream *a = clstream_new(ctx), *b = clstream_new(ctx);
    ck_assert(a && b);
    ck_assert_cl(clkernel_global(slow, n));
    ck_assert_cl(clkernel_enqueue_on(slow, a, CLARG_INOUT(x, n), CLARG(rounds)));
    ck_assert_cl(clkernel_global(blend, n));
    ck_assert_cl(clkernel_enqueue_on(blend, b, CLARG_IN(in, n), CLARG_OUT(out, n),
                                     CLARG_INOUT(io, n), CLARG_IN(bias, 7),
                                     CLARG(n)));
    ck_assert_cl(clstream_wait(b));
    for (int i = 0; i < n; i++)
        ck_assert_quietly(out[i] == 2 * in[i] + bias[i % 7] && io[i] == in[i],
                          "i = %d: out %g io %g", i, out[i], io[i]);
    ck_assert_cl(clstream_wait(a));
    for (int i = 0; i < n; i++) {
        float v = (float)(i % 1000);
        for (int r = 0; r < rounds; r++)
            v = v * 0.5f + 1.0f;
        ck_assert_quietly(x[i] == v, "x[%d] = %g, not %g", i, x[i], v);
    }
    clstream_free(a);
    clstream_free(b);
    free(x);
    free(in);
    free(out);
    free(io);
    clkernel_free(slow);
    clkernel_free(blend);
    clctx_free(ctx);
}
END_TEST

/* A chunked call of blend against the whole call, n elements, chunks of
 * `chunk` work-items of groups of 8. */
static void chunked_against_whole(clkernel *k, int pinned, int n, size_t chunk)
{
    clctx *ctx = clkernel_ctx(k);
    float *in = take(ctx, pinned, n), *out = take(ctx, pinned, n);
    float *io = take(ctx, pinned, n);
    float *want_out = malloc((size_t)(n + 1) * sizeof(float));
    float *want_io = malloc((size_t)(n + 1) * sizeof(float));
    ck_assert(want_out && want_io);
    fill(in, n, 7);
    fill(io, n, -3);
    memcpy(want_io, io, (size_t)n * sizeof *io);
    ck_assert_cl(clkernel_global(k, clframe_round_up((size_t)n, 8)));
    ck_assert_cl(clkernel_local(k, 8));
    ck_assert_cl(clkernel_call(k, CLARG_IN(in, n), CLARG_OUT(want_out, n),
                               CLARG_INOUT(want_io, n), CLARG_IN(bias, 7),
                               CLARG(n)));
    ck_assert_cl(clkernel_call_chunked(k, (size_t)n, chunk,
                                       CLARG_IN_CHUNKS(in, n),
                                       CLARG_OUT_CHUNKS(out, n),
                                       CLARG_INOUT_CHUNKS(io, n),
                                       CLARG_IN(bias, 7), CLARG(n)));
    ck_assert_msg(memcmp(out, want_out, (size_t)n * sizeof *out) == 0 &&
                  memcmp(io, want_io, (size_t)n * sizeof *io) == 0,
                  "n = %d, chunk %zu, %s: chunked and whole differ", n, chunk,
                  pinned ? "pinned" : "pageable");
    give(pinned, in);
    give(pinned, out);
    give(pinned, io);
    free(want_out);
    free(want_io);
}

START_TEST(chunked_calls_match_whole_calls)
{
    clctx *ctx = test_run_context();
    clkernel *k = clkernel_source(ctx, copy_kernels, "blend", NULL);
    ck_assert_made(k);
    int lengths[1100];
    int count = test_sweep_lengths(RUN_SIZE(sweep), 1025, lengths);
    for (int t = 0; t < count; t += RUN_SIZE(chunked_step)) {
        int n = lengths[t] ? lengths[t] : 1;   /* a chunked call owns data */
        size_t chunks[] = {8, 24, 64, clframe_round_up((size_t)n, 8) + 8};
        for (int c = 0; c < 4; c++)
            for (int pinned = 0; pinned < 2; pinned++)
                chunked_against_whole(k, pinned, n, chunks[c]);
    }
    clkernel_free(k);
    clctx_free(ctx);
}
END_TEST

/* Rows split across chunks, a whole row vector read by all, and a global
 * offset of the caller's own that the chunks add to. */
START_TEST(chunked_by_rows)
{
    clctx *ctx = test_run_context();
    clkernel *k = clkernel_source(ctx, copy_kernels, "rows", NULL);
    ck_assert_made(k);
    enum { W = 13, H = 37 };
    float in[W * H], out[W * H], row[W];
    fill(in, W * H, 2);
    for (int x = 0; x < W; x++)
        row[x] = (float)(x * x);
    for (size_t chunk = 1; chunk <= H + 1; chunk += 4) {
        memset(out, 0, sizeof out);
        ck_assert_cl(clkernel_global(k, W, H));
        ck_assert_cl(clkernel_call_chunked(k, H, chunk,
                                           CLARG_IN_CHUNKS(in, W * H),
                                           CLARG_OUT_CHUNKS(out, W * H),
                                           CLARG_IN(row, W), CLARG(W)));
        for (int i = 0; i < W * H; i++)
            ck_assert_msg(out[i] == in[i] + row[i % W], "chunk %zu, element "
                          "%d: %g", chunk, i, out[i]);
    }
    /* Rows 10 to 36 only, by the caller's offset: rows 0 to 9 untouched.
     * The arrays still start at row 0, so the chunks' data does too. */
    memset(out, 0, sizeof out);
    ck_assert_cl(clkernel_global(k, W, H - 10));
    ck_assert_cl(clkernel_offset(k, 0, 10));
    ck_assert_cl(clkernel_call_chunked(k, H - 10, 4,
                                       CLARG_IN(in, W * H),
                                       CLARG_INOUT(out, W * H),
                                       CLARG_IN(row, W), CLARG(W)));
    for (int i = 0; i < W * H; i++)
        ck_assert_msg(out[i] == (i >= 10 * W ? in[i] + row[i % W] : 0),
                      "offset rows, element %d: %g", i, out[i]);
    clkernel_free(k);
    clctx_free(ctx);
}
END_TEST

START_TEST(chunked_call_errors)
{
    clctx *ctx = test_run_context();
    clkernel *k = clkernel_source(ctx, copy_kernels, "blend", NULL);
    ck_assert_made(k);
    float in[100], out[100], io[100] = {0};
    fill(in, 100, 0);
    int n = 100;
    ck_assert_cl(clkernel_global(k, 104));
    ck_assert_cl(clkernel_local(k, 8));
#define CHUNKED(items, chunk, count) \
    clkernel_call_chunked(k, (items), (chunk), CLARG_IN_CHUNKS(in, count), \
                          CLARG_OUT_CHUNKS(out, count), CLARG_INOUT(io, n), \
                          CLARG_IN(bias, 7), CLARG(n))
    ck_assert_fails(CHUNKED(100, 0, 100), CLFRAME_ERR_BAD_SIZE,
                    "chunks of 0 work-items");
    ck_assert_fails(CHUNKED(100, 12, 100), CLFRAME_ERR_BAD_SIZE,
                    "a chunk of 12 work-items is not a multiple of the local "
                    "size 8");
    ck_assert_fails(CHUNKED(105, 8, 100), CLFRAME_ERR_BAD_SIZE,
                    "105 work-items own data: 1 to the global size 104");
    ck_assert_fails(CHUNKED(0, 8, 100), CLFRAME_ERR_BAD_SIZE,
                    "0 work-items own data");
    ck_assert_fails(CHUNKED(30, 8, 100), CLFRAME_ERR_BAD_SIZE,
                    "argument 1, split in chunks, has 100 elements, which 30 "
                    "work-items cannot own in equal parts");
    ck_assert_cl(CHUNKED(50, 8, 100));    /* two elements each */
#undef CHUNKED
    clkernel_free(k);
    clctx_free(ctx);
}
END_TEST

START_TEST(stream_and_async_copy_errors)
{
    clctx *ctx = test_run_context();
    clctx *other = clctx_new(NULL);
    ck_assert_made(other);
    clstream *s = clstream_new(ctx), *t = clstream_new(other);
    ck_assert(s && t);
    float x[10] = {0};
    clarg a = CLARG_INOUT(x, 10);
    ck_assert_fails(clarg_write_async(&a, 0, 10, s), CLFRAME_ERR_USAGE,
                    "not persistent");
    ck_assert_cl(clarg_persist(&a, ctx));
    ck_assert_cl(clarg_write_async(&a, 0, 0, s));
    ck_assert_cl(clarg_write_async(&a, 10, 0, s));
    ck_assert_cl(clarg_read_async(&a, 3, 7, NULL));
    ck_assert_cl(clctx_finish(ctx));      /* x is this function's */
    ck_assert_fails(clarg_write_async(&a, 10, 1, s), CLFRAME_ERR_USAGE,
                    "clarg_write_async: elements 10 to 11 of an array of 10");
    ck_assert_fails(clarg_read_async(&a, 11, 0, s), CLFRAME_ERR_USAGE,
                    "elements 11 to 11 of an array of 10");
    ck_assert_fails(clarg_read_async(&a, 5, (size_t)-1, s), CLFRAME_ERR_USAGE,
                    "of an array of 10");
    ck_assert_fails(clarg_read_async(&a, 0, 10, t), CLFRAME_ERR_USAGE,
                    "the stream is on");
    ck_assert_fails(clstream_after(s, t), CLFRAME_ERR_USAGE, "two contexts");
    ck_assert_fails(clstream_after(NULL, NULL), CLFRAME_ERR_USAGE,
                    "both streams are NULL");
    ck_assert_fails(clstream_wait(NULL), CLFRAME_ERR_USAGE, "NULL stream");
    clkernel *k = clkernel_source(ctx, copy_kernels, "slow", NULL);
    ck_assert_made(k);
    ck_assert_cl(clkernel_global(k, 10));
    ck_assert_fails(clkernel_enqueue_on(k, t, a, CLARG(1)), CLFRAME_ERR_USAGE,
                    "the stream is on");
    ck_assert_cl(clstream_wait(s));
    clstream_free(NULL);
    clstream_free(s);
    clstream_free(t);
    clarg_release(&a);
    clkernel_free(k);
    clctx_free(other);
    clctx_free(ctx);
}
END_TEST

/* A free of pinned memory that an asynchronous copy on a stream is still
 * reading waits for the copy: what reached the device is whole. The
 * argument is released first (the free refuses memory a persistent
 * argument's array is in), its buffer kept alive by a reference of the
 * test's own to read the device's copy through. */
START_TEST(freeing_pinned_memory_under_an_async_copy)
{
    clctx *ctx = test_run_context();
    int n = RUN_SIZE(async_n);
    float *pinned = take(ctx, 1, n), *back = malloc((size_t)n * sizeof *back);
    ck_assert_made(back);
    fill(pinned, n, 9);
    clarg a = CLARG_IN(pinned, n);
    ck_assert_cl(clarg_persist(&a, ctx));
    clstream *s = clstream_new(ctx);
    ck_assert_made(s);
    ck_assert_cl(clarg_write_async(&a, 0, (size_t)n, s));
    cl_mem mem = clarg_mem(&a);
    ck_assert_int_eq(clRetainMemObject(mem), CL_SUCCESS);
    ck_assert_fails(clframe_host_free(pinned), CLFRAME_ERR_USAGE,
                    "persistent argument");
    clarg_release(&a);
    ck_assert_cl(clframe_host_free(pinned));
    ck_assert_fails(clframe_host_free(pinned), CLFRAME_ERR_USAGE,
                    "freed already");
    /* Read the device's copy through a pageable array of the same buffer:
     * on a device that used the pinned array in place, the buffer was
     * the array, and reading it now is not defined; there, only the
     * frees are checked. */
    if (!clctx_pinned_in_place(ctx)) {
        ck_assert_cl(clEnqueueReadBuffer(clctx_queue(ctx), mem,
                                         CL_TRUE, 0, (size_t)n * sizeof *back,
                                         back, 0, NULL, NULL));
        for (int i = 0; i < n; i++)
            ck_assert_quietly(back[i] == 9 + (float)(i % 1000), "element %d: "
                              "%g", i, back[i]);
    }
    clstream_free(s);
    clReleaseMemObject(mem);
    free(back);
    clctx_free(ctx);
}
END_TEST

Suite *stream_suite(void)
{
    Suite *s = suite_create("stream");
    TCase *streams = test_case("streams");
    tcase_add_test(streams, copies_in_parts_on_streams);
    tcase_add_test(streams, waiting_for_one_stream_of_several);
    tcase_add_test(streams, stream_and_async_copy_errors);
    tcase_add_test(streams, freeing_pinned_memory_under_an_async_copy);
    tcase_set_tags(streams, "partial-writes");  /* scripts/check-oclgrind */
    suite_add_tcase(s, streams);
    TCase *chunks = test_case("chunks");
    tcase_add_test(chunks, chunked_calls_match_whole_calls);
    tcase_add_test(chunks, chunked_by_rows);
    tcase_add_test(chunks, chunked_call_errors);
    tcase_set_tags(chunks, "partial-writes");
    suite_add_tcase(s, chunks);
    return s;
}
