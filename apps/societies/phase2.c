/*
 * phase2.c: the C reference of phase 2 (trading), which the device's
 * version will be checked against: the pairing of the agents, drawn on
 * the host, and each pair's rounds of trades, with the offers of
 * apps/societies/kernels/model.h and menus in group_smallest_k's order, so
 * that the device, building its menus with group_smallest_k, makes the
 * same trades.
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

/* An agent's menu: its menu_size least valuable held resources (units at
 * least 1; value MU(units + 1)), by value ascending, equal values by
 * resource ascending, into menu; returns how many (fewer when it holds
 * fewer). An insertion sort that moves past equal values only forward
 * keeps the lower resource first. */
static int societies_menu(const societies_config *c, const CLF_INT *units,
                          int *menu)
{
    float value[SOCIETIES_MAX_MENU];
    int n = 0, size = c->menu_size;
    for (int r = 0; r < c->resources; r++) {
        if (units[r] < 1)
            continue;
        float v = societies_marginal_utility(c->utility_level[r],
                                             c->utility_root[r],
                                             units[r] + 1);
        if (n == size && !(v < value[n - 1]))
            continue;
        int at = n < size ? n++ : n - 1;        /* full: drop the last */
        for (; at > 0 && v < value[at - 1]; at--) {
            value[at] = value[at - 1];
            menu[at] = menu[at - 1];
        }
        value[at] = v;
        menu[at] = r;
    }
    return n;
}

int societies_trade_pair(const societies_config *c, CLF_INT *units_a,
                         CLF_INT *units_b)
{
    int trades = 0;
    for (; trades < c->trades_per_pairing; trades++) {
        int menu_a[SOCIETIES_MAX_MENU], menu_b[SOCIETIES_MAX_MENU];
        int na = societies_menu(c, units_a, menu_a);
        int nb = societies_menu(c, units_b, menu_b);
        /* In pair order, replacing only on a strictly larger gain: ties
         * go to the lowest pair number. */
        societies_offer best = {0, 0, 0, 0, 0.0f, 0.0f};
        for (int i = 0; i < na; i++)
            for (int j = 0; j < nb; j++) {
                int g = menu_a[i], h = menu_b[j];
                societies_offer o = societies_best_offer(
                    c->utility_level[g], c->utility_root[g],
                    c->utility_level[h], c->utility_root[h], g, h,
                    units_a[g], units_a[h], units_b[g], units_b[h]);
                if (o.give_units > 0 &&
                    (best.give_units == 0 || o.gain_a > best.gain_a))
                    best = o;
            }
        if (best.give_units == 0)
            break;
        units_a[best.give] -= best.give_units;
        units_b[best.give] += best.give_units;
        units_a[best.receive] += best.receive_units;
        units_b[best.receive] -= best.receive_units;
    }
    return trades;
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
