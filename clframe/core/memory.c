/*
 * memory.c: the device memory a context holds: every buffer and image it
 * makes, the buffers a call's arrays borrow (the pool), pinned host
 * memory, the copies between host arrays and the device, and the count of
 * live OpenCL objects; and a kernel call's plan (arg.c) carried out in
 * one pass (clf_call_run): each argument's buffer taken, its copies in,
 * the launch launch.c hands in, the copies back, the call's one wait, the
 * buffers given back; then, once, its timed copies handed to the profile
 * and its first failure worded. Queues are ordered here too
 * (clf_queue_after), for chunked calls and streams.
 *
 * The pool. A call's arrays that are not persistent need device buffers
 * only while the call runs. Making and releasing them each time costs more
 * than a small kernel, so each context keeps the buffers its calls gave
 * back, by size class, and the next call of a size in that class takes one
 * (as PyOpenCL's MemoryPool and CUDA's cudaMallocAsync do). A buffer given
 * back by a call still in flight remembers its queue: only later work on
 * that in-order queue may take it, until the queue is known to be finished
 * (clf_pool_idle). The pool holds at most its limit in bytes, dropping the
 * buffers given back longest ago first. A context is used by one thread at
 * a time, so the pool needs no lock.
 *
 * Pinned host memory, which the device reaches by DMA at full speed. An
 * allocation is a buffer made with CL_MEM_ALLOC_HOST_PTR and kept mapped
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

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- live objects ------------------------------------------------------- */

void clf_track(clctx *ctx, int delta)
{
    ctx->stats.live_objects += delta;
}

cl_mem clf_create_buffer(clctx *ctx, size_t bytes, cl_int *err)
{
    if (ctx->fail_allocs) {
        ctx->fail_allocs--;
        *err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
        return NULL;
    }
    /* A zero-sized array still needs a valid buffer to pass. */
    cl_mem mem = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE,
                                bytes ? bytes : 1, NULL, err);
    if (*err == CL_SUCCESS)
        clf_track(ctx, 1);
    return mem;
}

void clf_release_mem(clctx *ctx, cl_mem mem)
{
    if (mem) {
        clReleaseMemObject(mem);
        clf_track(ctx, -1);
    }
}

/* ---- the pool ----------------------------------------------------------- */

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

