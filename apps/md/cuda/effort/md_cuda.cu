/*
 * md_cuda.cu: molecular dynamics, apps/md's particle version: N Lennard-Jones
 * particles from the app's FCC start stepped 3 + S times by velocity-Verlet,
 * each step the CUDA twins of md_kick_drift_bin, the cell list's scan (one
 * block's md_cell_scan, or above 16 blocks of cells md_block_sums, md_cell_scan
 * of the sums and md_block_starts), md_cell_scatter and md_force_particle,
 * after the first forces (md_bin, the scan, the scatter, the forces), launched
 * as apps/md/cuda/md.cu launches them, through the CUDA runtime API: the CUDA one
 * of the three host programs per workload, whose lines
 * bench/cuda/effort/count compares. It prints the last S steps' kernel time
 * (a pair of events around their loop) and checks, after the first 3,
 * positions within 1e-4 and velocities within 1e-3 against the app's host
 * cell list in double (the start, md_system_init, and the check, md_run's
 * cells-host version, are apps/md's helpers, shared by the three programs
 * and not counted; their library holds the app's OpenCL versions too, hence
 * clframe and OpenCL on the link line). -prec-div=false for OpenCL's
 * division, as md.cu is built. From the repository's root, after make:
 *
 *   nvcc -O3 -arch=sm_90 -prec-div=false -Iapps -Iclframe/kernels -o bin/effort-md-cuda apps/md/cuda/effort/md_cuda.cu build/libmd.a build/libcommon.a build/libclframe.a -lOpenCL -lpng16 -lm -lgomp && bin/effort-md-cuda 4000 10
 */
/* The twins' device helpers have the names of the host's in md.h's model
 * (apps/md/kernels/md_force.h), which defines the two macros too. */
namespace twin {
#include "../md_kernels.cuh"
}
#undef MD_CUTOFF
#undef MD_ENERGY_SHIFT
extern "C" {
#include "common/error.h"
#include "md/md.h"
}

#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* md_cl.c's work sizes: a particle's kernels, the one-block scan's most,
 * the cells in a block of the longer scan, which runs above 16 blocks. */
enum { GROUP = 64, SCAN_GROUP_MAX = 1024, SCAN_BLOCK = 256,
       SCAN_MAX_ONE_GROUP_BLOCKS = 16 };
static const double POS_TOL = 1e-4, VEL_TOL = 1e-3;    /* the app's */
/* The steps checked, as bench-md checks them, before the timed ones:
 * further on, float and the host's double drift apart. */
enum { CHECK_STEPS = 3 };

#define CHECK(call)                                                          \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) {                                           \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,    \
                    cudaGetErrorString(err_));                               \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

/* The sizes of a run and the state its kernels share on the device. */
struct md_state {
    unsigned n, blocks;         /* blocks: ceil(n / GROUP) */
    int nc, ncells, nblocks, scan_group;
    float box, cells_per_length;
    float4 *pos, *vel, *force, *cell_pos;
    float *pe;
    int *cell_of, *counts, *starts, *sums, *sums_starts;
};

/* A device array of count T, filled with zeros (the counts must start at
 * zero). */
template <typename T> static T *zeros(size_t count)
{
    T *p;
    CHECK(cudaMalloc(&p, count * sizeof(T)));
    CHECK(cudaMemset(p, 0, count * sizeof(T)));
    return p;
}

/* x in float, still inside [0, box): rounding may reach box. */
static float inside(double x, float box)
{
    float f = (float)x;
    return f >= box || !(f >= 0.0f) ? 0.0f : f;
}

/* The start in float on the device, through host in turn. */
static void upload(md_state *r, const md_system *s, float4 *host)
{
    size_t bytes = r->n * sizeof *host;
    for (size_t i = 0; i < r->n; i++)
        host[i] = make_float4(inside(s->pos[3 * i], r->box),
                              inside(s->pos[3 * i + 1], r->box),
                              inside(s->pos[3 * i + 2], r->box), 0.0f);
    CHECK(cudaMemcpy(r->pos, host, bytes, cudaMemcpyHostToDevice));
    for (size_t i = 0; i < r->n; i++)
        host[i] = make_float4((float)s->vel[3 * i], (float)s->vel[3 * i + 1],
                              (float)s->vel[3 * i + 2], 0.0f);
    CHECK(cudaMemcpy(r->vel, host, bytes, cudaMemcpyHostToDevice));
}

/* Counts are in: the cells' starts (the scans' scratch is dynamic shared
 * memory), then the particles sorted into cell_pos (which leaves the
 * counts at zero again). */
static void sort_into_cells(md_state *r)
{
    size_t scan_bytes = r->scan_group * sizeof(int);
    size_t block_bytes = SCAN_BLOCK * sizeof(int);
    if (r->nblocks <= SCAN_MAX_ONE_GROUP_BLOCKS) {
        twin::md_cell_scan<<<1, r->scan_group, scan_bytes>>>(
            r->counts, r->starts, r->ncells);
        CHECK(cudaGetLastError());
    } else {
        twin::md_block_sums<<<r->nblocks, SCAN_BLOCK, block_bytes>>>(
            r->counts, r->ncells, r->sums);
        CHECK(cudaGetLastError());
        twin::md_cell_scan<<<1, r->scan_group, scan_bytes>>>(
            r->sums, r->sums_starts, r->nblocks);
        CHECK(cudaGetLastError());
        twin::md_block_starts<<<r->nblocks, SCAN_BLOCK, block_bytes>>>(
            r->counts, r->ncells, r->sums_starts, r->starts);
        CHECK(cudaGetLastError());
    }
    twin::md_cell_scatter<<<r->blocks, GROUP>>>(
        r->pos, r->n, r->cell_of, r->starts, r->counts, r->cell_pos);
    CHECK(cudaGetLastError());
}

