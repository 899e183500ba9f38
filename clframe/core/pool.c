/*
 * pool.c: the device buffers a call's arrays borrow.
 *
 * A call's arrays that are not persistent need device buffers only while
 * the call runs. Making and releasing them each time costs more than a
 * small kernel, so each context keeps the buffers its calls gave back, by
 * size class, and the next call of a size in that class takes one (as
 * PyOpenCL's MemoryPool and CUDA's cudaMallocAsync do). A buffer given
 * back by a call still in flight remembers its queue: only later work on
 * that in-order queue may take it, until the queue is known to be finished
 * (clf_pool_idle). The pool holds at most its limit in bytes, dropping the
 * buffers given back longest ago first. A context is used by one thread at
 * a time, so the pool needs no lock.
 */
#include "core.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { POOL_SMALLEST_CLASS = 256 };     /* bytes */

/* The limit when CLFRAME_POOL_BYTES does not say: an eighth of the
 * device's memory, at most 1 GiB. */
static size_t default_limit(const clctx *ctx)
{
    cl_ulong memory = 0;
    clGetDeviceInfo(ctx->device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof memory,
                    &memory, NULL);
    cl_ulong most = (cl_ulong)1 << 30;
    return (size_t)(memory / 8 < most ? memory / 8 : most);
}

/* "1048576", "64K", "256M", "2G" (powers of 1024) into *bytes. */
static int parse_bytes(const char *text, size_t *bytes)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (end == text || errno || text[0] == '-')
        return -1;
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10;
    else if (*end == 'M' || *end == 'm')
        shift = 20;
    else if (*end == 'G' || *end == 'g')
        shift = 30;
    if (shift)
        end++;
    if (*end || v > ((unsigned long long)SIZE_MAX >> shift))
        return -1;
    *bytes = (size_t)(v << shift);
    return 0;
}

int clf_pool_open(clctx *ctx)
{
    const char *env = getenv("CLFRAME_POOL_BYTES");
    ctx->pool.limit = default_limit(ctx);
    if (env && *env && parse_bytes(env, &ctx->pool.limit))
        return clframe_fail(CLFRAME_ERR_USAGE, "CLFRAME_POOL_BYTES=\"%s\": a "
                            "number of bytes expected, with K, M or G after "
                            "it for KiB, MiB or GiB (0 turns the pool off)",
                            env);
    /* Oclgrind reports a kernel's reads and writes past its buffer's end:
     * there, buffers are exactly as long as their arrays. */
    ctx->pool.exact = ctx->on_oclgrind;
    return 0;
}

/* The size of buffer an array of `bytes` gets: rounded up to one of four
 * steps between powers of two (at most 25% more), or exact where that
 * would be more than the device allocates at once. It depends on nothing
 * that changes, so a buffer given back is the size its class says. */
static size_t size_class(const clctx *ctx, size_t bytes)
{
    if (bytes == 0)
        return 1;                   /* a valid buffer the kernel must not use */
    if (ctx->pool.exact)
        return bytes;
    size_t c = POOL_SMALLEST_CLASS;
    if (bytes > c) {
        unsigned top = 0;           /* the highest set bit of bytes - 1 */
        for (size_t x = bytes - 1; x >>= 1;)
            top++;
        size_t step = (size_t)1 << (top - 2);   /* top >= 8 here */
        c = (bytes + step - 1) / step * step;
    }
    if (c < bytes || (ctx->max_alloc && c > ctx->max_alloc))
        return bytes;
    return c;
}

/* Releases held buffer i, keeping the array packed. */
static void drop(clctx *ctx, size_t i)
{
    clf_pool *p = &ctx->pool;
    clReleaseMemObject(p->held[i].mem);
    p->bytes -= p->held[i].bytes;
    p->held[i] = p->held[--p->count];
}

/* Drops the buffers given back longest ago until `keep` bytes or less are
 * held. */
static void trim_to(clctx *ctx, size_t keep)
{
    clf_pool *p = &ctx->pool;
    while (p->count && p->bytes > keep) {
        size_t oldest = 0;
        for (size_t i = 1; i < p->count; i++)
            if (p->held[i].given < p->held[oldest].given)
                oldest = i;
        drop(ctx, oldest);
    }
}

/* The buffer given back longest ago that fits, so that a call repeated
 * with the same arrays gives each the buffer it had last time (as buffers
 * kept by hand are), rather than, say, the last output's to an input. */
cl_mem clf_pool_take(clctx *ctx, cl_command_queue queue, size_t bytes,
                     cl_int *err)
{
    clf_pool *p = &ctx->pool;
    size_t want = size_class(ctx, bytes), found = p->count;
    for (size_t i = 0; i < p->count; i++) {
        const clf_pooled *h = &p->held[i];
        if (h->bytes == want && (h->queue == queue || !h->queue) &&
            (found == p->count || h->given < p->held[found].given))
            found = i;
    }
    if (found < p->count) {
        cl_mem mem = p->held[found].mem;
        p->bytes -= want;
        p->held[found] = p->held[--p->count];
        ctx->stats.pool_hits++;
        clf_track(ctx, 1);
        *err = CL_SUCCESS;
        return mem;
    }
    ctx->stats.pool_misses++;
    cl_mem mem = clf_create_buffer(ctx, want, err);
    if (clf_pool_retry(ctx, *err))
        mem = clf_create_buffer(ctx, want, err);
    return mem;
}

void clf_pool_give(clctx *ctx, cl_command_queue queue, cl_mem mem,
                   size_t bytes)
{
    clf_pool *p = &ctx->pool;
    size_t have = size_class(ctx, bytes);
    clf_track(ctx, -1);             /* held by the pool: not a live object */
    if (have > p->limit) {
        clReleaseMemObject(mem);
        return;
    }
    trim_to(ctx, p->limit - have);
    if (p->count == CLF_POOL_MOST)
        trim_to(ctx, p->bytes - 1);     /* the oldest one */
    p->held[p->count++] = (clf_pooled){.mem = mem, .bytes = have,
                                       .queue = queue, .given = ++p->clock};
    p->bytes += have;
}

void clf_pool_idle(clctx *ctx, cl_command_queue queue)
{
    clf_pool *p = &ctx->pool;
    for (size_t i = 0; i < p->count; i++)
        if (!queue || p->held[i].queue == queue)
            p->held[i].queue = NULL;
}

int clf_pool_retry(clctx *ctx, cl_int err)
{
    if ((err != CL_MEM_OBJECT_ALLOCATION_FAILURE &&
         err != CL_OUT_OF_RESOURCES) || ctx->pool.count == 0)
        return 0;
    if (ctx->debug)
        fprintf(stderr, "clframe: %s is out of memory: the pool's %zu "
                "buffers (%zu bytes) are released and the allocation tried "
                "again\n", ctx->device_name, ctx->pool.count, ctx->pool.bytes);
    trim_to(ctx, 0);
    return 1;
}

void clf_pool_close(clctx *ctx)
{
    trim_to(ctx, 0);
}

int clctx_pool_limit(clctx *ctx, size_t bytes)
{
    if (!(ctx = clf_ctx(ctx)))
        return CLFRAME_ERR_NO_DEVICE;
    ctx->pool.limit = bytes;
    trim_to(ctx, bytes);
    return 0;
}

int clctx_pool_trim(clctx *ctx, size_t keep)
{
    if (!(ctx = clf_ctx(ctx)))
        return CLFRAME_ERR_NO_DEVICE;
    trim_to(ctx, keep);
    return 0;
}
