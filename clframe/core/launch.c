/*
 * launch.c: a built kernel called like a C function, against its table of
 * parameters.
 *
 * A clkernel is made from a built program (clf_kernel_new) and handed its
 * parameter table by the layer above, which reads the kernel's signature
 * from its source (kernel.c); this file reads no source. Every call is
 * planned (arg.c: each argument's buffer and copies, as data), checked
 * against that table before touching the device (signature.c), then
 * carried out (memory.c: buffers taken, copies in, the launch this file
 * hands in, copies back, the one wait, buffers given back, on every path
 * including failures).
 */
#include "core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct clkernel {
    clctx *ctx;
    cl_program program;
    cl_kernel kernel;
    char name[128];
    char *signature;
    unsigned nparams;
    clf_param *params;
    clf_type_names names;        /* how its source names types (kernel.c) */
    int cross_check;             /* the driver's report against the source's
                                    reading: 1 agreed, -1 differed, 0 none */
    unsigned dims, local_dims, offset_dims;
    size_t global[3], local[3], offset[3];
    int has_local, has_offset;
    int sizes_checked;           /* local/global validated since last change */
    clf_kernel_profile *profile; /* its name's totals (CLFRAME_PROFILE) */
    int timing;                  /* clkernel_set_timing */
    uint64_t runs;               /* launches since it was made */
    clf_kernel_profile times;    /* its timed launches' totals */
};

/* ---- creation ------------------------------------------------------------ */

void clkernel_free(clkernel *k)
{
    if (!k)
        return;
    clf_forget_profile(k->ctx, &k->times);
    if (k->kernel) {
        clReleaseKernel(k->kernel);
        clf_track(k->ctx, -1);
    }
    if (k->program)
        clf_program_put(k->ctx, k->program);
    free(k->params);
    free(k->signature);
    free(k);
}

/* The kernel names a program holds, for "no kernel X; it has Y, Z". */
static void kernel_names(cl_program program, char *buf, size_t size)
{
    buf[0] = '\0';
    if (clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, size - 1, buf,
                         NULL) != CL_SUCCESS)
        snprintf(buf, size, "(unknown)");
}

clkernel *clf_kernel_new(clctx *ctx, cl_program program, const char *name,
                         const char *origin)
{
    clkernel *k = calloc(1, sizeof *k);
    if (!k) {
        clf_program_put(ctx, program);
        clframe_fail(CLFRAME_ERR_NO_MEMORY, "kernel %s", name);
        return NULL;
    }
    k->ctx = ctx;
    k->program = program;
    k->times.last_ms = -1;
    snprintf(k->name, sizeof k->name, "%s", name);
    snprintf(k->times.name, sizeof k->times.name, "%s", name);
    cl_int err;
    k->kernel = clCreateKernel(k->program, name, &err);
    if (err != CL_SUCCESS) {
        char names[1024];
        kernel_names(k->program, names, sizeof names);
        if (err == CL_INVALID_KERNEL_NAME)
            clframe_fail(CLFRAME_ERR_NOT_FOUND, "%s has no __kernel named \"%s\" "
                     "(its kernels: %s)", origin, name, names);
        else
            clf_fail_cl(err, "clCreateKernel", "kernel %s in %s", name, origin);
        clkernel_free(k);
        return NULL;
    }
    clf_track(ctx, 1);
    return k;
}

void clf_kernel_set_params(clkernel *k, const clf_param_table *t)
{
    k->nparams = t->nparams;
    k->params = t->params;
    k->signature = t->signature;
    k->names = t->names;
    k->cross_check = t->cross_check;
    if (k->ctx->profile)
        k->profile = clf_kernel_profile_for(k->ctx, k->name);
}

/* ---- work sizes ---------------------------------------------------------- */

size_t clframe_round_up(size_t n, size_t m)
{
    return m ? (n + m - 1) / m * m : n;
}

/* Sets one of k's sizes (global, local, offset) and its dimensions; the
 * sizes are checked again before the next call only if they changed. */
static int set_sizes(clkernel *k, unsigned dims, const size_t *sizes,
                     size_t *dst, unsigned *dst_dims, const char *what)
{
    if (!k) {
        char who[32];
        snprintf(who, sizeof who, "clkernel_%s", what);
        return clf_fail_null(who, "kernel");
    }
    if (dims < 1 || dims > 3)
        return clframe_fail(CLFRAME_ERR_BAD_SIZE, "clkernel_%s(%s): %u sizes "
                        "given, 1 to 3 expected", what, k->name, dims);
    size_t v[3] = {0, 0, 0};
    memcpy(v, sizes, dims * sizeof *sizes);
    if (*dst_dims != dims || memcmp(v, dst, sizeof v) != 0) {
        memcpy(dst, v, sizeof v);
        *dst_dims = dims;
        k->sizes_checked = 0;
    }
    return 0;
}

