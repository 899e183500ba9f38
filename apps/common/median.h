/*
 * stats.h: the median every benchmark reports, shared by the programs in
 * bench/ (each is one folder of .c files; they share this header and
 * bandwidth.h).
 */
#ifndef CLFRAME_BENCH_STATS_H
#define CLFRAME_BENCH_STATS_H

#include <stdlib.h>

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of x[0..n-1], n > 0; sorts x. */
static inline double bench_median(double *x, int n)
{
    qsort(x, (size_t)n, sizeof *x, bench_cmp_double);
    return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

#endif
