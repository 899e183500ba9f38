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
static inline uint blur_round(uint sum, uint count)
{
    return count == 4 ? (sum + 2) >> 2 : (sum + count / 2) / count;
}

static inline uint4 blur_round4(uint4 sum, uint count)
{
    return count == 4 ? (sum + 2) >> 2 : (sum + count / 2) / count;
}

#ifndef __ENDIAN_LITTLE__
#error "the packed arithmetic takes a uchar4 as a uint, R in the low byte"
#endif

/* ---- one pixel's average, for blur_double and blur_tiled -----------------
 *
 * Pixels with four neighbours are averaged as packed words, two channels
 * at a time in 16-bit lanes: a quarter of the instructions of unpacking
 * to uint4. */

/* Bytes 0 and 2 of a word (R and B of a pixel, or G and A after >> 8),
 * each in a 16-bit lane where four of them add up without overflow. */
#define BLUR_LANES 0x00FF00FFu

/* The rounded average of four packed neighbours, with centre's alpha. */
static inline uint blur_four(uint left, uint right, uint up, uint down,
                             uint centre)
{
    uint rb = (left & BLUR_LANES) + (right & BLUR_LANES) +
              (up & BLUR_LANES) + (down & BLUR_LANES) + 0x00020002u;
    uint ga = ((left >> 8) & BLUR_LANES) + ((right >> 8) & BLUR_LANES) +
              ((up >> 8) & BLUR_LANES) + ((down >> 8) & BLUR_LANES) +
              0x00020002u;
    uint rgb = ((rb >> 2) & BLUR_LANES) | (((ga >> 2) & BLUR_LANES) << 8);
    return (rgb & 0x00FFFFFFu) | (centre & 0xFF000000u);
}

/* Any pixel: the average of the neighbours it has, counted (for the
 * image's border, where fewer than four are there). */
static inline uint blur_counted(uint left, uint right, uint up, uint down,
                               uint centre, int has_left, int has_right,
                               int has_up, int has_down)
{
    uint4 sum = 0;
    uint count = 0;
    if (has_left) {
        sum += convert_uint4(as_uchar4(left));
        count++;
    }
    if (has_right) {
        sum += convert_uint4(as_uchar4(right));
        count++;
    }
    if (has_up) {
        sum += convert_uint4(as_uchar4(up));
        count++;
    }
    if (has_down) {
        sum += convert_uint4(as_uchar4(down));
        count++;
    }
    if (count == 0)
        return centre;
    uint4 v = blur_round4(sum, count);
    return as_uint((uchar4)((uchar)v.x, (uchar)v.y, (uchar)v.z,
                            as_uchar4(centre).w));
}

/* ---- the seed's port ----------------------------------------------------- */

/* One channel's new value at (x, y) of a w x h array. */
static inline int blur_seed_channel(__global const int *c, uint x, uint y,
                                    uint w, uint h)
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
    uint i = y * w + x;
    int has_left = x > 0, has_right = x + 1 < w;
    int has_up = y > 0, has_down = y + 1 < h;
    uint left = has_left ? as_uint(in[i - 1]) : 0u;
    uint right = has_right ? as_uint(in[i + 1]) : 0u;
    uint up = has_up ? as_uint(in[i - w]) : 0u;
    uint down = has_down ? as_uint(in[i + w]) : 0u;
    uint centre = as_uint(in[i]);
    out[i] = as_uchar4(has_left && has_right && has_up && has_down
                           ? blur_four(left, right, up, down, centre)
                           : blur_counted(left, right, up, down, centre,
                                          has_left, has_right, has_up,
                                          has_down));
}

