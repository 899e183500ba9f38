/*
 * demo_heat.c: the heat world (apps/heat): a 128 x 128 standard world
 * stepped 1000 times by heat's default version on this device (v6 on a GPU,
 * its several steps per launch in local-memory tiles), compared bit for bit
 * with the C reference, timed against it and OpenMP, and drawn to a PNG. A
 * time step of 10 (alpha*dt = 1) lets the heat get far enough along the
 * slalom track in that many steps to make a picture. The benchmark table
 * steps a 1000 x 1000 world 100 times.
 */
#include "demo/demo.h"
#include "common/error.h"

#include "heat/heat.h"

#include <stdio.h>

/* The demo's world and steps, and the benchmark table's (make bench's
 * bench-heat size). */
static const unsigned HEAT_N[2] = {128, 1000}, HEAT_STEPS[2] = {1000, 100};
static const float HEAT_DT = 10.0f;
#define HEAT_PNG DEMO_PICTURES "/heat_world.png"

/* Steps a copy of start with version v DEMO_CALLS times, keeping the
 * last. */
static int heat_device(demo_result *r, const heat_world *start,
                       heat_world *got, heat_version v, unsigned steps)
{
    int rc = 0;
    for (int call = 0; call < DEMO_CALLS && rc == 0; call++) {
        heat_world_free(got);
        rc = heat_world_copy(got, start);
        if (rc)
            return demo_fail(r, rc, "heat: copying the world");
        app_timing stats = {.want_kernel_time = 1};
        double t0 = demo_now_ms();
        rc = heat_step(got, HEAT_DT, steps, v, NULL, &stats);
        r->call_ms = demo_now_ms() - t0;
        r->kernel_ms = stats.kernel_ms;
    }
    return rc ? demo_fail(r, rc, "heat: stepping on the device") : 0;
}

/* The stepped world as a PNG, named in r's note. */
static void draw(demo_result *r, const heat_world *world)
{
    demo_picture_folder();
    demo_picture_note(r, heat_world_render(world, HEAT_PNG), "heat",
                      "heat: the stepped world is drawn in " HEAT_PNG);
}

int demo_heat(demo_result *r, demo_scale scale)
{
    heat_world start = {0}, want = {0}, got = {0}, omp = {0};
    unsigned n = HEAT_N[scale], steps = HEAT_STEPS[scale];
    snprintf(r->size, sizeof r->size, "%ux%u x %u", n, n, steps);
    int rc = heat_world_make_standard(&start, n, 0.1f);
    if (rc == 0)
        rc = heat_world_copy(&want, &start);
    if (rc == 0)
        rc = heat_world_copy(&omp, &start);
    if (rc) {
        demo_fail(r, rc, "heat: making the world");
        goto done;
    }
    double t0 = demo_now_ms();
    rc = heat_step(&want, HEAT_DT, steps, HEAT_REFERENCE, NULL, NULL);
    r->ref_ms = demo_now_ms() - t0;
    t0 = demo_now_ms();
    if (rc == 0)
        rc = heat_step(&omp, HEAT_DT, steps, HEAT_OPENMP, NULL, NULL);
    r->omp_ms = demo_now_ms() - t0;
    if (rc) {
        demo_fail(r, rc, "heat: stepping with the reference or OpenMP");
        goto done;
    }
    rc = heat_device(r, &start, &got,
                     (heat_version)demo_version(r, &heat_versions), steps);
    if (rc)
        goto done;
    demo_compare(r, got.state, want.state, (size_t)n * n, 0);
    if (scale == DEMO_SMALL)
        draw(r, &got);
done:
    heat_world_free(&start);
    heat_world_free(&want);
    heat_world_free(&got);
    heat_world_free(&omp);
    return rc;
}
