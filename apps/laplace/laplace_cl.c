/*
 * laplace_cl.c: the OpenCL versions of the Laplace solver on clframe.
 *
 *   seed    the seed's port: phi and old_phi on the device with an int
 *           mask, two kernels per iteration (update phi from old_phi, copy
 *           the free cells back), because a kernel cannot wait for all the
 *           others before overwriting what they read;
 *   double  double-buffered: a byte mask and one kernel per iteration; the
 *           in-order queue orders the launches and clarg_swap exchanges
 *           the buffers' roles, so nothing is copied back;
 *   fast    double's buffers, iterated up to LAPLACE_HALO times per launch
 *           in local-memory tiles with a halo (temporal blocking): global
 *           memory is read and written once per launch, not per iteration;
 *   rows    double's buffers, iterated up to ROW_STEPS times per launch by
 *           one work-item per block of up to ROW_BLOCK rows, with no
 *           barrier (temporal blocking shaped for CPU devices).
 *
 * In tolerance mode the iteration that ends a check stretch runs a kernel
 * that also reduces each work-group's largest |change| in local memory;
 * the host reads those few floats and takes their max (for fast, that one
 * iteration is double's, the rest of the stretch is tiled; rows's kernel
 * measures its own last iteration, one value per block).
 */
#include "laplace.h"
#include "common/error.h"
#include "common/parse.h"
#include "common/program.h"
#include "common/stencil.h"
#include "clframe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* apps/laplace/kernels, compiled in (scripts/embed-sources). */
extern const clframe_source laplace_kernel_sources[];
#define LAPLACE_KERNELS "apps/laplace/kernels/laplace.cl"

/* The per-cell kernels' work-group: a warp-wide row, GROUP_H rows deep
 * (fewer on devices with small groups; a power of two, for the reduction). */
enum { GROUP_W = 32, GROUP_H = 8 };

/* fast's tile (laplace_tiled): w x h cells with a halo of `halo` (also the
 * most iterations per launch), a work-item per block of vx x py cells (a
 * work-group of w/vx x h/py), and 1 or 2 copies of the blocks' perimeters
 * in local memory (2: one barrier per iteration instead of two). */
typedef struct laplace_tile {
    unsigned w, h, halo, vx, py, copies;
} laplace_tile;

/* The default: the first of these that the device takes (its local memory
 * and work-group size), with two copies where they fit. The first is the
 * one to change (apps/laplace/cuda/laplace_kernels.cuh's defaults are its
 * twin's); the others are for devices with less. A tile reads (w * h) /
 * ((w - 2 halo) * (h - 2 halo)) times the grid per launch, and computes
 * that many cells per cell of the grid, for `halo` iterations: 64 x 64
 * with a halo of 8, 1.78 times per 8 iterations; 64 x 64 with 4, 1.31 per
 * 4. On the H200 the first was the fastest of the shapes tried, ahead of
 * larger tiles whose registers and local memory left fewer work-groups
 * per multiprocessor (bench/RESULTS.md, Laplace).
 * LAPLACE_TILE=WxHxHALO[xVX[xPY[xCOPIES]]] asks for another (for tuning:
 * the README). */
static const laplace_tile tile_choices[] = {
    {64, 64, 8, 4, 4, 0},       /* 2 x 16 KB of local memory, 256 items */
    {32, 32, 4, 4, 4, 0},       /* 4 KB, 64 */
};
enum { TILE_GROUP_ITEMS = 256 };    /* a LAPLACE_TILE without PY */

/* How `double` updates its cells. CPUs: one per work-item (the other
 * kernels' loops and vectors are slower on PoCL). GPUs: a float4 of cells
 * per work-item where nx is a multiple of 4, else COLUMN_ROWS cells down a
 * column: both come nearer the device's copy bandwidth than one cell per
 * work-item (bench/RESULTS.md, Laplace). */
typedef enum update_kind { UPDATE_CELL, UPDATE_COLUMN, UPDATE_FLOAT4 }
    update_kind;
enum { COLUMN_ROWS = 4 };

