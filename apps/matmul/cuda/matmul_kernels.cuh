/*
 * matmul_kernels.cuh: the CUDA twins of apps/matmul/kernels/matmul.cl,
 * C = A x B for row-major floats, A m x k, B k x n, C m x n. Each is the
 * OpenCL kernel written the CUDA way, line for line: the same block shape,
 * tiles, loop order, index types and arithmetic, so that a difference in
 * time measures the toolchains, not the code.
 *
 *   matmul_naive    a thread per element of C, 16 x 16 blocks (the host's);
 *   matmul_tiled    16 x 16 blocks through 16 x 16 shared tiles, guarded;
 *   matmul_blocked  the register-blocked kernel, for the tile MM_TM, MM_TN,
 *                   MM_TK, MM_WG_X, MM_WG_Y, MM_PAD (defaults below: the
 *                   app's GPU default, 8x8x16x16x16x4). Its body is the
 *                   template mm_blocked<mm_tile<...>>, so that a host
 *                   compiled with nvcc can hold it for several tiles.
 *
 * Self-contained: NVRTC compiles this file alone, with or without -D of
 * the tile prepended; nvcc includes it (apps/matmul/cuda/matmul.cu).
 *
 * Arithmetic. The OpenCL kernels write naive's and tiled's sums as
 * `sum += x * y` and blocked's as mad(); NVIDIA's OpenCL compiler fuses
 * both into fma, as clframe builds them without -cl-fast-relaxed-math or
 * -cl-mad-enable (OpenCL C contracts by default). Here naive and tiled
 * keep `sum += x * y`, which nvcc and NVRTC fuse into fmaf by default
 * (--fmad=true), and blocked calls fmaf where the OpenCL kernel calls mad,
 * so every sum is the same chain of fused multiply-adds in the same order.
 */
#ifndef MATMUL_KERNELS_CUH
#define MATMUL_KERNELS_CUH

/* The tiled kernel's tile, fixed at the seed's 16 in the OpenCL source. */
#ifndef MM_TS
#define MM_TS 16
#endif

/* The blocked kernel's default tile. */
#ifndef MM_TM
#define MM_TM 8
#endif
#ifndef MM_TN
#define MM_TN 8
#endif
#ifndef MM_TK
#define MM_TK 16
#endif
#ifndef MM_WG_X
#define MM_WG_X 16
#endif
#ifndef MM_WG_Y
#define MM_WG_Y 16
#endif
#ifndef MM_PAD
#define MM_PAD 4
#endif

extern "C" __global__ void matmul_naive(const float *a, const float *b,
                                        float *c, unsigned m, unsigned k,
                                        unsigned n)
{
    size_t col = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t row = blockIdx.y * (size_t)blockDim.y + threadIdx.y;
    if (row >= m || col >= n)
        return;
    float sum = 0;
    for (size_t p = 0; p < k; p++)
        sum += a[row * k + p] * b[p * n + col];
    c[row * n + col] = sum;
}

/* __launch_bounds__ is CUDA's nearest word for the OpenCL kernel's
 * reqd_work_group_size: both tell the compiler the block's size. */
extern "C" __global__ void __launch_bounds__(MM_TS * MM_TS)
matmul_tiled(const float *a, const float *b, float *c, unsigned m,
             unsigned k, unsigned n)
{
    __shared__ float as[MM_TS][MM_TS];
    __shared__ float bs[MM_TS][MM_TS];
    size_t tx = threadIdx.x, ty = threadIdx.y;
    size_t col = blockIdx.x * (size_t)blockDim.x + tx;
    size_t row = blockIdx.y * (size_t)blockDim.y + ty;
    float sum = 0;
    for (size_t p0 = 0; p0 < k; p0 += MM_TS) {
        /* Every thread loads (zeros outside the matrices) and reaches
         * both barriers, including those past the edge of C. */
        as[ty][tx] = row < m && p0 + tx < k ? a[row * k + p0 + tx] : 0.0f;
        bs[ty][tx] = p0 + ty < k && col < n ? b[(p0 + ty) * n + col] : 0.0f;
        __syncthreads();
        for (int p = 0; p < MM_TS; p++)
            sum += as[ty][p] * bs[p][tx];
        __syncthreads();
    }
    if (row < m && col < n)
        c[row * n + col] = sum;
}

