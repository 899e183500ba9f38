/*
 * demo_md.c: molecular dynamics (apps/md): 2048 Lennard-Jones particles
 * from an FCC start at the liquid state point, 10 velocity-Verlet steps
 * by the device's per-particle cell-list version (float) against the host
 * all-pairs reference (double): every position within 1e-4 and velocity
 * within 1e-3 (test_md.c's tolerances, 30 times what float costs). The
 * call time is the steps' wall time (four kernels a step); the note gives
 * the energy drift. Its OpenMP column is cells-host, the host's cell list
 * in OpenMP threads. 4000 particles in the benchmark table.
 */
#include "demo/demo.h"

#include "md/md.h"

#include <math.h>
#include <stdio.h>

/* The demo's particles (FCC: 4 k^3) and the benchmark table's; 10 steps. */
static const int MD_N[2] = {2048, 4000};
enum { MD_STEPS = 10 };
static const double MD_POS_TOL = 1e-4, MD_VEL_TOL = 1e-3;

/* got against want, by the minimum image for positions. */
static void md_compare(demo_result *r, const md_system *got,
                       const md_system *want)
{
    for (size_t i = 0; i < 3 * (size_t)want->n; i++) {
        double dp = fabs(md_min_image(got->pos[i] - want->pos[i],
                                      want->box));
        double dv = fabs(got->vel[i] - want->vel[i]);
        if (dp <= MD_POS_TOL && dv <= MD_VEL_TOL)   /* NaN fails */
            continue;
        r->ok = 0;
        snprintf(r->verdict, sizeof r->verdict, "MISMATCH at %zu: x %.6g "
                 "v %.6g, want %.6g %.6g", i, got->pos[i], got->vel[i],
                 want->pos[i], want->vel[i]);
        return;
    }
    r->ok = 1;
    snprintf(r->verdict, sizeof r->verdict, "ok");
}

int demo_md(demo_result *r, demo_scale scale)
{
    md_system start, want = {0}, got = {0}, omp = {0};
    md_energy first, last;
    double seconds;
    int n = MD_N[scale];
    snprintf(r->size, sizeof r->size, "%d x %d steps", n, MD_STEPS);
    r->kernel_ms = -1;
    int rc = md_system_init(&start, n, 1);
    if (rc == 0)
        rc = md_system_copy(&want, &start);
    if (rc == 0)
        rc = md_system_copy(&got, &start);
    if (rc == 0)
        rc = md_system_copy(&omp, &start);
    if (rc) {
        demo_fail(r, rc, "md: making the particles");
        goto done;
    }
    rc = md_run(&want, MD_STEPS, MD_REFERENCE, NULL, NULL, NULL, &seconds);
    r->ref_ms = seconds * 1e3;
    if (rc == 0)
        rc = md_run(&omp, MD_STEPS, MD_CELLS_HOST, NULL, NULL, NULL,
                    &seconds);
    r->omp_ms = seconds * 1e3;
    if (rc) {
        demo_fail(r, rc, "md: the reference or cells-host");
        goto done;
    }
    md_version v = (md_version)demo_version(r, &md_versions);
    rc = md_run(&got, MD_STEPS, v, NULL, &first, &last, &seconds);
    r->call_ms = seconds * 1e3;
    if (rc) {
        demo_fail(r, rc, "md: the device version");
        goto done;
    }
    md_compare(r, &got, &want);
    snprintf(r->note, sizeof r->note, "md: %d particles, %d steps on the "
             "device (one work-item per particle over a cell list): energy "
             "per particle %.6f -> %.6f", n, MD_STEPS,
             md_energy_total(&first) / n, md_energy_total(&last) / n);
done:
    md_system_free(&start);
    md_system_free(&want);
    md_system_free(&omp);
    md_system_free(&got);
    return rc;
}
