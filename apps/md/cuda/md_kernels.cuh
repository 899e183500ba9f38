/*
 * md_kernels.cuh: the CUDA twins of the molecular-dynamics kernels that a
 * step of apps/md's cell-list versions runs (apps/md/kernels/md.cl), for
 * bench-cuda-md. Each is the OpenCL kernel of the same name written the
 * CUDA way: the same float4 state (w unused, or a particle's index as int
 * bits in cell_pos), the same loops in the same order, the same float
 * arithmetic (apps/md/kernels/md_force.h's model, in float); __shared__
 * for __local, __syncthreads() for barrier(), atomicAdd/atomicSub for
 * atomic_inc/atomic_dec.
 *
 * A step, as apps/md/md_cl.c enqueues it:
 *
 *   md_kick_drift_bin     v += dt/2 f, x += dt v wrapped, the particle
 *                         counted into its cell;
 *   md_cell_scan          the counts' exclusive prefix sum (one block), or
 *                         for more than 16 blocks of cells md_block_sums,
 *                         md_cell_scan of the blocks' sums, md_block_starts;
 *   md_cell_scatter       the counting sort into cell_pos;
 *   md_force_particle     a thread per particle over the 27 cells, or
 *   md_force_cell         a block per cell, the 27 cells staged in shared
 *                         memory MD_STAGE particles at a time;
 *
 * and md_bin, the binning alone, for the first forces.
 *
 * Arithmetic. md.cl leaves OpenCL C's FP_CONTRACT at its default, ON, so
 * its compiler may fuse a*b+c into fma; nvcc's default -fmad=true does
 * the same, and is kept. Single-precision division: OpenCL allows 2.5
 * ulp, and NVIDIA's compiler divides by a reciprocal and a multiply; nvcc
 * divides exactly by default (-prec-div=true, a slow path called per
 * division), so md.cu.o is built with -prec-div=false, OpenCL's division
 * (one division per pair, in md_pair, and one in md_wrap when a particle
 * leaves the box). nvcc's default slows the cell twin down markedly
 * (bench/RESULTS.md, CUDA twins). Denormals are kept on both sides (no
 * -ftz, no -cl-denorms-are-zero). The app checks its float results
 * against double within a tolerance, never bit for bit.
 *
 * Self-contained, so that NVRTC compiles it alone: MD_CELL_GROUP (the
 * cell kernel's block, 32 by default as md_cl.c's CELL_GROUP) and
 * MD_STAGE (16 particles a thread, 512) may be #defined before it.
 */
#ifndef BENCH_CUDA_MD_KERNELS_CUH
#define BENCH_CUDA_MD_KERNELS_CUH

#ifndef MD_CELL_GROUP
#define MD_CELL_GROUP 32
#endif
#ifndef MD_STAGE
#define MD_STAGE (16 * MD_CELL_GROUP)
#endif

/* ---- the model: apps/md/kernels/md_force.h in float ------------------ */

#define MD_CUTOFF 2.5f
/* U(r0) = 4 (0.4^12 - 0.4^6). */
#define MD_ENERGY_SHIFT (-0.016316891136f)

/* For a pair at squared distance r2 < r0^2: the force over the distance
 * and, in *u, the shifted energy. */
static __device__ inline float md_pair(float r2, float *u)
{
    float inv2 = 1.0f / r2;
    float inv6 = inv2 * inv2 * inv2;
    *u = 4.0f * inv6 * (inv6 - 1.0f) - MD_ENERGY_SHIFT;
    return 24.0f * inv2 * inv6 * (2.0f * inv6 - 1.0f);
}

/* The nearest periodic image of a separation d. */
static __device__ inline float md_min_image(float d, float box)
{
    if (d > 0.5f * box)
        d -= box;
    else if (d < -0.5f * box)
        d += box;
    return d;
}

/* x wrapped into [0, box). */
static __device__ inline float md_wrap(float x, float box)
{
    if (x < 0.0f || x >= box)
        x -= box * floorf(x / box);
    if (x < 0.0f)
        x += box;
    if (x >= box)
        x -= box;
    return x;
}

/* The cell coordinate of x along one axis, clamped into [0, nc). */
static __device__ inline int md_cell_coord(float x, float cells_per_length,
                                           int nc)
{
    float c = x * cells_per_length;
    if (!(c >= 0.0f))
        c = 0.0f;
    if (!(c < (float)nc))
        c = (float)(nc - 1);
    return (int)c;
}

static __device__ inline int md_cell_index(int cx, int cy, int cz, int nc)
{
    return (cz * nc + cy) * nc + cx;
}

/* c + d wrapped into [0, nc), for d in -1..1. */
static __device__ inline int md_cell_neighbour(int c, int d, int nc)
{
    c += d;
    return c < 0 ? c + nc : c >= nc ? c - nc : c;
}

/* get_global_id(0) of a one-dimensional launch. */
static __device__ inline unsigned md_global_id(void)
{
    return blockIdx.x * blockDim.x + threadIdx.x;
}

/* ---- kick, drift, binning ------------------------------------------- */

/* Velocity-Verlet's first half for particle i; the new position. OpenCL's
 * float4 arithmetic, component by component (w too). */
