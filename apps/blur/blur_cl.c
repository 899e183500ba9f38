/*
 * blur_cl.c: the OpenCL versions of the blur on clframe.
 *
 *   seed    the seed's port: R, G and B as three int arrays and three more
 *           for the new values, a blur kernel and a copy-back kernel per
 *           pass (a kernel cannot wait for all the others before
 *           overwriting what they read); 24 bytes moved per pixel and pass
 *           in the blur, 24 in the copy;
 *   double  the image as packed RGBA8 in two buffers, one kernel per
 *           pass; the in-order queue orders the launches and clarg_swap
 *           exchanges the buffers' roles, so nothing is copied back
 *           (8 bytes per pixel and pass);
 *   fast    double's buffers, blurred up to BLUR_HALO passes per launch in
 *           local-memory tiles with a halo: global memory is read and
 *           written once per launch, not per pass.
 *
 * The image goes up once and comes down once per run; everything between
 * stays on the device in persistent buffers.
 */
#include "blur.h"
#include "common/error.h"
#include "clframe.h"

#include <stdio.h>
#include <stdlib.h>

/* apps/blur/kernels, compiled in (scripts/embed-sources). */
extern const clframe_source blur_kernel_sources[];
#define BLUR_KERNELS "apps/blur/kernels/blur.cl"

/* The per-pixel kernels' work-group: a warp-wide row, GROUP_H rows deep
 * (fewer on devices with small groups).
 *
 * The tiled kernel: 64 x 64 tiles (2 x 16 KiB of local memory as
 * words, in the 48 KiB every GPU gives a group) with a halo of HALO = 4,
 * so 4 passes per launch. The halo trades extra work for fewer memory
 * passes: each launch recomputes (64 / 56)^2 = 1.31 times the output
 * block and moves 8 * 1.31 / 4 = 2.6 bytes per pixel and pass instead of
 * double's 8. Halos of 2, 6 and 8 are slower than 4 on a GPU
 * (bench/RESULTS.md, Image blur): a larger halo recomputes more, a smaller
 * one goes to memory more often. */
enum { GROUP_W = 32, GROUP_H = 8, TILE_W = 64, TILE_MAX_H = 64, HALO = 4 };

unsigned blur_fast_passes_per_launch(void)
{
    return HALO;
}

typedef struct blur_dev {
    clctx *ctx;
    blur_image *img;
    app_timing *timing;
    blur_version v;
    size_t pixels, group_h;
    unsigned tile_h;
    clkernel *blur, *copy;
    clarg a, b;                 /* double, fast: the image and the other */
    clarg chan[3], fresh[3];    /* seed: R, G, B and their new values */
    cl_int *planes;             /* seed: the host's R, G, B arrays */
} blur_dev;

static clkernel *build(blur_dev *d, const char *name)
{
    char options[200];
    snprintf(options, sizeof options, "-DBLUR_GROUP_W=%d -DBLUR_GROUP_H=%d "
             "-DBLUR_TILE_W=%d -DBLUR_TILE_H=%u -DBLUR_HALO=%d", GROUP_W,
             GROUP_H, TILE_W, d->tile_h, HALO);
    if (clframe_add_sources(blur_kernel_sources))
        return NULL;
    clkernel *k = clkernel_file(d->ctx, BLUR_KERNELS, name, options);
    app_timing_watch(d->timing, k);
    return k;
}

/* A per-pixel kernel: one work-item per pixel, extra ones guarded. */
static clkernel *build_per_pixel(blur_dev *d, const char *name)
{
    clkernel *k = build(d, name);
    if (k && (clkernel_global(k, clframe_round_up(d->img->width, GROUP_W),
                              clframe_round_up(d->img->height, d->group_h)) ||
              clkernel_local(k, GROUP_W, d->group_h))) {
        clkernel_free(k);
        return NULL;
    }
    return k;
}

/* The tiled kernel: one work-group per tile's output block. */
static clkernel *build_tiled(blur_dev *d)
{
    clkernel *k = build(d, "blur_tiled");
    size_t out_w = TILE_W - 2 * HALO, out_h = d->tile_h - 2 * HALO;
    size_t gx = (d->img->width + out_w - 1) / out_w;
    size_t gy = (d->img->height + out_h - 1) / out_h;
    if (k && (clkernel_global(k, gx * GROUP_W, gy * GROUP_H) ||
              clkernel_local(k, GROUP_W, GROUP_H))) {
        clkernel_free(k);
        return NULL;
    }
    return k;
}

/* Work-group shape and tile height for this device. */
static int choose_shapes(blur_dev *d)
{
    size_t max_group = clctx_max_work_group_size(d->ctx);
    d->group_h = GROUP_H;
    while (GROUP_W * d->group_h > max_group && d->group_h > 1)
        d->group_h /= 2;
    if (GROUP_W * d->group_h > max_group)
        return app_fail(APP_ERR_DEVICE, "blur: %s runs "
                        "work-groups of at most %zu; %d are needed",
                        clctx_device_name(d->ctx), max_group, GROUP_W);
    cl_ulong local = clctx_local_mem_size(d->ctx);
    d->tile_h = TILE_MAX_H;
    while (d->tile_h > 2 * HALO + GROUP_H &&
           (cl_ulong)2 * TILE_W * d->tile_h * 4 > local)
        d->tile_h -= GROUP_H;
    if (d->v == BLUR_FAST && ((cl_ulong)2 * TILE_W * d->tile_h * 4 > local ||
                              GROUP_W * GROUP_H > max_group))
        return app_fail(APP_ERR_DEVICE, "blur fast: %s has too "
                        "little local memory (%lu bytes) or too small "
                        "work-groups (%zu) for its tiles",
                        clctx_device_name(d->ctx), (unsigned long)local,
                        max_group);
    return 0;
}