/* Each kind's kernel and the cells a work-item updates across and down. */
static const struct update_shape {
    const char *kernel;
    unsigned cells_x, cells_y;
} update_shapes[] = {
    [UPDATE_CELL] = {"laplace_update", 1, 1},
    [UPDATE_COLUMN] = {"laplace_update_column", 1, COLUMN_ROWS},
    [UPDATE_FLOAT4] = {"laplace_update4", 4, 1},
};

/* rows: the most rows in a block a work-item makes, and the most
 * iterations per launch (a launch of n iterations makes n - 1 redundant
 * rows on each side of a block at its first level, one fewer at each level
 * after, and keeps a ring of 3 * (n - 1) rows per block). Chosen by timing
 * PoCL with LAPLACE_ROW_BLOCK and LAPLACE_ROW_STEPS set: more iterations
 * per launch save passes over memory until their redundant rows cost more
 * than that saves, and shorter blocks lose to their halos. */
enum { ROW_BLOCK = 256, ROW_STEPS = 16, ROW_MAX_STEPS = 64 };

static update_kind choose_update(clctx *ctx, uint32_t nx)
{
    /* LAPLACE_UPDATE=cell, column or float4 overrides the choice (the
     * tests run the GPU kernels on the CPU device with it); float4 falls
     * back to column where nx % 4 != 0. */
    const char *env = getenv("LAPLACE_UPDATE");
    update_kind kind = clctx_device_type(ctx) & CL_DEVICE_TYPE_GPU
                           ? UPDATE_FLOAT4 : UPDATE_CELL;
    if (env && !strcmp(env, "cell"))
        kind = UPDATE_CELL;
    else if (env && !strcmp(env, "column"))
        kind = UPDATE_COLUMN;
    else if (env && !strcmp(env, "float4"))
        kind = UPDATE_FLOAT4;
    return kind == UPDATE_FLOAT4 && nx % 4 ? UPDATE_COLUMN : kind;
}

struct laplace_dev {
    app_stencil st;             /* first: the tiled kernel as a stencil; its
                                   cur is phi (seed) or the current buffer */
    clctx *ctx;
    laplace_grid *g;
    const laplace_plan *plan;
    laplace_stats *stats;
    laplace_version v;
    size_t cells, group_h, groups;
    laplace_tile tile;          /* fast's */
    unsigned block_rows, block_steps;   /* rows: ROW_BLOCK, ROW_STEPS */
    size_t blocks;              /* rows: work-items, one per block */
    clkernel *update, *change, *copy, *tiled, *row_blocks;
    clarg mask, changes, scratch;
    int *int_mask;              /* seed's mask as ints */
    float *group_max;           /* one per work-group of the change kernel
                                   (rows: per block) */
    size_t measured_groups;     /* of the last measuring launch */
    laplace_stats unread;       /* the stats when the caller has none */
};

static clkernel *build(laplace_dev *d, const char *name)
{
    /* The device's arithmetic must be the reference's. */
    char options[320];
    const laplace_tile *t = &d->tile;
    snprintf(options, sizeof options, "%s -DLAPLACE_GROUP_SIZE=%zu "
             "-DLAPLACE_TILE_W=%u -DLAPLACE_TILE_H=%u -DLAPLACE_HALO=%u "
             "-DLAPLACE_VX=%u -DLAPLACE_PY=%u -DLAPLACE_TILE_COPIES=%u "
             "-DLAPLACE_ROWS=%d",
             clctx_exact_fp_option(d->ctx), GROUP_W * d->group_h, t->w, t->h,
             t->halo, t->vx, t->py, t->copies, COLUMN_ROWS);
    if (clframe_add_sources(laplace_kernel_sources))
        return NULL;
    clkernel *k = clkernel_file(d->ctx, LAPLACE_KERNELS, name, options);
    app_timing_watch(&d->stats->timing, k);
    return k;
}

/* A per-cell kernel: one work-item per `width` x `rows` cells (1 x 1: per
 * cell), extra ones guarded. */
