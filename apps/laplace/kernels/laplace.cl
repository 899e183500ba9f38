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

static inline float laplace_average(float right, float left, float down,
                                    float up)
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
static inline void laplace_group_max(float d, __local float *scratch,
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
 * A work-group iterates a LAPLACE_TILE_W x LAPLACE_TILE_H tile, its output
 * block plus a halo of LAPLACE_HALO cells on each side, `iterations` times
 * (at most LAPLACE_HALO), and writes the output block. The tile's edge
 * cells have no neighbours in it: they compute from whatever is beside
 * them, and the error that makes creeps in one cell per iteration, so the
 * output block is still exact at the end. Cells outside the grid are
 * fixed at 0 (they never neighbour a free cell, since the border is
 * fixed).
 *
 * A work-item owns a block of LAPLACE_VX consecutive columns by LAPLACE_PY
 * consecutive rows, in registers: a cell's neighbours inside the block come
 * from registers, and only the block's perimeter goes through local memory.
 * Each iteration a work-item stores its block's first and last columns and
 * first and last rows; after a barrier it loads the last column of the
 * block on its left, the first column of the one on its right, the last row
 * of the one above and the first row of the one below. Per cell that is
 * 2/VX + 2/PY stores and as many loads (0.75 of each at 4 x 8).
 *
 * Layout: the work-items are numbered t = ly * GROUP_W + lx, as the device
 * numbers them into warps, and every perimeter array is indexed by t:
 * cols[c][j][t] is row j of work-item t's first (c = 0) or last column,
 * rows[r][t] its first (r = 0) or last row as one floatVX. The neighbours
 * are t - 1, t + 1, t - GROUP_W and t + GROUP_W, so a warp's 32 work-items
 * load and store 32 consecutive words (or floatVXs) at every step: no bank
 * conflicts, whatever the group's width. (The neighbour of a work-item at
 * the group's edge is clamped into the group: its cells are tile edge
 * cells, whose values do not matter.)
 *
 * With LAPLACE_TILE_COPIES 2 the perimeter has two copies (store one, load
 * the other: one barrier per iteration); with 1, half the local memory and
 * a second barrier before the copy is stored again.
 *
 * Global memory: a block's row is one floatVX load (and one ucharVX of the
 * mask) where it is inside the grid and aligned (nx and the halo multiples
 * of VX), and one store where its cells are all free and in the output
 * block; cell by cell otherwise, fixed cells never written.
 */
#ifndef LAPLACE_TILE_W
#define LAPLACE_TILE_W 64
#endif
#ifndef LAPLACE_TILE_H
#define LAPLACE_TILE_H 64
#endif
#ifndef LAPLACE_HALO
#define LAPLACE_HALO 8
#endif
#ifndef LAPLACE_VX
#define LAPLACE_VX 4
#endif
#ifndef LAPLACE_PY
#define LAPLACE_PY 4
#endif
#ifndef LAPLACE_TILE_COPIES
#define LAPLACE_TILE_COPIES 2
#endif
#define LAPLACE_TILE_GROUP_W (LAPLACE_TILE_W / LAPLACE_VX)
#define LAPLACE_TILE_GROUP_H (LAPLACE_TILE_H / LAPLACE_PY)
#define LAPLACE_TILE_ITEMS (LAPLACE_TILE_GROUP_W * LAPLACE_TILE_GROUP_H)
#define LAPLACE_OUT_W (LAPLACE_TILE_W - 2 * LAPLACE_HALO)
#define LAPLACE_OUT_H (LAPLACE_TILE_H - 2 * LAPLACE_HALO)
/* The index of a block's last column in cols, and of its last row in
 * rows: the first's where the block is one cell wide (or high). */
#define LAPLACE_LAST_COL (LAPLACE_VX > 1)
#define LAPLACE_LAST_ROW (LAPLACE_PY > 1)
/* Every cell of a block free. */
#define LAPLACE_ALL_FREE \
    ((ulong)-1 >> (64 - LAPLACE_VX * LAPLACE_PY))

#if LAPLACE_TILE_W % LAPLACE_VX || LAPLACE_TILE_H % LAPLACE_PY
#error "a tile must be a whole number of blocks wide and high"
#endif
#if LAPLACE_OUT_W < 1 || LAPLACE_OUT_H < 1
#error "the halo leaves no output block in the tile"
#endif
#if LAPLACE_VX * LAPLACE_PY > 64
#error "a block has at most 64 cells (its free cells are a ulong's bits)"
#endif

