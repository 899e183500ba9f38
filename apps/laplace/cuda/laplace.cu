/*
 * laplace.cu: the host side of the Laplace twins (laplace.h): the grid in
 * two device buffers and a mask, then the launches apps/laplace's
 * laplace_cl.c makes for the same version, of the same shapes, each timed
 * by a pair of events; the result copied back.
 *
 *   seed    phi and old_phi, an int mask; per iteration laplace_seed_update
 *           (phi from old_phi) then laplace_seed_copy (phi into old_phi);
 *   double  a byte mask, one update kernel per iteration from cur into
 *           next, which then change roles (clarg_swap in the app);
 *   fast    double's buffers, laplace_tiled iterating up to LAPLACE_HALO
 *           times per launch over every row of tiles, then a swap
 *           (app_stencil_run in the app).
 *
 * Both buffers start as phi, so the fixed cells, which no kernel writes,
 * hold their values in either.
 */
#include "laplace.h"
#include "launch_timer.cuh"
#include "laplace_kernels.cuh"

#include <stdlib.h>

/* The per-cell kernels' block: laplace_cl.c's work-group of GROUP_W x
 * group_h, where group_h is GROUP_H on every device that runs work-groups
 * of 256 (an H100 runs 1024). The tiled kernel's block and tile are the
 * .cuh's LAPLACE_TILE_W and the rest: laplace_cl.c's default tile, which
 * the app runs where LAPLACE_TILE is unset and the device has 48 KB of
 * local memory (the benchmark notes where the two differ). */
enum { GROUP_W = 32, GROUP_H = 8 };

typedef struct twin_run {
    float *cur, *next;          /* seed: phi, old_phi */
    void *mask;                 /* int (seed) or unsigned char */
    int *int_mask;              /* the seed's, on the host */
    launch_timer timer;
} twin_run;

/* The blocks of a per-cell kernel that gives each thread `width` x `rows`
 * cells: laplace_cl.c's global size, rounded up to whole work-groups, in
 * blocks. */
static dim3 per_cell_grid(uint32_t nx, uint32_t ny, uint32_t width,
                          uint32_t rows)
{
    uint32_t row_items = (nx + width - 1) / width;
    uint32_t column_items = (ny + rows - 1) / rows;
    return dim3((row_items + GROUP_W - 1) / GROUP_W,
                (column_items + GROUP_H - 1) / GROUP_H);
}

static void swap(twin_run *r)
{
    float *t = r->cur;
    r->cur = r->next;
    r->next = t;
}

static int seed_iterations(twin_run *r, uint32_t nx, uint32_t ny,
                           unsigned iterations)
{
    dim3 grid = per_cell_grid(nx, ny, 1, 1), block(GROUP_W, GROUP_H);
    const int *mask = (const int *)r->mask;
    for (unsigned t = 0; t < iterations; t++) {
        if (launch_timer_start(&r->timer, 0))
            return -1;
        laplace_seed_update<<<grid, block>>>(r->cur, r->next, mask, nx, ny);
        if (launch_timer_stop(&r->timer) || launch_timer_start(&r->timer, 0))
            return -1;
        laplace_seed_copy<<<grid, block>>>(r->cur, r->next, mask, nx, ny);
        if (launch_timer_stop(&r->timer))
            return -1;
    }
    return 0;
}

static int double_iterations(twin_run *r, uint32_t nx, uint32_t ny,
                             unsigned iterations, laplace_cuda_twin twin)
{
    dim3 block(GROUP_W, GROUP_H);
    dim3 grid = twin == LAPLACE_CUDA_DOUBLE_FLOAT4 ? per_cell_grid(nx, ny, 4, 1)
              : twin == LAPLACE_CUDA_DOUBLE_COLUMN
                  ? per_cell_grid(nx, ny, 1, LAPLACE_ROWS)
                  : per_cell_grid(nx, ny, 1, 1);
    const unsigned char *mask = (const unsigned char *)r->mask;
    for (unsigned t = 0; t < iterations; t++) {
        if (launch_timer_start(&r->timer, 0))
            return -1;
        if (twin == LAPLACE_CUDA_DOUBLE_FLOAT4)
            laplace_update4<<<grid, block>>>(r->cur, r->next, mask, nx, ny);
        else if (twin == LAPLACE_CUDA_DOUBLE_COLUMN)
            laplace_update_column<<<grid, block>>>(r->cur, r->next, mask, nx,
                                                   ny);
        else
            laplace_update<<<grid, block>>>(r->cur, r->next, mask, nx, ny);
        if (launch_timer_stop(&r->timer))
            return -1;
        swap(r);
    }
    return 0;
}

