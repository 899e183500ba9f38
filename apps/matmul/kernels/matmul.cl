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
 * two. That, and other arrangements (warp tiles, A's tile in rows), are
 * variants of it, chosen at build time (MM_DOUBLE, MM_LANES_X, MM_A_ROWS:
 * the comment above matmul_blocked), so that a tuning sweep compares
 * them. */

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

/* The variant (matmul.h's flags; each 0 is the original kernel):
 * MM_DOUBLE 1 keeps two local copies of the tiles, MM_LANES_X 8 or 4
 * arranges work-items in warp tiles of that many lanes along n, MM_A_ROWS 1
 * keeps A's tile in rows along k. See the comment above matmul_blocked. */
#ifndef MM_DOUBLE
#define MM_DOUBLE 0
#endif
#ifndef MM_LANES_X
#define MM_LANES_X 0
#endif
#ifndef MM_A_ROWS
#define MM_A_ROWS 0
#endif

#if MM_TM % 4 || MM_TN % 4 || MM_TK % 4 || MM_PAD % 4
#error "matmul_blocked: MM_TM, MM_TN, MM_TK and MM_PAD must be multiples of 4"
#endif

#define MM_BM (MM_TM * MM_WG_Y)
#define MM_BN (MM_TN * MM_WG_X)
#define MM_THREADS (MM_WG_X * MM_WG_Y)

/* Work-item slots: a work-item's strips of columns are MM_SLOTS_X float4s
 * apart, its strips of rows MM_SLOTS_Y slots apart. */
#if MM_LANES_X
#if 32 % MM_LANES_X || MM_WG_X % MM_LANES_X || MM_WG_Y % (32 / MM_LANES_X)
#error "matmul_blocked: a warp tile's lanes must divide 32, MM_WG_X and MM_WG_Y"
#endif
#define MM_LANES_Y (32 / MM_LANES_X)
#define MM_SLOTS_X MM_LANES_X
#define MM_SLOTS_Y MM_LANES_Y
#else
#define MM_SLOTS_X MM_WG_X
#define MM_SLOTS_Y MM_WG_Y
#endif

/* One copy of the local tiles, in float4s. A transposed: MM_TK rows of
 * MM_BM + MM_PAD floats; A in rows: MM_BM rows of MM_TK + MM_PAD floats;
 * B: MM_TK rows of MM_BN floats. */
#define MM_AS_ROW4 ((MM_BM + MM_PAD) / 4)  /* float4s in a transposed A row */
#define MM_AK_ROW4 ((MM_TK + MM_PAD) / 4)  /* float4s in a row of A, in rows */
#define MM_BS_ROW4 (MM_BN / 4)
#if MM_A_ROWS
#define MM_A_TILE4 (MM_BM * MM_AK_ROW4)
#else
#define MM_A_TILE4 (MM_TK * MM_AS_ROW4)
#endif
#define MM_B_TILE4 (MM_TK * MM_BS_ROW4)
#define MM_COPIES (MM_DOUBLE ? 2 : 1)

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

/* Stores what load_tiles read into one copy of the tiles: A transposed, so
 * that the inner loop reads a column of it as rows of float4s, four
 * scalar stores a float4 (or, in rows, the float4 as it was read); B as it
 * is. */
static void store_tiles(__local float4 *as, __local float4 *bs, int tid,
                        const float4 *anext, const float4 *bnext)
{
    for (int l = 0; l < MM_A_LOADS; l++) {
        int id = tid + l * MM_THREADS;
        if (id < MM_A_VECS) {
            int r = id / (MM_TK / 4), q = id % (MM_TK / 4);
#if MM_A_ROWS
            as[r * MM_AK_ROW4 + q] = anext[l];
#else
            __local float *col = (__local float *)as +
                                 4 * q * (4 * MM_AS_ROW4) + r;
            col[0 * 4 * MM_AS_ROW4] = anext[l].x;
            col[1 * 4 * MM_AS_ROW4] = anext[l].y;
            col[2 * 4 * MM_AS_ROW4] = anext[l].z;
            col[3 * 4 * MM_AS_ROW4] = anext[l].w;
#endif
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

/* With A in rows: acc[i][j] += ar[i].s * b[j] for depth p of the tile,
 * s the component of ar (A's rows at depths p - p % 4 .. p - p % 4 + 3)
 * that holds depth p, b[j] the work-item's strips of B's row p (from
 * float4 column cx). */
#define MM_ROWS_STEP(acc, ar, bt, p, s, cx) do {                             \
        float4 br[MM_TN / 4];                                                \
        for (int j = 0; j < MM_TN / 4; j++)                                  \
            br[j] = bt[(p) * MM_BS_ROW4 + (cx) + j * MM_SLOTS_X];            \
        for (int i = 0; i < MM_TM; i++)                                      \
            for (int j = 0; j < MM_TN / 4; j++)                              \
                acc[i][j] = mad((float4)ar[i].s, br[j], acc[i][j]);         \
    } while (0)

/* k and n are multiples of MM_TK and MM_BN (so of 4: every float4 read is
 * aligned), m of MM_BM; the global size is (n / MM_TN, m / MM_TM).
 *
 * Which work-item owns which elements of the block. Each owns MM_TM rows
 * and MM_TN columns of it, the columns as float4 strips: columns 4 cx +
 * 4 j MM_SLOTS_X + (0..3). Its rows are float4 strips too, rows 4 ry +
 * 4 (i / 4) MM_SLOTS_Y + i % 4, where A's tile is transposed; single rows
 * ry + i MM_SLOTS_Y where A's tile is in rows.
 *
 *   Strips (MM_LANES_X 0, the original): cx = tx and ry = ty, so the strips
 *   are 4 MM_WG_X columns and 4 MM_WG_Y rows apart across the whole block.
 *   A warp (32 consecutive linear ids, tid = ty MM_WG_X + tx) of a 16-wide
 *   group is 16 x 2 work-items: each step of k it reads 16 distinct float4s
 *   of B's row (256 bytes, two passes of the banks) and 2 of A's column.
 *
 *   Warp tiles (MM_LANES_X 8 or 4): lane tid % 32 is (lane % MM_LANES_X,
 *   lane / MM_LANES_X) in a MM_LANES_X x MM_LANES_Y grid, and warp tid / 32
 *   owns its own sub-block of C, (MM_TM MM_LANES_Y) x (MM_TN MM_LANES_X),
 *   the warps side by side in the block (MM_WG_X / MM_LANES_X of them
 *   across). Within it a lane's strips are MM_LANES_X float4s of columns
 *   and MM_LANES_Y of rows apart. With 8 x 8 per work-item and 8 x 4 lanes
 *   a warp covers 32 x 64: lane (lx, ly) has columns 4 lx + (0..3) and
 *   32 + 4 lx + (0..3), rows 4 ly + (0..3) and 16 + 4 ly + (0..3). Each
 *   read of B's row is then 8 distinct consecutive float4s (128 bytes: one
 *   pass, no bank conflict), each of A's column 4, broadcast to the 8
 *   lanes of a row; 4 x 8 lanes (64 x 32) swap the two.
 *
 * The tiles' copies. One copy (MM_DOUBLE 0): the next step's tiles are
 * read from global memory into registers while this step's are
 * multiplied, then stored over them between two barriers (every work-item
 * is done with the old tiles before they are overwritten, and the new ones
 * are stored before they are read). Two copies (MM_DOUBLE 1): the next
 * step's tiles go to the other copy, last read in the previous step, which
 * every work-item finished before the last barrier; so one barrier a step
 * suffices, and work-items that finish multiplying store without waiting.
 *
 * A's tile. Transposed (MM_A_ROWS 0): row p of it holds depth p of the
 * block's BM rows, so a step of k reads a work-item's rows as float4
 * strips; but each float4 read along k from global memory is stored as
 * four scalars. In rows (MM_A_ROWS 1): as read, one float4 store, rows of
 * MM_TK + MM_PAD floats; the inner loop then reads 4 depths of each of a
 * work-item's MM_TM rows as one float4 and runs four steps of k from them,
 * the same number of local reads. Its rows are single, MM_SLOTS_Y apart,
 * so that the lanes of a warp read consecutive rows, whose float4s fall
 * in distinct banks when MM_TK + MM_PAD is an odd multiple of 4 (PAD 4
 * with TK 8 or 16).
 *
 * Every variant sums each element of C in the same order, k ascending, by
 * the same fused multiply-adds. */
__kernel __attribute__((reqd_work_group_size(MM_WG_X, MM_WG_Y, 1)))
void matmul_blocked(__global const float *a, __global const float *b,
                    __global float *c, uint m, uint k, uint n)
{
    __local float4 as[MM_COPIES * MM_A_TILE4];
    __local float4 bs[MM_COPIES * MM_B_TILE4];
    const int tx = get_local_id(0), ty = get_local_id(1);
    const int tid = ty * MM_WG_X + tx;
    /* From the global id, not the group's: a chunked call (matmul_cl.c)
     * runs row panels with a global offset, which group ids leave out. */
    const size_t row0 = get_global_id(1) / MM_WG_Y * (size_t)MM_BM;
    const size_t col0 = get_group_id(0) * (size_t)MM_BN;
    __global const float *ablock = a + row0 * k;
    __global const float *bblock = b + col0;

    /* The work-item's slots (see above). */
#if MM_LANES_X
    const int lane = tid % 32, warp = tid / 32;
    const int warp_x = warp % (MM_WG_X / MM_LANES_X);
    const int warp_y = warp / (MM_WG_X / MM_LANES_X);
    const int cx = warp_x * (MM_TN / 4) * MM_LANES_X + lane % MM_LANES_X;
#if MM_A_ROWS
    const int ry = warp_y * MM_TM * MM_LANES_Y + lane / MM_LANES_X;
#else
    const int ry = warp_y * (MM_TM / 4) * MM_LANES_Y + lane / MM_LANES_X;
#endif
#else
    const int cx = tx, ry = ty;
#endif

    /* acc[i][j]: the work-item's row i, its columns 4 j .. 4 j + 3. */
    float4 acc[MM_TM][MM_TN / 4];
    for (int i = 0; i < MM_TM; i++)
        for (int j = 0; j < MM_TN / 4; j++)
            acc[i][j] = 0.0f;

    /* The next step's tiles are read from global memory into registers
     * while this step's are multiplied, so the wait for global memory
     * overlaps arithmetic. (Storing them at the top of the loop instead,
     * the same sequence of steps, is slower on a GPU: the compiler
     * schedules the two differently.) */
    float4 anext[MM_A_LOADS], bnext[MM_B_LOADS];
    load_tiles(ablock, bblock, k, n, 0, tid, anext, bnext);
    store_tiles(as, bs, tid, anext, bnext);
    barrier(CLK_LOCAL_MEM_FENCE);
#if MM_DOUBLE
    int copy = 0;                   /* the copy this step's tiles are in */
#endif
    for (size_t p0 = 0; p0 < k; p0 += MM_TK) {
        int more = p0 + MM_TK < k;
        if (more)
            load_tiles(ablock, bblock, k, n, p0 + MM_TK, tid, anext, bnext);
#if MM_DOUBLE
        __local const float4 *at = as + copy * MM_A_TILE4;
        __local const float4 *bt = bs + copy * MM_B_TILE4;
#else
        __local const float4 *at = as, *bt = bs;
#endif

#if MM_A_ROWS
#pragma unroll
        for (int p = 0; p < MM_TK; p += 4) {
            float4 ar[MM_TM];
            for (int i = 0; i < MM_TM; i++)
                ar[i] = at[(ry + i * MM_SLOTS_Y) * MM_AK_ROW4 + p / 4];
            MM_ROWS_STEP(acc, ar, bt, p + 0, x, cx);
            MM_ROWS_STEP(acc, ar, bt, p + 1, y, cx);
            MM_ROWS_STEP(acc, ar, bt, p + 2, z, cx);
            MM_ROWS_STEP(acc, ar, bt, p + 3, w, cx);
        }
#else
#pragma unroll
        for (int p = 0; p < MM_TK; p++) {
            float4 ar[MM_TM / 4], br[MM_TN / 4];
            for (int i = 0; i < MM_TM / 4; i++)
                ar[i] = at[p * MM_AS_ROW4 + ry + i * MM_SLOTS_Y];
            for (int j = 0; j < MM_TN / 4; j++)
                br[j] = bt[p * MM_BS_ROW4 + cx + j * MM_SLOTS_X];
            for (int i = 0; i < MM_TM / 4; i++)
                for (int j = 0; j < MM_TN / 4; j++)
                    MM_OUTER4(acc, 4 * i, 4 * j, ar[i], br[j]);
        }
#endif

#if MM_DOUBLE
        copy ^= 1;
        if (more)
            store_tiles(as + copy * MM_A_TILE4, bs + copy * MM_B_TILE4, tid,
                        anext, bnext);
        barrier(CLK_LOCAL_MEM_FENCE);
#else
        barrier(CLK_LOCAL_MEM_FENCE);
        if (more)
            store_tiles(as, bs, tid, anext, bnext);
        barrier(CLK_LOCAL_MEM_FENCE);
#endif
    }

    for (int i = 0; i < MM_TM; i++) {
#if MM_A_ROWS
        size_t row = row0 + ry + i * MM_SLOTS_Y;
#else
        size_t row = row0 + 4 * ry + i % 4 + 4 * (i / 4) * MM_SLOTS_Y;
#endif
        __global float *crow = c + row * n + col0 + 4 * cx;
        for (int j = 0; j < MM_TN / 4; j++)
            vstore4(acc[i][j], 0, crow + 4 * j * MM_SLOTS_X);
    }
}

#endif /* MM_TM */
