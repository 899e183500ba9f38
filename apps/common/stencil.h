/*
 * stencil.h: a tiled stencil on a device, as code that steps a grid in
 * parts sees it (apps/mpi): the state in two persistent buffers, and a
 * launch that steps some rows of tiles from one into the other. Each
 * stencil app's tiled version gives one, so that the code that splits a
 * grid over MPI ranks serves them all.
 */
#ifndef APPS_STENCIL_H
#define APPS_STENCIL_H

#include "clframe.h"

#include <stdint.h>

typedef struct app_stencil app_stencil;
struct app_stencil {
    clarg cur, next;        /* the state, and the buffer the next goes to;
                               both persistent, over one host array */
    uint32_t width, height; /* the grid it steps, in cells */
    unsigned block_rows;    /* rows of output one row of tiles makes */
    unsigned max_steps;     /* the tiles' halo: the most steps per launch */
    /* Enqueues `steps` steps (1 to max_steps) of the tile rows [first,
     * first + count), reading cur and writing next. 0 or a code. */
    int (*enqueue)(app_stencil *s, unsigned first, unsigned count,
                   unsigned steps);
};

/* The row of tiles whose output holds the grid's row `row`. */
unsigned app_stencil_block(const app_stencil *s, uint32_t row);

/* Sizes tiled kernel k for the rows of tiles [first, first + count): one
 * work-group of group_w x group_h work-items per tile's output block of
 * out_w columns, the global offset picking the first row of tiles (the
 * kernel finds its tile row from get_global_id(1) / group_h). */
int app_stencil_size(const app_stencil *s, clkernel *k, unsigned out_w,
                     unsigned group_w, unsigned group_h, unsigned first,
                     unsigned count);

/* `steps` steps of the whole grid on the device, as launches of up to
 * max_steps steps, each followed by a swap of cur and next: cur then
 * holds the result, on the device. 0 or a code. */
int app_stencil_run(app_stencil *s, unsigned steps);

#endif /* APPS_STENCIL_H */
