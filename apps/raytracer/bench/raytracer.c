/*
 * raytracer.c (bin/bench-raytracer): the raytracer table of `make bench`.
 *
 * Frames per second of the seed's test scene (rt_scene_generate: spheres
 * over a ground plane, one light, reflections to depth 3) at one image
 * size, on clframe's device:
 *
 *   1000 spheres, brute force   the seed's method (its figure: 0.78
 *                               frames/s on a 4-core CPU, 18 on a 2012 GPU)
 *   1000 spheres, BVH
 *   100 000 spheres, BVH        (brute force would take minutes per frame)
 *
 * A frame is what the GUI pays: the kernel and the read of the pixels into
 * host memory, from the call to its return: into malloc'd memory, and
 * into pinned memory (clframe_host_alloc), as the GUI's surfaces are. Each row is the median over
 * `frames` frames after one warm-up frame, except that a row stops early,
 * after at least 3 frames, once its frames have taken SLOW_S seconds (the
 * table says how many ran). Kernel time, from profiling events, is the
 * median of a second pass with timing on (events cost a few microseconds,
 * so they stay out of the frame times). The plain C reference renders the
 * 1000-sphere scene once in the same run for the ratio, and its image is
 * compared with each 1000-sphere row's.
 *
 * usage: bench-raytracer [WxH=700x700] [frames=50] [reference=1]
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "clframe.h"
#include "common/parse.h"
#include "raytracer/raytracer.h"
#include "median.h"
#include "common/clock.h"
#include "common/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_FRAMES = 1000, MIN_FRAMES = 3 };
static const double SLOW_S = 10.0;

typedef struct row {
    uint32_t spheres;
    rt_method method;
    double frame_ms, pinned_ms, kernel_ms;
    int frames;
    int differing;                /* pixels off the reference, or -1 */
} row;

/* Pixels whose channels differ from the reference's by more than 2. */
static int differing_pixels(const uint8_t *a, const uint8_t *b, size_t n)
{
    int count = 0;
    for (size_t i = 0; i < n; i++)
        for (int c = 0; c < 3; c++)
            if (abs(a[4 * i + c] - b[4 * i + c]) > 2) {
                count++;
                break;
            }
    return count;
}

/* The median time of up to max_frames frames into pixels, after one. */
static int time_frames(rt_renderer *renderer, const rt_scene *scene,
                       uint32_t w, uint32_t h, int max_frames,
                       uint8_t *pixels, int *frames, double *median)
{
    double ms[MAX_FRAMES], spent = 0;
    int rc = rt_renderer_render(renderer, &scene->camera, w, h,
                                RT_PIXELS_RGBA, pixels);
    int n = 0;
    for (; rc == 0 && n < max_frames && (n < MIN_FRAMES || spent < SLOW_S * 1e3);
         n++) {
        double start = clock_ms();
        rc = rt_renderer_render(renderer, &scene->camera, w, h,
                                RT_PIXELS_RGBA, pixels);
        ms[n] = clock_ms() - start;
        spent += ms[n];
    }
    if (rc == 0) {
        *frames = n;
        *median = median_of(ms, n);
    }
    return rc;
}

static int measure(row *r, const rt_scene *scene, uint32_t w, uint32_t h,
                   int max_frames, uint8_t *pixels)
{
    rt_renderer *renderer = rt_renderer_create(NULL, scene, r->method);
    if (!renderer)
        return -1;
    size_t bytes = (size_t)w * h * 4;
    uint8_t *pinned = clframe_host_alloc(rt_renderer_ctx(renderer), bytes);
    int pinned_frames = 0;
    int rc = pinned ? 0 : -1;
    if (rc == 0)
        rc = time_frames(renderer, scene, w, h, max_frames, pinned,
                         &pinned_frames, &r->pinned_ms);
    if (rc == 0)
        rc = time_frames(renderer, scene, w, h, max_frames, pixels,
                         &r->frames, &r->frame_ms);
    if (rc == 0 && memcmp(pinned, pixels, bytes) != 0)
        rc = app_fail(APP_ERR_BAD_INPUT, "the frame read into pinned memory "
                      "differs from the one read into malloc'd memory");
    double ms[MAX_FRAMES];
    if (rc == 0) {
        rt_renderer_set_timing(renderer, 1);
        for (int i = 0; rc == 0 && i < r->frames; i++) {
            rc = rt_renderer_render(renderer, &scene->camera, w, h,
                                    RT_PIXELS_RGBA, pixels);
            ms[i] = rt_renderer_last_kernel_ms(renderer);
        }
        r->kernel_ms = median_of(ms, r->frames);
    }
    clframe_host_free(pinned);
    rt_renderer_free(renderer);
    return rc;
}

