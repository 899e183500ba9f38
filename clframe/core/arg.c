/*
 * arg.c: a clarg's life: building it, its persistent buffer, and a call
 * carried out with it.
 *
 * A clarg is a plain value so that a call can be written inline; the only
 * thing shared between copies is the persistent buffer, which is why it lives
 * behind a pointer. Its whole life with the device is decided here: its
 * persistent buffer, and a call's whole sequence (clf_call_run): the buffer
 * or image each argument is bound to, its copies in, the launch launch.c
 * hands in, the copies back, the one wait and what is given back. The
 * device memory itself, and each copy, are memory.c's.
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

int clf_arg_released(const clarg *a)
{
    return a->buffer && a->generation != a->buffer->generation;
}

/* 0 if a has no buffer or its own; else the error that a copy of a
 * released argument is, naming fn. */
static int check_live(const clarg *a, const char *fn)
{
    if (!clf_arg_released(a))
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
size_t clf_arg_bytes(const clarg *a)
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
    size_t bytes = clf_arg_bytes(a);
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
    if (!clf_arg_released(a)) {                     /* else done by a copy */
        if (a->buffer->pinned_host)
            clf_host_use(a->buffer->pinned_host, -1);
        clf_release_mem(a->buffer->ctx, a->buffer->mem);
        buffer_give_back(a->buffer);
    }
    a->buffer = NULL;
}

cl_mem clarg_mem(const clarg *a)
{
    return a && a->buffer && !clf_arg_released(a) ? a->buffer->mem : NULL;
}

/* ---- a call's buffers ------------------------------------------------------ */

/* What each argument's buffer is to the call: made for it (an image),
 * the host array itself (pinned memory used in place, memory.c), which is
 * never copied, or taken from the pool. */
enum { BUF_MADE = 1, BUF_IN_PLACE = 2, BUF_POOLED = 4 };

int clf_arg_split(size_t chunk, const clarg *a)
{
    return chunk && a->kind == CLARG_KIND_BUFFER && (a->flags & CLARG_CHUNKED);
}

/* Binds argument i: its buffer (persistent, in place, or from the pool)
 * or its image, copied in without waiting unless it is split, or its
 * value, set as the kernel's argument i. */
static int bind_arg(clf_call *c, unsigned i)
{
    clctx *ctx = c->ctx;
    const clarg *a = &c->args[i];
    cl_int err;
    if (a->kind == CLARG_KIND_BUFFER) {
        size_t bytes = clf_arg_bytes(a);
        int copy_in = (a->flags & CLARG_TO_DEVICE) &&
                      !clf_arg_split(c->chunk, a);
        if (a->buffer) {
            c->mems[i] = a->buffer->mem;
            if (clf_arg_in_place(a))
                c->mades[i] = BUF_IN_PLACE;
        } else if (a->flags &&      /* CLARG_NO_COPY asks for scratch */
                   (c->mems[i] = clf_host_in_place(ctx, a->host, bytes))) {
            c->mades[i] = BUF_MADE | BUF_IN_PLACE;
        } else {
            c->mems[i] = clf_pool_take(ctx, c->queue, bytes, &err);
            if (err != CL_SUCCESS)
                return clf_fail_cl(err, "clCreateBuffer", "%s(%s): argument "
                                   "%u, %zu bytes", c->who, c->name, i + 1,
                                   bytes);
            c->mades[i] = BUF_POOLED;
        }
        /* Enqueued without waiting: the call waits once, at its end. */
        if (copy_in && !(c->mades[i] & BUF_IN_PLACE) &&
            (err = clf_enqueue_copy(ctx, c->queue, CLF_EV_WRITE, c->mems[i], 0,
                                    bytes, a->host, CL_FALSE)) != CL_SUCCESS)
            return clf_copy_failed(err, CLF_EV_WRITE, bytes, "argument %u "
                                   "of %s", i + 1, c->name);
        err = clSetKernelArg(c->kernel, i, sizeof(cl_mem), &c->mems[i]);
    } else if (a->kind == CLARG_KIND_LOCAL) {
        err = clSetKernelArg(c->kernel, i, a->count, NULL);
    } else if (a->kind == CLARG_KIND_MEM) {
        err = clSetKernelArg(c->kernel, i, sizeof(cl_mem), a->value);
    } else if (a->kind == CLARG_KIND_SAMPLER) {
        err = clSetKernelArg(c->kernel, i, sizeof(cl_sampler), a->value);
    } else if (a->kind == CLARG_KIND_IMAGE) {
        char what[160];
        snprintf(what, sizeof what, "argument %u of %s", i + 1, c->name);
        int rc = clf_image_make(ctx, c->queue, what, a, CL_FALSE,
                                &c->mems[i]);
        if (rc)
            return rc;
        if (a->host)                    /* made for the call */
            c->mades[i] = BUF_MADE;
        err = clSetKernelArg(c->kernel, i, sizeof(cl_mem), &c->mems[i]);
    } else {
        err = clSetKernelArg(c->kernel, i, a->elem_size,
                             a->host ? a->host : a->value);
    }
    if (err == CL_INVALID_ARG_SIZE)
        return clframe_fail(CLFRAME_ERR_ARG_TYPE, "%s(%s): argument %u "
                        "(%s): %zu bytes given, which is not the size the "
                        "kernel's parameter has on %s: host and device layouts "
                        "of %s differ", c->who, c->name, i + 1,
                        c->params[i].name, a->elem_size,
                        ctx->device_name, a->type ? a->type : "the type");
    if (err != CL_SUCCESS)
        return clf_fail_cl(err, "clSetKernelArg", "%s(%s): argument %u",
                           c->who, c->name, i + 1);
    return 0;
}

