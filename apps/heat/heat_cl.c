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
 *       is read and written once per launch instead of once per step.
 */
#include "heat.h"

#include <stdio.h>
#include <stdlib.h>

#define HEAT_KERNELS "kernels/heat/heat.cl"

/* v3-v5's work-group shape: a warp-wide row, a few rows deep. */
enum { ROW_GROUP_W = 32, ROW_GROUP_H = 8 };

/* v6's shape; the tile height is chosen to fit the device's local memory. */
enum { TILE_GROUP_W = 32, TILE_GROUP_H = 8, TILE_W = 128, TILE_MAX_H = 48,
       TILE_HALO = 4 };

typedef struct heat_run {
    clctx *ctx;
    heat_world *world;
    size_t cells;
    float inner, outer;
    heat_stats *stats;
} heat_run;

/* Options that make the device's arithmetic the reference's: correctly
 * rounded division where the device can do it (OpenCL's default allows
 * 2.5 ulp, and NVIDIA's driver uses that latitude). */
static void arithmetic_options(clctx *ctx, char *out, size_t size)
{
    cl_device_fp_config fp = 0;
    clGetDeviceInfo(clctx_device(ctx), CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp,
                    &fp, NULL);
    snprintf(out, size, "%s", (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT)
             ? "-cl-fp32-correctly-rounded-divide-sqrt" : "");
}

static clkernel *build(heat_run *run, const char *name, const char *defines)
{
    char options[256], arithmetic[64];
    arithmetic_options(run->ctx, arithmetic, sizeof arithmetic);
    snprintf(options, sizeof options, "%s %s", arithmetic, defines);
    clkernel *k = clkernel_file(run->ctx, HEAT_KERNELS, name, options);
    if (k && run->stats && run->stats->want_kernel_time)
        clkernel_set_timing(k, 1);
    return k;
}

/* Called after each launch: counts it and, when asked, adds its kernel
 * time (which waits for it: timing runs measure kernels, not overlap). */
static void account(heat_run *run, clkernel *k)
{
    if (!run->stats)
        return;
    run->stats->launches++;
    if (run->stats->want_kernel_time)
        run->stats->kernel_ms += clkernel_last_ms(k);
}

static size_t device_max_group(clctx *ctx)
{
    size_t max = 1;
    clGetDeviceInfo(clctx_device(ctx), CL_DEVICE_MAX_WORK_GROUP_SIZE,
                    sizeof max, &max, NULL);
    return max;
}

/* One work-item per cell in ROW_GROUP_W x ROW_GROUP_H groups (narrower on
 * devices with small groups); the kernels guard the extra work-items. */
static int size_per_cell(heat_run *run, clkernel *k)
{
    size_t gw = ROW_GROUP_W, gh = ROW_GROUP_H;
    while (gw * gh > device_max_group(run->ctx) && gh > 1)
        gh /= 2;
    int rc = clkernel_global(k, clframe_round_up(run->world->w, gw),
                             clframe_round_up(run->world->h, gh));
    return rc ? rc : clkernel_local(k, gw, gh);
}

/* Makes a a persistent argument that moves data only when asked, with
 * its host data copied to the device first if `write`. */
static int on_device(clarg *a, clctx *ctx, int write)
{
    int rc = clarg_persist(a, ctx);
    if (rc == 0 && write)
        rc = clarg_write(a);
    if (rc == 0)
        rc = clarg_set_flags(a, CLARG_NO_COPY);
    return rc;
}

/* ---- v3: the naive port -------------------------------------------------- */

