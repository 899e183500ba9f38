/*
 * png_read.c: reading any PNG (grey, grey+alpha, palette, RGB, RGBA; 1 to
 * 16 bits; interlaced or not) into 8-bit RGBA through libpng's transforms.
 * A file that is not a PNG, is corrupt or ends early is refused with a
 * message naming it; libpng's errors come back through setjmp, as in png.c.
 * What a file can make us allocate is bounded before libpng reads a chunk
 * (limit_png): a small hostile file must not cost gigabytes.
 */
#include "image.h"
#include "png_failure.h"
#include "error.h"

#include <errno.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>

/* The most bytes libpng may allocate for one chunk it keeps. The chunks
 * it still reads (limit_png) are small: tRNS at most 256 bytes, PLTE 768;
 * image data is decompressed a row at a time, whatever its chunks' size. */
#define IMAGE_MAX_CHUNK (1u << 20)

/* What a load produces; filled in after setjmp, so kept out of its frame. */
typedef struct png_load {
    uint32_t width, height;
    int has_alpha;
    uint8_t *rgba;
    png_bytep *rows;
} png_load;

/* Sets libpng's limits on what the file may make it allocate. libpng 1.6
 * only warns when an ancillary chunk is larger than its chunk limit, then
 * allocates and zeroes it anyway (a file of a few bytes whose tEXt chunk
 * claims gigabytes makes it allocate them), so the ancillary chunks are
 * skipped unread: with a negative count, png_set_keep_unknown_chunks
 * ignores every chunk but the critical ones and tRNS, which is all that a
 * conversion to RGBA uses. A side above IMAGE_MAX_SIDE is then an error in
 * png_read_info, before the rows are allocated. */
static void limit_png(png_structp png)
{
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, -1);
    png_set_chunk_malloc_max(png, IMAGE_MAX_CHUNK);
    png_set_chunk_cache_max(png, 16);   /* none is kept now: a bound */
    png_set_user_limits(png, IMAGE_MAX_SIDE, IMAGE_MAX_SIDE);
}

/* Everything after setjmp: header, transforms to 8-bit RGBA, the pixels.
 * Returns 0, or -1 with a message when the size is refused. */
static int read_image(png_structp png, png_infop info, png_load *load,
                      png_failure *failure)
{
    png_read_info(png, info);
    png_uint_32 w = png_get_image_width(png, info);
    png_uint_32 h = png_get_image_height(png, info);
    if ((uint64_t)w * h > IMAGE_MAX_PIXELS) {
        snprintf(failure->message, sizeof failure->message, "%lu x %lu "
                 "pixels is more than the %u allowed", (unsigned long)w,
                 (unsigned long)h, IMAGE_MAX_PIXELS);
        return -1;
    }
    int type = png_get_color_type(png, info);
    load->has_alpha = (type & PNG_COLOR_MASK_ALPHA) ||
                      png_get_valid(png, info, PNG_INFO_tRNS);
    png_set_expand(png);                /* palette, low-bit grey, tRNS */
    png_set_strip_16(png);
    if (type == PNG_COLOR_TYPE_GRAY || type == PNG_COLOR_TYPE_GRAY_ALPHA)
        png_set_gray_to_rgb(png);
    if (!load->has_alpha)
        png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)w * 4) {
        snprintf(failure->message, sizeof failure->message, "unexpected row "
                 "layout after conversion to RGBA");
        return -1;
    }
    load->rgba = malloc((size_t)w * h * 4);
    load->rows = malloc(h * sizeof *load->rows);
    if (!load->rgba || !load->rows) {
        snprintf(failure->message, sizeof failure->message, "out of memory "
                 "for %lu x %lu pixels", (unsigned long)w, (unsigned long)h);
        return -1;
    }
    for (png_uint_32 y = 0; y < h; y++)
        load->rows[y] = load->rgba + (size_t)y * w * 4;
    png_read_image(png, load->rows);
    png_read_end(png, NULL);
    load->width = w;
    load->height = h;
    return 0;
}

/* 0, or -1 with failure->message set; frees what it allocated on failure. */
static int load_png(FILE *f, png_load *load, png_failure *failure)
{
    png_structp png = png_create_read_struct(
        PNG_LIBPNG_VER_STRING, failure, png_failure_on_error,
        png_failure_on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        snprintf(failure->message, sizeof failure->message,
                 "libpng could not start (out of memory)");
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        return -1;
    }
    png_init_io(png, f);
    png_set_sig_bytes(png, 8);
    limit_png(png);
    int rc = read_image(png, info, load, failure);
    png_destroy_read_struct(&png, &info, NULL);
    return rc;
}

int image_png_load(const char *path, uint32_t *width, uint32_t *height,
                   uint8_t **rgba)
{
    return image_png_load_alpha(path, width, height, rgba, NULL);
}

int image_png_load_alpha(const char *path, uint32_t *width, uint32_t *height,
                         uint8_t **rgba, int *has_alpha)
{
    *rgba = NULL;
    *width = *height = 0;
    if (has_alpha)
        *has_alpha = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return app_fail(APP_ERR_IO, "%s: cannot open: %s", path,
                        strerror(errno));
    uint8_t signature[8];
    size_t got = fread(signature, 1, sizeof signature, f);
    if (got != sizeof signature || png_sig_cmp(signature, 0, 8) != 0) {
        fclose(f);
        return app_fail(APP_ERR_BAD_INPUT, "%s: not a PNG file (no "
                        "PNG signature)", path);
    }
    png_load load = {0};
    png_failure failure = {""};
    int rc = load_png(f, &load, &failure);
    fclose(f);
    free(load.rows);
    if (rc != 0) {
        free(load.rgba);
        return app_fail(APP_ERR_BAD_INPUT, "%s: unreadable PNG: %s",
                        path, failure.message);
    }
    *width = load.width;
    *height = load.height;
    *rgba = load.rgba;
    if (has_alpha)
        *has_alpha = load.has_alpha;
    return 0;
}