static int bind_args(clf_call *c)
{
    c->mems = c->mem;
    c->mades = c->made;
    c->from_device = 0;
    if (c->nargs > CLF_CALL_ARGS_INLINE) {
        c->mems = calloc(c->nargs, sizeof *c->mems);
        c->mades = calloc(c->nargs, 1);
        if (!c->mems || !c->mades) {
            free(c->mems);
            free(c->mades);
            c->mems = c->mem;
            c->mades = c->made;
            c->nargs = 0;           /* nothing for give_back */
            return clframe_fail(CLFRAME_ERR_NO_MEMORY, "%s(%s)", c->who,
                                c->name);
        }
    } else {
        memset(c->made, 0, c->nargs);
    }
    int rc = 0;
    for (unsigned i = 0; i < c->nargs && rc == 0; i++) {
        rc = bind_arg(c, i);
        c->from_device |= c->args[i].flags & CLARG_FROM_DEVICE;
    }
    return rc;
}

/* Whether argument a is copied back whole after the kernel. */
static int copied_back(const clf_call *c, const clarg *a, unsigned char made)
{
    if (a->kind == CLARG_KIND_IMAGE)
        return (a->flags & CLARG_FROM_DEVICE) != 0;
    return a->kind == CLARG_KIND_BUFFER && (a->flags & CLARG_FROM_DEVICE) &&
           !(made & BUF_IN_PLACE) && !clf_arg_split(c->chunk, a);
}

/* Enqueues the copies back of what is not split; for a blocking call the
 * last one waits, and *waited says that it did. */
static int copy_back(clf_call *c, int *waited)
{
    if (!c->from_device)
        return 0;
    unsigned last = c->nargs;
    for (unsigned i = 0; i < c->nargs; i++)
        if (copied_back(c, &c->args[i], c->mades[i]))
            last = i;
    for (unsigned i = 0; i < c->nargs; i++) {
        const clarg *a = &c->args[i];
        if (!copied_back(c, a, c->mades[i]))
            continue;
        size_t bytes = clf_arg_bytes(a);
        cl_bool wait = c->blocking && !c->chunk && i == last;
        if (a->kind == CLARG_KIND_IMAGE) {
            char what[160];
            snprintf(what, sizeof what, "argument %u of %s", i + 1, c->name);
            int rc = clf_image_copy(c->ctx, c->queue, CLF_EV_READ, c->mems[i],
                                    a, wait, what);
            if (rc)
                return rc;
        } else {
            cl_int err = clf_enqueue_copy(c->ctx, c->queue, CLF_EV_READ,
                                          c->mems[i], 0, bytes, a->host,
                                          wait);
            if (err != CL_SUCCESS)
                return clf_copy_failed(err, CLF_EV_READ, bytes, "argument "
                                       "%u of %s", i + 1, c->name);
        }
        *waited = wait && (a->kind == CLARG_KIND_IMAGE || bytes != 0);
    }
    return 0;
}

