/*
 * slab.h: a grid split over MPI ranks in slabs of whole rows, one rank per
 * device. Each rank holds its rows and `depth` halo rows of each
 * neighbour's, steps them with a tiled stencil (common/stencil.h) up to
 * depth steps at a time, and then exchanges halos: its first and last
 * depth rows go to the ranks above and below, theirs come back. A cell
 * depth rows inside a halo is exact after depth steps, the same argument
 * that makes the tiles exact; so every rank's rows equal, bit for bit,
 * those of the whole grid stepped on one device.
 *
 * Rank 0 holds the whole grid before and after (scatter, gather). A rank
 * that fails keeps taking part in the exchanges, so that none waits for
 * ever, and slab_agree then makes every rank return an error.
 */
#ifndef MPI_SLAB_H
#define MPI_SLAB_H

#include "common/stencil.h"

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* What another rank's failure returns: that rank printed the message. */
#define SLAB_ERR_ELSEWHERE (-9190)

/* Where a rank's time in slab_advance went, by the host's clock (ms),
 * summed over its exchanges: enqueueing and waiting for the rows it sends
 * (their tiles run first), and sending and receiving them. */
typedef struct slab_times {
    double read_ms, mpi_ms;
    unsigned exchanges;
} slab_times;

/* The halo depth a grid is split with unless told otherwise: rows
 * exchanged, and steps between exchanges. Deeper than the tiles' steps per
 * launch (4), a stretch is several launches and the exchange's fixed cost
 * is paid once for all of them, for 2 x depth halo rows that the
 * neighbours step too (bench/RESULTS.md, MPI). */
#define SLAB_DEPTH 16u

/* How a part is laid out; zeros (or NULL) ask for the defaults. */
typedef struct slab_options {
    unsigned depth;         /* halo rows; 0: SLAB_DEPTH */
    int pageable;           /* 1: never pin the state (slab_pin) */
    slab_times *times;      /* filled by slab_advance when not NULL */
} slab_options;

typedef struct slab {
    MPI_Comm comm;
    int rank, ranks;
    uint32_t width, height;     /* the whole grid */
    uint32_t first, rows;       /* the rows this rank owns */
    uint32_t above, below;      /* halo rows it holds above and below them
                                   (0 at the grid's top and bottom) */
    uint32_t depth;             /* the halos' depth: rows exchanged, and
                                   the most steps between exchanges */
    slab_times *times;          /* where slab_advance's time went, or NULL */
} slab;

/* Splits a width x height grid over comm's ranks, as evenly as whole rows
 * go, with halos o->depth deep, or as deep as the thinnest slab where
 * that is less. Every rank passes the same values. A grid with fewer rows
 * than ranks is refused. 0 or a code (the same on every rank). */
int slab_plan(slab *s, MPI_Comm comm, uint32_t width, uint32_t height,
              const slab_options *o);

/* Moves a part's state (cells floats from malloc) into pinned memory when
 * ctx's device copies arrays, so that the halos' reads and writes run
 * beside the kernels instead of holding the host (clstream); *pinned says
 * whether it did. A device that uses pinned memory in place, or
 * o->pageable, keeps the array: cur and next share it, which in place they
 * could not. 0 or a code, *state unchanged. slab_unpin frees it. */
int slab_pin(clctx *ctx, const slab_options *o, float **state, size_t cells,
             int *pinned);
void slab_unpin(float **state, int pinned);

/* The rows a rank holds, halos included, and their cells. */
uint32_t slab_local_rows(const slab *s);
size_t slab_local_cells(const slab *s);

/* Rank 0 sends each rank its rows and halos of `whole` (elements of
 * `size` bytes, row by row), which each receives into `part` (its local
 * rows). Collective; whole is read on rank 0 only. */
void slab_scatter(const slab *s, const void *whole, void *part, size_t size);

/* The reverse for the owned rows only: rank 0 receives every rank's rows
 * into `whole`. Collective; whole is written on rank 0 only. */
void slab_gather(const slab *s, const void *part, void *whole, size_t size);

/* `steps` steps of the stencil over this rank's rows, which are its
 * local grid: per stretch of up to depth steps (launches of up to the
 * tiles' max_steps), the tiles that make the rows the neighbours need run
 * first (in every launch, as a cone narrowing a row of tiles a launch,
 * where the slab is thick enough), those rows are read back on `copy`
 * while the other tiles run, the halos are exchanged with non-blocking
 * sends and receives meanwhile, and written into the new state on `copy`,
 * before the next stretch. st->cur holds the result on the device. On a
 * failure this rank goes on exchanging (whatever its rows hold) and
 * returns the first code; the others learn of it from slab_agree. */
int slab_advance(const slab *s, app_stencil *st, unsigned steps,
                 clstream *copy);

/* Exchanges the halos of a state on the device now: the rows the
 * neighbours need are read on `copy` (after the work enqueued so far),
 * sent and received, and the halos written on `copy`, which the context's
 * queue then waits for. rc is the caller's status so far: when not 0 the
 * device is left alone but the exchange still made. Returns rc, or the
 * first new code. */
int slab_exchange(const slab *s, clarg *state, clstream *copy, int rc);

/* Whether every rank succeeded: 0 if all passed 0; else the lowest
 * failing rank gets its own rc back (its message stands) and every other
 * rank SLAB_ERR_ELSEWHERE. Collective. */
int slab_agree(MPI_Comm comm, int rc);

/* A context on this rank's device: clctx_new_nth(selector, the rank's
 * index among the ranks of its node), so that ranks spread over a node's
 * GPUs and share its CPU device where there is none. NULL with a message
 * when it cannot be opened. */
clctx *slab_open_device(MPI_Comm comm, const char *selector);

#endif /* MPI_SLAB_H */