/* A row of a block as one vector, and back. */
#if LAPLACE_VX == 1
typedef float laplace_floatv;
typedef uchar laplace_ucharv;
#define LAPLACE_UNPACK(a, q) ((a)[0] = (q))
#define LAPLACE_PACK(a) ((a)[0])
#elif LAPLACE_VX == 2
typedef float2 laplace_floatv;
typedef uchar2 laplace_ucharv;
#define LAPLACE_UNPACK(a, q) ((a)[0] = (q).x, (a)[1] = (q).y)
#define LAPLACE_PACK(a) ((float2)((a)[0], (a)[1]))
#elif LAPLACE_VX == 4
typedef float4 laplace_floatv;
typedef uchar4 laplace_ucharv;
#define LAPLACE_UNPACK(a, q) \
    ((a)[0] = (q).x, (a)[1] = (q).y, (a)[2] = (q).z, (a)[3] = (q).w)
#define LAPLACE_PACK(a) ((float4)((a)[0], (a)[1], (a)[2], (a)[3]))
#else
#error "LAPLACE_VX is 1, 2 or 4"
#endif

/* One iteration of a work-item's block v from the rows above (up) and
 * below (down) and the columns on its left and right (left[j *
 * LAPLACE_TILE_ITEMS] is row j's). A cell whose bit in free_ is 0 keeps its
 * value; the kernel calls it with free_ LAPLACE_ALL_FREE where every cell
 * is free, which the compiler turns into a copy of the loop with no
 * select. The rows go downwards, each keeping the old values of the row
 * above. */
static inline void laplace_block_step(float v[LAPLACE_PY][LAPLACE_VX],
                                      const float *up, const float *down,
                                      __local const float *left,
                                      __local const float *right, ulong free_)
{
    float above[LAPLACE_VX];
#pragma unroll
    for (int i = 0; i < LAPLACE_VX; i++)
        above[i] = up[i];
#pragma unroll
    for (int j = 0; j < LAPLACE_PY; j++) {
        float old[LAPLACE_VX];
#pragma unroll
        for (int i = 0; i < LAPLACE_VX; i++)
            old[i] = v[j][i];
        float l = left[j * LAPLACE_TILE_ITEMS];
        float r = right[j * LAPLACE_TILE_ITEMS];
#pragma unroll
        for (int i = 0; i < LAPLACE_VX; i++) {
            float a = laplace_average(i < LAPLACE_VX - 1 ? old[i + 1] : r,
                                      i > 0 ? old[i - 1] : l,
                                      j < LAPLACE_PY - 1 ? v[j + 1][i]
                                                         : down[i],
                                      above[i]);
            v[j][i] = (free_ >> (j * LAPLACE_VX + i)) & 1 ? a : old[i];
        }
#pragma unroll
        for (int i = 0; i < LAPLACE_VX; i++)
            above[i] = old[i];
    }
}

__kernel __attribute__((reqd_work_group_size(LAPLACE_TILE_GROUP_W,
                                             LAPLACE_TILE_GROUP_H, 1)))
