/*
 * md.h: molecular dynamics of Lennard-Jones particles in a periodic cube
 * (apps/md/SPEC.md): the system (an FCC start at the
 * standard liquid state point; md_system.c), the versions that step it
 * with velocity-Verlet (a host all-pairs reference in double and a host
 * cell list, md_ref.c; all pairs, one work-item per particle over a cell
 * list, and one work-group per cell on the device, md_cl.c), runs of a
 * version through one interface (md.c), and the benchmark's plot
 * (md_plot.c). The model is apps/md/kernels/md_force.h, shared with the
 * device. Functions return 0 or a negative code with a message in
 * app_last_error().
 */
#ifndef APPS_MD_H
#define APPS_MD_H

#include "md/kernels/md_force.h"
#include "common/versions.h"

#include <stdint.h>

/* clframe's context (clframe.h), which the OpenCL versions run on. */
typedef struct clctx clctx;

/* Up to 2^24 particles: a particle's index rides in a float4's w as int
 * bits, and 16 M particles take about 1.5 GB of device memory. */
#define MD_MAX_PARTICLES (1u << 24)

/* n particles in a cube of side box, positions in [0, box) and
 * velocities, x, y, z of each in turn (3n doubles each). */
typedef struct md_system {
    uint32_t n;
    double box;
    double *pos;
    double *vel;
} md_system;

/* n particles at rest at the origin, in a box of the given side. */
int md_system_alloc(md_system *s, uint32_t n, double box);
void md_system_free(md_system *s);
int md_system_copy(md_system *dst, const md_system *src);

/* The standard start: box side (n / MD_DENSITY)^(1/3); the m^3 cells of
 * an FCC lattice, m the smallest with 4 m^3 >= n, hold 4 m^3 sites, of
 * which n spread evenly over the lattice are taken (site floor(k 4m^3 /
 * n) for particle k: any n works and vacancies are spread out);
 * velocities uniform in [-1/2, 1/2) per component from a generator
 * seeded by seed (splitmix64, the same on every machine), the total
 * momentum removed, scaled to MD_TEMPERATURE (2 KE = 3 (n - 1) T). */
int md_system_init(md_system *s, uint32_t n, uint64_t seed);

/* Kinetic and potential energy; their sum is conserved. */
typedef struct md_energy {
    double kinetic, potential;
} md_energy;

static inline double md_energy_total(const md_energy *e)
{
    return e->kinetic + e->potential;
}

/* The total momentum (m = 1) of s, in p[3]; and 2 KE / (3 (n - 1)). */
void md_momentum(const md_system *s, double p[3]);
double md_temperature(const md_system *s);

typedef enum md_version {
    MD_REFERENCE = 0,   /* host, all pairs (Newton's third law), double */
    MD_CELLS_HOST,      /* host, cell list, OpenMP over particles, double */
    MD_ALLPAIRS,        /* device, one work-item per particle, all pairs */
    MD_PARTICLE,        /* device, one work-item per particle, cell list */
    MD_CELL,            /* device, one work-group per cell, local memory */
    MD_VERSION_COUNT
} md_version;

/* Their names, "reference", "cells-host", "allpairs", "particle" and
 * "cell", and which run on a device (common/versions.h); particle is the
 * default. */
extern const app_versions md_versions;
/* 1 for the versions that keep a cell list. */
int md_version_uses_cells(md_version v);

/* Cells per side of a box: floor(box / (r0 MD_CELL_MARGIN)). */
int md_cells_per_side(double box);
/* The fewest particles version v runs at MD_DENSITY: the minimum image
 * needs box >= 2 r0 (106 particles); a cell list needs 3 cells a side, so
 * that the 27 around a cell are distinct (357). */
uint32_t md_min_particles(md_version v);

/* The most particles version v runs: MD_MAX_PARTICLES, except the
 * reference, whose all-pairs loop is O(N^2): at 2^17 particles a step is
 * 8.6e9 pairs, already a long wait on a small CPU, and each doubling of N
 * makes it four times longer (bench/RESULTS.md, Molecular dynamics, has
 * the reference's time a step). The cell lists (cells-host, particle,
 * cell) cost in proportion to N. */
#define MD_REFERENCE_MAX_PARTICLES (1u << 17)
uint32_t md_max_particles(md_version v);

/* A run of one version: built once (kernels compiled, the state on the
 * device), then stepped, read, measured as often as wanted. */
typedef struct md_sim md_sim;

/* Opens a run of version v from start (copied), on ctx for the device
 * versions (NULL: clframe's default), and computes the first forces.
 * Refuses a box under 2 r0, or under 3 cells a side for the cell lists. */
int md_sim_open(md_sim **sim, const md_system *start, md_version v,
                clctx *ctx);
void md_sim_close(md_sim *sim);

/* steps velocity-Verlet steps; on the device they are only enqueued
 * (md_sim_finish waits; the reads below wait too). */
int md_sim_step(md_sim *sim, unsigned steps);
int md_sim_finish(md_sim *sim);

/* The current state into out (allocated by the caller for as many
 * particles: md_system_copy of the start will do). */
int md_sim_read(md_sim *sim, md_system *out);
int md_sim_energy(md_sim *sim, md_energy *e);

/* The device's cell list as the last step built it (cell versions only):
 * nc cells a side, starts[nc^3 + 1] (cell c holds slots starts[c] to
 * starts[c + 1] - 1) and the particle in each slot, ids[n]. Arrays
 * malloc'd, the caller frees them. */
int md_sim_cells(md_sim *sim, int *nc, int **starts, int **ids);

/* Where a device step's time goes: kernel event times in ms, summed over
 * the steps profiled. The scan and the scatter are the cell lists' only
 * (0 for allpairs); kick_drift includes the binning. */
typedef struct md_phase_ms {
    double kick_drift, scan, scatter, forces;
} md_phase_ms;

/* steps steps of a device version with every kernel timed by its event,
 * the events read once the steps are done (asking for events costs some
 * drivers time, so such steps are slower than untimed ones: this says
 * where the time goes, not how much there is). */
int md_sim_profile(md_sim *sim, unsigned steps, md_phase_ms *out);

/* One-shot: steps steps of version v from s, s updated; the energies at
 * the start and the end, and the steps' wall time, if wanted (NULL). */
int md_run(md_system *s, unsigned steps, md_version v, clctx *ctx,
           md_energy *first, md_energy *last, double *seconds);

/* The host versions (md_ref.c) for md.c: forces of s in force[3n] and
 * each particle's potential energy in pe[n] (half its pairs' energy). */
int md_forces_allpairs(const md_system *s, double *force, double *pe);
int md_forces_cells(const md_system *s, double *force, double *pe);
/* Threads the host cell list uses (1 without OpenMP). */
int md_openmp_threads(void);

/* The device versions (md_cl.c) behind md_sim. */
typedef struct md_device md_device;
int md_device_open(md_device **d, const md_system *start, md_version v,
                   clctx *ctx);
void md_device_close(md_device *d);
int md_device_step(md_device *d, unsigned steps);
int md_device_finish(md_device *d);
int md_device_read(md_device *d, md_system *out, double *pe);
int md_device_cells(md_device *d, int *nc, int **starts, int **ids);
int md_device_profile(md_device *d, unsigned steps, md_phase_ms *out);

/* The benchmark's CSV (columns n, version, particle-steps/s, ns per
 * particle-step, with a header) drawn by gnuplot as particle-steps/s
 * against N on log-log axes, one line per version, into png. An error
 * that says so when gnuplot is missing or fails. */
int md_plot_rates(const char *csv, const char *png);

#endif /* APPS_MD_H */
