/*
 * png.c: 8-bit RGB and RGBA PNG output through libpng, one row at a time
 * so that callers that compute pixels row by row need no
 * whole-image buffer; a PNG file saved through save_file (save.h).
 */
#include "image.h"
#include "png_failure.h"
#include "error.h"
#include "save.h"

#include <errno.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct png_job {
    uint32_t width, height;
    int channels;
    image_row_fn *row_of;
    void *ctx;
    uint8_t *row;
} png_job;

/* Everything after setjmp, in a function of its own so that no local of
 * the function that called setjmp changes before a longjmp. */
static void png_write_image_rows(png_structp png, png_infop info,
                                 const png_job *job)
{
    png_set_IHDR(png, info, job->width, job->height, 8,
                 job->channels == 4 ? PNG_COLOR_TYPE_RGBA
                                    : PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (uint32_t y = 0; y < job->height; y++) {
        job->row_of(y, job->row, job->ctx);
        png_write_row(png, job->row);
    }
    png_write_end(png, NULL);
}

/* 0 or -1 with failure->message set. */
static int png_write_job(FILE *f, const png_job *job, png_failure *failure)
{
    png_structp png = png_create_write_struct(
        PNG_LIBPNG_VER_STRING, failure, png_failure_on_error,
        png_failure_on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        snprintf(failure->message, sizeof failure->message,
                 "libpng could not start (out of memory)");
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return -1;
    }
    png_init_io(png, f);
    png_write_image_rows(png, info, job);
    png_destroy_write_struct(&png, &info);
    return 0;
}

int image_png_write_rows(FILE *f, uint32_t width, uint32_t height,
                         int channels, image_row_fn *row, void *ctx)
{
    if (channels != 3 && channels != 4)
        return app_fail(APP_ERR_USAGE, "PNG: %d channels; 3 (RGB) "
                        "or 4 (RGBA) are written", channels);
    if (width == 0 || height == 0 || width > PNG_UINT_31_MAX / 4 ||
        height > PNG_UINT_31_MAX)
        return app_fail(APP_ERR_BAD_INPUT, "an image of %u x %u "
                        "pixels cannot be a PNG", width, height);
    png_job job = {width, height, channels, row, ctx,
                   malloc((size_t)channels * width)};
    if (!job.row)
        return app_fail(APP_ERR_NO_MEMORY, "PNG: out of memory for "
                        "a row of %u pixels", width);
    png_failure failure = {""};
    int rc = png_write_job(f, &job, &failure);
    free(job.row);
    if (rc == 0 && (fflush(f) != 0 || ferror(f)))
        snprintf(failure.message, sizeof failure.message, "%s",
                 strerror(errno)), rc = -1;
    if (rc != 0)
        return app_fail(APP_ERR_IO, "writing the PNG image failed: "
                        "%s", failure.message);
    return 0;
}

typedef struct pixel_rows {
    const uint8_t *pixels;
    size_t stride;
} pixel_rows;

static void copy_row(uint32_t y, uint8_t *out, void *ctx)
{
    const pixel_rows *rows = ctx;
    memcpy(out, rows->pixels + y * rows->stride, rows->stride);
}

int image_png_write(FILE *f, uint32_t width, uint32_t height, int channels,
                    const uint8_t *pixels)
{
    pixel_rows rows = {pixels, (size_t)width * (channels > 0 ? channels : 0)};
    return image_png_write_rows(f, width, height, channels, copy_row, &rows);
}

typedef struct png_pixels {
    uint32_t width, height;
    int channels;
    const uint8_t *pixels;
} png_pixels;

static int write_png_pixels(FILE *f, void *ctx)
{
    const png_pixels *p = ctx;
    return image_png_write(f, p->width, p->height, p->channels, p->pixels);
}

int image_png_save(const char *path, uint32_t width, uint32_t height,
                   int channels, const uint8_t *pixels)
{
    png_pixels p = {width, height, channels, pixels};
    return save_file(path, write_png_pixels, &p);
}

int image_path_has_extension(const char *path, const char *ext)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    return dot && !(slash && dot < slash) && strcasecmp(dot, ext) == 0;
}
