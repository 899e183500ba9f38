/* cache_workload.cl: the source bench-cache builds. It stands for a real
 * application's kernel file: fifteen kernels of real work (image filters
 * with local tiles, reductions and a scan in local memory, an n-body step,
 * a tiled matrix product, a histogram with local atomics, a sort step, a
 * stencil, a fractal, a Monte-Carlo estimate) and the device functions they
 * share, about 400 lines, so that the compiler has as much to do as it has
 * for an application. Only sum_reduce is run by the benchmark (to check
 * that a cached binary computes); the rest only have to compile. */

#define TILE 16
#define BLUR_RADIUS 4
#define HIST_BINS 256
#define SOFTENING 1e-3f

/* ---- shared device functions --------------------------------------------- */

static inline int clamp_index(int i, int n)
{
    return i < 0 ? 0 : i >= n ? n - 1 : i;
}

static inline float gaussian_weight(int offset, float sigma)
{
    return exp(-(float)(offset * offset) / (2.0f * sigma * sigma));
}

static inline float luminance(float4 rgba)
{
    return 0.2126f * rgba.x + 0.7152f * rgba.y + 0.0722f * rgba.z;
}

/* xorshift128+ style generator on two uints per work-item. */
typedef struct rng_state {
    uint a, b, c, d;
} rng_state;

static inline uint rng_next(rng_state *s)
{
    uint t = s->d;
    uint u = s->a;
    s->d = s->c;
    s->c = s->b;
    s->b = u;
    t ^= t << 11;
    t ^= t >> 8;
    s->a = t ^ u ^ (u >> 19);
    return s->a;
}

static inline float rng_uniform(rng_state *s)
{
    return (float)(rng_next(s) >> 8) * (1.0f / 16777216.0f);
}

static inline rng_state rng_seed(uint seed, uint id)
{
    rng_state s;
    uint x = seed ^ (id * 0x9e3779b9u);
    s.a = x ^ 0x85ebca6bu;
    s.b = (x << 7) ^ 0xc2b2ae35u;
    s.c = (x >> 3) ^ 0x27d4eb2fu;
    s.d = ~x ^ 0x165667b1u;
    for (int i = 0; i < 8; i++)
        rng_next(&s);
    return s;
}

/* Tree reduction of one value per work-item in local memory; the result is
 * in scratch[0] for every work-item after the last barrier. */
static inline float group_sum(float v, __local float *scratch)
{
    size_t lid = get_local_id(0), n = get_local_size(0);
    scratch[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t stride = n / 2; stride > 0; stride /= 2) {
        if (lid < stride)
            scratch[lid] += scratch[lid + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return scratch[0];
}

/* ---- image filters -------------------------------------------------------- */

/* Horizontal pass of a separable Gaussian filter, with the row segment and
 * its halo loaded into local memory once per work-group. */
__kernel void blur_rows(__global const float *in, __global float *out,
                        int width, int height, float sigma,
                        __local float *tile)
{
    int x = get_global_id(0), y = get_global_id(1);
    int lx = get_local_id(0), lw = get_local_size(0);
    int row = clamp_index(y, height) * width;
    int base = get_group_id(0) * lw - BLUR_RADIUS;
    for (int i = lx; i < lw + 2 * BLUR_RADIUS; i += lw)
        tile[i] = in[row + clamp_index(base + i, width)];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (x >= width || y >= height)
        return;
    float sum = 0.0f, norm = 0.0f;
    for (int k = -BLUR_RADIUS; k <= BLUR_RADIUS; k++) {
        float w = gaussian_weight(k, sigma);
        sum += w * tile[lx + BLUR_RADIUS + k];
        norm += w;
    }
    out[row + x] = sum / norm;
}

/* Vertical pass, straight from global memory (columns coalesce poorly into
 * a 1-D tile; the cache does the work here). */
__kernel void blur_columns(__global const float *in, __global float *out,
                           int width, int height, float sigma)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height)
        return;
    float sum = 0.0f, norm = 0.0f;
    for (int k = -BLUR_RADIUS; k <= BLUR_RADIUS; k++) {
        float w = gaussian_weight(k, sigma);
        sum += w * in[clamp_index(y + k, height) * width + x];
        norm += w;
    }
    out[y * width + x] = sum / norm;
}

