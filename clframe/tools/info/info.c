/*
 * info.c: clframe-info, the first thing to run on a new machine.
 *
 * It answers three questions before any kernel is written: which OpenCL
 * platforms and devices are there (with the P:D and N indices that
 * CLFRAME_DEVICE takes, and the limits that decide work-group sizes), which one would
 * clctx_default() pick and why, and can kernels be checked under Oclgrind.
 *
 * The listing uses raw OpenCL on purpose: clframe only ever opens the one
 * device it chose, and this program must show all of them, including those
 * it would not choose. The indices are the ones clframe's selector uses:
 * platforms in clGetPlatformIDs order, devices of CL_DEVICE_TYPE_ALL, and
 * N counting the devices of every platform in that order.
 */
#include "clframe.h"

#include <CL/cl_ext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *out)
{
    fprintf(out,
        "usage: clframe-info [--help | --version | --cache | --clear-cache]\n"
        "\n"
        "Lists every OpenCL platform and device with its limits, the device\n"
        "clframe would choose and why, and whether Oclgrind is available.\n"
        "--version prints the version of clframe, as clframe_version() does.\n"
        "--cache prints the program cache's folder, its entries, their size\n"
        "and its cap (CLFRAME_CACHE_MAX); --clear-cache removes its entries\n"
        "(compiled programs only: not the settings, nor PoCL's pocl/).\n"
        "\n"
        "clframe chooses, as clctx_new(NULL) does: CLFRAME_DEVICE if set (gpu,\n"
        "cpu, P:D or N, the indices listed here, or part of a device name),\n"
        "else HPCE_SELECT_PLATFORM and HPCE_SELECT_DEVICE if set, else the\n"
        "first CPU device when CL_DEBUG=1, else the first GPU, else the first\n"
        "CPU device. CL_DEBUG=1 also turns on debug mode on the device chosen,\n"
        "whichever it is: CLFRAME_DEVICE=gpu CL_DEBUG=1 debugs on the GPU.\n");
}

/* ---- reading properties ------------------------------------------------- */

/* A string property of a platform (d == NULL) or a device, malloc'd; NULL
 * if the driver cannot say. The size is asked first because a too-small
 * buffer is an error, not a truncation, in OpenCL. */
static char *info_string(cl_platform_id p, cl_device_id d, cl_uint what)
{
    size_t size = 0;
    cl_int err = d ? clGetDeviceInfo(d, what, 0, NULL, &size)
                   : clGetPlatformInfo(p, what, 0, NULL, &size);
    if (err != CL_SUCCESS)
        return NULL;
    char *s = calloc(size + 1, 1);
    if (!s)
        return NULL;
    err = d ? clGetDeviceInfo(d, what, size, s, NULL)
            : clGetPlatformInfo(p, what, size, s, NULL);
    if (err != CL_SUCCESS) {
        free(s);
        return NULL;
    }
    return s;
}

static cl_ulong device_ulong(cl_device_id d, cl_device_info what)
{
    cl_ulong v = 0;
    clGetDeviceInfo(d, what, sizeof v, &v, NULL);
    return v;
}

static cl_uint device_uint(cl_device_id d, cl_device_info what)
{
    cl_uint v = 0;
    clGetDeviceInfo(d, what, sizeof v, &v, NULL);
    return v;
}

/* 1 if the space-separated list has exactly this word. */
static int has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; p && (p = strstr(p, word)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
    return 0;
}

/* ---- printing ----------------------------------------------------------- */

static void print_field(const char *label, const char *value)
{
    printf("    %-22s %s\n", label, value ? value : "(unknown)");
}

/* Prints a string property and frees it. */
static void print_info_string(const char *label, cl_platform_id p,
                              cl_device_id d, cl_uint what)
{
    char *s = info_string(p, d, what);
    print_field(label, s);
    free(s);
}

static void format_bytes(cl_ulong bytes, char *buf, size_t size)
{
    static const char *unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    double x = (double)bytes;
    int u = 0;
    while (x >= 1024 && u < 4) {
        x /= 1024;
        u++;
    }
    snprintf(buf, size, u ? "%.1f %s" : "%.0f %s", x, unit[u]);
}

static void format_type(cl_device_type t, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s",
             t & CL_DEVICE_TYPE_GPU ? "GPU" :
             t & CL_DEVICE_TYPE_CPU ? "CPU" :
             t & CL_DEVICE_TYPE_ACCELERATOR ? "accelerator" :
             t & CL_DEVICE_TYPE_CUSTOM ? "custom" : "other",
             t & CL_DEVICE_TYPE_DEFAULT ? " (the platform's default)" : "");
}

