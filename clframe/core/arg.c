/*
 * arg.c: a clarg's life: building it, its persistent buffer, and its part
 * in a call's plan.
 *
 * A clarg is a plain value so that a call can be written inline; the only
 * thing shared between copies is the persistent buffer, which is why it lives
 * behind a pointer. Its whole life with the device is decided here: its
 * persistent buffer, its copies, and its part in a call's plan
 * (clf_call_plan): where its buffer comes from (persistent, the host
 * array in place, the pool, an image, an object given), its bytes, and
 * which copies go in and back, whole or by chunk. The plan is data alone:
 * the checks read it (signature.c) and memory.c carries it out.
 *
 * Copies cannot be tracked, so a released buffer's record is never freed: it
 * goes to a list for reuse with its generation bumped, and a copy made
 * before the release, whose generation is now old, gets an error instead of
 * freed memory or another argument's buffer. The list is as long as the most
 * buffers that were ever persistent at once.
 *
 * A persistent array in pinned memory, on a device that shares the host's
 * memory, gets a buffer that is the array itself (memory.c): its reads and
 * writes copy nothing. Such a buffer cannot change hands: after a swap the
 * array would be one argument's host array and the other's device data,
 * and reading either argument would overwrite the other's. So clarg_swap
 * first gives it a buffer of its own (own_buffers), and from then on the
 * argument is copied as a malloc'd one is.
 */
#include "core.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t free_lock = PTHREAD_MUTEX_INITIALIZER;
static clarg_buffer *free_buffers;

static clarg_buffer *buffer_take(void)
{
    pthread_mutex_lock(&free_lock);
    clarg_buffer *b = free_buffers;
    if (b)
        free_buffers = b->next_free;
    pthread_mutex_unlock(&free_lock);
    return b ? b : calloc(1, sizeof *b);
}

static void buffer_give_back(clarg_buffer *b)
{
    b->generation++;
    b->mem = NULL;
    b->alias = NULL;
    b->pinned_host = NULL;
    pthread_mutex_lock(&free_lock);
    b->next_free = free_buffers;
    free_buffers = b;
    pthread_mutex_unlock(&free_lock);
}

static int arg_released(const clarg *a)
{
    return a->buffer && a->generation != a->buffer->generation;
}

/* 0 if a has no buffer or its own; else the error that a copy of a
 * released argument is, naming fn. */
static int check_live(const clarg *a, const char *fn)
{
    if (!arg_released(a))
        return 0;
    return clframe_fail(CLFRAME_ERR_USAGE, "%s: the argument's device buffer "
                        "was released (by clarg_release on it or on a copy)",
                        fn);
}

/* Sets each field rather than zeroing the whole clarg: this runs for every
 * CLARG(x) of every call, and value[] is mostly unused bytes. A size that
 * does not fit gives a clarg that every call refuses. */
clarg clarg_scalar(const char *type, size_t size, const void *value)
{
    clarg a;
    a.kind = value && size <= sizeof a.value ? CLARG_KIND_SCALAR
                                             : CLARG_KIND_NONE;
    a.flags = 0;
    a.type = type;
    a.elem_size = size;
    a.count = 1;
    a.host = NULL;
    a.buffer = NULL;
    a.generation = 0;
    if (a.kind == CLARG_KIND_SCALAR)
        memcpy(a.value, value, size);
    return a;
}

clarg clarg_array(const char *type, size_t elem_size, void *host, size_t n,
                  unsigned flags)
{
    return (clarg){.kind = CLARG_KIND_BUFFER, .flags = flags, .type = type,
                   .elem_size = elem_size, .count = n, .host = host};
}

clarg clarg_value(const char *type, size_t size, const void *value)
{
    return (clarg){.kind = CLARG_KIND_SCALAR, .type = type, .elem_size = size,
                   .count = 1, .host = (void *)value};
}

clarg clarg_local(size_t bytes)
{
    return (clarg){.kind = CLARG_KIND_LOCAL, .type = NULL, .elem_size = 1,
                   .count = bytes};
}

/* count * elem_size, or SIZE_MAX when that overflows: asked several times
 * a call, so without a division. */
static size_t arg_bytes(const clarg *a)
{
    size_t bytes;
    return __builtin_mul_overflow(a->count, a->elem_size, &bytes) ? (size_t)-1
                                                                   : bytes;
}