static clkernel *build_per_cell(laplace_dev *d, const char *name,
                                uint32_t width, uint32_t rows)
{
    clkernel *k = build(d, name);
    size_t row_items = (d->g->nx + width - 1) / width;
    size_t column_items = (d->g->ny + rows - 1) / rows;
    if (k && (clkernel_global(k, clframe_round_up(row_items, GROUP_W),
                              clframe_round_up(column_items, d->group_h)) ||
              clkernel_local(k, GROUP_W, d->group_h))) {
        clkernel_free(k);
        return NULL;
    }
    return k;
}

const char *laplace_double_kernel(clctx *ctx, uint32_t nx)
{
    return update_shapes[choose_update(ctx, nx)].kernel;
}

/* double's update kernel, as choose_update picked it. */
static clkernel *build_update(laplace_dev *d)
{
    const struct update_shape *u =
        &update_shapes[choose_update(d->ctx, d->g->nx)];
    return build_per_cell(d, u->kernel, u->cells_x, u->cells_y);
}

/* The tiled kernel's launch over the rows of tiles [first, first +
 * count): one work-group per tile's output block, the offset picking the
 * first row of tiles. */
static int tiled_enqueue(app_stencil *s, unsigned first, unsigned count,
                         unsigned steps)
{
    laplace_dev *d = (laplace_dev *)s;
    const laplace_tile *t = &d->tile;
    cl_uint now = steps;
    int rc = app_stencil_size(s, d->tiled, t->w - 2 * t->halo, t->w / t->vx,
                              t->h / t->py, first, count);
    if (rc == 0)
        rc = clkernel_enqueue(d->tiled, s->cur, s->next, d->mask,
                              CLARG(s->width), CLARG(s->height), CLARG(now));
    return rc;
}

/* A tile's local memory, per copy of the perimeters: each work-item's
 * first and last columns (one where vx is 1) and rows (one where py is
 * 1), in floats. */
static cl_ulong tile_local_bytes(const laplace_tile *t)
{
    cl_ulong items = (cl_ulong)(t->w / t->vx) * (t->h / t->py);
    unsigned cols = t->vx > 1 ? 2 : 1, rows = t->py > 1 ? 2 : 1;
    return items * (cols * t->py + rows * t->vx) * sizeof(float);
}

/* Whether ctx's device runs tile t; with t->copies 0, sets it to 2 where
 * two copies fit, else 1. */
static int tile_fits(clctx *ctx, laplace_tile *t)
{
    cl_ulong local = clctx_local_mem_size(ctx);
    size_t items = (size_t)(t->w / t->vx) * (t->h / t->py);
    if (t->copies == 0)
        t->copies = 2 * tile_local_bytes(t) <= local ? 2 : 1;
    return items <= clctx_max_work_group_size(ctx) &&
           t->copies * tile_local_bytes(t) <= local;
}

/* LAPLACE_TILE's fields in t: WxHxHALO, then VX (default 4), PY (default:
 * work-groups of TILE_GROUP_ITEMS) and COPIES (default: 0, as the device
 * takes them), each a whole number in range. 1 if valid. */
static int parse_tile(const char *text, laplace_tile *t)
{
    unsigned long f[6] = {0, 0, 0, 4, 0, 0};
    int n = parse_shape(text, 3, 6, f);
    for (int i = 0; i < n; i++)
        if (f[i] < 1 || f[i] > 4096)
            return 0;
    *t = (laplace_tile){(unsigned)f[0], (unsigned)f[1], (unsigned)f[2],
                        (unsigned)f[3], (unsigned)f[4], (unsigned)f[5]};
    if (n < 3 || (t->vx != 1 && t->vx != 2 && t->vx != 4) ||
        t->w % t->vx || 2 * t->halo >= t->w || 2 * t->halo >= t->h ||
        t->copies > 2)
        return 0;
    if (n < 5) {
        unsigned long cells = (unsigned long)t->w * t->h / t->vx;
        t->py = (unsigned)(cells / TILE_GROUP_ITEMS);
        if (t->py == 0 || cells % TILE_GROUP_ITEMS)
            return 0;
    }
    return t->h % t->py == 0 && t->vx * t->py <= 64;
}

/* fast's tile on ctx's device, in *t: what LAPLACE_TILE asks for where
 * `ask` and it is set, else the first of tile_choices that fits (the last
 * where none does: the caller reports it). */
