/*
 * host.c: pinned host memory, which the device reaches by DMA at full speed.
 *
 * An allocation is a buffer made with CL_MEM_ALLOC_HOST_PTR and kept mapped
 * for its whole life: the mapping is the pointer the user gets. Every
 * allocation is kept in a registry (start, length, buffer, context), so that
 * a call can ask whether an array lies wholly inside one. On a device that
 * shares the host's memory (a CPU device) the array is then used in place,
 * as the allocation's buffer or a sub-buffer of it, and nothing is copied;
 * elsewhere the ordinary copies move it, and the driver, given pinned
 * memory, runs them by DMA. clframe_host_free takes no context, so the
 * registry is the process's, under one lock.
 *
 * Strictly, OpenCL leaves undefined a kernel that uses a buffer while it is
 * mapped; on a device whose memory is the host's, the mapping and the buffer
 * are the same bytes, which is what the in-place path relies on (and is
 * only taken there). Oclgrind reports it, so there arrays are copied
 * (ctx.c).
 */
#include "core.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

/* One allocation. */
typedef struct host_block {
    clctx *ctx;
    char *start;                 /* the mapping: what the user got */
    size_t bytes;
    cl_mem mem;
    unsigned users;              /* persistent arguments with arrays in it */
} host_block;

static pthread_mutex_t host_lock = PTHREAD_MUTEX_INITIALIZER;
static host_block *blocks;
static size_t nblocks, capblocks;
/* nblocks, also written atomically: a call's arrays check it without the
 * lock, as most programs have no pinned memory at all. */
static size_t nblocks_seen;

/* The starts of the latest allocations freed, so that a second free can be
 * named as such; a start given out again is live, and found first. */
enum { RECENT_FREES = 64 };
static const void *recent_frees[RECENT_FREES];
static unsigned next_recent;

/* ---- the registry (callers hold host_lock) ------------------------------- */

static int add_block(host_block b)
{
    if (nblocks == capblocks) {
        size_t cap = capblocks ? 2 * capblocks : 16;
        host_block *grown = realloc(blocks, cap * sizeof *grown);
        if (!grown)
            return -1;
        blocks = grown;
        capblocks = cap;
    }
    blocks[nblocks++] = b;
    __atomic_store_n(&nblocks_seen, nblocks, __ATOMIC_RELEASE);
    return 0;
}

/* The index of the allocation that holds byte p, or -1. */
static long block_holding(const void *p)
{
    uintptr_t at = (uintptr_t)p;
    for (size_t i = 0; i < nblocks; i++)
        if (at >= (uintptr_t)blocks[i].start &&
            at - (uintptr_t)blocks[i].start < blocks[i].bytes)
            return (long)i;
    return -1;
}

/* Takes allocation i out of the registry (order does not matter) and
 * remembers its start as freed. */
static host_block take_block(size_t i)
{
    host_block b = blocks[i];
    blocks[i] = blocks[--nblocks];
    __atomic_store_n(&nblocks_seen, nblocks, __ATOMIC_RELEASE);
    recent_frees[next_recent++ % RECENT_FREES] = b.start;
    return b;
}

static int freed_recently(const void *p)
{
    for (unsigned i = 0; i < RECENT_FREES; i++)
        if (recent_frees[i] == p)
            return 1;
    return 0;
}

/* ---- allocating and freeing ---------------------------------------------- */

/* Unmaps and releases an allocation out of the registry, once the
 * context's queues have finished: a kernel or copy in flight may still use
 * it. */
static int release_block(const host_block *b)
{
    clctx *ctx = b->ctx;
    cl_int err = clf_finish_all(ctx);
    const char *call = "clFinish";
    if (err == CL_SUCCESS) {
        call = "clEnqueueUnmapMemObject";
        err = clEnqueueUnmapMemObject(ctx->queue, b->mem, b->start, 0, NULL,
                                      NULL);
    }
    if (err == CL_SUCCESS) {
        call = "clFinish";
        err = clFinish(ctx->queue);
    }
    clf_release_mem(ctx, b->mem);
    if (err != CL_SUCCESS)
        return clf_fail_cl(err, call, "clframe_host_free: %zu bytes at %p on "
                           "%s", b->bytes, (void *)b->start, ctx->device_name);
    return 0;
}

void *clframe_host_alloc(clctx *ctx, size_t bytes)
{
    if (!(ctx = clf_ctx(ctx)))
        return NULL;
    if (bytes == 0) {
        clframe_fail(CLFRAME_ERR_USAGE, "clframe_host_alloc: 0 bytes asked for");
        return NULL;
    }
    cl_int err;
    host_block b = {.ctx = ctx, .bytes = bytes};
    b.mem = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE |
                           CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &err);
    if (err != CL_SUCCESS) {
        clf_fail_cl(err, "clCreateBuffer", "clframe_host_alloc: %zu bytes on "
                    "%s", bytes, ctx->device_name);
        return NULL;
    }
    clf_track(ctx, 1);
    b.start = clEnqueueMapBuffer(ctx->queue, b.mem, CL_TRUE, CL_MAP_READ |
                                 CL_MAP_WRITE, 0, bytes, 0, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        clf_fail_cl(err, "clEnqueueMapBuffer", "clframe_host_alloc: %zu "
                    "bytes on %s", bytes, ctx->device_name);
        clf_release_mem(ctx, b.mem);
        return NULL;
    }
    pthread_mutex_lock(&host_lock);
    int rc = add_block(b);
    pthread_mutex_unlock(&host_lock);
    if (rc) {
        release_block(&b);
        clframe_fail(CLFRAME_ERR_NO_MEMORY, "clframe_host_alloc: out of host "
                     "memory for the registry");
        return NULL;
    }
    return b.start;
}

