/*
 * blur.c (bin/bench-blur): the image blur table of `make bench`.
 *
 * For each W x H size, a random RGBA image is blurred `passes` times by
 * every version: the OpenCL ones timed by their kernels' event times
 * (upload and download excluded; a warm-up run first builds the kernels),
 * the C ones by the loop's wall time, and only on images of at most
 * REF_CAP pixels. Each figure is the median of `runs` runs. Each version's
 * first result is checked once byte for byte against the reference's, or
 * against double's where the reference was not run; a version that
 * differs prints WRONG instead of figures and the program exits 1.
 *
 * Effective bandwidth counts 8 bytes per pixel and pass for every version
 * (read and write an RGBA8 pixel: the least a pass must move; neighbours
 * come from caches or local memory), against the device's float4 copy
 * measured in the same run (bench/bandwidth.h). The seed moves 48 bytes
 * per pixel and pass through its int arrays, the fast version 8 per
 * launch of several passes, so their shares are below and above what
 * they physically move.
 *
 * usage: bench-blur [sizes=512x512,1024x1024] [passes=20] [runs=3]
 *                   [ref_cap=1048576]
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "clframe.h"
#include "blur/blur.h"
#include "common/bandwidth.h"
#include "common/clock.h"
#include "median.h"
#include "common/parse.h"
#include "common/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_RUNS = 101, MAX_SIZES = 16, BYTES_PER_PIXEL = 8 };

static int size_field(const char *field, int number, void *sizes)
{
    uint32_t *size = ((uint32_t (*)[2])sizes)[number - 1];
    return parse_size(field, 65536, &size[0], &size[1]) &&
           (uint64_t)size[0] * size[1] <= BLUR_MAX_PIXELS;
}

/* "WxH,WxH,...": up to MAX_SIZES sizes; how many, or 0 after a message. */
static int parse_sizes(const char *text, uint32_t (*sizes)[2])
{
    return parse_comma_list("sizes", text, 1, MAX_SIZES, "a size WxH of at "
                            "most 65536 a side and 2^28 pixels", size_field,
                            sizes);
}

/* Times version v on copies of start; *ms is the median. The first run's
 * result is compared with want (when given: *ok says whether it equals)
 * or kept in *keep (when given). 0 or a code. */
static int time_version(const blur_image *start, unsigned passes,
                        blur_version v, int runs, const blur_image *want,
                        blur_image *keep, double *ms, int *ok)
{
    double t[MAX_RUNS];
    int opencl = app_version_uses_opencl(&blur_versions, v), n = 0;
    *ok = 1;
    for (int i = -opencl; i < runs; i++) {
        blur_image img;
        app_timing stats = {.want_kernel_time = opencl};
        int rc = blur_image_copy(&img, start);
        double t0 = clock_seconds();
        if (rc == 0)
            rc = blur_run(&img, i < 0 ? 1 : passes, v, NULL, &stats);
        double s = clock_seconds() - t0;
        if (rc) {
            blur_image_free(&img);
            return rc;
        }
        if (i >= 0)
            t[n++] = opencl ? stats.kernel_ms : s * 1e3;
        if (i == 0 && want)
            *ok = memcmp(img.rgba, want->rgba,
                         (size_t)img.width * img.height * 4) == 0;
        if (i == 0 && keep)
            *keep = img;
        else
            blur_image_free(&img);
    }
    *ms = median_of(t, n);
    return 0;
}

