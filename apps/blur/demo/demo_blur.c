/*
 * demo_blur.c: the image blur (apps/blur): a 640 x 480 RGBA picture
 * (stripes, squares and an alpha gradient) blurred 100 times by the
 * fastest version (4 passes per launch in local-memory tiles), compared
 * byte for byte with the C reference, timed against it and OpenMP, and
 * written to a PNG. The benchmark table blurs 1024 x 1024 20 times.
 */
#include "demo/demo.h"
#include "common/error.h"

#include "blur/blur.h"

#include <stdio.h>
#include <string.h>

/* The demo's picture and passes, and the benchmark table's (make bench's
 * larger bench-blur size). */
static const uint32_t PICTURE_W[2] = {640, 1024}, PICTURE_H[2] = {480, 1024};
static const unsigned PICTURE_PASSES[2] = {100, 20};
#define PICTURE_PNG DEMO_PICTURES "/blur.png"

/* Hard edges for the blur to soften: diagonal stripes, a grid of squares,
 * alpha falling from left to right (kept, not blurred). */
static void draw(blur_image *img)
{
    for (uint32_t y = 0; y < img->height; y++)
        for (uint32_t x = 0; x < img->width; x++) {
            uint8_t *p = img->rgba + 4 * ((size_t)y * img->width + x);
            int stripe = (x + y) / 24 % 2, square = (x / 80 + y / 80) % 2;
            p[0] = stripe ? 230 : 20;
            p[1] = square ? 200 : 40;
            p[2] = (uint8_t)(255 * y / img->height);
            p[3] = (uint8_t)(255 - 155 * x / img->width);
        }
}

/* Blurs a copy of start with version v DEMO_CALLS times, keeping the
 * last. */
static int blur_device(demo_result *r, const blur_image *start,
                       blur_image *got, blur_version v, unsigned passes)
{
    int rc = 0;
    for (int call = 0; call < DEMO_CALLS && rc == 0; call++) {
        blur_image_free(got);
        rc = blur_image_copy(got, start);
        if (rc)
            return demo_fail(r, rc, "blur: copying the image");
        app_timing stats = {.want_kernel_time = 1};
        double t0 = demo_now_ms();
        rc = blur_run(got, passes, v, NULL, &stats);
        r->call_ms = demo_now_ms() - t0;
        r->kernel_ms = stats.kernel_ms;
    }
    return rc ? demo_fail(r, rc, "blur: blurring on the device") : 0;
}

/* The blurred picture as a PNG, named in r's note. */
static void save(demo_result *r, const blur_image *img)
{
    demo_picture_folder();
    demo_picture_note(r, blur_image_save(PICTURE_PNG, img), "blur",
                      "blur: the blurred picture is " PICTURE_PNG);
}

int demo_blur(demo_result *r, demo_scale scale)
{
    blur_image start = {0}, want = {0}, got = {0}, omp = {0};
    uint32_t w = PICTURE_W[scale], h = PICTURE_H[scale];
    unsigned passes = PICTURE_PASSES[scale];
    snprintf(r->size, sizeof r->size, "%ux%u x %u", w, h, passes);
    int rc = blur_image_alloc(&start, w, h);
    if (rc == 0) {
        draw(&start);
        rc = blur_image_copy(&want, &start);
    }
    if (rc == 0)
        rc = blur_image_copy(&omp, &start);
    if (rc) {
        demo_fail(r, rc, "blur: making the image");
        goto done;
    }
    double t0 = demo_now_ms();
    rc = blur_run(&want, passes, BLUR_REFERENCE, NULL, NULL);
    r->ref_ms = demo_now_ms() - t0;
    t0 = demo_now_ms();
    if (rc == 0)
        rc = blur_run(&omp, passes, BLUR_OPENMP, NULL, NULL);
    r->omp_ms = demo_now_ms() - t0;
    if (rc) {
        demo_fail(r, rc, "blur: blurring with the reference or OpenMP");
        goto done;
    }
    rc = blur_device(r, &start, &got,
                     (blur_version)demo_version(r, &blur_versions), passes);
    if (rc)
        goto done;
    demo_compare_bytes(r, got.rgba, want.rgba, (size_t)w * h * 4);
    if (scale == DEMO_SMALL)
        save(r, &got);
done:
    blur_image_free(&start);
    blur_image_free(&want);
    blur_image_free(&got);
    blur_image_free(&omp);
    return rc;
}
