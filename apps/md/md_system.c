/*
 * md_system.c: the particles' state (md.h): allocation, the standard FCC
 * start at the liquid state point, momentum and temperature, and the
 * names of the versions.
 */
#include "md.h"
#include "common/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int md_system_alloc(md_system *s, uint32_t n, double box)
{
    *s = (md_system){.n = n, .box = box};
    if (n == 0 || n > MD_MAX_PARTICLES)
        return app_fail(APP_ERR_USAGE, "md: %u particles: give 1 to "
                        "%u", n, MD_MAX_PARTICLES);
    if (!(box > 0.0) || !isfinite(box))
        return app_fail(APP_ERR_USAGE, "md: a box of side %g", box);
    s->pos = calloc(3 * (size_t)n, sizeof *s->pos);
    s->vel = calloc(3 * (size_t)n, sizeof *s->vel);
    if (!s->pos || !s->vel) {
        md_system_free(s);
        return app_fail(APP_ERR_NO_MEMORY, "md: no memory for %u "
                        "particles", n);
    }
    return 0;
}

void md_system_free(md_system *s)
{
    free(s->pos);
    free(s->vel);
    s->pos = s->vel = NULL;
}

int md_system_copy(md_system *dst, const md_system *src)
{
    int rc = md_system_alloc(dst, src->n, src->box);
    if (rc == 0) {
        memcpy(dst->pos, src->pos, 3 * (size_t)src->n * sizeof *src->pos);
        memcpy(dst->vel, src->vel, 3 * (size_t)src->n * sizeof *src->vel);
    }
    return rc;
}

/* splitmix64: a tiny generator with the same sequence everywhere. */
static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [-1/2, 1/2), from the top 53 bits. */
static double uniform_centred(uint64_t *state)
{
    return (double)(splitmix64(state) >> 11) * 0x1p-53 - 0.5;
}

/* Particle k on lattice site floor(k sites / n): sites are numbered unit
 * cell by unit cell (x fastest), 4 per cell, and shifted by a quarter
 * cell so that none sits on the box's faces. */
static void place_on_fcc(md_system *s)
{
    static const double basis[4][3] = {
        {0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
    uint64_t m = 1;
    while (4 * m * m * m < s->n)
        m++;
    uint64_t sites = 4 * m * m * m;
    double a = s->box / (double)m;
    for (uint64_t k = 0; k < s->n; k++) {
        uint64_t site = k * sites / s->n, cell = site / 4;
        uint64_t at[3] = {cell % m, cell / m % m, cell / (m * m)};
        for (int d = 0; d < 3; d++)
            s->pos[3 * k + d] = md_wrap(
                ((double)at[d] + basis[site % 4][d] + 0.25) * a, s->box);
    }
}

/* Random velocities, no net momentum, at MD_TEMPERATURE. */
static void draw_velocities(md_system *s, uint64_t seed)
{
    uint64_t state = seed;
    double p[3];
    for (size_t i = 0; i < 3 * (size_t)s->n; i++)
        s->vel[i] = uniform_centred(&state);
    md_momentum(s, p);
    for (size_t i = 0; i < s->n; i++)
        for (int d = 0; d < 3; d++)
            s->vel[3 * i + d] -= p[d] / s->n;
    double t = md_temperature(s);
    double scale = t > 0 ? sqrt(MD_TEMPERATURE / t) : 0.0;
    for (size_t i = 0; i < 3 * (size_t)s->n; i++)
        s->vel[i] *= scale;
}

int md_system_init(md_system *s, uint32_t n, uint64_t seed)
{
    int rc = md_system_alloc(s, n, cbrt(n / MD_DENSITY));
    if (rc)
        return rc;
    place_on_fcc(s);
    draw_velocities(s, seed);
    return 0;
}

void md_momentum(const md_system *s, double p[3])
{
    p[0] = p[1] = p[2] = 0.0;
    for (size_t i = 0; i < s->n; i++)
        for (int d = 0; d < 3; d++)
            p[d] += s->vel[3 * i + d];
}

double md_temperature(const md_system *s)
{
    double sum = 0.0;
    for (size_t i = 0; i < 3 * (size_t)s->n; i++)
        sum += s->vel[i] * s->vel[i];
    return s->n > 1 ? sum / (3.0 * (s->n - 1)) : 0.0;
}

static const app_version versions[MD_VERSION_COUNT] = {
    [MD_REFERENCE] = {"reference", NULL, 0},
    [MD_CELLS_HOST] = {"cells-host", NULL, 0},
    [MD_ALLPAIRS] = {"allpairs", NULL, 1},
    [MD_PARTICLE] = {"particle", NULL, 1},
    [MD_CELL] = {"cell", NULL, 1},
};
const app_versions md_versions = {versions, MD_VERSION_COUNT, MD_PARTICLE,
                                  MD_PARTICLE};

int md_version_uses_cells(md_version v)
{
    return v == MD_CELLS_HOST || v == MD_PARTICLE || v == MD_CELL;
}

int md_cells_per_side(double box)
{
    double nc = floor(box / (MD_CUTOFF * MD_CELL_MARGIN));
    return nc > 1024 ? 1024 : (int)nc;  /* 2^30 cells: far past 2^24 */
}

uint32_t md_max_particles(md_version v)
{
    return v == MD_REFERENCE ? MD_REFERENCE_MAX_PARTICLES : MD_MAX_PARTICLES;
}

uint32_t md_min_particles(md_version v)
{
    uint32_t n = 1;
    if (md_version_uses_cells(v))
        while (md_cells_per_side(cbrt(n / MD_DENSITY)) < 3)
            n++;
    else
        while (cbrt(n / MD_DENSITY) < 2 * MD_CUTOFF)
            n++;
    return n;
}
