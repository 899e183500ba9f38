/*
 * md_ref.c: the host's forces in double (md.h): all pairs, each once with
 * Newton's third law (the reference every version is held to), and a cell
 * list (counting sort into nc^3 cells, each particle against the 27 cells
 * around its own, particles split over OpenMP threads: no two threads
 * write the same particle).
 */
#include "md.h"
#include "common/error.h"

#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

int md_openmp_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

/* The separation of i from j (minimum image) and its square. */
static double separation(const md_system *s, size_t i, size_t j, double d[3])
{
    double r2 = 0.0;
    for (int k = 0; k < 3; k++) {
        d[k] = md_min_image(s->pos[3 * i + k] - s->pos[3 * j + k], s->box);
        r2 += d[k] * d[k];
    }
    return r2;
}

int md_forces_allpairs(const md_system *s, double *force, double *pe)
{
    memset(force, 0, 3 * (size_t)s->n * sizeof *force);
    memset(pe, 0, (size_t)s->n * sizeof *pe);
    for (size_t i = 0; i < s->n; i++)
        for (size_t j = i + 1; j < s->n; j++) {
            double d[3], u;
            double r2 = separation(s, i, j, d);
            if (r2 >= MD_CUTOFF * MD_CUTOFF)
                continue;
            double fr = md_pair(r2, &u);
            for (int k = 0; k < 3; k++) {
                force[3 * i + k] += fr * d[k];
                force[3 * j + k] -= fr * d[k];
            }
            pe[i] += 0.5 * u;
            pe[j] += 0.5 * u;
        }
    return 0;
}

/* A counting sort of the particles by cell: cell c holds
 * order[start[c] .. start[c + 1]), cell_of[i] is particle i's cell. */
typedef struct cell_list {
    int nc;
    double cells_per_length;
    size_t *start, *order, *cell_of;
} cell_list;

static int cell_of_position(const cell_list *cl, const double *x)
{
    return md_cell_index(md_cell_coord(x[0], cl->cells_per_length, cl->nc),
                         md_cell_coord(x[1], cl->cells_per_length, cl->nc),
                         md_cell_coord(x[2], cl->cells_per_length, cl->nc),
                         cl->nc);
}

static int build_cells(const md_system *s, cell_list *cl)
{
    cl->nc = md_cells_per_side(s->box);
    cl->cells_per_length = cl->nc / s->box;
    size_t ncells = (size_t)cl->nc * cl->nc * cl->nc;
    cl->start = calloc(ncells + 1, sizeof *cl->start);
    cl->order = malloc(s->n * sizeof *cl->order);
    cl->cell_of = malloc(s->n * sizeof *cl->cell_of);
    if (!cl->start || !cl->order || !cl->cell_of)
        return app_fail(APP_ERR_NO_MEMORY, "md: no memory for a "
                        "cell list of %zu cells", ncells);
    for (size_t i = 0; i < s->n; i++) {
        cl->cell_of[i] = (size_t)cell_of_position(cl, &s->pos[3 * i]);
        cl->start[cl->cell_of[i] + 1]++;
    }
    for (size_t c = 0; c < ncells; c++)
        cl->start[c + 1] += cl->start[c];
    /* Each particle at its cell's next free slot: start[c] then ends as
     * start[c + 1] was, and moving every entry up one restores them. */
    for (size_t i = 0; i < s->n; i++)
        cl->order[cl->start[cl->cell_of[i]]++] = i;
    memmove(cl->start + 1, cl->start, ncells * sizeof *cl->start);
    cl->start[0] = 0;
    return 0;
}

static void free_cells(cell_list *cl)
{
    free(cl->start);
    free(cl->order);
    free(cl->cell_of);
}

/* Particle i's force and energy from the 27 cells around its own. */
static void particle_force(const md_system *s, const cell_list *cl, size_t i,
                           double *force, double *pe)
{
    int nc = cl->nc, c = (int)cl->cell_of[i];
    int cx = c % nc, cy = c / nc % nc, cz = c / (nc * nc);
    double f[3] = {0, 0, 0}, sum = 0.0;
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int nb = md_cell_index(md_cell_neighbour(cx, dx, nc),
                                       md_cell_neighbour(cy, dy, nc),
                                       md_cell_neighbour(cz, dz, nc), nc);
                for (size_t k = cl->start[nb]; k < cl->start[nb + 1]; k++) {
                    size_t j = cl->order[k];
                    double d[3], u;
                    double r2 = separation(s, i, j, d);
                    if (j == i || r2 >= MD_CUTOFF * MD_CUTOFF)
                        continue;
                    double fr = md_pair(r2, &u);
                    for (int q = 0; q < 3; q++)
                        f[q] += fr * d[q];
                    sum += u;
                }
            }
    for (int q = 0; q < 3; q++)
        force[3 * i + q] = f[q];
    pe[i] = 0.5 * sum;
}

int md_forces_cells(const md_system *s, double *force, double *pe)
{
    cell_list cl = {0};
    int rc = build_cells(s, &cl);
    if (rc == 0) {
        long n = (long)s->n;
#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
        for (long i = 0; i < n; i++)
            particle_force(s, &cl, (size_t)i, force, pe);
    }
    free_cells(&cl);
    return rc;
}
