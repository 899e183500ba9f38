/*
 * matmul.cl: C = A x B, row-major floats, A m x k, B k x n, C m x n.
 *
 *   matmul_naive    one work-item per element of C (the seed's kernel);
 *   matmul_tiled    16 x 16 work-groups through 16 x 16 local tiles of A
 *                   and B (the seed's shared-memory kernel), guarded at
 *                   the edges so any size works;
 *   matmul_blocked  register blocking: a MM_WG_X x MM_WG_Y work-group
 *                   computes a BM x BN block of C (BM = MM_TM * MM_WG_Y,
 *                   BN = MM_TN * MM_WG_X), each work-item MM_TM x MM_TN
 *                   elements kept in registers, from local tiles of A
 *                   (BM x MM_TK, stored transposed) and B (MM_TK x BN)
 *                   loaded cooperatively with float4 reads. It has no edge
 *                   guards: the host pads m to BM, n to BN and k to MM_TK.
 *
 * Work-item (tx, ty) of the blocked kernel owns float4-wide strips of the
 * block: rows 4 ty + 4 i MM_WG_Y + (0..3) and columns 4 tx + 4 j MM_WG_X +
 * (0..3). Each step of k then reads its strips of A's column and B's row
 * from local memory as float4s, a quarter of the reads of scalar strips
 * and much faster on a GPU (bench/RESULTS.md, Matrix multiplication);
 * work-items next to each other read neighbouring float4s of B (no bank
 * conflicts) and the same ones of A (broadcast), and write neighbouring
 * float4s of C. The next step's tiles are read into registers while this
 * step's are multiplied; local memory holds one step's tiles, which was
 * faster on a GPU than two copies with one barrier a step instead of
 * two. */

__kernel void matmul_naive(__global const float *a, __global const float *b,
                           __global float *c, uint m, uint k, uint n)
{
    size_t col = get_global_id(0), row = get_global_id(1);
    if (row >= m || col >= n)
        return;
    float sum = 0;
    for (size_t p = 0; p < k; p++)
        sum += a[row * k + p] * b[p * n + col];
    c[row * n + col] = sum;
}

#define MM_TS 16

__kernel __attribute__((reqd_work_group_size(MM_TS, MM_TS, 1)))
void matmul_tiled(__global const float *a, __global const float *b,
                  __global float *c, uint m, uint k, uint n)
{
    __local float as[MM_TS][MM_TS];
    __local float bs[MM_TS][MM_TS];
    size_t tx = get_local_id(0), ty = get_local_id(1);
    size_t col = get_global_id(0), row = get_global_id(1);
    float sum = 0;
    for (size_t p0 = 0; p0 < k; p0 += MM_TS) {
        /* Every work-item loads (zeros outside the matrices) and reaches
         * both barriers, including those past the edge of C. */
        as[ty][tx] = row < m && p0 + tx < k ? a[row * k + p0 + tx] : 0.0f;
        bs[ty][tx] = p0 + ty < k && col < n ? b[(p0 + ty) * n + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int p = 0; p < MM_TS; p++)
            sum += as[ty][p] * bs[p][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < m && col < n)
        c[row * n + col] = sum;
}

#ifdef MM_TM    /* the host builds the blocked kernel with its tile */

#if MM_TM % 4 || MM_TN % 4 || MM_TK % 4 || MM_PAD % 4
#error "matmul_blocked: MM_TM, MM_TN, MM_TK and MM_PAD must be multiples of 4"
#endif

#define MM_BM (MM_TM * MM_WG_Y)
#define MM_BN (MM_TN * MM_WG_X)
#define MM_THREADS (MM_WG_X * MM_WG_Y)
#define MM_AS_ROW4 ((MM_BM + MM_PAD) / 4)  /* float4s in a transposed A row */
#define MM_BS_ROW4 (MM_BN / 4)

/* float4s of the A and B tiles each work-item moves per step (the last
 * round may leave some work-items without one). */
#define MM_A_VECS (MM_BM * MM_TK / 4)
#define MM_B_VECS (MM_TK * MM_BN / 4)
#define MM_A_LOADS ((MM_A_VECS + MM_THREADS - 1) / MM_THREADS)
#define MM_B_LOADS ((MM_B_VECS + MM_THREADS - 1) / MM_THREADS)

/* Reads this work-item's share of the tiles at depth p0. A: BM rows of
 * MM_TK floats, float4 along k (four work-items cover 64 contiguous bytes
 * of a row when MM_TK = 16); B: MM_TK rows of BN floats, consecutive
 * work-items reading consecutive float4s (coalesced). */
static void load_tiles(__global const float *ablock,
                       __global const float *bblock, uint k, uint n,
                       size_t p0, int tid, float4 *anext, float4 *bnext)
{
    for (int l = 0; l < MM_A_LOADS; l++) {
        int id = tid + l * MM_THREADS;
        if (id < MM_A_VECS) {
            int r = id / (MM_TK / 4), q = id % (MM_TK / 4);
            anext[l] = vload4(0, ablock + r * (size_t)k + p0 + 4 * q);
        }
    }
    for (int l = 0; l < MM_B_LOADS; l++) {
        int id = tid + l * MM_THREADS;
        if (id < MM_B_VECS) {
            int r = id / (MM_BN / 4), q = id % (MM_BN / 4);
            bnext[l] = vload4(0, bblock + (p0 + r) * n + 4 * q);
        }
    }
}

/* Stores what load_tiles read: A transposed, so that the inner loop reads
 * a column of it as rows of float4s, B as it is. */
static void store_tiles(__local float *as, __local float4 *bs, int tid,
                        const float4 *anext, const float4 *bnext)
{
    for (int l = 0; l < MM_A_LOADS; l++) {
        int id = tid + l * MM_THREADS;
        if (id < MM_A_VECS) {
            int r = id / (MM_TK / 4), q = id % (MM_TK / 4);
            __local float *col = as + 4 * q * (4 * MM_AS_ROW4) + r;
            col[0 * 4 * MM_AS_ROW4] = anext[l].x;
            col[1 * 4 * MM_AS_ROW4] = anext[l].y;
            col[2 * 4 * MM_AS_ROW4] = anext[l].z;
            col[3 * 4 * MM_AS_ROW4] = anext[l].w;
        }
    }
    for (int l = 0; l < MM_B_LOADS; l++) {
        int id = tid + l * MM_THREADS;
        if (id < MM_B_VECS)
            bs[id] = bnext[l];
    }
}

/* acc[i][j] += a[i] * b[j] for the 4 x 4 products of two float4s. */
#define MM_OUTER4(acc, i, j, a, b) do {                                      \
        acc[i + 0][j / 4] = mad((float4)(a).x, b, acc[i + 0][j / 4]);       \
        acc[i + 1][j / 4] = mad((float4)(a).y, b, acc[i + 1][j / 4]);       \
        acc[i + 2][j / 4] = mad((float4)(a).z, b, acc[i + 2][j / 4]);       \
        acc[i + 3][j / 4] = mad((float4)(a).w, b, acc[i + 3][j / 4]);       \
    } while (0)

