/*
 * md_clframe.c: molecular dynamics, apps/md's particle version: N Lennard-Jones
 * particles from the app's FCC start stepped 3 + S times by velocity-Verlet,
 * each step md_kick_drift_bin, the cell list's scan (one work-group's
 * md_cell_scan, or above 16 blocks of cells md_block_sums, md_cell_scan of the
 * sums and md_block_starts), md_cell_scatter and md_force_particle, after the
 * first forces (md_bin, the scan, the scatter, the forces), as apps/md/md_cl.c
 * enqueues them, through clframe: the clframe one of the three host programs
 * per workload, whose lines bench/cuda/effort/count compares. It prints the
 * last S steps' kernel time (every launch timed by the context) and checks,
 * after the first 3, positions within 1e-4 and velocities within 1e-3
 * against the app's host cell list in double (the start, md_system_init, and
 * the check, md_run's cells-host version, are apps/md's helpers, shared by
 * the three programs and not counted). From the repository's root, after
 * make:
 *
 *   cc -std=c11 -O2 -Wall -Wextra -Werror -Iclframe -Iclframe/kernels -Iapps -o bin/effort-md-clframe apps/md/cuda/effort/md_clframe.c build/libmd.a build/libcommon.a build/libclframe.a -lOpenCL -lpng16 -lm -fopenmp && bin/effort-md-clframe 4000 10
 */
#include "clframe.h"
#include "common/error.h"
#include "md/md.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define KERNEL_FILE "apps/md/kernels/md.cl"
/* The work-group sizes md_cl.c builds the file with (its other kernels
 * need them to compile). */
#define KERNEL_OPTIONS                                                       \
    "-DMD_ALLPAIRS_GROUP=64 -DMD_CELL_GROUP=32 -DMD_STAGE=512"
/* md_cl.c's work sizes: a particle's kernels, the one-group scan's most,
 * the cells in a block of the longer scan, which runs above 16 blocks. */
enum { GROUP = 64, SCAN_GROUP_MAX = 1024, SCAN_BLOCK = 256,
       SCAN_MAX_ONE_GROUP_BLOCKS = 16 };
static const double POS_TOL = 1e-4, VEL_TOL = 1e-3;    /* the app's */
/* The steps checked, as bench-md checks them, before the timed ones:
 * further on, float and the host's double drift apart. */
enum { CHECK_STEPS = 3 };

/* The kernels of a step and the state they share on the device. */
typedef struct md_state {
    cl_uint n;
    cl_int nc, ncells, nblocks;
    cl_float box, cells_per_length;
    size_t scan_group;
    clkernel *kick_drift, *bin, *scan, *block_sums, *block_starts, *scatter,
        *force;
    clarg pos, vel, frc, pe, cell_of, counts, starts, cell_pos, sums,
        sums_starts;
} md_state;

/* Stops the program on a clframe failure, which left the reason. */
static void check(int rc)
{
    if (rc) {
        fprintf(stderr, "%s\n", clframe_last_error());
        exit(1);
    }
}

/* One of md.cl's kernels over `items` work-items in groups of `group`. */
static clkernel *build(const char *name, size_t items, size_t group)
{
    clkernel *k = clkernel_file(NULL, KERNEL_FILE, name, KERNEL_OPTIONS);
    check(!k);
    check(clkernel_global(k, clframe_round_up(items, group)));
    check(clkernel_local(k, group));
    return k;
}

static void build_kernels(md_state *r)
{
    r->kick_drift = build("md_kick_drift_bin", r->n, GROUP);
    r->bin = build("md_bin", r->n, GROUP);
    r->block_sums = build("md_block_sums", r->ncells, SCAN_BLOCK);
    r->block_starts = build("md_block_starts", r->ncells, SCAN_BLOCK);
    r->scatter = build("md_cell_scatter", r->n, GROUP);
    r->force = build("md_force_particle", r->n, GROUP);
    /* The scan is one group, as large as the kernel may have (a power of
     * two, at most SCAN_GROUP_MAX). */
    r->scan = build("md_cell_scan", 1, 1);
    size_t most = clkernel_max_group_size(r->scan);
    for (r->scan_group = 1; r->scan_group * 2 <= most &&
                            r->scan_group * 2 <= SCAN_GROUP_MAX;)
        r->scan_group *= 2;
    check(clkernel_global(r->scan, r->scan_group));
    check(clkernel_local(r->scan, r->scan_group));
}

