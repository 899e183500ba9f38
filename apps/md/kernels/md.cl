/*
 * md/md.cl: molecular dynamics on the device, in float (apps/md/md_cl.c
 * calls them). Positions, velocities and forces are float4 (w unused, 16
 * bytes a load); each step is velocity-Verlet:
 *
 *   md_kick_drift[_bin]  v += dt/2 f, x += dt v, wrapped into the box
 *                        (_bin also counts the particle into its cell);
 *   md_cell_scan         exclusive prefix sum of the counts: cell starts
 *                        (with md_block_sums and md_block_starts when
 *                        there are many cells);
 *   md_cell_scatter      each particle's position into its cell's range of
 *                        cell_pos, its index in w: a counting sort;
 *   md_force_*           the forces, each particle's potential energy, and
 *                        the second half-kick v += dt/2 f.
 *
 * Three force kernels: all pairs (tiles in local memory), one work-item
 * per particle over the 27 cells around its own (the seed's first method),
 * and one work-group per cell, staging the particles of the 27 cells in
 * local memory (the seed's second).
 *
 * Build options: MD_ALLPAIRS_GROUP, MD_CELL_GROUP (local sizes) and
 * MD_STAGE (particles staged at a time by md_force_cell).
 */
#include "md_force.h"

/* Velocity-Verlet's first half for particle i; the new position. */
static float4 kick_drift(uint i, __global float4 *pos, __global float4 *vel,
                         __global const float4 *force, float dt, float box)
{
    float4 v = vel[i] + 0.5f * dt * force[i];
    float4 x = pos[i] + dt * v;
    x = (float4)(md_wrap(x.x, box), md_wrap(x.y, box), md_wrap(x.z, box),
                 0.0f);
    vel[i] = v;
    pos[i] = x;
    return x;
}

/* Counts the particle at x into its cell; the cell's index. */
static int bin(float4 x, float cells_per_length, int nc,
               __global int *counts)
{
    int c = md_cell_index(md_cell_coord(x.x, cells_per_length, nc),
                          md_cell_coord(x.y, cells_per_length, nc),
                          md_cell_coord(x.z, cells_per_length, nc), nc);
    atomic_inc(&counts[c]);
    return c;
}

__kernel void md_kick_drift(__global float4 *pos, __global float4 *vel,
                            __global const float4 *force, uint n, float dt,
                            float box)
{
    uint i = get_global_id(0);
    if (i < n)
        kick_drift(i, pos, vel, force, dt, box);
}

__kernel void md_kick_drift_bin(__global float4 *pos, __global float4 *vel,
                                __global const float4 *force, uint n,
                                float dt, float box,
                                float cells_per_length, int nc,
                                __global int *cell_of, __global int *counts)
{
    uint i = get_global_id(0);
    if (i < n) {
        float4 x = kick_drift(i, pos, vel, force, dt, box);
        cell_of[i] = bin(x, cells_per_length, nc, counts);
    }
}

/* The binning alone, before the first step. */
__kernel void md_bin(__global const float4 *pos, uint n,
                     float cells_per_length, int nc, __global int *cell_of,
                     __global int *counts)
{
    uint i = get_global_id(0);
    if (i < n)
        cell_of[i] = bin(pos[i], cells_per_length, nc, counts);
}

/* ---- the cells' starts: an exclusive prefix sum of their counts -------
 *
 * A list of at most a block of cells is scanned by md_cell_scan alone. A
 * longer one (a 4M-particle box has 300 000 cells) in three launches:
 * md_block_sums adds up each block, md_cell_scan scans those sums, and
 * md_block_starts scans each block from its start. The middle one is a
 * single work-group, but over a block's worth fewer numbers: a single
 * group over all the cells was a large share of a step of millions of
 * particles on a GPU (bench/RESULTS.md, Molecular dynamics). */

/* The exclusive prefix of x over the work-group (scratch: a local int per
 * work-item); *total gets the group's sum. */
