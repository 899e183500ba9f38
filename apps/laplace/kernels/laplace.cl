/*
 * laplace.cl: Jacobi iterations of the Laplace equation (apps/laplace runs
 * them). A free cell becomes 0.25f * (((right + left) + down) + up), a fixed
 * one (the border, a conductor) keeps its value:
 *
 *   laplace_seed_update, laplace_seed_copy   the seed's two kernels per
 *                        iteration (an int mask, update into phi, copy back
 *                        into old_phi);
 *   laplace_update       double buffering: one kernel, a byte mask, the two
 *                        buffers change roles on the host (clarg_swap);
 *                        laplace_update_column and laplace_update4 are its
 *                        GPU forms (a column of cells, a float4 of them
 *                        per work-item);
 *   laplace_*_change     the same update that also reduces the largest
 *                        |change| of its work-group into changes[group], for
 *                        the tolerance check (the host takes the max of them);
 *   laplace_tiled        several iterations per launch in a local-memory
 *                        tile with a halo (temporal blocking);
 *   laplace_row_blocks   several iterations per launch by a work-item per
 *                        block of rows, with no barrier (temporal blocking
 *                        for CPU devices).
 *
 * Every kernel adds in the reference's order and FP contraction is off, so
 * outputs equal the C reference's bit for bit (0.25f is exact: no rounding
 * of its own).
 */
#pragma OPENCL FP_CONTRACT OFF

#ifndef LAPLACE_GROUP_SIZE
#define LAPLACE_GROUP_SIZE 256          /* work-items of a change kernel */
#endif

inline float laplace_average(float right, float left, float down, float up)
{
    return 0.25f * (((right + left) + down) + up);
}

__kernel void laplace_seed_update(__global float *phi,
                                  __global const float *old_phi,
                                  __global const int *mask, uint nx, uint ny)
{
    uint x = get_global_id(0), y = get_global_id(1);
    if (x >= nx || y >= ny)
        return;
    uint i = y * nx + x;
    if (mask[i])        /* a free cell is never on the border */
        phi[i] = laplace_average(old_phi[i + 1], old_phi[i - 1],
                                 old_phi[i + nx], old_phi[i - nx]);
}

__kernel void laplace_seed_copy(__global const float *phi,
                                __global float *old_phi,
                                __global const int *mask, uint nx, uint ny)
{
    uint x = get_global_id(0), y = get_global_id(1);
    if (x >= nx || y >= ny)
        return;
    uint i = y * nx + x;
    if (mask[i])
        old_phi[i] = phi[i];
}

/* Fixed cells are not written: both buffers hold their values from the
 * start, so each iteration moves 9 bytes per cell, not 12. */
__kernel void laplace_update(__global const float *in, __global float *out,
                             __global const uchar *mask, uint nx, uint ny)
{
    uint x = get_global_id(0), y = get_global_id(1);
    if (x >= nx || y >= ny)
        return;
    uint i = y * nx + x;
    if (mask[i])
        out[i] = laplace_average(in[i + 1], in[i - 1], in[i + nx], in[i - nx]);
}

/* laplace_update for GPUs: a work-item updates LAPLACE_ROWS cells down a
 * column, carrying the rows above and below in registers, so three reads
 * per cell instead of five (the same values, added in the same order).
 * Every read is made whatever the mask says (indices clamped at the
 * border, whose cells are fixed), so that a row's reads do not wait for
 * its mask byte and the unrolled rows' reads are all in flight at once. */
__kernel void laplace_update_column(__global const float *in,
                                    __global float *out,
                                    __global const uchar *mask, uint nx,
                                    uint ny)
{
    uint x = get_global_id(0), y0 = get_global_id(1) * LAPLACE_ROWS;
    if (x >= nx || y0 >= ny)
        return;
    uint xl = x > 0 ? x - 1 : x, xr = x + 1 < nx ? x + 1 : x;
    float up = y0 > 0 ? in[(y0 - 1) * nx + x] : 0.0f;
    float centre = in[y0 * nx + x];
#pragma unroll
    for (uint r = 0; r < LAPLACE_ROWS; r++) {
        uint y = y0 + r;
        if (y >= ny)
            break;
        uint row = y * nx;
        float down = y + 1 < ny ? in[row + nx + x] : 0.0f;
        float v = laplace_average(in[row + xr], in[row + xl], down, up);
        if (mask[row + x])
            out[row + x] = v;
        up = centre;
        centre = down;
    }
}

