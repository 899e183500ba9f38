/*
 * matmul.c: the versions by name, the checks every version shares, the
 * blocked kernel's tile (parsed, chosen per device), and matmul(), the
 * one-call entry point.
 */
#include "matmul.h"
#include "common/error.h"
#include "common/parse.h"
#include "clframe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const app_version versions[MATMUL_VERSION_COUNT] = {
    [MATMUL_REFERENCE] = {"reference", NULL, 0},
    [MATMUL_OPENMP] = {"openmp", NULL, 0},
    [MATMUL_NAIVE] = {"naive", NULL, 1},
    [MATMUL_TILED] = {"tiled", NULL, 1},
    [MATMUL_BLOCKED] = {"blocked", NULL, 1},
};
const app_versions matmul_versions = {versions, MATMUL_VERSION_COUNT,
                                      MATMUL_BLOCKED, MATMUL_BLOCKED};

int matmul_check_args(const float *a, const float *b, const float *c,
                      uint32_t m, uint32_t k, uint32_t n)
{
    if (!a || !b || !c)
        return app_fail(APP_ERR_USAGE, "matmul: NULL matrix (a %p, "
                        "b %p, c %p)", (void *)a, (void *)b, (void *)c);
    if (m == 0 || k == 0 || n == 0)
        return app_fail(APP_ERR_BAD_INPUT, "matmul: %u x %u times %u "
                        "x %u: every size must be at least 1", m, k, k, n);
    /* Each matrix's bytes must fit a size_t (only 32-bit hosts can fail). */
    const size_t most = SIZE_MAX / sizeof(float);
    if ((size_t)m > most / k || (size_t)k > most / n || (size_t)m > most / n)
        return app_fail(APP_ERR_BAD_INPUT, "matmul: %u x %u times %u "
                        "x %u overflows this host's address space", m, k,
                        k, n);
    return 0;
}

/* ---- the blocked kernel's tile ------------------------------------------- */

int matmul_tile_parse(const char *text, matmul_tile *t)
{
    unsigned long f[6] = {0, 0, 0, 0, 0, 4};
    int got = text ? parse_shape(text, 5, 6, f) : 0;
    if (!got || !f[0] || !f[1] || !f[2] || !f[3] ||
        !f[4] || f[0] % 4 || f[1] % 4 || f[2] % 4 || f[5] % 4 ||
        f[0] * f[1] > 256 || f[3] > 1024 || f[4] > 1024 || f[5] > 64)
        return app_fail(APP_ERR_BAD_INPUT, "matmul tile \"%s\": "
                        "expected TMxTNxTKxWXxWY[xPAD], WX and WY >= 1, "
                        "TM, TN, TK >= 4 and they and PAD multiples of "
                        "4 (float4 strips), TM*TN <= 256, PAD <= 64",
                        text ? text : "(null)");
    *t = (matmul_tile){(unsigned)f[0], (unsigned)f[1], (unsigned)f[2],
                       (unsigned)f[3], (unsigned)f[4], (unsigned)f[5]};
    return 0;
}

const char *matmul_tile_format(const matmul_tile *t, char *buf, size_t size)
{
    snprintf(buf, size, "%ux%ux%ux%ux%ux%u", t->tm, t->tn, t->tk, t->wx,
             t->wy, t->pad);
    return buf;
}

/* Bytes of local memory the blocked kernel takes with tile t. */
static size_t tile_local_bytes(const matmul_tile *t)
{
    return ((size_t)t->tk * (t->tm * t->wy + t->pad) +
            (size_t)t->tk * t->tn * t->wx) * sizeof(float);
}

int matmul_tile_choose(clctx *ctx, matmul_tile *t)
{
    if (!ctx)
        ctx = clctx_default();
    if (!ctx)
        return CLFRAME_ERR_NO_DEVICE;
    const char *env = getenv("MATMUL_TILE");
    if (env && *env) {
        int rc = matmul_tile_parse(env, t);
        if (rc)
            return rc;
    } else if (matmul_tile_saved(ctx, t)) {
        return 0;               /* checked when read */
    } else if (clctx_device_type(ctx) & CL_DEVICE_TYPE_GPU) {
        /* 128 x 128 blocks, 64 sums per work-item, k in steps of 16:
         * the best of the shapes tried on a GPU (bench/RESULTS.md,
         * Matrix multiplication); steps of 8 where its 17 KB of local
         * memory is more than the device has. */
        *t = (matmul_tile){8, 8, 16, 16, 16, 4};
        if (tile_local_bytes(t) > clctx_local_mem_size(ctx))
            t->tk = 8;
    } else {
        /* CPUs (PoCL): small groups, 32 x 32 blocks, little padding. */
        *t = (matmul_tile){4, 4, 16, 8, 8, 0};
    }
    return matmul_tile_fits(ctx, t);
}

int matmul_tile_fits(clctx *ctx, const matmul_tile *t)
{
    if (!ctx && !(ctx = clctx_default()))
        return CLFRAME_ERR_NO_DEVICE;
    size_t max_group = clctx_max_work_group_size(ctx);
    cl_ulong local = clctx_local_mem_size(ctx);
    char name[64];
    if ((size_t)t->wx * t->wy > max_group || tile_local_bytes(t) > local)
        return app_fail(APP_ERR_DEVICE, "matmul tile %s needs "
                        "work-groups of %u and %zu bytes of local memory; "
                        "%s has groups of %zu and %lu bytes",
                        matmul_tile_format(t, name, sizeof name),
                        t->wx * t->wy, tile_local_bytes(t),
                        clctx_device_name(ctx), max_group,
                        (unsigned long)local);
    return 0;
}

int matmul(const float *a, const float *b, float *c, uint32_t m, uint32_t k,
           uint32_t n, matmul_version v, clctx *ctx)
{
    int rc = matmul_check_args(a, b, c, m, k, n);
    if (rc)
        return rc;
    matmul_plan *p = matmul_plan_new(ctx, v, NULL, &rc);
    if (!p)
        return rc;
    rc = matmul_plan_run(p, a, b, c, m, k, n);
    matmul_plan_free(p);
    return rc;
}
