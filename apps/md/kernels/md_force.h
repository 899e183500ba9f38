/*
 * md/md_force.h: the molecular-dynamics model (apps/md/SPEC.md)
 * as one source for the host's double reference and the float kernels
 * (clframe/shared.h's idiom): the state point, the Lennard-Jones pair force
 * and energy, periodic wrapping, the minimum image and a particle's cell.
 *
 * Reduced Lennard-Jones units: epsilon = sigma = mass = 1. The potential
 * U(r) = 4 (r^-12 - r^-6) is truncated at r0 = 2.5 and shifted by -U(r0),
 * so a pair crossing r0 makes no jump in the energy (the total stays
 * conserved); the force is simply cut off at r0, where it is -0.039.
 */
#ifndef KERNELS_MD_FORCE_H
#define KERNELS_MD_FORCE_H

#include "clframe/shared.h"

#ifdef CLF_DEVICE
typedef float md_real;
#define MD_R(x) CLF_CAT(x, f)   /* a float literal: no double on the GPU */
#define MD_FLOOR(x) floor(x)
#else
#include <math.h>
typedef double md_real;
#define MD_R(x) x
#define MD_FLOOR(x) floor(x)
#endif

/* The classic Lennard-Jones liquid benchmark state point: density 0.8442,
 * temperature 0.728, time step 0.005, cut-off 2.5. */
#define MD_CUTOFF MD_R(2.5)
#define MD_DENSITY 0.8442
#define MD_TEMPERATURE 0.728
#define MD_DT 0.005

/* U(r0) = 4 (0.4^12 - 0.4^6), exactly. */
#define MD_ENERGY_SHIFT (-MD_R(0.016316891136))

/* Cells are this much wider than r0 at least, so that the float rounding
 * of a particle's cell coordinate (a few ulps of L) never puts a pair
 * closer than r0 two cells apart. */
#define MD_CELL_MARGIN 1.0001

/* For a pair at squared distance r2 < r0^2: the force over the distance
 * (the force on i is fr * (xi - xj)) and, in *u, the shifted energy. */
static inline md_real md_pair(md_real r2, CLF_PRIVATE md_real *u)
{
    md_real inv2 = MD_R(1.0) / r2;
    md_real inv6 = inv2 * inv2 * inv2;
    *u = MD_R(4.0) * inv6 * (inv6 - MD_R(1.0)) - MD_ENERGY_SHIFT;
    return MD_R(24.0) * inv2 * inv6 * (MD_R(2.0) * inv6 - MD_R(1.0));
}

/* The nearest periodic image of a separation d, both ends in [0, box). */
static inline md_real md_min_image(md_real d, md_real box)
{
    if (d > MD_R(0.5) * box)
        d -= box;
    else if (d < MD_R(-0.5) * box)
        d += box;
    return d;
}

/* x wrapped into [0, box). After the floor, x can lie a rounding outside
 * (x + box may round to box itself): the two tests bring it in, and
 * x - box is exact there. A NaN stays NaN (md_cell_coord copes). */
static inline md_real md_wrap(md_real x, md_real box)
{
    if (x < MD_R(0.0) || x >= box)
        x -= box * MD_FLOOR(x / box);
    if (x < MD_R(0.0))
        x += box;
    if (x >= box)
        x -= box;
    return x;
}

/* The cell coordinate of x along one axis, clamped into [0, nc) (a NaN
 * goes to 0), so no index is ever out of bounds. */
static inline int md_cell_coord(md_real x, md_real cells_per_length, int nc)
{
    md_real c = x * cells_per_length;
    if (!(c >= MD_R(0.0)))
        c = MD_R(0.0);
    if (!(c < (md_real)nc))
        c = (md_real)(nc - 1);
    return (int)c;
}

/* The index of the cell at coordinates (cx, cy, cz), x fastest. */
static inline int md_cell_index(int cx, int cy, int cz, int nc)
{
    return (cz * nc + cy) * nc + cx;
}

/* c + d wrapped into [0, nc), for d in -1..1. */
static inline int md_cell_neighbour(int c, int d, int nc)
{
    c += d;
    return c < 0 ? c + nc : c >= nc ? c - nc : c;
}

#endif /* KERNELS_MD_FORCE_H */
