/*
 * md.c: a run of any version through one interface (md.h). The host
 * versions step a double copy of the system here, with the reference's or
 * the cell list's forces; the device versions are md_cl.c's. Both check
 * the box first: the minimum image needs a side of 2 r0, a cell list 3
 * cells a side (fewer would count a neighbour cell twice).
 */
#include "md.h"
#include "common/error.h"

#include "common/clock.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Cells beyond this would be mostly empty memory (2^24 cells). */
#define MD_MAX_CELLS_PER_SIDE 256

struct md_sim {
    md_version v;
    md_system host;         /* the host versions' state */
    double *force, *pe;     /* its forces (3n) and energies (n) */
    md_device *device;      /* or the device's */
};

static int check_box(const md_system *s, md_version v)
{
    if (s->n == 0 || s->n > MD_MAX_PARTICLES || !s->pos || !s->vel)
        return app_fail(APP_ERR_USAGE, "md: a system needs 1 to %u "
                        "particles (has %u)", MD_MAX_PARTICLES, s->n);
    if (!(s->box >= 2 * MD_CUTOFF) || !isfinite(s->box))
        return app_fail(APP_ERR_USAGE, "md: a box of side %g is "
                        "under 2 cut-offs (%g): the minimum image would "
                        "miss pairs; at density %g that is %u particles "
                        "or more", s->box, 2 * MD_CUTOFF, MD_DENSITY,
                        md_min_particles(MD_REFERENCE));
    if (s->n > md_max_particles(v))
        return app_fail(APP_ERR_USAGE, "md: %s runs at most %u particles "
                        "(has %u): its all-pairs forces would take hours; "
                        "cells-host, particle and cell run any number",
                        app_version_name(&md_versions, v),
                        md_max_particles(v), s->n);
    int nc = md_cells_per_side(s->box);
    if (md_version_uses_cells(v) && nc < 3)
        return app_fail(APP_ERR_USAGE, "md: %s needs a cell list of "
                        "3 cells a side at least, and a box of side %g "
                        "holds %d of side %g (at density %g that is %u "
                        "particles or more; allpairs runs fewer)",
                        app_version_name(&md_versions, v), s->box, nc,
                        MD_CUTOFF * MD_CELL_MARGIN, MD_DENSITY,
                        md_min_particles(v));
    if (md_version_uses_cells(v) && nc > MD_MAX_CELLS_PER_SIDE)
        return app_fail(APP_ERR_USAGE, "md: a box of side %g makes "
                        "%d cells a side, more than %d", s->box, nc,
                        MD_MAX_CELLS_PER_SIDE);
    return 0;
}

static int host_forces(md_sim *sim)
{
    return sim->v == MD_REFERENCE
               ? md_forces_allpairs(&sim->host, sim->force, sim->pe)
               : md_forces_cells(&sim->host, sim->force, sim->pe);
}

/* v += dt/2 f for every particle. */
static void half_kick(md_sim *sim)
{
    for (size_t i = 0; i < 3 * (size_t)sim->host.n; i++)
        sim->host.vel[i] += 0.5 * MD_DT * sim->force[i];
}

static int host_step(md_sim *sim)
{
    md_system *s = &sim->host;
    half_kick(sim);
    for (size_t i = 0; i < 3 * (size_t)s->n; i++)
        s->pos[i] = md_wrap(s->pos[i] + MD_DT * s->vel[i], s->box);
    int rc = host_forces(sim);
    if (rc == 0)
        half_kick(sim);
    return rc;
}

/* The host copy of the state (wrapped into the box) and each particle's
 * energy: the host versions' state, the device's read-back buffers. */
static int host_open(md_sim *sim, const md_system *start)
{
    int rc = md_system_copy(&sim->host, start);
    if (rc)
        return rc;
    for (size_t i = 0; i < 3 * (size_t)start->n; i++)
        sim->host.pos[i] = md_wrap(start->pos[i], start->box);
    sim->pe = malloc((size_t)start->n * sizeof *sim->pe);
    if (!app_version_uses_opencl(&md_versions, sim->v))
        sim->force = malloc(3 * (size_t)start->n * sizeof *sim->force);
    if (!sim->pe || (!app_version_uses_opencl(&md_versions, sim->v) && !sim->force))
        return app_fail(APP_ERR_NO_MEMORY, "md: no memory for the "
                        "forces of %u particles", start->n);
    return 0;
}