static int choose_tile(clctx *ctx, int ask, laplace_tile *t)
{
    const char *env = ask ? getenv("LAPLACE_TILE") : NULL;
    if (env && *env) {
        if (!parse_tile(env, t))
            return app_fail(APP_ERR_BAD_INPUT, "laplace fast: LAPLACE_TILE="
                            "\"%.40s\": expected WxHxHALO[xVX[xPY[xCOPIES]]]"
                            ": VX 1, 2 or 4 (default 4) dividing W, PY "
                            "dividing H (default: work-groups of %d), VX * "
                            "PY at most 64, 2 * HALO less than W and H, "
                            "COPIES 1 or 2", env, TILE_GROUP_ITEMS);
        return 0;
    }
    size_t n = sizeof tile_choices / sizeof *tile_choices;
    for (size_t i = 0; i < n; i++) {
        *t = tile_choices[i];
        if (tile_fits(ctx, t))
            break;
    }
    return 0;
}

int laplace_fast_tile(clctx *ctx, char *name, size_t size)
{
    laplace_tile t;
    int rc = choose_tile(ctx, 1, &t);
    if (rc == 0)
        tile_fits(ctx, &t);     /* sets the copies */
    if (rc == 0)
        snprintf(name, size, "%ux%ux%ux%ux%ux%u", t.w, t.h, t.halo, t.vx,
                 t.py, t.copies);
    return rc;
}

/* Work-group shape and fast's tile for this device. */
static int choose_shapes(laplace_dev *d)
{
    size_t max_group = clctx_max_work_group_size(d->ctx);
    d->group_h = GROUP_H;
    while (GROUP_W * d->group_h > max_group && d->group_h > 1)
        d->group_h /= 2;
    if (GROUP_W * d->group_h > max_group)
        return app_fail(APP_ERR_DEVICE, "laplace: %s runs "
                        "work-groups of at most %zu; %d are needed",
                        clctx_device_name(d->ctx), max_group, GROUP_W);
    d->groups = clframe_round_up(d->g->nx, GROUP_W) / GROUP_W *
                (clframe_round_up(d->g->ny, d->group_h) / d->group_h);
    /* Every version builds laplace_tiled (one program), fast alone runs
     * it. */
    laplace_tile *t = &d->tile;
    int fast = d->v == LAPLACE_FAST;
    int rc = choose_tile(d->ctx, fast, t);
    if (rc == 0 && !tile_fits(d->ctx, t) && fast)
        return app_fail(APP_ERR_DEVICE, "laplace fast: %ux%u tiles of "
                        "%ux%u blocks need %lu bytes of local memory and "
                        "work-groups of %u; %s has %lu bytes and groups of "
                        "%zu", t->w, t->h, t->vx, t->py,
                        (unsigned long)(t->copies * tile_local_bytes(t)),
                        (t->w / t->vx) * (t->h / t->py),
                        clctx_device_name(d->ctx),
                        (unsigned long)clctx_local_mem_size(d->ctx),
                        max_group);
    return rc;
}

/* One of rows's shapes: `fallback`, or what environment variable `name`
 * says (the tests make small blocks with it), from 1 to `most`. */
static int row_shape(const char *name, unsigned fallback, unsigned most,
                     unsigned *out)
{
    const char *env = getenv(name);
    unsigned long v = fallback;
    if (env && !parse_uint(env, 1, most, &v))
        return app_fail(APP_ERR_BAD_INPUT, "laplace rows: %s=\"%.40s\" is "
                        "not a whole number from 1 to %u", name, env, most);
    *out = (unsigned)v;
    return 0;
}

/* rows's block height and iterations per launch (LAPLACE_ROW_BLOCK and
 * LAPLACE_ROW_STEPS override them), its kernel sized one work-item per
 * block, each a work-group of its own, and each block's ring of rows. */
