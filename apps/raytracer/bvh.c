/*
 * bvh.c: the bounding volume hierarchy over a scene's spheres, built on the
 * host once per scene and walked by apps/raytracer/kernels/render.cl.
 *
 * Top-down, splitting each node where the surface area heuristic says a
 * ray pays least, evaluated over 16 bins of the sphere centres along the
 * node's longest axis (the usual binned SAH). Children of a node are
 * stored next to each other, so a node needs one index; a subtree's spheres
 * are consecutive in the reordered sphere array. Nodes stop splitting at
 * RT_BVH_MAX_DEPTH levels, the device's stack size, whatever they hold.
 *
 * Any finite scene must build, a "sky sphere" of radius 1e20 or 3e38
 * included: areas and bins are computed in double, where no float box's
 * area overflows, and a split is made only when both children get
 * spheres. So a tree over n spheres has at most n leaves and n - 1 inner
 * nodes, and the 2n - 1 nodes allocated always suffice. Where the areas
 * still cannot be compared (a sphere reaching beyond float's range makes a
 * box infinite), the split that halves the spheres most evenly is taken.
 */
#include "raytracer.h"
#include "common/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { BINS = 16, LEAF_SPHERES = 2, MAX_LEAF_SPHERES = 8 };

typedef struct box {
    float lo[3], hi[3];
} box;

static box box_empty(void)
{
    return (box){{INFINITY, INFINITY, INFINITY},
                 {-INFINITY, -INFINITY, -INFINITY}};
}

static void box_grow(box *b, const float lo[3], const float hi[3])
{
    for (int a = 0; a < 3; a++) {
        if (lo[a] < b->lo[a]) b->lo[a] = lo[a];
        if (hi[a] > b->hi[a]) b->hi[a] = hi[a];
    }
}

/* In double: a float box's sides reach 6.8e38, whose square would
 * overflow float. Infinite only for a box with an infinite bound. */
static double box_area(const box *b)
{
    double dx = (double)b->hi[0] - b->lo[0], dy = (double)b->hi[1] - b->lo[1];
    double dz = (double)b->hi[2] - b->lo[2];
    return dx < 0 ? 0 : 2 * (dx * dy + dy * dz + dz * dx);
}

typedef struct builder {
    const cl_float4 *spheres;
    uint32_t *order;              /* sphere indices, permuted in place */
    float (*centre)[3];
    rt_bvh_node *nodes;
    uint32_t n_nodes;
    uint32_t depth;
} builder;

static void sphere_box(const cl_float4 s, float lo[3], float hi[3])
{
    for (int a = 0; a < 3; a++) {
        lo[a] = s.s[a] - s.s[3];
        hi[a] = s.s[a] + s.s[3];
    }
}

static box range_box(const builder *b, uint32_t first, uint32_t count)
{
    box bounds = box_empty();
    for (uint32_t i = first; i < first + count; i++) {
        float lo[3], hi[3];
        sphere_box(b->spheres[b->order[i]], lo, hi);
        box_grow(&bounds, lo, hi);
    }
    return bounds;
}

/* The bin of a centre coordinate c on an axis spanning [lo, lo + extent).
 * In double, where extent (two finite floats apart) is finite. */
static int bin_of(float c, double lo, double extent)
{
    int bin = (int)((c - lo) / extent * BINS);
    return bin < 0 ? 0 : bin >= BINS ? BINS - 1 : bin;
}

/* A split of a node's spheres: those whose centre on axis falls in a bin
 * below bin (of BINS over [lo, lo + extent)) go to the left child. */
typedef struct split {
    int axis, bin;
    double lo, extent;
} split;

/* Where to split spheres first .. first + count - 1, into *best_at, with
 * *cost its SAH cost relative to a leaf's: below 1, the split is worth it;
 * NaN when the areas cannot be compared (an infinite box), and then the
 * split is the most even one. Returns 0 when no split puts spheres on
 * both sides (the centres coincide on every axis, or fall in one bin). */
static int best_split(const builder *b, uint32_t first, uint32_t count,
                      const box *bounds, split *best_at, double *cost)
{
    float clo[3] = {INFINITY, INFINITY, INFINITY};
    float chi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = first; i < first + count; i++)
        for (int a = 0; a < 3; a++) {
            float c = b->centre[b->order[i]][a];
            if (c < clo[a]) clo[a] = c;
            if (c > chi[a]) chi[a] = c;
        }
    int axis = 0;
    for (int a = 1; a < 3; a++)
        if ((double)chi[a] - clo[a] > (double)chi[axis] - clo[axis])
            axis = a;
    double lo = clo[axis], extent = (double)chi[axis] - lo;
    if (!(extent > 0))
        return 0;

    box bin_box[BINS];
    uint32_t bin_count[BINS] = {0};
    for (int i = 0; i < BINS; i++)
        bin_box[i] = box_empty();
    for (uint32_t i = first; i < first + count; i++) {
        uint32_t s = b->order[i];
        int bin = bin_of(b->centre[s][axis], lo, extent);
        float slo[3], shi[3];
        sphere_box(b->spheres[s], slo, shi);
        box_grow(&bin_box[bin], slo, shi);
        bin_count[bin]++;
    }
    /* Sweep from the right for the right sides' areas, then from the left.
     * Only bins with spheres on both sides are candidates; a cost that is
     * infinite or NaN never compares below another. */
    double right_cost[BINS];
    box right = box_empty();
    uint32_t right_n = 0;
    for (int i = BINS - 1; i > 0; i--) {
        box_grow(&right, bin_box[i].lo, bin_box[i].hi);
        right_n += bin_count[i];
        right_cost[i] = box_area(&right) * right_n;
    }
    double best = INFINITY;
    int cheapest = 0, even = 0;
    uint32_t even_gap = UINT32_MAX;
    box left = box_empty();
    uint32_t left_n = 0;
    for (int i = 1; i < BINS; i++) {
        box_grow(&left, bin_box[i - 1].lo, bin_box[i - 1].hi);
        left_n += bin_count[i - 1];
        if (left_n == 0 || left_n == count)
            continue;
        uint32_t gap = left_n > count - left_n ? 2 * left_n - count
                                               : count - 2 * left_n;
        if (gap < even_gap)
            even_gap = gap, even = i;
        double c = box_area(&left) * left_n + right_cost[i];
        if (c < best)
            best = c, cheapest = i;
    }
    if (even == 0)
        return 0;
    *best_at = (split){axis, cheapest ? cheapest : even, lo, extent};
    *cost = cheapest ? best / (box_area(bounds) * count) : NAN;
    return 1;
}

