/*
 * laplace.h: the Laplace equation for the electric potential around a
 * conductor in a box, by Jacobi iteration (apps/laplace/SPEC.md):
 * the grid and its mask (a centred rectangle, or a mask from a PNG), the
 * versions that iterate it (a C reference and its OpenMP twin, the seed's
 * two kernels per iteration, double buffering with a byte mask, several
 * iterations per launch in local-memory tiles or by a work-item per block
 * of rows), a fixed number of
 * iterations or a tolerance on the largest change, and the output files.
 *
 * Every version adds a free cell's neighbours in the reference's order,
 * 0.25f * (((right + left) + down) + up), with FP contraction off, so all
 * of them give the same bits. Functions return 0 or a negative code
 * with a message in app_last_error().
 */
#ifndef LAPLACE_H
#define LAPLACE_H

#include "common/timing.h"
#include "common/versions.h"

#include <stddef.h>
#include <stdint.h>

/* clframe's context (clframe.h), which the OpenCL versions run on. */
typedef struct clctx clctx;

/* An nx x ny grid, row by row (x fastest): the potential and the mask,
 * 1 where a cell is free, 0 where it is fixed (the border, conductors). */
typedef struct laplace_grid {
    uint32_t nx, ny;
    float *phi;
    uint8_t *mask;
} laplace_grid;

/* Grids from 3 x 3 (one free cell) to LAPLACE_MAX_SIDE on a side; a
 * potential's magnitude at most LAPLACE_MAX_POTENTIAL, so no sum of four
 * neighbours overflows. */
#define LAPLACE_MAX_SIDE 65536u
#define LAPLACE_MAX_POTENTIAL 1e30f

/* An nx x ny grid of zeros, every cell fixed. */
int laplace_grid_alloc(laplace_grid *g, uint32_t nx, uint32_t ny);
void laplace_grid_free(laplace_grid *g);
int laplace_grid_copy(laplace_grid *dst, const laplace_grid *src);

/* The seed's problem: the border fixed at `boundary`, an object_w x
 * object_h rectangle centred in the grid (at x0 = (nx - w) / 2, y0 =
 * (ny - h) / 2; 0 x 0 for none) fixed at `object`, free cells at 0. */
int laplace_grid_make(laplace_grid *g, uint32_t nx, uint32_t ny,
                      float boundary, float object, uint32_t object_w,
                      uint32_t object_h);

/* The same with the conductor read from a PNG: the image's size is the
 * grid's, a dark pixel (luma below 128, alpha 128 or more) is conductor
 * at `object`, the outermost pixels are the border at `boundary` whatever
 * their colour. */
int laplace_grid_from_png(laplace_grid *g, const char *path, float boundary,
                          float object);

/* "WxH" as an object size: each a whole number of cells, or a fraction
 * below 1 ("0.25") of the grid's side, rounded; at most the interior
 * (side - 2). 1 if valid, else 0. */
int laplace_object_parse(const char *text, uint32_t nx, uint32_t ny,
                         uint32_t *w, uint32_t *h);

/* Checks the grid: a size in range, the border fixed (a free cell there
 * would read outside), potentials finite and within the maximum. The
 * message names the first bad cell. */
int laplace_grid_validate(const laplace_grid *g);

typedef enum laplace_version {
    LAPLACE_REFERENCE = 0,  /* plain C, one thread: the reference */
    LAPLACE_OPENMP,         /* the reference with rows split by OpenMP */
    LAPLACE_SEED,           /* update + copy-back kernels, an int mask */
    LAPLACE_DOUBLE,         /* double-buffered, byte mask, one kernel */
    LAPLACE_FAST,           /* several iterations per launch in tiles */
    LAPLACE_ROW_BLOCKS,     /* several per launch, a work-item per block
                               of rows, no barriers (for CPU devices) */
    LAPLACE_VERSION_COUNT
} laplace_version;

/* Their names, "reference", "openmp", "seed", "double", "fast" and
 * "rows", which run on a device, and the defaults: fast on a GPU, rows on
 * a CPU device (common/versions.h). */
extern const app_versions laplace_versions;

/* How long to iterate. With tolerance > 0: check the largest |change| of
 * one iteration after every check_every-th iteration (check_every,
 * 2*check_every, ...) and stop at the first check where it is below
 * tolerance, or after `iterations` (the cap). With tolerance 0: exactly
 * `iterations`. */
typedef struct laplace_plan {
    unsigned iterations;
    float tolerance;
    unsigned check_every;
} laplace_plan;

/* What a run reports. */
typedef struct laplace_stats {
    app_timing timing;      /* kernel time if wanted in; launches out */
    unsigned iterations;    /* out: iterations done */
    float max_change;       /* out: at the last check (tolerance mode) */
    int converged;          /* out: stopped because max_change < tolerance */
    unsigned checks;        /* out: how many checks were made */
} laplace_stats;

/* What laplace_solve checks first: the grid, and a plan whose tolerance
 * is finite and >= 0, with checks every 1 or more iterations. */
