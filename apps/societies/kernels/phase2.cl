/*
 * societies/phase2.cl: phase 2 of a Societies day (trading) on the
 * device: a work-group per pair of agents, a work-item per resource
 * (apps/societies/SPEC.md). It makes the C reference's trades
 * (apps/societies/phase2.c, societies_trade_pair): each round both menus
 * by group_smallest_k (the reference's order), every offer of the two
 * menus at once by model.h's societies_best_offer, and the offer with the
 * largest gain for A, lowest pair number on ties, by
 * group_argmax_masked (both through group.cl, which takes their scratch
 * from local_malloc). Rounding in pow and exp may still turn an offer on
 * the edge of a tie.
 *
 * Built with societies_config_defines; work-groups of exactly
 * SOCIETIES_RESOURCES work-items.
 */
#include "model.h"
#include "group.cl"

#define OFFERS (SOCIETIES_MENU_SIZE * SOCIETIES_MENU_SIZE)

/* c: the configuration (each resource's D and n are read from it);
 * units: agent-major, SOCIETIES_RESOURCES a row; pairs: agent A of pair p
 * is pairs[2p], B pairs[2p + 1]; trades: the trades each pair made. The
 * arguments of agents.cl's societies_phase2_item. */
__kernel void societies_phase2(__global const societies_config *c,
                               __global int *units,
                               __global const int *pairs,
                               __global int *trades)
{
    __local int held_a[SOCIETIES_RESOURCES], held_b[SOCIETIES_RESOURCES];
    __local float value_a[SOCIETIES_RESOURCES], value_b[SOCIETIES_RESOURCES];
    __local uchar has_a[SOCIETIES_RESOURCES], has_b[SOCIETIES_RESOURCES];
    __local float level_of[SOCIETIES_RESOURCES], root_of[SOCIETIES_RESOURCES];
    __local int menu_a[SOCIETIES_MENU_SIZE], menu_b[SOCIETIES_MENU_SIZE];
    __local societies_offer offers[OFFERS];
    __local float gain[OFFERS];
    __local uchar made[OFFERS];

    const int r = (int)get_local_id(0);
    const size_t pair = get_group_id(0);
    const size_t at_a = (size_t)pairs[2 * pair] * SOCIETIES_RESOURCES + r;
    const size_t at_b = (size_t)pairs[2 * pair + 1] * SOCIETIES_RESOURCES + r;
    held_a[r] = units[at_a];
    held_b[r] = units[at_b];
    level_of[r] = c->utility_level[r];
    root_of[r] = c->utility_root[r];

    int count = 0;
    for (; count < SOCIETIES_TRADES_PER_PAIRING; count++) {
        /* Each work-item writes only its own resource, here and below;
         * the group functions start with a barrier. */
        value_a[r] = societies_marginal_utility(level_of[r], root_of[r],
                                                held_a[r] + 1);
        value_b[r] = societies_marginal_utility(level_of[r], root_of[r],
                                                held_b[r] + 1);
        has_a[r] = held_a[r] >= 1;
        has_b[r] = held_b[r] >= 1;
        int na = societies_smallest_k(value_a, has_a, SOCIETIES_MENU_SIZE,
                                      menu_a);
        int nb = societies_smallest_k(value_b, has_b, SOCIETIES_MENU_SIZE,
                                      menu_b);
        /* Offer q = i * menu size + j: A gives menu_a[i] for menu_b[j]. */
        for (int q = r; q < OFFERS; q += SOCIETIES_RESOURCES) {
            int i = q / SOCIETIES_MENU_SIZE, j = q % SOCIETIES_MENU_SIZE;
            societies_offer o = {0, 0, 0, 0, 0.0f, 0.0f};
            if (i < na && j < nb) {
                int g = menu_a[i], h = menu_b[j];
                o = societies_best_offer(level_of[g], root_of[g], level_of[h],
                                         root_of[h], g, h, held_a[g],
                                         held_a[h], held_b[g], held_b[h]);
            }
            offers[q] = o;
            gain[q] = o.gain_a;
            made[q] = o.give_units > 0;
        }
        int best = societies_argmax_masked(gain, made, OFFERS);
        if (best < 0)
            break;                      /* uniform: no offer this round */
        societies_offer o = offers[best];
        if (r == o.give) {
            held_a[r] -= o.give_units;
            held_b[r] += o.give_units;
        }
        if (r == o.receive) {
            held_a[r] += o.receive_units;
            held_b[r] -= o.receive_units;
        }
        /* The next round's offers are read after the next group call's
         * barriers, so every work-item has read offers[best] by then. */
    }
    units[at_a] = held_a[r];
    units[at_b] = held_b[r];
    if (r == 0)
        trades[pair] = count;
}
