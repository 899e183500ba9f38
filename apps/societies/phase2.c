/*
 * phase2.c: phase 2 (trading) on the host: the pairing of the agents,
 * drawn here for every version, and each pair's rounds of trades by the C
 * reference's (kernels/agent.h: the offers of model.h, menus in
 * group_smallest_k's order), on one core or in OpenMP threads.
 */
#include "societies.h"

#include <stdint.h>

_Static_assert(SOCIETIES_MAX_AGENTS - 1 < SOCIETIES_PAIRING_STREAM,
               "an agent's stream would be the pairing's");

void societies_pairing(const societies_config *c, mwc64x_state *rng,
                       CLF_INT *pairs)
{
    for (CLF_INT i = 0; i < c->agents; i++)
        pairs[i] = i;
    for (CLF_INT i = c->agents - 1; i >= 1; i--) {
        uint64_t hi = mwc64x_draw(*rng);
        *rng = mwc64x_step(*rng);
        uint64_t lo = mwc64x_draw(*rng);
        *rng = mwc64x_step(*rng);
        CLF_INT j = (CLF_INT)(((hi << 32) | lo) % (uint64_t)(i + 1));
        CLF_INT t = pairs[i];
        pairs[i] = pairs[j];
        pairs[j] = t;
    }
}

long societies_phase2(const societies_config *c, societies_agents *a,
                      const CLF_INT *pairs, int threads)
{
    long trades = 0;
    int count = a->agents / 2;
    size_t n = (size_t)a->resources;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : trades) \
    num_threads(societies_threads(threads))
#else
    (void)threads;      /* OPENMP_FLAGS= builds without OpenMP */
#endif
    for (int p = 0; p < count; p++)
        trades += societies_trade_pair(c, a->units + (size_t)pairs[2 * p] * n,
                                       a->units + (size_t)pairs[2 * p + 1] * n);
    return trades;
}
