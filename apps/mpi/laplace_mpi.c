/*
 * laplace_mpi.c: the Laplace solver over MPI ranks (laplace_mpi.h): rank 0
 * sends each rank its rows of the grid, every rank iterates them with the
 * fast version's tiles and exchanges halos (slab.c), the tolerance checks
 * measure each rank's own rows and take the largest change over all of
 * them, and rank 0 gathers the rows back.
 */
#include "mpi/laplace_mpi.h"
#include "common/error.h"
#include "common/program.h"

#include <stdlib.h>
#include <string.h>

/* A rank's rows as a grid of their own (of any height: slabs may be
 * thinner than the 3 rows a whole grid needs). */
static int alloc_rows(laplace_grid *rows, uint32_t nx, uint32_t ny)
{
    size_t cells = (size_t)nx * ny;
    *rows = (laplace_grid){nx, ny, calloc(cells, sizeof(float)),
                           calloc(cells, 1)};
    if (rows->phi && rows->mask)
        return 0;
    laplace_grid_free(rows);
    return app_fail(APP_ERR_NO_MEMORY, "laplace: no memory for %u x %u "
                    "cells", nx, ny);
}

/* The rows where a slab is cut from its neighbours' are held fixed: their
 * cells would read rows it does not hold. The error that makes creeps in a
 * row per iteration and the exchange replaces those rows first. */
static void fix_cut_rows(const slab *s, laplace_grid *rows)
{
    size_t last = (size_t)(rows->ny - 1) * rows->nx;
    if (s->above)
        memset(rows->mask, 0, rows->nx);
    if (s->below)
        memset(rows->mask + last, 0, rows->nx);
}

/* One check: the stretch's last iteration measured on this rank's rows,
 * the halos exchanged, and the largest change over every rank in *change.
 * rc is this rank's status so far; returns the agreed one. */
static int check(laplace_part *p, int rc, float *change)
{
    float mine = 0.0f;
    if (rc == 0)
        rc = laplace_fast_measure(p->dev, p->s.above, p->s.rows);
    rc = slab_exchange(&p->s, &p->st->next, p->copy, rc);
    if (rc == 0)
        rc = clarg_swap(&p->st->cur, &p->st->next);
    if (rc == 0)
        rc = laplace_fast_change(p->dev, &mine);
    rc = slab_agree(p->s.comm, rc);
    if (rc == 0)
        MPI_Allreduce(&mine, change, 1, MPI_FLOAT, MPI_MAX, p->s.comm);
    return rc;
}

/* The plan's loop as laplace_solve's: stretches up to each check. */
static int run_plan(laplace_part *p, const laplace_plan *plan,
                    laplace_stats *stats)
{
    unsigned done = 0;
    int rc = 0;
    while (done < plan->iterations) {
        unsigned n = laplace_next_stretch(plan, done);
        int checking = plan->tolerance > 0.0f &&
                       (done + n) % plan->check_every == 0;
        /* A failure is kept, not overwritten: the rank goes on taking
         * part in the exchanges until the next check agrees on it. */
        int now = slab_advance(&p->s, p->st, checking ? n - 1 : n, p->copy);
        rc = rc ? rc : now;
        done += n;
        if (!checking)
            continue;
        float change = 0.0f;
        if ((rc = check(p, rc, &change)) != 0 ||
            laplace_note_check(plan, change, stats))
            break;
    }
    stats->iterations = done;
    if (rc == 0)
        rc = clarg_read(&p->st->cur);
    return slab_agree(p->s.comm, rc);
}

