/*
 * median.h: the median every benchmark and timing reports: the library's
 * (bench/, through bench.h) and the apps' (their benchmarks and tuners),
 * who include it as "median.h"; header-only, so that
 * programs that link nothing but clframe can use it.
 */
#ifndef CLFRAME_BENCH_MEDIAN_H
#define CLFRAME_BENCH_MEDIAN_H

#include <stdlib.h>

static inline int median_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of x[0..n-1], n > 0; sorts x. */
static inline double median_of(double *x, int n)
{
    qsort(x, (size_t)n, sizeof *x, median_cmp_double);
    return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

#endif /* CLFRAME_BENCH_MEDIAN_H */
