/*
 * blur.c: the blur's images (made, copied, read from and written to PNG),
 * the versions by name, and blur_run, the one entry point, which checks
 * the image once and hands it to a version.
 */
#include "blur.h"
#include "common/error.h"

#include "common/image.h"
#include "common/save.h"

#include <stdlib.h>
#include <string.h>

static const app_version versions[BLUR_VERSION_COUNT] = {
    [BLUR_REFERENCE] = {"reference", NULL, 0},
    [BLUR_OPENMP] = {"openmp", NULL, 0},
    [BLUR_SEED] = {"seed", NULL, 1},
    [BLUR_DOUBLE] = {"double", NULL, 1},
    [BLUR_FAST] = {"fast", NULL, 1},
};
const app_versions blur_versions = {versions, BLUR_VERSION_COUNT, BLUR_FAST,
                                    BLUR_DOUBLE};

/* ---- images -------------------------------------------------------------- */

static int check_size(uint32_t width, uint32_t height)
{
    if (width == 0 || height == 0 ||
        (uint64_t)width * height > BLUR_MAX_PIXELS)
        return app_fail(APP_ERR_BAD_INPUT, "blur: a %u x %u image; "
                        "it must have 1 to %u pixels", width, height,
                        BLUR_MAX_PIXELS);
    return 0;
}

int blur_image_alloc(blur_image *img, uint32_t width, uint32_t height)
{
    memset(img, 0, sizeof *img);
    int rc = check_size(width, height);
    if (rc)
        return rc;
    img->rgba = calloc((size_t)width * height, 4);
    if (!img->rgba)
        return app_fail(APP_ERR_NO_MEMORY, "blur: no memory for a "
                        "%u x %u image", width, height);
    img->width = width;
    img->height = height;
    img->has_alpha = 1;
    return 0;
}

void blur_image_free(blur_image *img)
{
    if (!img)
        return;
    free(img->rgba);
    memset(img, 0, sizeof *img);
}

int blur_image_copy(blur_image *dst, const blur_image *src)
{
    int rc = blur_image_alloc(dst, src->width, src->height);
    if (rc == 0) {
        memcpy(dst->rgba, src->rgba, (size_t)src->width * src->height * 4);
        dst->has_alpha = src->has_alpha;
    }
    return rc;
}

int blur_image_random(blur_image *img, uint32_t width, uint32_t height)
{
    int rc = blur_image_alloc(img, width, height);
    uint32_t s = 12345;
    for (size_t i = 0; rc == 0 && i < (size_t)width * height * 4; i++) {
        s = s * 1664525u + 1013904223u;
        img->rgba[i] = (uint8_t)(s >> 24);
    }
    return rc;
}

int blur_image_load(blur_image *img, const char *path)
{
    memset(img, 0, sizeof *img);
    int rc = image_png_load_alpha(path, &img->width, &img->height,
                                  &img->rgba, &img->has_alpha);
    if (rc)
        memset(img, 0, sizeof *img);
    return rc;
}

/* Row y of an image without alpha, as RGB. */
static void rgb_row(uint32_t y, uint8_t *out, void *ctx)
{
    const blur_image *img = ctx;
    const uint8_t *in = img->rgba + (size_t)y * img->width * 4;
    for (uint32_t x = 0; x < img->width; x++, in += 4, out += 3)
        memcpy(out, in, 3);
}

static int write_png(FILE *f, void *ctx)
{
    const blur_image *img = ctx;
    if (img->has_alpha)
        return image_png_write(f, img->width, img->height, 4, img->rgba);
    return image_png_write_rows(f, img->width, img->height, 3, rgb_row,
                                (void *)img);
}

int blur_image_save(const char *path, const blur_image *img)
{
    int rc = check_size(img->width, img->height);
    return rc ? rc : save_file(path, write_png, (void *)img);
}

/* ---- blurring ------------------------------------------------------------ */

int blur_run(blur_image *img, unsigned passes, blur_version v, clctx *ctx,
             app_timing *timing)
{
    app_timing ignored = {0};
    if (!timing)
        timing = &ignored;
    *timing = (app_timing){
        .want_kernel_time = timing->want_kernel_time};
    if (!img || !img->rgba)
        return app_fail(APP_ERR_USAGE, "blur: no image");
    int rc = check_size(img->width, img->height);
    if (rc)
        return rc;
    if (v == BLUR_REFERENCE || v == BLUR_OPENMP)
        return blur_run_c(img, passes, v == BLUR_OPENMP);
    if (app_version_uses_opencl(&blur_versions, v))
        return blur_run_opencl(img, passes, v, ctx, timing);
    return app_fail(APP_ERR_BAD_INPUT, "blur: no version %d",
                    (int)v);
}