/* laplace_update four cells wide, for GPUs and grids whose nx is a
 * multiple of 4 (so that every row starts on a float4): a work-item
 * updates a float4 with one 16-byte read for it and each of the rows above
 * and below, and reads the cells either side of it alone (a warp's row of
 * float4s is 512 contiguous bytes, a quarter of the scalar kernel's
 * instructions). Free cells get the average, fixed ones are rewritten
 * with their value (which both buffers hold), so each float4 is one
 * store. It takes the other kernels' buffers: a buffer starts aligned for
 * any type, and nx % 4 == 0 keeps every row so. */
__kernel void laplace_update4(__global const float *in, __global float *out,
                              __global const uchar *mask, uint nx, uint ny)
{
    uint nx4 = nx / 4, x4 = get_global_id(0), y = get_global_id(1);
    if (x4 >= nx4 || y >= ny)
        return;
    __global const float4 *in4 = (__global const float4 *)in;
    uint i4 = y * nx4 + x4, row = y * nx;
    /* Every read is made whatever the mask says, clamped at the border
     * (whose cells are fixed), so that none waits for the mask. */
    float4 centre = in4[i4];
    float4 up = y > 0 ? in4[i4 - nx4] : 0.0f;
    float4 down = y + 1 < ny ? in4[i4 + nx4] : 0.0f;
    float left = in[row + (x4 > 0 ? 4 * x4 - 1 : 0)];
    float right = in[row + (x4 + 1 < nx4 ? 4 * x4 + 4 : nx - 1)];
    /* Lane by lane (a GPU has no float4 arithmetic to lose, and Oclgrind
     * 21.10's uninitialized-value check crashes on the shuffles that
     * (float4)(centre.yzw, right) makes). */
    float4 v = (float4)(laplace_average(centre.y, left, down.x, up.x),
                        laplace_average(centre.z, centre.x, down.y, up.y),
                        laplace_average(centre.w, centre.y, down.z, up.z),
                        laplace_average(right, centre.z, down.w, up.w));
    int4 free_ = convert_int4(((__global const uchar4 *)mask)[i4]) != 0;
    if (any(free_))
        ((__global float4 *)out)[i4] = select(centre, v, free_);
}

/* The largest of every work-item's value d in changes[group]: a tree in
 * scratch, LAPLACE_GROUP_SIZE floats of local memory (a power of two,
 * since it halves each round; kernels cannot declare __local arrays in
 * functions they call, so the kernel passes it). The comparison is
 * written out so that the host's max of the groups' results is the same
 * operation. */
