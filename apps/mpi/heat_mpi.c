/*
 * heat_mpi.c: the heat world over MPI ranks (heat_mpi.h): rank 0 sends each
 * rank its rows of the world, every rank steps them with v6 as a stencil
 * and exchanges halos (slab.c), and rank 0 gathers the rows back.
 */
#include "mpi/heat_mpi.h"
#include "mpi/slab.h"
#include "common/error.h"
#include "common/program.h"

#include <string.h>

/* The rows where a slab is cut from its neighbours' are held fixed while
 * it steps: their cells would read rows it does not hold. The error that
 * makes creeps in a row per step and the exchange replaces those rows
 * before it reaches the rank's own. */
static void fix_cut_rows(const slab *s, heat_world *local)
{
    size_t w = local->w, last = (size_t)(local->h - 1) * w;
    for (size_t x = 0; x < w; x++) {
        if (s->above)
            local->properties[x] |= HEAT_CELL_FIXED;
        if (s->below)
            local->properties[last + x] |= HEAT_CELL_FIXED;
    }
}

/* Each rank's rows stepped on its device; rc so far (agreed). */
static int step_local(const slab *s, heat_world *local, float dt,
                      unsigned steps, clctx *ctx, app_timing *timing)
{
    app_stencil *st = NULL;
    clstream *copy = NULL;
    int rc = heat_v6_open(&st, local, dt, ctx, timing);
    if (rc == 0 && !(copy = clstream_new(ctx)))
        rc = APP_ERR_DEVICE;            /* clframe said why */
    rc = slab_agree(s->comm, rc);
    if (rc == 0) {
        rc = slab_advance(s, st, steps, copy);
        if (rc == 0)
            rc = clarg_read(&st->cur);
        rc = slab_agree(s->comm, rc);
    }
    clstream_free(copy);
    heat_v6_close(st);
    return rc;
}

int heat_step_mpi(heat_world *world, float dt, unsigned steps, MPI_Comm comm,
                  clctx *ctx, app_timing *timing)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    struct { uint32_t w, h; float alpha; } shape = {0, 0, 0};
    if (rank == 0)
        shape.w = world->w, shape.h = world->h, shape.alpha = world->alpha;
    MPI_Bcast(&shape, sizeof shape, MPI_BYTE, 0, comm);

    /* Every rank's tiles allow as many steps per launch as their halo. */
    unsigned halo = 0, depth = 0;
    int rc = slab_agree(comm, heat_v6_halo(ctx, &halo));
    if (rc)
        return rc;
    MPI_Allreduce(&halo, &depth, 1, MPI_UNSIGNED, MPI_MIN, comm);
    slab s;
    rc = slab_plan(&s, comm, shape.w, shape.h, depth);
    heat_world local = {0};
    if (rc == 0)
        rc = heat_world_alloc(&local, shape.w, slab_local_rows(&s),
                              shape.alpha);
    rc = slab_agree(comm, rc);
    if (rc == 0) {
        slab_scatter(&s, rank == 0 ? world->properties : NULL,
                     local.properties, sizeof *local.properties);
        slab_scatter(&s, rank == 0 ? world->state : NULL, local.state,
                     sizeof *local.state);
        fix_cut_rows(&s, &local);
        rc = step_local(&s, &local, dt, steps, ctx, timing);
    }
    if (rc == 0)
        slab_gather(&s, local.state, rank == 0 ? world->state : NULL,
                    sizeof *local.state);
    heat_world_free(&local);
    return rc;
}

int heat_step_mpi_main(int argc, char **argv)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    int rank;
    MPI_Comm_rank(comm, &rank);
    char usage[512];
    heat_step_usage(usage, sizeof usage, "step_world_mpi");
    const app_program program = {"step_world_mpi", usage, NULL};

    /* Rank 0 reads the command line and the world, and says so once. */
    heat_step_args args = {0};
    int status = rank == 0 ? heat_step_parse(&program, argc, argv, &args)
                           : 0;
    MPI_Bcast(&status, 1, MPI_INT, 0, comm);
    if (status >= 0)
        return status;
    MPI_Bcast(&args, sizeof args, MPI_BYTE, 0, comm);

    heat_world world = {0};
    int rc = rank == 0 ? heat_world_load_whole(&world, stdin, "<stdin>") : 0;
    rc = slab_agree(comm, rc);
    clctx *ctx = NULL;
    if (rc == 0 && !(ctx = slab_open_device(comm, NULL)))
        rc = CLFRAME_ERR_NO_DEVICE;     /* clframe said why */
    rc = slab_agree(comm, rc);
    if (rc == 0)
        rc = heat_step_mpi(&world, args.dt, args.steps, comm, ctx, NULL);
    if (rc == 0 && rank == 0)
        rc = heat_step_save(&world, args.binary);
    rc = slab_agree(comm, rc);
    heat_world_free(&world);
    clctx_free(ctx);
    if (rc == SLAB_ERR_ELSEWHERE)
        return 1;
    return rc ? app_failed(&program) : 0;
}