/* k and n are multiples of MM_TK and MM_BN (so of 4: every float4 read is
 * aligned), m of MM_BM; the global size is (n / MM_TN, m / MM_TM). */
__kernel __attribute__((reqd_work_group_size(MM_WG_X, MM_WG_Y, 1)))
void matmul_blocked(__global const float *a, __global const float *b,
                    __global float *c, uint m, uint k, uint n)
{
    __local float4 as[MM_TK * MM_AS_ROW4];
    __local float4 bs[MM_TK * MM_BS_ROW4];
    const int tx = get_local_id(0), ty = get_local_id(1);
    const int tid = ty * MM_WG_X + tx;
    /* From the global id, not the group's: a chunked call (matmul_cl.c)
     * runs row panels with a global offset, which group ids leave out. */
    const size_t row0 = get_global_id(1) / MM_WG_Y * (size_t)MM_BM;
    const size_t col0 = get_group_id(0) * (size_t)MM_BN;
    __global const float *ablock = a + row0 * k;
    __global const float *bblock = b + col0;

    /* acc[i][j]: row 4 ty + (i % 4) + 4 (i / 4) MM_WG_Y of the block,
     * columns 4 tx + 4 j MM_WG_X + (0..3). */
    float4 acc[MM_TM][MM_TN / 4];
    for (int i = 0; i < MM_TM; i++)
        for (int j = 0; j < MM_TN / 4; j++)
            acc[i][j] = 0.0f;

    /* The next step's tiles are read from global memory into registers
     * while this step's are multiplied from local memory, so the wait for
     * global memory overlaps arithmetic. (Storing them at the top of the
     * loop instead, the same sequence of steps, is slower on a GPU: the
     * compiler schedules the two differently.) */
    float4 anext[MM_A_LOADS], bnext[MM_B_LOADS];
    load_tiles(ablock, bblock, k, n, 0, tid, anext, bnext);
    store_tiles((__local float *)as, bs, tid, anext, bnext);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t p0 = 0; p0 < k; p0 += MM_TK) {
        int more = p0 + MM_TK < k;
        if (more)
            load_tiles(ablock, bblock, k, n, p0 + MM_TK, tid, anext, bnext);

#pragma unroll
        for (int p = 0; p < MM_TK; p++) {
            float4 ar[MM_TM / 4], br[MM_TN / 4];
            for (int i = 0; i < MM_TM / 4; i++)
                ar[i] = as[p * MM_AS_ROW4 + ty + i * MM_WG_Y];
            for (int j = 0; j < MM_TN / 4; j++)
                br[j] = bs[p * MM_BS_ROW4 + tx + j * MM_WG_X];
            for (int i = 0; i < MM_TM / 4; i++)
                for (int j = 0; j < MM_TN / 4; j++)
                    MM_OUTER4(acc, 4 * i, 4 * j, ar[i], br[j]);
        }
        /* Every work-item is done with the tiles before they are
         * overwritten, and the new ones are stored before they are read. */
        barrier(CLK_LOCAL_MEM_FENCE);
        if (more)
            store_tiles((__local float *)as, bs, tid, anext, bnext);
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    for (int i = 0; i < MM_TM; i++) {
        size_t row = row0 + 4 * ty + i % 4 + 4 * (i / 4) * MM_WG_Y;
        __global float *crow = c + row * n + col0 + 4 * tx;
        for (int j = 0; j < MM_TN / 4; j++)
            vstore4(acc[i][j], 0, crow + 4 * j * MM_WG_X);
    }
}

#endif /* MM_TM */