static int set_up_row_blocks(laplace_dev *d)
{
    uint32_t ny = d->g->ny;
    int rc = row_shape("LAPLACE_ROW_BLOCK", 0, LAPLACE_MAX_SIDE,
                       &d->block_rows);
    if (rc == 0)
        rc = row_shape("LAPLACE_ROW_STEPS", ROW_STEPS, ROW_MAX_STEPS,
                       &d->block_steps);
    if (rc)
        return rc;
    if (!d->block_rows) {
        /* Blocks of up to ROW_BLOCK rows, as many as a multiple of the
         * compute units, of equal heights: every core gets the same
         * work (200 rows on 2 cores: 2 blocks of 100, not 128 and 72). */
        size_t blocks = clframe_round_up((ny + ROW_BLOCK - 1) / ROW_BLOCK,
                                         app_compute_units(d->ctx));
        blocks = blocks < ny ? blocks : ny;
        d->block_rows = (unsigned)((ny + blocks - 1) / blocks);
    }
    d->blocks = (ny + d->block_rows - 1) / d->block_rows;
    d->row_blocks = build(d, "laplace_row_blocks");
    if (!d->row_blocks)
        return CLFRAME_ERR_BUILD;       /* clframe said why */
    rc = clkernel_global(d->row_blocks, d->blocks);
    if (rc == 0)
        rc = clkernel_local(d->row_blocks, 1);
    /* 3 rows per level between the first and the last; one float at least
     * (a buffer cannot be empty). */
    size_t rows = 3 * (size_t)(d->block_steps - 1) * d->blocks;
    d->scratch = clarg_array("float", sizeof(float), NULL,
                             rows ? rows * d->g->nx : 1, CLARG_NO_COPY);
    if (rc == 0)
        rc = clarg_persist(&d->scratch, d->ctx);
    return rc;
}

/* Builds the version's kernels and puts the grid on the device. */
static int set_up(laplace_dev *d)
{
    laplace_grid *g = d->g;
    int rc = choose_shapes(d);
    if (rc == 0 && d->v == LAPLACE_ROW_BLOCKS) {
        rc = set_up_row_blocks(d);
        d->groups = d->blocks > d->groups ? d->blocks : d->groups;
    }
    if (rc)
        return rc;
    d->group_max = malloc(d->groups * sizeof *d->group_max);
    if (d->v == LAPLACE_SEED) {
        d->int_mask = malloc(d->cells * sizeof *d->int_mask);
        if (d->int_mask)
            for (size_t i = 0; i < d->cells; i++)
                d->int_mask[i] = g->mask[i];
        d->mask = CLARG_IN(d->int_mask, d->cells);
    } else {
        d->mask = CLARG_IN(g->mask, d->cells);
    }
    if (!d->group_max || (d->v == LAPLACE_SEED && !d->int_mask))
        return app_fail(APP_ERR_NO_MEMORY, "laplace: no memory for a "
                        "%u x %u grid's mask", g->nx, g->ny);
    int seed = d->v == LAPLACE_SEED, rows = d->v == LAPLACE_ROW_BLOCKS;
    if (!rows) {    /* rows has its own kernel, which measures too */
        d->update = seed ? build_per_cell(d, "laplace_seed_update", 1, 1)
                         : build_update(d);
        d->change = build_per_cell(d, seed ? "laplace_seed_update_change"
                                           : "laplace_update_change", 1, 1);
    }
    if (seed)
        d->copy = build_per_cell(d, "laplace_seed_copy", 1, 1);
    if (d->v == LAPLACE_FAST)
        d->tiled = build(d, "laplace_tiled");
    if ((!rows && (!d->update || !d->change)) || (seed && !d->copy) ||
        (d->v == LAPLACE_FAST && !d->tiled))
        return CLFRAME_ERR_BUILD;       /* clframe said why */
    /* Both buffers start as phi: fixed cells are never written again. */
    d->st = (app_stencil){
        .cur = CLARG_INOUT(g->phi, d->cells),
        .next = CLARG_INOUT(g->phi, d->cells),
        .width = g->nx,
        .height = g->ny,
        .block_rows = d->tile.h - 2 * d->tile.halo,
        .max_steps = d->tile.halo,
        .enqueue = tiled_enqueue,
    };
    d->changes = CLARG_INOUT(d->group_max, d->groups);
    rc = clarg_keep_on_device(&d->st.cur, d->ctx, 1);
    if (rc == 0)
        rc = clarg_keep_on_device(&d->st.next, d->ctx, 1);
    if (rc == 0)
        rc = clarg_keep_on_device(&d->mask, d->ctx, 1);
    if (rc == 0)
        rc = clarg_keep_on_device(&d->changes, d->ctx, 0);
    return rc;
}

