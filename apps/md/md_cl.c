/*
 * md_cl.c: the device versions of molecular dynamics on clframe (md.h,
 * apps/md/kernels/md.cl). The state stays on the device between steps in
 * persistent buffers; a step is two launches for allpairs (kick-drift,
 * forces with the second half-kick) and four for the cell lists
 * (kick-drift with binning, prefix sum, scatter, forces), all enqueued
 * without waiting. Only reads come back: the state, the energies, or the
 * cell list for the tests.
 *
 * MD_CELL_GROUP=k (a power of two) sets the cell version's work-group
 * size, and its staging buffer to 16 k particles: the tests make both
 * small so that every cell needs several rounds. MD_SCAN_BLOCK=k sets
 * the cells in a block of the cell list's scan: the tests make it 1 so
 * that a small box takes the scan by blocks.
 */
#include "md.h"
#include "common/error.h"
#include "common/timing.h"
#include "clframe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* apps/md/kernels, compiled in (scripts/embed-sources). */
extern const clframe_source md_kernel_sources[];
#define MD_KERNELS "apps/md/kernels/md.cl"

/* Work-group sizes: per particle (and all pairs' tile); the cell
 * version's (a warp: a cell holds about 15 particles at the state point)
 * and how many particles it stages per work-item; the one-group scan's
 * largest (as many work-items as the kernel may have, up to this), and
 * the cells in a block of the longer scan (apps/md/kernels/md.cl). */
enum { PARTICLE_GROUP = 64, CELL_GROUP = 32, STAGE_PER_ITEM = 16,
       SCAN_GROUP_MAX = 1024, SCAN_BLOCK = 256 };

/* The scan goes by blocks above this many: below, its three launches
 * cost more than one group's pass over the counts (bench/RESULTS.md,
 * Molecular dynamics). */
enum { SCAN_MAX_ONE_GROUP_BLOCKS = 16 };

struct md_device {
    clctx *ctx;
    md_version v;
    cl_uint n;
    double box;
    cl_float box_f, cells_per_length;
    cl_int nc, ncells;
    size_t group, cell_group, scan_group, block, nblocks;
    clkernel *kick_drift, *bin, *scan, *block_sums, *block_starts, *scatter,
        *force;
    clarg pos, vel, frc, pe, cell_of, counts, starts, cell_pos;
    clarg sums, sums_starts;    /* blocks' sums of counts and their starts */
    cl_float4 *pos4, *vel4, *force4, *cell_pos4;
    cl_float *pe_f;
    cl_int *cell_of_i, *counts_i, *starts_i, *sums_i, *sums_starts_i;
};

/* The largest power of two up to limit. */
static size_t power_of_two_below(size_t limit)
{
    size_t p = 1;
    while (p * 2 <= limit)
        p *= 2;
    return p;
}

/* A power of two from the environment variable `name` (the tests set
 * them small, to make loops and blocks run), else `fallback`; at most
 * max_group. */
static size_t group_size(const char *name, size_t fallback,
                         size_t max_group)
{
    const char *env = getenv(name);
    size_t g = env ? strtoul(env, NULL, 10) : fallback;
    return power_of_two_below(g < 1 ? 1 : g > max_group ? max_group : g);
}

/* A kernel of md.cl run over `items` work-items in groups of `group`. */
static clkernel *build(md_device *d, const char *name, size_t items,
                       size_t group)
{
    char options[256];
    snprintf(options, sizeof options, "-DMD_ALLPAIRS_GROUP=%zu "
             "-DMD_CELL_GROUP=%zu -DMD_STAGE=%zu", d->group, d->cell_group,
             d->cell_group * STAGE_PER_ITEM);
    if (clframe_add_sources(md_kernel_sources))
        return NULL;
    clkernel *k = clkernel_file(d->ctx, MD_KERNELS, name, options);
    if (!k)
        return NULL;
    if (clkernel_max_group_size(k) < group) {
        app_fail(APP_ERR_DEVICE, "md: %s runs work-groups of at "
                 "most %zu on %s; it needs %zu", name,
                 clkernel_max_group_size(k), clctx_device_name(d->ctx),
                 group);
    } else if (clkernel_global(k, clframe_round_up(items, group)) == 0 &&
               clkernel_local(k, group) == 0) {
        return k;
    }
    clkernel_free(k);
    return NULL;
}

