/*
 * md.cu: the host side of the molecular-dynamics twins (md.h): the state
 * on the device, the first forces, and each step's launches, as
 * apps/md/md_cl.c makes and enqueues them for its particle and cell
 * versions: the same kernels (md_kernels.cuh) in the same order with the
 * same block sizes, grids and arguments, all launched on one stream
 * without waiting; timed launches summed per phase (launch_timer.cuh).
 */
#include "md.h"
#include "launch_timer.cuh"
#include "md_kernels.cuh"

#include <stdlib.h>

/* apps/md/md_cl.c's work sizes on a GPU: 64 threads per particle kernel
 * (PARTICLE_GROUP), MD_CELL_GROUP (32) per cell; the one-block scan as
 * large as the kernel may have, up to 1024 (SCAN_GROUP_MAX); blocks of
 * 256 cells (SCAN_BLOCK) in the longer scan, which runs above 16 blocks
 * (SCAN_MAX_ONE_GROUP_BLOCKS, 4096 cells). */
enum { PARTICLE_GROUP = 64, SCAN_GROUP_MAX = 1024, SCAN_BLOCK = 256,
       SCAN_MAX_ONE_GROUP_BLOCKS = 16 };

/* The phases a step's time is told in: the launch timer's buckets. */
typedef enum phase { KICK_DRIFT, SCAN, SCATTER, FORCES } phase;

struct md_cuda {
    md_cuda_twin twin;
    unsigned n;
    float box, cells_per_length;
    int nc, ncells, nblocks, scan_group;
    unsigned particle_blocks;           /* ceil(n / PARTICLE_GROUP) */
    cudaStream_t stream;
    float4 *pos, *vel, *force, *cell_pos;
    float *pe;
    int *cell_of, *counts, *starts, *sums, *sums_starts;
    float4 *host4;                      /* n float4: uploads, reads */
    float *host_pe;
    int timing;                         /* md_cuda_step asked for times */
    launch_timer timer;
};

/* ---- timing ------------------------------------------------------------- */

/* Before a launch of phase p: its timer's start, when timing. */
static int launch_begins(md_cuda *r, phase p)
{
    return r->timing ? launch_timer_start(&r->timer, p) : 0;
}

/* After a launch: whether it was made, and its timer's stop. */
static int launch_ends(md_cuda *r, const char *kernel)
{
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
        fprintf(stderr, "md.cu: launching %s: %s\n", kernel,
                cudaGetErrorString(err));
        return -1;
    }
    return r->timing ? launch_timer_stop(&r->timer) : 0;
}

/* Launches KERNEL<<<GRID, BLOCK, SHARED>>>(...) on the run's stream as a
 * launch of phase PHASE; returns -1 from the function if it fails. */