/* One table block for a w x h image; *wrong is set if a version erred. */
static int bench_size(uint32_t w, uint32_t h, unsigned passes, int runs,
                      unsigned long ref_cap, double device_gbs, int *wrong)
{
    static const blur_version with_ref[] = {
        BLUR_REFERENCE, BLUR_OPENMP, BLUR_SEED, BLUR_DOUBLE, BLUR_FAST};
    static const blur_version without_ref[] = {
        BLUR_DOUBLE, BLUR_SEED, BLUR_FAST};
    blur_image start, want = {0};
    int rc = blur_image_random(&start, w, h);
    if (rc)
        return rc;
    double pixel_passes = (double)w * h * passes, ref_ms = 0;
    int have_ref = (double)w * h <= (double)ref_cap;
    const blur_version *order = have_ref ? with_ref : without_ref;
    int count = have_ref ? 5 : 3;
    for (int k = 0; k < count && rc == 0; k++) {
        blur_version v = order[k];
        int base = k == 0;      /* the reference, or double without it */
        double ms;
        int ok;
        rc = time_version(&start, passes, v, runs, base ? NULL : &want,
                          base ? &want : NULL, &ms, &ok);
        if (rc)
            break;
        if (!ok) {
            printf("| %u x %u | %s | WRONG: differs from %s |\n", w, h,
                   app_version_name(&blur_versions, v), have_ref ? "the reference"
                                                  : "double");
            *wrong = 1;
            continue;
        }
        if (v == BLUR_REFERENCE)
            ref_ms = ms;
        double gbs = BYTES_PER_PIXEL * pixel_passes / (ms * 1e6);
        char ratio[32] = "-";
        if (have_ref)
            snprintf(ratio, sizeof ratio, "%.2f", ref_ms / ms);
        printf("| %u x %u | %s | %.2f | %.1f | %.1f | %.0f%% | %s | %s |\n",
               w, h, app_version_name(&blur_versions, v), ms, pixel_passes / (ms * 1e3),
               gbs, 100 * gbs / device_gbs, ratio,
               base ? "(base)" : have_ref ? "= ref" : "= double");
    }
    blur_image_free(&start);
    blur_image_free(&want);
    return rc;
}

int main(int argc, char **argv)
{
    uint32_t sizes[MAX_SIZES][2];
    int nsizes = parse_sizes(argc > 1 ? argv[1] : "512x512,1024x1024",
                             sizes);
    unsigned long passes = 20, runs = 3, ref_cap = 1048576;
    int ok = nsizes > 0 && argc <= 5 &&
             (argc <= 2 || parse_uint(argv[2], 1, 1000000, &passes)) &&
             (argc <= 3 || parse_uint(argv[3], 1, MAX_RUNS, &runs)) &&
             (argc <= 4 || parse_uint(argv[4], 0, BLUR_MAX_PIXELS, &ref_cap));
    if (!ok) {
        if (nsizes == 0)
            fprintf(stderr, "bench-blur: %s\n", app_last_error());
        fprintf(stderr, "usage: bench-blur [sizes=512x512,1024x1024 (WxH,"
                "...)] [passes=20] [runs=3 (1..%d)] [ref_cap=1048576 "
                "(pixels)]\n", MAX_RUNS);
        return 2;
    }
    clctx *ctx = clctx_default();
    if (!ctx) {
        fprintf(stderr, "bench-blur: %s\n", app_last_error());
        return 1;
    }
    size_t biggest = 0;
    for (int i = 0; i < nsizes; i++)
        if ((size_t)sizes[i][0] * sizes[i][1] * 4 > biggest)
            biggest = (size_t)sizes[i][0] * sizes[i][1] * 4;
    /* Big enough that the last-level cache cannot help. */
    size_t copy_bytes = biggest < (256u << 20) ? (256u << 20)
                      : biggest > (1024u << 20) ? (1024u << 20) : biggest;
    double device_gbs = bench_copy_bandwidth(copy_bytes, runs < 5 ? 5
                                             : (int)runs, "bench-blur");
    if (device_gbs <= 0)
        return 1;
    printf("Image blur (four-neighbour average, RGBA8), %lu passes; median "
           "of %lu runs\n", passes, runs);
    printf("device: %s\n", clctx_describe(ctx));
    printf("OpenMP threads: %d; C versions on images up to %lu pixels\n",
           blur_openmp_threads(), ref_cap);
    printf("device bandwidth (float4 copy of %zu MB, events): %.1f GB/s\n\n",
           copy_bytes >> 20, device_gbs);
    printf("| image | version | ms | Mpixel-passes/s | eff. GB/s | of device "
           "| x ref | checked |\n|---|---|---:|---:|---:|---:|---:|:---:|\n");
    int wrong = 0;
    for (int i = 0; i < nsizes; i++) {
        if (bench_size(sizes[i][0], sizes[i][1], (unsigned)passes, (int)runs,
                       ref_cap, device_gbs, &wrong)) {
            fprintf(stderr, "bench-blur: %s\n", app_last_error());
            return 1;
        }
    }
    printf("\nms: the kernels' event times for seed, double and fast "
           "(upload and download excluded), the loop's time for the C "
           "versions; eff. GB/s: %d bytes per pixel and pass over that "
           "time; x ref: the reference's time over the version's.\n",
           BYTES_PER_PIXEL);
    return wrong;
}
