/*
 * mpi.c (bin/bench-mpi): the heat world and the Laplace solver stepped
 * over MPI ranks (apps/mpi) against one rank of the same job (issue 23).
 *
 * For each app and size n, three rows: rank 0 alone on a communicator of
 * its own (MPI_Comm_split) while the other ranks wait; every rank apart,
 * each stepping a grid of n*n/R cells of its own with no exchange (what
 * sharing a device costs, without the halos); and all R ranks on the n x n
 * grid. Each opens its part once (heat_part_open, laplace_part_open, as
 * heat_step_mpi and laplace_solve_mpi do), steps a few
 * times untimed to warm the caches, then times `runs` calls of
 * slab_advance between barriers by rank 0's clock, the device finished.
 * Only the stepping is timed, exchanges included: a whole call's setup
 * (scatter, upload, read-back, gather) took seconds at the large sizes
 * and varied by more than the stepping took. Efficiency: cells per second
 * against R times one rank's (strong scaling: t1 / (R tR) for the grid).
 *
 * usage: mpirun -n R bench-mpi [sizes=1000] [steps=100] [runs=3]
 *                              [apps=heat,laplace]
 * The GPU machine's runs (bench/RESULTS.md): 5000,20000,32000 1000 5 heat
 * and 4000,16000 1000 5 laplace.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "clframe.h"
#include "mpi/heat_mpi.h"
#include "mpi/laplace_mpi.h"
#include "common/clock.h"
#include "common/error.h"
#include "common/median.h"
#include "common/parse.h"
#include "common/stencil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_RUNS = 101, MAX_SIZES = 16, WARM_STEPS = 8, KEY_SIZE = 320 };
static const float ALPHA = 0.1f, DT = 0.1f;

/* A rank's part of one app's grid on its device, ready to step: the
 * heat world's or the Laplace grid's, and what stepping it takes. */
typedef struct session {
    heat_part heat;
    laplace_part laplace;
    laplace_stats stats;        /* Laplace's stencil needs one */
    const slab *s;
    app_stencil *st;
    clstream *copy;
} session;

/* An app: rank 0 makes the whole grid; every rank opens and closes its
 * part of it (whole is NULL but on rank 0). */
typedef struct bench_app {
    const char *name;
    int (*make)(void **whole, unsigned n);
    void (*drop)(void *whole);
    int (*open)(session *x, void *whole, MPI_Comm comm, clctx *ctx);
    void (*close)(session *x);
} bench_app;

static int heat_make(void **whole, unsigned n)
{
    heat_world *w = calloc(1, sizeof *w);
    *whole = w;
    if (!w)
        return app_fail(APP_ERR_NO_MEMORY, "bench-mpi: no memory");
    return heat_world_make_standard(w, n, ALPHA);
}

static void heat_drop(void *whole)
{
    if (whole)
        heat_world_free(whole);
    free(whole);
}

static int heat_open(session *x, void *whole, MPI_Comm comm, clctx *ctx)
{
    int rc = heat_part_open(&x->heat, whole, DT, comm, ctx, NULL);
    x->s = &x->heat.s;
    x->st = x->heat.st;
    x->copy = x->heat.copy;
    return rc;
}

static void heat_close(session *x)
{
    heat_part_close(&x->heat);
}

/* The seed's problem: border at 0, a centred n/4 square at 1. */
static int laplace_make(void **whole, unsigned n)
{
    laplace_grid *g = calloc(1, sizeof *g);
    *whole = g;
    if (!g)
        return app_fail(APP_ERR_NO_MEMORY, "bench-mpi: no memory");
    return laplace_grid_make(g, n, n, 0.0f, 1.0f, n / 4, n / 4);
}

static void laplace_drop(void *whole)
{
    if (whole)
        laplace_grid_free(whole);
    free(whole);
}

static int laplace_open(session *x, void *whole, MPI_Comm comm, clctx *ctx)
{
    int rc = laplace_part_open(&x->laplace, whole, comm, ctx, &x->stats);
    x->s = &x->laplace.s;
    x->st = x->laplace.st;
    x->copy = x->laplace.copy;
    return rc;
}

