/*
 * ctx.c: a context: its device's OpenCL context and queue, what clframe
 * learns of the device when it opens (select.c chooses which), the
 * default context, and the counters that the other modules fill.
 */
#include "core.h"

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
     * buffer (undefined; memory.c's comment says why the others are fine):
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
    if (clf_trace_from_env())       /* CLFRAME_TRACE names a file it cannot write */
        return NULL;
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
    if (clf_pool_open(ctx) || clf_cache_max(&ctx->cache_max)) {
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

/* clf_finish_all, the wait traced. */
static cl_int finish_all_traced(clctx *ctx)
{
    double start = clf_now_ms();
    cl_int err = clf_finish_all(ctx);
    clf_trace_wait("clctx_finish", start, clf_now_ms());
    return err;
}

int clctx_finish(clctx *ctx)
{
    if (!(ctx = clf_ctx(ctx)))
        return CLFRAME_ERR_NO_DEVICE;
    cl_int err = clf_trace_on() ? finish_all_traced(ctx) : clf_finish_all(ctx);
    if (err != CL_SUCCESS)
        return clf_fail_cl(err, "clFinish", "waiting for %s", ctx->device_name);
    clf_collect_events(ctx);
    return 0;
}
