/*
 * blur.cl: passes of the four-neighbour image blur (apps/blur runs them).
 * R, G and B of a pixel become the rounded average of the neighbours it
 * has among left, right, up and down, (sum + count / 2) / count in
 * integers; a pixel without neighbours (1 x 1) keeps its value; alpha is
 * copied. The same integer arithmetic as the C reference, so the same
 * bytes:
 *
 *   blur_seed, blur_seed_copy   the seed's two kernels per pass on three
 *                               int arrays (R, G, B): blur into new
 *                               arrays with an if-statement per edge, then
 *                               copy them back over the old;
 *   blur_double                 packed RGBA8 (uchar4), one kernel per pass
 *                               between two buffers the host swaps;
 *   blur_tiled                  several passes per launch in a local-memory
 *                               tile with a halo (temporal blocking).
 */

/* (sum + count / 2) / count for count 1 to 4 (count 4, every pixel inside
 * the image, is a shift). */
inline uint blur_round(uint sum, uint count)
{
    return count == 4 ? (sum + 2) >> 2 : (sum + count / 2) / count;
}

inline uint4 blur_round4(uint4 sum, uint count)
{
    return count == 4 ? (sum + 2) >> 2 : (sum + count / 2) / count;
}

/* ---- the seed's port ----------------------------------------------------- */

/* One channel's new value at (x, y) of a w x h array. */
inline int blur_seed_channel(__global const int *c, uint x, uint y, uint w,
                             uint h)
{
    uint i = y * w + x, sum = 0, count = 0;
    if (x > 0) {
        sum += c[i - 1];
        count++;
    }
    if (x + 1 < w) {
        sum += c[i + 1];
        count++;
    }
    if (y > 0) {
        sum += c[i - w];
        count++;
    }
    if (y + 1 < h) {
        sum += c[i + w];
        count++;
    }
    return count ? (int)blur_round(sum, count) : c[i];
}

__kernel void blur_seed(__global const int *r, __global const int *g,
                        __global const int *b, __global int *new_r,
                        __global int *new_g, __global int *new_b, uint w,
                        uint h)
{
    uint x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    uint i = y * w + x;
    new_r[i] = blur_seed_channel(r, x, y, w, h);
    new_g[i] = blur_seed_channel(g, x, y, w, h);
    new_b[i] = blur_seed_channel(b, x, y, w, h);
}

__kernel void blur_seed_copy(__global int *r, __global int *g,
                             __global int *b, __global const int *new_r,
                             __global const int *new_g,
                             __global const int *new_b, uint w, uint h)
{
    uint x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    uint i = y * w + x;
    r[i] = new_r[i];
    g[i] = new_g[i];
    b[i] = new_b[i];
}

/* ---- double buffering ---------------------------------------------------- */

/* One pass from in to out: 4 bytes read and 4 written per pixel (the
 * neighbours come from caches). */
__kernel void blur_double(__global const uchar4 *in, __global uchar4 *out,
                          uint w, uint h)
{
    uint x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    uint i = y * w + x, count = 0;
    uint4 sum = 0;
    if (x > 0) {
        sum += convert_uint4(in[i - 1]);
        count++;
    }
    if (x + 1 < w) {
        sum += convert_uint4(in[i + 1]);
        count++;
    }
    if (y > 0) {
        sum += convert_uint4(in[i - w]);
        count++;
    }
    if (y + 1 < h) {
        sum += convert_uint4(in[i + w]);
        count++;
    }
    uchar4 centre = in[i];
    uint4 v = count ? blur_round4(sum, count) : convert_uint4(centre);
    out[i] = (uchar4)((uchar)v.x, (uchar)v.y, (uchar)v.z, centre.w);
}

/* ---- several passes per launch --------------------------------------------
 *
 * A work-group of BLUR_GROUP_W x BLUR_GROUP_H work-items loads a
 * BLUR_TILE_W x BLUR_TILE_H tile: its output block plus a halo of
 * BLUR_HALO pixels on each side, and blurs the whole tile `passes` times
 * (at most BLUR_HALO) in local memory, which holds two copies of it (read
 * one, write the other, one barrier per pass). Whether a pixel has a
 * neighbour is decided by image coordinates, so the image's edges follow
 * the rule wherever they fall in a tile. A pixel on the tile's edge lacks
 * the neighbour outside the tile and comes out wrong; the error creeps in
 * one pixel per pass, so after at most BLUR_HALO passes the output block
 * is still exact, and only it is written.
 */
