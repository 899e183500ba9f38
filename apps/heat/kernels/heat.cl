/*
 * heat.cl: the heat world's step kernels, one per OpenCL version of the
 * seed's tutorial (apps/heat/heat_cl.c runs them):
 *
 *   heat_step_naive   v3 and v4: properties of the cell and of its four
 *                     neighbours read from global memory;
 *   heat_step_packed  v5: one read of a flags word that carries the
 *                     neighbours' insulator bits (packed on the host);
 *   heat_step_tiled   v6: a tile with a halo in local memory, stepped up to
 *                     HEAT_HALO times per launch (temporal blocking);
 *   heat_step_blocked v7: temporal blocking for CPU devices, a work-item
 *                     stepping a block and its halo alone, no barriers.
 *
 * Every kernel evaluates a cell with exactly the reference's operations in
 * its order (above, below, left, right). FP contraction is off so that no
 * a*b+c becomes an FMA, and the host builds with correctly rounded division
 * where the device offers it: the outputs are then equal bit for bit.
 */
#pragma OPENCL FP_CONTRACT OFF

#define HEAT_FIXED     0x1u
#define HEAT_INSULATOR 0x2u

/* Neighbours that conduct: bit 0 above, 1 below, 2 left, 3 right. In a
 * packed flags word (v5, v6) bits 2-5 say which neighbours insulate. */
#define HEAT_CONDUCTS_FROM_PACKED(f) ((~(uint)(f) >> 2) & 0xfu)

/* The new temperature of a normal cell, as the reference computes it. */
static inline float heat_update(float inner, float outer, float self,
                                float above, float below, float left,
                                float right, uint conducts)
{
    float contrib = inner;
    float acc = inner * self;
    if (conducts & 1u) {
        contrib += outer;
        acc += outer * above;
    }
    if (conducts & 2u) {
        contrib += outer;
        acc += outer * below;
    }
    if (conducts & 4u) {
        contrib += outer;
        acc += outer * left;
    }
    if (conducts & 8u) {
        contrib += outer;
        acc += outer * right;
    }
    float res = acc / contrib;
    /* The reference's clamp, not clamp(): the same answer for a NaN. */
    return res < 0.0f ? 0.0f : (res > 1.0f ? 1.0f : res);
}

/* ---- division without dividing (v6) -------------------------------------
 *
 * A cell's divisor, contrib, is inner plus outer once per conducting
 * neighbour: one of five values, c[k] for k neighbours, the same for every
 * cell. So v6 multiplies by their reciprocals in double precision instead:
 * (float)((double)acc * (1.0 / c[k])) is the correctly rounded acc / c[k].
 * Why: the double product is within 2^-52 (relative) of the true quotient,
 * while a quotient of two 24-bit floats is never exactly halfway between
 * two floats and never nearer than 2^-49 to such a midpoint (the midpoint
 * times c[k] would need more bits than acc has), so rounding the product to
 * float lands where rounding the true quotient does. Single-precision
 * division is a long instruction sequence on GPUs; a double multiply and
 * two conversions are not. The tests compare v6 with the reference bit for
 * bit on every input they use. Devices without doubles divide.
 */
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double heat_divisor;                /* held as its reciprocal */
#define HEAT_DIVISOR(c) (1.0 / (double)(c))
#define HEAT_DIVIDE(acc, q) ((float)((double)(acc) * (q)))
#else
typedef float heat_divisor;                 /* held as it is */
#define HEAT_DIVISOR(c) (c)
#define HEAT_DIVIDE(acc, q) ((acc) / (q))
#endif

/* The five divisors, each summed as the reference sums it. */
typedef struct heat_divisors {
    heat_divisor q[5];
} heat_divisors;

static inline heat_divisors heat_make_divisors(float inner, float outer)
{
    heat_divisors d;
    float c = inner;
    for (int k = 0; k < 5; k++, c += outer)
        d.q[k] = HEAT_DIVISOR(c);
    return d;
}

/* heat_update_divisors for a plain cell: normal, with all four neighbours
 * conducting (the packed flags are 0). Most cells of a world are plain, so
 * v6 takes this path, with no selects and a fixed divisor, for them and
 * the general one only for cells next to an insulator; the sums are the
 * general path's with every term added, so the result is the same. */
