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
 * comes last, so there is nothing to fuse anyway; the flag keeps it so
 * if the code changes, at no cost. Writing __fadd_rn and __fmul_rn
 * instead would do the same where the OpenCL source writes + and *.
 * nvcc's other defaults are the OpenCL build's (whose only FP option is
 * -cl-fp32-correctly-rounded-divide-sqrt, and there is no division):
 * subnormals kept (-ftz=false; the seed's problem makes some, 0.25^k of
 * the conductor's potential k cells ahead of the front), no fast math.
 *
 * Compiles alone (NVRTC too), with at most #defines before it: the shapes
 * below are laplace_cl.c's (its enum GROUP_W, GROUP_H, COLUMN_ROWS and the
 * first of its tile_choices), which it passes to the OpenCL build as -D
 * options; -DLAPLACE_TILE_W=... and the rest set another tile, as
 * LAPLACE_TILE does for the OpenCL kernel.
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
 * A block of threads iterates a LAPLACE_TILE_W x LAPLACE_TILE_H tile, its
 * output block plus a halo of LAPLACE_HALO cells on each side,
 * `iterations` times (at most LAPLACE_HALO); the tile's edge cells compute
 * from whatever is beside them, and the error that makes creeps in one
 * cell per iteration, so the output block is exact. Each thread owns a
 * LAPLACE_VX x LAPLACE_PY block of cells in registers; only the blocks'
 * perimeters go through shared memory, indexed by the thread's number t
 * (cols[c][j][t], rows[r][t]) so that a warp touches consecutive words;
 * one copy of them (two barriers per iteration) or two (one). Rows are
 * floatVX loads and stores where aligned, fixed cells never written.
 * laplace.cl's comment says more.
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
#define LAPLACE_TILE_GROUP_W (LAPLACE_TILE_W / LAPLACE_VX)
#define LAPLACE_TILE_GROUP_H (LAPLACE_TILE_H / LAPLACE_PY)
#define LAPLACE_TILE_ITEMS (LAPLACE_TILE_GROUP_W * LAPLACE_TILE_GROUP_H)
#define LAPLACE_OUT_W (LAPLACE_TILE_W - 2 * LAPLACE_HALO)
#define LAPLACE_OUT_H (LAPLACE_TILE_H - 2 * LAPLACE_HALO)
#define LAPLACE_LAST_COL (LAPLACE_VX > 1)
#define LAPLACE_LAST_ROW (LAPLACE_PY > 1)
#define LAPLACE_ALL_FREE \
    (~0ull >> (64 - LAPLACE_VX * LAPLACE_PY))
/* One copy's bytes; two copies where they fit the 48 KB a block's static
 * shared memory may take, as laplace_cl.c chooses them on an OpenCL device
 * of 48 KB of local memory (NVIDIA's). */
#define LAPLACE_TILE_BYTES                                                   \
    (4 * LAPLACE_TILE_ITEMS * ((LAPLACE_LAST_COL + 1) * LAPLACE_PY +         \
                               (LAPLACE_LAST_ROW + 1) * LAPLACE_VX))
#ifndef LAPLACE_TILE_COPIES
#if 2 * LAPLACE_TILE_BYTES <= 49152
#define LAPLACE_TILE_COPIES 2
#else
#define LAPLACE_TILE_COPIES 1
#endif
#endif

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
typedef unsigned char laplace_ucharv;
#define LAPLACE_UNPACK(a, q) ((a)[0] = (q))
#define LAPLACE_PACK(a) ((a)[0])
#elif LAPLACE_VX == 2
typedef float2 laplace_floatv;
typedef uchar2 laplace_ucharv;
#define LAPLACE_UNPACK(a, q) ((a)[0] = (q).x, (a)[1] = (q).y)
#define LAPLACE_PACK(a) (make_float2((a)[0], (a)[1]))
#elif LAPLACE_VX == 4
typedef float4 laplace_floatv;
typedef uchar4 laplace_ucharv;
#define LAPLACE_UNPACK(a, q) \
    ((a)[0] = (q).x, (a)[1] = (q).y, (a)[2] = (q).z, (a)[3] = (q).w)
#define LAPLACE_PACK(a) (make_float4((a)[0], (a)[1], (a)[2], (a)[3]))
#else
#error "LAPLACE_VX is 1, 2 or 4"
#endif

/* One iteration of a thread's block v, as laplace.cl's. */
__device__ __forceinline__ void
laplace_block_step(float v[LAPLACE_PY][LAPLACE_VX], const float *up,
                   const float *down, const float *left, const float *right,
                   unsigned long long free_)
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

/* __launch_bounds__ for OpenCL's reqd_work_group_size: the compiler may
 * budget registers for this block size and no larger. An experiment may
 * ask for blocks resident per multiprocessor as well
 * (-DLAPLACE_TILE_MIN_BLOCKS=2). */