static int step_naive(heat_run *run, unsigned steps)
{
    heat_world *world = run->world;
    float *buffer = malloc(run->cells * sizeof *buffer);
    if (!buffer)
        return clframe_fail(CLFRAME_ERR_NO_MEMORY, "heat v3: no memory for "
                            "a %u x %u state", world->w, world->h);
    clkernel *k = build(run, "heat_step_naive", "");
    clarg properties = CLARG_IN(world->properties, run->cells);
    int rc = k ? size_per_cell(run, k) : CLFRAME_ERR_BUILD;
    if (rc == 0)
        rc = on_device(&properties, run->ctx, 1);
    for (unsigned t = 0; t < steps && rc == 0; t++) {
        rc = clkernel_call(k, CLARG(run->inner), CLARG(run->outer),
                           CLARG(world->w), CLARG(world->h), properties,
                           CLARG_IN(world->state, run->cells),
                           CLARG_OUT(buffer, run->cells));
        if (rc == 0) {
            account(run, k);
            float *swap = world->state;
            world->state = buffer;
            buffer = swap;
        }
    }
    clarg_release(&properties);
    clkernel_free(k);
    free(buffer);
    return rc;
}

/* ---- v4, v5: double buffering -------------------------------------------- */

/* The loop v4 and v5 share: `flags` is the properties (v4) or the packed
 * flags (v5), whichever kernel k reads. */
static int step_double_buffered(heat_run *run, unsigned steps, clkernel *k,
                                clarg flags)
{
    heat_world *world = run->world;
    clarg cur = CLARG_INOUT(world->state, run->cells);
    clarg next = CLARG_INOUT(world->state, run->cells);
    int rc = size_per_cell(run, k);
    if (rc == 0)
        rc = on_device(&cur, run->ctx, 1);
    if (rc == 0)
        rc = on_device(&next, run->ctx, 0);
    for (unsigned t = 0; t < steps && rc == 0; t++) {
        rc = clkernel_enqueue(k, CLARG(run->inner), CLARG(run->outer),
                              CLARG(world->w), CLARG(world->h), flags, cur,
                              next);
        if (rc == 0) {
            account(run, k);
            rc = clarg_swap(&cur, &next);
        }
    }
    if (rc == 0)
        rc = clarg_read(&cur);
    clarg_release(&cur);
    clarg_release(&next);
    return rc;
}

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

static int step_with_flags(heat_run *run, unsigned steps, int packed)
{
    heat_world *world = run->world;
    uint32_t *flags = world->properties;
    if (packed) {
        flags = malloc(run->cells * sizeof *flags);
        if (!flags)
            return clframe_fail(CLFRAME_ERR_NO_MEMORY, "heat v5: no memory "
                                "for %u x %u flags", world->w, world->h);
        for (uint32_t y = 0; y < world->h; y++)
            for (uint32_t x = 0; x < world->w; x++)
                flags[(size_t)y * world->w + x] = heat_packed_flags(world, x, y);
    }
    clkernel *k = build(run, packed ? "heat_step_packed" : "heat_step_naive",
                        "");
    clarg flags_arg = CLARG_IN(flags, run->cells);
    int rc = k ? on_device(&flags_arg, run->ctx, 1) : CLFRAME_ERR_BUILD;
    if (rc == 0)
        rc = step_double_buffered(run, steps, k, flags_arg);
    clarg_release(&flags_arg);
    clkernel_free(k);
    if (packed)
        free(flags);
    return rc;
}

/* ---- v6: temporal blocking ------------------------------------------------ */

/* The tallest tile (a multiple of the group height, at most TILE_MAX_H)
 * whose two float copies fit the device's local memory; 0 if none does. */
static unsigned tile_height(clctx *ctx)
{
    cl_ulong local = 0;
    clGetDeviceInfo(clctx_device(ctx), CL_DEVICE_LOCAL_MEM_SIZE, sizeof local,
                    &local, NULL);
    unsigned h = TILE_MAX_H;
    while (h > 2 * TILE_HALO && (cl_ulong)2 * TILE_W * h * sizeof(float) > local)
        h -= TILE_GROUP_H;
    return h > 2 * TILE_HALO ? h : 0;
}

