/*
 * ctx.c: choosing a device and owning its context and queue.
 *
 * Selection is one rule list, applied once per context: an explicit selector,
 * else CLFRAME_DEVICE, else the seed's HPCE_SELECT_PLATFORM/DEVICE, else the
 * CPU under CL_DEBUG, else the GPUs, else the CPUs. The rule that applies
 * matches a set of devices, and the context opens the nth of them (modulo
 * their count): the first for clctx_new, an MPI rank's node-local rank for
 * clctx_new_nth. Whatever wins is written into clctx_describe() with the
 * reason, so "why is this running on the CPU?" has an answer. The context
 * also keeps the counters and profile records that the other modules fill.
 */
#include "internal.h"

#include <CL/cl_ext.h>

#include <ctype.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- enumerating devices ------------------------------------------------- */

static const char *type_word(cl_device_type t)
{
    if (t & CL_DEVICE_TYPE_GPU) return "GPU";
    if (t & CL_DEVICE_TYPE_CPU) return "CPU";
    if (t & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
    return "other";
}

/* clGetPlatformIDs, leaving OCL_ICD_FILENAMES as it was. With the list of
 * drivers it names (seen on the GPU machine: "libpocl.so.2:libnvidia-
 * opencl.so.1"), loading them cuts the variable at its first ':' in this
 * process's environment, so that every process started from this one (a
 * test's program, an MPI rank) would load the first driver only and find
 * no GPU. */
static cl_int get_platforms(cl_uint max, cl_platform_id *platforms,
                            cl_uint *n)
{
    clf_cache_point_pocl();
    const char *value = getenv("OCL_ICD_FILENAMES");
    char *before = value ? clf_strdup(value) : NULL;
    cl_int err = clGetPlatformIDs(max, platforms, n);
    value = getenv("OCL_ICD_FILENAMES");
    if (before && (!value || strcmp(value, before) != 0))
        setenv("OCL_ICD_FILENAMES", before, 1);
    free(before);
    return err;
}

/* Fills *out with every device of every platform; returns how many, or a
 * negative code (no platform at all is an error that says what to install). */
static int list_devices(clf_candidate **out)
{
    cl_uint np = 0;
    cl_int err = get_platforms(0, NULL, &np);
    if (err == CL_PLATFORM_NOT_FOUND_KHR || (err == CL_SUCCESS && np == 0))
        return clframe_fail(CLFRAME_ERR_NO_PLATFORM,
            "no OpenCL platform is installed: install a driver, e.g. "
            "'apt-get install pocl-opencl-icd' for the CPU or your GPU "
            "vendor's OpenCL driver, then check with 'clinfo -l'");
    if (err != CL_SUCCESS)
        return clf_fail_cl(err, "clGetPlatformIDs", "listing OpenCL platforms");
    cl_platform_id platforms[64];
    if (np > 64)
        np = 64;
    get_platforms(np, platforms, NULL);

    clf_candidate *list = NULL;
    int n = 0;
    for (cl_uint p = 0; p < np; p++) {
        cl_uint nd = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd) !=
                CL_SUCCESS || nd == 0)
            continue;
        cl_device_id devices[64];
        if (nd > 64)
            nd = 64;
        clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, nd, devices, NULL);
        clf_candidate *grown =
            realloc(list, sizeof *list * (size_t)(n + (int)nd));
        if (!grown) {
            free(list);
            return clframe_fail(CLFRAME_ERR_NO_MEMORY, "listing OpenCL devices");
        }
        list = grown;
        for (cl_uint d = 0; d < nd; d++) {
            clf_candidate *c = &list[n++];
            memset(c, 0, sizeof *c);
            c->pi = p;
            c->di = d;
            c->platform = platforms[p];
            c->device = devices[d];
            clGetDeviceInfo(devices[d], CL_DEVICE_TYPE, sizeof c->type,
                            &c->type, NULL);
            clGetDeviceInfo(devices[d], CL_DEVICE_NAME, sizeof c->name - 1,
                            c->name, NULL);
            clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME,
                              sizeof c->platform_name - 1, c->platform_name,
                              NULL);
        }
    }
    if (n == 0) {
        free(list);
        return clframe_fail(CLFRAME_ERR_NO_DEVICE,
            "%u OpenCL platform(s) found but no device on any of them: "
            "check the driver with 'clinfo -l'", np);
    }
    *out = list;
    return n;
}