/* seed: the image split into R, G and B ints, on the device. */
static int set_up_seed(blur_dev *d)
{
    d->planes = malloc(3 * d->pixels * sizeof *d->planes);
    if (!d->planes)
        return app_fail(APP_ERR_NO_MEMORY, "blur: no memory for a "
                        "%u x %u image's channels", d->img->width,
                        d->img->height);
    for (int c = 0; c < 3; c++) {
        cl_int *plane = d->planes + c * d->pixels;
        for (size_t i = 0; i < d->pixels; i++)
            plane[i] = d->img->rgba[4 * i + c];
        d->chan[c] = CLARG_INOUT(plane, d->pixels);
        d->fresh[c] = CLARG_INOUT(plane, d->pixels);
    }
    int rc = 0;
    for (int c = 0; c < 3 && rc == 0; c++) {
        rc = clarg_keep_on_device(&d->chan[c], d->ctx, 1);
        if (rc == 0)        /* every pass writes all of it before a read */
            rc = clarg_keep_on_device(&d->fresh[c], d->ctx, 0);
    }
    return rc;
}

/* Builds the version's kernels and puts the image on the device. */
static int set_up(blur_dev *d)
{
    int rc = choose_shapes(d);
    if (rc)
        return rc;
    if (d->v == BLUR_SEED) {
        d->blur = build_per_pixel(d, "blur_seed");
        d->copy = build_per_pixel(d, "blur_seed_copy");
    } else {
        d->blur = d->v == BLUR_FAST ? build_tiled(d)
                                    : build_per_pixel(d, "blur_double");
    }
    if (!d->blur || (d->v == BLUR_SEED && !d->copy))
        return CLFRAME_ERR_BUILD;       /* clframe said why */
    if (d->v == BLUR_SEED)
        return set_up_seed(d);
    cl_uchar4 *pixels = (cl_uchar4 *)(void *)d->img->rgba;
    d->a = CLARG_INOUT(pixels, d->pixels);
    d->b = CLARG_INOUT(pixels, d->pixels);
    rc = clarg_keep_on_device(&d->a, d->ctx, 1);
    if (rc == 0)            /* every launch writes all of it before a read */
        rc = clarg_keep_on_device(&d->b, d->ctx, 0);
    return rc;
}

/* One pass of the seed's pair of kernels. */
static int seed_pass(blur_dev *d)
{
    cl_uint w = d->img->width, h = d->img->height;
    int rc = clkernel_enqueue(d->blur, d->chan[0], d->chan[1], d->chan[2],
                              d->fresh[0], d->fresh[1], d->fresh[2],
                              CLARG(w), CLARG(h));
    if (rc)
        return rc;
    return clkernel_enqueue(d->copy, d->chan[0], d->chan[1], d->chan[2],
                            d->fresh[0], d->fresh[1], d->fresh[2], CLARG(w),
                            CLARG(h));
}

/* `now` passes from a into b (one for double, up to HALO for fast), then
 * a is the result. */
static int swap_pass(blur_dev *d, cl_uint now)
{
    cl_uint w = d->img->width, h = d->img->height;
    int rc = d->v == BLUR_FAST
                 ? clkernel_enqueue(d->blur, d->a, d->b, CLARG(w), CLARG(h),
                                    CLARG(now))
                 : clkernel_enqueue(d->blur, d->a, d->b, CLARG(w), CLARG(h));
    return rc ? rc : clarg_swap(&d->a, &d->b);
}

/* The passes, then the result back into the image. */
static int run_passes(blur_dev *d, unsigned passes)
{
    int rc = 0;
    unsigned per_launch = d->v == BLUR_FAST ? HALO : 1;
    for (unsigned done = 0; done < passes && rc == 0;) {
        unsigned now = passes - done < per_launch ? passes - done
                                                  : per_launch;
        rc = d->v == BLUR_SEED ? seed_pass(d) : swap_pass(d, now);
        done += now;
    }
    if (rc || d->v != BLUR_SEED)
        return rc ? rc : clarg_read(&d->a);
    for (int c = 0; c < 3 && rc == 0; c++)
        rc = clarg_read(&d->chan[c]);
    for (size_t i = 0; i < d->pixels && rc == 0; i++)
        for (int c = 0; c < 3; c++)
            d->img->rgba[4 * i + c] = (uint8_t)d->planes[c * d->pixels + i];
    return rc;
}

static void tear_down(blur_dev *d)
{
    clarg_release(&d->a);
    clarg_release(&d->b);
    for (int c = 0; c < 3; c++) {
        clarg_release(&d->chan[c]);
        clarg_release(&d->fresh[c]);
    }
    app_timing_add(d->timing, d->blur);
    app_timing_add(d->timing, d->copy);
    clkernel_free(d->blur);
    clkernel_free(d->copy);
    free(d->planes);
}

int blur_run_opencl(blur_image *img, unsigned passes, blur_version v,
                    clctx *ctx, app_timing *timing)
{
    if (!app_version_uses_opencl(&blur_versions, v))
        return app_fail(APP_ERR_USAGE, "blur_run_opencl: version %d "
                        "is not an OpenCL version", (int)v);
    app_timing ignored = {0};
    blur_dev d = {
        .ctx = ctx ? ctx : clctx_default(),
        .img = img,
        .timing = timing ? timing : &ignored,
        .v = v,
        .pixels = (size_t)img->width * img->height,
    };
    if (!d.ctx)
        return CLFRAME_ERR_NO_DEVICE;   /* clframe said why */
    int rc = set_up(&d);
    if (rc == 0)
        rc = run_passes(&d, passes);
    tear_down(&d);
    return rc;
}
