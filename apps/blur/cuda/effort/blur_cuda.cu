/*
 * blur_cuda.cu: the seed's image blur, the CUDA twins of apps/blur's
 * blur_seed then blur_seed_copy each pass on R, G and B as int arrays, for
 * a number of passes over the app's pseudo-random image, through the CUDA
 * runtime API: the CUDA one of the three host programs per workload, whose
 * lines bench/cuda/effort/count compares. It prints the kernels' time (a
 * pair of events around the loop) and checks every channel against the app's
 * C reference (the image and the reference are apps/blur's helpers, shared
 * by the three programs and not counted; their library holds the app's
 * OpenCL versions too, hence clframe and OpenCL on the link line). From the
 * repository's root, after make:
 *
 *   nvcc -O3 -arch=sm_90 -Iapps -o bin/effort-blur-cuda apps/blur/cuda/effort/blur_cuda.cu build/libblur.a build/libcommon.a build/libclframe.a -lOpenCL -lpng16 -lm -lgomp && bin/effort-blur-cuda 512 512 10
 */
#include "../blur_kernels.cuh"

extern "C" {
#include "blur/blur.h"
#include "common/error.h"
}

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

enum { GROUP_W = 32, GROUP_H = 8 };     /* the app's work-group */

#define CHECK(call)                                                          \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) {                                           \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,    \
                    cudaGetErrorString(err_));                               \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

int main(int argc, char **argv)
{
    unsigned w = argc > 1 ? (unsigned)atoi(argv[1]) : 512;
    unsigned h = argc > 2 ? (unsigned)atoi(argv[2]) : 512;
    int passes = argc > 3 ? atoi(argv[3]) : 10;
    blur_image img, ref;
    if (passes < 0 || blur_image_random(&img, w, h) ||
        blur_image_copy(&ref, &img)) {
        fprintf(stderr, "usage: blur_cuda [width height passes] (%s)\n",
                app_last_error());
        return 2;
    }
    size_t pixels = (size_t)w * h, bytes = pixels * sizeof(int);
    int *planes = (int *)malloc(3 * bytes);
    if (!planes) {
        fprintf(stderr, "no memory for %u x %u\n", w, h);
        return 1;
    }

    /* The seed's kernels take R, G and B apart, as ints; the new values'
     * arrays are filled by every pass. */
    int *chan[3], *fresh[3];
    for (int c = 0; c < 3; c++) {
        int *plane = planes + c * pixels;
        for (size_t i = 0; i < pixels; i++)
            plane[i] = img.rgba[4 * i + c];
        CHECK(cudaMalloc(&chan[c], bytes));
        CHECK(cudaMalloc(&fresh[c], bytes));
        CHECK(cudaMemcpy(chan[c], plane, bytes, cudaMemcpyHostToDevice));
    }

    /* The kernels guard their edges: the grid covers the image rounded up. */
    dim3 block(GROUP_W, GROUP_H);
    dim3 grid((w + GROUP_W - 1) / GROUP_W, (h + GROUP_H - 1) / GROUP_H);
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start));
    for (int p = 0; p < passes; p++) {
        blur_seed<<<grid, block>>>(chan[0], chan[1], chan[2], fresh[0],
                                   fresh[1], fresh[2], w, h);
        CHECK(cudaGetLastError());
        blur_seed_copy<<<grid, block>>>(chan[0], chan[1], chan[2], fresh[0],
                                        fresh[1], fresh[2], w, h);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaEventRecord(stop));
    for (int c = 0; c < 3; c++)
        CHECK(cudaMemcpy(planes + c * pixels, chan[c], bytes,
                         cudaMemcpyDeviceToHost));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, start, stop));

    long wrong = blur_run(&ref, passes, BLUR_REFERENCE, NULL, NULL) ? -1 : 0;
    for (size_t i = 0; i < pixels && wrong >= 0; i++)
        for (int c = 0; c < 3; c++)
            wrong += planes[c * pixels + i] != ref.rgba[4 * i + c];
    printf("blur seed, %u x %u, %d passes: %.3f ms, %s\n", w, h, passes, ms,
           wrong ? "WRONG" : "checked");

    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    for (int c = 0; c < 3; c++) {
        CHECK(cudaFree(chan[c]));
        CHECK(cudaFree(fresh[c]));
    }
    free(planes);
    blur_image_free(&img);
    blur_image_free(&ref);
    return wrong ? 1 : 0;
}
