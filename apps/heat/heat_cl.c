/*
 * heat_cl.c: the OpenCL versions of the heat stepper on clframe.
 *
 *   v3  the seed's naive port: a blocking kernel call per step that copies
 *       the state to the device and the new state back every time;
 *   v4  double-buffered: the state stays on the device in two persistent
 *       buffers, kernels are enqueued back to back on the in-order queue
 *       (which orders them, as the seed's barrier did) and the state is
 *       read back once;
 *   v5  v4 with the neighbours' insulator bits packed into each cell's
 *       flags on the host, so a cell reads one flags word instead of five;
 *   v6  v5's flags as bytes, and up to HEAT_HALO steps per launch in
 *       local-memory tiles with a halo (temporal blocking): global memory
 *       is read and written once per launch instead of once per step. It
 *       is a stencil (common/stencil.h), which apps/mpi steps in parts;
 *   v7  temporal blocking shaped for a CPU device: a work-item steps a
 *       block of the world several times alone, recomputing its halo,
 *       with no barrier, its working set a few rows in the core's cache.
 */
#include "heat.h"
#include "common/error.h"
#include "common/parse.h"
#include "common/program.h"
#include "common/stencil.h"
#include "clframe.h"

#include <stdio.h>
#include <stdlib.h>

/* apps/heat/kernels, compiled in (scripts/embed-sources). */
extern const clframe_source heat_kernel_sources[];
#define HEAT_KERNELS "apps/heat/kernels/heat.cl"

/* v3-v5's work-group shape: a warp-wide row, a few rows deep. */
enum { ROW_GROUP_W = 32, ROW_GROUP_H = 8 };

/* v6's default tile: 64 cells wide and as tall as local memory allows, up
 * to 64, with a halo of 4 (so up to 4 steps per launch), stepped by 64 x 4
 * work-items, each a column of 16 cells: the fastest shape on the H200
 * (bench/RESULTS.md, Heat world). */
enum { TILE_GROUP_W = 64, TILE_GROUP_H = 4, TILE_W = 64, TILE_MAX_H = 64,
       TILE_HALO = 4 };

/* Local memory a tile cell takes: two temperatures and its flags. */
#define TILE_CELL_BYTES (2 * sizeof(float) + 1)

typedef struct heat_run {
    clctx *ctx;
    heat_world *world;
    size_t cells;
    float inner, outer;
    app_timing *timing;         /* the caller's, or one nobody reads */
} heat_run;

static clkernel *build(heat_run *run, const char *name, const char *defines)
{
    /* The device's arithmetic must be the reference's. */
    char options[256];
    snprintf(options, sizeof options, "%s %s",
             clctx_exact_fp_option(run->ctx), defines);
    if (clframe_add_sources(heat_kernel_sources))
        return NULL;
    clkernel *k = clkernel_file(run->ctx, HEAT_KERNELS, name, options);
    app_timing_watch(run->timing, k);
    return k;
}

/* A run's kernel is done: its launches and time go to the run's timing. */
static void free_kernel(heat_run *run, clkernel *k)
{
    app_timing_add(run->timing, k);
    clkernel_free(k);
}

/* One work-item per cell in ROW_GROUP_W x ROW_GROUP_H groups (narrower on
 * devices with small groups); the kernels guard the extra work-items. */
static int size_per_cell(heat_run *run, clkernel *k)
{
    size_t gw = ROW_GROUP_W, gh = ROW_GROUP_H;
    while (gw * gh > clctx_max_work_group_size(run->ctx) && gh > 1)
        gh /= 2;
    int rc = clkernel_global(k, clframe_round_up(run->world->w, gw),
                             clframe_round_up(run->world->h, gh));
    return rc ? rc : clkernel_local(k, gw, gh);
}

/* ---- v3: the naive port -------------------------------------------------- */