static void laplace_close(session *x)
{
    laplace_part_close(&x->laplace);
}

static const bench_app APPS[] = {
    {"heat", heat_make, heat_drop, heat_open, heat_close},
    {"laplace", laplace_make, laplace_drop, laplace_open, laplace_close},
};
enum { APP_COUNT = sizeof APPS / sizeof APPS[0] };

/* Rank 0's figures for one row: ms per step, and the slab's shape. */
typedef struct measured {
    double median, least, most;
    unsigned block_rows, depth;
} measured;

/* `steps` steps between barriers of sync, by the clock of sync's rank 0;
 * the code agreed on sync. */
static int time_steps(session *x, unsigned steps, clctx *ctx, MPI_Comm sync,
                      double *ms)
{
    MPI_Barrier(sync);
    double t0 = clock_ms();
    int rc = slab_advance(x->s, x->st, steps, x->copy);
    if (rc == 0)
        rc = clctx_finish(ctx);
    MPI_Barrier(sync);
    *ms = clock_ms() - t0;
    return slab_agree(sync, rc);
}

/* An n x n grid made by comm's rank 0 and stepped over comm's ranks,
 * warmed, timed `runs` times with barriers on sync (comm, or every rank
 * when each runs apart); the code agreed on sync. */
static int measure(const bench_app *app, unsigned n, unsigned steps,
                   int runs, MPI_Comm comm, MPI_Comm sync, clctx *ctx,
                   measured *m)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    void *whole = NULL;
    session x = {0};
    int rc = slab_agree(comm, rank == 0 ? app->make(&whole, n) : 0);
    if (rc == 0)
        rc = app->open(&x, whole, comm, ctx);
    if (rank == 0)
        app->drop(whole);           /* the slabs hold it now */
    if (sync != comm)
        rc = slab_agree(sync, rc);
    double ms[MAX_RUNS], warm;
    if (rc == 0)
        rc = time_steps(&x, WARM_STEPS, ctx, sync, &warm);
    for (int i = 0; i < runs && rc == 0; i++) {
        rc = time_steps(&x, steps, ctx, sync, &ms[i]);
        ms[i] /= steps;
    }
    if (rc == 0) {
        double median = median_of(ms, runs);    /* sorts ms */
        *m = (measured){median, ms[0], ms[runs - 1], x.st->block_rows,
                        x.s->depth};
    }
    app->close(&x);
    return rc;
}

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

/* Rank 0 alone on `alone` while the others (given MPI_COMM_NULL) wait;
 * rank 0's code, which the others get as SLAB_ERR_ELSEWHERE. */
