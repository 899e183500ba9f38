/*
 * demo_blur.c: a 3x3 box blur with clamped edges over a 1000 x 777 image,
 * the smallest useful 2-D kernel.
 *
 * Neither side is a multiple of the 16 x 16 work-group, so both global sizes
 * are rounded up and the kernel guards x and y; the clamped edges are where
 * an off-by-one in the kernel would show.
 */
#include "demo.h"

#include "clframe.h"

#include <stdio.h>
#include <stdlib.h>

enum { BLUR_W = 1000, BLUR_H = 777, BLUR_GROUP = 16 };

static int clamp_int(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* Sums in the kernel's order, so the results differ by rounding at most. */
static void blur2d_ref(const float *in, float *out, int w, int h)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float sum = 0.0f;
            for (int dy = -1; dy <= 1; dy++) {
                int row = clamp_int(y + dy, 0, h - 1) * w;
                for (int dx = -1; dx <= 1; dx++)
                    sum += in[row + clamp_int(x + dx, 0, w - 1)];
            }
            out[y * w + x] = sum / 9.0f;
        }
}

/* Runs the kernel DEMO_CALLS times, keeping the last call's times in r. */
static int blur2d_device(demo_result *r, const float *in, float *out, int w,
                         int h)
{
    size_t n = (size_t)w * (size_t)h;
    clkernel *k = clkernel_file(NULL, "kernels/demo/blur2d.cl", "blur2d",
                                NULL);
    if (!k)
        return demo_fail(r, -1, "blur2d: building kernels/demo/blur2d.cl");
    clkernel_set_timing(k, 1);          /* for clkernel_last_ms */
    clkernel_global(k, clframe_round_up((size_t)w, BLUR_GROUP),
                    clframe_round_up((size_t)h, BLUR_GROUP));
    clkernel_local(k, BLUR_GROUP, BLUR_GROUP);
    int rc = 0;
    for (int call = 0; call < DEMO_CALLS && rc == 0; call++) {
        demo_poison(out, n);
        double t0 = demo_now_ms();
        rc = clkernel_call(k, CLARG_IN(in, n), CLARG_OUT(out, n), CLARG(w),
                           CLARG(h));
        r->call_ms = demo_now_ms() - t0;
        r->kernel_ms = clkernel_last_ms(k);
    }
    if (rc)
        demo_fail(r, rc, "blur2d: clkernel_call");
    clkernel_free(k);
    return rc;
}

int demo_blur2d(demo_result *r)
{
    int w = BLUR_W, h = BLUR_H;
    size_t n = (size_t)w * (size_t)h;
    float *in = malloc(sizeof *in * n);
    float *out = malloc(sizeof *out * n);
    float *want = malloc(sizeof *want * n);
    int rc = -1;
    snprintf(r->size, sizeof r->size, "%d x %d", w, h);
    if (!in || !out || !want) {
        demo_fail_host(r, "blur2d: out of host memory");
        goto done;
    }
    demo_fill_random(in, n, 3);
    double t0 = demo_now_ms();
    blur2d_ref(in, want, w, h);
    r->ref_ms = demo_now_ms() - t0;
    rc = blur2d_device(r, in, out, w, h);
    if (rc == 0)
        demo_compare(r, out, want, n, 1e-5);
done:
    free(in);
    free(out);
    free(want);
    return rc;
}
