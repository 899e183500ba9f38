/*
 * laplace_opencl.c: the seed's Laplace solver, apps/laplace's
 * laplace_seed_update then laplace_seed_copy each Jacobi iteration, on the
 * seed's problem (the app's default: border at 0, a centred conductor a
 * quarter of each side at 1), through the plain OpenCL API without
 * clframe: one of the three host programs per workload, whose lines
 * bench/cuda/effort/count compares. It runs on the first GPU, or the first
 * device of any kind when there is no GPU, prints the kernels' time (first
 * start to last end, from their profiling events) and checks the potential
 * bit for bit against the app's C reference (the grid and the reference are
 * apps/laplace's helpers, shared by the three programs and not counted).
 * From the repository's root, after make:
 *
 *   cc -std=c11 -O2 -Wall -Wextra -Werror -Iapps -o bin/effort-laplace-opencl apps/laplace/cuda/effort/laplace_opencl.c build/liblaplace.a build/libcommon.a build/libclframe.a -lOpenCL -lpng16 -lm -fopenmp && bin/effort-laplace-opencl 200 200 100
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "common/error.h"
#include "laplace/laplace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KERNEL_FILE "apps/laplace/kernels/laplace.cl"
/* The file's other kernels need this to compile (the app's value). */
#define KERNEL_OPTIONS "-DLAPLACE_ROWS=4"
enum { GROUP_W = 32, GROUP_H = 8 };     /* the app's work-group */

#define CHECK(call)                                                          \
    do {                                                                     \
        cl_int err_ = (call);                                                \
        if (err_ != CL_SUCCESS) {                                            \
            fprintf(stderr, "%s:%d: %s: OpenCL error %d\n", __FILE__,        \
                    __LINE__, #call, err_);                                  \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    char *text = malloc(size + 1);
    if (!text || fread(text, 1, size, f) != (size_t)size) {
        fprintf(stderr, "%s: cannot read\n", path);
        exit(1);
    }
    text[size] = '\0';
    fclose(f);
    return text;
}

/* The first GPU of any platform, else the first device of the first
 * platform that has one. */
static cl_device_id pick_device(void)
{
    cl_platform_id platforms[16];
    cl_uint count = 0;
    CHECK(clGetPlatformIDs(16, platforms, &count));
    cl_device_id device;
    for (cl_uint i = 0; i < count; i++)
        if (clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_GPU, 1, &device,
                           NULL) == CL_SUCCESS)
            return device;
    for (cl_uint i = 0; i < count; i++)
        if (clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_ALL, 1, &device,
                           NULL) == CL_SUCCESS)
            return device;
    fprintf(stderr, "no OpenCL device\n");
    exit(1);
}

static cl_program build_program(cl_context context, cl_device_id device,
                                const char *path)
{
    char *source = read_file(path);
    cl_int err;
    cl_program program = clCreateProgramWithSource(
        context, 1, (const char **)&source, NULL, &err);
    CHECK(err);
    free(source);
    if (clBuildProgram(program, 1, &device, KERNEL_OPTIONS, NULL, NULL) !=
        CL_SUCCESS) {
        size_t size;
        CHECK(clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0,
                                    NULL, &size));
        char *log = malloc(size);
        CHECK(clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG,
                                    size, log, NULL));
        fprintf(stderr, "%s: build failed:\n%s\n", path, log);
        exit(1);
    }
    return program;
}

/* A device buffer holding a copy of host memory. */
static cl_mem buffer_from(cl_context context, void *host, size_t bytes)
{
    cl_int err;
    cl_mem m = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                              bytes, host, &err);
    CHECK(err);
    return m;
}

/* The seed kernels' five arguments: phi, old_phi, mask, nx, ny. */
static void set_args(cl_kernel k, cl_mem *phi, cl_mem *old_phi, cl_mem *mask,
                     cl_uint *nx, cl_uint *ny)
{
    CHECK(clSetKernelArg(k, 0, sizeof *phi, phi));
    CHECK(clSetKernelArg(k, 1, sizeof *old_phi, old_phi));
    CHECK(clSetKernelArg(k, 2, sizeof *mask, mask));
    CHECK(clSetKernelArg(k, 3, sizeof *nx, nx));
    CHECK(clSetKernelArg(k, 4, sizeof *ny, ny));
}