static int step_naive(heat_run *run, unsigned steps)
{
    heat_world *world = run->world;
    float *buffer = malloc(run->cells * sizeof *buffer);
    if (!buffer)
        return app_fail(APP_ERR_NO_MEMORY, "heat v3: no memory for "
                        "a %u x %u state", world->w, world->h);
    clkernel *k = build(run, "heat_step_naive", "");
    clarg properties = CLARG_IN(world->properties, run->cells);
    int rc = k ? size_per_cell(run, k) : CLFRAME_ERR_BUILD;
    if (rc == 0)
        rc = clarg_keep_on_device(&properties, run->ctx, 1);
    for (unsigned t = 0; t < steps && rc == 0; t++) {
        rc = clkernel_call(k, CLARG(run->inner), CLARG(run->outer),
                           CLARG(world->w), CLARG(world->h), properties,
                           CLARG_IN(world->state, run->cells),
                           CLARG_OUT(buffer, run->cells));
        if (rc == 0) {
            float *swap = world->state;
            world->state = buffer;
            buffer = swap;
        }
    }
    clarg_release(&properties);
    free_kernel(run, k);
    free(buffer);
    return rc;
}

/* ---- v4, v5, v6: double buffering ---------------------------------------- */

uint32_t heat_packed_flags(const heat_world *world, uint32_t x, uint32_t y)
{
    size_t w = world->w, i = (size_t)y * w + x;
    const uint32_t *p = world->properties;
    uint32_t flags = p[i];
    if (flags & (HEAT_CELL_FIXED | HEAT_CELL_INSULATOR))
        return flags;
    if (p[i - w] & HEAT_CELL_INSULATOR)
        flags |= HEAT_PACKED_ABOVE;
    if (p[i + w] & HEAT_CELL_INSULATOR)
        flags |= HEAT_PACKED_BELOW;
    if (p[i - 1] & HEAT_CELL_INSULATOR)
        flags |= HEAT_PACKED_LEFT;
    if (p[i + 1] & HEAT_CELL_INSULATOR)
        flags |= HEAT_PACKED_RIGHT;
    return flags;
}

/* Every cell's packed flags as 32-bit words (v5) or bytes (v6), in a new
 * array (the caller frees it); NULL on failure, with a message. */
static void *pack_flags(const heat_world *world, size_t bytes_per_cell)
{
    size_t cells = (size_t)world->w * world->h;
    unsigned char *flags = malloc(cells * bytes_per_cell);
    if (!flags) {
        app_fail(APP_ERR_NO_MEMORY, "heat: no memory for %u x %u "
                 "packed flags", world->w, world->h);
        return NULL;
    }
    /* Rows in parallel: a world of 25 million cells takes the host tens
     * of milliseconds a core, which a whole process run pays every time. */
#pragma omp parallel for schedule(static)
    for (long y = 0; y < (long)world->h; y++)
        for (uint32_t x = 0; x < world->w; x++) {
            size_t i = (size_t)y * world->w + x;
            uint32_t f = heat_packed_flags(world, x, (uint32_t)y);
            if (bytes_per_cell == 1)
                flags[i] = (uint8_t)f;
            else
                ((uint32_t *)flags)[i] = f;
        }
    return flags;
}

/* A v6 tile: its size in cells, halo included, the halo, which is also
 * the most steps one launch may take, and the work-group that steps it. */
typedef struct heat_tile {
    unsigned w, h, halo, group_w, group_h;
} heat_tile;

/* Reads HEAT_V6_TILE=WxHxHALO[xGWxGH] into *t (the group defaulting to
 * TILE_GROUP_W x TILE_GROUP_H). */
static int parse_tile(const char *env, heat_tile *t)
{
    unsigned long f[5] = {0, 0, 0, TILE_GROUP_W, TILE_GROUP_H};
    int n = parse_shape(env, 3, 5, f);
    *t = (heat_tile){(unsigned)f[0], (unsigned)f[1], (unsigned)f[2],
                     (unsigned)f[3], (unsigned)f[4]};
    if (n == 0 || n == 4 || t->group_w == 0 || t->group_h == 0 ||
        t->w == 0 || t->h == 0 || t->w % t->group_w || t->h % t->group_h ||
        t->halo == 0 || 2 * t->halo >= t->w || 2 * t->halo >= t->h)
        return app_fail(APP_ERR_BAD_INPUT, "HEAT_V6_TILE=%s: expected "
                        "WxHxHALO or WxHxHALOxGWxGH: W a multiple of GW "
                        "(%d unless given), H of GH (%d unless given), and "
                        "2*HALO less than both", env, TILE_GROUP_W,
                        TILE_GROUP_H);
    return 0;
}

