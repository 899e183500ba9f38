/*
 * societies/agent.h: one agent's day of phase 1 and one pair's trading in
 * phase 2 as plain loops over the resources, one source for the host and
 * the device (clframe/shared.h's idiom). The C references run them
 * (phase1.c, phase2.c), and so do the kernels shaped for a CPU device
 * (agents.cl: a work-item per agent or pair, no barriers), which therefore
 * make the reference's choices wherever the device's pow and exp round as
 * the host's do. The configuration is read through c, in global memory on
 * the device; an agent's rows are CLF_GLOBAL too, so a kernel passes its
 * own rows of the society's arrays.
 */
#ifndef KERNELS_SOCIETIES_AGENT_H
#define KERNELS_SOCIETIES_AGENT_H

#include "model.h"
#include "lib/group_choose_serial.h"
#include "lib/mwc64x.h"

/* What one agent's day of phase 1 was like. closest: how near the day
 * came to a choice that rounding could turn, as a relative distance: the
 * smallest of |GPM - threshold| / threshold over the resources that are
 * not in the best resource's state, and of |minutes used - day| / day at
 * each test of the day's end. A device whose pow and exp differ from the
 * host's by less than that makes the same choices. */
typedef struct societies_day {
    CLF_FLOAT minutes;
    CLF_FLOAT closest;
} societies_day;

/* The values of the model's functions of whole numbers, as the host
 * computed them (fill_table in device.c): effort at experience e for
 * e < SOCIETIES_TABLE_EFFORT; then each resource r's rows from
 * SOCIETIES_TABLE_MU(r) (model.h: its marginal utility MU(x), then
 * x^(1/n), for x < SOCIETIES_TABLE_UNITS).
 * The item kernels read them where the reference computes: a CPU device's
 * pow, expm1 and log1p may cost many times the host's (on PoCL the item
 * kernels run several times faster reading them: bench/RESULTS.md,
 * Defaults per device), and a value the host computed is the reference's,
 * bit for bit. The reference passes no table (0); values outside it are
 * computed on either side. */
#define SOCIETIES_TABLE_EFFORT 4096
#define SOCIETIES_TABLE_MU(r) \
    (SOCIETIES_TABLE_EFFORT + 2 * (r) * SOCIETIES_TABLE_UNITS)
#define SOCIETIES_TABLE_SIZE(resources) SOCIETIES_TABLE_MU(resources)

/* effort(e), from the table when it has it. */
CLF_INLINE CLF_FLOAT societies_effort_at_(const CLF_GLOBAL societies_config *c,
                                          const CLF_GLOBAL CLF_FLOAT *table,
                                          CLF_INT e)
{
    return table && e >= 0 && e < SOCIETIES_TABLE_EFFORT
               ? table[e]
               : societies_effort(c->min_effort, c->max_effort,
                                  c->max_experience, e);
}

/* Resource r's MU(x), from the table when it has it. */
CLF_INLINE CLF_FLOAT societies_mu_at_(const CLF_GLOBAL societies_config *c,
                                      const CLF_GLOBAL CLF_FLOAT *table,
                                      CLF_INT r, CLF_INT x)
{
    return table && x >= 0 && x < SOCIETIES_TABLE_UNITS
               ? table[SOCIETIES_TABLE_MU(r) + x]
               : societies_marginal_utility(c->utility_level[r],
                                            c->utility_root[r], x);
}

/* Resource r's gain per minute and the minutes its next unit costs
 * (societies_gain_per_minute's value). */
CLF_INLINE void societies_value_resource_(const CLF_GLOBAL societies_config *c,
                                          const CLF_GLOBAL CLF_FLOAT *table,
                                          const CLF_GLOBAL CLF_INT *units,
                                          const CLF_GLOBAL CLF_INT *experience,
                                          CLF_INT r, CLF_FLOAT *gpm,
                                          CLF_FLOAT *effort)
{
    effort[r] = societies_effort_at_(c, table, experience[r]);
    gpm[r] = societies_mu_at_(c, table, r, units[r] + 1) / effort[r];
}