int clarg_persist(clarg *a, clctx *ctx)
{
    if (!a || a->kind != CLARG_KIND_BUFFER)
        return clframe_fail(CLFRAME_ERR_USAGE, "clarg_persist: only an array "
                        "argument (CLARG_IN/OUT/INOUT/TYPED) can be persistent");
    if (!(ctx = clf_ctx(ctx)))
        return CLFRAME_ERR_NO_DEVICE;
    int rc = check_live(a, "clarg_persist");
    if (rc)
        return rc;
    if (a->buffer) {
        if (a->buffer->ctx == ctx)
            return 0;
        return clframe_fail(CLFRAME_ERR_USAGE, "clarg_persist: the argument is "
                        "already persistent on another context");
    }
    size_t bytes = arg_bytes(a);
    if (bytes == (size_t)-1)
        return clframe_fail(CLFRAME_ERR_USAGE, "clarg_persist: %zu elements of "
                        "%zu bytes overflow size_t", a->count, a->elem_size);
    clarg_buffer *b = buffer_take();
    if (!b)
        return clframe_fail(CLFRAME_ERR_NO_MEMORY, "clarg_persist: out of memory");
    cl_int err = CL_SUCCESS;
    b->ctx = ctx;
    b->bytes = bytes;
    if ((b->mem = clf_host_in_place(ctx, a->host, bytes)))
        b->alias = a->host;     /* pinned memory: the buffer is the array */
    else
        b->mem = clf_create_buffer(ctx, bytes, &err);
    if (err != CL_SUCCESS) {
        buffer_give_back(b);
        return clf_fail_cl(err, "clCreateBuffer", "clarg_persist: %zu bytes "
                           "of %s on %s", bytes, a->type ? a->type : "data",
                           ctx->device_name);
    }
    b->pinned_host = clf_host_use(a->host, +1) ? a->host : NULL;
    a->buffer = b;
    a->generation = b->generation;
    return 0;
}

int clarg_set_flags(clarg *a, unsigned flags)
{
    if (!a || (flags & ~(unsigned)(CLARG_TO_DEVICE | CLARG_FROM_DEVICE |
                                   CLARG_CHUNKED)))
        return clframe_fail(CLFRAME_ERR_USAGE, "clarg_set_flags: flags must "
                        "combine CLARG_TO_DEVICE, CLARG_FROM_DEVICE and "
                        "CLARG_CHUNKED");
    a->flags = flags;
    return 0;
}

int clarg_keep_on_device(clarg *a, clctx *ctx, int upload)
{
    int rc = clarg_persist(a, ctx);
    if (rc == 0 && upload)
        rc = clarg_write(a);
    if (rc == 0)
        rc = clarg_set_flags(a, CLARG_NO_COPY);
    return rc;
}

static int check_persistent(const clarg *a, const char *fn)
{
    if (!a)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s: the argument is NULL", fn);
    if (a->kind != CLARG_KIND_BUFFER || !a->buffer)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s: the argument is not "
                        "persistent (call clarg_persist first)", fn);
    int rc = check_live(a, fn);
    if (rc)
        return rc;
    if (!a->host && a->buffer->bytes)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s: the argument has no host "
                        "array to copy to or from", fn);
    return 0;
}

/* A buffer that is its host array (pinned memory used in place) has nothing
 * to copy; waiting for the queue, as a blocking copy would, is all that
 * makes the kernels' writes the host's. */
int clf_arg_in_place(const clarg *a)
{
    return a->buffer->alias && a->buffer->alias == a->host;
}

/* Copies elements [first, first + n) of a persistent argument one way
 * (CLF_EV_WRITE or CLF_EV_READ) on s's queue, waiting or not. */
static int copy_part(clarg *a, int what, size_t first, size_t n, clstream *s,
                     cl_bool blocking, const char *fn)
{
    int rc = check_persistent(a, fn);
    if (rc)
        return rc;
    clctx *ctx = a->buffer->ctx;
    size_t count = a->elem_size ? a->buffer->bytes / a->elem_size : 0;
    if (first > count || n > count - first)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s: elements %zu to %zu of "
                            "an array of %zu", fn, first, first + n, count);
    if (s && s->ctx != ctx)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s: the stream is on %s, the "
                            "argument's buffer on another context", fn,
                            s->ctx->device_name);
    cl_command_queue queue = clf_stream_queue(ctx, s);
    if (clf_arg_in_place(a)) {
        cl_int err = blocking ? clFinish(queue) : CL_SUCCESS;
        if (err != CL_SUCCESS)
            return clf_fail_cl(err, "clFinish", "%s: %zu bytes used in place "
                               "on %s", fn, a->buffer->bytes, ctx->device_name);
        return 0;
    }
    size_t at = first * a->elem_size;
    return clf_copy(ctx, queue, what, a->buffer->mem, at, n * a->elem_size,
                    (char *)a->host + at, blocking, fn);
}