/* The tile for this device: HEAT_V6_TILE if set (for tuning), else the
 * default; checked against the device's local memory (TILE_CELL_BYTES a
 * cell) and work-group size. */
static int choose_tile(clctx *ctx, heat_tile *t)
{
    cl_ulong local = clctx_local_mem_size(ctx);
    const char *env = getenv("HEAT_V6_TILE");
    if (env && *env) {
        if (parse_tile(env, t))
            return APP_ERR_BAD_INPUT;
    } else {
        *t = (heat_tile){.w = TILE_W, .h = TILE_MAX_H, .halo = TILE_HALO,
                         .group_w = TILE_GROUP_W, .group_h = TILE_GROUP_H};
        while (t->h > 2 * t->halo + t->group_h &&
               (cl_ulong)t->w * t->h * TILE_CELL_BYTES > local)
            t->h -= t->group_h;
    }
    size_t group = (size_t)t->group_w * t->group_h;
    if ((cl_ulong)t->w * t->h * TILE_CELL_BYTES > local ||
        group > clctx_max_work_group_size(ctx))
        return app_fail(APP_ERR_DEVICE, "heat v6: %ux%u tiles need "
                        "%zu bytes of local memory and work-groups of %zu; "
                        "%s has %lu bytes and groups of %zu", t->w, t->h,
                        (size_t)t->w * t->h * TILE_CELL_BYTES, group,
                        clctx_device_name(ctx), (unsigned long)local,
                        clctx_max_work_group_size(ctx));
    return 0;
}

/* v6 as a stencil (common/stencil.h): the kernel for its tile, the world's
 * packed flags on the device, and the state in two buffers. */
typedef struct heat_v6 {
    app_stencil stencil;        /* first, so that a stencil is its heat_v6 */
    heat_run run;
    app_timing ignored;         /* the run's timing when the caller has none */
    heat_tile tile;
    clkernel *kernel;
    clarg flags;
    uint8_t *packed;
} heat_v6;

/* Steps the rows of tiles [first, first + count): one work-group per
 * tile's output block, the offset picking the first row of tiles. */
static int v6_enqueue(app_stencil *s, unsigned first, unsigned count,
                      unsigned steps)
{
    heat_v6 *v = (heat_v6 *)s;
    cl_uint now = steps;
    int rc = app_stencil_size(s, v->kernel, v->tile.w - 2 * v->tile.halo,
                              v->tile.group_w, v->tile.group_h, first,
                              count);
    if (rc == 0)
        rc = clkernel_enqueue(v->kernel, CLARG(v->run.inner),
                              CLARG(v->run.outer), CLARG(s->width),
                              CLARG(s->height), v->flags, s->cur, s->next,
                              CLARG(now));
    return rc;
}

void heat_v6_close(app_stencil *s)
{
    heat_v6 *v = (heat_v6 *)s;
    if (!v)
        return;
    clarg_release(&s->cur);
    clarg_release(&s->next);
    clarg_release(&v->flags);
    free_kernel(&v->run, v->kernel);
    free(v->packed);
    free(v);
}

