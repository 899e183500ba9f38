/*
 * alphabeta.c (bin/bench-kalah-alphabeta): the question a player asks,
 * how deep each searches in the same time. For each depth, the search of
 * the opening position (BOTTOM to move) by alpha-beta on one host core
 * and by the GPU alpha-beta player on clframe's device, with each split
 * between host and device of a small grid (the fastest is reported, every
 * split's time goes to stderr). A time is the whole search, the median of
 * `runs` runs after a warm-up (which builds the kernel). The two must
 * agree on the move and the score.
 *
 * usage: bench-kalah-alphabeta [first depth=6] [last depth=12] [runs=3]
 */
#include "clframe.h"
#include "common/clock.h"
#include "median.h"
#include "common/parse.h"
#include "kalah/kalah.h"
#include "common/error.h"

#include <stdio.h>

enum { MAX_RUNS = 21, MAX_DEPTH = 24 };

/* The splits tried: host depth, device plies. */
static const int splits[][2] = {
    {6, 4}, {8, 4}, {10, 4}, {12, 4}, {14, 4}, {10, 3}, {10, 6}, {12, 8},
    {40, 1},
};

/* The median wall time of `runs` searches, the GPU player's after a
 * warm-up; 0 or the search's code. */
static int time_search(kalah_gpu *gpu, kalah_board b, int depth, int runs,
                       kalah_result *r, double *seconds)
{
    double t[MAX_RUNS];
    int rc = gpu ? kalah_gpu_alphabeta(gpu, b, depth, r) : 0;
    for (int i = 0; i < runs && rc == 0; i++) {
        double t0 = clock_seconds();
        rc = gpu ? kalah_gpu_alphabeta(gpu, b, depth, r)
                 : kalah_alphabeta(b, depth, r);
        t[i] = clock_seconds() - t0;
    }
    if (rc == 0)
        *seconds = median_of(t, runs);
    return rc;
}

int main(int argc, char **argv)
{
    unsigned long first = 6, last = 12, runs = 3;
    if ((argc > 1 && !parse_uint(argv[1], 1, MAX_DEPTH, &first)) ||
        (argc > 2 && !parse_uint(argv[2], first, MAX_DEPTH, &last)) ||
        (argc > 3 && !parse_uint(argv[3], 1, MAX_RUNS, &runs)) || argc > 4) {
        fprintf(stderr, "usage: bench-kalah-alphabeta [first depth=6] "
                "[last depth=12, at most %d] [runs=3 (1 to %d)]\n",
                MAX_DEPTH, MAX_RUNS);
        return 2;
    }
    int rc;
    kalah_gpu *gpu = kalah_gpu_new(NULL, &rc);
    if (!gpu) {
        fprintf(stderr, "bench-kalah-alphabeta: %s\n", app_last_error());
        return 1;
    }
    kalah_board b = kalah_start(KALAH_BOTTOM);
    printf("Mankalah alpha-beta search of the opening (bottom to move); "
           "median of %lu runs; GPU player on %s\n\n", runs,
           clctx_describe(clctx_default()));
    printf("| depth | alphabeta s | gpuab s | split (host depth, device "
           "plies) | alphabeta / gpuab | alphabeta nodes | gpuab nodes | "
           "same move and score |\n"
           "|---:|---:|---:|---|---:|---:|---:|:---:|\n");
    for (int depth = (int)first; depth <= (int)last && rc == 0; depth++) {
        kalah_result ab, dev = {-1, 0, 0, 0};
        double ab_s = 0, dev_s = 0;
        int best = -1;
        rc = time_search(NULL, b, depth, (int)runs, &ab, &ab_s);
        for (int i = 0; i < (int)(sizeof splits / sizeof *splits) && !rc;
             i++) {
            kalah_result r;
            double s;
            rc = kalah_gpu_set_alphabeta_split(gpu, splits[i][0],
                                               splits[i][1]);
            kalah_gpu_counts c0 = kalah_gpu_counts_of(gpu);
            if (rc == 0)
                rc = time_search(gpu, b, depth, (int)runs, &r, &s);
            if (rc)
                break;
            kalah_gpu_counts c1 = kalah_gpu_counts_of(gpu);
            double searches = (double)runs + 1;     /* the warm-up too */
            uint64_t launches = c1.launches - c0.launches;
            fprintf(stderr, "depth %d split %d,%d: %.4g s, %llu nodes, "
                    "%.0f launches of %.0f boards, %.3g s in them\n", depth,
                    splits[i][0], splits[i][1], s,
                    (unsigned long long)r.nodes,
                    (double)launches / searches,
                    (double)(c1.boards - c0.boards) /
                        (double)(launches ? launches : 1),
                    (c1.seconds - c0.seconds) / searches);
            if (best < 0 || s < dev_s) {
                dev = r;
                dev_s = s;
                best = i;
            }
        }
        if (rc)
            break;
        printf("| %d | %.3g | %.3g | %d, %d | %.2fx | %llu | %llu | %s |\n",
               depth, ab_s, dev_s, splits[best][0], splits[best][1],
               ab_s / dev_s, (unsigned long long)ab.nodes,
               (unsigned long long)dev.nodes,
               ab.move == dev.move && ab.score == dev.score ? "yes" : "NO");
        fflush(stdout);
    }
    if (rc)
        fprintf(stderr, "bench-kalah-alphabeta: %s\n", app_last_error());
    printf("\nalphabeta runs on one host core; gpuab: principal variation "
           "splitting on the host, the scouts' boards searched by the device "
           "(apps/kalah/kernels/alphabeta.cl), the best split shown.\n");
    kalah_gpu_free(gpu);
    return rc ? 1 : 0;
}
