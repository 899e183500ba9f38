/*
 * device.c: where the apps' programs meet clframe: the device that
 * --device names (app_open_device in program.h), and the version to run
 * there (app_version_default in versions.h).
 */
#include "program.h"

#include "clframe.h"

clctx *app_open_device(const app_program *p, const char *where,
                       clctx **own)
{
    *own = where ? clctx_new(where) : NULL;
    clctx *ctx = where ? *own : clctx_default();
    if (!ctx)
        app_failed(p);
    return ctx;
}

int app_version_default(const app_versions *t, clctx *ctx)
{
    if (!ctx)
        ctx = clctx_default();
    if (!ctx || clctx_device_type(ctx) & CL_DEVICE_TYPE_GPU)
        return t->preferred;
    return t->preferred_cpu;
}

unsigned app_compute_units(clctx *ctx)
{
    cl_uint units = 0;
    if (clGetDeviceInfo(clctx_device(ctx), CL_DEVICE_MAX_COMPUTE_UNITS,
                        sizeof units, &units, NULL) != CL_SUCCESS)
        units = 0;
    return units ? units : 1;
}
