/*
 * heat_ref.c: the plain C reference stepper (the spec's loop, one thread)
 * and its OpenMP twin, the CPU's fair parallel baseline. Both evaluate every
 * cell with the same float operations in the same order (above, below,
 * left, right), which is what makes every version's output comparable byte
 * for byte. The Makefile builds it with -ffp-contract=off: no a*b+c may
 * become an FMA (the kernels turn contraction off too).
 */
#include "heat.h"
#include "common/error.h"

#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

void heat_coefficients(float alpha, float dt, float *inner, float *outer)
{
    *outer = alpha * dt;
    *inner = 1 - *outer / 4;
}

/* One cell of one step; the spec's formula verbatim. */
static inline float step_cell(const uint32_t *properties, const float *state,
                              size_t i, size_t w, float inner, float outer)
{
    if (properties[i] & (HEAT_CELL_FIXED | HEAT_CELL_INSULATOR))
        return state[i];
    float contrib = inner;
    float acc = inner * state[i];
    if (!(properties[i - w] & HEAT_CELL_INSULATOR)) {
        contrib += outer;
        acc += outer * state[i - w];
    }
    if (!(properties[i + w] & HEAT_CELL_INSULATOR)) {
        contrib += outer;
        acc += outer * state[i + w];
    }
    if (!(properties[i - 1] & HEAT_CELL_INSULATOR)) {
        contrib += outer;
        acc += outer * state[i - 1];
    }
    if (!(properties[i + 1] & HEAT_CELL_INSULATOR)) {
        contrib += outer;
        acc += outer * state[i + 1];
    }
    float res = acc / contrib;
    return res < 0 ? 0 : res > 1 ? 1 : res;
}

static void step_row(const heat_world *world, const float *in, float *out,
                     size_t y, float inner, float outer)
{
    size_t w = world->w;
    for (size_t x = 0; x < w; x++)
        out[y * w + x] = step_cell(world->properties, in, y * w + x, w, inner,
                                   outer);
}

/* Steps between world->state and a scratch buffer; whichever holds the
 * result becomes world->state and the other is freed. */
static int step_with(heat_world *world, float dt, unsigned steps, int parallel)
{
    if (steps == 0)
        return 0;
    size_t n = (size_t)world->w * world->h;
    float *buffer = malloc(n * sizeof *buffer);
    if (!buffer)
        return app_fail(APP_ERR_NO_MEMORY, "heat: no memory for a "
                        "%u x %u scratch state", world->w, world->h);
    float inner, outer;
    heat_coefficients(world->alpha, dt, &inner, &outer);
    float *in = world->state, *out = buffer;
    long h = world->h;
    (void)parallel;                 /* read only by the pragma */
    for (unsigned t = 0; t < steps; t++) {
#ifdef _OPENMP                      /* OPENMP_FLAGS= builds without it */
#pragma omp parallel for schedule(static) if (parallel)
#endif
        for (long y = 0; y < h; y++)
            step_row(world, in, out, (size_t)y, inner, outer);
        float *swap = in;
        in = out;
        out = swap;
    }
    free(out);
    world->state = in;
    return 0;
}

int heat_step_reference(heat_world *world, float dt, unsigned steps)
{
    return step_with(world, dt, steps, 0);
}

int heat_step_openmp(heat_world *world, float dt, unsigned steps)
{
    return step_with(world, dt, steps, 1);
}

int heat_openmp_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}
