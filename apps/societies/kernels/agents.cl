/*
 * societies/agents.cl: the two phases of a Societies day shaped for a CPU
 * device: a work-item per agent (phase 1) or per pair (phase 2) running
 * the C reference's own loops over the resources (agent.h), with no
 * barriers and no local memory, which a CPU device only emulates (on PoCL
 * the work-group kernels of phase1.cl and phase2.cl ran 3 to 5 times
 * slower than the one-core reference). The model's functions of whole
 * numbers come from the host's table, so phase 1 is the reference's draw
 * for draw, and phase 2 but where the device's pow and exp round a trade's
 * size on the edge of a tie the other way.
 *
 * Built without definitions: the configuration is read from c, so one
 * program serves every configuration. Any work-group size; the global size
 * may be rounded up past the agents or pairs.
 */
#include "agent.h"

/* table: the host's values of the model (agent.h); units, experience:
 * agent-major, c->resources a row; rng: a state per agent; made: the units
 * each agent extracted today. */
__kernel void societies_phase1_item(__global const societies_config *c,
                                    __global const float *table,
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
    made[agent] = societies_extract_day(c, table, units + at,
                                        experience + at, &stream, 0);
    rng[agent] = stream;
}

/* pairs: agent A of pair p is pairs[2p], B pairs[2p + 1]; trades: the
 * trades each pair made. The pairs are disjoint, so no two work-items
 * touch the same row. */
__kernel void societies_phase2_item(__global const societies_config *c,
                                    __global const float *table,
                                    __global int *units,
                                    __global const int *pairs,
                                    __global int *trades)
{
    const size_t pair = get_global_id(0);
    if (pair >= (size_t)(c->agents / 2))
        return;
    const size_t row = (size_t)c->resources;
    trades[pair] = societies_trade(c, table, units + pairs[2 * pair] * row,
                                   units + pairs[2 * pair + 1] * row);
}