int clarg_read(clarg *a)
{
    return copy_part(a, CLF_EV_READ, 0, a ? a->count : 0, NULL, CL_TRUE,
                     "clarg_read");
}

int clarg_write(clarg *a)
{
    return copy_part(a, CLF_EV_WRITE, 0, a ? a->count : 0, NULL, CL_TRUE,
                     "clarg_write");
}

int clarg_read_async(clarg *a, size_t first, size_t n, clstream *s)
{
    return copy_part(a, CLF_EV_READ, first, n, s, CL_FALSE,
                     "clarg_read_async");
}

int clarg_write_async(clarg *a, size_t first, size_t n, clstream *s)
{
    return copy_part(a, CLF_EV_WRITE, first, n, s, CL_FALSE,
                     "clarg_write_async");
}

/* The element type's name, for messages and for comparing two arrays'. */
static const char *type_of(const clarg *a)
{
    return a->type ? a->type : "untyped data";
}

/* *made: a new buffer holding the bytes of r's, which is its host array
 * (pinned memory used in place): that array, as the kernels left it, is
 * copied in. 0, or a code with a message and *made NULL. */
static int copy_of_array(const clarg_buffer *r, cl_mem *made)
{
    cl_int err;
    *made = clf_create_buffer(r->ctx, r->bytes, &err);
    if (err != CL_SUCCESS) {
        *made = NULL;
        return clf_fail_cl(err, "clCreateBuffer", "clarg_swap: %zu bytes on "
                           "%s, a buffer of its own for an array in pinned "
                           "memory", r->bytes, r->ctx->device_name);
    }
    int rc = clf_copy(r->ctx, r->ctx->queue, CLF_EV_WRITE, *made, 0, r->bytes,
                      (void *)r->alias, CL_TRUE, "clarg_swap: an array in "
                      "pinned memory into a buffer of its own");
    if (rc) {
        clf_release_mem(r->ctx, *made);
        *made = NULL;
    }
    return rc;
}

/* Gives each of x and y (one context's) that is its host array a buffer of
 * its own with the same bytes, once every queue of the context, streams
 * too, has finished with the array; both or, on failure, neither. */
static int own_buffers(clarg_buffer *x, clarg_buffer *y)
{
    if (!x->alias && !y->alias)
        return 0;
    clctx *ctx = x->ctx;
    cl_int err = clf_finish_all(ctx);
    if (err != CL_SUCCESS)
        return clf_fail_cl(err, "clFinish", "clarg_swap: waiting for the "
                           "kernels that use an array in pinned memory on %s",
                           ctx->device_name);
    clarg_buffer *r[2] = {x, y};
    cl_mem made[2] = {NULL, NULL};
    int rc = 0;
    for (int i = 0; i < 2 && rc == 0; i++)
        if (r[i]->alias)
            rc = copy_of_array(r[i], &made[i]);
    for (int i = 0; i < 2; i++) {
        if (rc) {
            clf_release_mem(ctx, made[i]);
        } else if (made[i]) {
            clf_release_mem(ctx, r[i]->mem);
            r[i]->mem = made[i];
            r[i]->alias = NULL;
        }
    }
    return rc;
}

