/*
 * select.c: choosing the device a context opens.
 *
 * Selection is one rule list, applied once per context: an explicit selector,
 * else CLFRAME_DEVICE, else the seed's HPCE_SELECT_PLATFORM/DEVICE, else the
 * CPU under CL_DEBUG, else the GPUs, else the CPUs. The rule that applies
 * matches a set of devices, and the context opens the nth of them (modulo
 * their count): the first for clctx_new, an MPI rank's node-local rank for
 * clctx_new_nth. Whatever wins comes with the reason, which the context
 * writes into clctx_describe(), so "why is this running on the CPU?" has an
 * answer.
 */
#include "core.h"

#include <CL/cl_ext.h>

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- enumerating devices ------------------------------------------------- */

const char *clf_device_type_word(cl_device_type t)
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
                         clf_device_type_word(c[i].type));
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

/* ---- the rules ----------------------------------------------------------- */

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
    } else if (clf_env_on("CL_DEBUG")) {
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

int clf_select_device(const char *selector, unsigned nth, int by_index,
                      clf_candidate *chosen, char *why, size_t why_size)
{
    clf_candidate *list = NULL;
    int n = list_devices(&list);
    if (n < 0)
        return n;
    int i = choose_device(list, n, selector, nth, by_index, why, why_size);
    if (i >= 0)
        *chosen = list[i];
    free(list);
    return i < 0 ? i : 0;
}