#ifndef BLUR_GROUP_W
#define BLUR_GROUP_W 32
#endif
#ifndef BLUR_GROUP_H
#define BLUR_GROUP_H 8
#endif
#ifndef BLUR_TILE_W
#define BLUR_TILE_W 64
#endif
#ifndef BLUR_TILE_H
#define BLUR_TILE_H 64
#endif
#ifndef BLUR_HALO
#define BLUR_HALO 4
#endif
#define BLUR_OUT_W (BLUR_TILE_W - 2 * BLUR_HALO)
#define BLUR_OUT_H (BLUR_TILE_H - 2 * BLUR_HALO)

#if BLUR_TILE_W % BLUR_GROUP_W || BLUR_TILE_H % BLUR_GROUP_H
#error "a tile must be a whole number of work-groups wide and high"
#endif
#if BLUR_OUT_W < 1 || BLUR_OUT_H < 1
#error "the halo leaves no output block in the tile"
#endif

__kernel __attribute__((reqd_work_group_size(BLUR_GROUP_W, BLUR_GROUP_H, 1)))
void blur_tiled(__global const uchar4 *in, __global uchar4 *out, uint w,
                uint h, uint passes)
{
    __local uchar4 tile[2][BLUR_TILE_H][BLUR_TILE_W];
    int lx = get_local_id(0), ly = get_local_id(1);
    int x0 = (int)get_group_id(0) * BLUR_OUT_W - BLUR_HALO;
    int y0 = (int)get_group_id(1) * BLUR_OUT_H - BLUR_HALO;
    int iw = (int)w, ih = (int)h;

    /* Pixels outside the image are zeros that no pixel inside counts. */
    for (int ty = ly; ty < BLUR_TILE_H; ty += BLUR_GROUP_H)
        for (int tx = lx; tx < BLUR_TILE_W; tx += BLUR_GROUP_W) {
            int gx = x0 + tx, gy = y0 + ty;
            int inside = gx >= 0 && gx < iw && gy >= 0 && gy < ih;
            tile[0][ty][tx] = inside ? in[gy * iw + gx] : (uchar4)0;
        }
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint s = 0; s < passes; s++) {
        __local uchar4 (*cur)[BLUR_TILE_W] = tile[s & 1];
        __local uchar4 (*next)[BLUR_TILE_W] = tile[(s & 1) ^ 1];
        for (int ty = ly; ty < BLUR_TILE_H; ty += BLUR_GROUP_H)
            for (int tx = lx; tx < BLUR_TILE_W; tx += BLUR_GROUP_W) {
                int gx = x0 + tx, gy = y0 + ty;
                uchar4 centre = cur[ty][tx];
                uint4 sum = 0;
                uint count = 0;
                /* A neighbour counts where the image has it; one outside
                 * the tile is missed, which only the halo feels. */
                if (gx > 0 && tx > 0) {
                    sum += convert_uint4(cur[ty][tx - 1]);
                    count++;
                }
                if (gx + 1 < iw && tx + 1 < BLUR_TILE_W) {
                    sum += convert_uint4(cur[ty][tx + 1]);
                    count++;
                }
                if (gy > 0 && ty > 0) {
                    sum += convert_uint4(cur[ty - 1][tx]);
                    count++;
                }
                if (gy + 1 < ih && ty + 1 < BLUR_TILE_H) {
                    sum += convert_uint4(cur[ty + 1][tx]);
                    count++;
                }
                uint4 v = count ? blur_round4(sum, count)
                                : convert_uint4(centre);
                next[ty][tx] = (uchar4)((uchar)v.x, (uchar)v.y, (uchar)v.z,
                                        centre.w);
            }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    __local uchar4 (*result)[BLUR_TILE_W] = tile[passes & 1];
    for (int ty = ly; ty < BLUR_TILE_H; ty += BLUR_GROUP_H)
        for (int tx = lx; tx < BLUR_TILE_W; tx += BLUR_GROUP_W) {
            int gx = x0 + tx, gy = y0 + ty;
            if (tx >= BLUR_HALO && tx < BLUR_TILE_W - BLUR_HALO &&
                ty >= BLUR_HALO && ty < BLUR_TILE_H - BLUR_HALO && gx < iw &&
                gy < ih)
                out[gy * iw + gx] = result[ty][tx];
        }
}