/* "0:0 pthread-skylake (CPU); 1:0 NVIDIA H200 (GPU)" for error messages;
 * numbered, "0 is 0:0 pthread-skylake (CPU); 1 is 1:0 ...", with the
 * indices a bare number names. */
static void describe_list(const clf_candidate *c, int n, int numbered,
                          char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used < size; i++) {
        char index[32] = "";
        if (numbered)
            snprintf(index, sizeof index, "%d is ", i);
        int w = snprintf(buf + used, size - used, "%s%s%u:%u %s (%s)",
                         i ? "; " : "", index, c[i].pi, c[i].di, c[i].name,
                         type_word(c[i].type));
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

static int contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] &&
               tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return 1;
    }
    return n == 0;
}

/* A bare number, digits only, into *index (UINT_MAX when larger); 0 if
 * sel is not one. */
static int parse_number(const char *sel, unsigned *index)
{
    unsigned x = 0;
    const char *s = sel;
    for (; *s >= '0' && *s <= '9'; s++) {
        unsigned digit = (unsigned)(*s - '0');
        x = x > (UINT_MAX - digit) / 10 ? UINT_MAX : x * 10 + digit;
    }
    *index = x;
    return s != sel && *s == '\0';
}

/* Parses "P:D" into indices; 0 if sel is not of that form. */
static int parse_indices(const char *sel, unsigned *p, unsigned *d)
{
    char tail;
    return sscanf(sel, "%u:%u%c", p, d, &tail) == 2 &&
           isdigit((unsigned char)sel[0]);
}

/* The nth, modulo their count, of the devices that pass test (in list
 * order), so that ranks numbered 0, 1, 2... go round them; *matched gets
 * the count. -1 when none passes. */
typedef int device_test(const clf_candidate *c, const void *arg);

static int nth_passing(const clf_candidate *c, int n, device_test *test,
                       const void *arg, unsigned nth, int *matched)
{
    int count = 0;
    for (int i = 0; i < n; i++)
        count += test(&c[i], arg);
    *matched = count;
    if (count == 0)
        return -1;
    unsigned skip = nth % (unsigned)count;
    for (int i = 0; i < n; i++)
        if (test(&c[i], arg) && skip-- == 0)
            return i;
    return -1;                  /* not reached: count passed */
}

static int is_of_type(const clf_candidate *c, const void *type)
{
    return (c->type & *(const cl_device_type *)type) != 0;
}

static int name_contains(const clf_candidate *c, const void *part)
{
    return contains_nocase(c->name, part);
}

static int nth_of_type(const clf_candidate *c, int n, cl_device_type type,
                       unsigned nth, int *matched)
{
    return nth_passing(c, n, is_of_type, &type, nth, matched);
}

