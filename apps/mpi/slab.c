/*
 * slab.c: a grid in slabs of rows over MPI ranks, with halo exchange
 * overlapped with the interior's tiles (slab.h); the rule that splits the
 * rows is split.c's.
 */
#include "mpi/slab.h"
#include "mpi/split.h"
#include "common/clock.h"
#include "common/error.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Message tags: rows going to the rank above (lower rows), and below. */
enum { TAG_UP = 1, TAG_DOWN = 2, TAG_SCATTER = 3, TAG_GATHER = 4 };

/* Rank r's rows and halos, by the rule every rank computes alike. */
static void rank_rows(const slab *s, int r, uint32_t *first, uint32_t *rows,
                      uint32_t *above, uint32_t *below)
{
    slab_rows mine = slab_split_rows(s->height, s->ranks, s->depth, r);
    *first = mine.first;
    *rows = mine.rows;
    *above = mine.above;
    *below = mine.below;
}

int slab_plan(slab *s, MPI_Comm comm, uint32_t width, uint32_t height,
              const slab_options *o)
{
    unsigned max_depth = o && o->depth ? o->depth : SLAB_DEPTH;
    memset(s, 0, sizeof *s);
    s->comm = comm;
    MPI_Comm_rank(comm, &s->rank);
    MPI_Comm_size(comm, &s->ranks);
    s->width = width;
    s->height = height;
    int rc = slab_split_depth(width, height, s->ranks, max_depth, &s->depth);
    if (rc)
        return rc;
    s->times = o ? o->times : NULL;
    rank_rows(s, s->rank, &s->first, &s->rows, &s->above, &s->below);
    return 0;
}

int slab_pin(clctx *ctx, const slab_options *o, float **state, size_t cells,
             int *pinned)
{
    *pinned = 0;
    if ((o && o->pageable) || clctx_pinned_in_place(ctx))
        return 0;
    float *p = clframe_host_alloc(ctx, cells * sizeof *p);
    if (!p)
        return APP_ERR_DEVICE;          /* clframe said why */
    memcpy(p, *state, cells * sizeof *p);
    free(*state);
    *state = p;
    *pinned = 1;
    return 0;
}

void slab_unpin(float **state, int pinned)
{
    if (pinned)
        clframe_host_free(*state);
    else
        free(*state);
    *state = NULL;
}

uint32_t slab_local_rows(const slab *s)
{
    return s->above + s->rows + s->below;
}

size_t slab_local_cells(const slab *s)
{
    return (size_t)slab_local_rows(s) * s->width;
}

/* One row of elements of `size` bytes as an MPI type, so that counts are
 * rows: a 2^31-cell grid's bytes would overflow an int count. The row is
 * counted in elements, since its bytes may too (2^29 cells of 4 bytes). */
static MPI_Datatype row_type(const slab *s, size_t size)
{
    MPI_Datatype element, t;
    MPI_Type_contiguous((int)size, MPI_BYTE, &element);
    MPI_Type_contiguous((int)s->width, element, &t);
    MPI_Type_commit(&t);
    MPI_Type_free(&element);
    return t;
}

void slab_scatter(const slab *s, const void *whole, void *part, size_t size)
{
    MPI_Datatype row = row_type(s, size);
    size_t row_bytes = s->width * size;
    if (s->rank == 0) {
        for (int r = 0; r < s->ranks; r++) {
            uint32_t first, rows, above, below;
            rank_rows(s, r, &first, &rows, &above, &below);
            const char *from = (const char *)whole +
                               (first - above) * row_bytes;
            /* Rank 0 alone may hold 2^31 rows (a world one cell wide);
             * another holds at most half the rows and its halos. */
            uint32_t count = above + rows + below;
            if (r == 0)
                memcpy(part, from, count * row_bytes);
            else
                MPI_Send(from, (int)count, row, r, TAG_SCATTER, s->comm);
        }
    } else {
        MPI_Recv(part, (int)slab_local_rows(s), row, 0, TAG_SCATTER,
                 s->comm, MPI_STATUS_IGNORE);
    }
    MPI_Type_free(&row);
}