/* Reorders the range so that the left child's spheres come first; returns
 * how many they are. */
static uint32_t partition(builder *b, uint32_t first, uint32_t count,
                          const split *at)
{
    uint32_t i = first, j = first + count;
    while (i < j) {
        float c = b->centre[b->order[i]][at->axis];
        if (bin_of(c, at->lo, at->extent) < at->bin) {
            i++;
        } else {
            uint32_t t = b->order[i];
            b->order[i] = b->order[--j];
            b->order[j] = t;
        }
    }
    return i - first;
}

static void build_node(builder *b, uint32_t node, uint32_t first,
                       uint32_t count, uint32_t depth)
{
    box bounds = range_box(b, first, count);
    rt_bvh_node *n = &b->nodes[node];
    *n = (rt_bvh_node){
        .lo = {{bounds.lo[0], bounds.lo[1], bounds.lo[2], 0}},
        .hi = {{bounds.hi[0], bounds.hi[1], bounds.hi[2], 0}},
        .first = (cl_int)first, .count = (cl_int)count};
    if (depth > b->depth)
        b->depth = depth;
    if (count <= LEAF_SPHERES || depth >= RT_BVH_MAX_DEPTH)
        return;
    split at;
    double cost;
    if (!best_split(b, first, count, &bounds, &at, &cost))
        return;
    /* A split must pay for the extra box tests; small leaves may stay.
     * Written so that a NaN cost keeps them too. */
    if (!(cost < 1.0) && count <= MAX_LEAF_SPHERES)
        return;
    uint32_t left = partition(b, first, count, &at);
    /* The bound on the node count rests on this: two children, each with
     * spheres. partition bins as best_split did, so it holds; checked
     * here, where a mistake would otherwise write past the nodes. */
    if (left == 0 || left == count)
        return;
    uint32_t children = b->n_nodes;
    b->n_nodes += 2;
    n->first = (cl_int)children;
    n->count = 0;
    build_node(b, children, first, left, depth + 1);
    build_node(b, children + 1, first + left, count - left, depth + 1);
}

int rt_bvh_build(rt_bvh *bvh, const cl_float4 *spheres,
                 const cl_int *sphere_material, uint32_t n_spheres)
{
    memset(bvh, 0, sizeof *bvh);
    if (n_spheres == 0)
        return app_fail(APP_ERR_BAD_INPUT, "a BVH needs at least "
                        "one sphere");
    builder b = {.spheres = spheres,
                 .order = malloc(n_spheres * sizeof *b.order),
                 .centre = malloc(n_spheres * sizeof *b.centre),
                 .nodes = malloc((2 * (size_t)n_spheres - 1) *
                                 sizeof *b.nodes),
                 .n_nodes = 1};
    bvh->spheres = malloc(n_spheres * sizeof *bvh->spheres);
    bvh->sphere_material = malloc(n_spheres * sizeof *bvh->sphere_material);
    if (!b.order || !b.centre || !b.nodes || !bvh->spheres ||
        !bvh->sphere_material) {
        free(b.order), free(b.centre), free(b.nodes);
        rt_bvh_free(bvh);
        return app_fail(APP_ERR_NO_MEMORY, "out of memory for the "
                        "BVH of %u spheres", n_spheres);
    }
    for (uint32_t i = 0; i < n_spheres; i++) {
        b.order[i] = i;
        for (int a = 0; a < 3; a++)
            b.centre[i][a] = spheres[i].s[a];
    }
    build_node(&b, 0, 0, n_spheres, 1);
    for (uint32_t i = 0; i < n_spheres; i++) {
        bvh->spheres[i] = spheres[b.order[i]];
        bvh->sphere_material[i] = sphere_material[b.order[i]];
    }
    bvh->nodes = b.nodes;
    bvh->n_nodes = b.n_nodes;
    bvh->depth = b.depth;
    bvh->n_spheres = n_spheres;
    free(b.order), free(b.centre);
    return 0;
}

void rt_bvh_free(rt_bvh *bvh)
{
    free(bvh->nodes);
    free(bvh->spheres);
    free(bvh->sphere_material);
    memset(bvh, 0, sizeof *bvh);
}