int clkernel_set_global(clkernel *k, unsigned dims, const size_t *sizes)
{
    return set_sizes(k, dims, sizes, k ? k->global : NULL,
                     k ? &k->dims : NULL, "global");
}

int clkernel_set_local(clkernel *k, unsigned dims, const size_t *sizes)
{
    int rc = set_sizes(k, dims, sizes, k ? k->local : NULL,
                       k ? &k->local_dims : NULL, "local");
    if (rc == 0)
        k->has_local = k->local[0] || k->local[1] || k->local[2];
    return rc;
}

int clkernel_set_offset(clkernel *k, unsigned dims, const size_t *sizes)
{
    int rc = set_sizes(k, dims, sizes, k ? k->offset : NULL,
                       k ? &k->offset_dims : NULL, "offset");
    if (rc == 0)
        k->has_offset = 1;
    return rc;
}

int clf_check_group(const clctx *ctx, const char *who, const char *what,
                    unsigned dims, const size_t *sizes, size_t most)
{
    size_t items = 1;
    for (unsigned d = 0; d < dims; d++) {
        if (sizes[d] == 0 || sizes[d] > ctx->max_item[d])
            return clframe_fail(CLFRAME_ERR_BAD_SIZE, "%s: %s %zu in dimension "
                                "%u: the device allows 1 to %zu", who, what,
                                sizes[d], d, ctx->max_item[d]);
        items *= sizes[d];
    }
    if (items > most)
        return clframe_fail(CLFRAME_ERR_BAD_SIZE, "%s: a work-group of %zu "
                            "work-items is more than %s runs (at most %zu)",
                            who, items, ctx->device_name, most);
    return 0;
}

size_t clkernel_max_group_size(clkernel *k)
{
    if (!k)
        return 0;
    size_t kernel_max = 0;
    clGetKernelWorkGroupInfo(k->kernel, k->ctx->device,
                             CL_KERNEL_WORK_GROUP_SIZE, sizeof kernel_max,
                             &kernel_max, NULL);
    return kernel_max && kernel_max < k->ctx->max_group ? kernel_max
                                                        : k->ctx->max_group;
}

/* A global size no device runs: from half the range of its size_t up, in
 * a dimension (its offset added) or in all together. That is what a count
 * of -1 becomes (n - 1 for n = 0), and a driver would take it and run until
 * killed (PoCL) or fail in its own words. */
static int check_global_limit(const clkernel *k, const char *who)
{
    size_t limit = k->ctx->global_limit, total = 1;
    for (unsigned d = 0; d < k->dims; d++) {
        size_t offset = k->has_offset ? k->offset[d] : 0;
        if (k->global[d] >= limit || offset >= limit - k->global[d])
            return clframe_fail(CLFRAME_ERR_BAD_SIZE, "%s(%s): global size "
                                "%zu%s in dimension %u: %s runs fewer than "
                                "%zu work-items (a negative count made "
                                "unsigned?)", who, k->name, k->global[d],
                                offset ? " past its offset" : "", d,
                                k->ctx->device_name, limit);
        if (total > (limit - 1) / k->global[d])
            return clframe_fail(CLFRAME_ERR_BAD_SIZE, "%s(%s): %u-D global "
                                "size of more than %zu work-items in all, "
                                "which %s does not run", who, k->name,
                                k->dims, limit - 1, k->ctx->device_name);
        total *= k->global[d];
    }
    return 0;
}

/* Checks the sizes once after each change: errors here would otherwise be a
 * bare CL_INVALID_WORK_GROUP_SIZE from the driver. */
