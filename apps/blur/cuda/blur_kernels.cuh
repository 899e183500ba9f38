/*
 * blur_kernels.cuh: the CUDA twins of apps/blur/kernels/blur.cl, kernel for
 * kernel: the same rule, work per thread, block shape, tiles and integer
 * arithmetic, written the CUDA way (apps/blur/cuda/blur.cu launches them).
 *
 *   blur_seed, blur_seed_copy   three int planes (R, G, B): blur into new
 *                               planes with an if-statement per edge, then
 *                               copy them back over the old;
 *   blur_double                 packed RGBA8, one kernel per pass between
 *                               two buffers the host swaps;
 *   blur_tiled                  up to BLUR_HALO passes per launch in a
 *                               shared-memory tile with a halo.
 *
 * A pixel is one 32-bit word, R in the low byte and alpha in the high one:
 * what the OpenCL kernels' as_uint makes of a uchar4 on a little-endian
 * device, so the buffers are declared unsigned int rather than uchar4.
 * CUDA's uint4 has no arithmetic, so where blur.cl sums uint4 vectors this
 * sums their four lanes one by one: the same integers. All of it is
 * integer and exact, so the twins give the C reference's bytes.
 *
 * Self-contained, for NVRTC as well as nvcc: no headers; the tile's shape
 * may be set by #defines put in front, as blur_cl.c sets blur.cl's.
 */
#ifndef BENCH_CUDA_BLUR_KERNELS_CUH
#define BENCH_CUDA_BLUR_KERNELS_CUH

/* (sum + count / 2) / count for count 1 to 4 (count 4, every pixel inside
 * the image, is a shift), as blur.cl's blur_round. */
__device__ __forceinline__ unsigned int blur_round(unsigned int sum,
                                                   unsigned int count)
{
    return count == 4 ? (sum + 2) >> 2 : (sum + count / 2) / count;
}

/* ---- one pixel's average, for blur_double and blur_tiled ----------------
 *
 * Pixels with four neighbours are averaged as packed words, two channels
 * at a time in 16-bit lanes, as blur.cl does. */

/* Bytes 0 and 2 of a word (R and B, or G and A after >> 8), each in a
 * 16-bit lane where four of them add up without overflow. */
#define BLUR_LANES 0x00FF00FFu

/* The rounded average of four packed neighbours, with centre's alpha. */
__device__ __forceinline__ unsigned int
blur_four(unsigned int left, unsigned int right, unsigned int up,
          unsigned int down, unsigned int centre)
{
    unsigned int rb = (left & BLUR_LANES) + (right & BLUR_LANES) +
                      (up & BLUR_LANES) + (down & BLUR_LANES) + 0x00020002u;
    unsigned int ga = ((left >> 8) & BLUR_LANES) +
                      ((right >> 8) & BLUR_LANES) +
                      ((up >> 8) & BLUR_LANES) +
                      ((down >> 8) & BLUR_LANES) + 0x00020002u;
    unsigned int rgb = ((rb >> 2) & BLUR_LANES) |
                       (((ga >> 2) & BLUR_LANES) << 8);
    return (rgb & 0x00FFFFFFu) | (centre & 0xFF000000u);
}

/* Adds pixel p's four bytes, each widened, to the four lanes of sum: what
 * blur.cl's sum += convert_uint4(as_uchar4(p)) does. */
__device__ __forceinline__ void blur_add4(uint4 *sum, unsigned int p)
{
    sum->x += p & 0xFFu;
    sum->y += (p >> 8) & 0xFFu;
    sum->z += (p >> 16) & 0xFFu;
    sum->w += p >> 24;
}

/* Any pixel: the average of the neighbours it has, counted (for the
 * image's border, where fewer than four are there), as blur.cl's
 * blur_counted. */
__device__ __forceinline__ unsigned int
blur_counted(unsigned int left, unsigned int right, unsigned int up,
             unsigned int down, unsigned int centre, int has_left,
             int has_right, int has_up, int has_down)
{
    uint4 sum = make_uint4(0, 0, 0, 0);
    unsigned int count = 0;
    if (has_left) {
        blur_add4(&sum, left);
        count++;
    }
    if (has_right) {
        blur_add4(&sum, right);
        count++;
    }
    if (has_up) {
        blur_add4(&sum, up);
        count++;
    }
    if (has_down) {
        blur_add4(&sum, down);
        count++;
    }
    if (count == 0)
        return centre;
    return (blur_round(sum.x, count) & 0xFFu) |
           (blur_round(sum.y, count) & 0xFFu) << 8 |
           (blur_round(sum.z, count) & 0xFFu) << 16 | (centre & 0xFF000000u);
}

/* ---- the seed's port ----------------------------------------------------- */