/* The scan: one group, as large as the kernel may have up to
 * SCAN_GROUP_MAX (a power of two), its sums in local memory. */
static clkernel *build_scan(md_device *d)
{
    clkernel *k = build(d, "md_cell_scan", 1, 1);
    if (!k)
        return NULL;
    size_t most = clkernel_max_group_size(k);
    d->scan_group = power_of_two_below(most < SCAN_GROUP_MAX ? most
                                                             : SCAN_GROUP_MAX);
    if (clkernel_global(k, d->scan_group) == 0 &&
        clkernel_local(k, d->scan_group) == 0)
        return k;
    clkernel_free(k);
    return NULL;
}

/* Whether the cell list's scan goes by blocks. */
static int by_blocks(const md_device *d)
{
    return md_version_uses_cells(d->v) &&
           d->nblocks > SCAN_MAX_ONE_GROUP_BLOCKS;
}

static int build_kernels(md_device *d)
{
    int cells = md_version_uses_cells(d->v);
    d->kick_drift = build(d, cells ? "md_kick_drift_bin" : "md_kick_drift",
                          d->n, d->group);
    if (d->v == MD_ALLPAIRS)
        d->force = build(d, "md_force_allpairs", d->n, d->group);
    else if (d->v == MD_PARTICLE)
        d->force = build(d, "md_force_particle", d->n, d->group);
    else
        d->force = build(d, "md_force_cell", (size_t)d->ncells *
                         d->cell_group, d->cell_group);
    if (cells) {
        d->bin = build(d, "md_bin", d->n, d->group);
        d->scan = build_scan(d);
        d->scatter = build(d, "md_cell_scatter", d->n, d->group);
    }
    if (by_blocks(d)) {
        d->block_sums = build(d, "md_block_sums", (size_t)d->ncells,
                              d->block);
        d->block_starts = build(d, "md_block_starts", (size_t)d->ncells,
                                d->block);
    }
    if (!d->kick_drift || !d->force ||
        (cells && (!d->bin || !d->scan || !d->scatter)) ||
        (by_blocks(d) && (!d->block_sums || !d->block_starts)))
        return CLFRAME_ERR_BUILD;       /* clframe said why */
    return 0;
}

static int alloc_buffers(md_device *d)
{
    size_t n = d->n, cells = (size_t)d->ncells;
    d->pos4 = calloc(n, sizeof *d->pos4);
    d->vel4 = calloc(n, sizeof *d->vel4);
    d->force4 = calloc(n, sizeof *d->force4);
    d->cell_pos4 = calloc(n, sizeof *d->cell_pos4);
    d->pe_f = calloc(n, sizeof *d->pe_f);
    d->cell_of_i = calloc(n, sizeof *d->cell_of_i);
    d->counts_i = calloc(cells, sizeof *d->counts_i);
    d->starts_i = calloc(cells + 1, sizeof *d->starts_i);
    d->sums_i = calloc(d->nblocks, sizeof *d->sums_i);
    d->sums_starts_i = calloc(d->nblocks + 1, sizeof *d->sums_starts_i);
    if (!d->pos4 || !d->vel4 || !d->force4 || !d->cell_pos4 || !d->pe_f ||
        !d->cell_of_i || !d->counts_i || !d->starts_i || !d->sums_i ||
        !d->sums_starts_i)
        return app_fail(APP_ERR_NO_MEMORY, "md: no memory for %u "
                        "particles' buffers", d->n);
    d->pos = CLARG_INOUT(d->pos4, n);
    d->vel = CLARG_INOUT(d->vel4, n);
    d->frc = CLARG_INOUT(d->force4, n);
    d->cell_pos = CLARG_INOUT(d->cell_pos4, n);
    d->pe = CLARG_INOUT(d->pe_f, n);
    d->cell_of = CLARG_INOUT(d->cell_of_i, n);
    d->counts = CLARG_INOUT(d->counts_i, cells);
    d->starts = CLARG_INOUT(d->starts_i, cells + 1);
    d->sums = CLARG_INOUT(d->sums_i, d->nblocks);
    d->sums_starts = CLARG_INOUT(d->sums_starts_i, d->nblocks + 1);
    clarg *all[] = {&d->pos, &d->vel, &d->frc, &d->cell_pos, &d->pe,
                    &d->cell_of, &d->counts, &d->starts, &d->sums,
                    &d->sums_starts};
    int rc = 0;
    for (size_t i = 0; i < sizeof all / sizeof *all && rc == 0; i++)
        rc = clarg_keep_on_device(all[i], d->ctx, 0);
    return rc;
}

