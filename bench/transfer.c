/*
 * transfer.c: how fast bytes move between host and device, by each path a
 * user has, beside clframe's, whose goal is to move data at the bus's
 * speed.
 *
 * For each direction and size (4 KiB to 1 GiB) one copy of the whole array
 * is timed by wall clock, by: plain clEnqueueWrite/ReadBuffer of touched
 * malloc'd memory, blocking, and non-blocking + clFinish (how clframe's
 * calls copy); a read into fresh memory, whose first-touch page faults then
 * fall inside the copy (a possible cause of a slow read-back on a GPU);
 * plain copies from and to pinned memory (a CL_MEM_ALLOC_HOST_PTR buffer
 * mapped once, NVIDIA's documented way);
 * clpeak's transfer test as clpeak times it; a copy staged through two
 * pinned buffers in pipelined chunks, the host's memcpy of one chunk
 * overlapping the DMA of the next (does that beat the driver's own
 * pageable path?); and clframe's clarg_write and
 * clarg_read of a persistent argument over the malloc'd array and over one
 * from clframe_host_alloc, which a device sharing the host's memory uses in
 * place (clctx_get_stats then counts no bytes, and this checks it). The
 * goals: clframe pinned >= 90 % of the best plain path, clframe pageable >=
 * plain pageable.
 *
 * Every run fills its source with a pattern of its own and checks the
 * destination afterwards, so a copy that went wrong or did not happen
 * fails (exit 1) instead of giving a fast figure. Each path runs once to
 * warm up, then the paths take turns run by run, so drift falls on all of
 * them alike; the medians are printed.
 *
 * usage: bench-transfer [runs] [max-size]   (default 5 16M; the GPU
 * machine: 5 1G)
 */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE             /* MAP_ANONYMOUS */
#endif
#include "bench.h"
#include "clframe.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static const char *const USAGE =
    "usage: bench-transfer [runs] [max-size]\n"
    "  runs      timed runs of each copy, 1 to %d (default %d); the median "
    "is printed\n"
    "  max-size  the largest array, 4K to 1G (K, M, G: powers of 1024; "
    "default %s)\n"
    "Sizes are 4K, 64K, 1M, 16M, 256M and 1G, as far as max-size and the "
    "device's\nCL_DEVICE_MAX_MEM_ALLOC_SIZE allow. Host memory used: about "
    "6 times the largest\n(11 on a CPU device, whose buffers are host memory "
    "too). On the GPU machine, all\nof them:\n"
    "  CLFRAME_DEVICE=gpu bin/bench-transfer 5 1G\n";

enum { DEFAULT_RUNS = 5, MAX_RUNS = 100, NSIZES = 6, SMALL = 64 << 10 };
/* Quick on a small CPU device; the larger sizes are asked for by max-size
 * (the GPU machine's command above). */
static const char *const DEFAULT_MAX = "16M";
static const size_t SIZES[NSIZES] = {4u << 10, 64u << 10, 1u << 20,
                                     16u << 20, 256u << 20, 1u << 30};

/* clpeak calls a map or unmap a zero copy when it runs this many times
 * faster than the best real copy: nothing moved, the host was handed the
 * device's bytes. */
static const double ZERO_COPY = 3.0;

typedef enum direction { TO_DEVICE, FROM_DEVICE, DIRECTIONS } direction;
static const char *const DIRECTION_NAME[DIRECTIONS] = {"host to device",
                                                       "device to host"};

/* The paths, in the order they take turns (PATH below). */
enum { PAGEABLE, FRESH, NONBLOCKING, PINNED, PEAK_BUFFER, PEAK_MAP,
       PEAK_MEMCPY, STAGED, CLF_PAGEABLE, CLF_PINNED, PATHS };

/* The staged path's chunk: each of its two pinned buffers holds one. */
enum { STAGE = 8 << 20 };