#define LAUNCH(r, PHASE, KERNEL, GRID, BLOCK, SHARED, ...)                  \
    do {                                                                     \
        if (launch_begins((r), (PHASE)))                                     \
            return -1;                                                       \
        KERNEL<<<(GRID), (BLOCK), (SHARED), (r)->stream>>>(__VA_ARGS__);     \
        if (launch_ends((r), #KERNEL))                                       \
            return -1;                                                       \
    } while (0)

/* ---- a step, as md_cl.c enqueues it ------------------------------------- */

/* The cells' starts from their counts: one block's scan, or by blocks. */
static int scan_counts(md_cuda *r)
{
    size_t scan_shared = (size_t)r->scan_group * sizeof(int);
    size_t block_shared = (size_t)SCAN_BLOCK * sizeof(int);
    if (r->nblocks <= SCAN_MAX_ONE_GROUP_BLOCKS) {
        LAUNCH(r, SCAN, md_cell_scan, 1, r->scan_group, scan_shared,
               r->counts, r->starts, r->ncells);
        return 0;
    }
    LAUNCH(r, SCAN, md_block_sums, r->nblocks, SCAN_BLOCK, block_shared,
           r->counts, r->ncells, r->sums);
    LAUNCH(r, SCAN, md_cell_scan, 1, r->scan_group, scan_shared, r->sums,
           r->sums_starts, r->nblocks);
    LAUNCH(r, SCAN, md_block_starts, r->nblocks, SCAN_BLOCK, block_shared,
           r->counts, r->ncells, r->sums_starts, r->starts);
    return 0;
}

/* Counts are in: the starts, then the particles sorted into cell_pos. */
static int sort_into_cells(md_cuda *r)
{
    if (scan_counts(r))
        return -1;
    LAUNCH(r, SCATTER, md_cell_scatter, r->particle_blocks, PARTICLE_GROUP,
           0, r->pos, r->n, r->cell_of, r->starts, r->counts, r->cell_pos);
    return 0;
}

/* The forces, energies and a kick of v by half_dt f. */
static int forces(md_cuda *r, float half_dt)
{
    if (r->twin == MD_CUDA_PARTICLE)
        LAUNCH(r, FORCES, md_force_particle, r->particle_blocks,
               PARTICLE_GROUP, 0, r->cell_pos, r->cell_of, r->starts, r->n,
               r->nc, r->box, r->vel, r->force, r->pe, half_dt);
    else
        LAUNCH(r, FORCES, md_force_cell, r->ncells, MD_CELL_GROUP, 0,
               r->cell_pos, r->starts, r->nc, r->box, r->vel, r->force,
               r->pe, half_dt);
    return 0;
}

/* The first forces, with no kick (never timed). */
static int first_forces(md_cuda *r)
{
    LAUNCH(r, KICK_DRIFT, md_bin, r->particle_blocks, PARTICLE_GROUP, 0,
           r->pos, r->n, r->cells_per_length, r->nc, r->cell_of, r->counts);
    if (sort_into_cells(r))
        return -1;
    return forces(r, 0.0f);
}

static int step(md_cuda *r)
{
    float dt = 0.005f;                  /* (cl_float)MD_DT */
    LAUNCH(r, KICK_DRIFT, md_kick_drift_bin, r->particle_blocks,
           PARTICLE_GROUP, 0, r->pos, r->vel, r->force, r->n, dt, r->box,
           r->cells_per_length, r->nc, r->cell_of, r->counts);
    if (sort_into_cells(r))
        return -1;
    return forces(r, 0.5f * dt);
}

int md_cuda_step(md_cuda *r, unsigned steps, md_cuda_phase_ms *time)
{
    r->timing = time != NULL;
    int rc = launch_timer_reset(&r->timer);
    for (unsigned t = 0; t < steps && rc == 0; t++)
        rc = step(r);
    if (rc == 0 && r->timing)
        rc = launch_timer_read(&r->timer);
    r->timing = 0;
    if (rc == 0 && time)
        *time = (md_cuda_phase_ms){r->timer.ms[KICK_DRIFT],
                                   r->timer.ms[SCAN], r->timer.ms[SCATTER],
                                   r->timer.ms[FORCES]};
    return rc;
}

/* ---- opening, reading, closing ------------------------------------------ */

/* The largest power of two up to limit (md_cl.c's power_of_two_below). */
static int power_of_two_below(int limit)
{
    int p = 1;
    while (p * 2 <= limit)
        p *= 2;
    return p;
}

/* Whether kernel may run blocks of `block` threads on this device, as
 * md_cl.c's build() asks of each kernel. */
static int check_block(const void *kernel, const char *name, int block,
                       int *most)
{
    cudaFuncAttributes a;
    CUDA_TRY(cudaFuncGetAttributes(&a, kernel));
    if (most)
        *most = a.maxThreadsPerBlock;
    if (a.maxThreadsPerBlock < block) {
        fprintf(stderr, "md.cu: %s runs blocks of at most %d threads; it "
                "needs %d\n", name, a.maxThreadsPerBlock, block);
        return -1;
    }
    return 0;
}

/* The work sizes: the scan's block from the kernel's limit, as md_cl.c's
 * build_scan does; every kernel checked against its block. */
static int plan(md_cuda *r)
{
    int most = 0;
    if (check_block((const void *)md_cell_scan, "md_cell_scan", 1, &most))
        return -1;
    r->scan_group = power_of_two_below(most < SCAN_GROUP_MAX ? most
                                                             : SCAN_GROUP_MAX);
    if (check_block((const void *)md_kick_drift_bin, "md_kick_drift_bin",
                    PARTICLE_GROUP, NULL) ||
        check_block((const void *)md_bin, "md_bin", PARTICLE_GROUP, NULL) ||
        check_block((const void *)md_cell_scatter, "md_cell_scatter",
                    PARTICLE_GROUP, NULL) ||
        check_block((const void *)md_block_sums, "md_block_sums",
                    SCAN_BLOCK, NULL) ||
        check_block((const void *)md_block_starts, "md_block_starts",
                    SCAN_BLOCK, NULL))
        return -1;
    if (r->twin == MD_CUDA_PARTICLE)
        return check_block((const void *)md_force_particle,
                           "md_force_particle", PARTICLE_GROUP, NULL);
    return check_block((const void *)md_force_cell, "md_force_cell",
                       MD_CELL_GROUP, NULL);
}

static int alloc_buffers(md_cuda *r)
{
    size_t n = r->n, cells = (size_t)r->ncells, blocks = (size_t)r->nblocks;
    CUDA_TRY(cudaStreamCreateWithFlags(&r->stream, cudaStreamNonBlocking));
    CUDA_TRY(cudaMalloc(&r->pos, n * sizeof(float4)));
    CUDA_TRY(cudaMalloc(&r->vel, n * sizeof(float4)));
    CUDA_TRY(cudaMalloc(&r->force, n * sizeof(float4)));
    CUDA_TRY(cudaMalloc(&r->cell_pos, n * sizeof(float4)));
    CUDA_TRY(cudaMalloc(&r->pe, n * sizeof(float)));
    CUDA_TRY(cudaMalloc(&r->cell_of, n * sizeof(int)));
    CUDA_TRY(cudaMalloc(&r->counts, cells * sizeof(int)));
    CUDA_TRY(cudaMalloc(&r->starts, (cells + 1) * sizeof(int)));
    CUDA_TRY(cudaMalloc(&r->sums, blocks * sizeof(int)));
    CUDA_TRY(cudaMalloc(&r->sums_starts, (blocks + 1) * sizeof(int)));
    if (launch_timer_make(&r->timer, r->stream))
        return -1;
    r->host4 = (float4 *)malloc(n * sizeof(float4));
    r->host_pe = (float *)malloc(n * sizeof(float));
    if (!r->host4 || !r->host_pe) {
        fprintf(stderr, "md.cu: no memory for %u particles\n", r->n);
        return -1;
    }
    return 0;
}

/* x in float, still inside [0, box): rounding may reach box (md_cl.c's
 * inside()). */
static float inside(double x, float box)
{
    float f = (float)x;
    return f >= box || !(f >= 0.0f) ? 0.0f : f;
}

/* The start in float on the device; forces and counts at zero. Every
 * copy and fill goes on the run's stream (a non-blocking one: plain
 * cudaMemcpy and cudaMemset would not be ordered with its kernels), the
 * staging buffer reused only once its copy is done. */
static int upload(md_cuda *r, const double *pos, const double *vel)
{
    size_t n = r->n, bytes = n * sizeof(float4);
    for (size_t i = 0; i < n; i++)
        r->host4[i] = make_float4(inside(pos[3 * i], r->box),
                                  inside(pos[3 * i + 1], r->box),
                                  inside(pos[3 * i + 2], r->box), 0.0f);
    CUDA_TRY(cudaMemcpyAsync(r->pos, r->host4, bytes,
                             cudaMemcpyHostToDevice, r->stream));
    CUDA_TRY(cudaStreamSynchronize(r->stream));
    for (size_t i = 0; i < n; i++)
        r->host4[i] = make_float4((float)vel[3 * i], (float)vel[3 * i + 1],
                                  (float)vel[3 * i + 2], 0.0f);
    CUDA_TRY(cudaMemcpyAsync(r->vel, r->host4, bytes,
                             cudaMemcpyHostToDevice, r->stream));
    CUDA_TRY(cudaMemsetAsync(r->force, 0, bytes, r->stream));
    CUDA_TRY(cudaMemsetAsync(r->pe, 0, n * sizeof(float), r->stream));
    CUDA_TRY(cudaMemsetAsync(r->counts, 0, (size_t)r->ncells * sizeof(int),
                             r->stream));
    CUDA_TRY(cudaStreamSynchronize(r->stream));
    return 0;
}

static int open_run(md_cuda *r, const double *pos, const double *vel)
{
    if (r->n == 0 || r->nc < 3 || r->nc > 1024 || !(r->box > 0.0f)) {
        fprintf(stderr, "md.cu: %u particles in a box of %d cells a side: "
                "the twins need 1 particle and 3 cells a side at least\n",
                r->n, r->nc);
        return -1;
    }
    if (plan(r) || alloc_buffers(r) || upload(r, pos, vel) ||
        first_forces(r))
        return -1;
    CUDA_TRY(cudaStreamSynchronize(r->stream));
    return 0;
}

int md_cuda_open(md_cuda **run, md_cuda_twin twin, unsigned n, double box,
                 int nc, const double *pos, const double *vel)
{
    md_cuda *r = (md_cuda *)calloc(1, sizeof *r);
    *run = r;
    if (!r) {
        fprintf(stderr, "md.cu: no memory\n");
        return -1;
    }
    r->twin = twin;
    r->n = n;
    r->box = (float)box;
    r->nc = nc;
    r->ncells = nc * nc * nc;
    r->cells_per_length = (float)(nc / box);
    r->nblocks = (r->ncells + SCAN_BLOCK - 1) / SCAN_BLOCK;
    r->particle_blocks = (unsigned)(((size_t)n + PARTICLE_GROUP - 1) /
                                    PARTICLE_GROUP);
    return open_run(r, pos, vel);
}

/* The device array src (bytes of it) into the host's staging buffer, on the
 * run's stream, after the steps before it. */
static int fetch(md_cuda *r, const void *src, size_t bytes)
{
    CUDA_TRY(cudaMemcpyAsync(r->host4, src, bytes, cudaMemcpyDeviceToHost,
                             r->stream));
    CUDA_TRY(cudaStreamSynchronize(r->stream));
    return 0;
}

int md_cuda_read(md_cuda *r, double *pos, double *vel, double *pe)
{
    size_t n = r->n, bytes = n * sizeof(float4);
    if (fetch(r, r->pos, bytes))
        return -1;
    for (size_t i = 0; i < n; i++) {
        pos[3 * i] = r->host4[i].x;
        pos[3 * i + 1] = r->host4[i].y;
        pos[3 * i + 2] = r->host4[i].z;
    }
    if (fetch(r, r->vel, bytes))
        return -1;
    for (size_t i = 0; i < n; i++) {
        vel[3 * i] = r->host4[i].x;
        vel[3 * i + 1] = r->host4[i].y;
        vel[3 * i + 2] = r->host4[i].z;
    }
    if (pe) {
        CUDA_TRY(cudaMemcpyAsync(r->host_pe, r->pe, n * sizeof(float),
                                 cudaMemcpyDeviceToHost, r->stream));
        CUDA_TRY(cudaStreamSynchronize(r->stream));
        for (size_t i = 0; i < n; i++)
            pe[i] = r->host_pe[i];
    }
    return 0;
}

void md_cuda_close(md_cuda *r)
{
    if (!r)
        return;
    if (r->stream)
        cudaStreamSynchronize(r->stream);
    void *buffers[] = {r->pos, r->vel, r->force, r->cell_pos, r->pe,
                       r->cell_of, r->counts, r->starts, r->sums,
                       r->sums_starts};
    for (size_t k = 0; k < sizeof buffers / sizeof *buffers; k++)
        cudaFree(buffers[k]);
    launch_timer_free(&r->timer);
    if (r->stream)
        cudaStreamDestroy(r->stream);
    free(r->host4);
    free(r->host_pe);
    free(r);
}
