/*
 * matmul_tune.c: the blocked kernel's tile, tuned on the device. The best
 * tile depends on the device and on how its compiler schedules each shape
 * (on a GPU two shapes close in speed can swap places after a change that
 * leaves the arithmetic alone), so a sweep measures instead of
 * guessing: each candidate the device can run is first checked against
 * the exact product on a small odd-sized one, then timed on an n x n x n
 * product (the median kernel time of `runs` runs after a warm-up). The
 * fastest is kept as the device's "matmul-tile" setting, beside the
 * program cache and tied to the device and its driver
 * (clctx_setting_put), where matmul_tile_choose finds it.
 */
#include "matmul.h"
#include "median.h"
#include "common/error.h"
#include "clframe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MATMUL_TILE_SETTING "matmul-tile"

/* Shapes around the best on a GPU (bench/RESULTS.md, Matrix
 * multiplication, has their figures) and
 * smaller ones for devices with fewer registers or smaller groups. */
static const char *const default_candidates[] = {
    "8x8x16x16x16x4", "8x8x8x16x16x4", "8x8x12x16x16x4", "8x8x32x16x16x4",
    "8x8x16x16x16x0", "8x8x16x16x8x4", "8x8x16x8x16x4", "8x8x16x32x8x4",
    "8x4x16x16x16x4", "4x8x16x16x16x4", "8x16x8x16x16x4", "4x4x16x16x16x4",
    "4x4x16x8x8x0", "4x4x8x8x8x0",
};

/* The check's sizes: odd, so that every tile pads all three. */
enum { CHECK_M = 67, CHECK_K = 45, CHECK_N = 71 };

/* 0 when plan's product of the check matrices is within its bound. */
static int check_plan(matmul_plan *plan, const float *a, const float *b,
                      float *c)
{
    int rc = matmul_plan_run(plan, a, b, c, CHECK_M, CHECK_K, CHECK_N);
    if (rc == 0 && matmul_compare(a, b, c, CHECK_M, CHECK_K, CHECK_N, NULL))
        rc = app_fail(APP_ERR_BAD_INPUT, "wrong result on %d x %d "
                      "x %d", CHECK_M, CHECK_K, CHECK_N);
    return rc;
}

/* The median kernel time of runs runs of plan on n x n x n, in *ms. */
static int time_plan(matmul_plan *plan, uint32_t n, unsigned runs,
                     const float *a, const float *b, float *c, double *ms)
{
    double times[64];
    matmul_plan_set_timing(plan, 1);
    int rc = matmul_plan_run(plan, a, b, c, n, n, n);      /* warm-up */
    for (unsigned r = 0; rc == 0 && r < runs; r++) {
        rc = matmul_plan_run(plan, a, b, c, n, n, n);
        times[r] = matmul_plan_last_ms(plan);
    }
    if (rc == 0)
        *ms = median_of(times, (int)runs);
    return rc;
}

/* Checks and times one candidate; one line to report. 0 with *ms, or a
 * code when it cannot run on this device or gave a wrong result. */
static int try_tile(clctx *ctx, const matmul_tile *tile, uint32_t n,
                    unsigned runs, float *const m[6], double *ms,
                    FILE *report)
{
    char name[64];
    matmul_tile_format(tile, name, sizeof name);
    int rc = matmul_tile_fits(ctx, tile);
    matmul_plan *plan = rc ? NULL : matmul_plan_new(ctx, MATMUL_BLOCKED,
                                                    tile, &rc);
    if (plan)
        rc = check_plan(plan, m[0], m[1], m[2]);
    if (plan && rc == 0)
        rc = time_plan(plan, n, runs, m[3], m[4], m[5], ms);
    if (report && rc == 0)
        fprintf(report, "  %-16s %10.3f %11.1f\n", name, *ms,
                2.0 * n * n * n / *ms * 1e-6);
    else if (report)
        fprintf(report, "  %-16s skipped: %s\n", name, app_last_error());
    matmul_plan_free(plan);
    return rc;
}

int matmul_tune(clctx *ctx, uint32_t n, unsigned runs,
                const char *const *candidates, size_t count,
                matmul_tile *best, FILE *report)
{
    if (!candidates) {
        candidates = default_candidates;
        count = sizeof default_candidates / sizeof *default_candidates;
    }
    if (!ctx && !(ctx = clctx_default()))
        return CLFRAME_ERR_NO_DEVICE;
    if (n == 0 || n > 16384 || runs == 0 || runs > 64 || !best)
        return app_fail(APP_ERR_USAGE, "matmul_tune: size %u (1 to "
                        "16384), runs %u (1 to 64)", n, runs);
    size_t counts[6] = {(size_t)CHECK_M * CHECK_K, (size_t)CHECK_K * CHECK_N,
                        (size_t)CHECK_M * CHECK_N, (size_t)n * n,
                        (size_t)n * n, (size_t)n * n};
    float *m[6];
    int have = 1;
    uint32_t state = 12345;
    for (int i = 0; i < 6; i++) {
        m[i] = malloc(counts[i] * sizeof *m[i]);
        have = have && m[i];
        if (m[i])
            matmul_random_fill(m[i], counts[i], &state);
    }
    double best_ms = 0;
    int found = 0;
    if (have && report)
        fprintf(report, "tuning matmul blocked on %s at %u x %u x %u, median "
                "of %u runs:\n  %-16s %10s %11s\n", clctx_device_name(ctx),
                n, n, n, runs, "tile", "kernel ms", "GFLOP/s");
    for (size_t i = 0; have && i < count; i++) {
        matmul_tile tile;
        double ms = 0;
        if (matmul_tile_parse(candidates[i], &tile) == 0 &&
            try_tile(ctx, &tile, n, runs, m, &ms, report) == 0 &&
            (!found || ms < best_ms)) {
            *best = tile;
            best_ms = ms;
            found = 1;
        }
    }
    for (int i = 0; i < 6; i++)
        free(m[i]);
    if (!have)
        return app_fail(APP_ERR_NO_MEMORY, "matmul_tune: no memory "
                        "for %u x %u matrices", n, n);
    if (!found)
        return app_fail(APP_ERR_DEVICE, "matmul_tune: none of the "
                        "%zu candidate tiles ran on %s", count,
                        clctx_device_name(ctx));
    return 0;
}

int matmul_tile_save(clctx *ctx, const matmul_tile *tile)
{
    char name[64];
    if (!ctx && !(ctx = clctx_default()))
        return CLFRAME_ERR_NO_DEVICE;
    int rc = matmul_tile_fits(ctx, tile);
    return rc ? rc : clctx_setting_put(ctx, MATMUL_TILE_SETTING,
                                       matmul_tile_format(tile, name,
                                                          sizeof name));
}

int matmul_tile_saved(clctx *ctx, matmul_tile *tile)
{
    char text[64];
    matmul_tile t;
    if (!ctx || !clctx_setting_get(ctx, MATMUL_TILE_SETTING, text,
                                   sizeof text))
        return 0;
    /* A tile this build no longer accepts is ignored, without a message. */
    clframe_error_handler old = clframe_set_error_handler(NULL);
    int ok = matmul_tile_parse(text, &t) == 0 && matmul_tile_fits(ctx, &t) == 0;
    clframe_set_error_handler(old);
    if (ok)
        *tile = t;
    return ok;
}
