/*
 * blur_opencl.c: the seed's image blur, apps/blur's blur_seed then
 * blur_seed_copy each pass on R, G and B as int arrays, for a number of
 * passes over the app's pseudo-random image, through the plain OpenCL API
 * without clframe: one of the three host programs per workload, whose lines
 * bench/cuda/effort/count compares. It runs on the first GPU, or the first
 * device of any kind when there is no GPU, prints the kernels' time (first
 * start to last end, from their profiling events) and checks every channel
 * against the app's C reference (the image and the reference are apps/blur's
 * helpers, shared by the three programs and not counted). From the
 * repository's root, after make:
 *
 *   cc -std=c11 -O2 -Wall -Wextra -Werror -Iapps -o bin/effort-blur-opencl apps/blur/cuda/effort/blur_opencl.c build/libblur.a build/libcommon.a build/libclframe.a -lOpenCL -lpng16 -lm -fopenmp && bin/effort-blur-opencl 512 512 10
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "blur/blur.h"
#include "common/error.h"

#include <stdio.h>
#include <stdlib.h>

#define KERNEL_FILE "apps/blur/kernels/blur.cl"
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

/* The seed kernels' eight arguments: R, G, B, their new values, w, h. */
static void set_args(cl_kernel k, cl_mem *chan, cl_mem *fresh, cl_uint *w,
                     cl_uint *h)
{
    for (cl_uint c = 0; c < 3; c++) {
        CHECK(clSetKernelArg(k, c, sizeof chan[c], &chan[c]));
        CHECK(clSetKernelArg(k, 3 + c, sizeof fresh[c], &fresh[c]));
    }
    CHECK(clSetKernelArg(k, 6, sizeof *w, w));
    CHECK(clSetKernelArg(k, 7, sizeof *h, h));
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
    cl_uint w = argc > 1 ? (cl_uint)atoi(argv[1]) : 512;
    cl_uint h = argc > 2 ? (cl_uint)atoi(argv[2]) : 512;
    int passes = argc > 3 ? atoi(argv[3]) : 10;
    blur_image img, ref;
    if (passes < 0 || blur_image_random(&img, w, h) ||
        blur_image_copy(&ref, &img)) {
        fprintf(stderr, "usage: blur_opencl [width height passes] (%s)\n",
                app_last_error());
        return 2;
    }
    size_t pixels = (size_t)w * h, bytes = pixels * sizeof(cl_int);
    cl_int *planes = malloc(3 * bytes);
    if (!planes) {
        fprintf(stderr, "no memory for %u x %u\n", w, h);
        return 1;
    }

    cl_int err;
    cl_device_id device = pick_device();
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    CHECK(err);
    cl_command_queue queue = clCreateCommandQueue(
        context, device, CL_QUEUE_PROFILING_ENABLE, &err);
    CHECK(err);
    cl_program program = build_program(context, device, KERNEL_FILE);
    cl_kernel blur = clCreateKernel(program, "blur_seed", &err);
    CHECK(err);
    cl_kernel copy = clCreateKernel(program, "blur_seed_copy", &err);
    CHECK(err);

    /* The seed's kernels take R, G and B apart, as ints; the new values'
     * arrays are filled by every pass. */
    cl_mem chan[3], fresh[3];
    for (int c = 0; c < 3; c++) {
        cl_int *plane = planes + c * pixels;
        for (size_t i = 0; i < pixels; i++)
            plane[i] = img.rgba[4 * i + c];
        chan[c] = clCreateBuffer(context,
                                 CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                 bytes, plane, &err);
        CHECK(err);
        fresh[c] = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, NULL,
                                  &err);
        CHECK(err);
    }
    set_args(blur, chan, fresh, &w, &h);
    set_args(copy, chan, fresh, &w, &h);

    /* The kernels guard their edges: the global size is rounded up. */
    size_t global[2] = {(w + GROUP_W - 1) / GROUP_W * GROUP_W,
                        (h + GROUP_H - 1) / GROUP_H * GROUP_H};
    size_t local[2] = {GROUP_W, GROUP_H};
    cl_event first = NULL, last = NULL;
    for (int p = 0; p < passes; p++) {
        cl_event *e = p == 0 ? &first : NULL;
        CHECK(clEnqueueNDRangeKernel(queue, blur, 2, NULL, global, local, 0,
                                     NULL, e));
        e = p == passes - 1 ? &last : NULL;
        CHECK(clEnqueueNDRangeKernel(queue, copy, 2, NULL, global, local, 0,
                                     NULL, e));
    }
    for (int c = 0; c < 3; c++)
        CHECK(clEnqueueReadBuffer(queue, chan[c], CL_TRUE, 0, bytes,
                                  planes + c * pixels, 0, NULL, NULL));
    double ms = 0;
    if (passes > 0)
        ms = (event_time(last, CL_PROFILING_COMMAND_END) -
              event_time(first, CL_PROFILING_COMMAND_START)) * 1e-6;

    long wrong = blur_run(&ref, passes, BLUR_REFERENCE, NULL, NULL) ? -1 : 0;
    for (size_t i = 0; i < pixels && wrong >= 0; i++)
        for (int c = 0; c < 3; c++)
            wrong += planes[c * pixels + i] != ref.rgba[4 * i + c];
    printf("blur seed, %u x %u, %d passes: %.3f ms, %s\n", w, h, passes, ms,
           wrong ? "WRONG" : "checked");

    if (passes > 0) {
        clReleaseEvent(first);
        clReleaseEvent(last);
    }
    for (int c = 0; c < 3; c++) {
        clReleaseMemObject(chan[c]);
        clReleaseMemObject(fresh[c]);
    }
    clReleaseKernel(blur);
    clReleaseKernel(copy);
    clReleaseProgram(program);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    free(planes);
    blur_image_free(&img);
    blur_image_free(&ref);
    return wrong ? 1 : 0;
}
