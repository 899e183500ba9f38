/*
 * matmul_cl.c: plans, and the OpenCL versions on clframe. A plan holds the
 * built kernel so that repeated runs (the benchmark, bin/matmul --repeat)
 * pay for the build once. Each run copies A and B in and C out through
 * clkernel_call, or for large matrices on a device that copies, through
 * clkernel_call_chunked in row panels of A and C, so that panel i + 1
 * goes in and panel i - 1 comes out while panel i is multiplied; blocked
 * first pads them to multiples of its block when the sizes are not (see
 * matmul.h).
 */
#include "matmul.h"
#include "common/error.h"
#include "clframe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* apps/matmul/kernels, compiled in (scripts/embed-sources). */
extern const clframe_source matmul_kernel_sources[];
#define MATMUL_KERNELS "apps/matmul/kernels/matmul.cl"

/* naive's and tiled's work-groups: the seed's 16 x 16. */
enum { SEED_GROUP = 16 };

struct matmul_plan {
    clctx *ctx;
    matmul_version version;
    matmul_tile tile;           /* blocked only */
    clkernel *kernel;           /* NULL for the C versions */
    unsigned chunks;            /* row panels per call; 0: chosen */
    double last_ms;
};

static clkernel *plan_build(matmul_plan *p)
{
    static const char *const names[MATMUL_VERSION_COUNT] = {
        [MATMUL_NAIVE] = "matmul_naive",
        [MATMUL_TILED] = "matmul_tiled",
        [MATMUL_BLOCKED] = "matmul_blocked",
    };
    char options[160] = "";
    const matmul_tile *t = &p->tile;
    if (p->version == MATMUL_BLOCKED)
        snprintf(options, sizeof options, "-DMM_TM=%u -DMM_TN=%u -DMM_TK=%u "
                 "-DMM_WG_X=%u -DMM_WG_Y=%u -DMM_PAD=%u", t->tm, t->tn, t->tk,
                 t->wx, t->wy, t->pad);
    if (clframe_add_sources(matmul_kernel_sources))
        return NULL;
    return clkernel_file(p->ctx, MATMUL_KERNELS, names[p->version], options);
}

matmul_plan *matmul_plan_new(clctx *ctx, matmul_version v,
                             const matmul_tile *tile, int *error)
{
    int rc = 0;
    matmul_plan *p = calloc(1, sizeof *p);
    if (!p) {
        rc = app_fail(APP_ERR_NO_MEMORY, "matmul: no memory for a "
                      "plan");
    } else if ((unsigned)v >= MATMUL_VERSION_COUNT) {
        rc = app_fail(APP_ERR_USAGE, "matmul: unknown version %d",
                      (int)v);
    } else if (app_version_uses_opencl(&matmul_versions, v)) {
        p->version = v;
        p->ctx = ctx ? ctx : clctx_default();
        if (!p->ctx)
            rc = CLFRAME_ERR_NO_DEVICE;
        else if (v == MATMUL_BLOCKED && tile) {
            p->tile = *tile;
            rc = matmul_tile_fits(p->ctx, &p->tile);
        }
        else if (v == MATMUL_BLOCKED)
            rc = matmul_tile_choose(p->ctx, &p->tile);
        if (rc == 0 && !(p->kernel = plan_build(p)))
            rc = CLFRAME_ERR_BUILD;
    } else {
        p->version = v;
    }
    if (rc) {
        matmul_plan_free(p);
        p = NULL;
    }
    if (error)
        *error = rc;
    return p;
}

void matmul_plan_free(matmul_plan *p)
{
    if (!p)
        return;
    clkernel_free(p->kernel);
    free(p);
}

void matmul_plan_set_timing(matmul_plan *p, int on)
{
    if (p && p->kernel)
        clkernel_set_timing(p->kernel, on);
}

double matmul_plan_last_ms(const matmul_plan *p)
{
    return p ? p->last_ms : 0;
}

void matmul_plan_set_chunks(matmul_plan *p, unsigned chunks)
{
    if (p)
        p->chunks = chunks;
}

/* The panels a call is cut into: a device that shares the host's memory
 * copies nothing to overlap; elsewhere panels of at least PANEL_ROWS rows
 * of C, at most MATMUL_CHUNKS of them: thinner panels leave a GPU's
 * multiprocessors short of work-groups (bench/RESULTS.md, Data
 * movement). */
enum { PANEL_ROWS = 1024 };

static unsigned chunks_for(const matmul_plan *p, uint32_t m)
{
    if (p->chunks)
        return p->chunks;
    if (clctx_pinned_in_place(p->ctx) || m < 2 * PANEL_ROWS)
        return 1;
    return m / PANEL_ROWS < MATMUL_CHUNKS ? m / PANEL_ROWS : MATMUL_CHUNKS;
}

const matmul_tile *matmul_plan_tile(const matmul_plan *p)
{
    return p && p->version == MATMUL_BLOCKED ? &p->tile : NULL;
}

