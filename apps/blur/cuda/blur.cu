/*
 * blur.cu: the CUDA twins' host side (blur.h). The image goes on the
 * device as apps/blur/blur_cl.c puts it there (three int planes and three
 * for their new values for seed; packed RGBA8 in two buffers whose roles
 * are exchanged after every launch for double and fast), the kernels of
 * blur_kernels.cuh are launched with blur_cl.c's grids and blocks, in
 * order on the default stream, and each launch is timed by a pair of
 * events whose times are summed, as the app sums its OpenCL kernels' event
 * times.
 */
#include "blur.h"
#include "blur_kernels.cuh"
#include "launch_timer.cuh"

#include <stdlib.h>

/* The largest y (and z) dimension of a CUDA grid. */
enum { GRID_MAX_Y = 65535 };

typedef struct blur_cuda {
    uint8_t *rgba;
    unsigned int w, h;
    size_t pixels;
    blur_cuda_version v;
    dim3 grid, block;
    unsigned int *a, *b;        /* double, fast: the image and the other */
    int *chan[3], *fresh[3];    /* seed: R, G, B and their new values */
    int *planes;                /* seed: the host's R, G, B planes */
    launch_timer timer;
    unsigned launches;
} blur_cuda;

unsigned blur_cuda_passes_per_launch(void)
{
    return BLUR_HALO;
}

/* Around each launch: its timer's start before, its stop after. */
static int launch_begin(blur_cuda *d)
{
    return launch_timer_start(&d->timer, 0);
}

static int launch_end(blur_cuda *d)
{
    if (launch_timer_stop(&d->timer))
        return -1;
    d->launches++;
    return 0;
}

/* seed: the image split into R, G and B ints, on the device. */
static int set_up_seed(blur_cuda *d)
{
    d->planes = (int *)malloc(3 * d->pixels * sizeof *d->planes);
    if (!d->planes) {
        fprintf(stderr, "blur_cuda_run: no memory for a %u x %u image's "
                "channels\n", d->w, d->h);
        return -1;
    }
    size_t bytes = d->pixels * sizeof *d->planes;
    for (int c = 0; c < 3; c++) {
        int *plane = d->planes + c * d->pixels;
        for (size_t i = 0; i < d->pixels; i++)
            plane[i] = d->rgba[4 * i + c];
        CUDA_TRY(cudaMalloc(&d->chan[c], bytes));
        CUDA_TRY(cudaMalloc(&d->fresh[c], bytes));
        CUDA_TRY(cudaMemcpy(d->chan[c], plane, bytes,
                            cudaMemcpyHostToDevice));
    }
    return 0;
}

/* The grid and block of blur_cl.c, the events, the image on the device. */
static int set_up(blur_cuda *d)
{
    d->block = dim3(BLUR_GROUP_W, BLUR_GROUP_H);
    if (d->v == BLUR_CUDA_FAST)         /* a block per tile's output */
        d->grid = dim3((d->w + BLUR_OUT_W - 1) / BLUR_OUT_W,
                       (d->h + BLUR_OUT_H - 1) / BLUR_OUT_H);
    else                                /* a thread per pixel */
        d->grid = dim3((d->w + BLUR_GROUP_W - 1) / BLUR_GROUP_W,
                       (d->h + BLUR_GROUP_H - 1) / BLUR_GROUP_H);
    if (d->grid.y > GRID_MAX_Y) {
        fprintf(stderr, "blur_cuda_run: a %u x %u image needs %u blocks "
                "down, more than CUDA's %d\n", d->w, d->h, d->grid.y,
                GRID_MAX_Y);
        return -1;
    }
    if (launch_timer_make(&d->timer, 0))
        return -1;
    if (d->v == BLUR_CUDA_SEED)
        return set_up_seed(d);
    size_t bytes = d->pixels * 4;
    CUDA_TRY(cudaMalloc(&d->a, bytes));
    CUDA_TRY(cudaMalloc(&d->b, bytes)); /* each launch writes all of it */
    CUDA_TRY(cudaMemcpy(d->a, d->rgba, bytes, cudaMemcpyHostToDevice));
    return 0;
}

