/*
 * stream.c: streams, extra in-order queues of a context, so that copies
 * and kernels on different streams can run at the same time.
 *
 * Work on one stream runs in order, as on the context's own queue. Between
 * streams, order is asked for: clstream_after makes a stream wait, on the
 * device, for what another had been given so far (clf_queue_after, in
 * memory.c beside the chunked call built from the same step over two copy
 * queues of the context's own), which is CUDA's cudaStreamWaitEvent in one
 * call.
 */
#include "core.h"

#include <stdio.h>
#include <stdlib.h>

int clf_new_queue(clctx *ctx, cl_command_queue *queue)
{
    cl_int err;
    *queue = clCreateCommandQueue(ctx->context, ctx->device,
                                  CL_QUEUE_PROFILING_ENABLE, &err);
    if (err != CL_SUCCESS)
        return clf_fail_cl(err, "clCreateCommandQueue", "a stream on %s",
                           ctx->device_name);
    return 0;
}

clstream *clstream_new(clctx *ctx)
{
    if (!(ctx = clf_ctx(ctx)))
        return NULL;
    clstream *s = calloc(1, sizeof *s);
    if (!s) {
        clframe_fail(CLFRAME_ERR_NO_MEMORY, "clstream_new");
        return NULL;
    }
    s->ctx = ctx;
    s->id = ++ctx->streams_made;
    if (clf_new_queue(ctx, &s->queue)) {
        free(s);
        return NULL;
    }
    clf_track(ctx, 1);
    s->next = ctx->streams;
    ctx->streams = s;
    return s;
}

void clstream_free(clstream *s)
{
    if (!s)
        return;
    if (clf_trace_on())         /* its events' lane is named while it is */
        clf_collect_events(s->ctx);                 /* one of the streams */
    clstream **link = &s->ctx->streams;
    while (*link && *link != s)
        link = &(*link)->next;
    if (*link)
        *link = s->next;
    clFinish(s->queue);
    clf_queue_done(s->ctx, s->queue);    /* the handle may be reused */
    clReleaseCommandQueue(s->queue);
    clf_track(s->ctx, -1);
    free(s);
}

/* clFinish of s's queue, the wait traced. */
static cl_int finish_traced(clstream *s)
{
    double start = clf_now_ms();
    cl_int err = clFinish(s->queue);
    char what[48];
    snprintf(what, sizeof what, "clstream_wait(stream %u)", s->id);
    clf_trace_wait(what, start, clf_now_ms());
    return err;
}

int clstream_wait(clstream *s)
{
    if (!s)
        return clframe_fail(CLFRAME_ERR_USAGE, "clstream_wait: NULL stream");
    cl_int err = clf_trace_on() ? finish_traced(s) : clFinish(s->queue);
    if (err != CL_SUCCESS)
        return clf_fail_cl(err, "clFinish", "waiting for a stream on %s",
                           s->ctx->device_name);
    clf_queue_done(s->ctx, s->queue);
    return 0;
}

int clstream_after(clstream *s, clstream *done)
{
    if (!s && !done)
        return clframe_fail(CLFRAME_ERR_USAGE, "clstream_after: both streams "
                            "are NULL (NULL is one context's own queue)");
    clctx *ctx = s ? s->ctx : done->ctx;
    if (s && done && s->ctx != done->ctx)
        return clframe_fail(CLFRAME_ERR_USAGE, "clstream_after: the streams "
                            "are on two contexts");
    return clf_queue_after(ctx, s ? s->queue : ctx->queue,
                           done ? done->queue : ctx->queue);
}

cl_command_queue clf_stream_queue(clctx *ctx, clstream *s)
{
    return s ? s->queue : ctx->queue;
}
