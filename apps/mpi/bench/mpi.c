/*
 * mpi.c (bin/bench-mpi): the heat world and the Laplace solver stepped
 * over MPI ranks (apps/mpi) against one rank of the same job.
 *
 * For each app and size n, the grid is n x n (strong scaling) or, with
 * `weak`, n x n cells per rank (a square of side n sqrt(R)). Its rows:
 * rank 0 alone on the grid, on a communicator of its own, while the other
 * ranks wait (and, weak, alone on n x n: the reference); every rank apart,
 * each on a grid of its own of the same cells per rank with no exchange;
 * and all R ranks on the grid, once per halo depth and staging asked for.
 * Each opens its part once (heat_part_open, laplace_part_open, as
 * heat_step_mpi and laplace_solve_mpi do), steps a few times untimed,
 * then times `runs` calls of slab_advance between barriers by rank 0's
 * clock, the device finished. Only the stepping is timed: a whole call's
 * setup (scatter, upload, read-back, gather) outweighs the stepping at
 * large sizes and varies by more than the stepping takes.
 *
 * Efficiency: cells per second against R times the reference's (rank 0
 * alone on the grid, or on n x n when weak). Exchange share: the part of
 * the R ranks' time that the apart rows do not take, 1 - t_apart / t_R.
 * The host's time per exchange in reading the rows sent and in MPI is
 * the largest over the ranks. Every R row's final state, gathered, is
 * compared with rank 0's alone on the same grid after as many steps.
 *
 * usage: mpirun -n R bench-mpi [sizes=1000] [steps=100] [runs=3]
 *          [apps=heat,laplace] [weak] [depths=16] [staging=pinned]
 * (depths: halo rows, a list; staging: pinned, pageable or both). The
 * GPU machines' runs are in bench/RESULTS.md.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "clframe.h"
#include "mpi/heat_mpi.h"
#include "mpi/laplace_mpi.h"
#include "common/clock.h"
#include "common/error.h"
#include "median.h"
#include "common/parse.h"
#include "common/stencil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_RUNS = 101, MAX_STEPS = 1000000, MAX_SIZES = 16, MAX_SIDE = 65536,
       MAX_DEPTHS = 8, WARM_STEPS = 8, KEY_SIZE = 320 };
static const float ALPHA = 0.1f, DT = 0.1f;

/* A rank's part of one app's grid on its device, ready to step: the
 * heat world's or the Laplace grid's, and what stepping it takes. */
typedef struct session {
    const slab_options *o;
    heat_part heat;
    laplace_part laplace;
    laplace_stats stats;        /* Laplace's stencil needs one */
    const slab *s;
    app_stencil *st;
    clstream *copy;
    int pinned;                 /* the state in pinned memory */
} session;

/* An app: rank 0 makes the whole grid of a side up to max_side; every
 * rank opens and closes its part of it (whole is NULL but on rank 0). */
typedef struct bench_app {
    const char *name;
    unsigned long max_side;
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
    int rc = heat_part_open(&x->heat, whole, DT, comm, ctx, x->o, NULL);
    x->s = &x->heat.s;
    x->st = x->heat.st;
    x->copy = x->heat.copy;
    x->pinned = x->heat.pinned;
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
    int rc = laplace_part_open(&x->laplace, whole, comm, ctx, x->o,
                               &x->stats);
    x->s = &x->laplace.s;
    x->st = x->laplace.st;
    x->copy = x->laplace.copy;
    x->pinned = x->laplace.pinned;
    return rc;
}

static void laplace_close(session *x)
{
    laplace_part_close(&x->laplace);
}

/* The heat world's largest side: the largest square of at most
 * HEAT_WORLD_MAX_CELLS cells. */
#define HEAT_MAX_SIDE 46340UL
_Static_assert(HEAT_MAX_SIDE * HEAT_MAX_SIDE <= HEAT_WORLD_MAX_CELLS &&
               (HEAT_MAX_SIDE + 1) * (HEAT_MAX_SIDE + 1) >
               HEAT_WORLD_MAX_CELLS, "HEAT_MAX_SIDE is the largest square");

static const bench_app APPS[] = {
    {"heat", HEAT_MAX_SIDE, heat_make, heat_drop, heat_open, heat_close},
    {"laplace", LAPLACE_MAX_SIDE, laplace_make, laplace_drop, laplace_open,
     laplace_close},
};
enum { APP_COUNT = sizeof APPS / sizeof APPS[0] };