/* An array of `count` elements of `size` bytes kept on the device, its
 * host copy zeros (the counts must start at zero). */
static clarg device_array(const char *type, size_t size, size_t count)
{
    void *host = calloc(count, size);
    if (!host) {
        fprintf(stderr, "no memory for %zu %s\n", count, type);
        exit(1);
    }
    clarg a = clarg_array(type, size, host, count,
                          CLARG_TO_DEVICE | CLARG_FROM_DEVICE);
    check(clarg_keep_on_device(&a, NULL, 1));
    return a;
}

/* x in float, still inside [0, box): rounding may reach box. */
static cl_float inside(double x, cl_float box)
{
    cl_float f = (cl_float)x;
    return f >= box || !(f >= 0.0f) ? 0.0f : f;
}

/* The start in float on the device, everything else zero. */
static void upload(md_state *r, const md_system *s)
{
    cl_float4 *pos = r->pos.host, *vel = r->vel.host;
    for (size_t i = 0; i < r->n; i++) {
        const double *x = &s->pos[3 * i], *v = &s->vel[3 * i];
        pos[i] = (cl_float4){{inside(x[0], r->box), inside(x[1], r->box),
                              inside(x[2], r->box), 0.0f}};
        vel[i] = (cl_float4){{(cl_float)v[0], (cl_float)v[1],
                              (cl_float)v[2], 0.0f}};
    }
    check(clarg_write(&r->pos));
    check(clarg_write(&r->vel));
}

/* Counts are in: the cells' starts, then the particles sorted into
 * cell_pos (which leaves the counts at zero again). */
static void sort_into_cells(md_state *r)
{
    clarg scan_scratch = CLARG_LOCAL(r->scan_group * sizeof(cl_int));
    clarg block_scratch = CLARG_LOCAL(SCAN_BLOCK * sizeof(cl_int));
    if (r->nblocks <= SCAN_MAX_ONE_GROUP_BLOCKS) {
        check(clkernel_enqueue(r->scan, r->counts, r->starts,
                               CLARG(r->ncells), scan_scratch));
    } else {
        check(clkernel_enqueue(r->block_sums, r->counts, CLARG(r->ncells),
                               r->sums, block_scratch));
        check(clkernel_enqueue(r->scan, r->sums, r->sums_starts,
                               CLARG(r->nblocks), scan_scratch));
        check(clkernel_enqueue(r->block_starts, r->counts, CLARG(r->ncells),
                               r->sums_starts, r->starts, block_scratch));
    }
    check(clkernel_enqueue(r->scatter, r->pos, CLARG(r->n), r->cell_of,
                           r->starts, r->counts, r->cell_pos));
}

/* The forces, energies and a kick of the velocities by half_dt f. */
static void forces(md_state *r, cl_float half_dt)
{
    check(clkernel_enqueue(r->force, r->cell_pos, r->cell_of, r->starts,
                           CLARG(r->n), CLARG(r->nc), CLARG(r->box), r->vel,
                           r->frc, r->pe, CLARG(half_dt)));
}

static void step(md_state *r)
{
    cl_float dt = (cl_float)MD_DT;
    check(clkernel_enqueue(r->kick_drift, r->pos, r->vel, r->frc,
                           CLARG(r->n), CLARG(dt), CLARG(r->box),
                           CLARG(r->cells_per_length), CLARG(r->nc),
                           r->cell_of, r->counts));
    sort_into_cells(r);
    forces(r, 0.5f * dt);
}

