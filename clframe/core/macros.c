/*
 * macros.c: what a device's compiler predefines, read from a context for
 * the preprocessor (preproc.c), which is handed it as plain values and
 * asks OpenCL nothing itself: endianness, image support, extensions, OpenCL
 * C 3.0 features, and the two version macros and __FAST_RELAXED_MATH__,
 * measured only when a source asks for them.
 */
#include "core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    /* OpenCL 3.0's CL_DEVICE_OPENCL_C_FEATURES, which the 1.2 headers
     * clframe builds with do not declare; each is a cl_name_version. */
    DEVICE_OPENCL_C_FEATURES = 0x106F,
    NAME_VERSION_SIZE = 64,
};

/* "OpenCL 3.0 ..." as 300. */
static int device_version(cl_device_id device, cl_device_info what,
                          const char *format)
{
    char text[256] = "";
    int major = 0, minor = 0;
    clGetDeviceInfo(device, what, sizeof text - 1, text, NULL);
    if (sscanf(text, format, &major, &minor) != 2 || major < 0 || major > 9 ||
        minor < 0 || minor > 9)
        return 0;
    return major * 100 + minor * 10;
}

/* __OPENCL_VERSION__ and __OPENCL_C_VERSION__ of a build with the given
 * -cl-std (0: none), as the compiler has them: without -cl-std the
 * specification says the highest 1.x and PoCL takes 3.0, and NVIDIA's
 * __OPENCL_VERSION__ follows -cl-std rather than the device's version. So
 * a one-line kernel asks, when a source first needs either (the
 * preprocessor calls this then); a build without -cl-std asks once per
 * context. If the probe cannot run, the device's versions answer. */
static void measure_versions(void *arg, int std, int *opencl, int *c)
{
    clctx *ctx = arg;
    if (!std && ctx->c_version) {
        *opencl = ctx->opencl_version;
        *c = ctx->c_version;
        return;
    }
    char options[32] = "";
    if (std)
        snprintf(options, sizeof options, "-cl-std=CL%d.%d", std / 100,
                 std / 10 % 10);
    cl_ulong m[2] = {0, 0};
    int v[2] = {0, 0};
    if (clf_probe(ctx, "__kernel void clf_versions(__global ulong *v)\n"
                  "{ v[0] = __OPENCL_VERSION__; v[1] = __OPENCL_C_VERSION__; "
                  "}\n", "clframe's version probe", "clf_versions", options,
                  NULL, m, 2) == 0 && m[0] >= 100 && m[1] >= 100 && m[0] < 1000 &&
        m[1] < 1000) {
        v[0] = (int)m[0];
        v[1] = (int)m[1];
    } else {
        v[0] = device_version(ctx->device, CL_DEVICE_VERSION, "OpenCL %d.%d");
        v[1] = std ? std : device_version(ctx->device,
                                          CL_DEVICE_OPENCL_C_VERSION,
                                          "OpenCL C %d.%d");
    }
    *opencl = v[0] >= 100 ? v[0] : 120;     /* the specification's default */
    *c = v[1] >= 100 ? v[1] : 120;
    if (!std) {
        ctx->opencl_version = *opencl;
        ctx->c_version = *c;
    }
}

/* Whether the compiler defines __FAST_RELAXED_MATH__ under
 * -cl-fast-relaxed-math, asked once per context by a one-line kernel. The
 * specification says it must; if the probe cannot run, it does. */
static int measure_fast_math(void *arg)
{
    clctx *ctx = arg;
    if (!ctx->fast_math_macro) {
        cl_ulong m[1] = {0};
        int ran = clf_probe(ctx, "__kernel void clf_fast_math(__global ulong *v)\n"
                            "{\n#ifdef __FAST_RELAXED_MATH__\n    v[0] = 1;\n"
                            "#else\n    v[0] = 2;\n#endif\n}\n",
                            "clframe's fast-math probe", "clf_fast_math",
                            "-cl-fast-relaxed-math", NULL, m, 1) == 0;
        ctx->fast_math_macro = ran && m[0] == 2 ? 2 : 1;
    }
    return ctx->fast_math_macro == 1;
}

/* A device's text-valued info (CL_DEVICE_EXTENSIONS), or NULL. */
static char *device_text(cl_device_id device, cl_device_info what)
{
    size_t size = 0;
    char *text = NULL;
    if (clGetDeviceInfo(device, what, 0, NULL, &size) == CL_SUCCESS &&
        (text = calloc(1, size + 1)) &&
        clGetDeviceInfo(device, what, size, text, NULL) != CL_SUCCESS) {
        free(text);
        text = NULL;
    }
    return text;
}

/* OpenCL C 3.0's optional features (__opencl_c_fp64, ...) that the device
 * has, space-separated; NULL before OpenCL 3.0 or when it says none. */
static char *device_features(cl_device_id device)
{
    size_t size = 0;
    if (device_version(device, CL_DEVICE_VERSION, "OpenCL %d.%d") < 300 ||
        clGetDeviceInfo(device, DEVICE_OPENCL_C_FEATURES, 0, NULL, &size) !=
            CL_SUCCESS)
        return NULL;
    size_t entry = sizeof(cl_uint) + NAME_VERSION_SIZE;
    char *features = malloc(size + 1);
    clf_str list = {0};
    if (features && clGetDeviceInfo(device, DEVICE_OPENCL_C_FEATURES, size,
                                    features, NULL) == CL_SUCCESS)
        for (size_t at = 0; at + entry <= size; at += entry) {
            char *name = features + at + sizeof(cl_uint);
            name[NAME_VERSION_SIZE - 1] = '\0';
            clf_str_printf(&list, "%s ", name);
        }
    free(features);
    if (list.failed) {
        free(list.data);
        return NULL;
    }
    return list.data;
}

void clf_device_macros_read(clctx *ctx, clf_device_macros *m)
{
    cl_bool yes = CL_FALSE;
    memset(m, 0, sizeof *m);
    if (clGetDeviceInfo(ctx->device, CL_DEVICE_ENDIAN_LITTLE, sizeof yes,
                        &yes, NULL) == CL_SUCCESS && yes)
        m->little_endian = 1;
    yes = CL_FALSE;
    if (clGetDeviceInfo(ctx->device, CL_DEVICE_IMAGE_SUPPORT, sizeof yes,
                        &yes, NULL) == CL_SUCCESS && yes)
        m->images = 1;
    m->extensions = device_text(ctx->device, CL_DEVICE_EXTENSIONS);
    m->features = device_features(ctx->device);
    m->versions = measure_versions;
    m->fast_math = measure_fast_math;
    m->arg = ctx;
}

void clf_device_macros_free(clf_device_macros *m)
{
    free(m->extensions);
    free(m->features);
    m->extensions = m->features = NULL;
}