/* x in float, still inside [0, box_f): rounding may reach box_f. */
static cl_float inside(double x, cl_float box_f)
{
    cl_float f = (cl_float)x;
    return f >= box_f || !(f >= 0.0f) ? 0.0f : f;
}

/* The start in float on the device; the counts at zero. */
static int upload(md_device *d, const md_system *s)
{
    for (size_t i = 0; i < d->n; i++) {
        const double *x = &s->pos[3 * i], *v = &s->vel[3 * i];
        d->pos4[i] = (cl_float4){{inside(x[0], d->box_f),
                                  inside(x[1], d->box_f),
                                  inside(x[2], d->box_f), 0.0f}};
        d->vel4[i] = (cl_float4){{(cl_float)v[0], (cl_float)v[1],
                                  (cl_float)v[2], 0.0f}};
    }
    int rc = clarg_write(&d->pos);
    if (rc == 0)
        rc = clarg_write(&d->vel);
    if (rc == 0)
        rc = clarg_write(&d->frc);
    if (rc == 0)
        rc = clarg_write(&d->counts);
    return rc;
}

/* The cells' starts from their counts: one scan, or for more than a
 * block of cells, the blocks' sums, their scan and the blocks' scans. */
static int scan_counts(md_device *d)
{
    clarg scan_scratch = CLARG_LOCAL(d->scan_group * sizeof(cl_int));
    clarg block_scratch = CLARG_LOCAL(d->block * sizeof(cl_int));
    if (!by_blocks(d))
        return clkernel_enqueue(d->scan, d->counts, d->starts,
                                CLARG(d->ncells), scan_scratch);
    cl_int nblocks = (cl_int)d->nblocks;
    int rc = clkernel_enqueue(d->block_sums, d->counts, CLARG(d->ncells),
                              d->sums, block_scratch);
    if (rc == 0)
        rc = clkernel_enqueue(d->scan, d->sums, d->sums_starts,
                              CLARG(nblocks), scan_scratch);
    if (rc == 0)
        rc = clkernel_enqueue(d->block_starts, d->counts, CLARG(d->ncells),
                              d->sums_starts, d->starts, block_scratch);
    return rc;
}

/* Counts are zero: sort the particles into their cells. */
static int sort_into_cells(md_device *d)
{
    int rc = scan_counts(d);
    if (rc == 0)
        rc = clkernel_enqueue(d->scatter, d->pos, CLARG(d->n), d->cell_of,
                              d->starts, d->counts, d->cell_pos);
    return rc;
}