static __device__ inline float4 kick_drift(unsigned i, float4 *pos,
                                           float4 *vel, const float4 *force,
                                           float dt, float box)
{
    float4 f = force[i], v = vel[i], x = pos[i];
    float half = 0.5f * dt;
    v = make_float4(v.x + half * f.x, v.y + half * f.y, v.z + half * f.z,
                    v.w + half * f.w);
    x = make_float4(x.x + dt * v.x, x.y + dt * v.y, x.z + dt * v.z,
                    x.w + dt * v.w);
    x = make_float4(md_wrap(x.x, box), md_wrap(x.y, box), md_wrap(x.z, box),
                    0.0f);
    vel[i] = v;
    pos[i] = x;
    return x;
}

/* Counts the particle at x into its cell; the cell's index. */
static __device__ inline int bin(float4 x, float cells_per_length, int nc,
                                 int *counts)
{
    int c = md_cell_index(md_cell_coord(x.x, cells_per_length, nc),
                          md_cell_coord(x.y, cells_per_length, nc),
                          md_cell_coord(x.z, cells_per_length, nc), nc);
    atomicAdd(&counts[c], 1);
    return c;
}

extern "C" __global__ void md_kick_drift_bin(float4 *pos, float4 *vel,
                                             const float4 *force, unsigned n,
                                             float dt, float box,
                                             float cells_per_length, int nc,
                                             int *cell_of, int *counts)
{
    unsigned i = md_global_id();
    if (i < n) {
        float4 x = kick_drift(i, pos, vel, force, dt, box);
        cell_of[i] = bin(x, cells_per_length, nc, counts);
    }
}

/* The binning alone, before the first step. */
extern "C" __global__ void md_bin(const float4 *pos, unsigned n,
                                  float cells_per_length, int nc,
                                  int *cell_of, int *counts)
{
    unsigned i = md_global_id();
    if (i < n)
        cell_of[i] = bin(pos[i], cells_per_length, nc, counts);
}

/* ---- the cells' starts: an exclusive prefix sum of their counts ------
 *
 * The scratch is the launch's dynamic shared memory, an int per thread:
 * md.cl's __local int *scratch argument. */

/* The exclusive prefix of x over the block; *total gets the block's sum
 * (Hillis-Steele, as md.cl's group_exclusive_scan). */
static __device__ inline int group_exclusive_scan(int x, int *scratch,
                                                  int *total)
{
    int lid = threadIdx.x, group = blockDim.x;
    scratch[lid] = x;
    __syncthreads();
    for (int d = 1; d < group; d *= 2) {
        int left = lid >= d ? scratch[lid - d] : 0;
        __syncthreads();
        scratch[lid] += left;
        __syncthreads();
    }
    int inclusive = scratch[lid];
    *total = scratch[group - 1];
    __syncthreads();                        /* scratch free again */
    return inclusive - x;
}

/* One block (a power of two in size): each thread sums a run of
 * consecutive counts, the block scans those sums, and each thread writes
 * its run's exclusive starts; starts[n] is the total. */
extern "C" __global__ void md_cell_scan(const int *counts, int *starts,
                                        int n)
{
    extern __shared__ int scan_scratch[];
    int lid = threadIdx.x, group = blockDim.x;
    int per = (n + group - 1) / group;
    int lo = min(lid * per, n), hi = min(lo + per, n);
    int own = 0, total;
    for (int c = lo; c < hi; c++)
        own += counts[c];
    int offset = group_exclusive_scan(own, scan_scratch, &total);
    for (int c = lo; c < hi; c++) {
        starts[c] = offset;
        offset += counts[c];
    }
    if (lid == group - 1)
        starts[n] = total;
}

/* Block g's sum of counts: a thread a cell. */
extern "C" __global__ void md_block_sums(const int *counts, int ncells,
                                         int *sums)
{
    extern __shared__ int sums_scratch[];
    int c = (int)md_global_id(), total;
    group_exclusive_scan(c < ncells ? counts[c] : 0, sums_scratch, &total);
    if (threadIdx.x == 0)
        sums[blockIdx.x] = total;
}

/* The starts of block g's cells, from block_starts[g]; the last cell's
 * thread writes the total. */
extern "C" __global__ void md_block_starts(const int *counts, int ncells,
                                           const int *block_starts,
                                           int *starts)
{
    extern __shared__ int starts_scratch[];
    int c = (int)md_global_id(), total;
    int x = c < ncells ? counts[c] : 0;
    int at = block_starts[blockIdx.x] +
             group_exclusive_scan(x, starts_scratch, &total);
    if (c < ncells)
        starts[c] = at;
    if (c == ncells - 1)
        starts[ncells] = at + x;
}

/* Places particle i in its cell's range, counting the cell back down to 0
 * (atomicSub returns the count before, as atomic_dec does). */
extern "C" __global__ void md_cell_scatter(const float4 *pos, unsigned n,
                                           const int *cell_of,
                                           const int *starts, int *counts,
                                           float4 *cell_pos)
{
    unsigned i = md_global_id();
    if (i < n) {
        int c = cell_of[i];
        int slot = starts[c] + atomicSub(&counts[c], 1) - 1;
        float4 x = pos[i];
        cell_pos[slot] = make_float4(x.x, x.y, x.z, __int_as_float((int)i));
    }
}

