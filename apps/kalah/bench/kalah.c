/*
 * kalah.c (bin/bench-kalah): the Mankalah table of `make bench`, the seed's
 * table redone. For each depth, the search of the opening position (BOTTOM
 * to move) by the sequential minimax (the seed's "sequential"), by
 * alpha-beta, and by the GPU player on clframe's device with each split
 * between host and device (the device searching 1 to 4 plies under the
 * host's frontier; the fastest is reported). A time is the whole search,
 * the median of `runs` runs after a warm-up (which builds the kernel);
 * nodes per second count the boards the search visited. The GPU player's
 * move and score are checked against the minimax's at every depth the
 * minimax ran, which is where its last time says the next takes under
 * SLOW_S seconds (each ply multiplies the time by the branching factor).
 *
 * usage: bench-kalah [first depth=4] [last depth=9] [runs=3]
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "clframe.h"
#include "median.h"
#include "common/parse.h"
#include "kalah/kalah.h"
#include "common/clock.h"
#include "common/error.h"

#include <stdio.h>
#include <stdlib.h>

enum { MAX_RUNS = 21, HOST_PLIES_MAX = 9 };
static const double SLOW_S = 20.0;

typedef int (*search_fn)(void *self, kalah_board b, int depth,
                         kalah_result *r);

static int run_minimax(void *self, kalah_board b, int depth, kalah_result *r)
{
    (void)self;
    return kalah_minimax(b, depth, r);
}

static int run_alphabeta(void *self, kalah_board b, int depth,
                         kalah_result *r)
{
    (void)self;
    return kalah_alphabeta(b, depth, r);
}

static int run_gpu(void *self, kalah_board b, int depth, kalah_result *r)
{
    return kalah_gpu_search(self, b, depth, r);
}

/* The median wall time of `runs` searches (after a warm-up when asked). */
static int time_search(search_fn fn, void *self, kalah_board b, int depth,
                       int runs, int warm_up, kalah_result *r, double *s)
{
    double t[MAX_RUNS];
    int rc = warm_up ? fn(self, b, depth, r) : 0;
    for (int i = 0; i < runs && rc == 0; i++) {
        double t0 = clock_seconds();
        rc = fn(self, b, depth, r);
        t[i] = clock_seconds() - t0;
    }
    if (rc == 0)
        *s = median_of(t, runs);
    return rc;
}

int main(int argc, char **argv)
{
    unsigned long first = 4, last = 9, runs = 3;
    /* From depth 2: a GPU search gives the device at least one ply. */
    if ((argc > 1 && !parse_uint(argv[1], 2, HOST_PLIES_MAX + 4, &first)) ||
        (argc > 2 && !parse_uint(argv[2], first, HOST_PLIES_MAX + 4, &last)) ||
        (argc > 3 && !parse_uint(argv[3], 1, MAX_RUNS, &runs)) || argc > 4) {
        fprintf(stderr, "usage: bench-kalah [first depth=4, at least 2] "
                "[last depth=9, at most %d] [runs=3 (1 to %d)]\n",
                HOST_PLIES_MAX + 4, MAX_RUNS);
        return 2;
    }
    int rc;
    kalah_gpu *gpu = kalah_gpu_new(NULL, &rc);
    if (!gpu) {
        fprintf(stderr, "bench-kalah: %s\n", app_last_error());
        return 1;
    }
    kalah_board b = kalah_start(KALAH_BOTTOM);
    printf("Mankalah search of the opening (bottom to move); median of %lu "
           "runs; GPU player on %s\n\n", runs, clctx_describe(clctx_default()));
    printf("| depth | minimax s | alphabeta s | gpu s | gpu split (host + "
           "device) | gpu / minimax | minimax nodes/s | gpu nodes/s | "
           "minimax nodes | alphabeta nodes | same move |\n"
           "|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|:---:|\n");
    double minimax_s = 0;
    for (int depth = (int)first; depth <= (int)last && rc == 0; depth++) {
        kalah_result mm = {-1, 0, 0, 0}, ab, dev = {-1, 0, 0, 0};
        double ab_s = 0, dev_s = 0, mm_s = 0;
        /* Each ply multiplies the minimax's time by about 5. */
        int run_mm = minimax_s == 0 || minimax_s * 5 * (double)runs < SLOW_S;
        if (run_mm)
            rc = time_search(run_minimax, NULL, b, depth, (int)runs, 0, &mm,
                             &mm_s);
        if (rc == 0)
            rc = time_search(run_alphabeta, NULL, b, depth, (int)runs, 0, &ab,
                             &ab_s);
        int best_plies = 0;
        /* Splits whose host part stays within HOST_PLIES_MAX (the
         * frontier's boards are kept in host memory: 6^9 at most). */
        for (int plies = 1; plies <= 4 && plies < depth && rc == 0; plies++) {
            if (depth - plies > HOST_PLIES_MAX)
                continue;
            kalah_result r;
            double s;
            rc = kalah_gpu_set_device_plies(gpu, plies);
            if (rc == 0)
                rc = time_search(run_gpu, gpu, b, depth, (int)runs, 1, &r, &s);
            if (rc == 0 && (best_plies == 0 || s < dev_s)) {
                dev = r;
                dev_s = s;
                best_plies = plies;
            }
        }
        if (rc)
            break;
        minimax_s = run_mm ? mm_s : minimax_s * 5;
        printf("| %d | ", depth);
        if (run_mm)
            printf("%.3g", mm_s);
        else
            printf("-");
        printf(" | %.3g | %.3g | %d + %d | ", ab_s, dev_s,
               depth - best_plies, best_plies);
        if (run_mm)
            printf("%.1fx | %.3g | ", mm_s / dev_s, (double)mm.nodes / mm_s);
        else
            printf("- | - | ");
        printf("%.3g | ", (double)dev.nodes / dev_s);
        if (run_mm)
            printf("%llu", (unsigned long long)mm.nodes);
        else
            printf("-");
        printf(" | %llu | %s |\n", (unsigned long long)ab.nodes,
               !run_mm ? "-" : mm.move == dev.move && mm.score == dev.score &&
                               mm.move == ab.move && mm.score == ab.score
                               ? "yes" : "NO");
        fflush(stdout);
    }
    if (rc)
        fprintf(stderr, "bench-kalah: %s\n", app_last_error());
    printf("\nminimax and alphabeta run on one host core; gpu: the host walks "
           "its plies, the device the rest (apps/kalah/kernels/search.cl), "
           "the best split shown. Minimax runs where it takes under %.0f "
           "s.\n", SLOW_S);
    kalah_gpu_free(gpu);
    return rc ? 1 : 0;
}