int md_sim_open(md_sim **simp, const md_system *start, md_version v,
                clctx *ctx)
{
    *simp = NULL;
    if ((unsigned)v >= MD_VERSION_COUNT)
        return app_fail(APP_ERR_USAGE, "md: no version %d", (int)v);
    int rc = check_box(start, v);
    if (rc)
        return rc;
    md_sim *sim = calloc(1, sizeof *sim);
    if (!sim)
        return app_fail(APP_ERR_NO_MEMORY, "md: no memory");
    sim->v = v;
    rc = host_open(sim, start);
    if (rc == 0)
        rc = app_version_uses_opencl(&md_versions, v)
                 ? md_device_open(&sim->device, &sim->host, v, ctx)
                 : host_forces(sim);
    if (rc) {
        md_sim_close(sim);
        return rc;
    }
    *simp = sim;
    return 0;
}

void md_sim_close(md_sim *sim)
{
    if (!sim)
        return;
    md_device_close(sim->device);
    md_system_free(&sim->host);
    free(sim->force);
    free(sim->pe);
    free(sim);
}

int md_sim_step(md_sim *sim, unsigned steps)
{
    if (sim->device)
        return md_device_step(sim->device, steps);
    int rc = 0;
    for (unsigned t = 0; t < steps && rc == 0; t++)
        rc = host_step(sim);
    return rc;
}

int md_sim_finish(md_sim *sim)
{
    return sim->device ? md_device_finish(sim->device) : 0;
}

int md_sim_read(md_sim *sim, md_system *out)
{
    if (sim->device)
        return md_device_read(sim->device, out, NULL);
    if (out->n != sim->host.n || !out->pos || !out->vel)
        return app_fail(APP_ERR_USAGE, "md_sim_read: room for %u "
                        "particles, the run has %u", out->n,
                        sim->host.n);
    size_t bytes = 3 * (size_t)out->n * sizeof *out->pos;
    memcpy(out->pos, sim->host.pos, bytes);
    memcpy(out->vel, sim->host.vel, bytes);
    out->box = sim->host.box;
    return 0;
}

static void sum_energy(const md_system *s, const double *pe, md_energy *e)
{
    e->kinetic = e->potential = 0.0;
    for (size_t i = 0; i < 3 * (size_t)s->n; i++)
        e->kinetic += 0.5 * s->vel[i] * s->vel[i];
    for (size_t i = 0; i < s->n; i++)
        e->potential += pe[i];
}

int md_sim_energy(md_sim *sim, md_energy *e)
{
    /* The device's state is read back into the host copy and summed in
     * double there. */
    int rc = sim->device ? md_device_read(sim->device, &sim->host, sim->pe)
                         : 0;
    if (rc == 0)
        sum_energy(&sim->host, sim->pe, e);
    return rc;
}

int md_sim_cells(md_sim *sim, int *nc, int **starts, int **ids)
{
    if (!sim->device || !md_version_uses_cells(sim->v))
        return app_fail(APP_ERR_USAGE, "md_sim_cells: %s keeps no "
                        "cell list on a device", app_version_name(&md_versions, sim->v));
    return md_device_cells(sim->device, nc, starts, ids);
}

int md_sim_profile(md_sim *sim, unsigned steps, md_phase_ms *out)
{
    if (!sim->device)
        return app_fail(APP_ERR_USAGE, "md_sim_profile: %s runs "
                        "no kernels", app_version_name(&md_versions, sim->v));
    return md_device_profile(sim->device, steps, out);
}

int md_run(md_system *s, unsigned steps, md_version v, clctx *ctx,
           md_energy *first, md_energy *last, double *seconds)
{
    md_sim *sim;
    int rc = md_sim_open(&sim, s, v, ctx);
    if (rc)
        return rc;
    if (first)
        rc = md_sim_energy(sim, first);
    double t0 = clock_seconds();
    if (rc == 0)
        rc = md_sim_step(sim, steps);
    if (rc == 0)
        rc = md_sim_finish(sim);
    if (seconds)
        *seconds = clock_seconds() - t0;
    if (rc == 0 && last)
        rc = md_sim_energy(sim, last);
    if (rc == 0)
        rc = md_sim_read(sim, s);
    md_sim_close(sim);
    return rc;
}
