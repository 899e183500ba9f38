/* split.c: the split of a grid's rows over ranks (slab_split_depth,
 * slab_split_rows) that step_world_mpi and laplace_mpi add on top of the
 * single-device programs' readers (fuzz-heat-world has the world's,
 * fuzz-common-png and fuzz-common-numbers Laplace's mask and options).
 * The input is a shape as the header of a world gives it and a job's rank
 * count and halo depth: width and height (4 bytes each), ranks (2, taken
 * modulo 4097) and the depth asked for (4), little-endian. A grid the
 * split takes must give every rank at least a row and at least as many as
 * the halos are deep, the ranks' rows in order covering the grid once,
 * halos inside the grid and inside the neighbours' rows, and counts of
 * rows that MPI's int holds; small grids are scattered into buffers of
 * each rank's exact size and gathered back, as slab.c does over MPI. */
#include "fuzz.h"
#include "mpi/split.h"

#include <limits.h>
#include <stdio.h>

/* Enough ranks for every case of the rule, few enough that checking each
 * rank leaves time for many inputs a second. */
enum { MAX_RANKS = 4096 };

static uint32_t take(const uint8_t **p, int bytes)
{
    uint32_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint32_t)(*p)[i] << (8 * i);
    *p += bytes;
    return v;
}

static void fail(const char *what, uint32_t w, uint32_t h, int ranks,
                 uint32_t depth, int r)
{
    fprintf(stderr, "split of %u x %u over %d ranks, depth %u, rank %d: "
            "%s\n", w, h, ranks, depth, r, what);
    abort();
}

/* Rank 0 sends each rank its rows and halos (slab_scatter), each steps
 * them, and rank 0 takes their owned rows back (slab_gather): here each
 * row holds its global index, a rank's buffer is exactly its rows, and
 * the grid gathered must be the grid scattered. */
static void scatter_and_gather(uint32_t w, uint32_t h, int ranks,
                               uint32_t depth)
{
    size_t cells = (size_t)w * h;
    uint32_t *whole = malloc(cells * sizeof *whole);
    uint32_t *back = calloc(cells, sizeof *back);
    for (size_t i = 0; whole && i < cells; i++)
        whole[i] = (uint32_t)(i / w);
    for (int r = 0; whole && back && r < ranks; r++) {
        slab_rows s = slab_split_rows(h, ranks, depth, r);
        size_t local = (size_t)(s.above + s.rows + s.below) * w;
        uint32_t *part = malloc(local * sizeof *part);
        if (!part)
            break;
        memcpy(part, whole + (size_t)(s.first - s.above) * w,
               local * sizeof *part);
        for (size_t i = 0; i < local; i++)
            if (part[i] != s.first - s.above + (uint32_t)(i / w))
                fail("a row scattered is not the grid's", w, h, ranks,
                     depth, r);
        memcpy(back + (size_t)s.first * w, part + (size_t)s.above * w,
               (size_t)s.rows * w * sizeof *part);
        free(part);
    }
    if (whole && back && memcmp(whole, back, cells * sizeof *back) != 0)
        fail("the grid gathered is not the grid scattered", w, h, ranks,
             depth, -1);
    free(whole);
    free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 14)
        return 0;
    uint32_t w = take(&data, 4), h = take(&data, 4);
    int ranks = (int)(take(&data, 2) % (MAX_RANKS + 1));
    unsigned max_depth = take(&data, 4);
    if (ranks == 0 || max_depth == 0)
        return 0;               /* MPI has a rank; slab_plan asks 1 or more */
    uint32_t depth;
    if (slab_split_depth(w, h, ranks, max_depth, &depth) != 0)
        return 0;
    if (depth == 0 || depth > max_depth)
        fail("the depth is not 1 to the depth asked", w, h, ranks, depth, -1);
    uint32_t next = 0;
    slab_rows before = {0, 0, 0, 0};
    for (int r = 0; r < ranks; r++) {
        slab_rows s = slab_split_rows(h, ranks, depth, r);
        if (s.first != next || s.rows == 0)
            fail("the rows do not follow the last rank's", w, h, ranks,
                 depth, r);
        if (ranks > 1 && s.rows < depth)
            fail("fewer rows than the halos send", w, h, ranks, depth, r);
        if (s.above != (r > 0 ? depth : 0) ||
            s.below != (r < ranks - 1 ? depth : 0))
            fail("the halos are not depth deep inside, 0 at the ends", w, h,
                 ranks, depth, r);
        if (s.first < s.above || (uint64_t)s.first + s.rows + s.below > h)
            fail("the halos reach outside the grid", w, h, ranks, depth, r);
        if (r > 0 && s.first - s.above < before.first)
            fail("the halo above is not the rank above's rows", w, h, ranks,
                 depth, r);
        if (r > 0 && (uint64_t)s.above + s.rows + s.below > INT_MAX)
            fail("more rows than MPI counts in an int", w, h, ranks, depth,
                 r);
        next = s.first + s.rows;
        before = s;
    }
    if (next != h)
        fail("the ranks' rows do not end at the grid's", w, h, ranks, depth,
             -1);
    if ((uint64_t)w * h <= 1u << 14)
        scatter_and_gather(w, h, ranks, depth);
    return 0;
}
