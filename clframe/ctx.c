/*
 * ctx.c: a context: its device's OpenCL context and queue, what clframe
 * learns of the device when it opens (select.c chooses which), the
 * default context, and the counters that the other modules fill.
 */
#include "internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- creating and freeing ------------------------------------------------ */

/* Whether the device's memory is the host's, and the alignment a
 * sub-buffer's offset needs: what pinned memory used in place asks. */
static void read_memory_model(clctx *ctx)
{
    cl_bool unified = CL_FALSE;
    cl_uint align_bits = 0;
    clGetDeviceInfo(ctx->device, CL_DEVICE_HOST_UNIFIED_MEMORY,
                    sizeof unified, &unified, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN,
                    sizeof align_bits, &align_bits, NULL);
    /* Oclgrind enforces what OpenCL says of a kernel that uses a mapped
     * buffer (undefined; host.c's comment says why the others are fine):
     * there, pinned arrays are copied, which checks that path instead. */
    ctx->shares_memory = !ctx->on_oclgrind &&
                         ((ctx->type & CL_DEVICE_TYPE_CPU) || unified);
    /* A driver that answers nothing gets the largest alignment in use
     * (NVIDIA's 4096 bits). */
    ctx->base_align = align_bits >= 8 ? align_bits / 8 : 512;
}

/* clctx_new and clctx_new_nth: the context on the nth of the devices that
 * the rules match, by_index saying which call it was, for describe. */
static clctx *new_context(const char *selector, unsigned nth, int by_index)
{
    clf_candidate chosen;
    char why[512];
    if (clf_select_device(selector, nth, by_index, &chosen, why, sizeof why))
        return NULL;
    clctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx) {
        clframe_fail(CLFRAME_ERR_NO_MEMORY, "%s: out of host memory",
                     by_index ? "clctx_new_nth" : "clctx_new");
        return NULL;
    }
    const clf_candidate *c = &chosen;
    ctx->platform = c->platform;
    ctx->device = c->device;
    ctx->type = c->type;
    snprintf(ctx->device_name, sizeof ctx->device_name, "%.*s",
             (int)sizeof ctx->device_name - 1, c->name);
    char version[128] = "";
    clGetDeviceInfo(c->device, CL_DEVICE_VERSION, sizeof version - 1, version,
                    NULL);
    ctx->debug = clf_env_on("CL_DEBUG");
    ctx->on_oclgrind = strcmp(c->platform_name, "Oclgrind") == 0;
    ctx->on_nvidia = strstr(c->platform_name, "NVIDIA") != NULL;
    ctx->profile = clf_env_on("CLFRAME_PROFILE");
    snprintf(ctx->describe, sizeof ctx->describe,
             "%s [%s, %s, %s], platform %u device %u: %s%s", c->name,
             clf_device_type_word(c->type), c->platform_name, version, c->pi, c->di, why,
             ctx->debug ? " (debug mode)" : "");
    if (ctx->debug)             /* so a quiet run still shows where it ran */
        fprintf(stderr, "clframe: %s\n", ctx->describe);

    clGetDeviceInfo(ctx->device, CL_DEVICE_MAX_WORK_GROUP_SIZE,
                    sizeof ctx->max_group, &ctx->max_group, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_MAX_WORK_ITEM_SIZES,
                    sizeof ctx->max_item, ctx->max_item, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_LOCAL_MEM_SIZE,
                    sizeof ctx->local_mem, &ctx->local_mem, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
                    sizeof ctx->max_alloc, &ctx->max_alloc, NULL);
    cl_uint bits = 0;
    clGetDeviceInfo(ctx->device, CL_DEVICE_ADDRESS_BITS, sizeof bits, &bits,
                    NULL);
    ctx->global_limit = bits >= 8 && bits < 64 ? (size_t)1 << (bits - 1)
                                               : (size_t)1 << 63;
    read_memory_model(ctx);
    if (clf_pool_open(ctx)) {
        free(ctx);
        return NULL;
    }

    cl_int err;
    cl_context_properties props[] = {
        CL_CONTEXT_PLATFORM, (cl_context_properties)ctx->platform, 0};
    ctx->context = clCreateContext(props, 1, &ctx->device, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        clf_fail_cl(err, "clCreateContext", "on %s", ctx->device_name);
        free(ctx);
        return NULL;
    }
    ctx->queue = clCreateCommandQueue(ctx->context, ctx->device,
                                      CL_QUEUE_PROFILING_ENABLE, &err);
    if (err != CL_SUCCESS) {
        clf_fail_cl(err, "clCreateCommandQueue", "on %s", ctx->device_name);
        clReleaseContext(ctx->context);
        free(ctx);
        return NULL;
    }
    return ctx;
}

