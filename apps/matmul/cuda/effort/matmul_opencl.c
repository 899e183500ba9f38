/*
 * matmul_opencl.c: C = A x B for n x n floats by apps/matmul's tiled kernel
 * (matmul_tiled, 16 x 16), through the plain OpenCL API without clframe:
 * one of the three host programs per workload (CUDA, plain OpenCL, clframe)
 * whose lines bench/cuda/effort/count compares. It runs on the first GPU, or
 * the first device of any kind when there is no GPU, prints the kernel's
 * time from its profiling event, and checks C with the app's matmul_compare
 * (the input and the check are apps/matmul's helpers, shared by the three
 * programs and not counted). From the repository's root, after make:
 *
 *   cc -std=c11 -O2 -Wall -Wextra -Werror -Iapps -o bin/effort-matmul-opencl apps/matmul/cuda/effort/matmul_opencl.c build/libmatmul.a build/libcommon.a build/libclframe.a -lOpenCL -lpng16 -lm -fopenmp && bin/effort-matmul-opencl 512
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "matmul/matmul.h"

#include <stdio.h>
#include <stdlib.h>

#define KERNEL_FILE "apps/matmul/kernels/matmul.cl"
#define TILE 16         /* the kernel's required work-group size */

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
    if (clBuildProgram(program, 1, &device, "", NULL, NULL) != CL_SUCCESS) {
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

int main(int argc, char **argv)
{
    cl_uint n = argc > 1 ? (cl_uint)atoi(argv[1]) : 512;
    if (n < 1 || n > 16384) {
        fprintf(stderr, "usage: matmul_opencl [n=512 (1 to 16384)]\n");
        return 2;
    }
    size_t bytes = (size_t)n * n * sizeof(float);
    float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
    if (!a || !b || !c) {
        fprintf(stderr, "no memory for n = %u\n", n);
        return 1;
    }
    uint32_t seed = 1;
    matmul_random_fill(a, (size_t)n * n, &seed);
    matmul_random_fill(b, (size_t)n * n, &seed);

    cl_int err;
    cl_device_id device = pick_device();
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    CHECK(err);
    cl_command_queue queue = clCreateCommandQueue(
        context, device, CL_QUEUE_PROFILING_ENABLE, &err);
    CHECK(err);
    cl_program program = build_program(context, device, KERNEL_FILE);
    cl_kernel kernel = clCreateKernel(program, "matmul_tiled", &err);
    CHECK(err);

    cl_mem da = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               bytes, a, &err);
    CHECK(err);
    cl_mem db = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               bytes, b, &err);
    CHECK(err);
    cl_mem dc = clCreateBuffer(context, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
    CHECK(err);
    CHECK(clSetKernelArg(kernel, 0, sizeof da, &da));
    CHECK(clSetKernelArg(kernel, 1, sizeof db, &db));
    CHECK(clSetKernelArg(kernel, 2, sizeof dc, &dc));
    CHECK(clSetKernelArg(kernel, 3, sizeof n, &n));
    CHECK(clSetKernelArg(kernel, 4, sizeof n, &n));
    CHECK(clSetKernelArg(kernel, 5, sizeof n, &n));

    /* The kernel guards its edges: the global size is n rounded up. */
    size_t global = (n + TILE - 1) / TILE * TILE;
    size_t global_size[2] = {global, global}, local_size[2] = {TILE, TILE};
    cl_event done;
    CHECK(clEnqueueNDRangeKernel(queue, kernel, 2, NULL, global_size,
                                 local_size, 0, NULL, &done));
    CHECK(clEnqueueReadBuffer(queue, dc, CL_TRUE, 0, bytes, c, 1, &done,
                              NULL));
    cl_ulong start, end;
    CHECK(clGetEventProfilingInfo(done, CL_PROFILING_COMMAND_START,
                                  sizeof start, &start, NULL));
    CHECK(clGetEventProfilingInfo(done, CL_PROFILING_COMMAND_END, sizeof end,
                                  &end, NULL));
    double ms = (end - start) * 1e-6;

    long wrong = matmul_compare(a, b, c, n, n, n, NULL);
    printf("matmul_tiled, n = %u: %.3f ms, %.1f GFLOP/s, %s\n", n, ms,
           2.0 * n * n * n / ms * 1e-6,
           wrong ? "WRONG" : "checked");
    if (wrong)
        printf("elements beyond their bound: %ld\n", wrong);

    clReleaseEvent(done);
    clReleaseMemObject(da);
    clReleaseMemObject(db);
    clReleaseMemObject(dc);
    clReleaseKernel(kernel);
    clReleaseProgram(program);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    free(a);
    free(b);
    free(c);
    return wrong ? 1 : 0;
}
