/*
 * image.h: images for every app: 8-bit PNG written through libpng, any PNG
 * read as 8-bit RGBA (png_read.c). Image files are written through
 * save_file (save.h), as every app's files are: beside the target and
 * renamed over it only once complete, so a reader never sees half an image
 * and a failure leaves no file.
 *
 * Functions return 0 or a negative code with a message in
 * app_last_error() that names the file.
 */
#ifndef APPS_IMAGE_H
#define APPS_IMAGE_H

#include <stdint.h>
#include <stdio.h>

/* Fills out (width * channels bytes) with row y of the image. */
typedef void image_row_fn(uint32_t y, uint8_t *out, void *ctx);

/* A width x height PNG of channels 3 (RGB) or 4 (RGBA), rows from row(). */
int image_png_write_rows(FILE *f, uint32_t width, uint32_t height,
                         int channels, image_row_fn *row, void *ctx);

/* The same from pixels: height rows of width * channels bytes, no padding. */
int image_png_write(FILE *f, uint32_t width, uint32_t height, int channels,
                    const uint8_t *pixels);

/* save_file of image_png_write. */
int image_png_save(const char *path, uint32_t width, uint32_t height,
                   int channels, const uint8_t *pixels);

/* The largest image a PNG may hold to be read: IMAGE_MAX_SIDE pixels a
 * side (libpng's default, set explicitly so that no build of libpng
 * changes it) and IMAGE_MAX_PIXELS in all (1 GiB of RGBA): a header that
 * claims more is refused before anything of its size is allocated. */
#define IMAGE_MAX_SIDE 1000000u
#define IMAGE_MAX_PIXELS (1u << 28)

/* Reads the PNG at path, whatever its colour type and depth (grey,
 * palette, RGB, with or without alpha, 1 to 16 bits), as 8-bit RGBA: *rgba
 * gets width * height * 4 bytes, rows top to bottom, that the caller
 * frees. Ancillary chunks other than tRNS (text, colour profiles, ...)
 * are skipped unread. A missing file, one that is not a PNG, a corrupt or
 * truncated one, or one larger than the maximum above is APP_ERR_IO or
 * APP_ERR_BAD_INPUT, with *rgba NULL. */
int image_png_load(const char *path, uint32_t *width, uint32_t *height,
                   uint8_t **rgba);

/* The same, also telling whether the file had alpha: 1 for grey+alpha,
 * RGBA, or a palette or colour key with transparency (a tRNS chunk),
 * else 0 (its pixels' alpha is then 255). has_alpha may be NULL. */
int image_png_load_alpha(const char *path, uint32_t *width, uint32_t *height,
                         uint8_t **rgba, int *has_alpha);

/* 1 if path's name ends in ext (".png"), in any case. */
int image_path_has_extension(const char *path, const char *ext);

#endif /* APPS_IMAGE_H */