static int group_exclusive_scan(int x, __local int *scratch, int *total)
{
    int lid = get_local_id(0), group = get_local_size(0);
    scratch[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int d = 1; d < group; d *= 2) {
        int left = lid >= d ? scratch[lid - d] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        scratch[lid] += left;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    int inclusive = scratch[lid];
    *total = scratch[group - 1];
    barrier(CLK_LOCAL_MEM_FENCE);           /* scratch free again */
    return inclusive - x;
}

/* One work-group (a power of two in size): each work-item sums a run of
 * consecutive counts, the group scans those sums, and each work-item
 * writes its run's exclusive starts; starts[n] is the total. */
__kernel void md_cell_scan(__global const int *counts, __global int *starts,
                           int n, __local int *scratch)
{
    int lid = get_local_id(0), group = get_local_size(0);
    int per = (n + group - 1) / group;
    int lo = min(lid * per, n), hi = min(lo + per, n);
    int own = 0, total;
    for (int c = lo; c < hi; c++)
        own += counts[c];
    int offset = group_exclusive_scan(own, scratch, &total);
    for (int c = lo; c < hi; c++) {
        starts[c] = offset;
        offset += counts[c];
    }
    if (lid == group - 1)
        starts[n] = total;
}

/* Block g's sum of counts: one work-item a cell. */
__kernel void md_block_sums(__global const int *counts, int ncells,
                            __global int *sums, __local int *scratch)
{
    int c = get_global_id(0), total;
    group_exclusive_scan(c < ncells ? counts[c] : 0, scratch, &total);
    if (get_local_id(0) == 0)
        sums[get_group_id(0)] = total;
}

/* The starts of block g's cells, from block_starts[g] (md_cell_scan of
 * the block sums); the last cell's work-item writes the total. */
__kernel void md_block_starts(__global const int *counts, int ncells,
                              __global const int *block_starts,
                              __global int *starts, __local int *scratch)
{
    int c = get_global_id(0), total;
    int x = c < ncells ? counts[c] : 0;
    int at = block_starts[get_group_id(0)] +
             group_exclusive_scan(x, scratch, &total);
    if (c < ncells)
        starts[c] = at;
    if (c == ncells - 1)
        starts[ncells] = at + x;
}

/* Places particle i in its cell's range. Counting down leaves every count
 * at 0, ready for the next step's binning. The order inside a cell is the
 * atomics' (forces are summed in that order: float results vary in the
 * last bits from run to run). */
__kernel void md_cell_scatter(__global const float4 *pos, uint n,
                              __global const int *cell_of,
                              __global const int *starts,
                              __global int *counts,
                              __global float4 *cell_pos)
{
    uint i = get_global_id(0);
    if (i < n) {
        int c = cell_of[i];
        int slot = starts[c] + atomic_dec(&counts[c]) - 1;
        float4 x = pos[i];
        cell_pos[slot] = (float4)(x.x, x.y, x.z, as_float((int)i));
    }
}

/* Adds the pair (xi, xj) to the force f and energy sum u. */
static void add_pair(float4 xi, float4 xj, float box, float4 *f, float *u)
{
    float dx = md_min_image(xi.x - xj.x, box);
    float dy = md_min_image(xi.y - xj.y, box);
    float dz = md_min_image(xi.z - xj.z, box);
    float r2 = dx * dx + dy * dy + dz * dz;
    if (r2 < MD_CUTOFF * MD_CUTOFF) {
        float e;
        float fr = md_pair(r2, &e);
        *f += (float4)(fr * dx, fr * dy, fr * dz, 0.0f);
        *u += e;
    }
}

/* Stores particle i's force and half its pairs' energy (each pair is
 * seen from both ends), and gives it the second half-kick. */
static void finish(uint i, float4 f, float u, __global float4 *vel,
                   __global float4 *force, __global float *pe,
                   float half_dt)
{
    force[i] = f;
    pe[i] = 0.5f * u;
    vel[i] += half_dt * f;
}

/* All pairs: work-item i against every particle, MD_ALLPAIRS_GROUP at a
 * time through local memory. */
__kernel void md_force_allpairs(__global const float4 *pos, uint n,
                                float box, __global float4 *vel,
                                __global float4 *force, __global float *pe,
                                float half_dt)
{
    __local float4 tile[MD_ALLPAIRS_GROUP];
    uint i = get_global_id(0), lid = get_local_id(0);
    float4 xi = i < n ? pos[i] : (float4)(0.0f);
    float4 f = (float4)(0.0f);
    float u = 0.0f;
    for (uint base = 0; base < n; base += MD_ALLPAIRS_GROUP) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (base + lid < n)
            tile[lid] = pos[base + lid];
        barrier(CLK_LOCAL_MEM_FENCE);
        uint m = min((uint)MD_ALLPAIRS_GROUP, n - base);
        for (uint k = 0; k < m; k++)
            if (base + k != i)
                add_pair(xi, tile[k], box, &f, &u);
    }
    if (i < n)
        finish(i, f, u, vel, force, pe, half_dt);
}