/* The device, and one size's arrays and buffers. */
typedef struct bench {
    clctx *ctx;
    cl_context context;
    cl_command_queue queue;
    int in_place;                /* clctx_pinned_in_place */
    size_t bytes, n;             /* n 32-bit words */
    uint32_t *host;              /* malloc'd and touched: pageable */
    uint32_t *check;             /* where a check reads the device's bytes */
    cl_mem dev[PATHS];           /* plain paths' device buffers (below) */
    cl_mem pinned_mem;           /* CL_MEM_ALLOC_HOST_PTR, mapped once */
    uint32_t *pinned;            /* its mapping: pinned host memory */
    cl_mem peak;                 /* clpeak's CL_MEM_ALLOC_HOST_PTR buffer */
    cl_mem stage_mem[2];         /* the staged path's pinned buffers, */
    char *stage[2];              /* mapped once */
    clarg pageable_arg;          /* persistent, over host */
    uint32_t *clframe_pinned;    /* from clframe_host_alloc */
    clarg pinned_arg;            /* persistent, over clframe_pinned */
    uint64_t clframe_bytes[2];   /* clframe pageable, pinned: bytes counted */
    char label[120];             /* the run in progress, for messages */
} bench;

/* ---- patterns and checks ------------------------------------------------- */

/* A pattern that differs in every word from any other seed's at the same
 * word, so that bytes left from an earlier run never pass a check. */
static void fill(uint32_t *p, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = seed + (uint32_t)i * 2654435761u;
}

static int expect(const bench *b, const uint32_t *p, uint32_t seed)
{
    for (size_t i = 0; i < b->n; i++)
        if (p[i] != seed + (uint32_t)i * 2654435761u) {
            fprintf(stderr, "bench-transfer: %s: word %zu of %zu is 0x%08x, "
                    "expected 0x%08x: the copy is wrong\n", b->label, i, b->n,
                    (unsigned)p[i],
                    (unsigned)(seed + (uint32_t)i * 2654435761u));
            return -1;
        }
    return 0;
}

/* A new seed for every run of every path. */
static uint32_t next_seed(void)
{
    static uint32_t runs;
    return ++runs * 0x9E3779B9u;
}

static int cl_fail(const bench *b, cl_int err, const char *call)
{
    if (err == CL_SUCCESS)
        return 0;
    fprintf(stderr, "bench-transfer: %s: %s failed: %s\n", b->label, call,
            clframe_error_name(err));
    return -1;
}

/* Puts this seed's pattern into mem by a plain blocking write, untimed. */
static int put_on_device(bench *b, cl_mem mem, uint32_t seed)
{
    fill(b->check, b->n, seed);
    return cl_fail(b, clEnqueueWriteBuffer(b->queue, mem, CL_TRUE, 0,
                                           b->bytes, b->check, 0, NULL, NULL),
                   "clEnqueueWriteBuffer (preparing a read)");
}

/* Checks mem's bytes by a plain blocking read, untimed. */
static int expect_on_device(bench *b, cl_mem mem, uint32_t seed)
{
    cl_int err = clEnqueueReadBuffer(b->queue, mem, CL_TRUE, 0, b->bytes,
                                     b->check, 0, NULL, NULL);
    if (cl_fail(b, err, "clEnqueueReadBuffer (checking a write)"))
        return -1;
    return expect(b, b->check, seed);
}

/* Before a timed copy between host array p and buffer mem: the source
 * holds this run's pattern, the destination another. p is spoiled first:
 * where mem is p itself (pinned memory used in place), the device's
 * pattern must be what stays. */
static int prepare(bench *b, cl_mem mem, uint32_t *p, direction d,
                   uint32_t seed)
{
    fill(p, b->n, d == TO_DEVICE ? seed : ~seed);
    return d == FROM_DEVICE ? put_on_device(b, mem, seed) : 0;
}

/* After it: the destination holds the pattern. */
static int verify(bench *b, cl_mem mem, const uint32_t *p, direction d,
                  uint32_t seed)
{
    return d == TO_DEVICE ? expect_on_device(b, mem, seed)
                          : expect(b, p, seed);
}

/* ---- the paths: one run each, timed into *seconds ------------------------ */

/* One run of a path in direction d: prepares (untimed), times the copy,
 * checks it; 0, or -1 after a message. */
typedef int run_fn(bench *b, direction d, uint32_t seed, double *seconds);

/* A plain clEnqueueWriteBuffer or clEnqueueReadBuffer, and clFinish when it
 * does not block. */
