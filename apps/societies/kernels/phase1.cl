/*
 * societies/phase1.cl: phase 1 of a Societies day (resource extraction) on
 * the device: a work-group per agent, a work-item per resource
 * (apps/societies/SPEC.md). It makes the C reference's choices
 * (apps/societies/phase1.c) draw for draw: the same formulas (model.h),
 * the agent's own MWC64X stream, the best gain per minute by group_argmax
 * and the choice among the candidates by group_choose, whose rule the
 * reference shares (both through group.cl, which takes their scratch from
 * local_malloc). Where the device's pow and exp round differently from
 * the host's, a choice on the edge of a tie may differ; the tests say how
 * close that has to be.
 *
 * Built with societies_config_defines (SOCIETIES_RESOURCES,
 * SOCIETIES_EPSILON, ...): known at build time, the values cost no memory
 * reads. Work-groups of exactly SOCIETIES_RESOURCES work-items.
 */
#include "model.h"
#include "group.cl"
#include "lib/mwc64x.h"

/* c: the configuration (each resource's D and n are read from it);
 * units, experience: agent-major, SOCIETIES_RESOURCES a row; rng: a state
 * per agent; made: the units each agent extracted today. The arguments of
 * agents.cl's societies_phase1_item. */
__kernel void societies_phase1(__global const societies_config *c,
                               __global int *units, __global int *experience,
                               __global mwc64x_state *rng,
                               __global int *made)
{
    __local float gpm[SOCIETIES_RESOURCES];     /* each resource's, now */
    __local float effort[SOCIETIES_RESOURCES];  /* its next unit's minutes */
    __local uchar candidate[SOCIETIES_RESOURCES];

    const int r = (int)get_local_id(0);
    const size_t agent = get_group_id(0);
    const size_t at = agent * SOCIETIES_RESOURCES + (size_t)r;
    const float d = c->utility_level[r], n = c->utility_root[r];
    int x = units[at], e = experience[at], extracted = 0, count = 0;
    /* Every work-item steps its own copy of the agent's stream: the same
     * draws, with no need to share them. */
    mwc64x_state stream = rng[agent];

    effort[r] = societies_effort(SOCIETIES_MIN_EFFORT, SOCIETIES_MAX_EFFORT,
                                 SOCIETIES_MAX_EXPERIENCE, e);
    gpm[r] = societies_gain_per_minute(d, n, x, effort[r]);
    /* used is the same in every work-item (the same sums in the same
     * order), so the loop and its barriers are uniform. */
    float used = 0.0f;
    while (used < (float)SOCIETIES_MINUTES_PER_DAY) {
        int best = societies_argmax(gpm);
        candidate[r] = gpm[r] >= (1.0f - SOCIETIES_EPSILON) * gpm[best];
        int chosen = societies_choose(candidate, mwc64x_draw(stream));
        stream = mwc64x_step(stream);
        if (chosen < 0)
            break;      /* no candidate: not with finite values, but a
                           NaN must not make the loop endless */
        used += effort[chosen];
        count++;
        barrier(CLK_LOCAL_MEM_FENCE);   /* all have read effort[chosen] */
        /* Only the chosen resource changes, so only its values are
         * computed again. */
        if (r == chosen) {
            x++;
            e++;
            extracted = 1;
            effort[r] = societies_effort(SOCIETIES_MIN_EFFORT,
                                         SOCIETIES_MAX_EFFORT,
                                         SOCIETIES_MAX_EXPERIENCE, e);
            gpm[r] = societies_gain_per_minute(d, n, x, effort[r]);
        }
    }
    if (!extracted)
        e = max(e - SOCIETIES_IDLE_PENALTY, 0);
    units[at] = x;
    experience[at] = min(e, SOCIETIES_MAX_EXPERIENCE);
    /* Every work-item read rng[agent] at its start; a day without a
     * single choice passes no barrier, so one is needed before the store
     * (Oclgrind reported the race). */
    barrier(CLK_GLOBAL_MEM_FENCE);
    if (r == 0) {
        rng[agent] = stream;
        made[agent] = count;
    }
}
