/*
 * mpi.c (bin/bench-mpi): the heat world and the Laplace solver over MPI
 * ranks (apps/mpi) against one rank of the same job (issue 23).
 *
 * For each app and size, rank 0 first runs alone, on a communicator of its
 * own (MPI_Comm_split) while the other ranks wait, then all R ranks run.
 * A run is one collective call (heat_step_mpi, laplace_solve_mpi) between
 * two barriers, timed by rank 0. The same call with 0 steps prices what is
 * not stepping (scatter, upload, read-back, gather), so a run's ms per step
 * is (call - setup) / steps; the table gives the medians over the runs.
 * An untimed call of a few steps first warms the kernel caches. Strong
 * scaling efficiency: t1 / (R * tR), the same grid on 1 and on R ranks.
 *
 * usage: mpirun -n R bench-mpi [sizes=1000] [steps=100] [runs=3]
 *                              [apps=heat,laplace]
 * The GPU machine's figures (bench/RESULTS.md): sizes 5000,20000,32000
 * with 1000 steps for heat, 4000,16000 with 1000 iterations for laplace.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "clframe.h"
#include "mpi/heat_mpi.h"
#include "mpi/laplace_mpi.h"
#include "mpi/slab.h"
#include "common/clock.h"
#include "common/error.h"
#include "common/median.h"
#include "common/parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_RUNS = 101, MAX_SIZES = 16, WARM_STEPS = 8, KEY_SIZE = 320 };

/* An app as the bench drives it: rank 0 makes the grid, every rank runs. */
typedef struct bench_app {
    const char *name;
    int (*make)(void **grid, unsigned n);
    int (*run)(void *grid, unsigned steps, MPI_Comm comm, clctx *ctx);
    void (*drop)(void *grid);
} bench_app;

static int heat_make(void **grid, unsigned n)
{
    heat_world *w = calloc(1, sizeof *w);
    *grid = w;
    if (!w)
        return app_fail(APP_ERR_NO_MEMORY, "bench-mpi: no memory");
    return heat_world_make_standard(w, n, 0.1f);
}

static int heat_run(void *grid, unsigned steps, MPI_Comm comm, clctx *ctx)
{
    return heat_step_mpi(grid, 0.1f, steps, comm, ctx, NULL);
}

static void heat_drop(void *grid)
{
    if (grid)
        heat_world_free(grid);
    free(grid);
}

/* The seed's problem: border at 0, a centred n/4 square at 1. */
static int laplace_make(void **grid, unsigned n)
{
    laplace_grid *g = calloc(1, sizeof *g);
    *grid = g;
    if (!g)
        return app_fail(APP_ERR_NO_MEMORY, "bench-mpi: no memory");
    return laplace_grid_make(g, n, n, 0.0f, 1.0f, n / 4, n / 4);
}

/* A fixed number of iterations: tolerance 0 makes no checks. */
static int laplace_run(void *grid, unsigned steps, MPI_Comm comm,
                       clctx *ctx)
{
    laplace_plan plan = {steps, 0.0f, 1};
    return laplace_solve_mpi(grid, &plan, comm, ctx, NULL);
}

static void laplace_drop(void *grid)
{
    if (grid)
        laplace_grid_free(grid);
    free(grid);
}

static const bench_app APPS[] = {
    {"heat", heat_make, heat_run, heat_drop},
    {"laplace", laplace_make, laplace_run, laplace_drop},
};
enum { APP_COUNT = sizeof APPS / sizeof APPS[0] };

/* What one app, size and communicator measured (rank 0's figures). */
typedef struct measured {
    double call_ms, setup_ms, step_ms;
} measured;

/* Waits at a barrier of comm without spinning on it: a rank polling MPI
 * flat out would take a core from rank 0's device (PoCL on a small CPU). */