static int timed_copy(bench *b, cl_mem mem, uint32_t *p, direction d,
                      cl_bool blocking, uint32_t seed, double *seconds)
{
    if (prepare(b, mem, p, d, seed))
        return -1;
    double t0 = bench_seconds();
    cl_int err = d == TO_DEVICE
        ? clEnqueueWriteBuffer(b->queue, mem, blocking, 0, b->bytes, p, 0,
                               NULL, NULL)
        : clEnqueueReadBuffer(b->queue, mem, blocking, 0, b->bytes, p, 0,
                              NULL, NULL);
    if (err == CL_SUCCESS && !blocking)
        err = clFinish(b->queue);
    *seconds = bench_seconds() - t0;
    if (cl_fail(b, err, d == TO_DEVICE ? "clEnqueueWriteBuffer"
                                       : "clEnqueueReadBuffer"))
        return -1;
    return verify(b, mem, p, d, seed);
}

static int plain_pageable(bench *b, direction d, uint32_t seed, double *s)
{
    return timed_copy(b, b->dev[PAGEABLE], b->host, d, CL_TRUE, seed, s);
}

static int plain_nonblocking(bench *b, direction d, uint32_t seed, double *s)
{
    return timed_copy(b, b->dev[NONBLOCKING], b->host, d, CL_FALSE, seed, s);
}

static int plain_pinned(bench *b, direction d, uint32_t seed, double *s)
{
    return timed_copy(b, b->dev[PINNED], b->pinned, d, CL_TRUE, seed, s);
}

/* clpeak's enqueueWriteBuffer and enqueueReadBuffer: touched (aligned)
 * host memory, blocking, but to and from its CL_MEM_ALLOC_HOST_PTR buffer,
 * not a plain one. */
static int clpeak_buffer(bench *b, direction d, uint32_t seed, double *s)
{
    return timed_copy(b, b->peak, b->host, d, CL_TRUE, seed, s);
}

/* A read into memory never touched: a mapping of its own per run, which is
 * what malloc returns for a large array; malloc itself could hand back
 * pages an earlier run freed (glibc raises its mapping threshold as large
 * blocks are freed), which would hide the page faults this times. */
static int plain_fresh(bench *b, direction d, uint32_t seed, double *s)
{
    (void)d;                                /* FROM_DEVICE only */
    if (put_on_device(b, b->dev[FRESH], seed))
        return -1;
    uint32_t *p = mmap(NULL, b->bytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "bench-transfer: %s: no memory for a fresh array\n",
                b->label);
        return -1;
    }
    double t0 = bench_seconds();
    cl_int err = clEnqueueReadBuffer(b->queue, b->dev[FRESH], CL_TRUE, 0,
                                     b->bytes, p, 0, NULL, NULL);
    *s = bench_seconds() - t0;
    int rc = cl_fail(b, err, "clEnqueueReadBuffer");
    if (rc == 0)
        rc = expect(b, p, seed);
    munmap(p, b->bytes);
    return rc;
}

/* Chunk j of the array: its offset and length, at most STAGE bytes. */
static size_t chunk_at(const bench *b, size_t j, size_t *n)
{
    size_t at = j * (size_t)STAGE;
    *n = b->bytes - at < STAGE ? b->bytes - at : STAGE;
    return at;
}

/* Waits for and releases *ev, if any. */
static cl_int settle(cl_event *ev)
{
    cl_int err = CL_SUCCESS;
    if (*ev) {
        err = clWaitForEvents(1, ev);
        clReleaseEvent(*ev);
        *ev = NULL;
    }
    return err;
}

/* The pageable array through the two pinned buffers, chunk j in buffer
 * j % 2: to the device, the host copies chunk j in while chunk j - 1's
 * DMA runs (waiting for chunk j - 2's to free the buffer); back, chunk j's
 * DMA runs while the host copies chunk j - 1 out. */