clctx *clctx_new(const char *selector)
{
    return new_context(selector, 0, 0);
}

clctx *clctx_new_nth(const char *selector, unsigned index)
{
    return new_context(selector, index, 1);
}

static pthread_mutex_t default_lock = PTHREAD_MUTEX_INITIALIZER;
static clctx *default_ctx;

void clctx_free(clctx *ctx)
{
    if (!ctx)
        return;
    pthread_mutex_lock(&default_lock);
    if (ctx == default_ctx)         /* the next clctx_default makes a new one */
        default_ctx = NULL;
    pthread_mutex_unlock(&default_lock);
    clf_finish_all(ctx);
    clf_host_free_all(ctx);
    if (ctx->profile)
        clf_print_profile(ctx);
    clf_collect_events(ctx);
    clf_pool_close(ctx);
    clf_program_free_all(ctx);
    clReleaseCommandQueue(ctx->queue);
    for (int i = 0; i < 2; i++)
        if (ctx->copy_queue[i])
            clReleaseCommandQueue(ctx->copy_queue[i]);
    clReleaseContext(ctx->context);
    free(ctx->kprof);
    free(ctx->pending);
    free(ctx);
}

/* The default context: created once, under a lock, freed at exit. A failed
 * creation is retried by the next call, after the user fixed the cause. */
static void free_default(void)
{
    /* Oclgrind (21.10) frees its own state before atexit handlers run;
     * releasing objects then corrupts its heap. The process is ending. */
    if (default_ctx && default_ctx->on_oclgrind)
        return;
    clctx_free(default_ctx);
}

clctx *clctx_default(void)
{
    pthread_mutex_lock(&default_lock);
    if (!default_ctx) {
        default_ctx = clctx_new(NULL);
        static int registered;
        if (default_ctx && !registered) {
            atexit(free_default);
            registered = 1;
        }
    }
    clctx *ctx = default_ctx;
    pthread_mutex_unlock(&default_lock);
    return ctx;
}

clctx *clf_ctx(clctx *ctx)
{
    return ctx ? ctx : clctx_default();
}

/* ---- accessors ----------------------------------------------------------- */

#define CTX_OR(ctx, fallback) \
    do { if (!((ctx) = clf_ctx(ctx))) return (fallback); } while (0)

cl_platform_id clctx_platform(clctx *ctx) { CTX_OR(ctx, NULL); return ctx->platform; }
cl_device_id clctx_device(clctx *ctx) { CTX_OR(ctx, NULL); return ctx->device; }
cl_context clctx_context(clctx *ctx) { CTX_OR(ctx, NULL); return ctx->context; }
cl_command_queue clctx_queue(clctx *ctx) { CTX_OR(ctx, NULL); return ctx->queue; }
const char *clctx_describe(clctx *ctx) { CTX_OR(ctx, "no device"); return ctx->describe; }
const char *clctx_device_name(clctx *ctx) { CTX_OR(ctx, "no device"); return ctx->device_name; }
cl_device_type clctx_device_type(clctx *ctx) { CTX_OR(ctx, 0); return ctx->type; }
int clctx_debug(clctx *ctx) { CTX_OR(ctx, 0); return ctx->debug; }
size_t clctx_max_work_group_size(clctx *ctx) { CTX_OR(ctx, 1); return ctx->max_group; }
cl_ulong clctx_local_mem_size(clctx *ctx) { CTX_OR(ctx, 0); return ctx->local_mem; }
int clctx_pinned_in_place(clctx *ctx) { CTX_OR(ctx, 0); return ctx->shares_memory; }