int clframe_host_free(void *p)
{
    if (!p)
        return 0;
    pthread_mutex_lock(&host_lock);
    long i = block_holding(p);
    size_t into = i >= 0 ? (size_t)((char *)p - blocks[i].start) : 0;
    size_t of = i >= 0 ? blocks[i].bytes : 0;
    int again = i < 0 && freed_recently(p);
    unsigned users = i >= 0 ? blocks[i].users : 0;
    host_block b = {0};
    if (i >= 0 && into == 0 && users == 0)
        b = take_block((size_t)i);
    pthread_mutex_unlock(&host_lock);
    if (b.mem)
        return release_block(&b);
    if (users)
        return clframe_fail(CLFRAME_ERR_USAGE, "clframe_host_free: %p holds "
                            "the host array%s of %u persistent argument%s: "
                            "clarg_release %s first (nothing freed)", p,
                            users == 1 ? "" : "s", users,
                            users == 1 ? "" : "s", users == 1 ? "it" : "them");
    if (i >= 0)
        return clframe_fail(CLFRAME_ERR_USAGE, "clframe_host_free: %p points "
                            "%zu bytes into an allocation of %zu bytes: free "
                            "the pointer clframe_host_alloc returned", p, into,
                            of);
    if (again)
        return clframe_fail(CLFRAME_ERR_USAGE, "clframe_host_free: %p was "
                            "freed already (by clframe_host_free or with its "
                            "context)", p);
    return clframe_fail(CLFRAME_ERR_USAGE, "clframe_host_free: %p is not "
                        "memory from clframe_host_alloc", p);
}

void clf_host_free_all(clctx *ctx)
{
    for (;;) {
        host_block b = {0};
        pthread_mutex_lock(&host_lock);
        for (size_t i = 0; i < nblocks && !b.mem; i++)
            if (blocks[i].ctx == ctx)
                b = take_block(i);
        if (nblocks == 0) {          /* nothing left for a leak check */
            free(blocks);
            blocks = NULL;
            capblocks = 0;
        }
        pthread_mutex_unlock(&host_lock);
        if (!b.mem)
            return;
        release_block(&b);
    }
}

int clf_host_use(const void *p, int delta)
{
    if (!p || __atomic_load_n(&nblocks_seen, __ATOMIC_ACQUIRE) == 0)
        return 0;
    pthread_mutex_lock(&host_lock);
    long i = block_holding(p);
    if (i >= 0 && (delta > 0 || blocks[i].users > 0))
        blocks[i].users += (unsigned)delta;
    pthread_mutex_unlock(&host_lock);
    return i >= 0;
}

/* ---- arrays in pinned memory --------------------------------------------- */

/* The bytes at p lie wholly in allocation b. */
static int holds(const host_block *b, const void *p, size_t bytes)
{
    uintptr_t at = (uintptr_t)p, start = (uintptr_t)b->start;
    return at >= start && bytes <= b->bytes && at - start <= b->bytes - bytes;
}

/* A new reference to a buffer whose memory is the bytes at offset of b:
 * b's own buffer for the whole of it, else a sub-buffer, which OpenCL
 * allows only at an offset aligned to CL_DEVICE_MEM_BASE_ADDR_ALIGN; NULL
 * where it cannot be made, and the array is then copied. */
static cl_mem buffer_of(const host_block *b, size_t offset, size_t bytes)
{
    if (offset == 0 && bytes == b->bytes)
        return clRetainMemObject(b->mem) == CL_SUCCESS ? b->mem : NULL;
    if (offset % b->ctx->base_align)
        return NULL;
    cl_buffer_region region = {offset, bytes};
    cl_int err;
    cl_mem sub = clCreateSubBuffer(b->mem, CL_MEM_READ_WRITE,
                                   CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    return err == CL_SUCCESS ? sub : NULL;
}

cl_mem clf_host_in_place(clctx *ctx, const void *p, size_t bytes)
{
    if (!ctx->shares_memory || !p || bytes == 0 ||
        __atomic_load_n(&nblocks_seen, __ATOMIC_ACQUIRE) == 0)
        return NULL;
    cl_mem mem = NULL;
    pthread_mutex_lock(&host_lock);
    for (size_t i = 0; i < nblocks; i++)
        if (blocks[i].ctx == ctx && holds(&blocks[i], p, bytes)) {
            mem = buffer_of(&blocks[i], (size_t)((const char *)p -
                                                 blocks[i].start), bytes);
            break;
        }
    pthread_mutex_unlock(&host_lock);
    if (mem)
        clf_track(ctx, 1);
    return mem;
}