/* One iteration of the seed's pair of kernels: cur is phi, next
 * old_phi. */
static int seed_iteration(laplace_dev *d, int measure)
{
    cl_uint nx = d->g->nx, ny = d->g->ny;
    int rc;
    d->measured_groups = d->groups;
    if (measure)
        rc = clkernel_enqueue(d->change, d->st.next, d->st.cur, d->mask,
                              CLARG(nx), CLARG(ny), d->changes);
    else
        rc = clkernel_enqueue(d->update, d->st.cur, d->st.next, d->mask,
                              CLARG(nx), CLARG(ny));
    if (rc)
        return rc;
    return clkernel_enqueue(d->copy, d->st.cur, d->st.next, d->mask, CLARG(nx),
                            CLARG(ny));
}

/* One iteration of the rows [first, first + rows) from cur into next that
 * also reduces their largest change, per work-group, into changes (the
 * other rows are left as they were: a rank's halos, apps/mpi). */
static int measure_rows(laplace_dev *d, uint32_t first, uint32_t rows)
{
    cl_uint nx = d->g->nx, end = first + rows;
    size_t gx = clframe_round_up(nx, GROUP_W);
    size_t gy = clframe_round_up(rows, d->group_h);
    d->measured_groups = gx / GROUP_W * (gy / d->group_h);
    int rc = clkernel_offset(d->change, 0, first);
    if (rc == 0)
        rc = clkernel_global(d->change, gx, gy);
    if (rc == 0)
        rc = clkernel_enqueue(d->change, d->st.cur, d->st.next, d->mask,
                              CLARG(nx), CLARG(end), d->changes);
    return rc;
}

/* One double-buffered iteration from cur into next, which then changes
 * roles with cur. */
static int double_iteration(laplace_dev *d, int measure)
{
    cl_uint nx = d->g->nx, ny = d->g->ny;
    int rc = measure ? measure_rows(d, 0, ny)
                     : clkernel_enqueue(d->update, d->st.cur, d->st.next,
                                        d->mask, CLARG(nx), CLARG(ny));
    return rc ? rc : clarg_swap(&d->st.cur, &d->st.next);
}

/* rows's n iterations in as few launches as ROW_STEPS allows, of equal
 * lengths as near as can be (each launch's redundant rows grow with its
 * length), the last launch measuring its last iteration if asked. */
static int row_blocks_advance(laplace_dev *d, unsigned n, int measure)
{
    cl_uint nx = d->g->nx, ny = d->g->ny, rows = d->block_rows;
    int rc = 0;
    while (n > 0 && rc == 0) {
        unsigned launches = (n + d->block_steps - 1) / d->block_steps;
        cl_uint steps = (n + launches - 1) / launches;
        n -= steps;
        cl_uint last = measure && n == 0;
        rc = clkernel_enqueue(d->row_blocks, d->st.cur, d->st.next, d->mask,
                              d->scratch, CLARG(nx), CLARG(ny), CLARG(rows),
                              CLARG(steps), CLARG(last), d->changes);
        if (rc == 0)
            rc = clarg_swap(&d->st.cur, &d->st.next);
    }
    d->measured_groups = d->blocks;
    return rc;
}

/* n iterations, the last of them measuring its largest change if asked. */
static int advance(laplace_dev *d, unsigned n, int measure)
{
    int rc = 0;
    if (d->v == LAPLACE_ROW_BLOCKS)
        return row_blocks_advance(d, n, measure);
    if (d->v == LAPLACE_FAST) {
        rc = app_stencil_run(&d->st, measure ? n - 1 : n);
        if (rc == 0 && measure)
            rc = double_iteration(d, 1);
        return rc;
    }
    for (unsigned t = 0; t < n && rc == 0; t++)
        rc = d->v == LAPLACE_SEED ? seed_iteration(d, measure && t == n - 1)
                                  : double_iteration(d, measure && t == n - 1);
    return rc;
}