/* How far value v is from threshold t, relative to t. */
CLF_INLINE CLF_FLOAT societies_relative_distance_(CLF_FLOAT v, CLF_FLOAT t)
{
    return SOCIETIES_FABS(v - t) / t;
}

/* Phase 1, resource extraction, for one agent and one day: while the day
 * has minutes left, the agent extracts a unit of a resource chosen
 * uniformly at random (one draw of its stream) among the candidates,
 * those whose gain per minute is at least (1 - epsilon) times the best,
 * numbered in resource order (group_choose.cl's rule); the unit costs
 * effort(experience) minutes and adds one of experience. An extraction
 * started before the end of the day finishes, so the day's minutes end
 * between minutes_per_day and minutes_per_day + max_effort. At the end,
 * each resource not extracted that day loses idle_penalty experience (not
 * below 0), and experience is clamped to max_experience. The units
 * extracted; *day (0: not wanted) says how the day went. table: the
 * host's values (above), or 0. */
CLF_INLINE CLF_INT societies_extract_day(const CLF_GLOBAL societies_config *c,
                                         const CLF_GLOBAL CLF_FLOAT *table,
                                         CLF_GLOBAL CLF_INT *units,
                                         CLF_GLOBAL CLF_INT *experience,
                                         mwc64x_state *rng, societies_day *day)
{
    CLF_FLOAT gpm[SOCIETIES_MAX_RESOURCES], effort[SOCIETIES_MAX_RESOURCES];
    CLF_UCHAR extracted[SOCIETIES_MAX_RESOURCES];
    CLF_UCHAR candidate[SOCIETIES_MAX_RESOURCES];
    CLF_INT n = c->resources, made = 0;
    CLF_FLOAT used = 0.0f, closest = INFINITY;
    for (CLF_INT r = 0; r < n; r++) {
        societies_value_resource_(c, table, units, experience, r, gpm,
                                  effort);
        extracted[r] = 0;
    }
    for (;;) {
        if (day)
            closest = SOCIETIES_FMIN(closest, societies_relative_distance_(
                                         used, (CLF_FLOAT)c->minutes_per_day));
        if (!(used < (CLF_FLOAT)c->minutes_per_day))
            break;
        CLF_INT best = 0;
        for (CLF_INT r = 1; r < n; r++)
            best = gpm[r] > gpm[best] ? r : best;
        /* The candidates, chosen among by one draw as a work-group does. */
        CLF_FLOAT threshold = (1.0f - c->epsilon) * gpm[best];
        for (CLF_INT r = 0; r < n; r++) {
            candidate[r] = gpm[r] >= threshold;
            /* A resource in the best's state has the best's value on
             * every device; any other is a near tie if close. */
            if (day && (units[r] != units[best] ||
                        experience[r] != experience[best] ||
                        c->utility_level[r] != c->utility_level[best] ||
                        c->utility_root[r] != c->utility_root[best]))
                closest = SOCIETIES_FMIN(closest, societies_relative_distance_(
                                                      gpm[r], threshold));
        }
        CLF_INT chosen = group_choose_serial(candidate, n, mwc64x_draw(*rng));
        *rng = mwc64x_step(*rng);
        if (chosen < 0)
            break;      /* only a NaN could do it; it must not loop */
        used += effort[chosen];
        units[chosen]++;
        experience[chosen]++;
        extracted[chosen] = 1;
        made++;
        /* Only the chosen resource changes. */
        societies_value_resource_(c, table, units, experience, chosen, gpm,
                                  effort);
    }
    for (CLF_INT r = 0; r < n; r++) {
        if (!extracted[r])
            experience[r] = experience[r] > c->idle_penalty
                                ? experience[r] - c->idle_penalty : 0;
        if (experience[r] > c->max_experience)
            experience[r] = c->max_experience;
    }
    if (day) {
        day->minutes = used;
        day->closest = closest;
    }
    return made;
}

/* An agent's menu: its menu_size least valuable held resources (units at
 * least 1; value MU(units + 1)), by value ascending, equal values by
 * resource ascending (group_smallest_k's order), into menu; returns how
 * many (fewer when it holds fewer). An insertion sort that moves past
 * equal values only forward keeps the lower resource first. */