int clf_apply_selector(const clf_candidate *c, int n, const char *sel,
                       const char *source, unsigned nth, int *matched)
{
    char devices[2048];
    describe_list(c, n, 0, devices, sizeof devices);
    unsigned p, d;
    int i;
    *matched = 0;
    if (strcmp(sel, "gpu") == 0 || strcmp(sel, "GPU") == 0) {
        if ((i = nth_of_type(c, n, CL_DEVICE_TYPE_GPU, nth, matched)) >= 0)
            return i;
        return clframe_fail(CLFRAME_ERR_NO_DEVICE,
            "%s asks for a GPU but there is none (devices: %s); use "
            "CLFRAME_DEVICE=cpu or install the GPU's OpenCL driver",
            source, devices);
    }
    if (strcmp(sel, "cpu") == 0 || strcmp(sel, "CPU") == 0) {
        if ((i = nth_of_type(c, n, CL_DEVICE_TYPE_CPU, nth, matched)) >= 0)
            return i;
        return clframe_fail(CLFRAME_ERR_NO_DEVICE,
            "%s asks for a CPU device but there is none (devices: %s); "
            "install one with 'apt-get install pocl-opencl-icd', or choose "
            "one of these with CLFRAME_DEVICE", source, devices);
    }
    if (parse_indices(sel, &p, &d)) {
        /* One device named: every rank shares it. */
        for (i = 0; i < n; i++)
            if (c[i].pi == p && c[i].di == d) {
                *matched = 1;
                return i;
            }
        return clframe_fail(CLFRAME_ERR_NO_DEVICE,
            "%s names platform %u device %u, which does not exist "
            "(devices: %s)", source, p, d, devices);
    }
    if (parse_number(sel, &p)) {
        /* The device at that place in the whole list, as clframe-info
         * numbers it: one device named, as by P:D. */
        if (p < (unsigned)n) {
            *matched = 1;
            return (int)p;
        }
        describe_list(c, n, 1, devices, sizeof devices);
        return clframe_fail(CLFRAME_ERR_NO_DEVICE,
            "%s names device %s, which does not exist: there %s %d (%s); a "
            "bare number is a device's place in this list, as clframe-info "
            "numbers it; to choose by a name holding a number, give more of "
            "the name than the number", source, sel, n == 1 ? "is" : "are",
            n, devices);
    }
    if (sel[0] == '\0')
        return clframe_fail(CLFRAME_ERR_BAD_SELECTOR, "%s is empty: use gpu, "
                        "cpu, P:D, a device's number or part of a device "
                        "name", source);
    if ((i = nth_passing(c, n, name_contains, sel, nth, matched)) >= 0)
        return i;
    return clframe_fail(CLFRAME_ERR_NO_DEVICE,
        "%s: no device name contains \"%s\" (devices: %s); use gpu, cpu, "
        "P:D, a device's number or part of a device name", source, sel,
        devices);
}

static int env_on(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

/* Reads one HPCE_SELECT_* index; -1 when unset, -2 when not a number. */
static int hpce_index(const char *name)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return -1;
    char *end;
    long x = strtol(v, &end, 10);
    if (*end || x < 0 || x > 1000000)
        return -2;
    return (int)x;
}

/* Picks a device: the rule list at the top of this file, each rule's set
 * gone round by nth. *why gets the reason, and with by_index (clctx_new_nth)
 * where the device sits in the set; clctx_new's reads as it always has.
 * Returns the index into c or a negative code. */