/* The forces, energies and a kick of v by half_dt f. */
static int forces(md_device *d, cl_float half_dt)
{
    int rc;
    if (d->v == MD_ALLPAIRS)
        rc = clkernel_enqueue(d->force, d->pos, CLARG(d->n),
                              CLARG(d->box_f), d->vel, d->frc, d->pe,
                              CLARG(half_dt));
    else if (d->v == MD_PARTICLE)
        rc = clkernel_enqueue(d->force, d->cell_pos, d->cell_of, d->starts,
                              CLARG(d->n), CLARG(d->nc), CLARG(d->box_f),
                              d->vel, d->frc, d->pe, CLARG(half_dt));
    else
        rc = clkernel_enqueue(d->force, d->cell_pos, d->starts,
                              CLARG(d->nc), CLARG(d->box_f), d->vel, d->frc,
                              d->pe, CLARG(half_dt));
    return rc;
}

/* The first forces, with no kick. */
static int first_forces(md_device *d)
{
    int rc = 0;
    if (md_version_uses_cells(d->v)) {
        rc = clkernel_enqueue(d->bin, d->pos, CLARG(d->n),
                              CLARG(d->cells_per_length), CLARG(d->nc),
                              d->cell_of, d->counts);
        if (rc == 0)
            rc = sort_into_cells(d);
    }
    return rc ? rc : forces(d, 0.0f);
}

int md_device_open(md_device **dp, const md_system *start, md_version v,
                   clctx *ctx)
{
    md_device *d = calloc(1, sizeof *d);
    *dp = d;
    if (!d)
        return app_fail(APP_ERR_NO_MEMORY, "md: no memory");
    d->ctx = ctx ? ctx : clctx_default();
    if (!d->ctx)
        return CLFRAME_ERR_NO_DEVICE;   /* clframe said why */
    int cells = md_version_uses_cells(v);
    d->v = v;
    d->n = start->n;
    d->box = start->box;
    d->box_f = (cl_float)start->box;
    d->nc = cells ? md_cells_per_side(start->box) : 1;
    d->ncells = d->nc * d->nc * d->nc;
    d->cells_per_length = (cl_float)(d->nc / start->box);
    size_t max_group = clctx_max_work_group_size(d->ctx);
    d->group = power_of_two_below(max_group < PARTICLE_GROUP
                                      ? max_group : PARTICLE_GROUP);
    d->cell_group = group_size("MD_CELL_GROUP", CELL_GROUP, max_group);
    d->block = group_size("MD_SCAN_BLOCK", SCAN_BLOCK, max_group);
    d->nblocks = ((size_t)d->ncells + d->block - 1) / d->block;

    int rc = build_kernels(d);
    if (rc == 0)
        rc = alloc_buffers(d);
    if (rc == 0)
        rc = upload(d, start);
    if (rc == 0)
        rc = first_forces(d);
    return rc;
}

void md_device_close(md_device *d)
{
    if (!d)
        return;
    clarg *all[] = {&d->pos, &d->vel, &d->frc, &d->cell_pos, &d->pe,
                    &d->cell_of, &d->counts, &d->starts, &d->sums,
                    &d->sums_starts};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        clarg_release(all[i]);
    clkernel_free(d->kick_drift);
    clkernel_free(d->bin);
    clkernel_free(d->scan);
    clkernel_free(d->block_sums);
    clkernel_free(d->block_starts);
    clkernel_free(d->scatter);
    clkernel_free(d->force);
    free(d->pos4);
    free(d->vel4);
    free(d->force4);
    free(d->cell_pos4);
    free(d->pe_f);
    free(d->cell_of_i);
    free(d->counts_i);
    free(d->starts_i);
    free(d->sums_i);
    free(d->sums_starts_i);
    free(d);
}

static int step(md_device *d)
{
    cl_float dt = (cl_float)MD_DT;
    int rc;
    if (md_version_uses_cells(d->v)) {
        rc = clkernel_enqueue(d->kick_drift, d->pos, d->vel, d->frc,
                              CLARG(d->n), CLARG(dt), CLARG(d->box_f),
                              CLARG(d->cells_per_length), CLARG(d->nc),
                              d->cell_of, d->counts);
        if (rc == 0)
            rc = sort_into_cells(d);
    } else {
        rc = clkernel_enqueue(d->kick_drift, d->pos, d->vel, d->frc,
                              CLARG(d->n), CLARG(dt), CLARG(d->box_f));
    }
    return rc ? rc : forces(d, 0.5f * dt);
}