/* One work-item per particle, taken in cell order (cell_pos's slots) so
 * that neighbouring work-items read the same cells. */
__kernel void md_force_particle(__global const float4 *cell_pos,
                                __global const int *cell_of,
                                __global const int *starts, uint n, int nc,
                                float box, __global float4 *vel,
                                __global float4 *force, __global float *pe,
                                float half_dt)
{
    uint slot = get_global_id(0);
    if (slot >= n)
        return;
    float4 xi = cell_pos[slot];
    int i = as_int(xi.w);
    int c = cell_of[i];
    int cx = c % nc, cy = c / nc % nc, cz = c / (nc * nc);
    float4 f = (float4)(0.0f);
    float u = 0.0f;
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int nb = md_cell_index(md_cell_neighbour(cx, dx, nc),
                                       md_cell_neighbour(cy, dy, nc),
                                       md_cell_neighbour(cz, dz, nc), nc);
                for (int j = starts[nb]; j < starts[nb + 1]; j++) {
                    float4 xj = cell_pos[j];
                    if (as_int(xj.w) != i)
                        add_pair(xi, xj, box, &f, &u);
                }
            }
    finish((uint)i, f, u, vel, force, pe, half_dt);
}

/* The first slot of the 27 cells around c and their running totals of
 * particles (total[q] counts cells 0..q-1 of the 27). */
static void neighbourhood(int c, int nc, __global const int *starts,
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

/* One work-group per cell: its particles, MD_CELL_GROUP at a time, one a
 * work-item; the particles of the 27 cells around it are staged in local
 * memory MD_STAGE at a time, so any crowding is handled by more rounds. */
__kernel void md_force_cell(__global const float4 *cell_pos,
                            __global const int *starts, int nc, float box,
                            __global float4 *vel, __global float4 *force,
                            __global float *pe, float half_dt)
{
    __local float4 stage[MD_STAGE];
    int c = get_group_id(0), lid = get_local_id(0);
    int first[27], total[28];
    neighbourhood(c, nc, starts, first, total);
    int own_first = starts[c], own_count = starts[c + 1] - own_first;
    for (int own = 0; own < own_count; own += MD_CELL_GROUP) {
        int mine = own + lid < own_count;
        float4 xi = mine ? cell_pos[own_first + own + lid] : (float4)(0.0f);
        int i = as_int(xi.w);
        float4 f = (float4)(0.0f);
        float u = 0.0f;
        for (int base = 0; base < total[27]; base += MD_STAGE) {
            barrier(CLK_LOCAL_MEM_FENCE);
            int q = 0;
            for (int k = base + lid; k < min(base + MD_STAGE, total[27]);
                 k += MD_CELL_GROUP) {
                while (k >= total[q + 1])
                    q++;
                stage[k - base] = cell_pos[first[q] + k - total[q]];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            int m = min(MD_STAGE, total[27] - base);
            for (int k = 0; mine && k < m; k++)
                if (as_int(stage[k].w) != i)
                    add_pair(xi, stage[k], box, &f, &u);
        }
        if (mine)
            finish((uint)i, f, u, vel, force, pe, half_dt);
    }
}