CLF_INLINE CLF_INT societies_menu_(const CLF_GLOBAL societies_config *c,
                                   const CLF_GLOBAL CLF_FLOAT *table,
                                   const CLF_GLOBAL CLF_INT *units,
                                   CLF_INT *menu)
{
    CLF_FLOAT value[SOCIETIES_MAX_MENU];
    CLF_INT n = 0, size = c->menu_size;
    for (CLF_INT r = 0; r < c->resources; r++) {
        if (units[r] < 1)
            continue;
        CLF_FLOAT v = societies_mu_at_(c, table, r, units[r] + 1);
        if (n == size && !(v < value[n - 1]))
            continue;
        CLF_INT at = n < size ? n++ : n - 1;    /* full: drop the last */
        for (; at > 0 && v < value[at - 1]; at--) {
            value[at] = value[at - 1];
            menu[at] = menu[at - 1];
        }
        value[at] = v;
        menu[at] = r;
    }
    return n;
}

/* Phase 2, trading, for one pair: up to trades_per_pairing rounds. In
 * each, an agent's menu is its menu_size least valuable resources among
 * those it holds (societies_menu_); every pair (i, j), A giving menu_a[i]
 * and receiving menu_b[j], gets societies_best_offer (model.h, which says
 * the rule), and the trade made is the offer with the largest gain for A,
 * ties to the lowest i * menu_size + j (a work-group's numbering, whatever
 * the menus' lengths). A round with no offer ends the pairing. Both agents
 * gain from every trade, and every resource is conserved. units_a and
 * units_b are the two agents' holdings; returns the trades made. table:
 * the host's values, or 0. */
CLF_INLINE CLF_INT societies_trade(const CLF_GLOBAL societies_config *c,
                                   const CLF_GLOBAL CLF_FLOAT *table,
                                   CLF_GLOBAL CLF_INT *units_a,
                                   CLF_GLOBAL CLF_INT *units_b)
{
    CLF_INT trades = 0;
    for (; trades < c->trades_per_pairing; trades++) {
        CLF_INT menu_a[SOCIETIES_MAX_MENU], menu_b[SOCIETIES_MAX_MENU];
        CLF_INT na = societies_menu_(c, table, units_a, menu_a);
        CLF_INT nb = societies_menu_(c, table, units_b, menu_b);
        /* In pair order, replacing only on a strictly larger gain: ties
         * go to the lowest pair number. */
        societies_offer best = {0, 0, 0, 0, 0.0f, 0.0f};
        for (CLF_INT i = 0; i < na; i++)
            for (CLF_INT j = 0; j < nb; j++) {
                CLF_INT g = menu_a[i], h = menu_b[j];
                CLF_FLOAT va = societies_mu_at_(c, table, h, units_a[h] + 1) /
                               societies_mu_at_(c, table, g, units_a[g] + 1);
                CLF_FLOAT vb = societies_mu_at_(c, table, h, units_b[h] + 1) /
                               societies_mu_at_(c, table, g, units_b[g] + 1);
                societies_offer o = societies_best_offer_valued(
                    c->utility_level[g], c->utility_root[g],
                    c->utility_level[h], c->utility_root[h], g, h,
                    units_a[g], units_a[h], units_b[g], units_b[h], va, vb,
                    table ? table + SOCIETIES_TABLE_MU(g) : 0,
                    table ? table + SOCIETIES_TABLE_MU(h) : 0);
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

/* The C references: the same with no table. */
CLF_INLINE CLF_INT societies_phase1_agent(const CLF_GLOBAL societies_config *c,
                                          CLF_GLOBAL CLF_INT *units,
                                          CLF_GLOBAL CLF_INT *experience,
                                          mwc64x_state *rng,
                                          societies_day *day)
{
    return societies_extract_day(c, 0, units, experience, rng, day);
}

CLF_INLINE CLF_INT societies_trade_pair(const CLF_GLOBAL societies_config *c,
                                        CLF_GLOBAL CLF_INT *units_a,
                                        CLF_GLOBAL CLF_INT *units_b)
{
    return societies_trade(c, 0, units_a, units_b);
}

#endif /* KERNELS_SOCIETIES_AGENT_H */