static int check_sizes(clkernel *k, const char *who)
{
    if (k->dims == 0)
        return clframe_fail(CLFRAME_ERR_NO_GLOBAL_SIZE, "%s(%s): no "
                        "global size: call clkernel_global(k, ...) first",
                        who, k->name);
    if (k->sizes_checked)
        return 0;
    /* The driver would read sizes beyond the global's as unset: a local
     * size of 8 x 8 for 64 x 1 work-items would silently be 8. */
    int local_differs = k->has_local && k->local_dims != k->dims;
    if (local_differs || (k->has_offset && k->offset_dims != k->dims))
        return clframe_fail(CLFRAME_ERR_BAD_SIZE, "%s(%s): the "
                            "global size is %u-D, the %s size %u-D: give "
                            "both the same dimensions", who, k->name, k->dims,
                            local_differs ? "local" : "offset",
                            local_differs ? k->local_dims : k->offset_dims);
    for (unsigned d = 0; d < k->dims; d++)
        if (k->global[d] == 0)
            return clframe_fail(CLFRAME_ERR_BAD_SIZE, "%s(%s): global "
                            "size is 0 in dimension %u", who, k->name, d);
    int rc = check_global_limit(k, who);
    if (rc)
        return rc;
    if (k->has_local) {
        char whom[200];
        snprintf(whom, sizeof whom, "%s(%s)", who, k->name);
        rc = clf_check_group(k->ctx, whom, "local size", k->dims, k->local,
                                 clkernel_max_group_size(k));
        if (rc)
            return rc;
        for (unsigned d = 0; d < k->dims; d++)
            if (k->global[d] % k->local[d])
                return clframe_fail(CLFRAME_ERR_BAD_SIZE, "%s(%s): "
                    "global size %zu is not a multiple of local size %zu in "
                    "dimension %u: round the global size up and guard the "
                    "extra work-items in the kernel", who, k->name, k->global[d],
                    k->local[d], d);
    }
    k->sizes_checked = 1;
    return 0;
}

/* ---- calling ------------------------------------------------------------- */

/* How a call runs: on which queue, waiting or not, whole or in chunks of
 * the last dimension's work-items (chunk 0: whole). */
typedef struct call_mode {
    const char *who;             /* the function called, for messages */
    cl_command_queue queue;
    int blocking;
    size_t items, chunk;
} call_mode;

/* Launches k over global work-items from offset (NULL: none) on queue. A
 * timed launch's event joins the context's pending ones, read at the next
 * collection into the kernel's totals and, when profiling or tracing, its
 * name's (which the trace names it by). */
static int launch(clkernel *k, cl_command_queue queue, const size_t *offset,
                  const size_t *global)
{
    clctx *ctx = k->ctx;
    cl_event ev = NULL;
    int want_event = k->timing | ctx->timing | clf_keeps_events(ctx);
    cl_int err;
    for (int tries = 0; tries < 2; tries++) {
        err = clEnqueueNDRangeKernel(queue, k->kernel, k->dims, offset, global,
                                     k->has_local ? k->local : NULL, 0, NULL,
                                     want_event ? &ev : NULL);
        if (err == CL_SUCCESS || tries || !clf_pool_retry(ctx, err))
            break;
    }
    if (err != CL_SUCCESS)
        return clf_fail_cl(err, "clEnqueueNDRangeKernel", "kernel %s, global "
                           "%zux%zux%zu, local %zux%zux%zu on %s", k->name,
                           global[0], global[1], global[2], k->local[0],
                           k->local[1], k->local[2], ctx->device_name);
    if (ev) {
        clf_track(ctx, 1);
        if (!k->profile && clf_trace_on())
            k->profile = clf_kernel_profile_for(ctx, k->name);
        clf_keep_event(ctx, ev, CLF_EV_KERNEL, 0, k->profile, &k->times);
    }
    ctx->stats.kernel_runs++;
    k->runs++;
    return 0;
}

/* The copy queues a chunked call runs on, made when first needed. */
static int open_copy_queues(clctx *ctx)
{
    for (int q = 0; q < 2; q++)
        if (!ctx->copy_queue[q] && clf_new_queue(ctx, &ctx->copy_queue[q]))
            return CLFRAME_ERR_USAGE;   /* the message is set */
    return 0;
}

/* Launches work-items [w0, w1) of k's last dimension on queue: all of
 * them at k's offset, or one chunk of a chunked call. A call runs it
 * between its copies in and out (clf_call's launch, memory.c). */
static int launch_part(void *kernel, cl_command_queue queue, size_t w0,
                       size_t w1)
{
    clkernel *k = kernel;
    unsigned d = k->dims - 1;
    if (w0 == 0 && w1 == k->global[d])
        return launch(k, queue, k->has_offset ? k->offset : NULL, k->global);
    size_t offset[3] = {0, 0, 0}, global[3];
    memcpy(global, k->global, sizeof global);
    if (k->has_offset)
        memcpy(offset, k->offset, sizeof offset);
    offset[d] += w0;
    global[d] = w1 - w0;
    return launch(k, queue, offset, global);
}