int clf_pool_open(clctx *ctx)
{
    const char *env = getenv("CLFRAME_POOL_BYTES");
    ctx->pool.limit = default_limit(ctx);
    if (env && *env && clf_parse_bytes(env, &ctx->pool.limit))
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

/* Marks queue's work (NULL: every queue's) finished: its buffers are
 * free for any queue. */
static void pool_idle(clctx *ctx, cl_command_queue queue)
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

/* ---- pinned host memory ------------------------------------------------- */

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

/* ---- copies between host arrays and buffers ------------------------------ */

/* Counts a copy of bytes one way (CLF_EV_WRITE, CLF_EV_READ) in ctx's
 * statistics. */
static void count_copy(clctx *ctx, int what, size_t bytes)
{
    if (what == CLF_EV_WRITE) {
        ctx->stats.writes++;
        ctx->stats.bytes_to_device += bytes;
    } else {
        ctx->stats.reads++;
        ctx->stats.bytes_from_device += bytes;
    }
}

static int overlap(const char *a, size_t an, const char *b, size_t bn)
{
    return a < b + bn && b < a + an;
}

/* The queue of a read in flight into some of the bytes at host, or NULL. */
static cl_command_queue reading_into(const clctx *ctx, const void *host,
                                     size_t bytes)
{
    for (size_t i = 0; i < ctx->nreads; i++)
        if (overlap(host, bytes, ctx->reads[i].host, ctx->reads[i].bytes))
            return ctx->reads[i].queue;
    return NULL;
}

/* Waits, before a copy to the device (CLF_EV_WRITE), for the reads still
 * in flight into any of its bytes: 0 or the driver's code. */
static cl_int before_copy(clctx *ctx, int what, const void *host, size_t bytes)
{
    cl_command_queue queue;
    while (what == CLF_EV_WRITE && (queue = reading_into(ctx, host, bytes))) {
        cl_int err = clFinish(queue);
        if (err != CL_SUCCESS)
            return err;
        clf_queue_done(ctx, queue);     /* drops that queue's reads */
    }
    return CL_SUCCESS;
}

/* Notes a read enqueued without waiting, for the copies after it. */
static void after_copy(clctx *ctx, cl_command_queue queue, int what,
                       const void *host, size_t bytes, cl_bool blocking)
{
    if (what != CLF_EV_READ || blocking || bytes == 0)
        return;
    for (size_t i = 0; i < ctx->nreads; i++)    /* waiting covers both */
        if (ctx->reads[i].host == host && ctx->reads[i].bytes == bytes &&
            ctx->reads[i].queue == queue)
            return;
    if (ctx->nreads == CLF_READS_MOST && clf_finish_all(ctx) != CL_SUCCESS)
        ctx->nreads = 0;            /* the queues failed: nothing lands */
    ctx->reads[ctx->nreads++] =
        (clf_read_pending){.host = host, .bytes = bytes, .queue = queue};
}

void clf_queue_done(clctx *ctx, cl_command_queue queue)
{
    size_t kept = 0;
    for (size_t i = 0; i < ctx->nreads; i++)
        if (queue && ctx->reads[i].queue != queue)
            ctx->reads[kept++] = ctx->reads[i];
    ctx->nreads = kept;
    pool_idle(ctx, queue);
}

/* Enqueues a copy of bytes one way (CLF_EV_WRITE, CLF_EV_READ) between
 * host and mem at offset, counting it and, when keep is set (profiling or
 * tracing), timing it into *timed for the caller to hand to the profile:
 * by the clock when blocking, with the wait for the queue before it,
 * else by its event (live). *timed is left zero when nothing was timed.
 * CL_SUCCESS or the driver's code. */
static cl_int enqueue_copy(clctx *ctx, cl_command_queue queue, int what,
                           cl_mem mem, size_t offset, size_t bytes, void *host,
                           cl_bool blocking, int keep,
                           clf_pending_event *timed)
{
    *timed = (clf_pending_event){0};
    if (bytes == 0)
        return CL_SUCCESS;
    /* Profiled by the clock when the host waits: NVIDIA's events of a
     * copy of pageable memory span more than the copy, which would make
     * large read-backs look slower than they are.
     * The queue is finished first, so the clock times the copy alone; an
     * enqueued copy has only its event. */
    cl_event ev = NULL;
    cl_event *evp = keep && !blocking ? &ev : NULL;
    double waited_from = 0, start = 0;
    if (keep && blocking) {
        waited_from = clf_now_ms();
        clFinish(queue);
        start = clf_now_ms();
    }
    cl_int err = before_copy(ctx, what, host, bytes);
    for (int tries = 0; err == CL_SUCCESS && tries < 2; tries++) {
        if (what == CLF_EV_WRITE)
            err = clEnqueueWriteBuffer(queue, mem, blocking, offset, bytes,
                                       host, 0, NULL, evp);
        else
            err = clEnqueueReadBuffer(queue, mem, blocking, offset, bytes,
                                      host, 0, NULL, evp);
        if (err == CL_SUCCESS || tries || !clf_pool_retry(ctx, err))
            break;
    }
    if (err != CL_SUCCESS)
        return err;
    after_copy(ctx, queue, what, host, bytes, blocking);
    count_copy(ctx, what, bytes);
    if (ev) {
        clf_track(ctx, 1);
        *timed = (clf_pending_event){.event = ev, .what = what,
                                     .bytes = bytes};
    } else if (keep) {
        *timed = (clf_pending_event){.by_clock = 1, .what = what,
                                     .bytes = bytes, .queue = queue,
                                     .start_ms = start,
                                     .end_ms = clf_now_ms(),
                                     .waited_from_ms = waited_from};
    }
    return CL_SUCCESS;
}

/* Whether enqueue_copy timed a copy. */
static int timed_one(const clf_pending_event *timed)
{
    return timed->event || timed->by_clock;
}

static const char *copy_api(int what)
{
    return what == CLF_EV_WRITE ? "clEnqueueWriteBuffer"
                                : "clEnqueueReadBuffer";
}

int clf_copy(clctx *ctx, cl_command_queue queue, int what, cl_mem mem,
             size_t offset, size_t bytes, void *host, cl_bool blocking,
             const char *desc)
{
    clf_pending_event timed;
    cl_int err = enqueue_copy(ctx, queue, what, mem, offset, bytes, host,
                              blocking, clf_keeps_events(ctx), &timed);
    if (err != CL_SUCCESS)
        return clf_fail_cl(err, copy_api(what), "copying %zu bytes for %s",
                           bytes, desc);
    if (timed_one(&timed))
        clf_keep_events(ctx, &timed, 1, 0);
    return 0;
}

/* Makes waiter's later commands wait, on the device, for every command
 * enqueued on done so far (a marker on the one, a barrier on the other):
 * CL_SUCCESS, or the driver's code with *api the call that failed. */
static cl_int order_queues(cl_command_queue waiter, cl_command_queue done,
                           const char **api)
{
    if (waiter == done)             /* in order already */
        return CL_SUCCESS;
    cl_event mark;
    *api = "clEnqueueMarkerWithWaitList";
    cl_int err = clEnqueueMarkerWithWaitList(done, 0, NULL, &mark);
    if (err != CL_SUCCESS)
        return err;
    *api = "clEnqueueBarrierWithWaitList";
    err = clEnqueueBarrierWithWaitList(waiter, 1, &mark, NULL);
    clReleaseEvent(mark);
    return err;
}

int clf_queue_after(clctx *ctx, cl_command_queue waiter, cl_command_queue done)
{
    const char *api = NULL;
    cl_int err = order_queues(waiter, done, &api);
    if (err != CL_SUCCESS)
        return clf_fail_cl(err, api, "ordering two queues of %s",
                           ctx->device_name);
    return 0;
}

/* Waits for every queue of ctx: its own, the copy queues, the streams;
 * then every read has landed and every pooled buffer is free. */
cl_int clf_finish_all(clctx *ctx)
{
    cl_int first = clFinish(ctx->queue);
    for (int i = 0; i < 2; i++)
        if (ctx->copy_queue[i]) {
            cl_int err = clFinish(ctx->copy_queue[i]);
            first = first != CL_SUCCESS ? first : err;
        }
    for (clstream *s = ctx->streams; s; s = s->next) {
        cl_int err = clFinish(s->queue);
        first = first != CL_SUCCESS ? first : err;
    }
    if (first == CL_SUCCESS)
        clf_queue_done(ctx, NULL);
    return first;
}

/* ---- a call carried out --------------------------------------------------- */

/* A call's failures and timed copies stay with the call while it runs:
 * the first failure is worded once, at its end, and its timed commands
 * (its copies, its wait) are handed to the profile then, with the call's
 * work finished and its buffers given back. */

/* Records call c's first failure: code (the driver's, with api the OpenCL
 * call that failed; or a CLFRAME_ERR_ code, api NULL) and what failed, in
 * printf's words. Returns code. */
static int fail(clf_call *c, int code, const char *api, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(clf_call *c, int code, const char *api, const char *fmt, ...)
{
    if (c->failed)
        return code;
    c->failed = code;
    c->failed_api = api;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->failed_what, CLF_CALL_FAILURE_BYTES, fmt, ap);
    va_end(ap);
    return code;
}

/* Keeps a timed command with the call, for the profile. */
static void keep_timed(clf_call *c, const clf_pending_event *timed)
{
    if (c->ntimed == c->timed_room) {
        size_t room = c->timed_room ? 2 * c->timed_room : 16;
        clf_pending_event *more = realloc(c->timed, room * sizeof *more);
        if (!more) {                    /* it goes untimed */
            if (timed->event) {
                clReleaseEvent(timed->event);
                clf_track(c->ctx, -1);
            }
            return;
        }
        c->timed = more;
        c->timed_room = room;
    }
    c->timed[c->ntimed++] = *timed;
}

/* Enqueues one of call c's copies (as enqueue_copy), its event kept with
 * the call; what names the bytes copied, in printf's words. 0 or the
 * failure. */
static int call_copy(clf_call *c, cl_command_queue queue, int what, cl_mem mem,
                     size_t offset, size_t bytes, void *host, cl_bool blocking,
                     const char *fmt, ...)
    __attribute__((format(printf, 9, 10)));
static int call_copy(clf_call *c, cl_command_queue queue, int what, cl_mem mem,
                     size_t offset, size_t bytes, void *host, cl_bool blocking,
                     const char *fmt, ...)
{
    clf_pending_event timed;
    cl_int err = enqueue_copy(c->ctx, queue, what, mem, offset, bytes, host,
                              blocking, c->keeps_events, &timed);
    if (err != CL_SUCCESS) {
        char desc[256];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(desc, sizeof desc, fmt, ap);
        va_end(ap);
        return fail(c, err, copy_api(what), "copying %zu bytes for %s", bytes,
                    desc);
    }
    if (timed_one(&timed))
        keep_timed(c, &timed);
    return 0;
}

/* Copies argument i's host array into image (CLF_EV_WRITE) or back
 * (CLF_EV_READ), d being its description. 0 or the failure. */
static int image_copy(clf_call *c, unsigned i, int what_way, cl_mem image,
                      const clf_image_desc *d, cl_bool blocking)
{
    clctx *ctx = c->ctx;
    const clarg *a = &c->args[i];
    size_t origin[3] = {0, 0, 0}, bytes = a->count * a->elem_size;
    cl_int err = before_copy(ctx, what_way, a->host, bytes);
    if (err == CL_SUCCESS)
        err = what_way == CLF_EV_WRITE
            ? clEnqueueWriteImage(c->queue, image, blocking, origin, d->size,
                                  0, 0, a->host, 0, NULL, NULL)
            : clEnqueueReadImage(c->queue, image, blocking, origin, d->size, 0,
                                 0, a->host, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return fail(c, err, what_way == CLF_EV_WRITE ? "clEnqueueWriteImage"
                                                     : "clEnqueueReadImage",
                    "argument %u of %s", i + 1, c->name);
    after_copy(ctx, c->queue, what_way, a->host, bytes, blocking);
    count_copy(ctx, what_way, bytes);
    return 0;
}

/* Argument i's image for call c: the existing one, or one made now (free
 * it with clf_release_mem), filled from the host array if its plan copies
 * it in. 0 or the failure. */
static int image_make(clf_call *c, unsigned i, cl_mem *out)
{
    clctx *ctx = c->ctx;
    const clf_image_desc *d = c->plan[i].image;
    if (d->existing) {
        *out = d->mem;
        return 0;
    }
    cl_image_desc desc = {
        .image_type = d->dims == 3 ? CL_MEM_OBJECT_IMAGE3D
                                   : CL_MEM_OBJECT_IMAGE2D,
        .image_width = d->size[0], .image_height = d->size[1],
        .image_depth = d->size[2]};
    cl_int err;
    *out = clCreateImage(ctx->context, CL_MEM_READ_WRITE, &d->format, &desc,
                         NULL, &err);
    if (err != CL_SUCCESS) {
        *out = NULL;
        return fail(c, err, "clCreateImage", "argument %u of %s: "
                    "%zux%zux%zu pixels on %s", i + 1, c->name, d->size[0],
                    d->size[1], d->size[2], ctx->device_name);
    }
    clf_track(ctx, 1);
    int rc = c->plan[i].how & CLF_COPY_IN
                 ? image_copy(c, i, CLF_EV_WRITE, *out, d, CL_FALSE)
                 : 0;
    if (rc) {
        clf_release_mem(ctx, *out);
        *out = NULL;
    }
    return rc;
}

/* How a call's buffer came (clf_arg_plan.made): made for it (an image, a
 * pinned array's buffer), the host array itself, which is never copied,
 * or taken from the pool. */
enum { BUF_MADE = 1, BUF_IN_PLACE = 2, BUF_POOLED = 4 };

/* The buffer or image argument i's plan says: 0 or the failure. */
static int take_buffer(clf_call *c, unsigned i)
{
    clctx *ctx = c->ctx;
    const clarg *a = &c->args[i];
    clf_arg_plan *p = &c->plan[i];
    cl_int err;
    switch (p->source) {
    case CLF_SRC_PERSISTENT_IN_PLACE:
        p->made = BUF_IN_PLACE;
        /* fall through */
    case CLF_SRC_PERSISTENT:
        p->mem = a->buffer->mem;
        return 0;
    case CLF_SRC_PINNED_OR_POOL:
        if ((p->mem = clf_host_in_place(ctx, a->host, p->bytes))) {
            p->made = BUF_MADE | BUF_IN_PLACE;
            return 0;
        }
        /* fall through */
    case CLF_SRC_POOL:
        p->mem = clf_pool_take(ctx, c->queue, p->bytes, &err);
        if (err != CL_SUCCESS)
            return fail(c, err, "clCreateBuffer", "%s(%s): argument %u, "
                        "%zu bytes", c->who, c->name, i + 1, p->bytes);
        p->made = BUF_POOLED;
        return 0;
    default: {                                  /* CLF_SRC_IMAGE */
        int rc = image_make(c, i, &p->mem);
        if (rc == 0 && a->host)         /* made for the call */
            p->made = BUF_MADE;
        return rc;
    }
    }
}

/* Binds argument i: its buffer or image, copied in whole without waiting
 * when its plan says so, or its value, set as the kernel's argument i. */
static int bind_arg(clf_call *c, unsigned i)
{
    const clarg *a = &c->args[i];
    clf_arg_plan *p = &c->plan[i];
    cl_int err;
    switch (p->source) {
    case CLF_SRC_VALUE:
        err = clSetKernelArg(c->kernel, i, a->elem_size,
                             a->host ? a->host : a->value);
        break;
    case CLF_SRC_LOCAL:
        err = clSetKernelArg(c->kernel, i, a->count, NULL);
        break;
    case CLF_SRC_MEM:
        err = clSetKernelArg(c->kernel, i, sizeof(cl_mem), a->value);
        break;
    case CLF_SRC_SAMPLER:
        err = clSetKernelArg(c->kernel, i, sizeof(cl_sampler), a->value);
        break;
    default: {
        int rc = take_buffer(c, i);
        /* Enqueued without waiting: the call waits once, at its end. */
        if (rc == 0 && p->source != CLF_SRC_IMAGE &&
            (p->how & (CLF_COPY_IN | CLF_SPLIT)) == CLF_COPY_IN &&
            !(p->made & BUF_IN_PLACE))
            rc = call_copy(c, c->queue, CLF_EV_WRITE, p->mem, 0, p->bytes,
                           a->host, CL_FALSE, "argument %u of %s", i + 1,
                           c->name);
        if (rc)
            return rc;
        err = clSetKernelArg(c->kernel, i, sizeof(cl_mem), &p->mem);
    }
    }
    if (err == CL_INVALID_ARG_SIZE)
        return fail(c, CLFRAME_ERR_ARG_TYPE, NULL, "%s(%s): argument %u "
                    "(%s): %zu bytes given, which is not the size the "
                    "kernel's parameter has on %s: host and device layouts "
                    "of %s differ", c->who, c->name, i + 1, c->params[i].name,
                    a->elem_size, c->ctx->device_name,
                    a->type ? a->type : "the type");
    if (err != CL_SUCCESS)
        return fail(c, err, "clSetKernelArg", "%s(%s): argument %u", c->who,
                    c->name, i + 1);
    return 0;
}

/* Whether argument i is copied back whole after the kernel. */
static int copied_back(const clf_call *c, unsigned i)
{
    const clf_arg_plan *p = &c->plan[i];
    if (p->source == CLF_SRC_IMAGE)
        return (p->how & CLF_COPY_BACK) != 0;
    return (p->how & (CLF_COPY_BACK | CLF_SPLIT)) == CLF_COPY_BACK &&
           !(p->made & BUF_IN_PLACE);
}

/* Enqueues the copies back of what is not split; for a blocking call the
 * last one waits, and *waited says that it did. */
static int copy_back(clf_call *c, int *waited)
{
    if (!(c->how & CLF_COPY_BACK))
        return 0;
    unsigned last = c->nargs;
    for (unsigned i = 0; i < c->nargs; i++)
        if (copied_back(c, i))
            last = i;
    for (unsigned i = 0; i < c->nargs; i++) {
        if (!copied_back(c, i))
            continue;
        const clf_arg_plan *p = &c->plan[i];
        cl_bool wait = c->blocking && !c->run_chunk && i == last;
        int rc = p->source == CLF_SRC_IMAGE
                     ? image_copy(c, i, CLF_EV_READ, p->mem, p->image, wait)
                     : call_copy(c, c->queue, CLF_EV_READ, p->mem, 0,
                                 p->bytes, c->args[i].host, wait,
                                 "argument %u of %s", i + 1, c->name);
        if (rc)
            return rc;
        *waited = wait && (p->source == CLF_SRC_IMAGE || p->bytes != 0);
    }
    return 0;
}

/* Copies [w0, w1)'s parts of the split arrays one way on queue. */
static int copy_chunk(clf_call *c, int what, size_t w0, size_t w1,
                      cl_command_queue queue)
{
    unsigned dir = what == CLF_EV_WRITE ? CLF_COPY_IN : CLF_COPY_BACK;
    size_t e0 = w0 < c->items ? w0 : c->items;
    size_t e1 = w1 < c->items ? w1 : c->items;
    for (unsigned i = 0; i < c->nargs; i++) {
        const clarg *a = &c->args[i];
        const clf_arg_plan *p = &c->plan[i];
        if (!(p->how & CLF_SPLIT) || !(p->how & dir) ||
            (p->made & BUF_IN_PLACE))
            continue;
        size_t per = a->count / c->items * a->elem_size;  /* bytes */
        int rc = call_copy(c, queue, what, p->mem, e0 * per, (e1 - e0) * per,
                           (char *)a->host + e0 * per, CL_FALSE,
                           "argument %u of %s, work-items %zu to %zu", i + 1,
                           c->name, w0, w1);
        if (rc)
            return rc;
    }
    return 0;
}

/* Orders two of call c's queues (order_queues). 0 or the failure. */
static int queue_after(clf_call *c, cl_command_queue waiter,
                       cl_command_queue done)
{
    const char *api = NULL;
    cl_int err = order_queues(waiter, done, &api);
    return err == CL_SUCCESS ? 0 : fail(c, err, api, "ordering two queues "
                                        "of %s for kernel %s",
                                        c->ctx->device_name, c->name);
}

/* Runs the chunks: chunk i's copies in on one queue, its kernel on the
 * context's after them, its copies out on a third after the kernel, so
 * that each queue moves on to the next chunk while the others work. */
static int run_chunks(clf_call *c)
{
    clctx *ctx = c->ctx;
    cl_command_queue in = ctx->copy_queue[0], out = ctx->copy_queue[1];
    size_t items = c->global[c->dims - 1];
    /* The buffers made and the whole arrays copied in come first. */
    int rc = queue_after(c, in, ctx->queue);
    for (size_t w0 = 0, w1; rc == 0 && w0 < items; w0 = w1) {
        w1 = items - w0 > c->run_chunk ? w0 + c->run_chunk : items;
        rc = copy_chunk(c, CLF_EV_WRITE, w0, w1, in);
        if (rc == 0)
            rc = queue_after(c, ctx->queue, in);
        if (rc == 0)
            rc = c->launch(c->launcher, ctx->queue, w0, w1);
        if (rc == 0)
            rc = queue_after(c, out, ctx->queue);
        if (rc == 0)
            rc = copy_chunk(c, CLF_EV_READ, w0, w1, out);
    }
    return rc;
}

/* Finishes every queue call c used: CL_SUCCESS or the first failure. */
static cl_int finish_queues(const clf_call *c)
{
    cl_int err = clFinish(c->queue);
    for (int q = 0; c->run_chunk && q < 2; q++)
        if (err == CL_SUCCESS)
            err = clFinish(c->ctx->copy_queue[q]);
        else
            clFinish(c->ctx->copy_queue[q]);
    return err;
}

/* finish_queues, the wait timed and kept with the call, named as the
 * call ("clkernel_call(vadd)"). */
static cl_int finish_queues_timed(clf_call *c)
{
    double start = clf_now_ms();
    cl_int err = finish_queues(c);
    snprintf(c->waited_for, CLF_CALL_FAILURE_BYTES, "%s(%s)", c->who,
             c->name);
    clf_pending_event wait = {.by_clock = 1, .what = CLF_EV_WAIT,
                              .start_ms = start, .end_ms = clf_now_ms(),
                              .label = c->waited_for};
    keep_timed(c, &wait);
    return err;
}

/* Waits for every queue the call used: on success if blocking (or
 * debugging) and not waited for already, and always after a failure of a
 * blocking call, so that no copy lands after it returns. *waited is then
 * set. */
static int wait_for(clf_call *c, int rc, int *waited)
{
    clctx *ctx = c->ctx;
    if ((rc == 0 && !c->blocking && !ctx->debug) || (rc && !c->blocking) ||
        (rc == 0 && *waited))
        return rc;
    cl_int err = c->keeps_events ? finish_queues_timed(c) : finish_queues(c);
    if (rc == 0 && err != CL_SUCCESS)
        rc = fail(c, err, "clFinish", "running kernel %s on %s", c->name,
                  ctx->device_name);
    *waited = err == CL_SUCCESS;
    return rc;
}

/* Gives the call's buffers back: to the pool, for later work on its
 * queue; what it made, released. */
static void give_back(clf_call *c)
{
    for (unsigned i = 0; i < c->nargs; i++) {
        const clf_arg_plan *p = &c->plan[i];
        if (p->made & BUF_POOLED)
            clf_pool_give(c->ctx, c->queue, p->mem, p->bytes);
        else if (p->made & BUF_MADE)
            clf_release_mem(c->ctx, p->mem);
    }
}

/* The call's memory work, from binding its arguments to giving their
 * buffers back; *waited says whether every queue it used has finished. */
static int carry_out(clf_call *c, int *waited)
{
    int rc = 0;
    for (unsigned i = 0; i < c->nargs && rc == 0; i++)
        rc = bind_arg(c, i);
    if (rc == 0)
        rc = c->run_chunk ? run_chunks(c)
                          : c->launch(c->launcher, c->queue, 0,
                                      c->global[c->dims - 1]);
    if (rc == 0)
        rc = copy_back(c, waited);
    rc = wait_for(c, rc, waited);
    give_back(c);
    if (*waited) {
        clf_queue_done(c->ctx, c->queue);
        for (int q = 0; c->run_chunk && q < 2; q++)
            clf_queue_done(c->ctx, c->ctx->copy_queue[q]);
    }
    return rc;
}

int clf_call_run(clf_call *c)
{
    char failed_what[CLF_CALL_FAILURE_BYTES], waited_for[CLF_CALL_FAILURE_BYTES];
    c->failed = 0;
    c->failed_what = failed_what;
    c->waited_for = waited_for;
    int waited = 0;
    int rc = carry_out(c, &waited);
    /* A blocking call's work has finished: its events are read now, and
     * its commands written to the trace, if one is open. */
    clf_keep_events(c->ctx, c->timed, c->ntimed,
                    rc == 0 && c->blocking && waited);
    free(c->timed);
    c->timed = NULL;
    c->ntimed = c->timed_room = 0;
    if (!c->failed)             /* none, or worded where it happened */
        return rc;
    return c->failed_api
               ? clf_fail_cl(c->failed, c->failed_api, "%s", failed_what)
               : clframe_fail(c->failed, "%s", failed_what);
}