void laplace_tiled(__global const float *in, __global float *out,
                   __global const uchar *mask, uint nx, uint ny,
                   uint iterations)
{
    __local float cols[LAPLACE_TILE_COPIES][LAPLACE_LAST_COL + 1]
                      [LAPLACE_PY][LAPLACE_TILE_ITEMS];
    __local laplace_floatv rows[LAPLACE_TILE_COPIES][LAPLACE_LAST_ROW + 1]
                               [LAPLACE_TILE_ITEMS];
    float v[LAPLACE_PY][LAPLACE_VX];
    ulong free_ = 0;            /* bit j * VX + i: cell (i, j) is free */
    int lx = get_local_id(0), ly = get_local_id(1);
    int t = ly * LAPLACE_TILE_GROUP_W + lx;
    int tx0 = lx * LAPLACE_VX, ty0 = ly * LAPLACE_PY;
    /* The grid's column and row of the block's first cell. The tile row
     * comes from the global id, so that a launch with a global offset
     * iterates only some rows of tiles (a grid split over ranks,
     * apps/mpi). */
    int x0 = (int)get_group_id(0) * LAPLACE_OUT_W - LAPLACE_HALO + tx0;
    int y0 = (int)(get_global_id(1) / LAPLACE_TILE_GROUP_H) * LAPLACE_OUT_H -
             LAPLACE_HALO + ty0;
    int left = max(t - 1, 0), right = min(t + 1, LAPLACE_TILE_ITEMS - 1);
    int above = ly > 0 ? t - LAPLACE_TILE_GROUP_W : t;
    int below = ly < LAPLACE_TILE_GROUP_H - 1 ? t + LAPLACE_TILE_GROUP_W : t;
    /* Every block's row starts on a floatVX. */
    int aligned = LAPLACE_HALO % LAPLACE_VX == 0 && nx % LAPLACE_VX == 0;
    int across = x0 >= 0 && x0 + LAPLACE_VX <= (int)nx;

#pragma unroll
    for (int j = 0; j < LAPLACE_PY; j++) {
        int gy = y0 + j;
        uchar m[LAPLACE_VX];
        if (aligned && across && gy >= 0 && gy < (int)ny) {
            uint g = ((uint)gy * nx + (uint)x0) / LAPLACE_VX;
            laplace_floatv p = ((__global const laplace_floatv *)in)[g];
            laplace_ucharv q = ((__global const laplace_ucharv *)mask)[g];
            LAPLACE_UNPACK(v[j], p);
            LAPLACE_UNPACK(m, q);
        } else {
#pragma unroll
            for (int i = 0; i < LAPLACE_VX; i++) {
                int gx = x0 + i;
                int inside = gx >= 0 && gx < (int)nx && gy >= 0 &&
                             gy < (int)ny;
                uint g = (uint)gy * nx + (uint)gx;
                v[j][i] = inside ? in[g] : 0.0f;
                m[i] = inside ? mask[g] : 0;
            }
        }
#pragma unroll
        for (int i = 0; i < LAPLACE_VX; i++)
            free_ |= (ulong)(m[i] != 0) << (j * LAPLACE_VX + i);
    }

    for (uint s = 0; s < iterations; s++) {
        int c = LAPLACE_TILE_COPIES == 2 ? s & 1 : 0;
        if (LAPLACE_TILE_COPIES == 1 && s > 0)
            barrier(CLK_LOCAL_MEM_FENCE);   /* all have loaded the last */
#pragma unroll
        for (int j = 0; j < LAPLACE_PY; j++) {
            cols[c][0][j][t] = v[j][0];
            if (LAPLACE_LAST_COL)
                cols[c][LAPLACE_LAST_COL][j][t] = v[j][LAPLACE_VX - 1];
        }
        rows[c][0][t] = LAPLACE_PACK(v[0]);
        if (LAPLACE_LAST_ROW)
            rows[c][LAPLACE_LAST_ROW][t] = LAPLACE_PACK(v[LAPLACE_PY - 1]);
        barrier(CLK_LOCAL_MEM_FENCE);
        float up[LAPLACE_VX], down[LAPLACE_VX];
        LAPLACE_UNPACK(up, rows[c][LAPLACE_LAST_ROW][above]);
        LAPLACE_UNPACK(down, rows[c][0][below]);
        if (free_ == LAPLACE_ALL_FREE)
            laplace_block_step(v, up, down, &cols[c][LAPLACE_LAST_COL][0][left],
                               &cols[c][0][0][right], LAPLACE_ALL_FREE);
        else
            laplace_block_step(v, up, down, &cols[c][LAPLACE_LAST_COL][0][left],
                               &cols[c][0][0][right], free_);
    }

    int out_x = tx0 >= LAPLACE_HALO &&
                tx0 + LAPLACE_VX <= LAPLACE_TILE_W - LAPLACE_HALO;
#pragma unroll
    for (int j = 0; j < LAPLACE_PY; j++) {
        int ty = ty0 + j, gy = y0 + j;
        if (ty < LAPLACE_HALO || ty >= LAPLACE_TILE_H - LAPLACE_HALO ||
            gy >= (int)ny)
            continue;
        ulong run = (free_ >> (j * LAPLACE_VX)) &
                    (((ulong)1 << LAPLACE_VX) - 1);
        if (aligned && out_x && x0 + LAPLACE_VX <= (int)nx &&
            run == ((ulong)1 << LAPLACE_VX) - 1) {
            uint g = ((uint)gy * nx + (uint)x0) / LAPLACE_VX;
            ((__global laplace_floatv *)out)[g] = LAPLACE_PACK(v[j]);
        } else {
#pragma unroll
            for (int i = 0; i < LAPLACE_VX; i++) {
                int tx = tx0 + i, gx = x0 + i;
                if (tx >= LAPLACE_HALO && tx < LAPLACE_TILE_W - LAPLACE_HALO &&
                    gx < (int)nx && (run >> i) & 1)
                    out[(uint)gy * nx + (uint)gx] = v[j][i];
            }
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
static inline float laplace_row(__global const float *restrict up,
                                __global const float *restrict c,
                                __global const float *restrict down,
                                __global const uchar *restrict m,
                                __global float *restrict out, uint nx,
                                int measure)
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