static void wait_quietly(MPI_Comm comm)
{
    MPI_Request request;
    int done = 0;
    MPI_Ibarrier(comm, &request);
    for (;;) {
        MPI_Test(&request, &done, MPI_STATUS_IGNORE);
        if (done)
            return;
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
}

/* One collective call between barriers, by rank 0's clock. */
static int time_call(const bench_app *app, void *grid, unsigned steps,
                     MPI_Comm comm, clctx *ctx, double *ms)
{
    MPI_Barrier(comm);
    double t0 = clock_ms();
    int rc = app->run(grid, steps, comm, ctx);
    MPI_Barrier(comm);
    *ms = clock_ms() - t0;
    return rc;
}

/* The warm-up, then `runs` pairs of a 0-step call and a `steps` call on
 * comm's ranks; the code every rank agreed on. */
static int measure(const bench_app *app, void *grid, unsigned steps,
                   int runs, MPI_Comm comm, clctx *ctx, measured *m)
{
    double call[MAX_RUNS], setup[MAX_RUNS], step[MAX_RUNS], warm;
    int rc = time_call(app, grid, steps < WARM_STEPS ? steps : WARM_STEPS,
                       comm, ctx, &warm);
    for (int i = 0; i < runs && rc == 0; i++) {
        rc = time_call(app, grid, 0, comm, ctx, &setup[i]);
        if (rc == 0)
            rc = time_call(app, grid, steps, comm, ctx, &call[i]);
        if (rc == 0)
            step[i] = (call[i] - setup[i]) / steps;
    }
    if (rc == 0)
        *m = (measured){median_of(call, runs), median_of(setup, runs),
                        median_of(step, runs)};
    return rc;
}

/* Rank 0 alone on `alone` while the others (given MPI_COMM_NULL) wait;
 * rank 0's code, which the others get as SLAB_ERR_ELSEWHERE. */
static int measure_alone(const bench_app *app, void *grid, unsigned steps,
                         int runs, MPI_Comm alone, clctx *ctx, measured *m)
{
    int rc = 0, rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (alone != MPI_COMM_NULL)
        rc = measure(app, grid, steps, runs, alone, ctx, m);
    wait_quietly(MPI_COMM_WORLD);
    int rc0 = rc;
    MPI_Bcast(&rc0, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return rank == 0 || rc0 == 0 ? rc0 : SLAB_ERR_ELSEWHERE;
}

static void print_row(const bench_app *app, unsigned n, int ranks,
                      const measured *m, double t1_ms)
{
    printf("| %s | %u x %u | %d | %.1f | %.1f | %.4f | %.2f | %.2f |\n",
           app->name, n, n, ranks, m->call_ms, m->setup_ms, m->step_ms,
           (double)n * n / (m->step_ms * 1e6), t1_ms / (ranks * m->step_ms));
}

/* One app at one size: its rows of the table. The agreed code. */
static int bench_size(const bench_app *app, unsigned n, unsigned steps,
                      int runs, MPI_Comm alone, clctx *ctx)
{
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    void *grid = NULL;
    int rc = slab_agree(MPI_COMM_WORLD, rank == 0 ? app->make(&grid, n) : 0);
    measured one = {0}, all = {0};
    if (rc == 0 && ranks > 1)
        rc = measure_alone(app, grid, steps, runs, alone, ctx, &one);
    if (rc == 0)
        rc = measure(app, grid, steps, runs, MPI_COMM_WORLD, ctx, &all);
    if (rc == 0 && rank == 0) {
        if (ranks > 1)
            print_row(app, n, 1, &one, one.step_ms);
        print_row(app, n, ranks, &all, ranks > 1 ? one.step_ms : all.step_ms);
        fflush(stdout);
    }
    if (rank == 0)
        app->drop(grid);
    return rc;
}

/* "host, platform P device D": the same string on two ranks means one
 * device. Read from clctx_describe, whose format is "NAME [...], platform
 * P device D: why" (the why holds the rank's index, so it differs). */
static void device_key(clctx *ctx, char key[KEY_SIZE])
{
    char host[MPI_MAX_PROCESSOR_NAME];
    int length;
    unsigned p = 0, d = 0;
    MPI_Get_processor_name(host, &length);
    const char *at = strstr(clctx_describe(ctx), "], platform ");
    if (at)
        sscanf(at, "], platform %u device %u", &p, &d);
    snprintf(key, KEY_SIZE, "%s, platform %u device %u", host, p, d);
}

/* Rank 0 prints its device and each rank's, and whether ranks share one. */
static void print_devices(clctx *ctx)
{
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    char mine[KEY_SIZE], *keys = rank == 0 ? malloc((size_t)ranks * KEY_SIZE)
                                           : NULL;
    device_key(ctx, mine);
    MPI_Gather(mine, KEY_SIZE, MPI_CHAR, keys, KEY_SIZE, MPI_CHAR, 0,
               MPI_COMM_WORLD);
    if (rank != 0 || !keys)
        return;
    printf("rank 0's device: %s\n", clctx_describe(ctx));
    int devices = 0;
    for (int r = 0; r < ranks; r++) {
        const char *key = keys + (size_t)r * KEY_SIZE;
        int seen = 0;
        for (int q = 0; q < r && !seen; q++)
            seen = strcmp(key, keys + (size_t)q * KEY_SIZE) == 0;
        devices += !seen;
        printf("rank %d: %s\n", r, key);
    }
    printf("%d ranks on %d device(s)%s\n", ranks, devices, devices < ranks ?
           ": ranks share a device, whose time they divide" : "");
    free(keys);
}

static int app_field(const char *name, int number, void *selected)
{
    (void)number;
    for (int a = 0; a < APP_COUNT; a++)
        if (strcmp(name, APPS[a].name) == 0)
            return ((int *)selected)[a] = 1;
    return 0;
}

typedef struct options {
    unsigned long sizes[MAX_SIZES];
    int nsizes, selected[APP_COUNT];
    unsigned long steps, runs;
} options;

/* 1 if the command line is good; every rank reads the same one. */
static int parse_options(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->nsizes = parse_uint_list("sizes", argc > 1 ? argv[1] : "1000", 3,
                                65536, o->sizes, MAX_SIZES);
    int ok = o->nsizes > 0 && argc <= 5 &&
             parse_uint(argc > 2 ? argv[2] : "100", 1, 1000000, &o->steps) &&
             parse_uint(argc > 3 ? argv[3] : "3", 1, MAX_RUNS, &o->runs) &&
             parse_comma_list("apps", argc > 4 ? argv[4] : "heat,laplace", 1,
                              APP_COUNT, "an app (heat, laplace)", app_field,
                              o->selected);
    return ok;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    app_follow_clframe_errors();
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    options o;
    if (!parse_options(argc, argv, &o)) {
        if (rank == 0)
            fprintf(stderr, "bench-mpi: %s\nusage: mpirun -n R bench-mpi "
                    "[sizes=1000 (each 3..65536)] [steps=100] [runs=3 "
                    "(1..%d)] [apps=heat,laplace]\n", app_last_error(),
                    MAX_RUNS);
        MPI_Finalize();
        return 2;
    }
    clctx *ctx = slab_open_device(MPI_COMM_WORLD, NULL);
    int rc = slab_agree(MPI_COMM_WORLD, ctx ? 0 : CLFRAME_ERR_NO_DEVICE);
    MPI_Comm alone;
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : MPI_UNDEFINED, 0, &alone);
    if (rc == 0) {
        print_devices(ctx);
        if (rank == 0)
            printf("%lu steps (iterations) a run; median of %d runs, each "
                   "after a 0-step run for the setup\n\n| app | grid | ranks "
                   "| call ms | setup ms | ms per step | Gcells/s | "
                   "efficiency |\n|---|---|---:|---:|---:|---:|---:|---:|\n",
                   o.steps, (int)o.runs);
    }
    for (int a = 0; a < APP_COUNT && rc == 0; a++)
        for (int i = 0; i < o.nsizes && rc == 0 && o.selected[a]; i++)
            rc = bench_size(&APPS[a], (unsigned)o.sizes[i],
                            (unsigned)o.steps, (int)o.runs, alone, ctx);
    if (rc == 0 && rank == 0)
        printf("\nms per step: (call - setup) / steps; Gcells/s: cells "
               "stepped per second; efficiency: t1 / (ranks x t).\n");
    if (rc && rc != SLAB_ERR_ELSEWHERE)
        fprintf(stderr, "bench-mpi: rank %d: %s\n", rank, app_last_error());
    if (alone != MPI_COMM_NULL)
        MPI_Comm_free(&alone);
    clctx_free(ctx);
    MPI_Finalize();
    return rc ? 1 : 0;
}