/* "1024 x 1024 x 64" */
static void format_item_sizes(cl_device_id d, char *buf, size_t size)
{
    size_t sizes[64] = {0};
    cl_uint dims = device_uint(d, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS);
    if (dims > 64)
        dims = 64;
    buf[0] = '\0';
    if (dims == 0 || clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_ITEM_SIZES,
                                     sizeof sizes, sizes, NULL) != CL_SUCCESS) {
        snprintf(buf, size, "(unknown)");
        return;
    }
    size_t used = 0;
    for (cl_uint i = 0; i < dims && used < size; i++) {
        int w = snprintf(buf + used, size - used, "%s%zu", i ? " x " : "",
                         sizes[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

/* Device di of platform pi, the number-th of all: the two ways
 * CLFRAME_DEVICE names it. */
static void print_device(cl_device_id d, unsigned pi, unsigned di,
                         unsigned number)
{
    char *name = info_string(NULL, d, CL_DEVICE_NAME);
    char buf[256];
    cl_device_type type = 0;
    clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof type, &type, NULL);

    printf("  device %u:%u  %s\n", pi, di, name ? name : "(unnamed)");
    free(name);
    snprintf(buf, sizeof buf, "%u:%u or %u", pi, di, number);
    print_field("CLFRAME_DEVICE", buf);
    format_type(type, buf, sizeof buf);
    print_field("type", buf);
    snprintf(buf, sizeof buf, "%u",
             device_uint(d, CL_DEVICE_MAX_COMPUTE_UNITS));
    print_field("compute units", buf);
    snprintf(buf, sizeof buf, "%u MHz",
             device_uint(d, CL_DEVICE_MAX_CLOCK_FREQUENCY));
    print_field("max clock", buf);
    format_bytes(device_ulong(d, CL_DEVICE_GLOBAL_MEM_SIZE), buf, sizeof buf);
    print_field("global memory", buf);
    format_bytes(device_ulong(d, CL_DEVICE_LOCAL_MEM_SIZE), buf, sizeof buf);
    print_field("local memory", buf);
    size_t group = 0;
    clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof group, &group,
                    NULL);
    snprintf(buf, sizeof buf, "%zu", group);
    print_field("max work-group size", buf);
    format_item_sizes(d, buf, sizeof buf);
    print_field("max work-item sizes", buf);
    print_info_string("OpenCL C version", NULL, d, CL_DEVICE_OPENCL_C_VERSION);
    print_info_string("driver version", NULL, d, CL_DRIVER_VERSION);
    char *ext = info_string(NULL, d, CL_DEVICE_EXTENSIONS);
    print_field("double (cl_khr_fp64)", has_word(ext, "cl_khr_fp64") ? "yes"
                                                                      : "no");
    free(ext);
}

/* Prints one platform and its devices, numbering them on from *number;
 * 1 if it is Oclgrind's. */
static int print_platform(cl_platform_id p, unsigned pi, unsigned *number)
{
    char *name = info_string(p, NULL, CL_PLATFORM_NAME);
    int is_oclgrind = name && strstr(name, "Oclgrind") != NULL;
    printf("platform %u: %s\n", pi, name ? name : "(unnamed)");
    free(name);
    char *vendor = info_string(p, NULL, CL_PLATFORM_VENDOR);
    char *version = info_string(p, NULL, CL_PLATFORM_VERSION);
    printf("  vendor %s, version %s\n", vendor ? vendor : "(unknown)",
           version ? version : "(unknown)");
    free(vendor);
    free(version);

    cl_uint nd = 0;
    cl_int err = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, NULL, &nd);
    cl_device_id *devices = nd ? calloc(nd, sizeof *devices) : NULL;
    if (err != CL_SUCCESS || nd == 0 || !devices ||
        clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, devices, NULL) != CL_SUCCESS)
        printf("  no devices (%s)\n", clframe_error_name(err));
    else
        for (cl_uint d = 0; d < nd; d++)
            print_device(devices[d], pi, d, (*number)++);
    free(devices);
    return is_oclgrind;
}

/* Lists every platform. Returns the number with an Oclgrind platform in
 * *oclgrind, or -1 with a message when there is none (or no ICD loader). */
static int list_platforms(int *oclgrind)
{
    cl_uint np = 0;
    cl_int err = clGetPlatformIDs(0, NULL, &np);
    if (err == CL_PLATFORM_NOT_FOUND_KHR || (err == CL_SUCCESS && np == 0)) {
        fprintf(stderr, "clframe-info: no OpenCL platform is installed.\n"
            "Install one: 'apt-get install pocl-opencl-icd' for the CPU, or "
            "your GPU vendor's OpenCL driver; then check with 'clinfo -l'.\n");
        return -1;
    }
    cl_platform_id *platforms = calloc(np ? np : 1, sizeof *platforms);
    if (err == CL_SUCCESS && platforms)
        err = clGetPlatformIDs(np, platforms, NULL);
    if (err != CL_SUCCESS || !platforms) {
        fprintf(stderr, "clframe-info: clGetPlatformIDs failed (%s)\n",
                platforms ? clframe_error_name(err) : "out of memory");
        free(platforms);
        return -1;
    }
    *oclgrind = 0;
    unsigned number = 0;
    for (cl_uint p = 0; p < np; p++) {
        if (p)
            printf("\n");
        *oclgrind |= print_platform(platforms[p], p, &number);
    }
    free(platforms);
    return (int)np;
}