/* ---- forces ----------------------------------------------------------- */

/* Adds the pair (xi, xj) to the force f and energy sum u. */
static __device__ inline void add_pair(float4 xi, float4 xj, float box,
                                       float4 *f, float *u)
{
    float dx = md_min_image(xi.x - xj.x, box);
    float dy = md_min_image(xi.y - xj.y, box);
    float dz = md_min_image(xi.z - xj.z, box);
    float r2 = dx * dx + dy * dy + dz * dz;
    if (r2 < MD_CUTOFF * MD_CUTOFF) {
        float e;
        float fr = md_pair(r2, &e);
        f->x += fr * dx;
        f->y += fr * dy;
        f->z += fr * dz;
        f->w += 0.0f;
        *u += e;
    }
}

/* Stores particle i's force and half its pairs' energy, and gives it the
 * second half-kick. */
static __device__ inline void finish(unsigned i, float4 f, float u,
                                     float4 *vel, float4 *force, float *pe,
                                     float half_dt)
{
    force[i] = f;
    pe[i] = 0.5f * u;
    float4 v = vel[i];
    vel[i] = make_float4(v.x + half_dt * f.x, v.y + half_dt * f.y,
                         v.z + half_dt * f.z, v.w + half_dt * f.w);
}

/* A thread per particle, taken in cell order (cell_pos's slots). */
extern "C" __global__ void md_force_particle(const float4 *cell_pos,
                                             const int *cell_of,
                                             const int *starts, unsigned n,
                                             int nc, float box, float4 *vel,
                                             float4 *force, float *pe,
                                             float half_dt)
{
    unsigned slot = md_global_id();
    if (slot >= n)
        return;
    float4 xi = cell_pos[slot];
    int i = __float_as_int(xi.w);
    int c = cell_of[i];
    int cx = c % nc, cy = c / nc % nc, cz = c / (nc * nc);
    float4 f = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float u = 0.0f;
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int nb = md_cell_index(md_cell_neighbour(cx, dx, nc),
                                       md_cell_neighbour(cy, dy, nc),
                                       md_cell_neighbour(cz, dz, nc), nc);
                for (int j = starts[nb]; j < starts[nb + 1]; j++) {
                    float4 xj = cell_pos[j];
                    if (__float_as_int(xj.w) != i)
                        add_pair(xi, xj, box, &f, &u);
                }
            }
    finish((unsigned)i, f, u, vel, force, pe, half_dt);
}

/* The first slot of the 27 cells around c and their running totals of
 * particles (total[q] counts cells 0..q-1 of the 27). */
static __device__ inline void neighbourhood(int c, int nc, const int *starts,
                                            int *first, int *total)
{
    int cx = c % nc, cy = c / nc % nc, cz = c / (nc * nc), q = 0;
    total[0] = 0;
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++, q++) {
                int nb = md_cell_index(md_cell_neighbour(cx, dx, nc),
                                       md_cell_neighbour(cy, dy, nc),
                                       md_cell_neighbour(cz, dz, nc), nc);
                first[q] = starts[nb];
                total[q + 1] = total[q] + starts[nb + 1] - starts[nb];
            }
}

/* A block per cell: its particles, MD_CELL_GROUP at a time, one a
 * thread; the particles of the 27 cells around it staged in shared memory
 * MD_STAGE at a time. Launched with blocks of MD_CELL_GROUP threads. */
extern "C" __global__ void md_force_cell(const float4 *cell_pos,
                                         const int *starts, int nc, float box,
                                         float4 *vel, float4 *force,
                                         float *pe, float half_dt)
{
    __shared__ float4 stage[MD_STAGE];
    int c = blockIdx.x, lid = threadIdx.x;
    int first[27], total[28];
    neighbourhood(c, nc, starts, first, total);
    int own_first = starts[c], own_count = starts[c + 1] - own_first;
    for (int own = 0; own < own_count; own += MD_CELL_GROUP) {
        int mine = own + lid < own_count;
        float4 xi = mine ? cell_pos[own_first + own + lid]
                         : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        int i = __float_as_int(xi.w);
        float4 f = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        float u = 0.0f;
        for (int base = 0; base < total[27]; base += MD_STAGE) {
            __syncthreads();
            int q = 0;
            for (int k = base + lid; k < min(base + MD_STAGE, total[27]);
                 k += MD_CELL_GROUP) {
                while (k >= total[q + 1])
                    q++;
                stage[k - base] = cell_pos[first[q] + k - total[q]];
            }
            __syncthreads();
            int m = min(MD_STAGE, total[27] - base);
            for (int k = 0; mine && k < m; k++)
                if (__float_as_int(stage[k].w) != i)
                    add_pair(xi, stage[k], box, &f, &u);
        }
        if (mine)
            finish((unsigned)i, f, u, vel, force, pe, half_dt);
    }
}

#endif /* BENCH_CUDA_MD_KERNELS_CUH */