/* One channel's new value at (x, y) of a w x h plane. */
__device__ __forceinline__ int blur_seed_channel(const int *c, unsigned int x,
                                                 unsigned int y,
                                                 unsigned int w,
                                                 unsigned int h)
{
    unsigned int i = y * w + x, sum = 0, count = 0;
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

/* One thread per pixel, extra threads of the last blocks guarded. */
extern "C" __global__ void blur_seed(const int *r, const int *g,
                                     const int *b, int *new_r, int *new_g,
                                     int *new_b, unsigned int w,
                                     unsigned int h)
{
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    unsigned int i = y * w + x;
    new_r[i] = blur_seed_channel(r, x, y, w, h);
    new_g[i] = blur_seed_channel(g, x, y, w, h);
    new_b[i] = blur_seed_channel(b, x, y, w, h);
}

extern "C" __global__ void blur_seed_copy(int *r, int *g, int *b,
                                          const int *new_r,
                                          const int *new_g,
                                          const int *new_b, unsigned int w,
                                          unsigned int h)
{
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    unsigned int i = y * w + x;
    r[i] = new_r[i];
    g[i] = new_g[i];
    b[i] = new_b[i];
}

/* ---- double buffering ---------------------------------------------------- */

/* One pass from in to out, one thread per pixel. */
extern "C" __global__ void blur_double(const unsigned int *in,
                                       unsigned int *out, unsigned int w,
                                       unsigned int h)
{
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    unsigned int i = y * w + x;
    int has_left = x > 0, has_right = x + 1 < w;
    int has_up = y > 0, has_down = y + 1 < h;
    unsigned int left = has_left ? in[i - 1] : 0u;
    unsigned int right = has_right ? in[i + 1] : 0u;
    unsigned int up = has_up ? in[i - w] : 0u;
    unsigned int down = has_down ? in[i + w] : 0u;
    unsigned int centre = in[i];
    out[i] = has_left && has_right && has_up && has_down
                 ? blur_four(left, right, up, down, centre)
                 : blur_counted(left, right, up, down, centre, has_left,
                                has_right, has_up, has_down);
}

/* ---- several passes per launch --------------------------------------------
 *
 * blur.cl's blur_tiled: a block of BLUR_GROUP_W x BLUR_GROUP_H threads
 * loads a BLUR_TILE_W x BLUR_TILE_H tile (its output block and a halo of
 * BLUR_HALO pixels on each side) into two shared copies and blurs it
 * `passes` times (at most BLUR_HALO), one __syncthreads per pass; image
 * edges are decided by image coordinates; the tile's outer ring is never
 * updated, and only the exact output block is written. Tiles that the
 * image's border does not cross take the packed average, and each thread
 * walks down a column of BLUR_ROWS rows, reading one new row per pixel.
 * The defaults are what apps/blur/blur_cl.c builds blur.cl with on a
 * device with 32 KiB of local memory or more (every GPU): 32 x 8 groups,
 * 64 x 64 tiles, a halo of 4.
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
#error "a tile must be a whole number of blocks wide and high"
#endif
#if BLUR_OUT_W < 1 || BLUR_OUT_H < 1
#error "the halo leaves no output block in the tile"
#endif

/* __launch_bounds__ says what blur.cl's reqd_work_group_size says: no
 * block is larger than one group. */
extern "C" __global__ void __launch_bounds__(BLUR_GROUP_W * BLUR_GROUP_H)
blur_tiled(const unsigned int *in, unsigned int *out, unsigned int w,
           unsigned int h, unsigned int passes)
{
    __shared__ unsigned int tile[2][BLUR_TILE_H][BLUR_TILE_W];
    int lx = threadIdx.x, ly = threadIdx.y;
    int x0 = (int)blockIdx.x * BLUR_OUT_W - BLUR_HALO;
    int y0 = (int)blockIdx.y * BLUR_OUT_H - BLUR_HALO;
    int iw = (int)w, ih = (int)h;

    /* Pixels outside the image are zeros that no pixel inside counts.
     * The ring goes into both copies, as no pass writes it. */
    for (int ty = ly; ty < BLUR_TILE_H; ty += BLUR_GROUP_H)
        for (int tx = lx; tx < BLUR_TILE_W; tx += BLUR_GROUP_W) {
            int gx = x0 + tx, gy = y0 + ty;
            int inside = gx >= 0 && gx < iw && gy >= 0 && gy < ih;
            unsigned int pixel = inside ? in[gy * iw + gx] : 0u;
            tile[0][ty][tx] = pixel;
            if (tx == 0 || ty == 0 || tx == BLUR_TILE_W - 1 ||
                ty == BLUR_TILE_H - 1)
                tile[1][ty][tx] = pixel;
        }
    __syncthreads();

    int interior = x0 >= 0 && x0 + BLUR_TILE_W - 1 < iw && y0 >= 0 &&
                   y0 + BLUR_TILE_H - 1 < ih;
    /* BLUR_ROWS rows of this thread's columns, going down; the tile's
     * first and last rows are the ring. */
    int first = ly * BLUR_ROWS, last = first + BLUR_ROWS;
    first = first == 0 ? 1 : first;
    last = last == BLUR_TILE_H ? BLUR_TILE_H - 1 : last;
    for (unsigned int s = 0; s < passes; s++) {
        unsigned int (*cur)[BLUR_TILE_W] = tile[s & 1];
        unsigned int (*next)[BLUR_TILE_W] = tile[(s & 1) ^ 1];
        for (int tx = lx; tx < BLUR_TILE_W; tx += BLUR_GROUP_W) {
            if (tx == 0 || tx == BLUR_TILE_W - 1)
                continue;               /* the ring's columns */
            int gx = x0 + tx;
            unsigned int up = cur[first - 1][tx], centre = cur[first][tx];
            for (int ty = first; ty < last; ty++) {
                unsigned int down = cur[ty + 1][tx];
                unsigned int left = cur[ty][tx - 1], right = cur[ty][tx + 1];
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
        __syncthreads();
    }

    unsigned int (*result)[BLUR_TILE_W] = tile[passes & 1];
    for (int ty = ly; ty < BLUR_TILE_H; ty += BLUR_GROUP_H)
        for (int tx = lx; tx < BLUR_TILE_W; tx += BLUR_GROUP_W) {
            int gx = x0 + tx, gy = y0 + ty;
            if (tx >= BLUR_HALO && tx < BLUR_TILE_W - BLUR_HALO &&
                ty >= BLUR_HALO && ty < BLUR_TILE_H - BLUR_HALO && gx < iw &&
                gy < ih)
                out[gy * iw + gx] = result[ty][tx];
        }
}

#endif /* BENCH_CUDA_BLUR_KERNELS_CUH */