/* ---- several passes per launch --------------------------------------------
 *
 * A work-group of BLUR_GROUP_W x BLUR_GROUP_H work-items loads a
 * BLUR_TILE_W x BLUR_TILE_H tile: its output block plus a halo of
 * BLUR_HALO pixels on each side, and blurs the tile `passes` times (at
 * most BLUR_HALO) in local memory, which holds two copies of it (read
 * one, write the other, one barrier per pass). Whether a pixel has a
 * neighbour is decided by image coordinates, so the image's edges follow
 * the rule wherever they fall in a tile. The tile's outermost ring is
 * never updated (it lacks neighbours outside the tile); the error that
 * this leaves creeps in one pixel per pass, so after at most BLUR_HALO
 * passes the output block is still exact, and only it is written.
 *
 * Once several passes share one trip to global memory, a GPU runs out of
 * instructions, not bandwidth, so the passes are lean: in tiles that the
 * image's border does not cross (four neighbours everywhere) pixels are
 * averaged as packed words, two channels at a time in 16-bit lanes (a
 * quarter of the instructions of unpacking to uint4), and each work-item
 * walks down a column, reading one new row per pixel.
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
#define BLUR_ROWS (BLUR_TILE_H / BLUR_GROUP_H)

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
    __local uint tile[2][BLUR_TILE_H][BLUR_TILE_W];
    int lx = get_local_id(0), ly = get_local_id(1);
    int x0 = (int)get_group_id(0) * BLUR_OUT_W - BLUR_HALO;
    int y0 = (int)get_group_id(1) * BLUR_OUT_H - BLUR_HALO;
    int iw = (int)w, ih = (int)h;

    /* Pixels outside the image are zeros that no pixel inside counts.
     * The ring goes into both copies, as no pass writes it. */
    for (int ty = ly; ty < BLUR_TILE_H; ty += BLUR_GROUP_H)
        for (int tx = lx; tx < BLUR_TILE_W; tx += BLUR_GROUP_W) {
            int gx = x0 + tx, gy = y0 + ty;
            int inside = gx >= 0 && gx < iw && gy >= 0 && gy < ih;
            uint pixel = inside ? as_uint(in[gy * iw + gx]) : 0u;
            tile[0][ty][tx] = pixel;
            if (tx == 0 || ty == 0 || tx == BLUR_TILE_W - 1 ||
                ty == BLUR_TILE_H - 1)
                tile[1][ty][tx] = pixel;
        }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* Tiles that the image's border does not cross (most of them) take
     * the packed average for every pixel they update. */
    int interior = x0 >= 0 && x0 + BLUR_TILE_W - 1 < iw && y0 >= 0 &&
                   y0 + BLUR_TILE_H - 1 < ih;
    /* A work-item updates BLUR_ROWS rows of its columns, going down, so
     * that each step reads one new row and keeps the two above in
     * registers; the tile's first and last rows are the ring. */
    int first = ly * BLUR_ROWS, last = first + BLUR_ROWS;
    first = first == 0 ? 1 : first;
    last = last == BLUR_TILE_H ? BLUR_TILE_H - 1 : last;
    for (uint s = 0; s < passes; s++) {
        __local uint (*cur)[BLUR_TILE_W] = tile[s & 1];
        __local uint (*next)[BLUR_TILE_W] = tile[(s & 1) ^ 1];
        for (int tx = lx; tx < BLUR_TILE_W; tx += BLUR_GROUP_W) {
            if (tx == 0 || tx == BLUR_TILE_W - 1)
                continue;               /* the ring's columns */
            int gx = x0 + tx;
            uint up = cur[first - 1][tx], centre = cur[first][tx];
            for (int ty = first; ty < last; ty++) {
                uint down = cur[ty + 1][tx];
                uint left = cur[ty][tx - 1], right = cur[ty][tx + 1];
                int gy = y0 + ty;
                next[ty][tx] =
                    interior ? blur_four(left, right, up, down, centre)
                             : blur_counted(left, right, up, down, centre,
                                           gx > 0, gx + 1 < iw, gy > 0,
                                           gy + 1 < ih);
                up = centre;
                centre = down;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    __local uint (*result)[BLUR_TILE_W] = tile[passes & 1];
    for (int ty = ly; ty < BLUR_TILE_H; ty += BLUR_GROUP_H)
        for (int tx = lx; tx < BLUR_TILE_W; tx += BLUR_GROUP_W) {
            int gx = x0 + tx, gy = y0 + ty;
            if (tx >= BLUR_HALO && tx < BLUR_TILE_W - BLUR_HALO &&
                ty >= BLUR_HALO && ty < BLUR_TILE_H - BLUR_HALO && gx < iw &&
                gy < ih)
                out[gy * iw + gx] = as_uchar4(result[ty][tx]);
        }
}
