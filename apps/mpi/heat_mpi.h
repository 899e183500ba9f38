/*
 * heat_mpi.h: the heat world stepped over MPI ranks, a slab of rows each
 * (mpi/slab.h), by v6's kernel; its output equals step_world's bit for bit
 * for any number of ranks.
 */
#ifndef MPI_HEAT_MPI_H
#define MPI_HEAT_MPI_H

#include "heat/heat.h"
#include "mpi/slab.h"

#include <mpi.h>

/* A rank's part of a world stepped over ranks: its slab, its rows as a
 * world of their own (halos included, the cut rows held fixed; the state
 * pinned where that helps, slab_pin), v6 on them, and the stream its
 * halos are read on. */
typedef struct heat_part {
    slab s;
    heat_world rows;
    int pinned;
    app_stencil *st;
    clstream *copy;
} heat_part;

/* Opens this rank's part of world (read on rank 0 only) for steps of dt:
 * the slab planned by o (NULL: the defaults), the rows sent out by rank 0,
 * v6 on each rank's device. Collective; the agreed code. heat_part_close
 * frees it whatever that was. */
int heat_part_open(heat_part *p, const heat_world *world, float dt,
                   MPI_Comm comm, clctx *ctx, const slab_options *o,
                   app_timing *timing);
void heat_part_close(heat_part *p);

/* Advances the world by `steps` steps of size dt over comm's ranks, each on
 * ctx (its own device: slab_open_device), split as o says (NULL: the
 * defaults). world is read and written on rank 0 only (the others may pass
 * NULL); timing may be NULL. Collective: 0 on every rank, or a code on
 * every rank (SLAB_ERR_ELSEWHERE on all but the one whose message says
 * what failed). */
int heat_step_mpi(heat_world *world, float dt, unsigned steps, MPI_Comm comm,
                  clctx *ctx, const slab_options *o, app_timing *timing);

/* The main of bin/step_world_mpi (step_world's arguments and formats,
 * world in and out through rank 0); the exit status. */
int heat_step_mpi_main(int argc, char **argv);

#endif /* MPI_HEAT_MPI_H */
