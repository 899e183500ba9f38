/*
 * laplace_mpi.h: the Laplace solver's fast version over MPI ranks, a slab
 * of rows each (mpi/slab.h); the same iterations, largest change and bits
 * as one device, for any number of ranks.
 */
#ifndef MPI_LAPLACE_MPI_H
#define MPI_LAPLACE_MPI_H

#include "laplace/laplace.h"
#include "mpi/slab.h"

#include <mpi.h>

/* A rank's part of a grid iterated over ranks: its slab, its rows as a
 * grid of their own (halos included, the cut rows held fixed; the values
 * pinned where that helps, slab_pin), the fast version on them, and the
 * stream its halos are read on. */
typedef struct laplace_part {
    slab s;
    laplace_grid rows;
    int pinned;
    laplace_dev *dev;
    app_stencil *st;            /* the fast version's tiles */
    clstream *copy;
} laplace_part;

/* Opens this rank's part of g (read on rank 0 only), split as o says
 * (NULL: the defaults), its kernels' times going to stats. Collective;
 * the agreed code. laplace_part_close frees it whatever that was. */
int laplace_part_open(laplace_part *p, const laplace_grid *g, MPI_Comm comm,
                      clctx *ctx, const slab_options *o, laplace_stats *stats);
void laplace_part_close(laplace_part *p);

/* Iterates g by plan over comm's ranks, each on ctx (its own device:
 * slab_open_device), split as o says (NULL: the defaults). g is read and
 * written on rank 0 only (the others may pass NULL); stats (may be NULL)
 * is filled on every rank alike. In tolerance mode the largest change is
 * reduced over the ranks at every check (MPI_Allreduce). Collective: 0 on
 * every rank, or a code on every rank (SLAB_ERR_ELSEWHERE on all but the
 * one whose message says what failed). */
int laplace_solve_mpi(laplace_grid *g, const laplace_plan *plan,
                      MPI_Comm comm, clctx *ctx, const slab_options *o,
                      laplace_stats *stats);

/* The main of bin/laplace_mpi (bin/laplace's options; the grid made or
 * read, and written, by rank 0); the exit status. */
int laplace_mpi_main(int argc, char **argv);

#endif /* MPI_LAPLACE_MPI_H */