static int staged(bench *b, direction d, uint32_t seed, double *s)
{
    cl_mem mem = b->dev[STAGED];
    if (prepare(b, mem, b->host, d, seed))
        return -1;
    char *host = (char *)b->host;
    size_t chunks = (b->bytes + STAGE - 1) / STAGE, n;
    cl_event ev[2] = {NULL, NULL};
    cl_int err = CL_SUCCESS;
    double t0 = bench_seconds();
    for (size_t j = 0; j <= chunks && err == CL_SUCCESS; j++) {
        int k = (int)(j % 2);
        if (d == TO_DEVICE && j < chunks) {
            size_t at = chunk_at(b, j, &n);
            err = settle(&ev[k]);
            memcpy(b->stage[k], host + at, n);
            if (err == CL_SUCCESS)
                err = clEnqueueWriteBuffer(b->queue, mem, CL_FALSE, at, n,
                                           b->stage[k], 0, NULL, &ev[k]);
        } else if (d == FROM_DEVICE) {
            if (j < chunks) {
                size_t at = chunk_at(b, j, &n);
                err = clEnqueueReadBuffer(b->queue, mem, CL_FALSE, at, n,
                                          b->stage[k], 0, NULL, &ev[k]);
            }
            if (j > 0 && err == CL_SUCCESS) {
                size_t at = chunk_at(b, j - 1, &n);
                err = settle(&ev[1 - k]);
                memcpy(host + at, b->stage[1 - k], n);
            }
        }
        clFlush(b->queue);
    }
    if (err == CL_SUCCESS)
        err = clFinish(b->queue);
    *s = bench_seconds() - t0;
    settle(&ev[0]);
    settle(&ev[1]);
    if (cl_fail(b, err, "a staged copy"))
        return -1;
    return verify(b, mem, b->host, d, seed);
}

/* clpeak's buffer mapped whole and blocking, for flags; NULL after a
 * message. */
static uint32_t *map_peak(bench *b, cl_map_flags flags)
{
    cl_int err;
    void *p = clEnqueueMapBuffer(b->queue, b->peak, CL_TRUE, flags, 0,
                                 b->bytes, 0, NULL, NULL, &err);
    if (err == CL_SUCCESS)
        err = clFinish(b->queue);
    return cl_fail(b, err, "clEnqueueMapBuffer") ? NULL : p;
}