static int run(clkernel *k, const call_mode *p, unsigned nargs,
               const clarg *args)
{
    if (!k)
        return clf_fail_null(p->who, "kernel");
    if (nargs && !args)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s(%s): NULL argument list",
                            p->who, k->name);
    int rc = check_sizes(k, p->who);
    if (rc)
        return rc;
    /* One chunk that holds the whole range is a plain call. */
    size_t run_chunk = p->chunk < k->global[k->dims - 1] ? p->chunk : 0;
    clf_call c = {.ctx = k->ctx, .kernel = k->kernel, .who = p->who,
                  .name = k->name, .params = k->params,
                  .nparams = k->nparams, .signature = k->signature,
                  .names = &k->names, .dims = k->dims, .global = k->global,
                  .local = k->has_local ? k->local : NULL, .queue = p->queue,
                  .blocking = p->blocking, .items = p->items,
                  .chunk = p->chunk, .run_chunk = run_chunk, .nargs = nargs,
                  .args = args, .launch = launch_part, .launcher = k};
    c.keeps_events = clf_keeps_events(k->ctx);
    rc = clf_call_plan(&c);
    if (rc == 0)
        rc = clf_check_call(&c);
    if (rc == 0 && p->chunk)
        rc = open_copy_queues(k->ctx);
    if (rc == 0)
        rc = clf_call_run(&c);
    if (c.plan != c.planned)
        free(c.plan);
    return rc;
}

int clkernel_call_args(clkernel *k, unsigned nargs, const clarg *args)
{
    call_mode p = {.who = "clkernel_call",
                   .queue = k ? k->ctx->queue : NULL, .blocking = 1};
    return run(k, &p, nargs, args);
}

int clkernel_enqueue_args(clkernel *k, unsigned nargs, const clarg *args)
{
    call_mode p = {.who = "clkernel_enqueue",
                   .queue = k ? k->ctx->queue : NULL};
    return run(k, &p, nargs, args);
}

int clkernel_enqueue_on_args(clkernel *k, clstream *s, unsigned nargs,
                             const clarg *args)
{
    if (k && s && s->ctx != k->ctx)
        return clframe_fail(CLFRAME_ERR_USAGE, "clkernel_enqueue_on(%s): the "
                            "stream is on %s, the kernel on %s", k->name,
                            s->ctx->device_name, k->ctx->device_name);
    call_mode p = {.who = "clkernel_enqueue_on",
                   .queue = k ? clf_stream_queue(k->ctx, s) : NULL};
    return run(k, &p, nargs, args);
}

int clkernel_call_chunked_args(clkernel *k, size_t items, size_t chunk,
                               unsigned nargs, const clarg *args)
{
    if (k && chunk == 0)
        return clframe_fail(CLFRAME_ERR_BAD_SIZE, "clkernel_call_chunked(%s): "
                            "chunks of 0 work-items", k->name);
    call_mode p = {.who = "clkernel_call_chunked",
                   .queue = k ? k->ctx->queue : NULL, .blocking = 1,
                   .items = items, .chunk = chunk};
    return run(k, &p, nargs, args);
}

/* ---- accessors ----------------------------------------------------------- */

int clkernel_set_timing(clkernel *k, int on)
{
    if (!k)
        return clf_fail_null("clkernel_set_timing", "kernel");
    k->timing = on != 0;
    return 0;
}

/* Reads k's pending events into its totals, and with them every other
 * pending event of its context: one wait for the lot, as at the other
 * collections. Nothing to wait for when k's events have all been read. */
static void read_times(clkernel *k)
{
    if (k->times.unread)
        clf_collect_events(k->ctx);
}

double clkernel_last_ms(clkernel *k)
{
    if (!k)
        return -1;
    read_times(k);
    return k->times.last_ms;
}

uint64_t clkernel_runs(clkernel *k)
{
    return k ? k->runs : 0;
}

double clkernel_total_ms(clkernel *k)
{
    if (!k) {
        clf_fail_null("clkernel_total_ms", "kernel");
        return -1;
    }
    read_times(k);
    return k->times.total_ms;
}

int clf_kernel_cross_check(const clkernel *k) { return k ? k->cross_check : 0; }
const char *clkernel_name(clkernel *k) { return k ? k->name : ""; }
const char *clkernel_signature(clkernel *k) { return k ? k->signature : ""; }
unsigned clkernel_num_args(clkernel *k) { return k ? k->nparams : 0; }
cl_kernel clkernel_raw(clkernel *k) { return k ? k->kernel : NULL; }
clctx *clkernel_ctx(clkernel *k) { return k ? k->ctx : NULL; }
