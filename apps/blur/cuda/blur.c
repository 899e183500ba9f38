/*
 * blur.c (bin/bench-cuda-blur): apps/blur's device versions (seed, double,
 * fast) on clframe's OpenCL beside their CUDA twins (blur.cu,
 * blur_kernels.cuh) on the same GPU.
 *
 * For each W x H size, the image bin/bench-blur blurs (blur_image_random)
 * is blurred `passes` times by each version through the app's own API,
 * timed by its kernels' summed event times, and by its twin, timed by an
 * event pair around each launch, summed; upload and download excluded
 * from both. Each time is the median of `runs` runs after a warm-up run of
 * one pass (which builds or loads the kernels). The C reference runs once
 * on images of at most ref_cap pixels; the first result of every version
 * and twin is compared byte for byte with the reference's, or with
 * clframe's double above the cap, as bin/bench-blur checks; the twin's
 * launches are counted against the app's. A row that differs says NO and
 * the program exits 1. Without a CUDA device it says so on one line and
 * runs the OpenCL side alone, its CUDA columns "-".
 *
 * usage: bench-cuda-blur [sizes=512x512,1024x1024] [passes=20] [runs=3]
 *                        [ref_cap=1048576]
 */
#include "blur.h"
#include "device.h"
#include "clframe.h"
#include "blur/blur.h"
#include "common/error.h"
#include "median.h"
#include "common/parse.h"

#include <stdio.h>
#include <string.h>

enum { MAX_RUNS = 101, MAX_SIZES = 16, VERSIONS = 3 };

/* The versions, double first: above the cap its result is the one the
 * others are checked against. */
static const struct {
    blur_version app;
    blur_cuda_version twin;
} versions[VERSIONS] = {
    {BLUR_DOUBLE, BLUR_CUDA_DOUBLE},
    {BLUR_SEED, BLUR_CUDA_SEED},
    {BLUR_FAST, BLUR_CUDA_FAST},
};

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

/* One run of a version on img, in place: 0 or a code (a message said
 * why); *ms is its kernel time, *launches its kernel launches. */
typedef int run_fn(blur_image *img, unsigned passes, int k, double *ms,
                   unsigned *launches);

static int run_opencl(blur_image *img, unsigned passes, int k, double *ms,
                      unsigned *launches)
{
    app_timing stats = {.want_kernel_time = 1};
    int rc = blur_run(img, passes, versions[k].app, NULL, &stats);
    if (rc)
        fprintf(stderr, "bench-cuda-blur: %s\n", app_last_error());
    *ms = stats.kernel_ms;
    *launches = stats.launches;
    return rc;
}

static int run_cuda(blur_image *img, unsigned passes, int k, double *ms,
                    unsigned *launches)
{
    return blur_cuda_run(img->rgba, img->width, img->height, passes,
                         versions[k].twin, ms, launches);
}

/* What a version made of the image: its median time, its launches in a
 * run, and whether its first result was the one wanted. */
typedef struct outcome {
    double ms;
    unsigned launches;
    int same;
} outcome;

/* A warm-up run of one pass, then `runs` runs on copies of start; the
 * first one's result is compared with want (when given) or kept in *keep
 * (when given). 0 or a code. */
static int time_runs(run_fn *run, int k, const blur_image *start,
                     unsigned passes, int runs, const blur_image *want,
                     blur_image *keep, outcome *out)
{
    double t[MAX_RUNS];
    out->same = 1;
    for (int i = -1; i < runs; i++) {
        blur_image img;
        int rc = blur_image_copy(&img, start);
        if (rc) {
            fprintf(stderr, "bench-cuda-blur: %s\n", app_last_error());
            return rc;
        }
        double ms;
        rc = run(&img, i < 0 ? 1 : passes, k, &ms, &out->launches);
        if (i >= 0)
            t[i] = ms;
        if (rc == 0 && i == 0 && want)
            out->same = memcmp(img.rgba, want->rgba,
                               (size_t)img.width * img.height * 4) == 0;
        if (rc == 0 && i == 0 && keep)
            *keep = img;
        else
            blur_image_free(&img);
        if (rc)
            return rc;
    }
    out->ms = median_of(t, runs);
    return 0;
}

/* The table's "checked" cell for a version; 1 if it says NO. */
static int checked(char *cell, size_t size, int is_base, int have_ref,
                   const outcome *cl, const outcome *cu, int cuda)
{
    const char *against = have_ref ? "the reference" : "OpenCL double";
    int cl_wrong = !cl->same, cu_wrong = cuda && !cu->same;
    int miscounted = cuda && cu->launches != cl->launches;
    if (miscounted)
        snprintf(cell, size, "NO: CUDA made %u launches, OpenCL %u",
                 cu->launches, cl->launches);
    else if (cl_wrong || cu_wrong)
        snprintf(cell, size, "NO: %s differs from %s",
                 cl_wrong && cu_wrong ? "each" : cl_wrong ? "OpenCL" : "CUDA",
                 against);
    else if (is_base)
        snprintf(cell, size, cuda ? "base; CUDA = it" : "base");
    else
        snprintf(cell, size, "yes (= %s%s)", have_ref ? "ref" : "double",
                 cuda ? "" : "; OpenCL only");
    return miscounted || cl_wrong || cu_wrong;
}

