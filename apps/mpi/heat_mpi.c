/*
 * heat_mpi.c: the heat world over MPI ranks (heat_mpi.h): rank 0 sends each
 * rank its rows of the world, every rank steps them with v6 as a stencil
 * and exchanges halos (slab.c), and rank 0 gathers the rows back.
 */
#include "mpi/heat_mpi.h"
#include "common/error.h"
#include "common/program.h"

#include <string.h>

/* The rows where a slab is cut from its neighbours' are held fixed while
 * it steps: their cells would read rows it does not hold. The error that
 * makes creeps in a row per step and the exchange replaces those rows
 * before it reaches the rank's own. */
static void fix_cut_rows(const slab *s, heat_world *rows)
{
    size_t w = rows->w, last = (size_t)(rows->h - 1) * w;
    for (size_t x = 0; x < w; x++) {
        if (s->above)
            rows->properties[x] |= HEAT_CELL_FIXED;
        if (s->below)
            rows->properties[last + x] |= HEAT_CELL_FIXED;
    }
}

int heat_part_open(heat_part *p, const heat_world *world, float dt,
                   MPI_Comm comm, clctx *ctx, const slab_options *o,
                   app_timing *timing)
{
    memset(p, 0, sizeof *p);
    int rank;
    MPI_Comm_rank(comm, &rank);
    struct { uint32_t w, h; float alpha; } shape = {0, 0, 0};
    if (rank == 0)
        shape.w = world->w, shape.h = world->h, shape.alpha = world->alpha;
    MPI_Bcast(&shape, sizeof shape, MPI_BYTE, 0, comm);
    /* heat_step's own check of dt, on every rank alike: rank 0's message
     * stands, the others fail as SLAB_ERR_ELSEWHERE. */
    int rc = heat_check_dt(shape.alpha, dt);
    if (rc == 0)
        rc = slab_plan(&p->s, comm, shape.w, shape.h, o);
    if (rc == 0)
        rc = heat_world_alloc(&p->rows, shape.w, slab_local_rows(&p->s),
                              shape.alpha);
    if ((rc = slab_agree(comm, rc)) != 0)
        return rc;
    slab_scatter(&p->s, rank == 0 ? world->properties : NULL,
                 p->rows.properties, sizeof *p->rows.properties);
    slab_scatter(&p->s, rank == 0 ? world->state : NULL, p->rows.state,
                 sizeof *p->rows.state);
    fix_cut_rows(&p->s, &p->rows);
    rc = slab_pin(ctx, o, &p->rows.state, slab_local_cells(&p->s),
                  &p->pinned);
    if (rc == 0)
        rc = heat_v6_open(&p->st, &p->rows, dt, ctx, timing);
    if (rc == 0 && !(p->copy = clstream_new(ctx)))
        rc = APP_ERR_DEVICE;            /* clframe said why */
    return slab_agree(comm, rc);
}

void heat_part_close(heat_part *p)
{
    clstream_free(p->copy);
    heat_v6_close(p->st);
    slab_unpin(&p->rows.state, p->pinned);
    heat_world_free(&p->rows);
    memset(p, 0, sizeof *p);
}

int heat_step_mpi(heat_world *world, float dt, unsigned steps, MPI_Comm comm,
                  clctx *ctx, const slab_options *o, app_timing *timing)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    heat_part p;
    int rc = heat_part_open(&p, world, dt, comm, ctx, o, timing);
    if (rc == 0) {
        rc = slab_advance(&p.s, p.st, steps, p.copy);
        if (rc == 0)
            rc = clarg_read(&p.st->cur);
        rc = slab_agree(comm, rc);
    }
    if (rc == 0)
        slab_gather(&p.s, p.rows.state, rank == 0 ? world->state : NULL,
                    sizeof *p.rows.state);
    heat_part_close(&p);
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
        rc = heat_step_mpi(&world, args.dt, args.steps, comm, ctx, NULL,
                           NULL);
    if (rc == 0 && rank == 0)
        rc = heat_step_save(&world, args.binary);
    rc = slab_agree(comm, rc);
    heat_world_free(&world);
    clctx_free(ctx);
    if (rc == SLAB_ERR_ELSEWHERE)
        return 1;
    return rc ? app_failed(&program) : 0;
}