static int measure_alone(const bench_app *app, unsigned n, unsigned steps,
                         int runs, MPI_Comm alone, clctx *ctx, measured *m)
{
    int rc = 0, rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (alone != MPI_COMM_NULL)
        rc = measure(app, n, steps, runs, alone, alone, ctx, m);
    wait_quietly(MPI_COMM_WORLD);
    int rc0 = rc;
    MPI_Bcast(&rc0, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return rank == 0 || rc0 == 0 ? rc0 : SLAB_ERR_ELSEWHERE;
}

/* A row: `ranks` ranks stepped `cells` cells in all; one rank's cells
 * per second, gcells1, is what efficiency compares with. */
static void print_row(const bench_app *app, const char *grid,
                      const char *ranks, int count, double cells,
                      const measured *m, double gcells1)
{
    double gcells = cells / (m->median * 1e6);
    printf("| %s | %s | %s | %.4f | %.4f - %.4f | %.2f | %.2f | %u, %u |\n",
           app->name, grid, ranks, m->median, m->least, m->most, gcells,
           gcells / (count * gcells1), m->block_rows, m->depth);
}

/* One app at one size: its rows of the table. The agreed code. */
static int bench_size(const bench_app *app, unsigned n, unsigned steps,
                      int runs, MPI_Comm alone, clctx *ctx)
{
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    unsigned side = (unsigned)lround(n / sqrt(ranks));  /* n*n/R cells */
    measured one = {0}, apart = {0}, all = {0};
    int rc = 0;
    if (ranks > 1)
        rc = measure_alone(app, n, steps, runs, alone, ctx, &one);
    if (rc == 0 && ranks > 1)
        rc = measure(app, side, steps, runs, MPI_COMM_SELF, MPI_COMM_WORLD,
                     ctx, &apart);
    if (rc == 0)
        rc = measure(app, n, steps, runs, MPI_COMM_WORLD, MPI_COMM_WORLD,
                     ctx, &all);
    if (rc == 0 && rank == 0) {
        double cells = (double)n * n;
        double gcells1 = cells / ((ranks > 1 ? one : all).median * 1e6);
        char grid[64], each[64], count[32];
        snprintf(grid, sizeof grid, "%u x %u", n, n);
        snprintf(each, sizeof each, "%u x %u each", side, side);
        snprintf(count, sizeof count, "%d", ranks);
        if (ranks > 1) {
            print_row(app, grid, "1", 1, cells, &one, gcells1);
            snprintf(count, sizeof count, "%d apart", ranks);
            print_row(app, each, count, ranks, (double)side * side * ranks,
                      &apart, gcells1);
            snprintf(count, sizeof count, "%d", ranks);
        }
        print_row(app, grid, count, ranks, cells, &all, gcells1);
        fflush(stdout);
    }
    return rc;
}

/* "host, platform P device D": the same on two ranks means one device.
 * Read from clctx_describe ("NAME [...], platform P device D: why"),
 * whose why names the rank's index, so differs from rank to rank. */
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
    char mine[KEY_SIZE], *keys = NULL;
    if (rank == 0 && !(keys = malloc((size_t)ranks * KEY_SIZE)))
        MPI_Abort(MPI_COMM_WORLD, 1);
    device_key(ctx, mine);
    MPI_Gather(mine, KEY_SIZE, MPI_CHAR, keys, KEY_SIZE, MPI_CHAR, 0,
               MPI_COMM_WORLD);
    if (rank != 0)
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
    unsigned long sizes[MAX_SIZES], steps, runs;
    int nsizes, selected[APP_COUNT];
} options;

/* 1 if the command line is good; every rank reads the same one. */
static int parse_options(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->nsizes = parse_uint_list("sizes", argc > 1 ? argv[1] : "1000", 3,
                                65536, o->sizes, MAX_SIZES);
    return o->nsizes > 0 && argc <= 5 &&
           parse_uint(argc > 2 ? argv[2] : "100", 1, 1000000, &o->steps) &&
           parse_uint(argc > 3 ? argv[3] : "3", 1, MAX_RUNS, &o->runs) &&
           parse_comma_list("apps", argc > 4 ? argv[4] : "heat,laplace", 1,
                            APP_COUNT, "an app (heat, laplace)", app_field,
                            o->selected);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    app_follow_clframe_errors();
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
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
            printf("%lu steps (iterations) a run; median of %lu runs\n\n"
                   "| app | grid | ranks | ms per step | least - most | "
                   "Gcells/s | efficiency | tile rows, depth |\n"
                   "|---|---|---:|---:|---:|---:|---:|---:|\n", o.steps,
                   o.runs);
    }
    for (int a = 0; a < APP_COUNT && rc == 0; a++)
        for (int i = 0; i < o.nsizes && rc == 0 && o.selected[a]; i++)
            rc = bench_size(&APPS[a], (unsigned)o.sizes[i],
                            (unsigned)o.steps, (int)o.runs, alone, ctx);
    if (rc == 0 && rank == 0)
        printf("\nms per step: slab_advance's time over the steps, the "
               "device finished; Gcells/s: cells stepped per second (all "
               "ranks'); efficiency: that over ranks x one rank's; tile "
               "rows: the rows of output a row of tiles makes; depth: the "
               "halo's rows, and steps between exchanges.\n");
    if (rc && rc != SLAB_ERR_ELSEWHERE)
        fprintf(stderr, "bench-mpi: rank %d: %s\n", rank, app_last_error());
    if (alone != MPI_COMM_NULL)
        MPI_Comm_free(&alone);
    clctx_free(ctx);
    MPI_Finalize();
    return rc ? 1 : 0;
}