int laplace_part_open(laplace_part *p, const laplace_grid *g, MPI_Comm comm,
                      clctx *ctx, const slab_options *o, laplace_stats *stats)
{
    memset(p, 0, sizeof *p);
    int rank;
    MPI_Comm_rank(comm, &rank);
    uint32_t shape[2] = {0, 0};
    if (rank == 0)
        shape[0] = g->nx, shape[1] = g->ny;
    MPI_Bcast(shape, 2, MPI_UINT32_T, 0, comm);
    int rc = slab_plan(&p->s, comm, shape[0], shape[1], o);
    if (rc == 0)
        rc = alloc_rows(&p->rows, shape[0], slab_local_rows(&p->s));
    if ((rc = slab_agree(comm, rc)) != 0)
        return rc;
    slab_scatter(&p->s, rank == 0 ? g->phi : NULL, p->rows.phi,
                 sizeof(float));
    slab_scatter(&p->s, rank == 0 ? g->mask : NULL, p->rows.mask, 1);
    fix_cut_rows(&p->s, &p->rows);
    rc = slab_pin(ctx, o, &p->rows.phi, slab_local_cells(&p->s), &p->pinned);
    if (rc == 0)
        rc = laplace_fast_open(&p->dev, &p->rows, ctx, stats);
    if (rc == 0)
        p->st = laplace_fast_stencil(p->dev);
    if (rc == 0 && !(p->copy = clstream_new(ctx)))
        rc = APP_ERR_DEVICE;            /* clframe said why */
    return slab_agree(comm, rc);
}

void laplace_part_close(laplace_part *p)
{
    clstream_free(p->copy);
    laplace_fast_close(p->dev);
    slab_unpin(&p->rows.phi, p->pinned);
    laplace_grid_free(&p->rows);
    memset(p, 0, sizeof *p);
}

int laplace_solve_mpi(laplace_grid *g, const laplace_plan *plan,
                      MPI_Comm comm, clctx *ctx, const slab_options *o,
                      laplace_stats *stats)
{
    laplace_stats unread;
    stats = laplace_stats_start(stats, &unread);
    int rank;
    MPI_Comm_rank(comm, &rank);
    laplace_plan agreed = {0, 0.0f, 0};
    int rc = rank == 0 ? laplace_check(g, plan) : 0;
    if (rank == 0)
        agreed = *plan;
    MPI_Bcast(&agreed, sizeof agreed, MPI_BYTE, 0, comm);
    if ((rc = slab_agree(comm, rc)) != 0)
        return rc;
    laplace_part p;
    rc = laplace_part_open(&p, g, comm, ctx, o, stats);
    if (rc == 0)
        rc = run_plan(&p, &agreed, stats);
    if (rc == 0)
        slab_gather(&p.s, p.rows.phi, rank == 0 ? g->phi : NULL,
                    sizeof(float));
    laplace_part_close(&p);
    return rc;
}

int laplace_mpi_main(int argc, char **argv)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    int rank;
    MPI_Comm_rank(comm, &rank);
    static char usage[2048];
    laplace_usage_for(usage, sizeof usage, "laplace_mpi");
    const app_program program = {"laplace_mpi", usage, &laplace_versions};

    /* Rank 0 reads the command line, makes the grid and writes the files;
     * a bad argument is its message alone. */
    laplace_options o;
    int status = -1;
    if (rank == 0) {
        status = app_start(&program,
                           laplace_parse_options(&program, argc, argv, &o));
        if (status < 0 && o.version >= 0 && o.version != LAPLACE_FAST)
            status = app_message(&program, 2, "--version %s: over MPI "
                                 "ranks only fast runs",
                                 app_version_name(&laplace_versions,
                                                  o.version));
        o.version = LAPLACE_FAST;       /* the only one, so the default */
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, comm);
    if (status >= 0)
        return status;

    laplace_grid g = {0};
    int made = rank == 0 ? laplace_make_grid(&program, &o, &g) : 0;
    MPI_Bcast(&made, 1, MPI_INT, 0, comm);
    if (made == 2)
        return 2;
    int rc = slab_agree(comm, made ? APP_ERR_BAD_INPUT : 0);
    clctx *ctx = NULL;
    if (rc == 0 && !(ctx = slab_open_device(comm, NULL)))
        rc = CLFRAME_ERR_NO_DEVICE;     /* clframe said why */
    rc = slab_agree(comm, rc);
    laplace_stats stats = {0};
    if (rc == 0)
        rc = laplace_solve_mpi(&g, &o.plan, comm, ctx, NULL, &stats);
    if (rc == 0 && rank == 0 && (rc = laplace_write_outputs(&o, &g)) == 0)
        laplace_report("laplace_mpi", &o, &g, &stats);
    rc = slab_agree(comm, rc);
    laplace_grid_free(&g);
    clctx_free(ctx);
    if (rc == SLAB_ERR_ELSEWHERE)
        return 1;
    return rc ? app_failed(&program) : 0;
}