/* One call over (global_x, global_y) in groups of (local_x, local_y), whose
 * first `rows` work-item rows own the rows of A and C, in equal parts. */
static int launch(matmul_plan *p, const float *a, const float *b, float *c,
                  uint32_t m, uint32_t k, uint32_t n, size_t gx, size_t gy,
                  size_t lx, size_t ly, size_t rows)
{
    clkernel *kern = p->kernel;
    unsigned chunks = chunks_for(p, m);
    size_t chunk = clframe_round_up((gy + chunks - 1) / chunks, ly);
    double before = clkernel_total_ms(kern);
    int rc = clkernel_global(kern, gx, gy);
    if (rc == 0)
        rc = clkernel_local(kern, lx, ly);
    if (rc == 0 && chunk < gy)
        rc = clkernel_call_chunked(kern, rows, chunk,
                                   CLARG_IN_CHUNKS(a, (size_t)m * k),
                                   CLARG_IN(b, (size_t)k * n),
                                   CLARG_OUT_CHUNKS(c, (size_t)m * n),
                                   CLARG(m), CLARG(k), CLARG(n));
    else if (rc == 0)
        rc = clkernel_call(kern, CLARG_IN(a, (size_t)m * k),
                           CLARG_IN(b, (size_t)k * n),
                           CLARG_OUT(c, (size_t)m * n), CLARG(m), CLARG(k),
                           CLARG(n));
    if (rc == 0)        /* every panel's kernel */
        p->last_ms = clkernel_total_ms(kern) - before;
    return rc;
}

/* rows x cols of src (row stride cols) into a zeroed prows x pcols array:
 * the zeros past the edges add nothing to the padded product's sums. */
static float *pad_copy(const float *src, size_t rows, size_t cols,
                       size_t prows, size_t pcols)
{
    float *dst = calloc(prows * pcols, sizeof *dst);
    for (size_t r = 0; dst && r < rows; r++)
        memcpy(dst + r * pcols, src + r * cols, cols * sizeof *dst);
    return dst;
}

static int run_blocked(matmul_plan *p, const float *a, const float *b,
                       float *c, uint32_t m, uint32_t k, uint32_t n)
{
    const matmul_tile *t = &p->tile;
    size_t bm = (size_t)t->tm * t->wy, bn = (size_t)t->tn * t->wx;
    size_t mp = clframe_round_up(m, bm), kp = clframe_round_up(k, t->tk);
    size_t np = clframe_round_up(n, bn);
    if (mp > UINT32_MAX || kp > UINT32_MAX || np > UINT32_MAX)
        return app_fail(APP_ERR_BAD_INPUT, "matmul blocked: %u x %u "
                        "times %u x %u padded to its blocks exceeds 2^32",
                        m, k, k, n);
    size_t gx = np / t->tn, gy = mp / t->tm;
    if (mp == m && kp == k && np == n)      /* no copies needed */
        return launch(p, a, b, c, m, k, n, gx, gy, t->wx, t->wy, gy);
    float *pa = pad_copy(a, m, k, mp, kp), *pb = pad_copy(b, k, n, kp, np);
    float *pc = malloc(mp * np * sizeof *pc);
    int rc = 0;
    if (!pa || !pb || !pc)
        rc = app_fail(APP_ERR_NO_MEMORY, "matmul blocked: no memory "
                      "to pad %u x %u times %u x %u to %zu x %zu times "
                      "%zu x %zu", m, k, k, n, mp, kp, kp, np);
    if (rc == 0)
        rc = launch(p, pa, pb, pc, (uint32_t)mp, (uint32_t)kp, (uint32_t)np,
                    gx, gy, t->wx, t->wy, gy);
    for (size_t r = 0; rc == 0 && r < m; r++)
        memcpy(c + r * n, pc + r * np, n * sizeof *c);
    free(pa);
    free(pb);
    free(pc);
    return rc;
}

int matmul_plan_run(matmul_plan *p, const float *a, const float *b, float *c,
                    uint32_t m, uint32_t k, uint32_t n)
{
    if (!p)
        return app_fail(APP_ERR_USAGE, "matmul: no plan");
    int rc = matmul_check_args(a, b, c, m, k, n);
    if (rc)
        return rc;
    p->last_ms = 0;
    switch (p->version) {
    case MATMUL_REFERENCE:
        return matmul_reference(a, b, c, m, k, n);
    case MATMUL_OPENMP:
        return matmul_openmp(a, b, c, m, k, n);
    case MATMUL_BLOCKED:
        return run_blocked(p, a, b, c, m, k, n);
    default:        /* naive and tiled guard their edges themselves */
        return launch(p, a, b, c, m, k, n, clframe_round_up(n, SEED_GROUP),
                      clframe_round_up(m, SEED_GROUP), SEED_GROUP, SEED_GROUP,
                      m);
    }
}