void slab_gather(const slab *s, const void *part, void *whole, size_t size)
{
    MPI_Datatype row = row_type(s, size);
    size_t row_bytes = s->width * size;
    const char *mine = (const char *)part + s->above * row_bytes;
    if (s->rank == 0) {
        for (int r = 0; r < s->ranks; r++) {
            uint32_t first, rows, above, below;
            rank_rows(s, r, &first, &rows, &above, &below);
            char *to = (char *)whole + first * row_bytes;
            if (r == 0)
                memmove(to, mine, rows * row_bytes);
            else
                MPI_Recv(to, (int)rows, row, r, TAG_GATHER, s->comm,
                         MPI_STATUS_IGNORE);
        }
    } else {
        MPI_Send(mine, (int)s->rows, row, 0, TAG_GATHER, s->comm);
    }
    MPI_Type_free(&row);
}

/* The rows this rank sends: its first depth rows up, its last depth rows
 * down; and the halo rows it receives from above and below. */
static uint32_t send_up_row(const slab *s) { return s->above; }
static uint32_t send_down_row(const slab *s)
{
    return s->above + s->rows - s->depth;
}
static uint32_t halo_below_row(const slab *s) { return s->above + s->rows; }

/* Sends and receives the halos of `state` (4-byte elements, on the host),
 * waiting for all of it. */
static void exchange_rows(const slab *s, MPI_Datatype row, char *state)
{
    size_t row_bytes = s->width * 4;
    MPI_Request req[4];
    int n = 0;
    if (s->rank > 0) {
        MPI_Irecv(state, (int)s->above, row, s->rank - 1, TAG_DOWN, s->comm,
                  &req[n++]);
        MPI_Isend(state + send_up_row(s) * row_bytes, (int)s->depth, row,
                  s->rank - 1, TAG_UP, s->comm, &req[n++]);
    }
    if (s->rank < s->ranks - 1) {
        MPI_Irecv(state + halo_below_row(s) * row_bytes, (int)s->below, row,
                  s->rank + 1, TAG_UP, s->comm, &req[n++]);
        MPI_Isend(state + send_down_row(s) * row_bytes, (int)s->depth, row,
                  s->rank + 1, TAG_DOWN, s->comm, &req[n++]);
    }
    MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
}

/* Enqueues the reads of the rows the neighbours need on `copy`. */
static int read_sent_rows(const slab *s, clarg *state, clstream *copy)
{
    size_t w = s->width;
    int rc = 0;
    if (s->rank > 0)
        rc = clarg_read_async(state, send_up_row(s) * w, s->depth * w, copy);
    if (rc == 0 && s->rank < s->ranks - 1)
        rc = clarg_read_async(state, send_down_row(s) * w, s->depth * w,
                              copy);
    return rc;
}

/* Enqueues the writes of the halos received on `copy`, where they run
 * beside the launches still in flight (none of which reads or writes the
 * halo rows of this state), and makes the context's queue wait for them
 * before its next work. */
static int write_halos(const slab *s, clarg *state, clstream *copy)
{
    size_t w = s->width;
    int rc = clarg_write_async(state, 0, s->above * w, copy);
    if (rc == 0)
        rc = clarg_write_async(state, halo_below_row(s) * w, s->below * w,
                               copy);
    return rc ? rc : clstream_after(NULL, copy);
}

/* The second half of every exchange: the rows read are sent and the
 * halos received (whatever rc, so that no neighbour waits for ever), then
 * written into the state on the device. rc is the status so far. */
static int trade_halos(const slab *s, MPI_Datatype row, clarg *state,
                       clstream *copy, int rc)
{
    double t0 = clock_ms();
    exchange_rows(s, row, state->host);
    if (s->times) {
        s->times->mpi_ms += clock_ms() - t0;
        s->times->exchanges++;
    }
    return rc ? rc : write_halos(s, state, copy);
}

int slab_exchange(const slab *s, clarg *state, clstream *copy, int rc)
{
    MPI_Datatype row = row_type(s, 4);
    if (rc == 0)
        rc = clstream_after(copy, NULL);
    if (rc == 0)
        rc = read_sent_rows(s, state, copy);
    if (rc == 0)
        rc = clstream_wait(copy);
    rc = trade_halos(s, row, state, copy, rc);
    MPI_Type_free(&row);
    return rc;
}

