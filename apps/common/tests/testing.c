/*
 * testing.c: the apps' shared test helpers (testing.h).
 */
#include "testing.h"

#include <png.h>
#include <stdio.h>

const char *test_write_png(const char *path, uint32_t w, uint32_t h,
                           int type, const uint8_t *pixels, int channels)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL,
                                              NULL, NULL);
    png_infop info = png_create_info_struct(png);
    ck_assert(png && info);
    png_init_io(png, f);
    png_set_IHDR(png, info, w, h, 8, type, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (type == PNG_COLOR_TYPE_PALETTE) {
        png_color palette[4] = {{0, 0, 0}, {255, 255, 255}, {255, 0, 0},
                                {0, 200, 90}};
        png_set_PLTE(png, info, palette, 4);
    }
    png_write_info(png, info);
    for (uint32_t y = 0; y < h; y++)
        png_write_row(png, (png_const_bytep)pixels + (size_t)y * w * channels);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    fclose(f);
    return path;
}