static inline float heat_update_plain(const heat_divisors *d, float inner,
                                      float outer, float self, float above,
                                      float below, float left, float right)
{
    float acc = inner * self;
    acc = acc + outer * above;
    acc = acc + outer * below;
    acc = acc + outer * left;
    acc = acc + outer * right;
    float res = HEAT_DIVIDE(acc, d->q[4]);
    return res < 0.0f ? 0.0f : (res > 1.0f ? 1.0f : res);
}

/* heat_update with the division replaced as above, and selects instead of
 * branches (the same sums: a term is added or not, never added as 0, which
 * would turn a -0 into +0). */
static inline float heat_update_divisors(const heat_divisors *d, float inner,
                                         float outer, float self, float above,
                                         float below, float left, float right,
                                         uint conducts)
{
    float acc = inner * self;
    acc = conducts & 1u ? acc + outer * above : acc;
    acc = conducts & 2u ? acc + outer * below : acc;
    acc = conducts & 4u ? acc + outer * left : acc;
    acc = conducts & 8u ? acc + outer * right : acc;
    uint k = popcount(conducts);
    /* A chain of selects, not d->q[k]: a private array indexed at run time
     * would live in slow memory. */
    heat_divisor q = k == 0 ? d->q[0] : k == 1 ? d->q[1] : k == 2 ? d->q[2]
                   : k == 3 ? d->q[3] : d->q[4];
    float res = HEAT_DIVIDE(acc, q);
    return res < 0.0f ? 0.0f : (res > 1.0f ? 1.0f : res);
}

__kernel void heat_step_naive(float inner, float outer, uint w, uint h,
                              __global const uint *properties,
                              __global const float *in,
                              __global float *out)
{
    uint x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    uint i = y * w + x;
    if (properties[i] & (HEAT_FIXED | HEAT_INSULATOR)) {
        out[i] = in[i];
        return;
    }
    /* A normal cell is never on the border: its neighbours exist. */
    uint conducts = (properties[i - w] & HEAT_INSULATOR ? 0u : 1u)
                  | (properties[i + w] & HEAT_INSULATOR ? 0u : 2u)
                  | (properties[i - 1] & HEAT_INSULATOR ? 0u : 4u)
                  | (properties[i + 1] & HEAT_INSULATOR ? 0u : 8u);
    out[i] = heat_update(inner, outer, in[i], in[i - w], in[i + w],
                         in[i - 1], in[i + 1], conducts);
}

__kernel void heat_step_packed(float inner, float outer, uint w, uint h,
                               __global const uint *packed,
                               __global const float *in,
                               __global float *out)
{
    uint x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    uint i = y * w + x;
    uint flags = packed[i];
    if (flags & (HEAT_FIXED | HEAT_INSULATOR)) {
        out[i] = in[i];
        return;
    }
    out[i] = heat_update(inner, outer, in[i], in[i - w], in[i + w],
                         in[i - 1], in[i + 1],
                         HEAT_CONDUCTS_FROM_PACKED(flags));
}

/* ---- v6: temporal blocking in local memory ------------------------------
 *
 * A work-group of HEAT_GROUP_W x HEAT_GROUP_H work-items loads a tile of
 * HEAT_TILE_W x HEAT_TILE_H cells: its output block plus a halo of
 * HEAT_HALO cells on each side. It steps the whole tile `steps` times
 * (steps <= HEAT_HALO). The tile's edge cells have no neighbours in the
 * tile: they take their own value (indices clamped to the tile) for the
 * missing ones, and the error that causes creeps inwards one cell per
 * step, so after `steps` steps the output block is still exact. Cells
 * outside the world act as insulators.
 *
 * Each work-item owns HEAT_PER_X columns (HEAT_GROUP_W apart, so a warp
 * reads a row without bank conflicts) of HEAT_PER_Y consecutive rows, and
 * keeps its cells' temperatures in registers: the neighbours above and
 * below come from registers, except at the ends of its column strips; only
 * left, right and those ends go through local memory, which holds two
 * copies of the tile (read one, write the other, one barrier). The flags
 * stay in local memory too: in registers beside the temperatures they
 * pushed the arrays into slow per-thread memory on the H200 (bench/RESULTS.md,
 * Heat world). A bit per cell in `plain` says which are plain, nearly all
 * of a world: a column strip of plain cells only (the usual case, tile
 * edges included now that they are not held fixed) is stepped by
 * heat_update_plain alone, with no branch and no read of the flags.
 */
