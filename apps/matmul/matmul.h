/*
 * matmul.h: C = A x B for row-major float matrices (A is m x k, B is k x n,
 * C is m x n), by every version of the seed's comparison and beyond: a
 * cache-blocked C reference, its OpenMP twin, and three OpenCL kernels
 * (apps/matmul/kernels/matmul.cl): naive (one work-item per element of C, the
 * seed's), tiled (16 x 16 local-memory tiles, the seed's "shared memory"
 * version) and blocked (each work-item a TM x TN block of C in registers
 * from local tiles of depth TK, float4 global loads: the fast one).
 *
 * Any m, k, n >= 1 work. naive and tiled guard their edges in the kernel;
 * blocked pads A, B and C on the host to multiples of its block (zeros add
 * nothing to the sums), and copies nothing when the sizes already are.
 */
#ifndef MATMUL_H
#define MATMUL_H

#include "common/versions.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* clframe's context (clframe.h), which the OpenCL versions run on. */
typedef struct clctx clctx;

typedef enum matmul_version {
    MATMUL_REFERENCE = 0,   /* plain C, one thread, cache-blocked */
    MATMUL_OPENMP,          /* the reference with row blocks split by OpenMP */
    MATMUL_NAIVE,           /* a work-item per element of C */
    MATMUL_TILED,           /* 16 x 16 local-memory tiles */
    MATMUL_BLOCKED,         /* register blocks from local tiles, float4 loads */
    MATMUL_VERSION_COUNT
} matmul_version;

/* Their names, "reference", "openmp", "naive", "tiled" and "blocked", and
 * which run on a device (common/versions.h); blocked is the default. */
extern const app_versions matmul_versions;

/* The blocked kernel's shape: a work-group of wx x wy work-items computes a
 * (tm*wy) x (tn*wx) block of C, each work-item tm x tn of it, reading
 * A and B through local tiles tk deep. pad floats are added to each row of
 * the local copy of A, which is stored transposed (bank conflicts). */
typedef struct matmul_tile {
    unsigned tm, tn, tk, wx, wy, pad;
} matmul_tile;

/* Parses "TMxTNxTKxWXxWY" or "TMxTNxTKxWXxWY[xPAD]" and checks the shape
 * (tk and tn*wx multiples of 4, every field >= 1, tm*tn <= 256). 0, or
 * APP_ERR_BAD_INPUT with a message. */
int matmul_tile_parse(const char *text, matmul_tile *tile);
/* The tile for ctx's device: MATMUL_TILE if set, else the one tuned for
 * the device (matmul_tile_saved), else the default table (GPUs
 * 8x8x16x16x16x4, 8 deep where local memory is short; other devices
 * 4x4x16x8x8x0), checked with matmul_tile_fits. */
int matmul_tile_choose(clctx *ctx, matmul_tile *tile);
/* 0 if ctx's device (NULL: the default's) can run tile (its work-group
 * size and local memory), else APP_ERR_DEVICE with a message naming
 * both. matmul_plan_new checks every tile it is given with it. */
int matmul_tile_fits(clctx *ctx, const matmul_tile *tile);
/* Tuning (matmul_tune.c). matmul_tune checks each of count candidate
 * tiles (NULL: its own list of 14 shapes) that ctx's device can run
 * against the exact product on a 67 x 45 x 71 product, then times it on
 * n x n x n (the median kernel time of runs runs after a warm-up),
 * writing a line per candidate to report (may be NULL); *best gets the
 * fastest. 0, or a code with a message when none ran. matmul_tile_save keeps a tile as the device's tuned one (beside the
 * program cache, per device and driver: clctx_setting_put);
 * matmul_tile_saved reads it back: 1 with *tile set, 0 when there is none
 * that this device can run. */
int matmul_tune(clctx *ctx, uint32_t n, unsigned runs,
                const char *const *candidates, size_t count,
                matmul_tile *best, FILE *report);
int matmul_tile_save(clctx *ctx, const matmul_tile *tile);
int matmul_tile_saved(clctx *ctx, matmul_tile *tile);
/* "8x8x16x16x16x4" into buf. */
const char *matmul_tile_format(const matmul_tile *tile, char *buf, size_t size);

/* A version ready to run, its kernel built once (reused by every run). */
typedef struct matmul_plan matmul_plan;

/* ctx: NULL for clframe's default (ignored by the C versions). tile: the
 * blocked version's shape, NULL for matmul_tile_choose's. NULL on error,
 * with the code in *error (which may be NULL) and a message. */
matmul_plan *matmul_plan_new(clctx *ctx, matmul_version v,
                             const matmul_tile *tile, int *error);
/* The tile a blocked plan runs with (NULL for other versions). */
const matmul_tile *matmul_plan_tile(const matmul_plan *p);
void matmul_plan_free(matmul_plan *p);
/* Times each run's kernel by its profiling event (off by default). */
void matmul_plan_set_timing(matmul_plan *p, int on);
/* The kernel time of the last run in ms (0 for the C versions). */
double matmul_plan_last_ms(const matmul_plan *p);
/* Runs an OpenCL plan's calls in `chunks` row panels of A and C, so that
 * copies overlap the kernel (clkernel_call_chunked), which pays when the
 * arrays are pinned (clframe_host_alloc); 0, the default, chooses: one
 * panel per 1024 rows of C, at most MATMUL_CHUNKS, where the device
 * copies; none where it shares the host's memory. */
enum { MATMUL_CHUNKS = 8 };
void matmul_plan_set_chunks(matmul_plan *p, unsigned chunks);
/* c = a x b; 0 or a negative code. c must not overlap a or b. */
int matmul_plan_run(matmul_plan *p, const float *a, const float *b, float *c,
                    uint32_t m, uint32_t k, uint32_t n);

/* The one-call form: a plan made, run once and freed. */
int matmul(const float *a, const float *b, float *c, uint32_t m, uint32_t k,
           uint32_t n, matmul_version v, clctx *ctx);

/* Checks the arguments every version takes: non-NULL arrays, sizes >= 1,
 * and m*k, k*n, m*n floats addressable. 0 or a code with a message. */
int matmul_check_args(const float *a, const float *b, const float *c,
                      uint32_t m, uint32_t k, uint32_t n);

/* The C versions (matmul_ref.c). */
int matmul_reference(const float *a, const float *b, float *c, uint32_t m,
                     uint32_t k, uint32_t n);
int matmul_openmp(const float *a, const float *b, float *c, uint32_t m,
                  uint32_t k, uint32_t n);
int matmul_openmp_threads(void);

/* Fills p with count floats in [-1, 1) from a linear congruential
 * generator whose state *state carries on (bin/matmul, the tuner). */
void matmul_random_fill(float *p, size_t count, uint32_t *state);

/* How far c is from the exact product. Each element's bound is
 * k * 2^-22 * sum_p |a_ip| |b_pj| (four times the classic bound for a
 * float sum of k products, so any summation order or FMA passes); the
 * exact product and the bound are computed in double. Returns the number
 * of elements beyond their bound (0: c is right) and sets *worst to the
 * largest |error| / bound (may be NULL), or -1 if out of memory. */
long matmul_compare(const float *a, const float *b, const float *c,
                    uint32_t m, uint32_t k, uint32_t n, double *worst);

#endif /* MATMUL_H */