/* A range of rows of tiles, [first, last]; empty when first > last. */
typedef struct block_range {
    long first, last;
} block_range;

static int launch(app_stencil *st, block_range b, unsigned steps)
{
    if (b.first > b.last)
        return 0;
    return st->enqueue(st, (unsigned)b.first,
                       (unsigned)(b.last - b.first + 1), steps);
}

/* Enqueues the read of the rows the neighbours need, after the work on
 * the context's queue so far; slab_times counts the host's time in it. */
static int start_read(const slab *s, app_stencil *st, clstream *copy)
{
    double t0 = clock_ms();
    int rc = clstream_after(copy, NULL);
    if (rc == 0)
        rc = read_sent_rows(s, &st->next, copy);
    if (s->times)
        s->times->read_ms += clock_ms() - t0;
    return rc;
}

static int finish_read(const slab *s, clstream *copy)
{
    double t0 = clock_ms();
    int rc = clstream_wait(copy);
    if (s->times)
        s->times->read_ms += clock_ms() - t0;
    return rc;
}

/* The steps of launch j of a stretch of `steps`: max_steps, the last
 * launch what is left. */
static unsigned launch_steps(const app_stencil *st, unsigned steps,
                             unsigned j)
{
    unsigned before = j * st->max_steps;
    return steps - before < st->max_steps ? steps - before : st->max_steps;
}

/* One stretch of k launches (k > 1) ordered so that the exchange overlaps
 * every launch's interior. The edge launches go first: launch j's tiles
 * from the top to row top.last (from bottom.first down) make state j + 1
 * of a cone that narrows by a row of tiles a launch, so that each reads
 * only rows the one before made, and the last ends at the rows sent.
 * Those rows are read on `copy`; then the inner launches run from state 0,
 * each between the cone's rows of the same launch: what they read of the
 * cone, a tile's halo into its next row of tiles, no later edge launch has
 * overwritten, since each reaches a row of tiles less far. No tile is made
 * twice. */
static void cone(const slab *s, const app_stencil *st, unsigned k, unsigned j,
                 block_range *top, block_range *inner, block_range *bottom)
{
    long last = app_stencil_block(st, slab_local_rows(s) - 1);
    long wider = (long)(k - 1 - j);
    *top = *bottom = (block_range){1, 0};
    *inner = (block_range){0, last};
    if (s->rank > 0) {
        *top = (block_range){0, app_stencil_block(st, s->above + s->depth - 1)
                                + wider};
        inner->first = top->last + 1;
    }
    if (s->rank < s->ranks - 1) {
        *bottom = (block_range){app_stencil_block(st, send_down_row(s))
                                - wider, last};
        inner->last = bottom->first - 1;
    }
}

/* Whether the first launch's cones leave an interior between them, and a
 * tile's halo reaches no further than its next row of tiles. */
static int cone_fits(const slab *s, const app_stencil *st, unsigned k)
{
    if (st->block_rows < st->max_steps)
        return 0;
    block_range top, inner, bottom;
    cone(s, st, k, 0, &top, &inner, &bottom);
    return inner.first <= inner.last;
}

static int cone_stretch(const slab *s, app_stencil *st, unsigned steps,
                        unsigned k, clstream *copy)
{
    block_range top, inner, bottom;
    int rc = 0;
    for (unsigned j = 0; j < k && rc == 0; j++) {
        cone(s, st, k, j, &top, &inner, &bottom);
        rc = launch(st, top, launch_steps(st, steps, j));
        if (rc == 0)
            rc = launch(st, bottom, launch_steps(st, steps, j));
        if (rc == 0 && j + 1 < k)
            rc = clarg_swap(&st->cur, &st->next);
    }
    if (rc == 0)
        rc = start_read(s, st, copy);
    if (rc == 0 && (k - 1) % 2)         /* back to state 0 in cur */
        rc = clarg_swap(&st->cur, &st->next);
    for (unsigned j = 0; j < k && rc == 0; j++) {
        cone(s, st, k, j, &top, &inner, &bottom);
        rc = launch(st, inner, launch_steps(st, steps, j));
        if (rc == 0 && j + 1 < k)
            rc = clarg_swap(&st->cur, &st->next);
    }
    return rc ? rc : finish_read(s, copy);
}

