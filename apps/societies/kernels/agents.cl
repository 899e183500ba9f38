/*
 * societies/agents.cl: the two phases of a Societies day shaped for a CPU
 * device: a work-item per agent (phase 1) or per pair (phase 2) running
 * the C reference's own loops over the resources (agent.h), with no
 * barriers and no local memory, which a CPU device only emulates (on PoCL
 * the work-group kernels of phase1.cl and phase2.cl ran 3 to 5 times
 * slower than the one-core reference). Where the device's pow and exp
 * round as the host's, the choices and trades are the reference's, draw
 * for draw.
 *
 * Built without definitions: the configuration is read from c, so one
 * program serves every configuration. Any work-group size.
 */
#include "agent.h"

/* units, experience: agent-major, c->resources a row; rng: a state per
 * agent; made: the units each agent extracted today. */
__kernel void societies_phase1_item(__global const societies_config *c,
                                    __global int *units,
                                    __global int *experience,
                                    __global mwc64x_state *rng,
                                    __global int *made)
{
    const size_t agent = get_global_id(0);
    if (agent >= (size_t)c->agents)
        return;                 /* the global size is rounded up */
    const size_t at = agent * (size_t)c->resources;
    mwc64x_state stream = rng[agent];
    made[agent] = societies_phase1_agent(c, units + at, experience + at,
                                         &stream, 0);
    rng[agent] = stream;
}

/* pairs: agent A of pair p is pairs[2p], B pairs[2p + 1]; trades: the
 * trades each pair made. The pairs are disjoint, so no two work-items
 * touch the same row. */
__kernel void societies_phase2_item(__global const societies_config *c,
                                    __global int *units,
                                    __global const int *pairs,
                                    __global int *trades)
{
    const size_t pair = get_global_id(0);
    if (pair >= (size_t)(c->agents / 2))
        return;
    const size_t row = (size_t)c->resources;
    trades[pair] = societies_trade_pair(c, units + pairs[2 * pair] * row,
                                        units + pairs[2 * pair + 1] * row);
}
