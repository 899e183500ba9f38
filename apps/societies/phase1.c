/*
 * phase1.c: the agents, and phase 1 (resource extraction) for all of them,
 * each by the C reference's day of one agent (kernels/agent.h), on one
 * core or in OpenMP threads.
 */
#include "societies.h"
#include "common/error.h"

#include <math.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <stdlib.h>
#include <string.h>

int societies_agents_new(const societies_config *c, societies_agents *a)
{
    memset(a, 0, sizeof *a);
    size_t cells = (size_t)c->agents * (size_t)c->resources;
    a->agents = c->agents;
    a->resources = c->resources;
    a->units = calloc(cells, sizeof *a->units);
    a->experience = calloc(cells, sizeof *a->experience);
    a->rng = malloc((size_t)c->agents * sizeof *a->rng);
    if (!a->units || !a->experience || !a->rng) {
        societies_agents_free(a);
        return app_fail(APP_ERR_NO_MEMORY, "societies: no memory "
                        "for %d agents of %d resources", c->agents,
                        c->resources);
    }
    /* Stream i + 1 is MWC64X_STREAM_GAP steps after stream i: one jump
     * each, where mwc64x_stream would compute the power every time (a
     * long wait for a million agents). */
    CLF_ULONG gap = mwc64x_power(MWC64X_STREAM_GAP);
    a->rng[0] = mwc64x_stream(c->seed, 0);
    for (int i = 1; i < c->agents; i++)
        a->rng[i] = mwc64x_jump(a->rng[i - 1], gap);
    return 0;
}

void societies_agents_free(societies_agents *a)
{
    free(a->units);
    free(a->experience);
    free(a->rng);
    memset(a, 0, sizeof *a);
}

int societies_threads(int threads)
{
#ifdef _OPENMP
    return threads > 0 ? threads : omp_get_max_threads();
#else
    (void)threads;
    return 1;
#endif
}

long societies_phase1(const societies_config *c, societies_agents *a,
                      int threads)
{
    long made = 0;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : made) \
    num_threads(societies_threads(threads))
#else
    (void)threads;      /* OPENMP_FLAGS= builds without OpenMP */
#endif
    for (int i = 0; i < a->agents; i++) {
        size_t at = (size_t)i * (size_t)a->resources;
        made += societies_phase1_agent(c, a->units + at, a->experience + at,
                                       &a->rng[i], NULL);
    }
    return made;
}