/* What the job asks for, the same on every rank. */
typedef struct options {
    unsigned long sizes[MAX_SIZES], depths[MAX_DEPTHS], steps, runs;
    int nsizes, ndepths, selected[APP_COUNT], weak;
    int staging[2];             /* [0]: pinned, [1]: pageable */
} options;

/* Rank 0's figures for one row: ms per step, the host's ms per exchange
 * (the most of any rank), and the slab's shape. */
typedef struct measured {
    double median, least, most, read_ms, mpi_ms;
    unsigned block_rows, depth;
    int pinned;
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

/* The state at the end, read back and gathered on comm's rank 0 into
 * final. The code agreed on comm. */
static int gather_state(session *x, MPI_Comm comm, float *final)
{
    int rc = slab_agree(comm, clarg_read(&x->st->cur));
    if (rc == 0)
        slab_gather(x->s, x->st->cur.host, final, sizeof *final);
    return rc;
}

/* whole (read on comm's rank 0) stepped over comm's ranks as o says,
 * warmed and timed opt->runs times with barriers on sync (comm, or every
 * rank when each runs apart); with `gather`, the state at the end goes to
 * final on comm's rank 0. The code agreed on sync. */
static int measure(const bench_app *app, void *whole, const options *opt,
                   const slab_options *o, MPI_Comm comm, MPI_Comm sync,
                   clctx *ctx, measured *m, int gather, float *final)
{
    slab_times times = {0};
    slab_options timed = *o;
    timed.times = &times;
    session x = {.o = &timed};
    int rc = app->open(&x, whole, comm, ctx);
    if (sync != comm)
        rc = slab_agree(sync, rc);
    double ms[MAX_RUNS], warm;
    int runs = (int)opt->runs;
    if (rc == 0)
        rc = time_steps(&x, WARM_STEPS, ctx, sync, &warm);
    times = (slab_times){0};
    for (int i = 0; i < runs && rc == 0; i++) {
        rc = time_steps(&x, (unsigned)opt->steps, ctx, sync, &ms[i]);
        ms[i] /= (double)opt->steps;
    }
    if (rc == 0) {
        unsigned n = times.exchanges ? times.exchanges : 1;
        double mine[2] = {times.read_ms / n, times.mpi_ms / n}, most[2];
        MPI_Allreduce(mine, most, 2, MPI_DOUBLE, MPI_MAX, comm);
        double median = median_of(ms, runs);    /* sorts ms */
        *m = (measured){median, ms[0], ms[runs - 1], most[0], most[1],
                        x.st->block_rows, x.s->depth, x.pinned};
    }
    if (rc == 0 && gather)
        rc = gather_state(&x, comm, final);
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
 * whole and final are rank 0's. Rank 0's code, which the others get as
 * SLAB_ERR_ELSEWHERE. */
static int measure_alone(const bench_app *app, void *whole,
                         const options *opt, const slab_options *o,
                         MPI_Comm alone, clctx *ctx, measured *m,
                         float *final)
{
    int rc = 0, rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (alone != MPI_COMM_NULL)
        rc = measure(app, whole, opt, o, alone, alone, ctx, m, final != NULL,
                     final);
    wait_quietly(MPI_COMM_WORLD);
    int rc0 = rc;
    MPI_Bcast(&rc0, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return rank == 0 || rc0 == 0 ? rc0 : SLAB_ERR_ELSEWHERE;
}

/* Every rank on a grid of side n of its own, with no exchange; the code
 * agreed on every rank. */
static int measure_apart(const bench_app *app, unsigned n, const options *opt,
                         const slab_options *o, clctx *ctx, measured *m)
{
    void *mine = NULL;
    int rc = slab_agree(MPI_COMM_WORLD, app->make(&mine, n));
    if (rc == 0)
        rc = measure(app, mine, opt, o, MPI_COMM_SELF, MPI_COMM_WORLD, ctx,
                     m, 0, NULL);
    app->drop(mine);
    return rc;
}

/* A row of the table, printed by rank 0: `count` ranks stepped `cells`
 * cells; gcells_ref is the reference's cells per second, against which
 * efficiency is taken. The exchange share, host times and output check
 * are shown where share >= -1 (rows of ranks that exchange). */
typedef struct row {
    const char *grid, *ranks, *staging, *output;
    int count;
    double cells, share;
} row;

static void print_row(const bench_app *app, const row *r, const measured *m,
                      double gcells_ref)
{
    double gcells = r->cells / (m->median * 1e6);
    printf("| %s | %s | %s | %u, %u, %s | %.4f | %.4f - %.4f | %.2f | %.2f |",
           app->name, r->grid, r->ranks, m->block_rows, m->depth, r->staging,
           m->median,
           m->least, m->most, gcells, gcells / (r->count * gcells_ref));
    if (r->share >= -1)
        printf(" %.1f %% | %.3f, %.3f | %s |\n", 100 * r->share, m->read_ms,
               m->mpi_ms, r->output);
    else
        printf(" - | - | - |\n");
    fflush(stdout);
}

/* Whether rank 0's two states are the same bytes: "same" or where not. */
static const char *compare_states(const float *want, const float *got,
                                  unsigned side, char *said, size_t size)
{
    size_t n = (size_t)side * side, i = 0;
    if (memcmp(want, got, n * sizeof *got) == 0)
        return "same";
    while (!memcmp(&want[i], &got[i], sizeof *got))
        i++;
    snprintf(said, size, "DIFFERS at x=%zu y=%zu", i % side, i / side);
    return said;
}

/* The rows of all ranks on the grid, one per depth and staging asked
 * for, each checked against rank 0 alone's final state (want, rank 0's).
 * The code agreed. */
static int bench_configs(const bench_app *app, void *whole, unsigned side,
                         const options *opt, clctx *ctx, const float *want,
                         const measured *apart, double gcells_ref)
{
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    size_t cells = (size_t)side * side;
    float *got = NULL;
    int rc = 0;
    if (rank == 0 && !(got = malloc(cells * sizeof *got)))
        rc = app_fail(APP_ERR_NO_MEMORY, "bench-mpi: no memory for %zu "
                      "cells", cells);
    rc = slab_agree(MPI_COMM_WORLD, rc);
    char grid[64], count[32], said[96];
    snprintf(grid, sizeof grid, "%u x %u", side, side);
    snprintf(count, sizeof count, "%d", ranks);
    for (int d = 0; d < opt->ndepths && rc == 0; d++)
        for (int p = 0; p < 2 && rc == 0; p++) {
            if (!opt->staging[p])
                continue;
            slab_options o = {(unsigned)opt->depths[d], p, NULL};
            measured all = {0};
            rc = measure(app, whole, opt, &o, MPI_COMM_WORLD, MPI_COMM_WORLD,
                         ctx, &all, 1, got);
            if (rc || rank != 0)
                continue;
            row r = {grid, count, all.pinned ? "pinned" : "pageable",
                     compare_states(want, got, side, said, sizeof said),
                     ranks, (double)cells, 1 - apart->median / all.median};
            print_row(app, &r, &all, gcells_ref);
        }
    free(got);
    return rc;
}

/* The grids of size n on `ranks` ranks: the whole one's side (n, or
 * n sqrt(R) when weak) and the side of each rank's own when apart
 * (n / sqrt(R), or n when weak). */
static void grid_sides(unsigned long n, int ranks, int weak,
                       unsigned long *side, unsigned long *each)
{
    double root = sqrt(ranks);
    *side = weak ? (unsigned long)lround((double)n * root) : n;
    *each = weak ? n : (unsigned long)lround((double)n / root);
}

/* One app at one size: its rows of the table. The agreed code. */
static int bench_size(const bench_app *app, unsigned n, const options *opt,
                      MPI_Comm alone, clctx *ctx)
{
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    unsigned long side_l, each_l;
    grid_sides(n, ranks, opt->weak, &side_l, &each_l);
    unsigned side = (unsigned)side_l, each = (unsigned)each_l;
    slab_options base = {(unsigned)opt->depths[0], !opt->staging[0], NULL};
    size_t cells = (size_t)side * side;
    void *whole = NULL;
    float *want = NULL;
    int rc = rank == 0 ? app->make(&whole, side) : 0;
    if (rc == 0 && rank == 0 && ranks > 1 &&
        !(want = malloc(cells * sizeof *want)))
        rc = app_fail(APP_ERR_NO_MEMORY, "bench-mpi: no memory for %zu "
                      "cells", cells);
    rc = slab_agree(MPI_COMM_WORLD, rc);
    char grid[64], small[64], apart_grid[64], count[32];
    snprintf(grid, sizeof grid, "%u x %u", side, side);
    snprintf(small, sizeof small, "%u x %u", n, n);
    snprintf(apart_grid, sizeof apart_grid, "%u x %u each", each, each);
    snprintf(count, sizeof count, "%d apart", ranks);
    measured one = {0}, ref = {0}, apart = {0};
    if (rc == 0 && ranks == 1)
        rc = measure(app, whole, opt, &base, MPI_COMM_WORLD, MPI_COMM_WORLD,
                     ctx, &one, 0, NULL);
    else if (rc == 0)
        rc = measure_alone(app, whole, opt, &base, alone, ctx, &one, want);
    ref = one;
    if (rc == 0 && opt->weak && ranks > 1) {
        void *small_whole = NULL;
        rc = slab_agree(MPI_COMM_WORLD, rank == 0 ? app->make(&small_whole, n)
                                                  : 0);
        if (rc == 0)
            rc = measure_alone(app, small_whole, opt, &base, alone, ctx,
                               &ref, NULL);
        app->drop(small_whole);
    }
    if (rc == 0 && ranks > 1)
        rc = measure_apart(app, each, opt, &base, ctx, &apart);
    double gcells_ref = (double)(opt->weak ? (size_t)n * n : cells) /
                        (ref.median * 1e6);
    if (rc == 0 && rank == 0) {
        if (opt->weak && ranks > 1)
            print_row(app, &(row){small, "1", "-", NULL, 1,
                                  (double)n * n, -2}, &ref, gcells_ref);
        print_row(app, &(row){grid, "1", "-", NULL, 1, (double)cells, -2},
                  &one, gcells_ref);
        if (ranks > 1)
            print_row(app, &(row){apart_grid, count, "-", NULL, ranks,
                                  (double)each * each * ranks, -2},
                      &apart, gcells_ref);
    }
    if (rc == 0 && ranks > 1)
        rc = bench_configs(app, whole, side, opt, ctx, want, &apart,
                           gcells_ref);
    app->drop(whole);
    free(want);
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

static int staging_field(const char *name, int number, void *staging)
{
    (void)number;
    int pageable = strcmp(name, "pageable") == 0;
    if (!pageable && strcmp(name, "pinned") != 0)
        return 0;
    return ((int *)staging)[pageable] = 1;
}

/* 1 if text is a count from 1 to max, stored in *value; else 0 with a
 * message naming what and text. */
static int parse_count(const char *what, const char *text, unsigned long max,
                       unsigned long *value)
{
    if (parse_uint(text, 1, max, value))
        return 1;
    app_fail(APP_ERR_USAGE, "%s \"%s\" is not a whole number from 1 to %lu",
             what, text, max);
    return 0;
}

/* One of the words after the apps: weak, depths=LIST, staging=LIST. */
static int parse_word(const char *word, options *o)
{
    if (strcmp(word, "weak") == 0)
        return o->weak = 1;
    if (strncmp(word, "depths=", 7) == 0)
        return (o->ndepths = parse_uint_list("depths", word + 7, 1, 4096,
                                             o->depths, MAX_DEPTHS)) > 0;
    if (strncmp(word, "staging=", 8) == 0) {
        o->staging[0] = 0;
        return parse_comma_list("staging", word + 8, 1, 2, "pinned or "
                                "pageable", staging_field, o->staging) > 0;
    }
    app_fail(APP_ERR_USAGE, "'%s' is not weak, depths=LIST or staging=LIST",
             word);
    return 0;
}

/* 1 if the command line is good; every rank reads the same one. */
static int parse_options(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->depths[0] = SLAB_DEPTH;
    o->ndepths = 1;
    o->staging[0] = 1;
    o->nsizes = parse_uint_list("sizes", argc > 1 ? argv[1] : "1000", 3,
                                MAX_SIDE, o->sizes, MAX_SIZES);
    int ok = o->nsizes > 0 &&
             parse_count("steps", argc > 2 ? argv[2] : "100", MAX_STEPS,
                         &o->steps) &&
             parse_count("runs", argc > 3 ? argv[3] : "3", MAX_RUNS,
                         &o->runs) &&
             parse_comma_list("apps", argc > 4 ? argv[4] : "heat,laplace", 1,
                              APP_COUNT, "an app (heat, laplace)", app_field,
                              o->selected);
    for (int i = 5; i < argc && ok; i++)
        ok = parse_word(argv[i], o);
    return ok;
}

/* Why app cannot be benched at size n on `ranks` ranks, into why; NULL if
 * it can. Each grid it makes needs 3 x 3 cells, at most the app's side,
 * and a row per rank. */
static const char *size_problem(const bench_app *app, unsigned long n,
                                int ranks, int weak, char *why, size_t size)
{
    unsigned long side, each;
    grid_sides(n, ranks, weak, &side, &each);
    if (side > app->max_side)
        snprintf(why, size, "%s's grid would be %lu x %lu, and it takes "
                 "%lu x %lu at most", app->name, side, side, app->max_side,
                 app->max_side);
    else if (ranks > 1 && each < 3)
        snprintf(why, size, "each rank apart would step a %lu x %lu grid, "
                 "and a grid needs 3 x 3 at least", each, each);
    else if (side < (unsigned long)ranks)
        snprintf(why, size, "its %lu rows cannot be split over %d ranks",
                 side, ranks);
    else
        return NULL;
    return why;
}

/* 1 if every size works for every app asked for on `ranks` ranks; else 0
 * with a message naming the size, why, and the sizes that would work. */
static int check_sizes(const options *o, int ranks)
{
    char why[160], scratch[160];
    const char *problem = NULL;
    unsigned long bad = 0;
    for (int i = 0; i < o->nsizes && !problem; i++)
        for (int a = 0; a < APP_COUNT && !problem; a++)
            if (o->selected[a] && (problem = size_problem(&APPS[a],
                    o->sizes[i], ranks, o->weak, why, sizeof why)))
                bad = o->sizes[i];
    if (!problem)
        return 1;
    /* The sizes that work form a range: each condition holds from some
     * size up, or up to some size. */
    unsigned long lo = 0, hi = 0;
    for (unsigned long n = 3; n <= MAX_SIDE; n++) {
        int works = 1;
        for (int a = 0; a < APP_COUNT && works; a++)
            works = !o->selected[a] || !size_problem(&APPS[a], n, ranks,
                        o->weak, scratch, sizeof scratch);
        if (works && !lo)
            lo = n;
        if (works)
            hi = n;
    }
    const char *scaling = o->weak ? "weak" : "strong";
    if (lo)
        app_fail(APP_ERR_USAGE, "size %lu on %d rank(s), %s scaling: %s; "
                 "sizes from %lu to %lu work", bad, ranks, scaling, why, lo,
                 hi);
    else
        app_fail(APP_ERR_USAGE, "size %lu on %d rank(s), %s scaling: %s; "
                 "no size works", bad, ranks, scaling, why);
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    options o;
    if (!parse_options(argc, argv, &o) || !check_sizes(&o, ranks)) {
        if (rank == 0)
            fprintf(stderr, "bench-mpi: %s\nusage: mpirun -n R bench-mpi "
                    "[sizes=1000 (each 3..%d, and 3 x 3 cells a rank)] "
                    "[steps=100 (1..%d)] [runs=3 (1..%d)] "
                    "[apps=heat,laplace] [weak] [depths=%u] "
                    "[staging=pinned (pinned,pageable)]\n", app_last_error(),
                    MAX_SIDE, MAX_STEPS, MAX_RUNS, SLAB_DEPTH);
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
            printf("%lu steps (iterations) a run; median of %lu runs; %s "
                   "scaling\n\n"
                   "| app | grid | ranks | tile rows, depth, staging | "
                   "ms per step | "
                   "least - most | Gcells/s | efficiency | exchange share | "
                   "host ms per exchange: read, MPI | output |\n"
                   "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---|\n",
                   o.steps, o.runs, o.weak ? "weak" : "strong");
    }
    for (int a = 0; a < APP_COUNT && rc == 0; a++)
        for (int i = 0; i < o.nsizes && rc == 0 && o.selected[a]; i++)
            rc = bench_size(&APPS[a], (unsigned)o.sizes[i], &o, alone, ctx);
    if (rc == 0 && rank == 0)
        printf("\nms per step: slab_advance's time over the steps, the "
               "device finished; Gcells/s: cells stepped per second (all "
               "ranks'); efficiency: that over ranks x the first row's "
               "per rank; tile rows: the rows of output a row of tiles "
               "makes; depth: the halo's rows, and steps between "
               "exchanges; staging: the state in pinned or pageable host "
               "memory (pinned only where the device copies arrays); "
               "exchange share: 1 - apart / R ranks' ms; output: "
               "the final state against rank 0 alone's.\n");
    if (rc && rc != SLAB_ERR_ELSEWHERE)
        fprintf(stderr, "bench-mpi: rank %d: %s\n", rank, app_last_error());
    if (alone != MPI_COMM_NULL)
        MPI_Comm_free(&alone);
    clctx_free(ctx);
    MPI_Finalize();
    return rc ? 1 : 0;
}