/* As app_stencil_run: launches of LAPLACE_HALO iterations, the last of
 * what is left, over every row of tiles (a block per tile's output
 * block, a thread per LAPLACE_VX x LAPLACE_PY cells of its tile). */
static int fast_iterations(twin_run *r, uint32_t nx, uint32_t ny,
                           unsigned iterations)
{
    dim3 grid((nx + LAPLACE_OUT_W - 1) / LAPLACE_OUT_W,
              (ny - 1) / LAPLACE_OUT_H + 1);
    dim3 block(LAPLACE_TILE_GROUP_W, LAPLACE_TILE_GROUP_H);
    const unsigned char *mask = (const unsigned char *)r->mask;
    for (unsigned done = 0; done < iterations;) {
        unsigned now = iterations - done < LAPLACE_HALO ? iterations - done
                                                        : LAPLACE_HALO;
        if (launch_timer_start(&r->timer, 0))
            return -1;
        laplace_tiled<<<grid, block>>>(r->cur, r->next, mask, nx, ny, now);
        if (launch_timer_stop(&r->timer))
            return -1;
        swap(r);
        done += now;
    }
    return 0;
}

/* Puts the grid on the device. */
static int set_up(twin_run *r, const float *phi, const uint8_t *mask,
                  size_t cells, int seed)
{
    size_t bytes = cells * sizeof(float);
    size_t mask_bytes = cells * (seed ? sizeof(int) : 1);
    if (seed) {
        r->int_mask = (int *)malloc(cells * sizeof(int));
        if (!r->int_mask) {
            fprintf(stderr, "laplace_cuda_solve: no memory for the seed's "
                    "mask (%zu cells)\n", cells);
            return -1;
        }
        for (size_t i = 0; i < cells; i++)
            r->int_mask[i] = mask[i];
    }
    CUDA_TRY(cudaMalloc((void **)&r->cur, bytes));
    CUDA_TRY(cudaMalloc((void **)&r->next, bytes));
    CUDA_TRY(cudaMalloc(&r->mask, mask_bytes));
    CUDA_TRY(cudaMemcpy(r->cur, phi, bytes, cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(r->next, phi, bytes, cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(r->mask, seed ? (const void *)r->int_mask : mask,
                        mask_bytes, cudaMemcpyHostToDevice));
    return launch_timer_make(&r->timer, 0);
}

static int run(twin_run *r, float *phi, const uint8_t *mask, uint32_t nx,
               uint32_t ny, unsigned iterations, laplace_cuda_twin twin,
               double *kernel_ms)
{
    size_t cells = (size_t)nx * ny;
    int rc = set_up(r, phi, mask, cells, twin == LAPLACE_CUDA_SEED);
    if (rc == 0)
        rc = twin == LAPLACE_CUDA_SEED ? seed_iterations(r, nx, ny, iterations)
           : twin == LAPLACE_CUDA_FAST ? fast_iterations(r, nx, ny, iterations)
           : double_iterations(r, nx, ny, iterations, twin);
    if (rc == 0)
        rc = launch_timer_read(&r->timer);
    if (rc)
        return rc;
    *kernel_ms = r->timer.ms[0];
    /* The seed's result is in both buffers, the others' in cur. */
    CUDA_TRY(cudaMemcpy(phi, r->cur, cells * sizeof(float),
                        cudaMemcpyDeviceToHost));
    return 0;
}

void laplace_cuda_tile(char *name, size_t size)
{
    snprintf(name, size, "%ux%ux%ux%ux%ux%u", LAPLACE_TILE_W, LAPLACE_TILE_H,
             LAPLACE_HALO, LAPLACE_VX, LAPLACE_PY, LAPLACE_TILE_COPIES);
}

int laplace_cuda_solve(float *phi, const uint8_t *mask, uint32_t nx,
                       uint32_t ny, unsigned iterations,
                       laplace_cuda_twin twin, double *kernel_ms)
{
    /* laplace.h's LAPLACE_MAX_SIDE: every index fits the kernels' 32-bit
     * unsigned arithmetic (65536 x 65536 - 1 at most), and every grid
     * dimension CUDA's limits. */
    if (nx < 3 || ny < 3 || nx > 65536 || ny > 65536 ||
        twin < LAPLACE_CUDA_SEED || twin > LAPLACE_CUDA_FAST) {
        fprintf(stderr, "laplace_cuda_solve: a %u x %u grid or twin %d is "
                "out of range\n", nx, ny, (int)twin);
        return -1;
    }
    twin_run r = {};
    *kernel_ms = 0;
    int rc = run(&r, phi, mask, nx, ny, iterations, twin, kernel_ms);
    launch_timer_free(&r.timer);
    cudaFree(r.cur);
    cudaFree(r.next);
    cudaFree(r.mask);
    free(r.int_mask);
    return rc;
}
