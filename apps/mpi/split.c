/*
 * split.c: the rule that splits a grid's rows over ranks (split.h), which
 * every rank computes alike.
 */
#include "mpi/split.h"
#include "common/error.h"

#include <limits.h>

int slab_split_depth(uint32_t width, uint32_t height, int ranks,
                     unsigned max_depth, uint32_t *depth)
{
    *depth = 0;
    /* MPI counts a row's cells in an int (slab.c's row_type): only a
     * one-row world of 2^31 cells has more. */
    if (width > INT_MAX)
        return app_fail(APP_ERR_USAGE, "a grid %u cells wide cannot be "
                        "split over ranks: a row is at most %d cells",
                        width, INT_MAX);
    uint32_t thinnest = ranks > 0 ? height / (uint32_t)ranks : 0;
    if (thinnest == 0)
        return app_fail(APP_ERR_USAGE, "a grid of %u rows cannot be split "
                        "over %d ranks: each needs a row at least", height,
                        ranks);
    uint32_t d = thinnest < max_depth ? thinnest : max_depth;
    /* Rank 0 sends every other rank its rows and halos as one message of
     * rows, counted in an int: rank 1 holds the most of them (a row more
     * than the thinnest where any has one, and halos on both sides where
     * there are more than 2 ranks). */
    if (ranks > 1) {
        slab_rows one = slab_split_rows(height, ranks, d, 1);
        uint64_t held = (uint64_t)one.above + one.rows + one.below;
        if (held > INT_MAX)
            return app_fail(APP_ERR_USAGE, "a grid of %u rows cannot be "
                            "split over %d ranks with halos %u deep: rank 1 "
                            "would hold %llu rows, more than MPI counts "
                            "(%d)", height, ranks, d,
                            (unsigned long long)held, INT_MAX);
    }
    *depth = d;
    return 0;
}

slab_rows slab_split_rows(uint32_t height, int ranks, uint32_t depth, int r)
{
    uint32_t base = height / (uint32_t)ranks;
    uint32_t extra = height % (uint32_t)ranks;
    uint32_t ur = (uint32_t)r;
    return (slab_rows){
        .first = ur * base + (ur < extra ? ur : extra),
        .rows = base + (ur < extra),
        .above = r > 0 ? depth : 0,
        .below = r < ranks - 1 ? depth : 0,
    };
}
