/*
 * blur.h: the image blur of apps/blur/SPEC.md: a PNG's pixels
 * replaced, pass after pass, by the average of their four neighbours, by a
 * C reference and its OpenMP twin, the seed's two kernels per pass on
 * three int arrays, double buffering on packed RGBA8, and several passes
 * per launch in local-memory tiles.
 *
 * The rule (the seed's no-padding edge rule): one pass replaces R, G and
 * B of every pixel by the rounded average of the neighbours it has among
 * left, right, up and down (4 inside, 3 on an edge, 2 at a corner; fewer
 * in an image 1 pixel wide or high), in integers:
 *
 *     new = (sum + count / 2) / count
 *
 * A pixel with no neighbours (a 1 x 1 image) keeps its value. Alpha is
 * never blurred: it is copied unchanged. All arithmetic is exact, so every
 * version gives the reference's bytes. Functions return 0 or a negative
 * code with a message in app_last_error().
 */
#ifndef BLUR_H
#define BLUR_H

#include "common/timing.h"
#include "common/versions.h"

#include <stdint.h>

/* clframe's context (clframe.h), which the OpenCL versions run on. */
typedef struct clctx clctx;

/* A width x height image as 8-bit RGBA, row by row, whatever the file
 * held; has_alpha says whether the file had alpha, so that it is written
 * back as RGBA, or as RGB without it. */
typedef struct blur_image {
    uint32_t width, height;
    int has_alpha;
    uint8_t *rgba;
} blur_image;

/* Images of 1 to BLUR_MAX_PIXELS pixels (the PNG loader's own limit, so
 * a pixel's byte offset fits a 32-bit index on the device). */
#define BLUR_MAX_PIXELS (1u << 28)

/* A width x height image of zeros (has_alpha 1). */
int blur_image_alloc(blur_image *img, uint32_t width, uint32_t height);
void blur_image_free(blur_image *img);
int blur_image_copy(blur_image *dst, const blur_image *src);

/* A width x height image of pseudo-random bytes, alpha included: the same
 * bytes on every call, so that benchmarks that compare versions or
 * toolchains blur the same image (bin/bench-blur, bin/bench-cuda-blur). */
int blur_image_random(blur_image *img, uint32_t width, uint32_t height);

/* Reads any PNG (grey and palette converted) into img; a missing,
 * corrupt, truncated or non-PNG file is refused with a message naming it. */
int blur_image_load(blur_image *img, const char *path);

/* Writes img as an 8-bit RGBA PNG if it has alpha, else RGB; written
 * beside path and renamed over it, so a failure leaves no file. */
int blur_image_save(const char *path, const blur_image *img);

typedef enum blur_version {
    BLUR_REFERENCE = 0, /* plain C, one thread: the reference */
    BLUR_OPENMP,        /* the reference with rows split by OpenMP */
    BLUR_SEED,          /* int R, G, B arrays: blur + copy-back kernels */
    BLUR_DOUBLE,        /* packed RGBA8, two buffers, one kernel per pass */
    BLUR_FAST,          /* several passes per launch in local-memory tiles */
    BLUR_VERSION_COUNT
} blur_version;

/* Their names, "reference", "openmp", "seed", "double" and "fast", which
 * run on a device, and the defaults: fast on a GPU, double on a CPU device
 * (common/versions.h). */
extern const app_versions blur_versions;

/* Blurs img in place by `passes` passes of version v. ctx is for the
 * OpenCL versions (NULL: clframe's default); timing may be NULL. */
int blur_run(blur_image *img, unsigned passes, blur_version v, clctx *ctx,
             app_timing *timing);

/* The C versions (blur_ref.c) and the OpenCL ones (blur_cl.c), for
 * blur_run, which has checked the image. */
int blur_run_c(blur_image *img, unsigned passes, int parallel);
int blur_run_opencl(blur_image *img, unsigned passes, blur_version v,
                    clctx *ctx, app_timing *timing);
/* Threads the OpenMP version uses (1 without OpenMP). */
int blur_openmp_threads(void);

/* How many passes the fast version makes per launch (its tiles' halo). */
unsigned blur_fast_passes_per_launch(void);

#endif /* BLUR_H */
