/*
 * matmul.c (bin/matmul): multiplies two random matrices with one version
 * and prints the time and GFLOP/s; --check compares the result with the
 * exact product (matmul_compare's k-scaled bound). `matmul --tune [N]`
 * times the blocked kernel's candidate tiles on the device and keeps the
 * fastest for it (matmul_tune). Exit status 0, 1 when the run failed or
 * the check found an error, 2 for bad arguments.
 */
#include "matmul/matmul.h"
#include "common/clock.h"
#include "common/error.h"
#include "median.h"
#include "common/parse.h"
#include "common/program.h"
#include "clframe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const app_program program = {"matmul",
    "usage: matmul M K N [--version V] [--check] [--repeat R] [--seed S]\n"
    "              [--pinned] [--chunks C]\n"
    "       matmul --tune [N] [--repeat R]\n"
    "  C (M x N) = A (M x K) x B (K x N), random floats in [-1, 1).\n"
    "  --tune [N]   time blocked's candidate tiles on N x N x N (default\n"
    "               2048) and keep the fastest as this device's tile, in\n"
    "               clframe's cache folder (~/.cache/clframe)\n"
    "  --version V  %s\n"
    "  --check      compare C with the exact product: each element within\n"
    "               K * 2^-22 * sum |a||b| of it (exit status 1 if not)\n"
    "  --repeat R   runs after the first (which builds the kernel); the\n"
    "               median is reported (default 3)\n"
    "  --seed S     seed of the random matrices (default 1)\n"
    "  --pinned     A, B and C in pinned host memory (clframe_host_alloc)\n"
    "  --chunks C   each call in C row panels of A and C, so that copies\n"
    "               overlap the kernel (1: one whole call; default: chosen)\n"
    "  MATMUL_TILE=TMxTNxTKxWXxWY[xPAD] sets blocked's tile (over a tuned\n"
    "  one).\n",
    &matmul_versions};

typedef struct options {
    int tune;                   /* --tune: m is the size */
    uint32_t m, k, n;
    matmul_version version;
    int check, pinned;
    unsigned long repeat, seed, chunks;
} options;

/* "matmul: what: text" and the usage; 2. */
static int bad(const char *what, const char *text)
{
    char fmt[128];
    snprintf(fmt, sizeof fmt, "%s: %%s", what);
    return app_usage_error(&program, fmt, text ? text : "missing");
}

/* 0, or the exit status to leave with (-1: help, 2: a bad argument). */
static int parse_options(int argc, char **argv, options *o)
{
    *o = (options){.version = MATMUL_BLOCKED, .repeat = 3, .seed = 1};
    uint32_t *sizes[] = {&o->m, &o->k, &o->n};
    int nsizes = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        unsigned long x;
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            return -1;
        } else if (!strcmp(arg, "--tune") && i == 1) {
            o->tune = 1;
            o->m = 2048;
            if (value && value[0] >= '0' && value[0] <= '9') {
                if (!parse_uint(value, 1, 16384, &x))
                    return bad("bad --tune size (1 to 16384)", value);
                o->m = (uint32_t)x;
                i++;
            }
        } else if (!strcmp(arg, "--check")) {
            o->check = 1;
        } else if (!strcmp(arg, "--pinned")) {
            o->pinned = 1;
        } else if (!strcmp(arg, "--chunks")) {
            if (!value || !parse_uint(value, 1, 65536, &x))
                return bad("bad --chunks (1 to 65536)", value);
            o->chunks = x;
            i++;
        } else if (!strcmp(arg, "--version")) {
            int v, status = app_version_option(&program, value, &v);
            if (status)
                return status;
            o->version = (matmul_version)v;
            i++;
        } else if (!strcmp(arg, "--repeat") || !strcmp(arg, "--seed")) {
            int repeat = !strcmp(arg, "--repeat");
            if (!value || !parse_uint(value, repeat ? 1 : 0,
                                      repeat ? 1000 : UINT32_MAX, &x))
                return bad(repeat ? "bad --repeat (1 to 1000)" : "bad --seed",
                           value);
            *(repeat ? &o->repeat : &o->seed) = x;
            i++;
        } else if (!o->tune && nsizes < 3 && parse_uint(arg, 1, 65536, &x)) {
            *sizes[nsizes++] = (uint32_t)x;
        } else {
            return bad(o->tune || nsizes == 3 ? "unexpected argument"
                                              : "bad size (1 to 65536)", arg);
        }
    }
    if (o->tune)
        return 0;
    return nsizes == 3 ? 0 : bad("expected the sizes M K N", NULL);
}