#ifndef HEAT_GROUP_W
#define HEAT_GROUP_W 32
#endif
#ifndef HEAT_GROUP_H
#define HEAT_GROUP_H 8
#endif
#ifndef HEAT_TILE_W
#define HEAT_TILE_W 64
#endif
#ifndef HEAT_TILE_H
#define HEAT_TILE_H 64
#endif
#ifndef HEAT_HALO
#define HEAT_HALO 4
#endif
#define HEAT_PER_X (HEAT_TILE_W / HEAT_GROUP_W)
#define HEAT_PER_Y (HEAT_TILE_H / HEAT_GROUP_H)
#define HEAT_OUT_W (HEAT_TILE_W - 2 * HEAT_HALO)
#define HEAT_OUT_H (HEAT_TILE_H - 2 * HEAT_HALO)

#if HEAT_TILE_W % HEAT_GROUP_W || HEAT_TILE_H % HEAT_GROUP_H
#error "a tile must be a whole number of work-groups wide and high"
#endif
#if HEAT_OUT_W < 1 || HEAT_OUT_H < 1
#error "the halo leaves no output block in the tile"
#endif
#if HEAT_PER_X * HEAT_PER_Y > 64
#error "a work-item steps at most 64 cells"
#endif
#define HEAT_COLUMN_PLAIN ((ulong)-1 >> (64 - HEAT_PER_Y))

