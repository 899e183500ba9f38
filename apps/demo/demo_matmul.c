/*
 * demo_matmul.c: matrix multiplication (apps/matmul): the blocked
 * (register-blocked, float4) kernel on 300 x 200 times 200 x 250, sizes
 * that are multiples of no tile, checked against the exact product within
 * matmul_compare's k-scaled bound and timed against the C reference.
 */
#include "demo.h"

#include "matmul/matmul.h"

#include <stdio.h>
#include <stdlib.h>

enum { MM_M = 300, MM_K = 200, MM_N = 250 };

/* Runs the default version's plan DEMO_CALLS times, keeping the last
 * run's times. */
static int matmul_device(demo_result *r, const float *a, const float *b,
                         float *c)
{
    int rc;
    matmul_version v = (matmul_version)demo_version(r, &matmul_versions);
    matmul_plan *plan = matmul_plan_new(NULL, v, NULL, &rc);
    if (!plan)
        return demo_fail(r, rc, "matmul: building the kernel");
    matmul_plan_set_timing(plan, 1);
    for (int call = 0; call < DEMO_CALLS && rc == 0; call++) {
        demo_poison(c, (size_t)MM_M * MM_N);
        double t0 = demo_now_ms();
        rc = matmul_plan_run(plan, a, b, c, MM_M, MM_K, MM_N);
        r->call_ms = demo_now_ms() - t0;
        r->kernel_ms = matmul_plan_last_ms(plan);
    }
    if (rc)
        demo_fail(r, rc, "matmul: the device's run");
    matmul_plan_free(plan);
    return rc;
}

int demo_matmul(demo_result *r)
{
    float *a = malloc(sizeof *a * MM_M * MM_K);
    float *b = malloc(sizeof *b * MM_K * MM_N);
    float *c = malloc(sizeof *c * MM_M * MM_N);
    float *want = malloc(sizeof *want * MM_M * MM_N);
    int rc = -1;
    snprintf(r->size, sizeof r->size, "%dx%dx%d", MM_M, MM_K, MM_N);
    if (!a || !b || !c || !want) {
        demo_fail_host(r, "matmul: out of host memory");
        goto done;
    }
    demo_fill_random(a, (size_t)MM_M * MM_K, 1);
    demo_fill_random(b, (size_t)MM_K * MM_N, 2);
    double t0 = demo_now_ms();
    rc = matmul_reference(a, b, want, MM_M, MM_K, MM_N);
    r->ref_ms = demo_now_ms() - t0;
    if (rc == 0)
        rc = matmul_device(r, a, b, c);
    if (rc == 0) {
        double worst;
        long wrong = matmul_compare(a, b, c, MM_M, MM_K, MM_N, &worst);
        r->ok = wrong == 0;
        snprintf(r->verdict, sizeof r->verdict, wrong == 0 ? "ok" :
                 "MISMATCH: %ld elements beyond k * 2^-22 * sum|a||b|", wrong);
        snprintf(r->note, sizeof r->note, "matmul: blocked within %.3g of "
                 "its error bound (1 = the bound)", worst);
    }
done:
    free(a);
    free(b);
    free(c);
    free(want);
    return rc;
}
