/*
 * matmul_ref.c: the plain C reference (one thread), its OpenMP twin,
 * matmul_compare, the check every test and program uses, and the random
 * matrices of the programs.
 *
 * The loop is cache-blocked: C is computed in blocks of REF_MB rows, and
 * for each block the sum over k runs in slices of REF_KB, each slice
 * sweeping n in strips of REF_NB columns. In a strip the innermost loop is
 * c[i][j] += a[i][p] * b[p][j] over j: unit stride in B and C, which the
 * compiler vectorises, while the REF_KB x REF_NB slice of B (256 x 512
 * floats = 512 KiB, L2-sized) is reused by all REF_MB rows.
 */
#include "matmul.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

enum { REF_MB = 64, REF_KB = 256, REF_NB = 512 };

static size_t min_size(size_t x, size_t y)
{
    return x < y ? x : y;
}

/* Rows [i0, i1) of C: zeroed, then every (k, n) block added in. */
static void ref_row_block(const float *a, const float *b, float *c, size_t i0,
                          size_t i1, size_t k, size_t n)
{
    memset(c + i0 * n, 0, (i1 - i0) * n * sizeof *c);
    for (size_t p0 = 0; p0 < k; p0 += REF_KB) {
        size_t p1 = min_size(p0 + REF_KB, k);
        for (size_t j0 = 0; j0 < n; j0 += REF_NB) {
            size_t j1 = min_size(j0 + REF_NB, n);
            for (size_t i = i0; i < i1; i++) {
                float *ci = c + i * n;
                for (size_t p = p0; p < p1; p++) {
                    float aip = a[i * k + p];
                    const float *bp = b + p * n;
                    for (size_t j = j0; j < j1; j++)
                        ci[j] += aip * bp[j];
                }
            }
        }
    }
}

static int ref_run(const float *a, const float *b, float *c, uint32_t m,
                   uint32_t k, uint32_t n, int parallel)
{
    int rc = matmul_check_args(a, b, c, m, k, n);
    if (rc)
        return rc;
    long blocks = (long)((m + REF_MB - 1) / REF_MB);
    (void)parallel;                 /* read only by the pragma */
#ifdef _OPENMP                      /* OPENMP_FLAGS= builds without it */
#pragma omp parallel for schedule(dynamic) if (parallel)
#endif
    for (long blk = 0; blk < blocks; blk++) {
        size_t i0 = (size_t)blk * REF_MB;
        ref_row_block(a, b, c, i0, min_size(i0 + REF_MB, m), k, n);
    }
    return 0;
}

int matmul_reference(const float *a, const float *b, float *c, uint32_t m,
                     uint32_t k, uint32_t n)
{
    return ref_run(a, b, c, m, k, n, 0);
}

int matmul_openmp(const float *a, const float *b, float *c, uint32_t m,
                  uint32_t k, uint32_t n)
{
    return ref_run(a, b, c, m, k, n, 1);
}

int matmul_openmp_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

/* One row of the exact product and of its error bound's sum, in double. */
static void compare_row(const float *a, const float *b, size_t i, size_t k,
                        size_t n, double *exact, double *magnitude)
{
    for (size_t j = 0; j < n; j++)
        exact[j] = magnitude[j] = 0;
    for (size_t p = 0; p < k; p++) {
        double aip = a[i * k + p];
        const float *bp = b + p * n;
        for (size_t j = 0; j < n; j++) {
            exact[j] += aip * bp[j];
            magnitude[j] += fabs(aip * bp[j]);
        }
    }
}

long matmul_compare(const float *a, const float *b, const float *c,
                    uint32_t m, uint32_t k, uint32_t n, double *worst)
{
    double *row = malloc(2 * (size_t)n * sizeof *row);
    if (!row)
        return -1;
    const double scale = (double)k * ldexp(1.0, -22);
    long bad = 0;
    double max_ratio = 0;
    for (size_t i = 0; i < m; i++) {
        compare_row(a, b, i, k, n, row, row + n);
        for (size_t j = 0; j < n; j++) {
            double err = fabs((double)c[i * n + j] - row[j]);
            double bound = scale * row[n + j];
            /* NaN fails both tests: counted as bad. */
            if (!(err <= bound))
                bad++;
            double ratio = bound > 0 ? err / bound : err > 0 ? INFINITY : 0;
            if (!(ratio <= max_ratio))
                max_ratio = ratio;
        }
    }
    free(row);
    if (worst)
        *worst = max_ratio;
    return bad;
}

void matmul_random_fill(float *p, size_t count, uint32_t *state)
{
    for (size_t i = 0; i < count; i++) {
        *state = *state * 1664525u + 1013904223u;
        p[i] = (float)(*state >> 8) / (1 << 23) - 1.0f;
    }
}