int main(int argc, char **argv)
{
    uint32_t w = 700, h = 700;
    unsigned long frames = 50, with_reference = 1;
    if ((argc > 1 && !parse_size(argv[1], 16384, &w, &h)) ||
        (argc > 2 && !parse_uint(argv[2], 1, MAX_FRAMES, &frames)) ||
        (argc > 3 && !parse_uint(argv[3], 0, 1, &with_reference)) ||
        argc > 4) {
        fprintf(stderr, "usage: bench-raytracer [WxH=700x700] "
                "[frames=50 (1-%d)] [reference=1]\n", MAX_FRAMES);
        return 2;
    }
    clctx *ctx = clctx_default();
    if (!ctx) {
        fprintf(stderr, "bench-raytracer: %s\n", app_last_error());
        return 1;
    }
    size_t n_pixels = (size_t)w * h;
    uint8_t *pixels = malloc(4 * n_pixels), *want = malloc(4 * n_pixels);
    rt_scene small, large;
    if (!pixels || !want || rt_scene_generate(&small, 1000) != 0 ||
        rt_scene_generate(&large, 100000) != 0) {
        fprintf(stderr, "bench-raytracer: out of memory\n");
        return 1;
    }
    double reference_ms = 0;
    if (with_reference) {
        double start = clock_ms();
        rt_render_reference(&small, &small.camera, w, h, want);
        reference_ms = clock_ms() - start;
    }
    row rows[] = {{1000, RT_METHOD_BRUTE_FORCE, 0, 0, 0, 0, -1},
                  {1000, RT_METHOD_BVH, 0, 0, 0, 0, -1},
                  {100000, RT_METHOD_BVH, 0, 0, 0, 0, -1}};
    printf("raytracer: the seed's test scene at %ux%u pixels, reflections "
           "to depth %d, on %s\n", w, h, small.max_depth,
           clctx_describe(ctx));
    printf("frame = kernel + reading the pixels back (into malloc'd or "
           "pinned memory); median of up to %lu frames after a warm-up\n\n",
           frames);
    printf("%-16s %-6s %7s %11s %10s %10s %10s %9s %s\n", "scene", "method",
           "frames", "frame ms", "frames/s", "pinned ms", "kernel ms",
           "vs C ref", "pixels off ref");
    int status = 0;
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        row *r = &rows[i];
        const rt_scene *scene = r->spheres == 1000 ? &small : &large;
        if (measure(r, scene, w, h, (int)frames, pixels) != 0) {
            fprintf(stderr, "bench-raytracer: %s\n", app_last_error());
            status = 1;
            continue;
        }
        char ratio[32] = "-", off[32] = "-";
        if (with_reference && r->spheres == 1000) {
            snprintf(ratio, sizeof ratio, "%.1fx", reference_ms / r->frame_ms);
            r->differing = differing_pixels(want, pixels, n_pixels);
            snprintf(off, sizeof off, "%d", r->differing);
            /* The tests allow 0.2 %; more here means a wrong kernel. */
            if ((size_t)r->differing > n_pixels / 500)
                status = 1;
        }
        char name[32];
        snprintf(name, sizeof name, "%u spheres", r->spheres);
        printf("%-16s %-6s %7d %11.3f %10.1f %10.3f %10.3f %9s %s\n", name,
               rt_method_name(r->method), r->frames, r->frame_ms,
               1e3 / r->frame_ms, r->pinned_ms, r->kernel_ms, ratio, off);
    }
    if (with_reference)
        printf("\nC reference (plain C, one thread, brute force), 1000 "
               "spheres: %.3f s per frame, %.3f frames/s\n",
               reference_ms / 1e3, 1e3 / reference_ms);
    printf("seed (2012): 0.78 frames/s on a 4-core CPU, 18 frames/s on a "
           "Radeon 7970, 1000 spheres at 700x700\n");
    rt_scene_free(&small);
    rt_scene_free(&large);
    free(pixels);
    free(want);
    return status;
}