/* The forces, energies and a kick of the velocities by half_dt f. */
static void forces(md_state *r, float half_dt)
{
    twin::md_force_particle<<<r->blocks, GROUP>>>(
        r->cell_pos, r->cell_of, r->starts, r->n, r->nc, r->box, r->vel,
        r->force, r->pe, half_dt);
    CHECK(cudaGetLastError());
}

/* The first forces, with no kick. */
static void first_forces(md_state *r)
{
    twin::md_bin<<<r->blocks, GROUP>>>(r->pos, r->n, r->cells_per_length,
                                       r->nc, r->cell_of, r->counts);
    CHECK(cudaGetLastError());
    sort_into_cells(r);
    forces(r, 0.0f);
}

static void step(md_state *r)
{
    float dt = (float)MD_DT;
    twin::md_kick_drift_bin<<<r->blocks, GROUP>>>(
        r->pos, r->vel, r->force, r->n, dt, r->box, r->cells_per_length,
        r->nc, r->cell_of, r->counts);
    CHECK(cudaGetLastError());
    sort_into_cells(r);
    forces(r, 0.5f * dt);
}

/* The device's state, read back through host, within the tolerances of
 * the host's. */
static int agrees(md_state *r, const md_system *want, float4 *host)
{
    const float4 *arrays[2] = {r->pos, r->vel};
    const double *wanted[2] = {want->pos, want->vel};
    const double tolerance[2] = {POS_TOL, VEL_TOL};
    for (int a = 0; a < 2; a++) {
        CHECK(cudaMemcpy(host, arrays[a], r->n * sizeof *host,
                         cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < r->n; i++) {
            const float got[3] = {host[i].x, host[i].y, host[i].z};
            for (int k = 0; k < 3; k++) {
                double d = got[k] - wanted[a][3 * i + k];
                if (a == 0)     /* a particle may wrap on one side only */
                    d = md_min_image(d, want->box);
                if (!(fabs(d) <= tolerance[a]))
                    return 0;
            }
        }
    }
    return 1;
}

static void release(md_state *r)
{
    void *buffers[] = {r->pos, r->vel, r->force, r->cell_pos, r->pe,
                       r->cell_of, r->counts, r->starts, r->sums,
                       r->sums_starts};
    for (size_t i = 0; i < sizeof buffers / sizeof *buffers; i++)
        CHECK(cudaFree(buffers[i]));
}

int main(int argc, char **argv)
{
    unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 4000;
    int steps = argc > 2 ? atoi(argv[2]) : 10;
    md_system start, truth;
    /* The host's steps first: md_run refuses what the app refuses (fewer
     * than 3 cells a side, too many particles). */
    if (steps < 0 || md_system_init(&start, n, 1) ||
        md_system_copy(&truth, &start) ||
        md_run(&truth, CHECK_STEPS, MD_CELLS_HOST, NULL, NULL, NULL, NULL)) {
        fprintf(stderr, "usage: md_cuda [particles steps] (%s)\n",
                app_last_error());
        return 2;
    }
    float4 *host = (float4 *)malloc(n * sizeof *host);
    if (!host) {
        fprintf(stderr, "no memory for %u particles\n", n);
        return 1;
    }

    md_state r = {};
    r.n = n;
    r.blocks = (n + GROUP - 1) / GROUP;
    r.box = (float)start.box;
    r.nc = md_cells_per_side(start.box);
    r.ncells = r.nc * r.nc * r.nc;
    r.nblocks = (r.ncells + SCAN_BLOCK - 1) / SCAN_BLOCK;
    r.cells_per_length = (float)(r.nc / start.box);
    /* The scan is one block, as large as the kernel may have (a power of
     * two, at most SCAN_GROUP_MAX). */
    cudaFuncAttributes scan;
    CHECK(cudaFuncGetAttributes(&scan, twin::md_cell_scan));
    for (r.scan_group = 1; r.scan_group * 2 <= scan.maxThreadsPerBlock &&
                           r.scan_group * 2 <= SCAN_GROUP_MAX;)
        r.scan_group *= 2;
    r.pos = zeros<float4>(n);
    r.vel = zeros<float4>(n);
    r.force = zeros<float4>(n);
    r.cell_pos = zeros<float4>(n);
    r.pe = zeros<float>(n);
    r.cell_of = zeros<int>(n);
    r.counts = zeros<int>(r.ncells);
    r.starts = zeros<int>(r.ncells + 1);
    r.sums = zeros<int>(r.nblocks);
    r.sums_starts = zeros<int>(r.nblocks + 1);
    upload(&r, &start, host);

    first_forces(&r);
    for (int t = 0; t < CHECK_STEPS; t++)
        step(&r);
    int ok = agrees(&r, &truth, host);
    cudaEvent_t begin, end;
    CHECK(cudaEventCreate(&begin));
    CHECK(cudaEventCreate(&end));
    CHECK(cudaEventRecord(begin));
    for (int t = 0; t < steps; t++)
        step(&r);
    CHECK(cudaEventRecord(end));
    CHECK(cudaEventSynchronize(end));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, begin, end));
    printf("md particle, %u particles, %d steps after %d checked: %.3f "
           "ms, %s\n", n, steps, CHECK_STEPS, ms,
           ok ? "checked" : "WRONG");

    CHECK(cudaEventDestroy(begin));
    CHECK(cudaEventDestroy(end));
    release(&r);
    free(host);
    md_system_free(&start);
    md_system_free(&truth);
    return ok ? 0 : 1;
}
