/*
 * render.c: draws a heat world as an image, as the seed's render_world
 * does: insulators green, every other cell on a blue (0) to red (1) ramp,
 * row 0 at the top. Two formats: 24-bit BMP, written by hand because it is
 * a header and rows, and 8-bit RGB PNG through libpng.
 *
 * heat_world_render writes through save_file (apps/common/save.h), so a
 * reader never sees half an image and a failure leaves no file behind.
 */
#include "world.h"
#include "common/error.h"

#include "common/image.h"
#include "common/save.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void heat_world_cell_colour(const heat_world *world, size_t index,
                            uint8_t rgb[3])
{
    if (world->properties[index] & HEAT_CELL_INSULATOR) {
        rgb[0] = 0, rgb[1] = 255, rgb[2] = 0;
        return;
    }
    float t = world->state[index];
    /* Clamped first so that a world that was never validated (NaN, out of
     * range) still draws instead of converting out of uint8_t's range. */
    uint8_t heat = t > 0.0f ? (t < 1.0f ? (uint8_t)(t * 255) : 255) : 0;
    rgb[0] = heat, rgb[1] = 0, rgb[2] = (uint8_t)(255 - heat);
}

/* ------------------------------------------------------------------------ */
/* BMP                                                                        */
/* ------------------------------------------------------------------------ */

enum { BMP_HEADER_BYTES = 14 + 40 };

static void put_le16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8);
}

static void put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

/* The file header and BITMAPINFOHEADER. A positive height means rows are
 * stored bottom-up, which every BMP reader understands. */
static void bmp_header(uint8_t h[BMP_HEADER_BYTES], uint32_t w, uint32_t ht,
                       uint32_t image_bytes)
{
    memset(h, 0, BMP_HEADER_BYTES);
    h[0] = 'B', h[1] = 'M';
    put_le32(h + 2, BMP_HEADER_BYTES + image_bytes);  /* file size */
    put_le32(h + 10, BMP_HEADER_BYTES);               /* pixels' offset */
    put_le32(h + 14, 40);                             /* info header size */
    put_le32(h + 18, w);
    put_le32(h + 22, ht);
    put_le16(h + 26, 1);                              /* planes */
    put_le16(h + 28, 24);                             /* bits per pixel */
    put_le32(h + 34, image_bytes);                    /* compression 0 */
    put_le32(h + 38, 2835);                           /* 72 dpi */
    put_le32(h + 42, 2835);
}

static void bmp_row(const heat_world *world, uint32_t y, uint8_t *row)
{
    for (uint32_t x = 0; x < world->w; x++) {
        uint8_t rgb[3];
        heat_world_cell_colour(world, (size_t)y * world->w + x, rgb);
        row[3 * (size_t)x] = rgb[2];      /* BMP stores blue, green, red */
        row[3 * (size_t)x + 1] = rgb[1];
        row[3 * (size_t)x + 2] = rgb[0];
    }
}

static int write_bmp(const heat_world *world, FILE *f)
{
    uint64_t stride = (3 * (uint64_t)world->w + 3) & ~(uint64_t)3;
    uint64_t image_bytes = stride * world->h;
    if (world->w > INT32_MAX || world->h > INT32_MAX ||
        image_bytes > UINT32_MAX - BMP_HEADER_BYTES)
        return app_fail(APP_ERR_BAD_INPUT, "a world of %u x %u cells "
                        "is too large for a BMP image (4 GiB at most)",
                        world->w, world->h);
    uint8_t *row = calloc(1, (size_t)stride);  /* the padding stays 0 */
    if (!row)
        return app_fail(APP_ERR_NO_MEMORY, "BMP: out of memory for a "
                        "row of %llu bytes", (unsigned long long)stride);
    uint8_t header[BMP_HEADER_BYTES];
    bmp_header(header, world->w, world->h, (uint32_t)image_bytes);
    int ok = fwrite(header, 1, sizeof header, f) == sizeof header;
    for (uint32_t y = world->h; ok && y-- > 0;) {
        bmp_row(world, y, row);
        ok = fwrite(row, 1, (size_t)stride, f) == stride;
    }
    free(row);
    if (!ok)
        return app_fail(APP_ERR_IO, "writing the BMP image failed: "
                        "%s", strerror(errno));
    return 0;
}

/* ------------------------------------------------------------------------ */
/* PNG                                                                        */
/* ------------------------------------------------------------------------ */

static void png_world_row(uint32_t y, uint8_t *row, void *ctx)
{
    const heat_world *world = ctx;
    for (uint32_t x = 0; x < world->w; x++)
        heat_world_cell_colour(world, (size_t)y * world->w + x,
                               row + 3 * (size_t)x);
}

static int write_png(const heat_world *world, FILE *f)
{
    return image_png_write_rows(f, world->w, world->h, 3, png_world_row,
                                (void *)world);
}

/* ------------------------------------------------------------------------ */
/* Choosing the format, and the temporary file                                */
/* ------------------------------------------------------------------------ */

/* "bmp" or "png" from a path's extension (any case); NULL otherwise. */
static const char *format_of_path(const char *path)
{
    if (image_path_has_extension(path, ".bmp"))
        return "bmp";
    if (image_path_has_extension(path, ".png"))
        return "png";
    return NULL;
}

int heat_world_render_stream(const heat_world *world, FILE *f,
                             const char *format)
{
    if (!world || !world->properties || !world->state || world->w == 0 ||
        world->h == 0)
        return app_fail(APP_ERR_USAGE,
                        "heat_world_render: the world is empty");
    if (format && strcasecmp(format, "bmp") == 0) {
        int rc = write_bmp(world, f);
        if (rc == 0 && (fflush(f) != 0 || ferror(f)))
            return app_fail(APP_ERR_IO, "writing the BMP image "
                            "failed: %s", strerror(errno));
        return rc;
    }
    if (format && strcasecmp(format, "png") == 0)
        return write_png(world, f);
    return app_fail(APP_ERR_BAD_INPUT, "unknown image format '%s': "
                    "accepted are bmp and png", format ? format : "(null)");
}

typedef struct render_job {
    const heat_world *world;
    const char *format;
} render_job;

static int write_render_job(FILE *f, void *ctx)
{
    const render_job *job = ctx;
    return heat_world_render_stream(job->world, f, job->format);
}

int heat_world_render(const heat_world *world, const char *path)
{
    const char *format = format_of_path(path);
    if (!format)
        return app_fail(APP_ERR_BAD_INPUT, "%s: unknown image type; "
                        "the file name must end in .bmp or .png", path);
    render_job job = {world, format};
    return save_file(path, write_render_job, &job);
}
