/*
 * blur_clframe.c: the seed's image blur, apps/blur's blur_seed then
 * blur_seed_copy each pass on R, G and B as int arrays, for a number of
 * passes over the app's pseudo-random image, through clframe: the clframe
 * one of the three host programs per workload, whose lines
 * bench/cuda/effort/count compares. It prints the kernels' time from their
 * profiling events and checks every channel against the app's C reference
 * (the image and the reference are apps/blur's helpers, shared by the three
 * programs and not counted). From the repository's root, after make:
 *
 *   cc -std=c11 -O2 -Wall -Wextra -Werror -Iclframe -Iapps -o bin/effort-blur-clframe apps/blur/cuda/effort/blur_clframe.c build/libblur.a build/libcommon.a build/libclframe.a -lOpenCL -lpng16 -lm -fopenmp && bin/effort-blur-clframe 512 512 10
 */
#include "blur/blur.h"
#include "clframe.h"
#include "common/error.h"

#include <stdio.h>
#include <stdlib.h>

#define KERNEL_FILE "apps/blur/kernels/blur.cl"
enum { GROUP_W = 32, GROUP_H = 8 };     /* the app's work-group */

/* Stops the program on a clframe failure, which left the reason. */
static void check(int rc)
{
    if (rc) {
        fprintf(stderr, "%s\n", clframe_last_error());
        exit(1);
    }
}

/* One of the seed's kernels over the image, timed. */
static clkernel *build(const char *name, cl_uint w, cl_uint h)
{
    clkernel *k = clkernel_file(NULL, KERNEL_FILE, name, NULL);
    check(!k);
    check(clkernel_global(k, clframe_round_up(w, GROUP_W),
                          clframe_round_up(h, GROUP_H)));
    check(clkernel_local(k, GROUP_W, GROUP_H));
    check(clkernel_set_timing(k, 1));
    return k;
}

int main(int argc, char **argv)
{
    cl_uint w = argc > 1 ? (cl_uint)atoi(argv[1]) : 512;
    cl_uint h = argc > 2 ? (cl_uint)atoi(argv[2]) : 512;
    int passes = argc > 3 ? atoi(argv[3]) : 10;
    blur_image img, ref;
    if (passes < 0 || blur_image_random(&img, w, h) ||
        blur_image_copy(&ref, &img)) {
        fprintf(stderr, "usage: blur_clframe [width height passes] (%s)\n",
                app_last_error());
        return 2;
    }
    size_t pixels = (size_t)w * h;
    cl_int *planes = malloc(3 * pixels * sizeof *planes);
    if (!planes) {
        fprintf(stderr, "no memory for %u x %u\n", w, h);
        return 1;
    }
    /* The seed's kernels take R, G and B apart, as ints; all stay on the
     * device, the new values' arrays filled by every pass. */
    clarg chan[3], fresh[3];
    for (int c = 0; c < 3; c++) {
        cl_int *plane = planes + c * pixels;
        for (size_t i = 0; i < pixels; i++)
            plane[i] = img.rgba[4 * i + c];
        chan[c] = CLARG_INOUT(plane, pixels);
        fresh[c] = CLARG_INOUT(plane, pixels);
        check(clarg_keep_on_device(&chan[c], NULL, 1));
        check(clarg_keep_on_device(&fresh[c], NULL, 0));
    }

    clkernel *blur = build("blur_seed", w, h);
    clkernel *copy = build("blur_seed_copy", w, h);
    for (int p = 0; p < passes; p++) {
        check(clkernel_enqueue(blur, chan[0], chan[1], chan[2], fresh[0],
                               fresh[1], fresh[2], CLARG(w), CLARG(h)));
        check(clkernel_enqueue(copy, chan[0], chan[1], chan[2], fresh[0],
                               fresh[1], fresh[2], CLARG(w), CLARG(h)));
    }
    for (int c = 0; c < 3; c++)
        check(clarg_read(&chan[c]));
    double ms = clkernel_total_ms(blur) + clkernel_total_ms(copy);

    long wrong = blur_run(&ref, passes, BLUR_REFERENCE, NULL, NULL) ? -1 : 0;
    for (size_t i = 0; i < pixels && wrong >= 0; i++)
        for (int c = 0; c < 3; c++)
            wrong += planes[c * pixels + i] != ref.rgba[4 * i + c];
    printf("blur seed, %u x %u, %d passes: %.3f ms, %s\n", w, h, passes, ms,
           wrong ? "WRONG" : "checked");

    for (int c = 0; c < 3; c++) {
        clarg_release(&chan[c]);
        clarg_release(&fresh[c]);
    }
    clkernel_free(blur);
    clkernel_free(copy);
    free(planes);
    blur_image_free(&img);
    blur_image_free(&ref);
    return wrong ? 1 : 0;
}
