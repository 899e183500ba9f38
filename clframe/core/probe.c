/*
 * probe.c: asking the device compiler a question it alone can answer (a
 * struct's sizeof, a field's offset, __OPENCL_VERSION__) by running a small
 * kernel of clframe's own on one work-item and reading back what it wrote.
 *
 * A probe goes straight to OpenCL through the program cache (program.c),
 * not through clkernel: its signature is known, and a kernel's creation
 * itself asks probes (its structs' sizes, the preprocessor's versions).
 */
#include "core.h"

int clf_probe(clctx *ctx, const char *source, const char *origin,
              const char *name, const char *options,
              const clf_build_hooks *hooks, cl_ulong *out, size_t n)
{
    cl_program program = clf_program_get(ctx, source, origin, options, hooks);
    if (!program)
        return CLFRAME_ERR_BUILD;       /* the message has the log */
    cl_int err;
    cl_kernel kernel = clCreateKernel(program, name, &err);
    cl_mem mem = NULL;
    int rc = 0;
    if (err != CL_SUCCESS) {
        rc = clf_fail_cl(err, "clCreateKernel", "%s in %s", name, origin);
        goto done;
    }
    clf_track(ctx, 1);
    mem = clf_create_buffer(ctx, n * sizeof *out, &err);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(kernel, 0, sizeof mem, &mem);
    size_t one = 1;
    if (err == CL_SUCCESS)
        err = clEnqueueNDRangeKernel(ctx->queue, kernel, 1, NULL, &one, NULL,
                                     0, NULL, NULL);
    if (err != CL_SUCCESS)
        rc = clf_fail_cl(err, "running", "%s of %s on %s", name, origin,
                         ctx->device_name);
    else
        rc = clf_copy(ctx, ctx->queue, CLF_EV_READ, mem, 0, n * sizeof *out,
                      out, CL_TRUE, name);
done:
    clf_release_mem(ctx, mem);
    if (kernel) {
        clReleaseKernel(kernel);
        clf_track(ctx, -1);
    }
    clf_program_put(ctx, program);
    return rc;
}