/* Copies [w0, w1)'s parts of the split arrays one way on queue. */
static int copy_chunk(const clf_call *c, int what, size_t w0, size_t w1,
                      cl_command_queue queue)
{
    unsigned dir = what == CLF_EV_WRITE ? CLARG_TO_DEVICE : CLARG_FROM_DEVICE;
    size_t e0 = w0 < c->items ? w0 : c->items;
    size_t e1 = w1 < c->items ? w1 : c->items;
    for (unsigned i = 0; i < c->nargs; i++) {
        const clarg *a = &c->args[i];
        if (!clf_arg_split(c->chunk, a) || !(a->flags & dir) ||
            (c->mades[i] & BUF_IN_PLACE))
            continue;
        size_t per = a->count / c->items * a->elem_size;  /* bytes */
        char desc[256];
        snprintf(desc, sizeof desc, "argument %u of %s, work-items %zu to %zu",
                 i + 1, c->name, w0, w1);
        int rc = clf_copy(c->ctx, queue, what, c->mems[i], e0 * per,
                          (e1 - e0) * per, (char *)a->host + e0 * per,
                          CL_FALSE, desc);
        if (rc)
            return rc;
    }
    return 0;
}

/* Gives the call's buffers back: to the pool, for later work on its
 * queue; the images it made, released. */
static void give_back(clf_call *c)
{
    for (unsigned i = 0; i < c->nargs; i++) {
        size_t bytes = clf_arg_bytes(&c->args[i]);
        if (c->mades[i] & BUF_POOLED)
            clf_pool_give(c->ctx, c->queue, c->mems[i], bytes);
        else if (c->mades[i] & BUF_MADE)
            clf_release_mem(c->ctx, c->mems[i]);
    }
    if (c->mems != c->mem) {
        free(c->mems);
        free(c->mades);
    }
}

/* Runs the chunks: chunk i's copies in on one queue, its kernel on the
 * context's after them, its copies out on a third after the kernel, so
 * that each queue moves on to the next chunk while the others work. */
static int run_chunks(const clf_call *c)
{
    clctx *ctx = c->ctx;
    cl_command_queue in = ctx->copy_queue[0], out = ctx->copy_queue[1];
    size_t items = c->global[c->dims - 1];
    /* The buffers made and the whole arrays copied in come first. */
    int rc = clf_queue_after(ctx, in, ctx->queue);
    for (size_t w0 = 0, w1; rc == 0 && w0 < items; w0 = w1) {
        w1 = items - w0 > c->chunk ? w0 + c->chunk : items;
        rc = copy_chunk(c, CLF_EV_WRITE, w0, w1, in);
        if (rc == 0)
            rc = clf_queue_after(ctx, ctx->queue, in);
        if (rc == 0)
            rc = c->launch(c->launcher, ctx->queue, w0, w1);
        if (rc == 0)
            rc = clf_queue_after(ctx, out, ctx->queue);
        if (rc == 0)
            rc = copy_chunk(c, CLF_EV_READ, w0, w1, out);
    }
    return rc;
}

/* Waits for every queue the call used: on success if blocking (or
 * debugging) and not waited for already, and always after a failure of a
 * blocking call, so that no copy lands after it returns. *waited is then
 * set. */
static int wait_for(const clf_call *c, int rc, int *waited)
{
    clctx *ctx = c->ctx;
    if (rc == 0 && !c->blocking && !ctx->debug)
        return 0;
    if (rc && !c->blocking)
        return rc;
    if (rc == 0 && *waited) {
        clf_collect_events(ctx);
        return 0;
    }
    cl_int err = clFinish(c->queue);
    for (int q = 0; c->chunk && q < 2; q++)
        if (err == CL_SUCCESS)
            err = clFinish(ctx->copy_queue[q]);
        else
            clFinish(ctx->copy_queue[q]);
    if (rc == 0 && err != CL_SUCCESS)
        rc = clf_fail_cl(err, "clFinish", "running kernel %s on %s", c->name,
                         ctx->device_name);
    *waited = err == CL_SUCCESS;
    if (rc == 0 && c->blocking)
        clf_collect_events(ctx);
    return rc;
}

int clf_call_run(clf_call *c)
{
    int rc = bind_args(c);
    if (rc == 0)
        rc = c->chunk ? run_chunks(c)
                      : c->launch(c->launcher, c->queue, 0,
                                  c->global[c->dims - 1]);
    int waited = 0;
    if (rc == 0)
        rc = copy_back(c, &waited);
    rc = wait_for(c, rc, &waited);
    give_back(c);
    if (waited) {               /* every queue the call used has finished */
        clf_queue_done(c->ctx, c->queue);
        for (int q = 0; c->chunk && q < 2; q++)
            clf_queue_done(c->ctx, c->ctx->copy_queue[q]);
    }
    return rc;
}