static int choose_device(const clf_candidate *c, int n, const char *selector,
                         unsigned nth, int by_index, char *why,
                         size_t why_size)
{
    char source[300];
    const char *env = getenv("CLFRAME_DEVICE");
    int hp = hpce_index("HPCE_SELECT_PLATFORM");
    int hd = hpce_index("HPCE_SELECT_DEVICE");
    int i, matched = 0;
    if (selector) {
        snprintf(source, sizeof source, "selector \"%s\"", selector);
        if (by_index)
            snprintf(why, why_size, "chosen by clctx_new_nth(\"%s\", %u)",
                     selector, nth);
        else
            snprintf(why, why_size, "chosen by clctx_new(\"%s\")", selector);
        i = clf_apply_selector(c, n, selector, source, nth, &matched);
    } else if (env) {
        snprintf(source, sizeof source, "CLFRAME_DEVICE=%s", env);
        snprintf(why, why_size, "chosen by CLFRAME_DEVICE=%s", env);
        i = clf_apply_selector(c, n, env, source, nth, &matched);
    } else if (hp == -2 || hd == -2) {
        return clframe_fail(CLFRAME_ERR_BAD_SELECTOR,
            "HPCE_SELECT_PLATFORM=%s HPCE_SELECT_DEVICE=%s: each must be a "
            "number (a platform or device index as clframe-info lists them)",
            getenv("HPCE_SELECT_PLATFORM") ? getenv("HPCE_SELECT_PLATFORM") : "",
            getenv("HPCE_SELECT_DEVICE") ? getenv("HPCE_SELECT_DEVICE") : "");
    } else if (hp >= 0 || hd >= 0) {
        char sel[32];
        snprintf(sel, sizeof sel, "%d:%d", hp < 0 ? 0 : hp, hd < 0 ? 0 : hd);
        snprintf(source, sizeof source, "HPCE_SELECT_PLATFORM/DEVICE (%s)", sel);
        snprintf(why, why_size, "chosen by %s", source);
        i = clf_apply_selector(c, n, sel, source, nth, &matched);
    } else if (env_on("CL_DEBUG")) {
        snprintf(why, why_size, "CL_DEBUG=1 asks for a CPU device");
        i = clf_apply_selector(c, n, "cpu", "CL_DEBUG=1", nth, &matched);
    } else if ((i = nth_of_type(c, n, CL_DEVICE_TYPE_GPU, nth,
                                &matched)) >= 0) {
        snprintf(why, why_size, "%s", by_index ? "the GPUs" : "the first GPU");
    } else if ((i = nth_of_type(c, n, CL_DEVICE_TYPE_CPU, nth,
                                &matched)) >= 0) {
        snprintf(why, why_size, "no GPU found, so the CPU fallback");
    } else {
        snprintf(why, why_size, "no GPU or CPU device, so %s",
                 by_index ? "any device" : "the first device");
        matched = n;
        i = (int)(nth % (unsigned)n);
    }
    if (i >= 0 && by_index) {
        size_t used = strlen(why);
        snprintf(why + used, why_size - used, ": device %u of %d (index %u)",
                 nth % (unsigned)matched + 1, matched, nth);
    }
    return i;
}

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
    clf_candidate *list = NULL;
    int n = list_devices(&list);
    if (n < 0)
        return NULL;
    char why[512];
    int i = choose_device(list, n, selector, nth, by_index, why, sizeof why);
    if (i < 0) {
        free(list);
        return NULL;
    }
    clctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx) {
        free(list);
        clframe_fail(CLFRAME_ERR_NO_MEMORY, "%s: out of host memory",
                     by_index ? "clctx_new_nth" : "clctx_new");
        return NULL;
    }
    const clf_candidate *c = &list[i];
    ctx->platform = c->platform;
    ctx->device = c->device;
    ctx->type = c->type;
    snprintf(ctx->device_name, sizeof ctx->device_name, "%s", c->name);
    char version[128] = "";
    clGetDeviceInfo(c->device, CL_DEVICE_VERSION, sizeof version - 1, version,
                    NULL);
    ctx->debug = env_on("CL_DEBUG");
    ctx->on_oclgrind = strcmp(c->platform_name, "Oclgrind") == 0;
    ctx->on_nvidia = strstr(c->platform_name, "NVIDIA") != NULL;
    ctx->profile = env_on("CLFRAME_PROFILE");
    snprintf(ctx->describe, sizeof ctx->describe,
             "%s [%s, %s, %s], platform %u device %u: %s%s", c->name,
             type_word(c->type), c->platform_name, version, c->pi, c->di, why,
             ctx->debug ? " (debug mode)" : "");
    free(list);
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

