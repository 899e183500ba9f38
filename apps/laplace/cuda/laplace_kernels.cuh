/*
 * laplace_kernels.cuh: the CUDA twins of apps/laplace/kernels/laplace.cl's
 * fixed-iteration kernels, line for line: the seed's pair
 * (laplace_seed_update, laplace_seed_copy), double's three update kernels
 * (laplace_update, laplace_update_column, laplace_update4: the app picks
 * one per device, laplace_double_kernel), and fast's laplace_tiled. The
 * tolerance kernels (laplace_*_change) and rows's laplace_row_blocks (for
 * CPU devices) have no twin: the comparison runs a fixed count on a GPU.
 *
 * Same names, parameters, index arithmetic (32-bit unsigned, as the
 * OpenCL kernels' uint), loops and guards; __shared__ for __local,
 * __syncthreads() for barrier(CLK_LOCAL_MEM_FENCE), blockIdx * blockDim +
 * threadIdx for get_global_id.
 *
 * Arithmetic: a free cell is 0.25f * (((right + left) + down) + up), as in
 * the OpenCL kernels and the C reference, which compare bit for bit. The
 * OpenCL file turns contraction off (#pragma OPENCL FP_CONTRACT OFF);
 * this file is compiled with -fmad=false (the Makefile's flag for
 * laplace.cu.o, and NVRTC's option of that name), its counterpart, so
 * that nvcc fuses no a * b + c either: the PTX's adds and multiplies are
 * then add.rn and mul.rn, which ptxas may not fuse. Here the one multiply
 * comes last, so there is nothing to fuse anyway: nvcc 13.0's sm_90 code
 * (the cubin's .text of every kernel) is byte for byte the same with and
 * without the flag, and its PTX has no fma either way; the flag keeps it
 * so if the code changes, at no cost. Writing __fadd_rn and __fmul_rn
 * instead would do the same where the OpenCL source writes + and *.
 * nvcc's other defaults are the OpenCL build's (whose only FP option is
 * -cl-fp32-correctly-rounded-divide-sqrt, and there is no division):
 * subnormals kept (-ftz=false; the seed's problem makes some, 0.25^k of
 * the conductor's potential k cells ahead of the front), no fast math.
 *
 * Compiles alone (NVRTC too), with at most #defines before it: the shapes
 * below are laplace_cl.c's (its enum GROUP_W, GROUP_H, TILE_W, TILE_MAX_H,
 * HALO, COLUMN_ROWS), which it passes to the OpenCL build as -D options.
 */
#ifndef BENCH_CUDA_LAPLACE_KERNELS_CUH
#define BENCH_CUDA_LAPLACE_KERNELS_CUH

#ifndef LAPLACE_ROWS
#define LAPLACE_ROWS 4                  /* laplace_update_column's cells */
#endif

__device__ inline float laplace_average(float right, float left, float down,
                                        float up)
{
    return 0.25f * (((right + left) + down) + up);
}

extern "C" __global__ void laplace_seed_update(float *phi,
                                               const float *old_phi,
                                               const int *mask, unsigned nx,
                                               unsigned ny)
{
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny)
        return;
    unsigned i = y * nx + x;
    if (mask[i])        /* a free cell is never on the border */
        phi[i] = laplace_average(old_phi[i + 1], old_phi[i - 1],
                                 old_phi[i + nx], old_phi[i - nx]);
}

extern "C" __global__ void laplace_seed_copy(const float *phi,
                                             float *old_phi, const int *mask,
                                             unsigned nx, unsigned ny)
{
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny)
        return;
    unsigned i = y * nx + x;
    if (mask[i])
        old_phi[i] = phi[i];
}

/* double's kernel on CPU devices: a cell per thread, fixed cells not
 * written (both buffers hold them). */
extern "C" __global__ void laplace_update(const float *in, float *out,
                                          const unsigned char *mask,
                                          unsigned nx, unsigned ny)
{
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny)
        return;
    unsigned i = y * nx + x;
    if (mask[i])
        out[i] = laplace_average(in[i + 1], in[i - 1], in[i + nx], in[i - nx]);
}

/* double's kernel on GPUs where nx is not a multiple of 4: LAPLACE_ROWS
 * cells down a column per thread, the rows above and below carried in
 * registers, every read made whatever the mask says (clamped at the
 * border). */
extern "C" __global__ void laplace_update_column(const float *in, float *out,
                                                 const unsigned char *mask,
                                                 unsigned nx, unsigned ny)
{
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y0 = (blockIdx.y * blockDim.y + threadIdx.y) * LAPLACE_ROWS;
    if (x >= nx || y0 >= ny)
        return;
    unsigned xl = x > 0 ? x - 1 : x, xr = x + 1 < nx ? x + 1 : x;
    float up = y0 > 0 ? in[(y0 - 1) * nx + x] : 0.0f;
    float centre = in[y0 * nx + x];
#pragma unroll
    for (unsigned r = 0; r < LAPLACE_ROWS; r++) {
        unsigned y = y0 + r;
        if (y >= ny)
            break;
        unsigned row = y * nx;
        float down = y + 1 < ny ? in[row + nx + x] : 0.0f;
        float v = laplace_average(in[row + xr], in[row + xl], down, up);
        if (mask[row + x])
            out[row + x] = v;
        up = centre;
        centre = down;
    }
}

/* double's kernel on GPUs where nx % 4 == 0: a float4 of cells per thread,
 * one 16-byte read for it and for each of the rows above and below, the
 * cells either side read alone; fixed lanes rewritten with their value so
 * that each float4 is one store. cudaMalloc's buffers, like OpenCL's, are
 * aligned for float4, and nx % 4 == 0 keeps every row so. */