int laplace_check(const laplace_grid *g, const laplace_plan *plan);

/* Iterates g in place by plan with version v. ctx is for the OpenCL
 * versions (NULL: clframe's default); stats may be NULL. */
int laplace_solve(laplace_grid *g, const laplace_plan *plan,
                  laplace_version v, clctx *ctx, laplace_stats *stats);

/* The kernel of laplace.cl that `double` iterates with on ctx's device
 * for rows of nx cells, as its runs choose it: "laplace_update4" on a GPU
 * where nx is a multiple of 4, "laplace_update_column" on a GPU otherwise,
 * "laplace_update" on a CPU device, or what LAPLACE_UPDATE says. For code
 * that must run the same kernel elsewhere (bench/cuda's twins). */
const char *laplace_double_kernel(clctx *ctx, uint32_t nx);

/* The tile `fast` runs laplace_tiled with on ctx's device, as
 * "WxHxHALOxVXxPYxCOPIES" in name (its README's LAPLACE_TILE): the
 * default, or what LAPLACE_TILE says. For code that compares it with a twin
 * of fixed shape (bench/cuda). 0, or APP_ERR_BAD_INPUT where LAPLACE_TILE
 * is not a tile. */
int laplace_fast_tile(clctx *ctx, char *name, size_t size);

/* The C versions (laplace_ref.c) and the OpenCL ones (laplace_cl.c), for
 * laplace_solve, which has checked the grid and plan. */
int laplace_solve_c(laplace_grid *g, const laplace_plan *plan, int parallel,
                    laplace_stats *stats);
int laplace_solve_opencl(laplace_grid *g, const laplace_plan *plan,
                         laplace_version v, clctx *ctx, laplace_stats *stats);
/* The fast version in parts, for code that splits a grid over devices
 * (apps/mpi): its tiled kernel on g as a stencil (common/stencil.h, which
 * starts with g->phi in both buffers and never writes g's fixed cells),
 * plus the measuring iteration of the tolerance checks over the rows
 * [first, first + rows) alone, from the stencil's cur into its next, and
 * the largest change it found. g and stats must outlive d. 0 or a
 * code. */
typedef struct laplace_dev laplace_dev;
typedef struct app_stencil app_stencil;
int laplace_fast_open(laplace_dev **d, laplace_grid *g, clctx *ctx,
                      laplace_stats *stats);
app_stencil *laplace_fast_stencil(laplace_dev *d);
int laplace_fast_measure(laplace_dev *d, uint32_t first, uint32_t rows);
int laplace_fast_change(laplace_dev *d, float *change);
void laplace_fast_close(laplace_dev *d);

/* Threads the OpenMP version uses (1 without OpenMP). */
int laplace_openmp_threads(void);

/* How many iterations to make before the next check or the end, given
 * `done` so far: a helper every version uses so they stop alike. */
unsigned laplace_next_stretch(const laplace_plan *plan, unsigned done);

/* A check's largest change recorded in stats; 1 if it is below the
 * tolerance (converged: stop). Every version's loop uses it. */
int laplace_note_check(const laplace_plan *plan, float change,
                       laplace_stats *stats);

/* A run's stats set to zero, but for whether kernel time is wanted:
 * stats, or `unread` where stats is NULL. */
laplace_stats *laplace_stats_start(laplace_stats *stats,
                                   laplace_stats *unread);

/* phi as nx*ny little-endian float32 values, row by row; written beside
 * path and renamed over it, so a failure leaves no file. */
int laplace_write_raw(const char *path, const laplace_grid *g);

/* phi as a PNG: a blue (lowest) to red (highest) ramp over the grid's
 * range, fixed cells inside the border (conductors) in dark grey. */
int laplace_write_png(const char *path, const laplace_grid *g);

/* bin/laplace's command line (cli.c), which bin/laplace_mpi shares. */
typedef struct laplace_options {
    const char *size, *object, *mask, *raw, *png;
    float boundary, object_potential;
    laplace_plan plan;
    int version;                /* a laplace_version; -1 (no --version):
                                   the device's default */
} laplace_options;
typedef struct app_program app_program;

/* The usage of program `name` (its app_program's usage). */
void laplace_usage_for(char *usage, size_t size, const char *name);
/* Fills o from argv; 0, or the exit status to leave with (-1: help), the
 * message printed. */
int laplace_parse_options(const app_program *program, int argc, char **argv,
                          laplace_options *o);
/* The grid the options describe: 0, 1 (a failure, in app_last_error) or
 * 2 (a bad argument, its message printed). */
int laplace_make_grid(const app_program *program, const laplace_options *o,
                      laplace_grid *g);
/* The files -o and --png name. 0 or a code. */
int laplace_write_outputs(const laplace_options *o, const laplace_grid *g);
/* "NAME: 200 x 200, fast, 1000 iterations..." on stderr. */
void laplace_report(const char *name, const laplace_options *o,
                    const laplace_grid *g, const laplace_stats *stats);

#endif /* LAPLACE_H */