/* Sobel gradient magnitude of an RGBA image's luminance. */
__kernel void sobel(__global const float4 *in, __global float *out,
                    int width, int height)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height)
        return;
    float l[3][3];
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            l[dy + 1][dx + 1] = luminance(
                in[clamp_index(y + dy, height) * width +
                   clamp_index(x + dx, width)]);
    float gx = (l[0][2] + 2.0f * l[1][2] + l[2][2]) -
               (l[0][0] + 2.0f * l[1][0] + l[2][0]);
    float gy = (l[2][0] + 2.0f * l[2][1] + l[2][2]) -
               (l[0][0] + 2.0f * l[0][1] + l[0][2]);
    out[y * width + x] = sqrt(gx * gx + gy * gy);
}

/* ---- reductions and scans -------------------------------------------------- */

/* One partial sum per work-group: each work-item first adds a strided run
 * of the input, then the group reduces in local memory. */
__kernel void sum_reduce(__global const float *in, __global float *partial,
                         int n, __local float *scratch)
{
    float v = 0.0f;
    for (int i = get_global_id(0); i < n; i += get_global_size(0))
        v += in[i];
    float total = group_sum(v, scratch);
    if (get_local_id(0) == 0)
        partial[get_group_id(0)] = total;
}

/* Index of the minimum and of the maximum per work-group. */
__kernel void minmax_reduce(__global const float *in, __global int2 *result,
                            int n, __local float *values, __local int *index)
{
    size_t lid = get_local_id(0), size = get_local_size(0);
    int gid = get_global_id(0);
    int lo = gid < n ? gid : 0, hi = lo;
    for (int i = gid + get_global_size(0); i < n; i += get_global_size(0)) {
        if (in[i] < in[lo]) lo = i;
        if (in[i] > in[hi]) hi = i;
    }
    for (int pass = 0; pass < 2; pass++) {
        int mine = pass == 0 ? lo : hi;
        values[lid] = in[mine];
        index[lid] = mine;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (size_t stride = size / 2; stride > 0; stride /= 2) {
            if (lid < stride) {
                float other = values[lid + stride];
                int better = pass == 0 ? other < values[lid]
                                       : other > values[lid];
                if (better) {
                    values[lid] = other;
                    index[lid] = index[lid + stride];
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0) {
            if (pass == 0)
                result[get_group_id(0)].x = index[0];
            else
                result[get_group_id(0)].y = index[0];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* Work-efficient exclusive scan (Blelloch) of 2 * local size elements per
 * work-group; block totals go to sums for a second pass. */
__kernel void scan_blocks(__global const int *in, __global int *out,
                          __global int *sums, int n, __local int *temp)
{
    int lid = get_local_id(0), size = get_local_size(0);
    int base = get_group_id(0) * 2 * size;
    int a = base + 2 * lid, b = a + 1;
    temp[2 * lid] = a < n ? in[a] : 0;
    temp[2 * lid + 1] = b < n ? in[b] : 0;
    int offset = 1;
    for (int d = size; d > 0; d >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < d) {
            int i = offset * (2 * lid + 1) - 1, j = offset * (2 * lid + 2) - 1;
            temp[j] += temp[i];
        }
        offset *= 2;
    }
    if (lid == 0) {
        sums[get_group_id(0)] = temp[2 * size - 1];
        temp[2 * size - 1] = 0;
    }
    for (int d = 1; d < 2 * size; d *= 2) {
        offset >>= 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < d) {
            int i = offset * (2 * lid + 1) - 1, j = offset * (2 * lid + 2) - 1;
            int t = temp[i];
            temp[i] = temp[j];
            temp[j] += t;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (a < n) out[a] = temp[2 * lid];
    if (b < n) out[b] = temp[2 * lid + 1];
}

__kernel void scan_add_sums(__global int *out, __global const int *sums, int n)
{
    int i = get_global_id(0);
    int block = i / (2 * get_local_size(0));
    if (i < n)
        out[i] += sums[block];
}

/* Histogram of bytes: per-group counts in local memory with atomics, then
 * one global atomic per bin and group. */
__kernel void histogram(__global const uchar *data, __global uint *bins,
                        int n, __local uint *local_bins)
{
    for (int i = get_local_id(0); i < HIST_BINS; i += get_local_size(0))
        local_bins[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = get_global_id(0); i < n; i += get_global_size(0))
        atomic_inc(&local_bins[data[i]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = get_local_id(0); i < HIST_BINS; i += get_local_size(0))
        if (local_bins[i])
            atomic_add(&bins[i], local_bins[i]);
}

/* One compare-exchange step of a bitonic sort over a power-of-two array. */
__kernel void bitonic_step(__global float *data, int stage, int pass)
{
    uint i = get_global_id(0);
    uint distance = 1u << (stage - pass);
    uint left = (i / distance) * distance * 2 + i % distance;
    uint right = left + distance;
    int ascending = ((i >> stage) & 1) == 0;
    float a = data[left], b = data[right];
    if ((a > b) == ascending) {
        data[left] = b;
        data[right] = a;
    }
}

/* ---- simulation -------------------------------------------------------------- */

/* One leapfrog step of n bodies (xyz position, w mass) under softened
 * gravity, the bodies streamed through local memory a tile at a time. */
__kernel void nbody_step(__global const float4 *pos, __global float4 *vel,
                         __global float4 *new_pos, int n, float dt,
                         __local float4 *tile)
{
    int i = get_global_id(0), lid = get_local_id(0);
    int size = get_local_size(0);
    float4 p = i < n ? pos[i] : (float4)(0.0f);
    float3 acc = (float3)(0.0f);
    for (int start = 0; start < n; start += size) {
        int j = start + lid;
        tile[lid] = j < n ? pos[j] : (float4)(0.0f);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < size && start + k < n; k++) {
            float3 d = tile[k].xyz - p.xyz;
            float r2 = dot(d, d) + SOFTENING;
            float inv = rsqrt(r2);
            acc += d * (tile[k].w * inv * inv * inv);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (i >= n)
        return;
    float4 v = vel[i];
    v.xyz += acc * dt;
    vel[i] = v;
    new_pos[i] = (float4)(p.xyz + v.xyz * dt, p.w);
}

/* Five-point explicit diffusion step with fixed (Dirichlet) edges. */
__kernel void diffusion_step(__global const float *t, __global float *next,
                             int width, int height, float alpha)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height)
        return;
    int i = y * width + x;
    if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
        next[i] = t[i];
        return;
    }
    float lap = t[i - 1] + t[i + 1] + t[i - width] + t[i + width] - 4.0f * t[i];
    next[i] = t[i] + alpha * lap;
}

/* ---- dense linear algebra ------------------------------------------------------ */

/* C = A * B for row-major n x n matrices, TILE x TILE blocks in local
 * memory; n need not be a multiple of TILE. */
__kernel void matmul_tiled(__global const float *a, __global const float *b,
                           __global float *c, int n)
{
    __local float as[TILE][TILE], bs[TILE][TILE];
    int row = get_global_id(1), col = get_global_id(0);
    int ly = get_local_id(1), lx = get_local_id(0);
    float sum = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        as[ly][lx] = row < n && t + lx < n ? a[row * n + t + lx] : 0.0f;
        bs[ly][lx] = col < n && t + ly < n ? b[(t + ly) * n + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; k++)
            sum = mad(as[ly][k], bs[k][lx], sum);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < n && col < n)
        c[row * n + col] = sum;
}

/* y = A x for a sparse matrix in CSR form, one row per work-item. */
__kernel void spmv_csr(__global const int *row_start,
                       __global const int *cols, __global const float *vals,
                       __global const float *x, __global float *y, int rows)
{
    int r = get_global_id(0);
    if (r >= rows)
        return;
    float sum = 0.0f;
    for (int k = row_start[r]; k < row_start[r + 1]; k++)
        sum = mad(vals[k], x[cols[k]], sum);
    y[r] = sum;
}

/* ---- fractals and Monte Carlo ----------------------------------------------- */

/* Smooth iteration count of the Mandelbrot set over a window of the plane. */
__kernel void mandelbrot(__global float *out, int width, int height,
                         float x0, float y0, float scale, int max_iter)
{
    int px = get_global_id(0), py = get_global_id(1);
    if (px >= width || py >= height)
        return;
    float cr = x0 + px * scale, ci = y0 + py * scale;
    float zr = 0.0f, zi = 0.0f;
    int it = 0;
    while (it < max_iter && zr * zr + zi * zi < 256.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        it++;
    }
    float smooth = (float)it;
    if (it < max_iter)
        smooth += 1.0f - log2(log2(zr * zr + zi * zi) * 0.5f);
    out[py * width + px] = smooth;
}

/* Points inside the quarter circle, per work-group, for estimating pi. */
__kernel void monte_carlo_pi(__global uint *hits, uint seed, int samples,
                             __local float *scratch)
{
    rng_state s = rng_seed(seed, get_global_id(0));
    float inside = 0.0f;
    for (int i = 0; i < samples; i++) {
        float x = rng_uniform(&s), y = rng_uniform(&s);
        inside += x * x + y * y <= 1.0f ? 1.0f : 0.0f;
    }
    float total = group_sum(inside, scratch);
    if (get_local_id(0) == 0)
        hits[get_group_id(0)] = (uint)total;
}