static int unmap_peak(bench *b, uint32_t *p)
{
    cl_int err = clEnqueueUnmapMemObject(b->queue, b->peak, p, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clFinish(b->queue);
    return cl_fail(b, err, "clEnqueueUnmapMemObject");
}

/* clpeak's "enqueueunmap" (to the device: the unmap + finish of a mapping
 * made for writing, timed) and "enqueuemapbuffer" (from it: a blocking map
 * for reading + finish, timed). */
static int clpeak_map(bench *b, direction d, uint32_t seed, double *s)
{
    if (d == TO_DEVICE) {
        uint32_t *p = map_peak(b, CL_MAP_WRITE);
        if (!p)
            return -1;
        fill(p, b->n, seed);
        double t0 = bench_seconds();
        int rc = unmap_peak(b, p);
        *s = bench_seconds() - t0;
        return rc ? rc : expect_on_device(b, b->peak, seed);
    }
    if (put_on_device(b, b->peak, seed))
        return -1;
    double t0 = bench_seconds();
    uint32_t *p = map_peak(b, CL_MAP_READ);
    *s = bench_seconds() - t0;
    if (!p)
        return -1;
    int rc = expect(b, p, seed);
    return unmap_peak(b, p) ? -1 : rc;
}

/* clpeak's "memcpy_to_mapped_ptr" and "memcpy_from_mapped_ptr": the host's
 * memcpy alone, into a mapping made for writing or out of one made for
 * reading; the map and unmap are not timed. */
static int clpeak_memcpy(bench *b, direction d, uint32_t seed, double *s)
{
    if (prepare(b, b->peak, b->host, d, seed))
        return -1;
    uint32_t *p = map_peak(b, d == TO_DEVICE ? CL_MAP_WRITE : CL_MAP_READ);
    if (!p)
        return -1;
    double t0 = bench_seconds();
    if (d == TO_DEVICE)
        memcpy(p, b->host, b->bytes);
    else
        memcpy(b->host, p, b->bytes);
    *s = bench_seconds() - t0;
    if (unmap_peak(b, p))
        return -1;
    return verify(b, b->peak, b->host, d, seed);
}

/* clarg_write or clarg_read of a persistent argument, with the bytes
 * clctx_get_stats counted for it, which must be `expected`. */
static int clframe_copy(bench *b, clarg *a, direction d, uint64_t expected,
                        uint64_t *counted, uint32_t seed, double *seconds)
{
    cl_mem mem = clarg_mem(a);
    if (prepare(b, mem, a->host, d, seed))
        return -1;
    clctx_stats before = clctx_get_stats(b->ctx);
    double t0 = bench_seconds();
    int rc = d == TO_DEVICE ? clarg_write(a) : clarg_read(a);
    *seconds = bench_seconds() - t0;
    clctx_stats after = clctx_get_stats(b->ctx);
    if (rc) {
        fprintf(stderr, "bench-transfer: %s: %s\n", b->label,
                clframe_last_error());
        return -1;
    }
    uint64_t moved = d == TO_DEVICE
        ? after.bytes_to_device - before.bytes_to_device
        : after.bytes_from_device - before.bytes_from_device;
    if (moved != expected) {
        fprintf(stderr, "bench-transfer: %s: clctx_get_stats counted %" PRIu64
                " bytes, expected %" PRIu64 "\n", b->label, moved, expected);
        return -1;
    }
    *counted += moved;
    return verify(b, mem, a->host, d, seed);
}

static int clframe_pageable(bench *b, direction d, uint32_t seed, double *s)
{
    return clframe_copy(b, &b->pageable_arg, d, b->bytes, &b->clframe_bytes[0],
                        seed, s);
}

/* In place, nothing may be copied; the check still reads the argument's
 * buffer by a plain copy, which is then the host array itself. */
static int clframe_pinned(bench *b, direction d, uint32_t seed, double *s)
{
    return clframe_copy(b, &b->pinned_arg, d, b->in_place ? 0 : b->bytes,
                        &b->clframe_bytes[1], seed, s);
}

typedef enum path_kind {
    PLAIN,          /* a plain OpenCL copy: a candidate for "best plain" */
    MAP,            /* clpeak's map or unmap: a candidate unless zero copy */
    OTHER,          /* the fresh read, clpeak's memcpy: for comparison */
    CLFRAME
} path_kind;

typedef struct path {
    const char *name[DIRECTIONS];   /* NULL: not run that way */
    path_kind kind;
    run_fn *run;
} path;

static const path PATH[PATHS] = {
    [PAGEABLE] = {{"plain pageable", "plain pageable"}, PLAIN,
                  plain_pageable},
    [FRESH] = {{NULL, "pageable, fresh"}, OTHER, plain_fresh},
    [NONBLOCKING] = {{"non-blocking + clFinish", "non-blocking + clFinish"},
                     PLAIN, plain_nonblocking},
    [PINNED] = {{"plain pinned", "plain pinned"}, PLAIN, plain_pinned},
    [PEAK_BUFFER] = {{"clpeak write buffer", "clpeak read buffer"}, PLAIN,
                     clpeak_buffer},
    [PEAK_MAP] = {{"clpeak unmap after write", "clpeak map for read"}, MAP,
                  clpeak_map},
    [PEAK_MEMCPY] = {{"clpeak memcpy to mapped", "clpeak memcpy from mapped"},
                     OTHER, clpeak_memcpy},
    [STAGED] = {{"staged via pinned", "staged via pinned"}, OTHER, staged},
    [CLF_PAGEABLE] = {{"clframe pageable", "clframe pageable"}, CLFRAME,
                      clframe_pageable},
    [CLF_PINNED] = {{"clframe pinned", "clframe pinned"}, CLFRAME,
                    clframe_pinned},
};

/* ---- one size ------------------------------------------------------------ */

static void size_text(size_t bytes, char *text, size_t size)
{
    if (bytes >= 1u << 30)
        snprintf(text, size, "%zu GiB", bytes >> 30);
    else if (bytes >= 1u << 20)
        snprintf(text, size, "%zu MiB", bytes >> 20);
    else
        snprintf(text, size, "%zu KiB", bytes >> 10);
}

static void close_size(bench *b)
{
    clarg_release(&b->pinned_arg);          /* before the memory it is over */
    if (clframe_host_free(b->clframe_pinned))
        fprintf(stderr, "bench-transfer: %s\n", clframe_last_error());
    clarg_release(&b->pageable_arg);
    if (b->pinned)
        clEnqueueUnmapMemObject(b->queue, b->pinned_mem, b->pinned, 0, NULL,
                                NULL);
    for (int k = 0; k < 2; k++)
        if (b->stage[k])
            clEnqueueUnmapMemObject(b->queue, b->stage_mem[k], b->stage[k], 0,
                                    NULL, NULL);
    clFinish(b->queue);
    cl_mem mems[PATHS + 4] = {b->pinned_mem, b->peak, b->stage_mem[0],
                              b->stage_mem[1]};
    memcpy(mems + 4, b->dev, sizeof b->dev);
    for (int i = 0; i < PATHS + 4; i++)
        if (mems[i])
            clReleaseMemObject(mems[i]);
    free(b->host);
    free(b->check);
    b->clframe_pinned = b->pinned = b->host = b->check = NULL;
    b->pinned_mem = b->peak = b->stage_mem[0] = b->stage_mem[1] = NULL;
    b->stage[0] = b->stage[1] = NULL;
    memset(b->dev, 0, sizeof b->dev);
}

static cl_mem new_buffer(bench *b, cl_mem_flags flags, cl_int *err)
{
    return clCreateBuffer(b->context, CL_MEM_READ_WRITE | flags, b->bytes,
                          NULL, err);
}

/* Everything the paths use at this size; pageable arrays are written once
 * here, so that no timed copy meets a page never touched. Each plain path
 * has a device buffer of its own, as each clframe path has: on a CPU
 * device buffers are host memory, and one that another path had just
 * used would still be in the caches, which would make a plain path that
 * shares its buffer with the others look faster than clframe's. */
static int open_size(bench *b, size_t bytes)
{
    b->bytes = bytes;
    b->n = bytes / sizeof *b->host;
    snprintf(b->label, sizeof b->label, "preparing %zu bytes", bytes);
    b->host = malloc(bytes);
    b->check = malloc(bytes);
    if (!b->host || !b->check) {
        fprintf(stderr, "bench-transfer: no host memory for %zu bytes\n",
                bytes);
        return -1;
    }
    fill(b->host, b->n, 0);
    fill(b->check, b->n, 0);
    cl_int err = CL_SUCCESS;
    const int own[] = {PAGEABLE, FRESH, NONBLOCKING, PINNED, STAGED};
    for (size_t i = 0; i < sizeof own / sizeof *own && err == CL_SUCCESS; i++)
        b->dev[own[i]] = new_buffer(b, 0, &err);
    if (err == CL_SUCCESS)
        b->peak = new_buffer(b, CL_MEM_ALLOC_HOST_PTR, &err);
    if (err == CL_SUCCESS)
        b->pinned_mem = new_buffer(b, CL_MEM_ALLOC_HOST_PTR, &err);
    if (err == CL_SUCCESS)
        b->pinned = clEnqueueMapBuffer(b->queue, b->pinned_mem, CL_TRUE,
                                       CL_MAP_READ | CL_MAP_WRITE, 0, bytes,
                                       0, NULL, NULL, &err);
    size_t stage = bytes < STAGE ? bytes : STAGE;
    for (int k = 0; k < 2 && err == CL_SUCCESS; k++) {
        b->stage_mem[k] = clCreateBuffer(b->context, CL_MEM_READ_WRITE |
                                         CL_MEM_ALLOC_HOST_PTR, stage, NULL,
                                         &err);
        if (err == CL_SUCCESS)
            b->stage[k] = clEnqueueMapBuffer(b->queue, b->stage_mem[k],
                                             CL_TRUE, CL_MAP_READ |
                                             CL_MAP_WRITE, 0, stage, 0, NULL,
                                             NULL, &err);
    }
    if (cl_fail(b, err, "clCreateBuffer or clEnqueueMapBuffer"))
        return -1;
    b->clframe_pinned = clframe_host_alloc(b->ctx, bytes);
    int rc = b->clframe_pinned ? 0 : -1;
    if (rc == 0) {
        b->pageable_arg = CLARG_INOUT(b->host, b->n);
        b->pinned_arg = CLARG_INOUT(b->clframe_pinned, b->n);
        rc = clarg_persist(&b->pageable_arg, b->ctx) ||
             clarg_persist(&b->pinned_arg, b->ctx);
    }
    if (rc)
        fprintf(stderr, "bench-transfer: %s: %s\n", b->label,
                clframe_last_error());
    return rc ? -1 : 0;
}

/* The median seconds of each path in each direction at this size (0 where
 * a path does not run that way). */
static int measure_size(bench *b, int runs, double med[DIRECTIONS][PATHS])
{
    static double t[PATHS][MAX_RUNS];
    char size[32];
    size_text(b->bytes, size, sizeof size);
    for (int d = 0; d < DIRECTIONS; d++) {
        for (int r = -1; r < runs; r++)         /* -1: the warm-up */
            for (int p = 0; p < PATHS; p++) {
                if (!PATH[p].name[d])
                    continue;
                snprintf(b->label, sizeof b->label, "%s, %s, %s",
                         PATH[p].name[d], DIRECTION_NAME[d], size);
                double s;
                if (PATH[p].run(b, (direction)d, next_seed(), &s))
                    return -1;
                if (r >= 0)
                    t[p][r] = s;
            }
        for (int p = 0; p < PATHS; p++)
            med[d][p] = PATH[p].name[d] ? median_of(t[p], runs) : 0;
    }
    return 0;
}

/* ---- the tables ---------------------------------------------------------- */

static double gbps(size_t bytes, double seconds)
{
    return (double)bytes / seconds / 1e9;
}

/* The fastest plain copy (clEnqueueWrite/ReadBuffer), by index, from
 * median seconds. */
static int fastest_copy(const double med[PATHS])
{
    int best = -1;
    for (int p = 0; p < PATHS; p++)
        if (PATH[p].kind == PLAIN && (best < 0 || med[p] < med[best]))
            best = p;
    return best;
}

/* Path p is clpeak's map or unmap and moved nothing. */
static int zero_copy(const double med[PATHS], int p)
{
    return PATH[p].kind == MAP && med[p] * ZERO_COPY < med[fastest_copy(med)];
}

/* The fastest plain path: a copy, or a map or unmap that moved the bytes. */
static int best_plain(const double med[PATHS])
{
    int best = fastest_copy(med);
    for (int p = 0; p < PATHS; p++)
        if (PATH[p].kind == MAP && !zero_copy(med, p) && med[p] < med[best])
            best = p;
    return best;
}

static void print_cell(const bench *b, size_t bytes, const double med[PATHS],
                       int p)
{
    if (p == CLF_PINNED && b->in_place)
        printf(" in place |");
    else if (zero_copy(med, p))
        printf(" zero copy |");
    else if (bytes <= SMALL)
        printf(" %.2f (%.1f us) |", gbps(bytes, med[p]), med[p] * 1e6);
    else
        printf(" %.2f |", gbps(bytes, med[p]));
}

static void print_table(const bench *b, direction d, int nsizes,
                        double med[][DIRECTIONS][PATHS])
{
    printf("\n%s, GB/s (latency for %d KiB and less):\n\n| size |",
           DIRECTION_NAME[d], SMALL >> 10);
    int columns = 3;
    for (int p = 0; p < PATHS; p++)
        if (PATH[p].name[d]) {
            printf(" %s |", PATH[p].name[d]);
            columns++;
        }
    printf(" clframe pinned / best plain | clframe pageable / plain |\n|---|");
    for (int c = 1; c < columns; c++)
        printf("---:|");
    printf("\n");
    for (int s = 0; s < nsizes; s++) {
        const double *m = med[s][d];
        char size[32];
        size_text(SIZES[s], size, sizeof size);
        printf("| %s |", size);
        for (int p = 0; p < PATHS; p++)
            if (PATH[p].name[d])
                print_cell(b, SIZES[s], m, p);
        int best = best_plain(m);
        if (b->in_place)
            printf(" in place |");
        else
            printf(" %.0f%% (%s) |", 100 * m[best] / m[CLF_PINNED],
                   PATH[best].name[d]);
        printf(" %.0f%% |\n", 100 * m[PAGEABLE] / m[CLF_PAGEABLE]);
    }
}

/* ---- the command --------------------------------------------------------- */

/* 1 if text is a size in bytes from 4K to 1G, a whole number with K, M or
 * G after it or none, stored in *bytes. */
static int parse_bytes(const char *text, size_t *bytes)
{
    char digits[24];
    size_t len = strlen(text);
    unsigned shift = 0;
    if (len > 0) {
        switch (toupper((unsigned char)text[len - 1])) {
        case 'K': shift = 10; break;
        case 'M': shift = 20; break;
        case 'G': shift = 30; break;
        }
    }
    len -= shift ? 1 : 0;
    if (len == 0 || len >= sizeof digits)
        return 0;
    memcpy(digits, text, len);
    digits[len] = '\0';
    long v = bench_count(digits, (long)(SIZES[NSIZES - 1] >> shift));
    if (v < 0)
        return 0;
    *bytes = (size_t)v << shift;
    return *bytes >= SIZES[0];
}

static int usage(void)
{
    fprintf(stderr, USAGE, MAX_RUNS, DEFAULT_RUNS, DEFAULT_MAX);
    return 2;
}

static cl_ulong max_alloc(clctx *ctx)
{
    cl_ulong bytes = 0;
    clGetDeviceInfo(clctx_device(ctx), CL_DEVICE_MAX_MEM_ALLOC_SIZE,
                    sizeof bytes, &bytes, NULL);
    return bytes;
}

/* Measures every size up to max_bytes that the device allows, then prints
 * the tables and what was skipped; 0 or -1 after a message. */
static int run_all(bench *b, int runs, size_t max_bytes)
{
    static double med[NSIZES][DIRECTIONS][PATHS];
    cl_ulong device_max = max_alloc(b->ctx);
    int measured = 0;
    while (measured < NSIZES && SIZES[measured] <= max_bytes &&
           SIZES[measured] <= device_max) {
        int rc = open_size(b, SIZES[measured]);
        if (rc == 0)
            rc = measure_size(b, runs, med[measured]);
        close_size(b);
        if (rc)
            return -1;
        measured++;
    }
    printf("bench-transfer: %s\n%d runs of each copy, medians; GB/s is 1e9 "
           "bytes/s\n", clctx_describe(b->ctx), runs);
    for (int d = 0; d < DIRECTIONS; d++)
        print_table(b, d, measured, med);
    printf("\n");
    for (int s = measured; s < NSIZES; s++) {
        char size[32], limit[32];
        size_text(SIZES[s], size, sizeof size);
        size_text(max_bytes, limit, sizeof limit);
        if (SIZES[s] > max_bytes)
            printf("%s: skipped, above the maximum asked for (%s)\n", size,
                   limit);
        else
            printf("%s: skipped, above the device's "
                   "CL_DEVICE_MAX_MEM_ALLOC_SIZE (%" PRIu64 " bytes)\n", size,
                   (uint64_t)device_max);
    }
    printf("clctx_get_stats over every run: clframe pageable %" PRIu64
           " bytes (each copy its size), clframe pinned %" PRIu64 " bytes "
           "(%s)\n", b->clframe_bytes[0], b->clframe_bytes[1],
           b->in_place ? "in place: nothing copied" : "each copy its size");
    printf("zero copy: a map or unmap %.0f times faster than the best plain "
           "copy, as clpeak calls it: nothing moved\n", ZERO_COPY);
    return 0;
}

int main(int argc, char **argv)
{
    size_t max_bytes;
    parse_bytes(DEFAULT_MAX, &max_bytes);
    if (argc > 3) {
        fprintf(stderr, "bench-transfer: at most two arguments\n");
        return usage();
    }
    long runs = bench_count_arg(argc, argv, 1, DEFAULT_RUNS, MAX_RUNS);
    if (runs < 0) {
        fprintf(stderr, "bench-transfer: runs must be a whole number from 1 "
                "to %d, not \"%s\"\n", MAX_RUNS, argv[1]);
        return usage();
    }
    if (argc > 2 && !parse_bytes(argv[2], &max_bytes)) {
        fprintf(stderr, "bench-transfer: max-size must be a size from 4K to "
                "1G, not \"%s\"\n", argv[2]);
        return usage();
    }
    bench b = {.ctx = clctx_new(NULL)};
    if (!b.ctx) {
        fprintf(stderr, "bench-transfer: no device: %s\n",
                clframe_last_error());
        return 1;
    }
    b.context = clctx_context(b.ctx);
    b.queue = clctx_queue(b.ctx);
    b.in_place = clctx_pinned_in_place(b.ctx);
    int rc = run_all(&b, (int)runs, max_bytes);
    clctx_free(b.ctx);
    return rc ? 1 : 0;
}