int heat_v6_open(app_stencil **out, heat_world *world, float dt,
                 clctx *ctx, app_timing *timing)
{
    heat_v6 *v = calloc(1, sizeof *v);
    *out = NULL;
    if (!v)
        return app_fail(APP_ERR_NO_MEMORY, "heat v6: no memory");
    v->run = (heat_run){
        .ctx = ctx ? ctx : clctx_default(),
        .world = world,
        .cells = (size_t)world->w * world->h,
        .timing = timing ? timing : &v->ignored,
    };
    heat_coefficients(world->alpha, dt, &v->run.inner, &v->run.outer);
    app_stencil *s = &v->stencil;
    int rc = v->run.ctx ? choose_tile(v->run.ctx, &v->tile)
                        : CLFRAME_ERR_NO_DEVICE;     /* clframe said why */
    if (rc == 0 && !(v->packed = pack_flags(world, sizeof(uint8_t))))
        rc = APP_ERR_NO_MEMORY;
    if (rc == 0) {
        char defines[160];
        snprintf(defines, sizeof defines, "-DHEAT_GROUP_W=%u "
                 "-DHEAT_GROUP_H=%u -DHEAT_TILE_W=%u -DHEAT_TILE_H=%u "
                 "-DHEAT_HALO=%u", v->tile.group_w, v->tile.group_h,
                 v->tile.w, v->tile.h, v->tile.halo);
        v->kernel = build(&v->run, "heat_step_tiled", defines);
        rc = v->kernel ? 0 : CLFRAME_ERR_BUILD;
    }
    *s = (app_stencil){
        .cur = CLARG_INOUT(world->state, v->run.cells),
        .next = CLARG_INOUT(world->state, v->run.cells),
        .width = world->w,
        .height = world->h,
        .block_rows = v->tile.h - 2 * v->tile.halo,
        .max_steps = v->tile.halo,
        .enqueue = v6_enqueue,
    };
    v->flags = CLARG_IN(v->packed, v->run.cells);
    if (rc == 0)
        rc = clarg_keep_on_device(&v->flags, v->run.ctx, 1);
    if (rc == 0)
        rc = clarg_keep_on_device(&s->cur, v->run.ctx, 1);
    if (rc == 0)
        rc = clarg_keep_on_device(&s->next, v->run.ctx, 0);
    if (rc)
        heat_v6_close(s);
    else
        *out = s;
    return rc;
}

/* The loop v4 and v5 share: the state stays on the device in two buffers
 * that change roles after every launch; k reads `flags` (the properties,
 * or packed flags). */
static int step_double_buffered(heat_run *run, unsigned steps, clkernel *k,
                                clarg flags)
{
    heat_world *world = run->world;
    clarg cur = CLARG_INOUT(world->state, run->cells);
    clarg next = CLARG_INOUT(world->state, run->cells);
    int rc = clarg_keep_on_device(&cur, run->ctx, 1);
    if (rc == 0)
        rc = clarg_keep_on_device(&next, run->ctx, 0);
    for (unsigned t = 0; t < steps && rc == 0; t++) {
        rc = clkernel_enqueue(k, CLARG(run->inner), CLARG(run->outer),
                              CLARG(world->w), CLARG(world->h), flags,
                              cur, next);
        if (rc == 0)
            rc = clarg_swap(&cur, &next);
    }
    if (rc == 0)
        rc = clarg_read(&cur);
    clarg_release(&cur);
    clarg_release(&next);
    return rc;
}

/* v4 (the properties as they are) and v5 (packed into 32-bit words). */
static int step_persistent(heat_run *run, unsigned steps, heat_version v)
{
    heat_world *world = run->world;
    uint32_t *packed = NULL;
    clarg flags = CLARG_IN(world->properties, run->cells);
    if (v == HEAT_V5_PACKED) {
        if (!(packed = pack_flags(world, sizeof(uint32_t))))
            return APP_ERR_NO_MEMORY;
        flags = CLARG_IN(packed, run->cells);
    }
    clkernel *k = build(run, v == HEAT_V5_PACKED ? "heat_step_packed"
                                                 : "heat_step_naive", "");
    int rc = k ? size_per_cell(run, k) : CLFRAME_ERR_BUILD;
    if (rc == 0)
        rc = clarg_keep_on_device(&flags, run->ctx, 1);
    if (rc == 0)
        rc = step_double_buffered(run, steps, k, flags);
    clarg_release(&flags);
    free_kernel(run, k);
    free(packed);
    return rc;
}

