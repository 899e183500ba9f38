/*
 * demo_matmul.c: matrix multiplication (apps/matmul): the default version
 * (blocked: register-blocked, float4) on 300 x 200 times 200 x 250, sizes
 * that are multiples of no tile, checked against the exact product within
 * matmul_compare's k-scaled bound and timed against the C reference and
 * OpenMP; 512 x 512 times 512 x 512 in the benchmark table.
 */
#include "demo/demo.h"

#include "matmul/matmul.h"

#include <stdio.h>
#include <stdlib.h>

/* The demo's sizes (multiples of no tile) and the benchmark table's
 * (make bench's larger bench-matmul size): m x k times k x n. */
typedef struct mm_size {
    uint32_t m, k, n;
} mm_size;
static const mm_size MM_SIZE[2] = {{300, 200, 250}, {512, 512, 512}};

/* Runs the default version's plan DEMO_CALLS times, keeping the last
 * run's times. */
static int matmul_device(demo_result *r, const float *a, const float *b,
                         float *c, mm_size z)
{
    int rc;
    matmul_version v = (matmul_version)demo_version(r, &matmul_versions);
    matmul_plan *plan = matmul_plan_new(NULL, v, NULL, &rc);
    if (!plan)
        return demo_fail(r, rc, "matmul: building the kernel");
    matmul_plan_set_timing(plan, 1);
    for (int call = 0; call < DEMO_CALLS && rc == 0; call++) {
        demo_poison(c, (size_t)z.m * z.n);
        double t0 = demo_now_ms();
        rc = matmul_plan_run(plan, a, b, c, z.m, z.k, z.n);
        r->call_ms = demo_now_ms() - t0;
        r->kernel_ms = matmul_plan_last_ms(plan);
    }
    if (rc)
        demo_fail(r, rc, "matmul: the device's run");
    matmul_plan_free(plan);
    return rc;
}

int demo_matmul(demo_result *r, demo_scale scale)
{
    mm_size z = MM_SIZE[scale];
    float *a = malloc(sizeof *a * z.m * z.k);
    float *b = malloc(sizeof *b * z.k * z.n);
    float *c = malloc(sizeof *c * z.m * z.n);
    float *want = malloc(sizeof *want * z.m * z.n);
    int rc = -1;
    snprintf(r->size, sizeof r->size, "%ux%ux%u", z.m, z.k, z.n);
    if (!a || !b || !c || !want) {
        demo_fail_host(r, "matmul: out of host memory");
        goto done;
    }
    demo_fill_random(a, (size_t)z.m * z.k, 1);
    demo_fill_random(b, (size_t)z.k * z.n, 2);
    double t0 = demo_now_ms();
    rc = matmul_reference(a, b, want, z.m, z.k, z.n);
    r->ref_ms = demo_now_ms() - t0;
    t0 = demo_now_ms();
    if (rc == 0)
        rc = matmul_openmp(a, b, c, z.m, z.k, z.n);
    r->omp_ms = demo_now_ms() - t0;
    if (rc == 0)
        rc = matmul_device(r, a, b, c, z);
    if (rc == 0) {
        double worst;
        long wrong = matmul_compare(a, b, c, z.m, z.k, z.n, &worst);
        r->ok = wrong == 0;
        snprintf(r->verdict, sizeof r->verdict, wrong == 0 ? "ok" :
                 "MISMATCH: %ld elements beyond k * 2^-22 * sum|a||b|", wrong);
        snprintf(r->note, sizeof r->note, "matmul: %s within %.3g of its "
                 "error bound (1 = the bound)", r->version, worst);
    }
done:
    free(a);
    free(b);
    free(c);
    free(want);
    return rc;
}