/* One pass of the seed's pair of kernels. */
static int seed_pass(blur_cuda *d)
{
    if (launch_begin(d))
        return -1;
    blur_seed<<<d->grid, d->block>>>(d->chan[0], d->chan[1], d->chan[2],
                                     d->fresh[0], d->fresh[1], d->fresh[2],
                                     d->w, d->h);
    if (launch_end(d) || launch_begin(d))
        return -1;
    blur_seed_copy<<<d->grid, d->block>>>(d->chan[0], d->chan[1],
                                          d->chan[2], d->fresh[0],
                                          d->fresh[1], d->fresh[2], d->w,
                                          d->h);
    return launch_end(d);
}

/* `now` passes from a into b (one for double, up to BLUR_HALO for fast),
 * then a is the result. */
static int swap_pass(blur_cuda *d, unsigned now)
{
    if (launch_begin(d))
        return -1;
    if (d->v == BLUR_CUDA_FAST)
        blur_tiled<<<d->grid, d->block>>>(d->a, d->b, d->w, d->h, now);
    else
        blur_double<<<d->grid, d->block>>>(d->a, d->b, d->w, d->h);
    if (launch_end(d))
        return -1;
    unsigned int *t = d->a;
    d->a = d->b;
    d->b = t;
    return 0;
}

/* The passes, their times, then the result back into the image. */
static int run_passes(blur_cuda *d, unsigned passes)
{
    unsigned per_launch = d->v == BLUR_CUDA_FAST ? BLUR_HALO : 1;
    for (unsigned done = 0; done < passes;) {
        unsigned now = passes - done < per_launch ? passes - done
                                                  : per_launch;
        if (d->v == BLUR_CUDA_SEED ? seed_pass(d) : swap_pass(d, now))
            return -1;
        done += now;
    }
    if (launch_timer_read(&d->timer))
        return -1;
    if (d->v != BLUR_CUDA_SEED) {
        CUDA_TRY(cudaMemcpy(d->rgba, d->a, d->pixels * 4,
                            cudaMemcpyDeviceToHost));
        return 0;
    }
    size_t bytes = d->pixels * sizeof *d->planes;
    for (int c = 0; c < 3; c++)
        CUDA_TRY(cudaMemcpy(d->planes + c * d->pixels, d->chan[c], bytes,
                            cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < d->pixels; i++)
        for (int c = 0; c < 3; c++)
            d->rgba[4 * i + c] = (uint8_t)d->planes[c * d->pixels + i];
    return 0;
}

/* Frees what set_up made, whatever failed before. */
static void tear_down(blur_cuda *d)
{
    cudaFree(d->a);
    cudaFree(d->b);
    for (int c = 0; c < 3; c++) {
        cudaFree(d->chan[c]);
        cudaFree(d->fresh[c]);
    }
    launch_timer_free(&d->timer);
    free(d->planes);
}

int blur_cuda_run(uint8_t *rgba, uint32_t width, uint32_t height,
                  unsigned passes, blur_cuda_version v, double *kernel_ms,
                  unsigned *launches)
{
    if (width == 0 || height == 0 ||
        (uint64_t)width * height > ((uint64_t)1 << 28)) {
        fprintf(stderr, "blur_cuda_run: a %u x %u image is not 1 to 2^28 "
                "pixels\n", width, height);
        return -1;
    }
    blur_cuda d = {};
    d.rgba = rgba;
    d.w = width;
    d.h = height;
    d.pixels = (size_t)width * height;
    d.v = v;
    int rc = set_up(&d);
    if (rc == 0)
        rc = run_passes(&d, passes);
    tear_down(&d);
    *kernel_ms = d.timer.ms[0];
    *launches = d.launches;
    return rc;
}