const char *clctx_exact_fp_option(clctx *ctx)
{
    CTX_OR(ctx, "");
    cl_device_fp_config fp = 0;
    clGetDeviceInfo(ctx->device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp,
                    NULL);
    return fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT
        ? "-cl-fp32-correctly-rounded-divide-sqrt" : "";
}

clctx_stats clctx_get_stats(clctx *ctx)
{
    clctx_stats none = {0};
    CTX_OR(ctx, none);
    clctx_stats st = ctx->stats;
    st.pool_bytes = ctx->pool.bytes;
    return st;
}

int clctx_set_timing(clctx *ctx, int on)
{
    CTX_OR(ctx, CLFRAME_ERR_NO_DEVICE);
    ctx->timing = on != 0;
    return 0;
}

double clctx_kernel_ms(clctx *ctx)
{
    CTX_OR(ctx, -1);
    clf_collect_events(ctx);
    return ctx->kernel_ms;
}

int clctx_finish(clctx *ctx)
{
    if (!(ctx = clf_ctx(ctx)))
        return CLFRAME_ERR_NO_DEVICE;
    cl_int err = clf_finish_all(ctx);
    if (err != CL_SUCCESS)
        return clf_fail_cl(err, "clFinish", "waiting for %s", ctx->device_name);
    clf_collect_events(ctx);
    return 0;
}

/* ---- tracked objects and transfers --------------------------------------- */

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

void clf_release_event(clctx *ctx, cl_event ev)
{
    if (ev) {
        clReleaseEvent(ev);
        clf_track(ctx, -1);
    }
}

void clf_count_copy(clctx *ctx, int what, size_t bytes)
{
    if (what == CLF_EV_WRITE) {
        ctx->stats.writes++;
        ctx->stats.bytes_to_device += bytes;
    } else {
        ctx->stats.reads++;
        ctx->stats.bytes_from_device += bytes;
    }
}

cl_int clf_enqueue_copy(clctx *ctx, cl_command_queue queue, int what,
                        cl_mem mem, size_t offset, size_t bytes, void *host,
                        cl_bool blocking)
{
    if (bytes == 0)
        return CL_SUCCESS;
    /* Profiled by the clock when the host waits: NVIDIA's events of a
     * copy of pageable memory span more than the copy (four 256 MB reads
     * of bin/matmul added up to 349 ms in calls that took 130 ms each in
     * all), which made its read-back look three times slower than it is.
     * The queue is finished first, so the clock times the copy alone; an
     * enqueued copy has only its event. */
    cl_event ev = NULL;
    cl_event *evp = ctx->profile && !blocking ? &ev : NULL;
    double start = 0;
    if (ctx->profile && blocking) {
        clFinish(queue);
        start = clf_now_ms();
    }
    cl_int err = clf_before_copy(ctx, what, host, bytes);
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
    clf_after_copy(ctx, queue, what, host, bytes, blocking);
    clf_count_copy(ctx, what, bytes);
    if (ev) {
        clf_track(ctx, 1);
        clf_keep_event(ctx, ev, what, bytes, NULL, NULL);
    } else if (ctx->profile) {
        int d = what == CLF_EV_WRITE ? 0 : 1;
        ctx->transfer_ms[d] += clf_now_ms() - start;
        ctx->transfer_bytes[d] += bytes;
    }
    return CL_SUCCESS;
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

cl_int clf_before_copy(clctx *ctx, int what, const void *host, size_t bytes)
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

void clf_after_copy(clctx *ctx, cl_command_queue queue, int what,
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
    clf_pool_idle(ctx, queue);
}

int clf_copy_failed(cl_int err, int what, size_t bytes, const char *desc)
{
    return clf_fail_cl(err, what == CLF_EV_WRITE ? "clEnqueueWriteBuffer"
                                                 : "clEnqueueReadBuffer",
                       "copying %zu bytes for %s", bytes, desc);
}

int clf_copy(clctx *ctx, cl_command_queue queue, int what, cl_mem mem,
             size_t offset, size_t bytes, void *host, cl_bool blocking,
             const char *desc)
{
    cl_int err = clf_enqueue_copy(ctx, queue, what, mem, offset, bytes, host,
                                  blocking);
    return err == CL_SUCCESS ? 0 : clf_copy_failed(err, what, bytes, desc);
}
