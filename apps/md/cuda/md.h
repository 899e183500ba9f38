/*
 * md.h (bench/cuda): the CUDA twins of apps/md's two cell-list device
 * versions, particle and cell (md_kernels.cuh), as C sees them: a run is
 * opened from a start, stepped (each step's kernels timed by CUDA events
 * when asked), read back and closed, like the app's md_sim. Every entry
 * point returns 0, or -1 after printing what failed to stderr.
 */
#ifndef BENCH_CUDA_MD_H
#define BENCH_CUDA_MD_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The twin of apps/md's particle version (a thread per particle over the
 * 27 cells around its own) and of its cell version (a block of 32 threads
 * per cell, the 27 cells staged in shared memory). */
typedef enum md_cuda_twin { MD_CUDA_PARTICLE, MD_CUDA_CELL } md_cuda_twin;

/* Where a step's kernel time goes, in ms, as apps/md's md_phase_ms: the
 * kick-drift (with the binning), the scan (one launch or three), the
 * scatter and the forces (with the second half-kick). */
typedef struct md_cuda_phase_ms {
    double kick_drift, scan, scatter, forces;
} md_cuda_phase_ms;

/* A run of one twin; its state stays on the device. */
typedef struct md_cuda md_cuda;


/* Opens a run of twin from a start of n particles in a box of side box,
 * the positions already wrapped into [0, box), x, y, z of each in turn
 * (3n doubles each), with nc cells a side (apps/md's md_cells_per_side,
 * 3 or more): the state in float on the device and the first forces, as
 * apps/md/md_cl.c does. */
int md_cuda_open(md_cuda **run, md_cuda_twin twin, unsigned n, double box,
                 int nc, const double *pos, const double *vel);
void md_cuda_close(md_cuda *run);

/* steps velocity-Verlet steps, launched without waiting. With time non-
 * NULL, every kernel is timed by a pair of events around it, and *time
 * gets their sums (waiting for the steps to end); NULL times nothing. */
int md_cuda_step(md_cuda *run, unsigned steps, md_cuda_phase_ms *time);

/* The state (3n doubles each) and each particle's potential energy (n
 * doubles; NULL: not read), after waiting for the steps. */
int md_cuda_read(md_cuda *run, double *pos, double *vel, double *pe);

#ifdef __cplusplus
}
#endif

#endif
