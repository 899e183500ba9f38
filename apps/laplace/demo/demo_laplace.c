/*
 * demo_laplace.c: the Laplace equation (apps/laplace): a 256 x 256 box at
 * 0 V around a centred conductor at 1 V, 500 Jacobi iterations by
 * Laplace's default version on this device (fast on a GPU: several
 * iterations per launch in local-memory tiles), compared bit for bit with
 * the C reference, timed against it and OpenMP, and drawn to a PNG. The
 * benchmark table iterates a 1000 x 1000 grid 100 times.
 */
#include "demo/demo.h"
#include "common/error.h"

#include "laplace/laplace.h"

#include <stdio.h>

/* The demo's grid and iterations, and the benchmark table's (make bench's
 * larger bench-laplace size); the conductor a quarter of the side. */
static const unsigned LAPLACE_N[2] = {256, 1000};
static const unsigned LAPLACE_ITERATIONS[2] = {500, 100};
#define LAPLACE_PNG DEMO_PICTURES "/laplace.png"

/* Iterates a copy of start with version v DEMO_CALLS times, keeping the
 * last. */
static int laplace_device(demo_result *r, const laplace_grid *start,
                          laplace_grid *got, const laplace_plan *plan,
                          laplace_version v)
{
    int rc = 0;
    for (int call = 0; call < DEMO_CALLS && rc == 0; call++) {
        laplace_grid_free(got);
        rc = laplace_grid_copy(got, start);
        if (rc)
            return demo_fail(r, rc, "laplace: copying the grid");
        laplace_stats stats = {.timing.want_kernel_time = 1};
        double t0 = demo_now_ms();
        rc = laplace_solve(got, plan, v, NULL, &stats);
        r->call_ms = demo_now_ms() - t0;
        r->kernel_ms = stats.timing.kernel_ms;
    }
    return rc ? demo_fail(r, rc, "laplace: iterating on the device") : 0;
}

/* The potential as a PNG, named in r's note. */
static void draw(demo_result *r, const laplace_grid *g)
{
    demo_picture_folder();
    demo_picture_note(r, laplace_write_png(LAPLACE_PNG, g), "laplace",
                      "laplace: the potential is drawn in " LAPLACE_PNG);
}

int demo_laplace(demo_result *r, demo_scale scale)
{
    laplace_grid start = {0}, want = {0}, got = {0}, omp = {0};
    unsigned n = LAPLACE_N[scale];
    laplace_plan plan = {LAPLACE_ITERATIONS[scale], 0.0f, 1};
    snprintf(r->size, sizeof r->size, "%ux%u x %u", n, n, plan.iterations);
    int rc = laplace_grid_make(&start, n, n, 0.0f, 1.0f, n / 4, n / 4);
    if (rc == 0)
        rc = laplace_grid_copy(&want, &start);
    if (rc == 0)
        rc = laplace_grid_copy(&omp, &start);
    if (rc) {
        demo_fail(r, rc, "laplace: making the grid");
        goto done;
    }
    double t0 = demo_now_ms();
    rc = laplace_solve(&want, &plan, LAPLACE_REFERENCE, NULL, NULL);
    r->ref_ms = demo_now_ms() - t0;
    t0 = demo_now_ms();
    if (rc == 0)
        rc = laplace_solve(&omp, &plan, LAPLACE_OPENMP, NULL, NULL);
    r->omp_ms = demo_now_ms() - t0;
    if (rc) {
        demo_fail(r, rc, "laplace: iterating with the reference or OpenMP");
        goto done;
    }
    rc = laplace_device(r, &start, &got, &plan,
                        (laplace_version)demo_version(r, &laplace_versions));
    if (rc)
        goto done;
    demo_compare(r, got.phi, want.phi, (size_t)n * n, 0);
    if (scale == DEMO_SMALL)
        draw(r, &got);
done:
    laplace_grid_free(&start);
    laplace_grid_free(&want);
    laplace_grid_free(&got);
    laplace_grid_free(&omp);
    return rc;
}