#ifndef LAPLACE_TILE_MIN_BLOCKS
#define LAPLACE_TILE_MIN_BLOCKS 1
#endif
extern "C" __global__ void
__launch_bounds__(LAPLACE_TILE_ITEMS, LAPLACE_TILE_MIN_BLOCKS)
laplace_tiled(const float *in, float *out, const unsigned char *mask,
              unsigned nx, unsigned ny, unsigned iterations)
{
    __shared__ float cols[LAPLACE_TILE_COPIES][LAPLACE_LAST_COL + 1]
                         [LAPLACE_PY][LAPLACE_TILE_ITEMS];
    __shared__ laplace_floatv rows[LAPLACE_TILE_COPIES][LAPLACE_LAST_ROW + 1]
                                  [LAPLACE_TILE_ITEMS];
    float v[LAPLACE_PY][LAPLACE_VX];
    unsigned long long free_ = 0;   /* bit j * VX + i: cell (i, j) free */
    int lx = threadIdx.x, ly = threadIdx.y;
    int t = ly * LAPLACE_TILE_GROUP_W + lx;
    int tx0 = lx * LAPLACE_VX, ty0 = ly * LAPLACE_PY;
    /* The OpenCL kernel takes the tile row from the global id, so that
     * apps/mpi can launch some rows of tiles with a global offset; the
     * app's own launches have none, where that is the block's row. */
    int x0 = (int)blockIdx.x * LAPLACE_OUT_W - LAPLACE_HALO + tx0;
    int y0 = (int)blockIdx.y * LAPLACE_OUT_H - LAPLACE_HALO + ty0;
    int left = max(t - 1, 0), right = min(t + 1, LAPLACE_TILE_ITEMS - 1);
    int above = ly > 0 ? t - LAPLACE_TILE_GROUP_W : t;
    int below = ly < LAPLACE_TILE_GROUP_H - 1 ? t + LAPLACE_TILE_GROUP_W : t;
    int aligned = LAPLACE_HALO % LAPLACE_VX == 0 && nx % LAPLACE_VX == 0;
    int across = x0 >= 0 && x0 + LAPLACE_VX <= (int)nx;

#pragma unroll
    for (int j = 0; j < LAPLACE_PY; j++) {
        int gy = y0 + j;
        unsigned char m[LAPLACE_VX];
        if (aligned && across && gy >= 0 && gy < (int)ny) {
            unsigned g = ((unsigned)gy * nx + (unsigned)x0) / LAPLACE_VX;
            laplace_floatv p = ((const laplace_floatv *)in)[g];
            laplace_ucharv q = ((const laplace_ucharv *)mask)[g];
            LAPLACE_UNPACK(v[j], p);
            LAPLACE_UNPACK(m, q);
        } else {
#pragma unroll
            for (int i = 0; i < LAPLACE_VX; i++) {
                int gx = x0 + i;
                int inside = gx >= 0 && gx < (int)nx && gy >= 0 &&
                             gy < (int)ny;
                unsigned g = (unsigned)gy * nx + (unsigned)gx;
                v[j][i] = inside ? in[g] : 0.0f;
                m[i] = inside ? mask[g] : 0;
            }
        }
#pragma unroll
        for (int i = 0; i < LAPLACE_VX; i++)
            free_ |= (unsigned long long)(m[i] != 0) << (j * LAPLACE_VX + i);
    }

    for (unsigned s = 0; s < iterations; s++) {
        int c = LAPLACE_TILE_COPIES == 2 ? s & 1 : 0;
        if (LAPLACE_TILE_COPIES == 1 && s > 0)
            __syncthreads();            /* all have loaded the last */
#pragma unroll
        for (int j = 0; j < LAPLACE_PY; j++) {
            cols[c][0][j][t] = v[j][0];
            if (LAPLACE_LAST_COL)
                cols[c][LAPLACE_LAST_COL][j][t] = v[j][LAPLACE_VX - 1];
        }
        rows[c][0][t] = LAPLACE_PACK(v[0]);
        if (LAPLACE_LAST_ROW)
            rows[c][LAPLACE_LAST_ROW][t] = LAPLACE_PACK(v[LAPLACE_PY - 1]);
        __syncthreads();
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
        unsigned long long run = (free_ >> (j * LAPLACE_VX)) &
                                 ((1ull << LAPLACE_VX) - 1);
        if (aligned && out_x && x0 + LAPLACE_VX <= (int)nx &&
            run == (1ull << LAPLACE_VX) - 1) {
            unsigned g = ((unsigned)gy * nx + (unsigned)x0) / LAPLACE_VX;
            ((laplace_floatv *)out)[g] = LAPLACE_PACK(v[j]);
        } else {
#pragma unroll
            for (int i = 0; i < LAPLACE_VX; i++) {
                int tx = tx0 + i, gx = x0 + i;
                if (tx >= LAPLACE_HALO && tx < LAPLACE_TILE_W - LAPLACE_HALO &&
                    gx < (int)nx && (run >> i) & 1)
                    out[(unsigned)gy * nx + (unsigned)gx] = v[j][i];
            }
        }
    }
}

#endif