/* ---- v7: blocks stepped alone, for CPU devices --------------------------- */

/* v7's block, steps per launch and work-items, chosen by timing standard
 * worlds on PoCL with 2 cores:
 *  - rows: 256, faster than 128 and as fast as 512;
 *  - columns: 2048, as fast as whole rows on the largest world timed, and
 *    bounding the ring on wider worlds (7 x 3 rows of 2064 floats, 173 KB);
 *  - steps per launch: 8, among the best on small worlds; more were a
 *    little faster on large ones, fewer slower everywhere (more passes over
 *    memory);
 *  - 1, 2, 4 or 8 work-items per compute unit: no difference beyond the
 *    noise; 4 lets the others take a busy core's share.
 * Not tried beyond 2 cores: a world too small to give every compute unit
 * BLOCK_MIN_PER_UNIT blocks gets blocks of fewer rows, down to
 * BLOCK_MIN_ROWS, so that every core has work. */
enum { BLOCK_ROWS = 256, BLOCK_COLS = 2048, BLOCK_STEPS = 8,
       BLOCK_ITEMS_PER_UNIT = 4, BLOCK_MIN_PER_UNIT = 2,
       BLOCK_MIN_ROWS = 2 * BLOCK_STEPS };

/* The most HEAT_V7_BLOCK may ask for, and the most the work-items' rings
 * may take together (fewer work-items then): far past any cache. */
enum { BLOCK_MAX_SIDE = 1 << 20, BLOCK_MAX_STEPS = 64 };
static const size_t BLOCK_MAX_SCRATCH = (size_t)256 << 20;

typedef struct heat_block {
    unsigned rows, cols, steps;
} heat_block;

/* The block for a world of h rows: HEAT_V7_BLOCK=ROWSxCOLSxSTEPS as it is
 * if set (for tuning and tests), else the default, with fewer rows when
 * the world has too few for every compute unit to get some blocks. */
static int choose_block(clctx *ctx, uint32_t h, heat_block *b)
{
    const char *env = getenv("HEAT_V7_BLOCK");
    *b = (heat_block){BLOCK_ROWS, BLOCK_COLS, BLOCK_STEPS};
    if (env && *env) {
        unsigned long f[3];
        if (!parse_shape(env, 3, 3, f) || f[0] < 1 ||
            f[0] > BLOCK_MAX_SIDE || f[1] < 1 || f[1] > BLOCK_MAX_SIDE ||
            f[2] < 1 || f[2] > BLOCK_MAX_STEPS)
            return app_fail(APP_ERR_BAD_INPUT, "HEAT_V7_BLOCK=%s: expected "
                            "ROWSxCOLSxSTEPS, rows and columns from 1 to %d, "
                            "steps from 1 to %d", env, BLOCK_MAX_SIDE,
                            BLOCK_MAX_STEPS);
        *b = (heat_block){(unsigned)f[0], (unsigned)f[1], (unsigned)f[2]};
        return 0;
    }
    size_t blocks = (size_t)app_compute_units(ctx) * BLOCK_MIN_PER_UNIT;
    size_t rows = ((size_t)h + blocks - 1) / blocks;
    if (rows < b->rows)
        b->rows = rows > BLOCK_MIN_ROWS ? (unsigned)rows : BLOCK_MIN_ROWS;
    return 0;
}

/* Work-items for `blocks` blocks: a few per compute unit, no more than
 * there are blocks, and their rings of ring_bytes each within
 * BLOCK_MAX_SCRATCH. */
static size_t block_items(clctx *ctx, size_t blocks, size_t ring_bytes)
{
    size_t items = (size_t)app_compute_units(ctx) * BLOCK_ITEMS_PER_UNIT;
    if (items > blocks)
        items = blocks;
    if (ring_bytes && items > BLOCK_MAX_SCRATCH / ring_bytes)
        items = BLOCK_MAX_SCRATCH / ring_bytes;
    return items ? items : 1;
}