/* Launches of st->max_steps steps over every row of tiles the rank holds,
 * halo rows too (the rows near the cut read them), until at most
 * max_steps are left. The rows wrong for being cut creep in a row a step,
 * never further than the halo's depth in a stretch. */
static int early_launches(const slab *s, app_stencil *st, unsigned *steps)
{
    block_range all = {0, app_stencil_block(st, slab_local_rows(s) - 1)};
    int rc = 0;
    while (*steps > st->max_steps && rc == 0) {
        rc = launch(st, all, st->max_steps);
        if (rc == 0)
            rc = clarg_swap(&st->cur, &st->next);
        *steps -= st->max_steps;
    }
    return rc;
}

/* One stretch of `steps` steps (at most depth). Of several launches, a
 * cone_stretch where the slab is thick enough; else (and of one) launches
 * over every row, then in the last launch the tiles of the rows that are
 * sent go first, then their read on `copy`, then the other tiles, while
 * the host sends and receives; tiles holding halo rows alone are not run
 * in it: the exchange replaces those rows. */
static int stretch(const slab *s, app_stencil *st, unsigned steps,
                   clstream *copy)
{
    int alone = s->ranks == 1;          /* nothing to send: no copies */
    unsigned k = (steps + st->max_steps - 1) / st->max_steps;
    if (!alone && k > 1 && cone_fits(s, st, k))
        return cone_stretch(s, st, steps, k, copy);
    int rc = early_launches(s, st, &steps);
    if (rc)
        return rc;
    long first = app_stencil_block(st, s->above);
    long last = app_stencil_block(st, s->above + s->rows - 1);
    block_range top = {1, 0}, bottom = {1, 0}, inner = {first, last};
    if (s->rank > 0)
        top = (block_range){first,
                            app_stencil_block(st, s->above + s->depth - 1)};
    if (s->rank < s->ranks - 1)
        bottom = (block_range){app_stencil_block(st, send_down_row(s)), last};
    if (top.first <= top.last && bottom.first <= bottom.last &&
        bottom.first <= top.last + 1) {
        top.last = bottom.last;             /* they meet: one launch */
        bottom = (block_range){1, 0};
    }
    if (top.first <= top.last)
        inner.first = top.last + 1;
    if (bottom.first <= bottom.last)
        inner.last = bottom.first - 1;
    rc = launch(st, top, steps);
    if (rc == 0)
        rc = launch(st, bottom, steps);
    if (rc == 0 && !alone)
        rc = start_read(s, st, copy);
    if (rc == 0)
        rc = launch(st, inner, steps);
    if (rc == 0 && !alone)
        rc = finish_read(s, copy);
    return rc;
}

int slab_advance(const slab *s, app_stencil *st, unsigned steps,
                 clstream *copy)
{
    MPI_Datatype row = row_type(s, 4);
    int rc = 0;
    for (unsigned done = 0; done < steps;) {
        unsigned now = steps - done < s->depth ? steps - done : s->depth;
        if (rc == 0)
            rc = stretch(s, st, now, copy);
        rc = trade_halos(s, row, &st->next, copy, rc);
        if (rc == 0)
            rc = clarg_swap(&st->cur, &st->next);
        done += now;
    }
    MPI_Type_free(&row);
    return rc;
}

int slab_agree(MPI_Comm comm, int rc)
{
    int rank, first;
    MPI_Comm_rank(comm, &rank);
    int mine = rc ? rank : INT_MAX;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first == INT_MAX)
        return 0;
    if (first == rank)
        return rc;
    return app_fail(SLAB_ERR_ELSEWHERE, "rank %d failed", first);
}

clctx *slab_open_device(MPI_Comm comm, const char *selector)
{
    MPI_Comm node;
    int local = 0;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local);
    MPI_Comm_free(&node);
    return clctx_new_nth(selector, (unsigned)local);
}