/* ---- blocked -------------------------------------------------------------
 * A WX x WY block computes a BM x BN block of C (BM = TM WY, BN = TN WX),
 * each thread TM x TN elements in registers, as float4-wide strips: rows
 * 4 ty + 4 i WY + (0..3), columns 4 tx + 4 j WX + (0..3). Shared memory
 * holds one step's tiles: A's BM x TK, transposed, rows padded by PAD
 * floats, and B's TK x BN; the next step's are read into registers while
 * this step's are multiplied. m, k, n are multiples of BM, TK and BN: the
 * host pads, as the app's does. */

/* The tile and the sizes that follow from it (the OpenCL source's MM_*
 * macros). */
template <int TM_, int TN_, int TK_, int WX_, int WY_, int PAD_>
struct mm_tile {
    static constexpr int TM = TM_, TN = TN_, TK = TK_;
    static constexpr int WX = WX_, WY = WY_, PAD = PAD_;
    static constexpr int BM = TM * WY, BN = TN * WX, THREADS = WX * WY;
    static constexpr int AS_ROW4 = (BM + PAD) / 4; /* float4s, A's rows */
    static constexpr int BS_ROW4 = BN / 4;
    /* float4s of the A and B tiles each thread moves per step (the last
     * round may leave some threads without one). */
    static constexpr int A_VECS = BM * TK / 4, B_VECS = TK * BN / 4;
    static constexpr int A_LOADS = (A_VECS + THREADS - 1) / THREADS;
    static constexpr int B_LOADS = (B_VECS + THREADS - 1) / THREADS;
    static_assert(TM % 4 == 0 && TN % 4 == 0 && TK % 4 == 0 && PAD % 4 == 0,
                  "mm_tile: TM, TN, TK and PAD must be multiples of 4");
};

/* This thread's share of the tiles at depth p0, into registers. A: BM
 * rows of TK floats, float4 along k; B: TK rows of BN floats, consecutive
 * threads reading consecutive float4s (coalesced). Every float4 is
 * aligned: k and n are multiples of 4, and cudaMalloc's bases of 256. */
template <class T>
__device__ void mm_load_tiles(const float *ablock, const float *bblock,
                              unsigned k, unsigned n, size_t p0, int tid,
                              float4 *anext, float4 *bnext)
{
    for (int l = 0; l < T::A_LOADS; l++) {
        int id = tid + l * T::THREADS;
        if (id < T::A_VECS) {
            int r = id / (T::TK / 4), q = id % (T::TK / 4);
            anext[l] = *(const float4 *)(ablock + r * (size_t)k + p0 + 4 * q);
        }
    }
    for (int l = 0; l < T::B_LOADS; l++) {
        int id = tid + l * T::THREADS;
        if (id < T::B_VECS) {
            int r = id / (T::BN / 4), q = id % (T::BN / 4);
            bnext[l] = *(const float4 *)(bblock + (p0 + r) * n + 4 * q);
        }
    }
}

/* Stores what mm_load_tiles read: A transposed, so that the inner loop
 * reads a column of it as rows of float4s, B as it is. */
template <class T>
__device__ void mm_store_tiles(float *as, float4 *bs, int tid,
                               const float4 *anext, const float4 *bnext)
{
    for (int l = 0; l < T::A_LOADS; l++) {
        int id = tid + l * T::THREADS;
        if (id < T::A_VECS) {
            int r = id / (T::TK / 4), q = id % (T::TK / 4);
            float *col = as + 4 * q * (4 * T::AS_ROW4) + r;
            col[0 * 4 * T::AS_ROW4] = anext[l].x;
            col[1 * 4 * T::AS_ROW4] = anext[l].y;
            col[2 * 4 * T::AS_ROW4] = anext[l].z;
            col[3 * 4 * T::AS_ROW4] = anext[l].w;
        }
    }
    for (int l = 0; l < T::B_LOADS; l++) {
        int id = tid + l * T::THREADS;
        if (id < T::B_VECS)
            bs[id] = bnext[l];
    }
}

/* mad((float4)s, b, acc) of the OpenCL kernel. */
__device__ __forceinline__ float4 mm_fma4(float s, float4 b, float4 acc)
{
    return make_float4(fmaf(s, b.x, acc.x), fmaf(s, b.y, acc.y),
                       fmaf(s, b.z, acc.z), fmaf(s, b.w, acc.w));
}