int clarg_swap(clarg *a, clarg *b)
{
    if (!a || !b)
        return clframe_fail(CLFRAME_ERR_USAGE, "clarg_swap: argument %s is "
                            "NULL", a ? "b" : "a");
    if (!a->buffer || !b->buffer)
        return clframe_fail(CLFRAME_ERR_USAGE, "clarg_swap: both arguments must "
                        "be persistent (call clarg_persist first)");
    int rc = check_live(a, "clarg_swap");
    if (rc || (rc = check_live(b, "clarg_swap")))
        return rc;
    /* Same bytes but other elements would let a kernel read floats as ints. */
    if (strcmp(type_of(a), type_of(b)) != 0 || a->elem_size != b->elem_size)
        return clframe_fail(CLFRAME_ERR_USAGE, "clarg_swap: an array of %s "
                            "(%zu bytes each) and one of %s (%zu bytes each) "
                            "cannot be exchanged", type_of(a), a->elem_size,
                            type_of(b), b->elem_size);
    if (a->buffer->bytes != b->buffer->bytes || a->buffer->ctx != b->buffer->ctx)
        return clframe_fail(CLFRAME_ERR_USAGE, "clarg_swap: buffers of %zu and "
                        "%zu bytes (or on two contexts) cannot be exchanged",
                        a->buffer->bytes, b->buffer->bytes);
    if (a->buffer != b->buffer &&       /* a copy: nothing changes hands */
        (rc = own_buffers(a->buffer, b->buffer)))
        return rc;
    cl_mem t = a->buffer->mem;
    a->buffer->mem = b->buffer->mem;
    b->buffer->mem = t;
    return 0;
}

void clarg_release(clarg *a)
{
    if (!a || !a->buffer)
        return;
    if (!arg_released(a)) {                     /* else done by a copy */
        if (a->buffer->pinned_host)
            clf_host_use(a->buffer->pinned_host, -1);
        clf_release_mem(a->buffer->ctx, a->buffer->mem);
        buffer_give_back(a->buffer);
    }
    a->buffer = NULL;
}

cl_mem clarg_mem(const clarg *a)
{
    return a && a->buffer && !arg_released(a) ? a->buffer->mem : NULL;
}

/* ---- a call's plan -------------------------------------------------------- */

/* An array a chunked call copies in parts rather than whole. */
static int arg_split(size_t chunk, const clarg *a)
{
    return chunk && a->kind == CLARG_KIND_BUFFER && (a->flags & CLARG_CHUNKED);
}

/* The copies a's flags ask for, as a plan's CLF_COPY_IN, CLF_COPY_BACK. */
static unsigned char copies_of(const clarg *a)
{
    return (unsigned char)(((a->flags & CLARG_TO_DEVICE) ? CLF_COPY_IN : 0) |
                           ((a->flags & CLARG_FROM_DEVICE) ? CLF_COPY_BACK
                                                           : 0));
}

/* Plans argument i: its bytes, where its buffer comes from, its copies.
 * Runs before the checks: a released persistent buffer is only noted
 * (its record is never freed, so reading it is safe). */
static void plan_arg(clf_call *c, unsigned i)
{
    const clarg *a = &c->args[i];
    clf_arg_plan *p = &c->plan[i];
    p->bytes = arg_bytes(a);
    p->how = 0;
    p->released = 0;
    p->made = 0;
    p->mem = NULL;
    p->image = NULL;
    switch (a->kind) {
    case CLARG_KIND_BUFFER:
        p->how = copies_of(a);
        if (arg_split(c->run_chunk, a))
            p->how |= CLF_SPLIT;
        if (a->buffer) {
            p->released = arg_released(a);
            p->source = clf_arg_in_place(a) ? CLF_SRC_PERSISTENT_IN_PLACE
                                            : CLF_SRC_PERSISTENT;
        } else {        /* CLARG_NO_COPY asks for scratch: never in place */
            p->source = a->flags ? CLF_SRC_PINNED_OR_POOL : CLF_SRC_POOL;
        }
        break;
    case CLARG_KIND_LOCAL:
        p->source = CLF_SRC_LOCAL;
        break;
    case CLARG_KIND_MEM:
        p->source = CLF_SRC_MEM;
        break;
    case CLARG_KIND_SAMPLER:
        p->source = CLF_SRC_SAMPLER;
        break;
    case CLARG_KIND_IMAGE:
        p->how = copies_of(a);
        p->source = CLF_SRC_IMAGE;
        p->image = clf_image_desc_of(a);
        break;
    default:
        p->source = CLF_SRC_VALUE;
    }
}

int clf_call_plan(clf_call *c)
{
    c->plan = c->planned;
    c->how = 0;
    if (c->nargs > CLF_CALL_ARGS_INLINE &&
        !(c->plan = calloc(c->nargs, sizeof *c->plan))) {
        c->plan = c->planned;
        c->nargs = 0;
        return clframe_fail(CLFRAME_ERR_NO_MEMORY, "%s(%s)", c->who, c->name);
    }
    for (unsigned i = 0; i < c->nargs; i++) {
        plan_arg(c, i);
        c->how |= c->plan[i].how;
    }
    return 0;
}
