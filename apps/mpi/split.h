/*
 * split.h: how a grid's rows are split over ranks (slab.h), apart from MPI
 * so that the rule can be checked alone (apps/mpi/tests/fuzz/split.c): as
 * evenly as whole rows go, the first height % ranks ranks a row more, and
 * halos as deep as asked or as the thinnest slab, whichever is less.
 */
#ifndef MPI_SPLIT_H
#define MPI_SPLIT_H

#include <stdint.h>

/* The rows rank r owns, [first, first + rows), and the halo rows it holds
 * above and below them (0 at the grid's top and bottom). */
typedef struct slab_rows {
    uint32_t first, rows, above, below;
} slab_rows;

/* The halo depth of a width x height grid split over `ranks` ranks (at
 * least 1) with halos up to max_depth (at least 1) rows deep,
 * in *depth; 0, or APP_ERR_USAGE with a message when the grid cannot be
 * split: fewer rows than ranks, a row wider than MPI can count, or a
 * rank's rows and halos more than it can (a grid over 2^31 rows, or one
 * of 2^31 rows with halos of 2^30). */
int slab_split_depth(uint32_t width, uint32_t height, int ranks,
                     unsigned max_depth, uint32_t *depth);

/* Rank r's rows (0 <= r < ranks) of a grid of `height` rows split with
 * halos `depth` deep, as slab_split_depth planned it. */
slab_rows slab_split_rows(uint32_t height, int ranks, uint32_t depth, int r);

#endif /* MPI_SPLIT_H */