inline void laplace_group_max(float d, __local float *scratch,
                              __global float *changes)
{
    uint lid = get_local_id(1) * get_local_size(0) + get_local_id(0);
    scratch[lid] = d;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint step = LAPLACE_GROUP_SIZE / 2; step > 0; step /= 2) {
        if (lid < step) {
            float other = scratch[lid + step];
            scratch[lid] = other > scratch[lid] ? other : scratch[lid];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        changes[get_group_id(1) * get_num_groups(0) + get_group_id(0)] =
            scratch[0];
}

/* One iteration that also reports its largest change; MASK_T is int for the
 * seed's layout, uchar for the compact one. Work-items outside the grid
 * still take part in the barriers, contributing 0. */
#define LAPLACE_CHANGE_KERNEL(NAME, MASK_T)                                  \
__kernel __attribute__((reqd_work_group_size(32, LAPLACE_GROUP_SIZE / 32, 1)))\
void NAME(__global const float *in, __global float *out,                     \
          __global const MASK_T *mask, uint nx, uint ny,                     \
          __global float *changes)                                           \
{                                                                            \
    __local float scratch[LAPLACE_GROUP_SIZE];                               \
    uint x = get_global_id(0), y = get_global_id(1);                         \
    float d = 0.0f;                                                          \
    if (x < nx && y < ny) {                                                  \
        uint i = y * nx + x;                                                 \
        if (mask[i]) {                                                       \
            float v = laplace_average(in[i + 1], in[i - 1], in[i + nx],      \
                                      in[i - nx]);                           \
            d = fabs(v - in[i]);                                             \
            out[i] = v;                                                      \
        }                                                                    \
    }                                                                        \
    laplace_group_max(d, scratch, changes);                                  \
}

LAPLACE_CHANGE_KERNEL(laplace_seed_update_change, int)
LAPLACE_CHANGE_KERNEL(laplace_update_change, uchar)

/* ---- several iterations per launch --------------------------------------
 *
 * A work-group of LAPLACE_TILE_GROUP_W x LAPLACE_TILE_GROUP_H work-items
 * loads a LAPLACE_TILE_W x LAPLACE_TILE_H tile: its output block plus a
 * halo of LAPLACE_HALO cells on each side, and iterates the whole tile
 * `iterations` times (at most LAPLACE_HALO). The tile's edge cells have no
 * neighbours in it and are held fixed; the error that makes creeps in one
 * cell per iteration, so the output block is still exact at the end. Cells
 * outside the grid are fixed (they never neighbour a free cell, since the
 * border is fixed).
 *
 * Each work-item owns PER_X columns (TILE_GROUP_W apart, so a warp reads a
 * row without bank conflicts) of PER_Y consecutive rows, kept in registers:
 * up and down come from registers except at the ends of its column strips;
 * left, right and those ends go through local memory, which holds two
 * copies of the tile (read one, write the other, one barrier per
 * iteration).
 */
#ifndef LAPLACE_TILE_GROUP_W
#define LAPLACE_TILE_GROUP_W 32
#endif
#ifndef LAPLACE_TILE_GROUP_H
#define LAPLACE_TILE_GROUP_H 8
#endif
#ifndef LAPLACE_TILE_W
#define LAPLACE_TILE_W 64
#endif
#ifndef LAPLACE_TILE_H
#define LAPLACE_TILE_H 64
#endif
#ifndef LAPLACE_HALO
#define LAPLACE_HALO 4
#endif
#define LAPLACE_PER_X (LAPLACE_TILE_W / LAPLACE_TILE_GROUP_W)
#define LAPLACE_PER_Y (LAPLACE_TILE_H / LAPLACE_TILE_GROUP_H)
#define LAPLACE_OUT_W (LAPLACE_TILE_W - 2 * LAPLACE_HALO)
#define LAPLACE_OUT_H (LAPLACE_TILE_H - 2 * LAPLACE_HALO)

#if LAPLACE_TILE_W % LAPLACE_TILE_GROUP_W || LAPLACE_TILE_H % LAPLACE_TILE_GROUP_H
#error "a tile must be a whole number of work-groups wide and high"
#endif
#if LAPLACE_OUT_W < 1 || LAPLACE_OUT_H < 1
#error "the halo leaves no output block in the tile"
#endif

__kernel __attribute__((reqd_work_group_size(LAPLACE_TILE_GROUP_W,
                                             LAPLACE_TILE_GROUP_H, 1)))
void laplace_tiled(__global const float *in, __global float *out,
                   __global const uchar *mask, uint nx, uint ny,
                   uint iterations)
{
    __local float tile[2][LAPLACE_TILE_H][LAPLACE_TILE_W];
    float v[LAPLACE_PER_X][LAPLACE_PER_Y];
    uchar free_[LAPLACE_PER_X][LAPLACE_PER_Y];
    int lx = get_local_id(0), ty0 = get_local_id(1) * LAPLACE_PER_Y;
    int x0 = (int)get_group_id(0) * LAPLACE_OUT_W - LAPLACE_HALO;
    /* From the global id, so that a launch with a global offset iterates
     * only some rows of tiles (a grid split over ranks, apps/mpi). */
    int y0 = (int)(get_global_id(1) / LAPLACE_TILE_GROUP_H) * LAPLACE_OUT_H -
             LAPLACE_HALO;

    for (int i = 0; i < LAPLACE_PER_X; i++) {
        int tx = lx + i * LAPLACE_TILE_GROUP_W, gx = x0 + tx;
        for (int j = 0; j < LAPLACE_PER_Y; j++) {
            int ty = ty0 + j, gy = y0 + ty;
            int inside = gx >= 0 && gx < (int)nx && gy >= 0 && gy < (int)ny;
            uint g = (uint)gy * nx + (uint)gx;
            int edge = tx == 0 || ty == 0 || tx == LAPLACE_TILE_W - 1 ||
                       ty == LAPLACE_TILE_H - 1;
            free_[i][j] = inside && !edge && mask[g];
            v[i][j] = inside ? in[g] : 0.0f;
            tile[0][ty][tx] = v[i][j];
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint s = 0; s < iterations; s++) {
        __local float (*cur)[LAPLACE_TILE_W] = tile[s & 1];
        __local float (*next)[LAPLACE_TILE_W] = tile[(s & 1) ^ 1];
        for (int i = 0; i < LAPLACE_PER_X; i++) {
            int tx = lx + i * LAPLACE_TILE_GROUP_W;
            /* Clamped so that the edge cells' (unused) reads stay inside. */
            int left = max(tx - 1, 0), right = min(tx + 1, LAPLACE_TILE_W - 1);
            float up = cur[max(ty0 - 1, 0)][tx];
            float down = cur[min(ty0 + LAPLACE_PER_Y, LAPLACE_TILE_H - 1)][tx];
            float old[LAPLACE_PER_Y];
            for (int j = 0; j < LAPLACE_PER_Y; j++)
                old[j] = v[i][j];
            for (int j = 0; j < LAPLACE_PER_Y; j++) {
                int ty = ty0 + j;
                if (free_[i][j])
                    v[i][j] = laplace_average(
                        cur[ty][right], cur[ty][left],
                        j < LAPLACE_PER_Y - 1 ? old[j + 1] : down,
                        j > 0 ? old[j - 1] : up);
                next[ty][tx] = v[i][j];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    for (int i = 0; i < LAPLACE_PER_X; i++) {
        int tx = lx + i * LAPLACE_TILE_GROUP_W, gx = x0 + tx;
        for (int j = 0; j < LAPLACE_PER_Y; j++) {
            int ty = ty0 + j, gy = y0 + ty;
            if (tx >= LAPLACE_HALO && tx < LAPLACE_TILE_W - LAPLACE_HALO &&
                ty >= LAPLACE_HALO && ty < LAPLACE_TILE_H - LAPLACE_HALO &&
                gx < (int)nx && gy < (int)ny && free_[i][j])
                out[(uint)gy * nx + (uint)gx] = v[i][j];
        }
    }
}

/* ---- several iterations per launch, a work-item per block of rows -------
 *
 * For CPU devices, where a work-group's barriers and local memory cost
 * more than they save: a work-item makes `steps` iterations of its block of
 * output rows [a, b) alone, with no barrier, by redundant work instead of
 * synchronisation. Iteration t (level t; level 0 is `in`) must be exact on
 * the rows [a - steps + t, b + steps - t): each level needs one row more
 * on each side than the next, so level steps is exact on [a, b) and goes
 * to `out`. The levels are made as a wavefront down the block: at step s,
 * level t makes row s - t from level t - 1's rows s - t - 1 to s - t + 1,
 * of which the last was made just before at this same step. A level in
 * between therefore needs only its last three rows, in a ring in the
 * work-item's own part of `scratch` (3 * (steps - 1) rows), which stays in
 * a core's cache while the block's rows stream through once per launch.
 *
 * With `measure`, the last iteration's largest |change| over the block's
 * free cells goes to changes[work-item]; the host takes the max of them.
 */

/* One row of an iteration, from the rows up, c and down of the level
 * before: free cells get their neighbours' average, fixed ones keep c's
 * value (the row's first and last cells, on the border, included). Every
 * cell is written, so the loop has no masked stores and vectorizes. */
inline float laplace_row(__global const float *restrict up,
                         __global const float *restrict c,
                         __global const float *restrict down,
                         __global const uchar *restrict m,
                         __global float *restrict out, uint nx, int measure)
{
    float change = 0.0f;
    out[0] = c[0];
    if (measure) {
        for (uint x = 1; x < nx - 1; x++) {
            float v = laplace_average(c[x + 1], c[x - 1], down[x], up[x]);
            float d = m[x] ? fabs(v - c[x]) : 0.0f;
            change = d > change ? d : change;
            out[x] = m[x] ? v : c[x];
        }
    } else {
        for (uint x = 1; x < nx - 1; x++) {
            float v = laplace_average(c[x + 1], c[x - 1], down[x], up[x]);
            out[x] = m[x] ? v : c[x];
        }
    }
    out[nx - 1] = c[nx - 1];
    return change;
}

__kernel void laplace_row_blocks(__global const float *in,
                                 __global float *out,
                                 __global const uchar *mask,
                                 __global float *scratch, uint nx, uint ny,
                                 uint rows, uint steps, uint measure,
                                 __global float *changes)
{
    long w = get_global_id(0), a = w * rows, b = min(a + rows, (long)ny);
    long n = steps;
    if (a >= ny || n < 1)
        return;
    __global float *ring = scratch + (size_t)w * 3 * (n - 1) * nx;
    float change = 0.0f;
    for (long s = a - n + 2; s < b + n; s++) {
        for (long t = 1; t <= n; t++) {
            long r = s - t;
            if (r < max(a - n + t, 0L) || r >= min(b + n - t, (long)ny))
                continue;
            /* Level t - 1's rows r - 1, r, r + 1 (clamped at the grid's
             * first and last rows, which are fixed: their neighbours are
             * never used), and level t's row r. */
            long up = max(r - 1, 0L), down = min(r + 1, (long)ny - 1);
            __global const float *p[3];
            long rr[3] = {up, r, down};
            for (int i = 0; i < 3; i++)
                p[i] = t == 1 ? in + (size_t)rr[i] * nx
                              : ring + (size_t)(3 * (t - 2) + rr[i] % 3) * nx;
            __global float *o =
                t == n ? out + (size_t)r * nx
                       : ring + (size_t)(3 * (t - 1) + r % 3) * nx;
            float d = laplace_row(p[0], p[1], p[2], mask + (size_t)r * nx, o,
                                  nx, measure && t == n);
            change = d > change ? d : change;
        }
    }
    if (measure)
        changes[w] = change;
}