/* acc[i][j] += a[i] * b[j] for the 4 x 4 products of two float4s. */
#define MM_OUTER4(acc, i, j, a, b) do {                                      \
        acc[i + 0][j / 4] = mm_fma4((a).x, b, acc[i + 0][j / 4]);           \
        acc[i + 1][j / 4] = mm_fma4((a).y, b, acc[i + 1][j / 4]);           \
        acc[i + 2][j / 4] = mm_fma4((a).z, b, acc[i + 2][j / 4]);           \
        acc[i + 3][j / 4] = mm_fma4((a).w, b, acc[i + 3][j / 4]);           \
    } while (0)

/* The body of a blocked kernel for tile T, launched on a grid of
 * (n / BN, m / BM) blocks of (WX, WY) threads. */
template <class T>
__device__ void mm_blocked(const float *a, const float *b, float *c,
                           unsigned m, unsigned k, unsigned n)
{
    (void)m;                    /* the grid covers m */
    __shared__ float4 as[T::TK * T::AS_ROW4];
    __shared__ float4 bs[T::TK * T::BS_ROW4];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tid = ty * T::WX + tx;
    /* The OpenCL kernel takes its rows from its global id (for the app's
     * row panels, launched with a global offset); without an offset that
     * is its group's, as here. */
    const size_t row0 = blockIdx.y * (size_t)T::BM;
    const size_t col0 = blockIdx.x * (size_t)T::BN;
    const float *ablock = a + row0 * k;
    const float *bblock = b + col0;

    /* acc[i][j]: row 4 ty + (i % 4) + 4 (i / 4) WY of the block, columns
     * 4 tx + 4 j WX + (0..3). */
    float4 acc[T::TM][T::TN / 4];
    for (int i = 0; i < T::TM; i++)
        for (int j = 0; j < T::TN / 4; j++)
            acc[i][j] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);

    float4 anext[T::A_LOADS], bnext[T::B_LOADS];
    mm_load_tiles<T>(ablock, bblock, k, n, 0, tid, anext, bnext);
    mm_store_tiles<T>((float *)as, bs, tid, anext, bnext);
    __syncthreads();
    for (size_t p0 = 0; p0 < k; p0 += T::TK) {
        int more = p0 + T::TK < k;
        if (more)
            mm_load_tiles<T>(ablock, bblock, k, n, p0 + T::TK, tid, anext,
                             bnext);

#pragma unroll
        for (int p = 0; p < T::TK; p++) {
            float4 ar[T::TM / 4], br[T::TN / 4];
            for (int i = 0; i < T::TM / 4; i++)
                ar[i] = as[p * T::AS_ROW4 + ty + i * T::WY];
            for (int j = 0; j < T::TN / 4; j++)
                br[j] = bs[p * T::BS_ROW4 + tx + j * T::WX];
            for (int i = 0; i < T::TM / 4; i++)
                for (int j = 0; j < T::TN / 4; j++)
                    MM_OUTER4(acc, 4 * i, 4 * j, ar[i], br[j]);
        }
        /* Every thread is done with the tiles before they are
         * overwritten, and the new ones are stored before they are read. */
        __syncthreads();
        if (more)
            mm_store_tiles<T>((float *)as, bs, tid, anext, bnext);
        __syncthreads();
    }

    for (int i = 0; i < T::TM; i++) {
        size_t row = row0 + 4 * ty + i % 4 + 4 * (i / 4) * T::WY;
        float *crow = c + row * n + col0 + 4 * tx;
        for (int j = 0; j < T::TN / 4; j++)
            *(float4 *)(crow + 4 * j * T::WX) = acc[i][j];
    }
}

/* The blocked kernel for the tile of the MM_* macros. */
typedef mm_tile<MM_TM, MM_TN, MM_TK, MM_WG_X, MM_WG_Y, MM_PAD> mm_default_tile;

extern "C" __global__ void __launch_bounds__(MM_WG_X * MM_WG_Y)
matmul_blocked(const float *a, const float *b, float *c, unsigned m,
               unsigned k, unsigned n)
{
    mm_blocked<mm_default_tile>(a, b, c, m, k, n);
}

#endif /* MATMUL_KERNELS_CUH */