static int step_tiled(heat_run *run, unsigned steps)
{
    heat_world *world = run->world;
    unsigned tile_h = tile_height(run->ctx);
    if (tile_h == 0 || TILE_GROUP_W * TILE_GROUP_H > device_max_group(run->ctx))
        return clframe_fail(CLFRAME_ERR_BAD_SIZE, "heat v6: %s has too little "
                            "local memory or too small work-groups for %ux%u "
                            "tiles", clctx_device_name(run->ctx), TILE_W,
                            2 * TILE_HALO + 1);
    uint8_t *flags = malloc(run->cells);
    if (!flags)
        return clframe_fail(CLFRAME_ERR_NO_MEMORY, "heat v6: no memory for "
                            "%u x %u flags", world->w, world->h);
    for (uint32_t y = 0; y < world->h; y++)
        for (uint32_t x = 0; x < world->w; x++)
            flags[(size_t)y * world->w + x] =
                (uint8_t)heat_packed_flags(world, x, y);

    char defines[160];
    snprintf(defines, sizeof defines, "-DHEAT_GROUP_W=%d -DHEAT_GROUP_H=%d "
             "-DHEAT_TILE_W=%d -DHEAT_TILE_H=%u -DHEAT_HALO=%d", TILE_GROUP_W,
             TILE_GROUP_H, TILE_W, tile_h, TILE_HALO);
    clkernel *k = build(run, "heat_step_tiled", defines);
    size_t out_w = TILE_W - 2 * TILE_HALO, out_h = tile_h - 2 * TILE_HALO;
    size_t groups_x = (world->w + out_w - 1) / out_w;
    size_t groups_y = (world->h + out_h - 1) / out_h;
    int rc = k ? clkernel_global(k, groups_x * TILE_GROUP_W,
                                 groups_y * TILE_GROUP_H) : CLFRAME_ERR_BUILD;
    if (rc == 0)
        rc = clkernel_local(k, TILE_GROUP_W, TILE_GROUP_H);

    clarg flags_arg = CLARG_IN(flags, run->cells);
    clarg cur = CLARG_INOUT(world->state, run->cells);
    clarg next = CLARG_INOUT(world->state, run->cells);
    if (rc == 0)
        rc = on_device(&flags_arg, run->ctx, 1);
    if (rc == 0)
        rc = on_device(&cur, run->ctx, 1);
    if (rc == 0)
        rc = on_device(&next, run->ctx, 0);
    for (unsigned done = 0; done < steps && rc == 0;) {
        cl_uint now = steps - done < TILE_HALO ? steps - done : TILE_HALO;
        rc = clkernel_enqueue(k, CLARG(run->inner), CLARG(run->outer),
                              CLARG(world->w), CLARG(world->h), CLARG(now),
                              flags_arg, cur, next);
        if (rc == 0) {
            account(run, k);
            rc = clarg_swap(&cur, &next);
            done += now;
        }
    }
    if (rc == 0)
        rc = clarg_read(&cur);
    clarg_release(&cur);
    clarg_release(&next);
    clarg_release(&flags_arg);
    clkernel_free(k);
    free(flags);
    return rc;
}

int heat_step_opencl(heat_world *world, float dt, unsigned steps,
                     heat_version v, clctx *ctx, heat_stats *stats)
{
    heat_run run = {
        .ctx = ctx ? ctx : clctx_default(),
        .world = world,
        .cells = (size_t)world->w * world->h,
        .stats = stats,
    };
    if (!run.ctx)
        return CLFRAME_ERR_NO_DEVICE;   /* clframe said why */
    heat_coefficients(world->alpha, dt, &run.inner, &run.outer);
    switch (v) {
    case HEAT_V3_NAIVE:
        return step_naive(&run, steps);
    case HEAT_V4_DOUBLE_BUFFERED:
        return step_with_flags(&run, steps, 0);
    case HEAT_V5_PACKED:
        return step_with_flags(&run, steps, 1);
    case HEAT_V6_TILED:
        return step_tiled(&run, steps);
    default:
        return clframe_fail(CLFRAME_ERR_USAGE, "heat_step_opencl: version "
                            "%d is not an OpenCL version", (int)v);
    }
}