static int step_blocked(heat_run *run, unsigned steps)
{
    heat_world *world = run->world;
    heat_block b;
    int rc = choose_block(run->ctx, world->h, &b);
    if (rc)
        return rc;
    /* A block as wide as the world at most, so that its ring is too. */
    cl_uint rows = b.rows, halo = b.steps;
    cl_uint cols = b.cols < world->w ? b.cols : world->w;
    size_t blocks = ((size_t)world->w + cols - 1) / cols *
                    (((size_t)world->h + rows - 1) / rows);
    /* Each work-item's ring (heat.cl); a float in all when there is none. */
    size_t ring = (size_t)(halo - 1) * 3 * (cols + 2 * halo);
    size_t items = block_items(run->ctx, blocks, ring * sizeof(float));
    uint8_t *packed = pack_flags(world, sizeof(uint8_t));
    if (!packed)
        return APP_ERR_NO_MEMORY;
    clkernel *k = build(run, "heat_step_blocked", "");
    clarg flags = CLARG_IN(packed, run->cells);
    clarg scratch = CLARG_TYPED("float", (float *)NULL,
                                ring ? items * ring : 1, CLARG_NO_COPY);
    clarg cur = CLARG_INOUT(world->state, run->cells);
    clarg next = CLARG_INOUT(world->state, run->cells);
    rc = k ? clkernel_global(k, items) : CLFRAME_ERR_BUILD;
    if (rc == 0)
        rc = clkernel_local(k, 1);
    if (rc == 0)
        rc = clarg_keep_on_device(&flags, run->ctx, 1);
    if (rc == 0)
        rc = clarg_persist(&scratch, run->ctx);
    if (rc == 0)
        rc = clarg_keep_on_device(&cur, run->ctx, 1);
    if (rc == 0)
        rc = clarg_keep_on_device(&next, run->ctx, 0);
    for (unsigned done = 0; done < steps && rc == 0;) {
        cl_uint now = steps - done < halo ? steps - done : halo;
        rc = clkernel_enqueue(k, CLARG(run->inner), CLARG(run->outer),
                              CLARG(world->w), CLARG(world->h), flags, cur,
                              next, scratch, CLARG(rows), CLARG(cols),
                              CLARG(halo), CLARG(now));
        if (rc == 0)
            rc = clarg_swap(&cur, &next);
        done += now;
    }
    if (rc == 0)
        rc = clarg_read(&cur);
    clarg_release(&cur);
    clarg_release(&next);
    clarg_release(&scratch);
    clarg_release(&flags);
    free_kernel(run, k);
    free(packed);
    return rc;
}

/* v6: the whole world as one stencil. */
static int step_tiled(heat_run *run, float dt, unsigned steps)
{
    app_stencil *s;
    int rc = heat_v6_open(&s, run->world, dt, run->ctx, run->timing);
    if (rc == 0)
        rc = app_stencil_run(s, steps);
    if (rc == 0)
        rc = clarg_read(&s->cur);
    heat_v6_close(s);
    return rc;
}

int heat_step_opencl(heat_world *world, float dt, unsigned steps,
                     heat_version v, clctx *ctx, app_timing *timing)
{
    app_timing ignored = {0};
    heat_run run = {
        .ctx = ctx ? ctx : clctx_default(),
        .world = world,
        .cells = (size_t)world->w * world->h,
        .timing = timing ? timing : &ignored,
    };
    if (!run.ctx)
        return CLFRAME_ERR_NO_DEVICE;   /* clframe said why */
    heat_coefficients(world->alpha, dt, &run.inner, &run.outer);
    switch (v) {
    case HEAT_V3_NAIVE:
        return step_naive(&run, steps);
    case HEAT_V4_DOUBLE_BUFFERED:
    case HEAT_V5_PACKED:
        return step_persistent(&run, steps, v);
    case HEAT_V6_TILED:
        return step_tiled(&run, dt, steps);
    case HEAT_V7_BLOCKED:
        return step_blocked(&run, steps);
    default:
        return app_fail(APP_ERR_USAGE, "heat_step_opencl: version "
                        "%d is not an OpenCL version", (int)v);
    }
}