/* Nanoseconds of one of an event's profiling times. */
static cl_ulong event_time(cl_event e, cl_profiling_info what)
{
    cl_ulong t;
    CHECK(clGetEventProfilingInfo(e, what, sizeof t, &t, NULL));
    return t;
}

int main(int argc, char **argv)
{
    cl_uint nx = argc > 1 ? (cl_uint)atoi(argv[1]) : 200;
    cl_uint ny = argc > 2 ? (cl_uint)atoi(argv[2]) : 200;
    int iterations = argc > 3 ? atoi(argv[3]) : 100;
    uint32_t w, h;
    laplace_grid g, ref;
    if (iterations < 0 || !laplace_object_parse("0.25x0.25", nx, ny, &w, &h) ||
        laplace_grid_make(&g, nx, ny, 0.0f, 1.0f, w, h) ||
        laplace_grid_copy(&ref, &g)) {
        fprintf(stderr, "usage: laplace_opencl [nx ny iterations] (%s)\n",
                app_last_error());
        return 2;
    }
    size_t cells = (size_t)nx * ny;
    cl_int *mask = malloc(cells * sizeof *mask);
    if (!mask) {
        fprintf(stderr, "no memory for %u x %u\n", nx, ny);
        return 1;
    }
    for (size_t i = 0; i < cells; i++)  /* the seed's kernels take ints */
        mask[i] = g.mask[i];

    cl_int err;
    cl_device_id device = pick_device();
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    CHECK(err);
    cl_command_queue queue = clCreateCommandQueue(
        context, device, CL_QUEUE_PROFILING_ENABLE, &err);
    CHECK(err);
    cl_program program = build_program(context, device, KERNEL_FILE);
    cl_kernel update = clCreateKernel(program, "laplace_seed_update", &err);
    CHECK(err);
    cl_kernel copy = clCreateKernel(program, "laplace_seed_copy", &err);
    CHECK(err);

    /* phi and old_phi both start as the grid. */
    cl_mem phi = buffer_from(context, g.phi, cells * sizeof *g.phi);
    cl_mem old_phi = buffer_from(context, g.phi, cells * sizeof *g.phi);
    cl_mem dmask = buffer_from(context, mask, cells * sizeof *mask);
    set_args(update, &phi, &old_phi, &dmask, &nx, &ny);
    set_args(copy, &phi, &old_phi, &dmask, &nx, &ny);

    /* The kernels guard their edges: the global size is rounded up. */
    size_t global[2] = {(nx + GROUP_W - 1) / GROUP_W * GROUP_W,
                        (ny + GROUP_H - 1) / GROUP_H * GROUP_H};
    size_t local[2] = {GROUP_W, GROUP_H};
    cl_event first = NULL, last = NULL;
    for (int t = 0; t < iterations; t++) {
        cl_event *e = t == 0 ? &first : NULL;
        CHECK(clEnqueueNDRangeKernel(queue, update, 2, NULL, global, local, 0,
                                     NULL, e));
        e = t == iterations - 1 ? &last : NULL;
        CHECK(clEnqueueNDRangeKernel(queue, copy, 2, NULL, global, local, 0,
                                     NULL, e));
    }
    CHECK(clEnqueueReadBuffer(queue, phi, CL_TRUE, 0, cells * sizeof *g.phi,
                              g.phi, 0, NULL, NULL));
    double ms = 0;
    if (iterations > 0)
        ms = (event_time(last, CL_PROFILING_COMMAND_END) -
              event_time(first, CL_PROFILING_COMMAND_START)) * 1e-6;

    laplace_plan plan = {.iterations = iterations, .check_every = 1};
    int ok = laplace_solve(&ref, &plan, LAPLACE_REFERENCE, NULL, NULL) == 0 &&
             memcmp(g.phi, ref.phi, cells * sizeof *g.phi) == 0;
    printf("laplace seed, %u x %u, %d iterations: %.3f ms, %s\n", nx, ny,
           iterations, ms, ok ? "checked" : "WRONG");

    if (iterations > 0) {
        clReleaseEvent(first);
        clReleaseEvent(last);
    }
    clReleaseMemObject(phi);
    clReleaseMemObject(old_phi);
    clReleaseMemObject(dmask);
    clReleaseKernel(update);
    clReleaseKernel(copy);
    clReleaseProgram(program);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    free(mask);
    laplace_grid_free(&g);
    laplace_grid_free(&ref);
    return ok ? 0 : 1;
}