/* The device's state, read back, within the tolerances of the host's. */
static int agrees(md_state *r, const md_system *want)
{
    check(clarg_read(&r->pos));
    check(clarg_read(&r->vel));
    const cl_float4 *pos = r->pos.host, *vel = r->vel.host;
    for (size_t i = 0; i < r->n; i++)
        for (int k = 0; k < 3; k++)
            if (!(fabs(md_min_image(pos[i].s[k] - want->pos[3 * i + k],
                                    want->box)) <= POS_TOL &&
                  fabs(vel[i].s[k] - want->vel[3 * i + k]) <= VEL_TOL))
                return 0;
    return 1;
}

static void release(md_state *r)
{
    clarg *arrays[] = {&r->pos, &r->vel, &r->frc, &r->pe, &r->cell_of,
                       &r->counts, &r->starts, &r->cell_pos, &r->sums,
                       &r->sums_starts};
    for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++) {
        free(arrays[i]->host);
        clarg_release(arrays[i]);
    }
    clkernel *kernels[] = {r->kick_drift, r->bin, r->scan, r->block_sums,
                           r->block_starts, r->scatter, r->force};
    for (size_t i = 0; i < sizeof kernels / sizeof *kernels; i++)
        clkernel_free(kernels[i]);
}

int main(int argc, char **argv)
{
    uint32_t n = argc > 1 ? (uint32_t)atoi(argv[1]) : 4000;
    int steps = argc > 2 ? atoi(argv[2]) : 10;
    md_system start, truth;
    /* The host's steps first: md_run refuses what the app refuses (fewer
     * than 3 cells a side, too many particles). */
    if (steps < 0 || md_system_init(&start, n, 1) ||
        md_system_copy(&truth, &start) ||
        md_run(&truth, CHECK_STEPS, MD_CELLS_HOST, NULL, NULL, NULL, NULL)) {
        fprintf(stderr, "usage: md_clframe [particles steps] (%s)\n",
                app_last_error());
        return 2;
    }

    md_state r = {.n = n, .box = (cl_float)start.box};
    r.nc = md_cells_per_side(start.box);
    r.ncells = r.nc * r.nc * r.nc;
    r.nblocks = (r.ncells + SCAN_BLOCK - 1) / SCAN_BLOCK;
    r.cells_per_length = (cl_float)(r.nc / start.box);
    build_kernels(&r);
    r.pos = device_array("float4", sizeof(cl_float4), n);
    r.vel = device_array("float4", sizeof(cl_float4), n);
    r.frc = device_array("float4", sizeof(cl_float4), n);
    r.cell_pos = device_array("float4", sizeof(cl_float4), n);
    r.pe = device_array("float", sizeof(cl_float), n);
    r.cell_of = device_array("int", sizeof(cl_int), n);
    r.counts = device_array("int", sizeof(cl_int), r.ncells);
    r.starts = device_array("int", sizeof(cl_int), r.ncells + 1);
    r.sums = device_array("int", sizeof(cl_int), r.nblocks);
    r.sums_starts = device_array("int", sizeof(cl_int), r.nblocks + 1);
    upload(&r, &start);

    /* The first forces, with no kick and not timed. */
    check(clkernel_enqueue(r.bin, r.pos, CLARG(r.n),
                           CLARG(r.cells_per_length), CLARG(r.nc),
                           r.cell_of, r.counts));
    sort_into_cells(&r);
    forces(&r, 0.0f);
    for (int t = 0; t < CHECK_STEPS; t++)
        step(&r);
    int ok = agrees(&r, &truth);
    check(clctx_set_timing(NULL, 1));           /* the steps' kernels */
    for (int t = 0; t < steps; t++)
        step(&r);
    printf("md particle, %u particles, %d steps after %d checked: %.3f "
           "ms, %s\n", n, steps, CHECK_STEPS, clctx_kernel_ms(NULL),
           ok ? "checked" : "WRONG");

    release(&r);
    md_system_free(&start);
    md_system_free(&truth);
    return ok ? 0 : 1;
}
