/*
 * heat.cl: the heat world's step kernels, one per OpenCL version of the
 * seed's tutorial (apps/heat/heat_cl.c runs them):
 *
 *   heat_step_naive   v3 and v4: properties of the cell and of its four
 *                     neighbours read from global memory;
 *   heat_step_packed  v5: one read of a flags word that carries the
 *                     neighbours' insulator bits (packed on the host);
 *   heat_step_tiled   v6: a tile with a halo in local memory, stepped up to
 *                     HEAT_HALO times per launch (temporal blocking).
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
inline float heat_update(float inner, float outer, float self, float above,
                         float below, float left, float right, uint conducts)
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
 * (steps <= HEAT_HALO), ping-ponging between two local copies; the tile's
 * edge cells have no neighbours in the tile and are held fixed, and the
 * error that causes creeps inwards one cell per step, so after `steps`
 * steps the output block is still exact. Cells outside the world act as
 * insulators. Each work-item owns the same cells every step, so its flags
 * live in private memory and only temperatures go through local memory.
 */
#ifndef HEAT_GROUP_W
#define HEAT_GROUP_W 32
#endif
#ifndef HEAT_GROUP_H
#define HEAT_GROUP_H 8
#endif
#ifndef HEAT_TILE_W
#define HEAT_TILE_W 128
#endif
#ifndef HEAT_TILE_H
#define HEAT_TILE_H 48
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

__kernel __attribute__((reqd_work_group_size(HEAT_GROUP_W, HEAT_GROUP_H, 1)))
void heat_step_tiled(float inner, float outer, uint w, uint h, uint steps,
                     __global const uchar *packed,
                     __global const float *in,
                     __global float *out)
{
    __local float tile[2][HEAT_TILE_H][HEAT_TILE_W];
    uchar flags[HEAT_PER_Y][HEAT_PER_X];
    int lx = get_local_id(0), ly = get_local_id(1);
    int x0 = (int)get_group_id(0) * HEAT_OUT_W - HEAT_HALO;
    int y0 = (int)get_group_id(1) * HEAT_OUT_H - HEAT_HALO;

    for (int j = 0; j < HEAT_PER_Y; j++) {
        for (int i = 0; i < HEAT_PER_X; i++) {
            int tx = lx + i * HEAT_GROUP_W, ty = ly + j * HEAT_GROUP_H;
            int gx = x0 + tx, gy = y0 + ty;
            int inside = gx >= 0 && gx < (int)w && gy >= 0 && gy < (int)h;
            uint g = (uint)gy * w + (uint)gx;
            uchar f = inside ? packed[g] : (uchar)HEAT_INSULATOR;
            if (tx == 0 || ty == 0 || tx == HEAT_TILE_W - 1 ||
                ty == HEAT_TILE_H - 1)
                f |= HEAT_FIXED;
            flags[j][i] = f;
            tile[0][ty][tx] = inside ? in[g] : 0.0f;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint s = 0; s < steps; s++) {
        __local float (*cur)[HEAT_TILE_W] = tile[s & 1];
        __local float (*next)[HEAT_TILE_W] = tile[(s & 1) ^ 1];
        for (int j = 0; j < HEAT_PER_Y; j++) {
            for (int i = 0; i < HEAT_PER_X; i++) {
                int tx = lx + i * HEAT_GROUP_W, ty = ly + j * HEAT_GROUP_H;
                uchar f = flags[j][i];
                float v = cur[ty][tx];
                if (!(f & (HEAT_FIXED | HEAT_INSULATOR)))
                    v = heat_update(inner, outer, v, cur[ty - 1][tx],
                                    cur[ty + 1][tx], cur[ty][tx - 1],
                                    cur[ty][tx + 1],
                                    HEAT_CONDUCTS_FROM_PACKED(f));
                next[ty][tx] = v;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    __local float (*result)[HEAT_TILE_W] = tile[steps & 1];
    for (int j = 0; j < HEAT_PER_Y; j++) {
        for (int i = 0; i < HEAT_PER_X; i++) {
            int tx = lx + i * HEAT_GROUP_W, ty = ly + j * HEAT_GROUP_H;
            int gx = x0 + tx, gy = y0 + ty;
            if (tx >= HEAT_HALO && tx < HEAT_TILE_W - HEAT_HALO &&
                ty >= HEAT_HALO && ty < HEAT_TILE_H - HEAT_HALO &&
                gx < (int)w && gy < (int)h)
                out[(uint)gy * w + (uint)gx] = result[ty][tx];
        }
    }
}
