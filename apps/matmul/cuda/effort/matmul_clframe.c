/*
 * matmul_clframe.c: C = A x B for n x n floats by apps/matmul's tiled
 * kernel (matmul_tiled, 16 x 16), through clframe: the clframe one of
 * the three host programs per workload, whose lines bench/cuda/effort/count
 * compares. It runs on clframe's default device, prints the kernel's time
 * from its profiling event and checks C with the app's matmul_compare (the
 * input and the check are apps/matmul's helpers, shared by the three
 * programs and not counted). From the repository's root, after make:
 *
 *   cc -std=c11 -O2 -Wall -Wextra -Werror -Iclframe -Iapps -o bin/effort-matmul-clframe apps/matmul/cuda/effort/matmul_clframe.c build/libmatmul.a build/libcommon.a build/libclframe.a -lOpenCL -lpng16 -lm -fopenmp && bin/effort-matmul-clframe 512
 */
#include "clframe.h"
#include "matmul/matmul.h"

#include <stdio.h>
#include <stdlib.h>

#define TILE 16         /* the kernel's required work-group size */

/* Stops the program on a clframe failure, which left the reason. */
static void check(int rc)
{
    if (rc) {
        fprintf(stderr, "%s\n", clframe_last_error());
        exit(1);
    }
}

int main(int argc, char **argv)
{
    cl_uint n = argc > 1 ? (cl_uint)atoi(argv[1]) : 512;
    if (n < 1 || n > 16384) {
        fprintf(stderr, "usage: matmul_clframe [n=512 (1 to 16384)]\n");
        return 2;
    }
    size_t count = (size_t)n * n;
    float *a = malloc(count * sizeof *a), *b = malloc(count * sizeof *b),
          *c = malloc(count * sizeof *c);
    if (!a || !b || !c) {
        fprintf(stderr, "no memory for n = %u\n", n);
        return 1;
    }
    uint32_t seed = 1;
    matmul_random_fill(a, count, &seed);
    matmul_random_fill(b, count, &seed);

    clkernel *k = clkernel_file(NULL, "apps/matmul/kernels/matmul.cl",
                                "matmul_tiled", NULL);
    check(!k);
    /* The kernel guards its edges: the global size is n rounded up. */
    size_t global = clframe_round_up(n, TILE);
    check(clkernel_global(k, global, global));
    check(clkernel_local(k, TILE, TILE));
    check(clkernel_set_timing(k, 1));
    check(clkernel_call(k, CLARG_IN(a, count), CLARG_IN(b, count),
                        CLARG_OUT(c, count), CLARG(n), CLARG(n), CLARG(n)));
    double ms = clkernel_last_ms(k);

    long wrong = matmul_compare(a, b, c, n, n, n, NULL);
    printf("matmul_tiled, n = %u: %.3f ms, %.1f GFLOP/s, %s\n", n, ms,
           2.0 * n * n * n / ms * 1e-6, wrong ? "WRONG" : "checked");
    if (wrong)
        printf("elements beyond their bound: %ld\n", wrong);

    clkernel_free(k);
    free(a);
    free(b);
    free(c);
    return wrong ? 1 : 0;
}