/* One table block for a w x h image; *wrong is set if a version erred. */
static int bench_size(uint32_t w, uint32_t h, unsigned passes, int runs,
                      unsigned long ref_cap, int cuda, int *wrong)
{
    blur_image start, want = {0};
    int rc = blur_image_random(&start, w, h);
    if (rc) {
        fprintf(stderr, "bench-cuda-blur: %s\n", app_last_error());
        return rc;
    }
    int have_ref = (uint64_t)w * h <= ref_cap;
    if (have_ref) {
        rc = blur_image_copy(&want, &start);
        if (rc == 0)
            rc = blur_run(&want, passes, BLUR_REFERENCE, NULL, NULL);
        if (rc)
            fprintf(stderr, "bench-cuda-blur: %s\n", app_last_error());
    }
    double pixel_passes = (double)w * h * passes;
    for (int k = 0; k < VERSIONS && rc == 0; k++) {
        int is_base = !have_ref && k == 0;
        outcome cl, cu = {0};
        rc = time_runs(run_opencl, k, &start, passes, runs,
                       is_base ? NULL : &want, is_base ? &want : NULL, &cl);
        if (rc == 0 && cuda)
            rc = time_runs(run_cuda, k, &start, passes, runs, &want, NULL,
                           &cu);
        if (rc)
            break;
        char cell[80], cu_ms[32] = "-", ratio[32] = "-", cu_rate[32] = "-";
        *wrong |= checked(cell, sizeof cell, is_base, have_ref, &cl, &cu,
                          cuda);
        if (cuda) {
            snprintf(cu_ms, sizeof cu_ms, "%.2f", cu.ms);
            snprintf(ratio, sizeof ratio, "%.2f", cl.ms / cu.ms);
            snprintf(cu_rate, sizeof cu_rate, "%.0f",
                     pixel_passes / (cu.ms * 1e3));
        }
        printf("| %u x %u | %s | %.2f | %s | %s | %.0f | %s | %s |\n", w, h,
               app_version_name(&blur_versions, versions[k].app), cl.ms,
               cu_ms, ratio, pixel_passes / (cl.ms * 1e3), cu_rate, cell);
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
            fprintf(stderr, "bench-cuda-blur: %s\n", app_last_error());
        fprintf(stderr, "usage: bench-cuda-blur [sizes=512x512,1024x1024 "
                "(WxH,...)] [passes=20] [runs=3 (1..%d)] [ref_cap=1048576 "
                "(pixels)]\n", MAX_RUNS);
        return 2;
    }
    if (blur_cuda_passes_per_launch() != blur_fast_passes_per_launch()) {
        fprintf(stderr, "bench-cuda-blur: the fast twin makes %u passes a "
                "launch, the app's fast version %u: they are no twins\n",
                blur_cuda_passes_per_launch(), blur_fast_passes_per_launch());
        return 1;
    }
    clctx *ctx = clctx_default();
    if (!ctx) {
        fprintf(stderr, "bench-cuda-blur: %s\n", app_last_error());
        return 1;
    }
    char cuda_device[256];
    int cuda = cuda_open(cuda_device, sizeof cuda_device);
    if (cuda < 0)
        return 1;
    printf("Image blur (four-neighbour average, RGBA8), %lu passes: clframe "
           "(OpenCL) and CUDA twins; median of %lu runs\n", passes, runs);
    printf("OpenCL device: %s\n", clctx_describe(ctx));
    printf("CUDA device: %s%s\n", cuda_device,
           cuda ? "" : ": the OpenCL side alone, CUDA columns \"-\"");
    printf("C reference on images up to %lu pixels\n\n", ref_cap);
    printf("| image | version | OpenCL ms | CUDA ms | OpenCL / CUDA | OpenCL "
           "Mpixel-passes/s | CUDA Mpixel-passes/s | checked |\n"
           "|---|---|---:|---:|---:|---:|---:|:---|\n");
    int wrong = 0;
    for (int i = 0; i < nsizes; i++)
        if (bench_size(sizes[i][0], sizes[i][1], (unsigned)passes,
                       (int)runs, ref_cap, cuda, &wrong))
            return 1;
    printf("\nms: the kernels' summed times for the passes (OpenCL: the "
           "app's event times; CUDA: an event pair per launch), upload and "
           "download excluded; OpenCL / CUDA over 1: CUDA is faster; "
           "checked: both results byte for byte against the C reference's, "
           "or above %lu pixels against clframe's double (base), and the "
           "same launches.\n", ref_cap);
    return wrong;
}
