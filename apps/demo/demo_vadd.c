/*
 * demo_vadd.c: c = a + b over a million floats, the smallest useful kernel.
 *
 * n is deliberately not a multiple of the work-group: the global size is
 * rounded up and the kernel's own `if (i < n)` guards the extra work-items,
 * which is the pattern every 1-D kernel follows.
 */
#include "demo.h"

#include "clframe.h"

#include <stdio.h>
#include <stdlib.h>

/* apps/demo/kernels, compiled in (scripts/embed-sources). */
extern const clframe_source demo_kernel_sources[];

enum { VADD_N = 1000003, VADD_GROUP = 64 };

static void vadd_ref(const float *a, const float *b, float *c, int n)
{
    for (int i = 0; i < n; i++)
        c[i] = a[i] + b[i];
}

/* Runs the kernel DEMO_CALLS times, keeping the last call's times in r. */
static int vadd_device(demo_result *r, const float *a, const float *b,
                       float *c, int n)
{
    clkernel *k = clframe_add_sources(demo_kernel_sources) ? NULL
                  : clkernel_file(NULL, "apps/demo/kernels/vadd.cl", "vadd",
                                  NULL);
    if (!k)
        return demo_fail(r, -1, "vadd: building apps/demo/kernels/vadd.cl");
    clkernel_set_timing(k, 1);          /* for clkernel_last_ms */
    clkernel_global(k, clframe_round_up((size_t)n, VADD_GROUP));
    clkernel_local(k, VADD_GROUP);
    int rc = 0;
    for (int call = 0; call < DEMO_CALLS && rc == 0; call++) {
        demo_poison(c, (size_t)n);
        double t0 = demo_now_ms();
        rc = clkernel_call(k, CLARG_IN(a, (size_t)n), CLARG_IN(b, (size_t)n),
                           CLARG_OUT(c, (size_t)n), CLARG(n));
        r->call_ms = demo_now_ms() - t0;
        r->kernel_ms = clkernel_last_ms(k);
    }
    if (rc)
        demo_fail(r, rc, "vadd: clkernel_call");
    clkernel_free(k);
    return rc;
}

int demo_vadd(demo_result *r, demo_scale scale)
{
    (void)scale;                /* not in the benchmark table */
    int n = VADD_N;
    float *a = malloc(sizeof *a * (size_t)n);
    float *b = malloc(sizeof *b * (size_t)n);
    float *c = malloc(sizeof *c * (size_t)n);
    float *want = malloc(sizeof *want * (size_t)n);
    int rc = -1;
    snprintf(r->size, sizeof r->size, "%d", n);
    if (!a || !b || !c || !want) {
        demo_fail_host(r, "vadd: out of host memory");
        goto done;
    }
    demo_fill_random(a, (size_t)n, 1);
    demo_fill_random(b, (size_t)n, 2);
    double t0 = demo_now_ms();
    vadd_ref(a, b, want, n);
    r->ref_ms = demo_now_ms() - t0;
    rc = vadd_device(r, a, b, c, n);
    if (rc == 0)
        demo_compare(r, c, want, (size_t)n, 0.0);   /* a + b is exact */
done:
    free(a);
    free(b);
    free(c);
    free(want);
    return rc;
}