/* ---- the default device and Oclgrind ------------------------------------ */

/* Prints clctx_default()'s choice, ctx (NULL: it failed, with why); 0, or
 * -1 if it could not open a device. */
static int print_default(clctx *ctx, const char *why)
{
    printf("\nclctx_default() chooses:\n");
    if (!ctx) {
        printf("  nothing: see the error below\n");
        fprintf(stderr, "clframe-info: %s\n", why);
        return -1;
    }
    printf("  %s\n", clctx_describe(ctx));
    return 0;
}

/* Searches PATH for an executable file, as a shell would, without one.
 * Writes the full path into buf; 1 if found. */
static int find_on_path(const char *program, char *buf, size_t size)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        return 0;
    for (const char *dir = path;; dir++) {
        size_t n = strcspn(dir, ":");
        struct stat st;
        /* An empty PATH entry means the current directory. */
        snprintf(buf, size, "%.*s/%s", n ? (int)n : 1, n ? dir : ".", program);
        if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) &&
            access(buf, X_OK) == 0)
            return 1;
        dir += n;
        if (*dir == '\0')
            return 0;
    }
}

static void print_oclgrind(int has_platform)
{
    char program[4096];
    int has_program = find_on_path("oclgrind", program, sizeof program);
    printf("\nOclgrind (a simulator that checks kernels for bad accesses and "
           "races):\n");
    /* bin/clframe-demo is there only in clframe's own tree. */
    if (has_program && access("bin/clframe-demo", X_OK) == 0)
        printf("  program: %s: run 'oclgrind bin/clframe-demo' to check the "
               "demo's kernels\n", program);
    else if (has_program)
        printf("  program: %s: run 'oclgrind ./your-program' to check its "
               "kernels\n", program);
    else
        printf("  program: not on PATH\n");
    printf("  platform: %s\n", has_platform ? "present (listed above)"
                                            : "not installed as an ICD");
    if (!has_program && !has_platform)
        printf("  install it with 'apt-get install oclgrind'\n");
}

/* ---- the program cache --------------------------------------------------- */

/* --cache: the folder, its entries and the cap; 0, or 1 on an error. */
static int print_cache(void)
{
    clframe_cache_usage u;
    if (clframe_cache_get_usage(&u) != 0) {
        fprintf(stderr, "clframe-info: %s\n", clframe_last_error());
        return 1;
    }
    char size[64];
    printf("program cache: %s%s\n", u.dir,
           u.exists ? "" : " (not made yet: empty)");
    format_bytes(u.bytes, size, sizeof size);
    printf("    entries  %llu, %llu bytes (%s)\n",
           (unsigned long long)u.entries, (unsigned long long)u.bytes, size);
    format_bytes(u.max, size, sizeof size);
    printf("    cap      %llu bytes (%s), CLFRAME_CACHE_MAX\n",
           (unsigned long long)u.max, size);
    if (!u.on)
        printf("    off: CLFRAME_CACHE=0 (nothing is loaded or stored)\n");
    return 0;
}

/* --clear-cache: removes the entries and says how many; 0, or 1. */
static int clear_cache(void)
{
    clframe_cache_usage removed;
    int err = clframe_cache_clear(&removed);
    char size[64];
    format_bytes(removed.bytes, size, sizeof size);
    if (!err && !removed.exists)
        printf("nothing to remove: %s is not made yet\n", removed.dir);
    else if (!err || removed.entries)
        printf("removed %llu %s (%s) from %s\n",
               (unsigned long long)removed.entries,
               removed.entries == 1 ? "entry" : "entries", size, removed.dir);
    if (err)
        fprintf(stderr, "clframe-info: %s\n", clframe_last_error());
    return err ? 1 : 0;
}

/* The listing, the version, the cache's, or the usage: the exit status. */
static int run(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--version") == 0) {
        printf("clframe-info %s\n", clframe_version());
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "--cache") == 0)
        return print_cache();
    if (argc == 2 && strcmp(argv[1], "--clear-cache") == 0)
        return clear_cache();
    if (argc > 1) {
        int help = strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0;
        if (!help)
            fprintf(stderr, "clframe-info: unknown argument '%s'\n", argv[1]);
        usage(help ? stdout : stderr);
        return help ? 0 : 2;
    }
    /* The choice first, so that the drivers are loaded as clframe loads
     * them for every program (PoCL's cache in clframe's folder). */
    clctx *chosen = clctx_default();
    char why[512];
    snprintf(why, sizeof why, "%s", chosen ? "" : clframe_last_error());
    int oclgrind_platform = 0;
    if (list_platforms(&oclgrind_platform) < 0)
        return 1;
    int rc = print_default(chosen, why);
    print_oclgrind(oclgrind_platform);
    return rc < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
    int status = run(argc, argv);
    /* The listing is the program's result: it must have been written. */
    if (clframe_save_close_stdout() != 0) {
        fprintf(stderr, "clframe-info: %s\n", clframe_last_error());
        status = status ? status : 1;
    }
    return status;
}
