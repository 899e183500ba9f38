/*
 * laplace_clframe.c: the seed's Laplace solver, apps/laplace's
 * laplace_seed_update then laplace_seed_copy each Jacobi iteration, on the
 * seed's problem (the app's default: border at 0, a centred conductor a
 * quarter of each side at 1), through clframe: the clframe one of issue
 * 25's three host programs per workload, whose lines bench/cuda/effort/count
 * compares. It prints the kernels' time from their profiling events and
 * checks the potential bit for bit against the app's C reference (the
 * grid and the reference are apps/laplace's helpers, shared by the three
 * programs and not counted). From the repository's root, after make:
 *
 *   cc -std=c11 -O2 -Wall -Wextra -Werror -Iclframe -Iapps -o bin/effort-laplace-clframe apps/laplace/cuda/effort/laplace_clframe.c build/liblaplace.a build/libcommon.a build/libclframe.a -lOpenCL -lpng16 -lm -fopenmp && bin/effort-laplace-clframe 200 200 100
 */
#include "clframe.h"
#include "common/error.h"
#include "laplace/laplace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KERNEL_FILE "apps/laplace/kernels/laplace.cl"
/* The file's other kernels need this to compile (the app's value). */
#define KERNEL_OPTIONS "-DLAPLACE_ROWS=4"
enum { GROUP_W = 32, GROUP_H = 8 };     /* the app's work-group */

/* Stops the program on a clframe failure, which left the reason. */
static void check(int rc)
{
    if (rc) {
        fprintf(stderr, "%s\n", clframe_last_error());
        exit(1);
    }
}

/* One of the seed's kernels over the grid, timed. */
static clkernel *build(const char *name, cl_uint nx, cl_uint ny)
{
    clkernel *k = clkernel_file(NULL, KERNEL_FILE, name, KERNEL_OPTIONS);
    check(!k);
    check(clkernel_global(k, clframe_round_up(nx, GROUP_W),
                          clframe_round_up(ny, GROUP_H)));
    check(clkernel_local(k, GROUP_W, GROUP_H));
    check(clkernel_set_timing(k, 1));
    return k;
}

int main(int argc, char **argv)
{
    cl_uint nx = argc > 1 ? (cl_uint)atoi(argv[1]) : 200;
    cl_uint ny = argc > 2 ? (cl_uint)atoi(argv[2]) : 200;
    int iterations = argc > 3 ? atoi(argv[3]) : 100;
    uint32_t w, h;
    laplace_grid g, ref;
    if (iterations < 0 || !laplace_object_parse("0.25x0.25", nx, ny, &w, &h) ||
        laplace_grid_make(&g, nx, ny, 0.0f, 1.0f, w, h) ||
        laplace_grid_copy(&ref, &g)) {
        fprintf(stderr, "usage: laplace_clframe [nx ny iterations] (%s)\n",
                app_last_error());
        return 2;
    }
    size_t cells = (size_t)nx * ny;
    cl_int *mask = malloc(cells * sizeof *mask);
    if (!mask) {
        fprintf(stderr, "no memory for %u x %u\n", nx, ny);
        return 1;
    }
    for (size_t i = 0; i < cells; i++)  /* the seed's kernels take ints */
        mask[i] = g.mask[i];

    clkernel *update = build("laplace_seed_update", nx, ny);
    clkernel *copy = build("laplace_seed_copy", nx, ny);
    /* phi and old_phi both start as the grid and stay on the device. */
    clarg phi = CLARG_INOUT(g.phi, cells), old_phi = CLARG_INOUT(g.phi, cells);
    clarg dmask = CLARG_IN(mask, cells);
    check(clarg_keep_on_device(&phi, NULL, 1));
    check(clarg_keep_on_device(&old_phi, NULL, 1));
    check(clarg_keep_on_device(&dmask, NULL, 1));
    for (int t = 0; t < iterations; t++) {
        check(clkernel_enqueue(update, phi, old_phi, dmask, CLARG(nx),
                               CLARG(ny)));
        check(clkernel_enqueue(copy, phi, old_phi, dmask, CLARG(nx),
                               CLARG(ny)));
    }
    check(clarg_read(&phi));
    double ms = clkernel_total_ms(update) + clkernel_total_ms(copy);

    laplace_plan plan = {.iterations = iterations, .check_every = 1};
    int ok = laplace_solve(&ref, &plan, LAPLACE_REFERENCE, NULL, NULL) == 0 &&
             memcmp(g.phi, ref.phi, cells * sizeof *g.phi) == 0;
    printf("laplace seed, %u x %u, %d iterations: %.3f ms, %s\n", nx, ny,
           iterations, ms, ok ? "checked" : "WRONG");

    clarg_release(&phi);
    clarg_release(&old_phi);
    clarg_release(&dmask);
    clkernel_free(update);
    clkernel_free(copy);
    free(mask);
    laplace_grid_free(&g);
    laplace_grid_free(&ref);
    return ok ? 0 : 1;
}