static void print_profile(clctx *ctx)
{
    clf_collect_events(ctx);
    fprintf(stderr, "\nclframe profile: %s\n", ctx->device_name);
    fprintf(stderr, "  %-32s %8s %12s %10s %10s\n", "kernel", "calls",
            "total ms", "mean ms", "max ms");
    for (size_t i = 0; i < ctx->nkprof; i++) {
        clf_kernel_profile *k = &ctx->kprof[i];
        fprintf(stderr, "  %-32s %8llu %12.3f %10.4f %10.4f\n", k->name,
                (unsigned long long)k->calls, k->total_ms,
                k->calls ? k->total_ms / (double)k->calls : 0.0, k->max_ms);
    }
    static const char *dir[2] = {"host -> device", "device -> host"};
    fprintf(stderr, "  %-32s %8s %12s %10s %10s\n", "transfer", "copies",
            "bytes", "ms", "GB/s");
    for (int d = 0; d < 2; d++) {
        double ms = ctx->transfer_ms[d];
        uint64_t copies = d == 0 ? ctx->stats.writes : ctx->stats.reads;
        fprintf(stderr, "  %-32s %8llu %12llu %10.3f %10.2f\n", dir[d],
                (unsigned long long)copies,
                (unsigned long long)ctx->transfer_bytes[d], ms,
                ms > 0 ? (double)ctx->transfer_bytes[d] / (ms * 1e6) : 0.0);
    }
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
        print_profile(ctx);
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

/* ---- profiling records --------------------------------------------------- */

clf_kernel_profile *clf_kernel_profile_for(clctx *ctx, const char *name)
{
    for (size_t i = 0; i < ctx->nkprof; i++)
        if (strncmp(ctx->kprof[i].name, name, sizeof ctx->kprof[i].name - 1) == 0)
            return &ctx->kprof[i];
    /* Kernels hold pointers into this array, so it never moves: a fixed
     * capacity, generous for any program; past it, kernels go unprofiled. */
    enum { MAX_PROFILED_KERNELS = 256 };
    if (!ctx->kprof)
        ctx->kprof = calloc(MAX_PROFILED_KERNELS, sizeof *ctx->kprof);
    if (!ctx->kprof || ctx->nkprof == MAX_PROFILED_KERNELS)
        return NULL;
    clf_kernel_profile *k = &ctx->kprof[ctx->nkprof++];
    snprintf(k->name, sizeof k->name, "%s", name);
    k->last_ms = -1;
    return k;
}

double clf_event_ms(cl_event ev)
{
    cl_ulong start = 0, end = 0;
    if (clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof start,
                                &start, NULL) != CL_SUCCESS ||
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end, &end,
                                NULL) != CL_SUCCESS)
        return -1;
    return (double)(end - start) * 1e-6;
}

/* A kernel event read: its time, when the driver gave one, added. */
static void add_kernel_time(clf_kernel_profile *totals, double ms)
{
    if (!totals)
        return;
    totals->unread--;
    if (ms < 0)
        return;
    totals->calls++;
    totals->total_ms += ms;
    totals->last_ms = ms;
    if (ms > totals->max_ms)
        totals->max_ms = ms;
}

static void record_event(clctx *ctx, const clf_pending_event *p)
{
    double ms = clf_event_ms(p->event);
    if (p->what == CLF_EV_KERNEL) {
        add_kernel_time(p->kernel, ms);
        add_kernel_time(p->launch, ms);
        if (ms >= 0)
            ctx->kernel_ms += ms;
    } else if (ms >= 0) {
        int d = p->what == CLF_EV_WRITE ? 0 : 1;
        ctx->transfer_ms[d] += ms;
        ctx->transfer_bytes[d] += p->bytes;
    }
}

/* Takes over the caller's reference to ev (already counted as live). */
void clf_keep_event(clctx *ctx, cl_event ev, int what, size_t bytes,
                    clf_kernel_profile *kernel, clf_kernel_profile *launch)
{
    enum { MAX_PENDING = 4096 };
    if (ctx->npending == MAX_PENDING)
        clf_collect_events(ctx);
    if (!ctx->pending)
        ctx->pending = malloc(MAX_PENDING * sizeof *ctx->pending);
    if (!ctx->pending) {
        clf_release_event(ctx, ev);
        return;
    }
    ctx->pending[ctx->npending++] =
        (clf_pending_event){.event = ev, .what = what, .bytes = bytes,
                            .kernel = kernel, .launch = launch};
    if (kernel)
        kernel->unread++;
    if (launch)
        launch->unread++;
}

void clf_forget_profile(clctx *ctx, const clf_kernel_profile *totals)
{
    for (size_t i = 0; i < ctx->npending; i++) {
        if (ctx->pending[i].kernel == totals)
            ctx->pending[i].kernel = NULL;
        if (ctx->pending[i].launch == totals)
            ctx->pending[i].launch = NULL;
    }
}

void clf_collect_events(clctx *ctx)
{
    if (ctx->npending == 0)
        return;
    for (size_t i = 0; i < ctx->npending; i++)
        clWaitForEvents(1, &ctx->pending[i].event);
    for (size_t i = 0; i < ctx->npending; i++) {
        record_event(ctx, &ctx->pending[i]);
        clf_release_event(ctx, ctx->pending[i].event);
    }
    ctx->npending = 0;
}