/* Runs the plan 1 + repeat times; the median call and kernel times. */
static int time_runs(matmul_plan *plan, const options *o, const float *a,
                     const float *b, float *c, double *call_ms,
                     double *kernel_ms)
{
    double calls[1000], kernels[1000];
    int rc = matmul_plan_run(plan, a, b, c, o->m, o->k, o->n);
    for (unsigned long r = 0; rc == 0 && r < o->repeat; r++) {
        double t0 = clock_ms();
        rc = matmul_plan_run(plan, a, b, c, o->m, o->k, o->n);
        calls[r] = clock_ms() - t0;
        kernels[r] = matmul_plan_last_ms(plan);
    }
    if (rc == 0) {
        *call_ms = median_of(calls, (int)o->repeat);
        *kernel_ms = median_of(kernels, (int)o->repeat);
    }
    return rc;
}

/* A matrix of count floats, pinned (--pinned) or not; NULL with a message
 * when there is no room. */
static float *matrix_new(const options *o, size_t count)
{
    if (!o->pinned)
        return malloc(count * sizeof(float));
    clctx *ctx = clctx_default();
    return ctx ? clframe_host_alloc(ctx, count * sizeof(float)) : NULL;
}

static void matrix_free(const options *o, float *p)
{
    if (o->pinned)
        clframe_host_free(p);
    else
        free(p);
}

/* --tune: the sweep's table, then the tile kept. Exit status. */
static int tune(const options *o)
{
    matmul_tile best;
    char name[64];
    clctx *ctx = clctx_default();
    int rc = ctx ? matmul_tune(ctx, o->m, (unsigned)o->repeat, NULL, 0,
                               &best, stdout)
                 : CLFRAME_ERR_NO_DEVICE;
    if (rc == 0)
        rc = matmul_tile_save(ctx, &best);
    if (rc) {
        fprintf(stderr, "matmul --tune: %s\n", app_last_error());
        return 1;
    }
    printf("fastest: %s, kept for %s in clframe's cache folder "
           "(MATMUL_TILE overrides it)\n",
           matmul_tile_format(&best, name, sizeof name),
           clctx_device_name(ctx));
    return 0;
}

int main(int argc, char **argv)
{
    options o;
    int status = app_start(&program, parse_options(argc, argv, &o));
    if (status >= 0)
        return status;
    status = 0;
    if (o.tune)
        return tune(&o);
    size_t na = (size_t)o.m * o.k, nb = (size_t)o.k * o.n;
    size_t nc = (size_t)o.m * o.n;
    float *a = matrix_new(&o, na), *b = matrix_new(&o, nb);
    float *c = matrix_new(&o, nc);
    int rc = a && b && c ? 0 : app_fail(APP_ERR_NO_MEMORY, "no memory "
                                        "for the matrices");
    matmul_plan *plan = rc ? NULL : matmul_plan_new(NULL, o.version, NULL, &rc);
    double call_ms = 0, kernel_ms = 0;
    if (plan) {
        matmul_plan_set_chunks(plan, (unsigned)o.chunks);
        uint32_t state = (uint32_t)o.seed;
        matmul_random_fill(a, na, &state);
        matmul_random_fill(b, nb, &state);
        matmul_plan_set_timing(plan, 1);
        rc = time_runs(plan, &o, a, b, c, &call_ms, &kernel_ms);
    }
    if (rc) {
        status = app_failed(&program);
    } else {
        double flop = 2.0 * o.m * o.k * o.n;
        char tile[64] = "";
        if (matmul_plan_tile(plan))
            matmul_tile_format(matmul_plan_tile(plan), tile, sizeof tile);
        printf("%s %u x %u x %u%s%s: %.3f ms per call, %.2f GFLOP/s",
               app_version_name(&matmul_versions, o.version), o.m, o.k, o.n,
               *tile ? " tile " : "", tile, call_ms,
               flop / call_ms * 1e-6);
        if (kernel_ms > 0)
            printf("; kernel %.3f ms, %.2f GFLOP/s", kernel_ms,
                   flop / kernel_ms * 1e-6);
        printf("\n");
    }
    if (status == 0 && o.check) {
        double worst;
        long wrong = matmul_compare(a, b, c, o.m, o.k, o.n, &worst);
        printf("check: %s (%ld elements beyond the bound, worst error %.3g "
               "of its bound)\n", wrong == 0 ? "ok" : "FAILED", wrong, worst);
        status = wrong == 0 ? 0 : 1;
    }
    matmul_plan_free(plan);
    matrix_free(&o, a);
    matrix_free(&o, b);
    matrix_free(&o, c);
    return status;
}