/* The largest change the last measuring kernel found, in *change. */
static int read_change(laplace_dev *d, float *change)
{
    int rc = clarg_read_async(&d->changes, 0, d->measured_groups, NULL);
    if (rc == 0)
        rc = clctx_finish(d->ctx);
    float m = 0.0f;
    for (size_t i = 0; i < d->measured_groups && rc == 0; i++)
        m = d->group_max[i] > m ? d->group_max[i] : m;
    *change = m;
    return rc;
}

/* The plan's loop, as the reference runs it. */
static int run_plan(laplace_dev *d)
{
    const laplace_plan *plan = d->plan;
    unsigned done = 0;
    int rc = 0;
    while (done < plan->iterations && rc == 0) {
        unsigned n = laplace_next_stretch(plan, done);
        int check = plan->tolerance > 0.0f &&
                    (done + n) % plan->check_every == 0;
        rc = advance(d, n, check);
        done += n;
        float change = 0.0f;
        if (rc == 0 && check)
            rc = read_change(d, &change);
        if (rc == 0 && check && laplace_note_check(plan, change, d->stats))
            break;
    }
    d->stats->iterations = done;
    if (rc == 0) {
        /* The seed's result is in both buffers; the others' in cur. */
        rc = clarg_read(&d->st.cur);
    }
    return rc;
}

static void tear_down(laplace_dev *d)
{
    clarg_release(&d->st.cur);
    clarg_release(&d->st.next);
    clarg_release(&d->mask);
    clarg_release(&d->changes);
    clarg_release(&d->scratch);
    clkernel *all[] = {d->update, d->change, d->copy, d->tiled,
                       d->row_blocks};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
        app_timing_add(&d->stats->timing, all[i]);
        clkernel_free(all[i]);
    }
    free(d->int_mask);
    free(d->group_max);
}

int laplace_solve_opencl(laplace_grid *g, const laplace_plan *plan,
                         laplace_version v, clctx *ctx, laplace_stats *stats)
{
    if (!app_version_uses_opencl(&laplace_versions, v))
        return app_fail(APP_ERR_USAGE, "laplace_solve_opencl: "
                        "version %d is not an OpenCL version", (int)v);
    laplace_dev d = {
        .ctx = ctx ? ctx : clctx_default(),
        .g = g,
        .plan = plan,
        .stats = stats,
        .v = v,
        .cells = (size_t)g->nx * g->ny,
    };
    if (!d.ctx)
        return CLFRAME_ERR_NO_DEVICE;   /* clframe said why */
    int rc = set_up(&d);
    if (rc == 0)
        rc = run_plan(&d);
    tear_down(&d);
    return rc;
}

/* ---- the fast version in parts (apps/mpi) ---------------------------------- */

int laplace_fast_open(laplace_dev **out, laplace_grid *g, clctx *ctx,
                      laplace_stats *stats)
{
    static const laplace_plan unused = {0, 0.0f, 1};
    laplace_dev *d = calloc(1, sizeof *d);
    *out = NULL;
    if (!d)
        return app_fail(APP_ERR_NO_MEMORY, "laplace: no memory");
    *d = (laplace_dev){
        .ctx = ctx ? ctx : clctx_default(),
        .g = g,
        .plan = &unused,
        .stats = stats ? stats : &d->unread,
        .v = LAPLACE_FAST,
        .cells = (size_t)g->nx * g->ny,
    };
    int rc = d->ctx ? set_up(d) : CLFRAME_ERR_NO_DEVICE;
    if (rc)
        laplace_fast_close(d);
    else
        *out = d;
    return rc;
}

app_stencil *laplace_fast_stencil(laplace_dev *d)
{
    return &d->st;
}

int laplace_fast_measure(laplace_dev *d, uint32_t first, uint32_t rows)
{
    return measure_rows(d, first, rows);
}

int laplace_fast_change(laplace_dev *d, float *change)
{
    return read_change(d, change);
}

void laplace_fast_close(laplace_dev *d)
{
    if (!d)
        return;
    tear_down(d);
    free(d);
}
