/*
 * pool.c: device buffers kept for reuse by kernel calls. A call's arrays
 * that are not persistent get device buffers for the call alone; a GPU
 * driver makes and frees device memory slowly (tens of microseconds a
 * buffer, and freeing may wait for the device), which a program that calls
 * small kernels in a loop pays on every call. So a context keeps up to
 * POOL_SLOTS freed buffers of up to POOL_MAX_BYTES and hands them out
 * again. Sizes are rounded up to a power of two, so that arrays whose
 * length changes from call to call find a buffer; a buffer is reused for
 * an array of a quarter of its size or more.
 *
 * On by default on GPUs; off on CPU devices (whose buffers are host
 * memory, cheap to make) and in debug mode (CL_DEBUG=1: each call's
 * buffers fresh, so that a kernel reading what it never wrote reads no
 * earlier call's data). CLFRAME_BUFFER_POOL=0 or 1 overrides.
 *
 * Reuse is safe because the queue runs in order: the copy into a reused
 * buffer comes after every command of the call that freed it. Pooled
 * buffers do not count in clctx_stats.live_objects, which counts what the
 * program holds; clctx_free releases them.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

enum { POOL_MIN_BYTES = 256 };
#define POOL_MAX_BYTES ((size_t)16 << 20)

void clf_pool_init(clctx *ctx)
{
    const char *env = getenv("CLFRAME_BUFFER_POOL");
    if (env && *env)
        ctx->pool_on = strcmp(env, "0") != 0;
    else
        ctx->pool_on = (ctx->type & CL_DEVICE_TYPE_GPU) && !ctx->debug;
    ctx->pooled = 0;
    pthread_mutex_init(&ctx->pool_lock, NULL);
}

void clf_pool_free(clctx *ctx)
{
    for (int i = 0; i < ctx->pooled; i++)
        clReleaseMemObject(ctx->pool[i]);
    ctx->pooled = 0;
    pthread_mutex_destroy(&ctx->pool_lock);
}

static size_t rounded(size_t bytes)
{
    size_t size = POOL_MIN_BYTES;
    while (size < bytes)
        size <<= 1;
    return size;
}

cl_mem clf_take_buffer(clctx *ctx, size_t bytes, cl_int *err)
{
    if (!ctx->pool_on || bytes > POOL_MAX_BYTES)
        return clf_create_buffer(ctx, bytes, err);
    size_t size = rounded(bytes);
    pthread_mutex_lock(&ctx->pool_lock);
    int best = -1;
    for (int i = 0; i < ctx->pooled; i++)
        if (ctx->pool_bytes[i] >= size && ctx->pool_bytes[i] <= 4 * size &&
            (best < 0 || ctx->pool_bytes[i] < ctx->pool_bytes[best]))
            best = i;
    cl_mem mem = NULL;
    if (best >= 0) {
        mem = ctx->pool[best];
        ctx->pooled--;
        ctx->pool[best] = ctx->pool[ctx->pooled];
        ctx->pool_bytes[best] = ctx->pool_bytes[ctx->pooled];
    }
    pthread_mutex_unlock(&ctx->pool_lock);
    if (!mem)
        return clf_create_buffer(ctx, size, err);
    ctx->stats.pool_reuses++;
    clf_track(ctx, 1);
    *err = CL_SUCCESS;
    return mem;
}

void clf_give_buffer(clctx *ctx, cl_mem mem)
{
    if (!mem)
        return;
    size_t size = 0;
    if (ctx->pool_on &&
        clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof size, &size, NULL) ==
            CL_SUCCESS &&
        size <= POOL_MAX_BYTES && size == rounded(size)) {
        pthread_mutex_lock(&ctx->pool_lock);
        int kept = ctx->pooled < CLF_POOL_SLOTS;
        if (kept) {
            ctx->pool[ctx->pooled] = mem;
            ctx->pool_bytes[ctx->pooled++] = size;
        }
        pthread_mutex_unlock(&ctx->pool_lock);
        if (kept) {
            clf_track(ctx, -1);
            return;
        }
    }
    clf_release_mem(ctx, mem);
}
