/*
 * blur_ref.c: the C reference (and, with `parallel`, its OpenMP twin, rows
 * split among threads: the same integer arithmetic, so the same bytes).
 * Double-buffered: each pass reads one copy and writes the other.
 */
#include "blur.h"
#include "common/error.h"

#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

int blur_openmp_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

/* Pixel (x, y) of in into out by the rule in blur.h. */
static void blur_pixel(const uint8_t *in, uint8_t *out, uint32_t w,
                       uint32_t h, uint32_t x, uint32_t y)
{
    size_t i = ((size_t)y * w + x) * 4, row = (size_t)w * 4;
    unsigned sum[3] = {0, 0, 0}, count = 0;
    const uint8_t *neighbour[4] = {
        x > 0 ? in + i - 4 : NULL, x + 1 < w ? in + i + 4 : NULL,
        y > 0 ? in + i - row : NULL, y + 1 < h ? in + i + row : NULL};
    for (int n = 0; n < 4; n++) {
        if (!neighbour[n])
            continue;
        count++;
        for (int c = 0; c < 3; c++)
            sum[c] += neighbour[n][c];
    }
    for (int c = 0; c < 3; c++)
        out[i + c] = count ? (uint8_t)((sum[c] + count / 2) / count)
                           : in[i + c];
    out[i + 3] = in[i + 3];
}

/* One pass from in to out. */
static void blur_pass(const uint8_t *in, uint8_t *out, uint32_t w, uint32_t h,
                      int parallel)
{
    (void)parallel;             /* without OpenMP every run is serial */
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (parallel)
#endif
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            blur_pixel(in, out, w, h, x, y);
}

int blur_run_c(blur_image *img, unsigned passes, int parallel)
{
    size_t bytes = (size_t)img->width * img->height * 4;
    if (passes == 0)
        return 0;
    uint8_t *other = malloc(bytes);
    if (!other)
        return app_fail(APP_ERR_NO_MEMORY, "blur: no memory for a "
                        "%u x %u image", img->width, img->height);
    uint8_t *cur = img->rgba, *next = other;
    for (unsigned p = 0; p < passes; p++) {
        blur_pass(cur, next, img->width, img->height, parallel);
        uint8_t *swap = cur;
        cur = next;
        next = swap;
    }
    if (cur != img->rgba)
        memcpy(img->rgba, cur, bytes);
    free(other);
    return 0;
}