__kernel __attribute__((reqd_work_group_size(HEAT_GROUP_W, HEAT_GROUP_H, 1)))
void heat_step_tiled(float inner, float outer, uint w, uint h,
                     __global const uchar *packed,
                     __global const float *in,
                     __global float *out, uint steps)
{
    __local float tile[2][HEAT_TILE_H][HEAT_TILE_W];
    __local uchar flags[HEAT_TILE_H][HEAT_TILE_W];
    heat_divisors divisors = heat_make_divisors(inner, outer);
    float v[HEAT_PER_X][HEAT_PER_Y];
    ulong plain = 0;        /* bit i * HEAT_PER_Y + j: cell (i, j) is plain */
    int lx = get_local_id(0), ty0 = get_local_id(1) * HEAT_PER_Y;
    /* Unsigned: the halo left of or above the world wraps to far past it
     * (a side is at most 2^31 cells), so gx < w alone says inside, and a
     * 2^31-cell row's last tile overflows no int. */
    uint x0 = (uint)get_group_id(0) * HEAT_OUT_W - HEAT_HALO;
    /* From the global id, so that a launch with a global offset steps
     * only some rows of tiles (a world stepped in parts, apps/mpi). */
    uint y0 = (uint)(get_global_id(1) / HEAT_GROUP_H) * HEAT_OUT_H - HEAT_HALO;

    for (int i = 0; i < HEAT_PER_X; i++) {
        int tx = lx + i * HEAT_GROUP_W;
        uint gx = x0 + tx;
        for (int j = 0; j < HEAT_PER_Y; j++) {
            int ty = ty0 + j;
            uint gy = y0 + ty;
            int inside = gx < w && gy < h;
            uint g = gy * w + gx;
            uchar f = inside ? packed[g] : (uchar)HEAT_INSULATOR;
            flags[ty][tx] = f;
            plain |= (ulong)(f == 0) << (i * HEAT_PER_Y + j);
            v[i][j] = inside ? in[g] : 0.0f;
            tile[0][ty][tx] = v[i][j];
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint s = 0; s < steps; s++) {
        __local float (*cur)[HEAT_TILE_W] = tile[s & 1];
        __local float (*next)[HEAT_TILE_W] = tile[(s & 1) ^ 1];
        for (int i = 0; i < HEAT_PER_X; i++) {
            int tx = lx + i * HEAT_GROUP_W;
            /* Clamping keeps the edge cells' reads inside the tile. */
            int left = max(tx - 1, 0), right = min(tx + 1, HEAT_TILE_W - 1);
            ulong mine = plain >> (i * HEAT_PER_Y);
            float above = cur[max(ty0 - 1, 0)][tx];
            float below = cur[min(ty0 + HEAT_PER_Y, HEAT_TILE_H - 1)][tx];
            float old[HEAT_PER_Y];
            for (int j = 0; j < HEAT_PER_Y; j++)
                old[j] = v[i][j];
            if ((mine & HEAT_COLUMN_PLAIN) == HEAT_COLUMN_PLAIN) {
                for (int j = 0; j < HEAT_PER_Y; j++) {
                    int ty = ty0 + j;
                    v[i][j] = heat_update_plain(
                        &divisors, inner, outer, old[j],
                        j > 0 ? old[j - 1] : above,
                        j < HEAT_PER_Y - 1 ? old[j + 1] : below,
                        cur[ty][left], cur[ty][right]);
                    next[ty][tx] = v[i][j];
                }
            } else {
                for (int j = 0; j < HEAT_PER_Y; j++) {
                    int ty = ty0 + j;
                    float up = j > 0 ? old[j - 1] : above;
                    float down = j < HEAT_PER_Y - 1 ? old[j + 1] : below;
                    uchar f = flags[ty][tx];
                    if ((mine >> j) & 1)
                        v[i][j] = heat_update_plain(&divisors, inner, outer,
                                                    old[j], up, down,
                                                    cur[ty][left],
                                                    cur[ty][right]);
                    else if (!(f & (HEAT_FIXED | HEAT_INSULATOR)))
                        v[i][j] = heat_update_divisors(
                            &divisors, inner, outer, old[j], up, down,
                            cur[ty][left], cur[ty][right],
                            HEAT_CONDUCTS_FROM_PACKED(f));
                    next[ty][tx] = v[i][j];
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    for (int i = 0; i < HEAT_PER_X; i++) {
        int tx = lx + i * HEAT_GROUP_W;
        uint gx = x0 + tx;
        for (int j = 0; j < HEAT_PER_Y; j++) {
            int ty = ty0 + j;
            uint gy = y0 + ty;
            if (tx >= HEAT_HALO && tx < HEAT_TILE_W - HEAT_HALO &&
                ty >= HEAT_HALO && ty < HEAT_TILE_H - HEAT_HALO &&
                gx < w && gy < h)
                out[gy * w + gx] = v[i][j];
        }
    }
}

/* ---- v7: temporal blocking for CPU devices -------------------------------
 *
 * v6's tiles suit a GPU: a work-group steps a tile in local memory with a
 * barrier between steps, which a CPU device runs as a loop over the
 * group's work-items at every barrier. Here a work-item is a whole worker
 * and meets no barrier: it takes the world's blocks of `rows` x `cols`
 * cells in turn (the global size apart) and steps each block `steps` times
 * alone (steps <= halo), computing again the halo of `steps` cells around
 * the block that the neighbouring blocks compute too: level s (the block
 * after s steps) is computed on the block grown by steps - s cells each
 * side, so that the last level is the block.
 *
 * The levels go down the rows as a wavefront: at front f the work-item
 * computes level 1's row f, level 2's row f - 1, ..., each from three rows
 * of the level before (the row and its neighbours). So a level needs only
 * its three latest rows: levels 1 to steps - 1 keep theirs in a ring in the
 * work-item's part of scratch, halo - 1 levels of three rows of cols + 2 *
 * halo floats, which stays in the core's cache; level 0 is read from `in`
 * and the last level written to `out`.
 *
 * A row's cells other than the world's left and right columns are one
 * loop over heat_update, whose branches the compiler turns into selects to
 * vectorize it (PoCL does), so the result is the reference's bit for bit.
 * Nothing outside the world is touched: rows and columns are cut to it,
 * and its border cells (fixed or insulators, which the host checks) are
 * copied.
 */

/* n cells of a row, none in the world's left or right column, so that
 * self[-1] and self[n] exist: `self` is the row at the level before,
 * `above` and `below` its neighbours there, `next` where the new cells go
 * (no other row: `restrict` lets the loop be vectorized without checks). */
static inline void heat_blocked_row(float inner, float outer,
                                    __global const uchar *restrict flags,
                                    __global const float *restrict above,
                                    __global const float *restrict self,
                                    __global const float *restrict below,
                                    __global float *restrict next, long n)
{
    for (long i = 0; i < n; i++) {
        uint f = flags[i];
        float v = heat_update(inner, outer, self[i], above[i],
                              below[i], self[i - 1], self[i + 1],
                              HEAT_CONDUCTS_FROM_PACKED(f));
        next[i] = f & (HEAT_FIXED | HEAT_INSULATOR) ? self[i] : v;
    }
}

/* A work-item's ring: levels 1 to halo - 1, three rows each, of ring_w
 * floats whose first is the world's column x_ring; where row `row` of
 * level `level` has column x. */
typedef struct heat_ring {
    __global float *base;
    long ring_w, x_ring;
} heat_ring;

static inline __global float *heat_ring_at(const heat_ring *ring, uint level,
                                           long row, long x)
{
    return ring->base + ((level - 1) * 3 + row % 3) * ring->ring_w
           + (x - ring->x_ring);
}

/* Row `row` of level `level` (0 to steps - 1) from column x: level 0 is
 * `in`, the others are in the ring. */
static inline __global const float *heat_blocked_source(
           __global const float *in, const heat_ring *ring, long w, uint level,
           long row, long x)
{
    return level == 0 ? in + row * w + x : heat_ring_at(ring, level, row, x);
}

__kernel void heat_step_blocked(float inner, float outer, uint w, uint h,
                                __global const uchar *packed,
                                __global const float *in,
                                __global float *out,
                                __global float *scratch, uint rows,
                                uint cols, uint halo, uint steps)
{
    /* long: a 2^31-cell world's last block and its halo pass INT_MAX. */
    long wl = w, hl = h, reach = steps;
    long strips = (wl + cols - 1) / cols;
    long blocks = strips * ((hl + rows - 1) / rows);
    heat_ring ring = {.ring_w = cols + 2 * (long)halo};
    ring.base = scratch + (long)get_global_id(0) * (halo - 1) * 3 *
                ring.ring_w;

    for (long b = get_global_id(0); b < blocks; b += get_global_size(0)) {
        long x0 = b % strips * cols, y0 = b / strips * rows;
        long x1 = min(x0 + cols, wl), y1 = min(y0 + rows, hl);
        ring.x_ring = x0 - halo;
        for (long f = y0 - reach + 1; f < y1 + reach - 1; f++) {
            for (uint s = 1; s <= steps; s++) {
                long r = f - s + 1;         /* level s's row at this front */
                if (r < max(y0 - reach + s, 0L) ||
                    r >= min(y1 + reach - s, hl))
                    continue;
                long xa = max(x0 - reach + s, 0L);
                long xb = min(x1 + reach - s, wl);
                __global const float *self =
                    heat_blocked_source(in, &ring, wl, s - 1, r, xa);
                __global float *next = s == steps ? out + r * wl + xa
                                     : heat_ring_at(&ring, s, r, xa);
                if (r == 0 || r == hl - 1) {    /* the world's border */
                    for (long i = 0; i < xb - xa; i++)
                        next[i] = self[i];
                    continue;
                }
                /* The world's left and right columns, where in range, are
                 * border cells; the loop takes the cells between. */
                long ia = max(xa, 1L), ib = min(xb, wl - 1);
                if (xa == 0)
                    next[0] = self[0];
                if (xb == wl)
                    next[wl - 1 - xa] = self[wl - 1 - xa];
                if (ib > ia)
                    heat_blocked_row(
                        inner, outer, packed + r * wl + ia,
                        heat_blocked_source(in, &ring, wl, s - 1, r - 1, ia),
                        self + (ia - xa),
                        heat_blocked_source(in, &ring, wl, s - 1, r + 1, ia),
                        next + (ia - xa), ib - ia);
            }
        }
    }
}
