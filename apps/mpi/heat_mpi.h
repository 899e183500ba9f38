/*
 * heat_mpi.h: the heat world stepped over MPI ranks, a slab of rows each
 * (mpi/slab.h), by v6's kernel; its output equals step_world's bit for bit
 * for any number of ranks.
 */
#ifndef MPI_HEAT_MPI_H
#define MPI_HEAT_MPI_H

#include "heat/heat.h"

#include <mpi.h>

/* Advances the world by `steps` steps of size dt over comm's ranks, each on
 * ctx (its own device: slab_open_device). world is read and written on
 * rank 0 only (the others may pass NULL); timing may be NULL. Collective:
 * 0 on every rank, or a code on every rank (SLAB_ERR_ELSEWHERE on all but
 * the one whose message says what failed). */
int heat_step_mpi(heat_world *world, float dt, unsigned steps, MPI_Comm comm,
                  clctx *ctx, app_timing *timing);

/* The main of bin/step_world_mpi (step_world's arguments and formats,
 * world in and out through rank 0); the exit status. */
int heat_step_mpi_main(int argc, char **argv);

#endif /* MPI_HEAT_MPI_H */