int md_device_step(md_device *d, unsigned steps)
{
    int rc = 0;
    for (unsigned t = 0; t < steps && rc == 0; t++)
        rc = step(d);
    return rc;
}

/* Each phase's kernel time so far: the totals of its kernels (those the
 * version has) summed. */
static md_phase_ms phase_totals(const md_device *d)
{
    app_timing kick_drift = {.want_kernel_time = 1}, scan = kick_drift,
               scatter = kick_drift, forces = kick_drift;
    app_timing_add(&kick_drift, d->kick_drift);
    app_timing_add(&scan, d->scan);
    app_timing_add(&scan, d->block_sums);
    app_timing_add(&scan, d->block_starts);
    app_timing_add(&scatter, d->scatter);
    app_timing_add(&forces, d->force);
    return (md_phase_ms){.kick_drift = kick_drift.kernel_ms,
                         .scan = scan.kernel_ms,
                         .scatter = scatter.kernel_ms,
                         .forces = forces.kernel_ms};
}

/* Turns the timing of every kernel of a step on or off. */
static void time_steps(md_device *d, int on)
{
    clkernel *all[] = {d->kick_drift, d->scan, d->block_sums,
                       d->block_starts, d->scatter, d->force};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        if (all[i])
            clkernel_set_timing(all[i], on);
}

int md_device_profile(md_device *d, unsigned steps, md_phase_ms *out)
{
    /* The totals before are subtracted: launches outside these steps add
     * to them too under CLFRAME_PROFILE=1, and an earlier profile's. */
    md_phase_ms before = phase_totals(d);
    time_steps(d, 1);
    int rc = md_device_step(d, steps);
    md_phase_ms after = phase_totals(d);
    time_steps(d, 0);
    *out = (md_phase_ms){.kick_drift = after.kick_drift - before.kick_drift,
                         .scan = after.scan - before.scan,
                         .scatter = after.scatter - before.scatter,
                         .forces = after.forces - before.forces};
    return rc;
}

int md_device_finish(md_device *d)
{
    return clctx_finish(d->ctx);
}

int md_device_read(md_device *d, md_system *out, double *pe)
{
    if (out->n != d->n || !out->pos || !out->vel)
        return app_fail(APP_ERR_USAGE, "md_sim_read: room for %u "
                        "particles, the run has %u", out->n, d->n);
    int rc = clarg_read(&d->pos);
    if (rc == 0)
        rc = clarg_read(&d->vel);
    if (rc == 0 && pe)
        rc = clarg_read(&d->pe);
    if (rc)
        return rc;
    out->box = d->box;
    for (size_t i = 0; i < d->n; i++)
        for (int k = 0; k < 3; k++) {
            out->pos[3 * i + k] = d->pos4[i].s[k];
            out->vel[3 * i + k] = d->vel4[i].s[k];
        }
    for (size_t i = 0; pe && i < d->n; i++)
        pe[i] = d->pe_f[i];
    return 0;
}

int md_device_cells(md_device *d, int *nc, int **starts, int **ids)
{
    size_t cells = (size_t)d->ncells;
    int rc = clarg_read(&d->starts);
    if (rc == 0)
        rc = clarg_read(&d->cell_pos);
    if (rc)
        return rc;
    *starts = malloc((cells + 1) * sizeof **starts);
    *ids = malloc(d->n * sizeof **ids);
    if (!*starts || !*ids) {
        free(*starts);
        free(*ids);
        *starts = *ids = NULL;
        return app_fail(APP_ERR_NO_MEMORY, "md: no memory");
    }
    memcpy(*starts, d->starts_i, (cells + 1) * sizeof **starts);
    for (size_t i = 0; i < d->n; i++)
        memcpy(&(*ids)[i], &d->cell_pos4[i].s[3], sizeof(int));
    *nc = d->nc;
    return 0;
}