extern "C" __global__ void laplace_update4(const float *in, float *out,
                                           const unsigned char *mask,
                                           unsigned nx, unsigned ny)
{
    unsigned nx4 = nx / 4, x4 = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x4 >= nx4 || y >= ny)
        return;
    const float4 *in4 = (const float4 *)in;
    unsigned i4 = y * nx4 + x4, row = y * nx;
    float4 centre = in4[i4];
    float4 up = y > 0 ? in4[i4 - nx4] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float4 down = y + 1 < ny ? in4[i4 + nx4]
                             : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float left = in[row + (x4 > 0 ? 4 * x4 - 1 : 0)];
    float right = in[row + (x4 + 1 < nx4 ? 4 * x4 + 4 : nx - 1)];
    float4 v = make_float4(laplace_average(centre.y, left, down.x, up.x),
                           laplace_average(centre.z, centre.x, down.y, up.y),
                           laplace_average(centre.w, centre.y, down.z, up.z),
                           laplace_average(right, centre.z, down.w, up.w));
    uchar4 m = ((const uchar4 *)mask)[i4];
    /* OpenCL's any(free_) and select(centre, v, free_), lane by lane. */
    if (m.x || m.y || m.z || m.w)
        ((float4 *)out)[i4] = make_float4(m.x ? v.x : centre.x,
                                          m.y ? v.y : centre.y,
                                          m.z ? v.z : centre.z,
                                          m.w ? v.w : centre.w);
}

/* ---- several iterations per launch --------------------------------------
 *
 * A block of LAPLACE_TILE_GROUP_W x LAPLACE_TILE_GROUP_H threads loads a
 * LAPLACE_TILE_W x LAPLACE_TILE_H tile, its output block plus a halo of
 * LAPLACE_HALO cells on each side, and iterates the whole tile
 * `iterations` times (at most LAPLACE_HALO); the tile's edge cells are
 * held fixed, and the error that makes creeps in one cell per iteration,
 * so the output block is exact. Each thread owns PER_X columns
 * (TILE_GROUP_W apart) of PER_Y consecutive rows in registers; left, right
 * and its strips' ends go through shared memory, two copies of the tile
 * (read one, write the other, one barrier per iteration).
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
#error "a tile must be a whole number of blocks wide and high"
#endif
#if LAPLACE_OUT_W < 1 || LAPLACE_OUT_H < 1
#error "the halo leaves no output block in the tile"
#endif

/* __launch_bounds__ for OpenCL's reqd_work_group_size: the compiler may
 * budget registers for this block size and no larger. An experiment may
 * ask for blocks resident per multiprocessor as well
 * (-DLAPLACE_TILE_MIN_BLOCKS=4: at most 64 registers, as NVIDIA's OpenCL
 * compiler chose; bench/RESULTS.md, CUDA twins). */
#ifndef LAPLACE_TILE_MIN_BLOCKS
#define LAPLACE_TILE_MIN_BLOCKS 1
#endif
extern "C" __global__ void
__launch_bounds__(LAPLACE_TILE_GROUP_W * LAPLACE_TILE_GROUP_H,
                  LAPLACE_TILE_MIN_BLOCKS)
laplace_tiled(const float *in, float *out, const unsigned char *mask,
              unsigned nx, unsigned ny, unsigned iterations)
{
    __shared__ float tile[2][LAPLACE_TILE_H][LAPLACE_TILE_W];
    float v[LAPLACE_PER_X][LAPLACE_PER_Y];
    unsigned char free_[LAPLACE_PER_X][LAPLACE_PER_Y];
    int lx = threadIdx.x, ty0 = threadIdx.y * LAPLACE_PER_Y;
    int x0 = (int)blockIdx.x * LAPLACE_OUT_W - LAPLACE_HALO;
    /* The OpenCL kernel takes the tile row from the global id, so that
     * apps/mpi can launch some rows of tiles with a global offset; the
     * app's own launches have none, where that is the block's row. */
    int y0 = (int)blockIdx.y * LAPLACE_OUT_H - LAPLACE_HALO;

    for (int i = 0; i < LAPLACE_PER_X; i++) {
        int tx = lx + i * LAPLACE_TILE_GROUP_W, gx = x0 + tx;
        for (int j = 0; j < LAPLACE_PER_Y; j++) {
            int ty = ty0 + j, gy = y0 + ty;
            int inside = gx >= 0 && gx < (int)nx && gy >= 0 && gy < (int)ny;
            unsigned g = (unsigned)gy * nx + (unsigned)gx;
            int edge = tx == 0 || ty == 0 || tx == LAPLACE_TILE_W - 1 ||
                       ty == LAPLACE_TILE_H - 1;
            free_[i][j] = inside && !edge && mask[g];
            v[i][j] = inside ? in[g] : 0.0f;
            tile[0][ty][tx] = v[i][j];
        }
    }
    __syncthreads();

    for (unsigned s = 0; s < iterations; s++) {
        float (*cur)[LAPLACE_TILE_W] = tile[s & 1];
        float (*next)[LAPLACE_TILE_W] = tile[(s & 1) ^ 1];
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
        __syncthreads();
    }

    for (int i = 0; i < LAPLACE_PER_X; i++) {
        int tx = lx + i * LAPLACE_TILE_GROUP_W, gx = x0 + tx;
        for (int j = 0; j < LAPLACE_PER_Y; j++) {
            int ty = ty0 + j, gy = y0 + ty;
            if (tx >= LAPLACE_HALO && tx < LAPLACE_TILE_W - LAPLACE_HALO &&
                ty >= LAPLACE_HALO && ty < LAPLACE_TILE_H - LAPLACE_HALO &&
                gx < (int)nx && gy < (int)ny && free_[i][j])
                out[(unsigned)gy * nx + (unsigned)gx] = v[i][j];
        }
    }
}

#endif
