/*
 * laplace_ref.c: the C reference (and, with `parallel`, its OpenMP twin,
 * rows split among threads: the same operations on every cell, so the same
 * bits). Double-buffered like the device versions; the tolerance check is
 * made on the same iterations as theirs, so all stop at the same count.
 */
#include "laplace.h"
#include "common/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

int laplace_openmp_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

/* One iteration from in to out (fixed cells are equal in both already);
 * returns the largest |change| when `measure`, else 0. */
static float iterate(const laplace_grid *g, const float *in, float *out,
                     int measure, int parallel)
{
    const uint8_t *mask = g->mask;
    size_t nx = g->nx;
    float change = 0.0f;
    (void)parallel;             /* without OpenMP every run is serial */
#pragma omp parallel for schedule(static) reduction(max : change) if (parallel)
    for (uint32_t y = 1; y < g->ny - 1; y++) {
        for (size_t i = y * nx + 1; i < (y + 1) * nx - 1; i++) {
            if (!mask[i])
                continue;
            float v = 0.25f * (((in[i + 1] + in[i - 1]) + in[i + nx]) +
                               in[i - nx]);
            out[i] = v;
            if (measure) {
                float d = fabsf(v - in[i]);
                change = d > change ? d : change;
            }
        }
    }
    return change;
}

int laplace_solve_c(laplace_grid *g, const laplace_plan *plan, int parallel,
                    laplace_stats *stats)
{
    size_t cells = (size_t)g->nx * g->ny;
    float *other = malloc(cells * sizeof *other);
    if (!other)
        return app_fail(APP_ERR_NO_MEMORY, "laplace: no memory for "
                        "a %u x %u grid", g->nx, g->ny);
    memcpy(other, g->phi, cells * sizeof *other);
    float *cur = g->phi, *next = other;
    unsigned done = 0;
    while (done < plan->iterations) {
        unsigned n = laplace_next_stretch(plan, done);
        int check = plan->tolerance > 0.0f &&
                    (done + n) % plan->check_every == 0;
        float change = 0.0f;
        for (unsigned t = 0; t < n; t++) {
            change = iterate(g, cur, next, check && t == n - 1, parallel);
            float *swap = cur;
            cur = next;
            next = swap;
        }
        done += n;
        if (check && laplace_note_check(plan, change, stats))
            break;
    }
    stats->iterations = done;
    if (cur != g->phi) {
        memcpy(g->phi, cur, cells * sizeof *cur);
    }
    free(other);
    return 0;
}
