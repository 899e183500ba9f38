/*
 * societies_phase2.c: the C reference of phase 2 (trading,
 * apps/societies/phase2.c) and its offer rule (societies_best_offer in
 * apps/societies/kernels/model.h). The offer against values worked out by hand
 * (a trade B limits, one A limits, a lot of 5 for 1, and four kinds of no
 * trade); its properties on random inputs against a brute force over every
 * quantity; the pairing (a permutation, its draws, new each day, the same
 * for a seed, even); a pair's trades (resources conserved, both agents
 * better off, menus of held resources only, the first trade the best offer
 * of menus built another way, nothing between equals); a society's day;
 * and the device's offers against the host's through a generated shim.
 */
#include "common/tests/testing.h"
#include "societies/societies.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The sizes per run (support.h). */
static const struct {
    int society_agents;         /* trading for a day */
    int offers;                 /* random offers, device against host */
} run_sizes[] = {
    [TEST_FULL]    = {1001, 200},
    [TEST_CHECKED] = {101, 20},
};

static int trades(societies_offer o)
{
    return o.give_units > 0;
}

static void expect_offer(societies_offer o, int give_units,
                         int receive_units, double gain_a, double gain_b)
{
    ck_assert_int_eq(o.give_units, give_units);
    ck_assert_int_eq(o.receive_units, receive_units);
    /* float utilities up to ~10: a few 1e-6 of rounding. */
    ck_assert_msg(fabs(o.gain_a - gain_a) < 1e-5 &&
                  fabs(o.gain_b - gain_b) < 1e-5, "gains %.9g %.9g, want "
                  "%.9g %.9g", (double)o.gain_a, (double)o.gain_b, gain_a,
                  gain_b);
}

static void expect_none(societies_offer o)
{
    ck_assert_int_eq(o.give_units, 0);
    ck_assert_int_eq(o.receive_units, 0);
    ck_assert(o.gain_a == 0.0f && o.gain_b == 0.0f);
}

/* The values come from a Python transcription of the rule in double
 * precision (round half up; gains as in model.h), which also printed
 * every k's gains to make sure none is a near-tie. */
START_TEST(best_offer_matches_hand_computed_values)
{
    /* g: D 1, n 2; h: D 2, n 3. A holds 30 g, 2 h; B 3 g, 12 h.
     * vA = 4.0276, vB = 0.46207, rho = 1.3642: lots of 1 for 1, kmax 12.
     * A's gain still grows at k = 12, B's is 0.0377 at 9 and -0.1855 at
     * 10: B stops it at 9. */
    societies_offer o = societies_best_offer(1, 2, 2, 3, 0, 1, 30, 2, 3, 12);
    ck_assert_int_eq(o.give, 0);
    ck_assert_int_eq(o.receive, 1);
    expect_offer(o, 9, 9, 1.0334682012530627, 0.037692977970366304);

    /* g: D 1.5, n 2; h: D 1, n 3; A 40 g, 1 h; B 2 g, 25 h. vA = 2.2055,
     * vB = 0.080709, rho = 0.42190: 1 of g for round(2.370) = 2 of h. A's
     * gain peaks at k = 5 (0.611267, then 0.610930): A stops it. */
    o = societies_best_offer(1.5f, 2, 1, 3, 2, 5, 40, 1, 2, 25);
    expect_offer(o, 5, 10, 0.6112667847136017, 1.389500959154847);

    /* g: D 1, n 2; h: D 3, n 2; A 20 g, 5 h; B 6 g, 4 h. vA = 5.7974,
     * vB = 3.6085, rho = 4.5738: 5 of g for 1 of h; only k = 1 gains. */
    o = societies_best_offer(1, 2, 3, 2, 0, 1, 20, 5, 6, 4);
    expect_offer(o, 5, 1, 0.04111268705800164, 0.06328747027885395);

    /* vA = 0.28486 <= vB = 1.8943: B values h more than A does. */
    expect_none(societies_best_offer(1, 2, 1, 2, 0, 1, 2, 30, 12, 3));
    /* The first case's holdings, but one resource for itself. */
    expect_none(societies_best_offer(1, 2, 1, 2, 3, 3, 30, 2, 3, 12));
    /* g: D 1, n 2; h: D 0.1, n 2; A 20 g, 0 h; B 20 g, 1 h. vA = 0.90547,
     * vB = 0.37506, rho = 0.58276: a lot is 1 of g for 2 of h, and B
     * holds 1 h: B cannot pay one lot. */
    expect_none(societies_best_offer(1, 2, 0.1f, 2, 0, 1, 20, 0, 20, 1));
    /* The second case with B holding 1 h: vB = 0.54519, rho = 1.0965,
     * lots of 1 for 1, kmax 1, and B would lose 0.5232 by it. */
    expect_none(societies_best_offer(1.5f, 2, 1, 3, 2, 5, 40, 1, 2, 1));
}
END_TEST

/* U(x) = D x^(1/n) in double: the truth the float model is held to. */
static double utility_exactly(float level, float root, int units)
{
    return units <= 0 ? 0 : level * pow(units, 1 / (double)root);
}

/* The gains of k lots of (gp of g for rp of h), as the rule defines them,
 * in double. */
typedef struct lots {
    float dg, ng, dh, nh;
    int ag, ah, bg, bh;
} lots;

static double gain_a(lots t, int give_units, int receive_units)
{
    return (utility_exactly(t.dg, t.ng, t.ag - give_units) -
            utility_exactly(t.dg, t.ng, t.ag)) +
           (utility_exactly(t.dh, t.nh, t.ah + receive_units) -
            utility_exactly(t.dh, t.nh, t.ah));
}

static double gain_b(lots t, int give_units, int receive_units)
{
    return (utility_exactly(t.dg, t.ng, t.bg + give_units) -
            utility_exactly(t.dg, t.ng, t.bg)) +
           (utility_exactly(t.dh, t.nh, t.bh - receive_units) -
            utility_exactly(t.dh, t.nh, t.bh));
}

/* The size of the two changes a gain sums (A's, or B's with side_b):
 * float rounds each, so a gain is only as exact as they are large. */
static double gain_size(lots t, int side_b, int give_units,
                        int receive_units)
{
    int g = side_b ? t.bg : t.ag, h = side_b ? t.bh : t.ah;
    int dg = side_b ? give_units : -give_units;
    int dh = side_b ? -receive_units : receive_units;
    return fabs(utility_exactly(t.dg, t.ng, g + dg) -
                utility_exactly(t.dg, t.ng, g)) +
           fabs(utility_exactly(t.dh, t.nh, h + dh) -
                utility_exactly(t.dh, t.nh, h));
}

static float random_float(uint32_t *seed, float lo, float hi)
{
    return lo + (hi - lo) * (float)test_random(seed) / 16777216.0f;
}

/* On random inputs: a trade is affordable, in whole lots of the ratio the
 * rule sets, both gains are the utility changes and above 0; and a brute
 * force over every quantity finds nothing better for A among those B
 * accepts, nor, when there is no trade, any quantity both would take. */
START_TEST(best_offer_is_the_best_quantity_both_accept)
{
    uint32_t seed = 11;
    int made = 0, tries = 20000;
    const double tol = 2e-5;        /* float rounding of utilities ~10 */
    for (int t = 0; t < tries; t++) {
        lots l = {random_float(&seed, 0.2f, 4), random_float(&seed, 1, 4),
                  random_float(&seed, 0.2f, 4), random_float(&seed, 1, 4),
                  (int)(test_random(&seed) % 60),
                  (int)(test_random(&seed) % 60),
                  (int)(test_random(&seed) % 60),
                  (int)(test_random(&seed) % 60)};
        int give = (int)(test_random(&seed) % 3);
        int receive = (int)(test_random(&seed) % 3);
        societies_offer o = societies_best_offer(l.dg, l.ng, l.dh, l.nh,
                                                 give, receive, l.ag, l.ah,
                                                 l.bg, l.bh);
        ck_assert_quietly(o.give == give && o.receive == receive,
                          "case %d: the offer names %d, %d", t, o.give,
                          o.receive);
        /* The lot, as the rule sets it (model.h). */
        float va = societies_marginal_utility(l.dh, l.nh, l.ah + 1) /
                   societies_marginal_utility(l.dg, l.ng, l.ag + 1);
        float vb = societies_marginal_utility(l.dh, l.nh, l.bh + 1) /
                   societies_marginal_utility(l.dg, l.ng, l.bg + 1);
        float rho = sqrtf(va * vb);
        float give_lot = rho >= 1 ? roundf(rho) : 1;
        float receive_lot = rho >= 1 ? 1 : roundf(1 / rho);
        int open = give != receive && va > vb && give_lot <= (float)l.ag &&
                   receive_lot <= (float)l.bh;
        int gp = open ? (int)give_lot : 1, rp = open ? (int)receive_lot : 1;
        if (trades(o)) {
            made++;
            int k = o.give_units / gp;
            ck_assert_quietly(open && k >= 1 && o.give_units == k * gp &&
                              o.receive_units == k * rp, "case %d: %d for %d "
                              "is not whole lots of %d for %d", t, o.give_units,
                              o.receive_units, gp, rp);
            ck_assert_quietly(o.give_units <= l.ag && o.receive_units <= l.bh,
                              "case %d: unaffordable", t);
            double ga = gain_a(l, o.give_units, o.receive_units);
            double gb = gain_b(l, o.give_units, o.receive_units);
            ck_assert_quietly(o.gain_a > 0 && o.gain_b > 0 &&
                              fabs(o.gain_a - ga) <
                                  1e-6 * gain_size(l, 0, o.give_units,
                                                   o.receive_units) &&
                              fabs(o.gain_b - gb) <
                                  1e-6 * gain_size(l, 1, o.give_units,
                                                   o.receive_units),
                              "case %d: gains "
                              "%g %g, recomputed %g %g", t, (double)o.gain_a,
                              (double)o.gain_b, ga, gb);
        } else {
            ck_assert_quietly(o.receive_units == 0 && o.gain_a == 0 &&
                              o.gain_b == 0, "case %d: a half offer", t);
        }
        if (!open)
            continue;
        int kmax = l.ag / gp < l.bh / rp ? l.ag / gp : l.bh / rp;
        for (int k = 1; k <= kmax; k++) {
            double ga = gain_a(l, k * gp, k * rp);
            double gb = gain_b(l, k * gp, k * rp);
            if (gb <= tol || ga <= tol)
                continue;
            ck_assert_quietly(trades(o), "case %d: no trade, but %d lots of "
                              "%d for %d gain %g and %g", t, k, gp, rp, ga, gb);
            ck_assert_quietly(ga <= o.gain_a + tol, "case %d: %d lots gain A "
                              "%g, the offer's %d only %g", t, k, ga,
                              o.give_units / gp, (double)o.gain_a);
        }
    }
    /* The inputs must exercise trades, not only refusals. */
    ck_assert_msg(made > tries / 10, "%d trades in %d", made, tries);
}
END_TEST

static societies_config config(int agents, int resources)
{
    societies_config c;
    societies_config_default(&c);
    c.agents = agents;
    c.resources = resources;
    c.menu_size = resources < 4 ? resources : 4;
    return c;
}

static int is_permutation(const CLF_INT *p, int n)
{
    unsigned char *seen = calloc((size_t)n, 1);
    int ok = seen != NULL;
    for (int i = 0; ok && i < n; i++) {
        ok = p[i] >= 0 && p[i] < n && !seen[p[i]];
        if (ok)
            seen[p[i]] = 1;
    }
    free(seen);
    return ok;
}

START_TEST(pairing_is_a_permutation_new_each_day)
{
    societies_config c = config(101, 4);
    CLF_INT day1[101], day2[101], again[101];
    mwc64x_state rng = mwc64x_stream(c.seed, SOCIETIES_PAIRING_STREAM);
    mwc64x_state start = rng;
    societies_pairing(&c, &rng, day1);
    ck_assert(is_permutation(day1, 101));
    /* Two draws for each of the 100 swaps. */
    mwc64x_state after = mwc64x_skip(start, 200);
    ck_assert(rng.x == after.x && rng.c == after.c);
    societies_pairing(&c, &rng, day2);
    ck_assert(is_permutation(day2, 101));
    ck_assert(memcmp(day1, day2, sizeof day1) != 0);
    rng = start;
    societies_pairing(&c, &rng, again);
    ck_assert_mem_eq(day1, again, sizeof day1);

    /* The last place is settled by the first swap: j = (hi 2^32 + lo) mod
     * 7, hi the first draw. 2^32 is 4 mod 7, so the order of the halves
     * shows. */
    c.agents = 7;
    for (uint64_t s = 0; s < 20; s++) {
        rng = mwc64x_stream(s, SOCIETIES_PAIRING_STREAM);
        uint64_t hi = mwc64x_draw(rng);
        uint64_t lo = mwc64x_draw(mwc64x_step(rng));
        societies_pairing(&c, &rng, day1);
        ck_assert_int_eq(day1[6], (int)(((hi << 32) | lo) % 7));
    }
    /* One agent: nothing to draw. */
    c.agents = 1;
    rng = start;
    societies_pairing(&c, &rng, day1);
    ck_assert_int_eq(day1[0], 0);
    ck_assert(rng.x == start.x && rng.c == start.c);
}
END_TEST

/* Where agent 0 lands over many days: each of 10 places a tenth of the
 * time. */
START_TEST(pairing_is_even)
{
    societies_config c = config(10, 4);
    int days = 20000, count[10] = {0};
    CLF_INT p[10];
    mwc64x_state rng = mwc64x_stream(3, SOCIETIES_PAIRING_STREAM);
    for (int d = 0; d < days; d++) {
        societies_pairing(&c, &rng, p);
        for (int i = 0; i < 10; i++)
            count[i] += p[i] == 0;
    }
    /* 2000 expected, standard deviation 42: chi-square with 9 degrees of
     * freedom is above 40 once in 10^5. */
    double chi2 = 0;
    for (int i = 0; i < 10; i++)
        chi2 += (count[i] - 2000.0) * (count[i] - 2000.0) / 2000.0;
    ck_assert_msg(chi2 < 40, "chi-square %.1f (place 0: %d)", chi2,
                  count[0]);
}
END_TEST

/* A random configuration for trading: 2 to 24 resources, menus of 1 to 16,
 * levels and roots from short lists so that equal values (ties) occur. */
static societies_config random_config(uint32_t *seed)
{
    societies_config c = config(2, 2 + (int)(test_random(seed) % 23));
    int most = c.resources < SOCIETIES_MAX_MENU ? c.resources
                                                : SOCIETIES_MAX_MENU;
    c.menu_size = 1 + (int)(test_random(seed) % (unsigned)most);
    c.trades_per_pairing = (int)(test_random(seed) % 7);
    static const float levels[] = {0.5f, 1, 1, 2, 3.5f};
    static const float roots[] = {1, 1.5f, 2, 2, 3};
    for (int r = 0; r < c.resources; r++) {
        c.utility_level[r] = levels[test_random(seed) % 5];
        c.utility_root[r] = roots[test_random(seed) % 5];
    }
    return c;
}

/* An agent's holdings: some resources none, the rest 1 to 40. */
static void random_units(uint32_t *seed, int n, CLF_INT *units)
{
    for (int r = 0; r < n; r++)
        units[r] = test_random(seed) % 3 == 0
                       ? 0 : 1 + (int)(test_random(seed) % 40);
}

static double total_utility(const societies_config *c, const CLF_INT *u)
{
    double sum = 0;
    for (int r = 0; r < c->resources; r++)
        sum += utility_exactly(c->utility_level[r], c->utility_root[r],
                               u[r]);
    return sum;
}

START_TEST(trades_conserve_resources_and_both_gain)
{
    uint32_t seed = 21;
    int traded = 0, tries = 3000;
    for (int t = 0; t < tries; t++) {
        societies_config c = random_config(&seed);
        CLF_INT a[24] = {0}, b[24] = {0}, a0[24], b0[24];
        random_units(&seed, c.resources, a);
        random_units(&seed, c.resources, b);
        memcpy(a0, a, sizeof a);
        memcpy(b0, b, sizeof b);
        double ua = total_utility(&c, a), ub = total_utility(&c, b);
        int made = societies_trade_pair(&c, a, b);
        ck_assert_quietly(made >= 0 && made <= c.trades_per_pairing,
                          "case %d: %d trades of at most %d", t, made,
                          c.trades_per_pairing);
        for (int r = 0; r < c.resources; r++)
            ck_assert_quietly(a[r] + b[r] == a0[r] + b0[r] && a[r] >= 0 &&
                              b[r] >= 0, "case %d, resource %d: %d + %d, "
                              "was %d + %d", t, r, a[r], b[r], a0[r], b0[r]);
        double va = total_utility(&c, a), vb = total_utility(&c, b);
        if (made == 0)
            ck_assert_quietly(memcmp(a, a0, sizeof a) == 0 &&
                              memcmp(b, b0, sizeof b) == 0,
                              "case %d: changed without a trade", t);
        else
            ck_assert_quietly(va > ua && vb > ub, "case %d: %d trades, "
                              "utilities %.7g -> %.7g and %.7g -> %.7g", t,
                              made, ua, va, ub, vb);
        traded += made > 0;
    }
    ck_assert_msg(traded > tries / 4, "%d pairs traded of %d", traded,
                  tries);
}
END_TEST

/* Menus built another way: sort the held resources by (value, index). */
static const societies_config *sort_config;
static const CLF_INT *sort_units;

static int by_value(const void *x, const void *y)
{
    int i = *(const int *)x, j = *(const int *)y;
    const societies_config *c = sort_config;
    float vi = societies_marginal_utility(c->utility_level[i],
                                          c->utility_root[i],
                                          sort_units[i] + 1);
    float vj = societies_marginal_utility(c->utility_level[j],
                                          c->utility_root[j],
                                          sort_units[j] + 1);
    return vi < vj ? -1 : vi > vj ? 1 : i - j;
}

static int sorted_menu(const societies_config *c, const CLF_INT *units,
                       int *menu)
{
    int held[SOCIETIES_MAX_RESOURCES], n = 0;
    for (int r = 0; r < c->resources; r++)
        if (units[r] > 0)
            held[n++] = r;
    sort_config = c;
    sort_units = units;
    qsort(held, (size_t)n, sizeof *held, by_value);
    n = n < c->menu_size ? n : c->menu_size;
    memcpy(menu, held, (size_t)n * sizeof *menu);
    return n;
}

/* One round's trade is the offer with A's largest gain over the menus,
 * the first in (i, j) order among equals. */
START_TEST(a_round_makes_the_best_offer_of_the_menus)
{
    uint32_t seed = 33;
    int traded = 0;
    for (int t = 0; t < 2000; t++) {
        societies_config c = random_config(&seed);
        c.trades_per_pairing = 1;
        CLF_INT a[24] = {0}, b[24] = {0}, a1[24], b1[24];
        random_units(&seed, c.resources, a);
        random_units(&seed, c.resources, b);
        memcpy(a1, a, sizeof a);
        memcpy(b1, b, sizeof b);
        int made = societies_trade_pair(&c, a1, b1);
        int ma[SOCIETIES_MAX_MENU], mb[SOCIETIES_MAX_MENU];
        int na = sorted_menu(&c, a, ma), nb = sorted_menu(&c, b, mb);
        societies_offer best = {0, 0, 0, 0, 0, 0};
        for (int i = 0; i < na; i++)
            for (int j = 0; j < nb; j++) {
                int g = ma[i], h = mb[j];
                societies_offer o = societies_best_offer(
                    c.utility_level[g], c.utility_root[g],
                    c.utility_level[h], c.utility_root[h], g, h, a[g],
                    a[h], b[g], b[h]);
                if (trades(o) && (!trades(best) || o.gain_a > best.gain_a))
                    best = o;
            }
        ck_assert_quietly(made == trades(best), "case %d: %d trades, the "
                          "menus offer %d", t, made, trades(best));
        if (trades(best)) {
            a[best.give] -= best.give_units;
            b[best.give] += best.give_units;
            a[best.receive] += best.receive_units;
            b[best.receive] -= best.receive_units;
            traded++;
        }
        ck_assert_quietly(memcmp(a, a1, sizeof a) == 0 &&
                          memcmp(b, b1, sizeof b) == 0, "case %d: not the best "
                          "offer (%d of %d for %d of %d)", t, best.give_units,
                          best.give, best.receive_units, best.receive);
    }
    ck_assert_int_gt(traded, 500);
}
END_TEST

/* Equal agents value everything alike: vA == vB, nothing to trade. */
START_TEST(equal_agents_do_not_trade)
{
    uint32_t seed = 44;
    for (int t = 0; t < 200; t++) {
        societies_config c = random_config(&seed);
        c.trades_per_pairing = 4;
        CLF_INT a[24] = {0}, b[24];
        random_units(&seed, c.resources, a);
        memcpy(b, a, sizeof a);
        ck_assert_int_eq(societies_trade_pair(&c, a, b), 0);
        ck_assert_mem_eq(a, b, (size_t)c.resources * sizeof *a);
    }
    /* No rounds, no trades, however unequal. */
    societies_config c = config(2, 2);
    c.trades_per_pairing = 0;
    CLF_INT a[2] = {30, 0}, b[2] = {0, 30};
    ck_assert_int_eq(societies_trade_pair(&c, a, b), 0);
    ck_assert_int_eq(a[0], 30);
}
END_TEST

/* A holds one resource, B one other: A can give only its own, and receive
 * only B's; the rest of B's menu is unheld and stays out. */
START_TEST(menus_hold_only_held_resources)
{
    societies_config c = config(2, 8);
    c.menu_size = 8;
    c.trades_per_pairing = 10;
    CLF_INT a[8] = {0, 0, 0, 40, 0, 0, 0, 0};
    CLF_INT b[8] = {0, 0, 0, 0, 0, 0, 25, 0};
    int made = societies_trade_pair(&c, a, b);
    ck_assert_int_ge(made, 1);
    for (int r = 0; r < 8; r++)
        if (r != 3 && r != 6)
            ck_assert(a[r] == 0 && b[r] == 0);
    ck_assert_int_eq(a[3] + b[3], 40);
    ck_assert_int_eq(a[6] + b[6], 25);
    ck_assert(a[3] < 40 && a[6] > 0);
    /* With menus of one, A gives its least valuable held resource: MU of
     * the next unit is lowest for the most held (all alike here but
     * resource 7, which nobody holds and whose first unit is worth less
     * than any: in a menu it would leave nothing to trade). */
    c.menu_size = 1;
    c.trades_per_pairing = 1;
    c.utility_level[7] = 0.01f;
    CLF_INT a2[8] = {5, 0, 30, 0, 8, 0, 0, 0};
    CLF_INT b2[8] = {5, 20, 0, 0, 8, 0, 0, 0};
    ck_assert_int_eq(societies_trade_pair(&c, a2, b2), 1);
    ck_assert(a2[2] < 30 && a2[1] > 0);
    ck_assert(a2[0] == 5 && a2[4] == 8 && b2[0] == 5 && b2[4] == 8);
}
END_TEST

/* A day of phase 1, then one of phase 2: every resource's total is kept,
 * nobody loses, the agent left out of an odd count is untouched, and the
 * society's trades are its pairs' (phase2 indexes the pairs right). */
START_TEST(a_society_trades_and_keeps_its_resources)
{
    societies_config c = config(RUN_SIZE(society_agents), 16);
    /* A wide epsilon makes agents differ after one day (about 0.6 trades
     * an agent then; with 0.05 they hardly differ, and do not trade). */
    c.epsilon = 0.3f;
    societies_agents a;
    ck_assert_app(societies_agents_new(&c, &a));
    societies_phase1(&c, &a, 1);
    size_t cells = (size_t)c.agents * 16, bytes = cells * sizeof *a.units;
    CLF_INT *before = malloc(bytes), *pairwise = malloc(bytes);
    CLF_INT *pairs = malloc((size_t)c.agents * sizeof *pairs);
    ck_assert(before && pairwise && pairs);
    memcpy(before, a.units, bytes);
    mwc64x_state rng = mwc64x_stream(c.seed, SOCIETIES_PAIRING_STREAM);
    societies_pairing(&c, &rng, pairs);
    long made = societies_phase2(&c, &a, pairs, 0);   /* OpenMP */
    ck_assert_int_gt(made, c.agents / 4);
    for (int r = 0; r < 16; r++) {
        long was = 0, is = 0;
        for (int i = 0; i < c.agents; i++) {
            was += before[(size_t)i * 16 + r];
            is += a.units[(size_t)i * 16 + r];
        }
        ck_assert_int_eq(is, was);
    }
    int out = pairs[c.agents - 1];
    ck_assert_mem_eq(a.units + (size_t)out * 16, before + (size_t)out * 16,
                     16 * sizeof *a.units);
    for (int i = 0; i < c.agents; i++)
        ck_assert_quietly(total_utility(&c, a.units + (size_t)i * 16) >=
                          total_utility(&c, before + (size_t)i * 16),
                          "agent %d lost", i);
    /* The same trades pair by pair. */
    memcpy(pairwise, before, bytes);
    long again = 0;
    for (int p = 0; p < c.agents / 2; p++)
        again += societies_trade_pair(&c, pairwise + (size_t)pairs[2 * p] * 16,
                                      pairwise +
                                          (size_t)pairs[2 * p + 1] * 16);
    ck_assert_int_eq(again, made);
    ck_assert_mem_eq(pairwise, a.units, bytes);
    free(before);
    free(pairwise);
    free(pairs);
    societies_agents_free(&a);
}
END_TEST

/* The device's offers against the host's on random inputs. pow, sqrt and
 * division may differ by a few ulps there, so a lot size or a quantity at
 * a rounding edge may differ: equal integers are required on almost all
 * inputs, and equal gains (to 1e-5 of the changes they sum) wherever the
 * integers agree. */
START_TEST(device_offers_match_the_host)
{
    clctx *ctx = test_run_context();
    clfunction *f = clfunction_file(ctx, "apps/societies/kernels/model.h",
                                    "societies_best_offer", NULL);
    ck_assert_app_made(f);
    uint32_t seed = 55;
    int n = RUN_SIZE(offers), differ = 0, made = 0;
    for (int t = 0; t < n; t++) {
        float dg = random_float(&seed, 0.2f, 4);
        float ng = random_float(&seed, 1, 4);
        float dh = random_float(&seed, 0.2f, 4);
        float nh = random_float(&seed, 1, 4);
        cl_int in[6];
        for (int i = 0; i < 6; i++)
            in[i] = (cl_int)(test_random(&seed) % 50);
        in[1] = in[0] == in[1] ? (in[1] + 1) % 50 : in[1];
        societies_offer got;
        memset(&got, 0xff, sizeof got);
        ck_assert_app(clfunction_call(f, &got, CLARG(dg), CLARG(ng),
                                     CLARG(dh), CLARG(nh), CLARG(in[0]),
                                     CLARG(in[1]), CLARG(in[2]),
                                     CLARG(in[3]), CLARG(in[4]),
                                     CLARG(in[5])));
        societies_offer want = societies_best_offer(dg, ng, dh, nh, in[0],
                                                    in[1], in[2], in[3],
                                                    in[4], in[5]);
        made += trades(want);
        ck_assert(got.give == want.give && got.receive == want.receive);
        if (got.give_units != want.give_units ||
            got.receive_units != want.receive_units) {
            differ++;
            continue;
        }
        lots l = {dg, ng, dh, nh, in[2], in[3], in[4], in[5]};
        ck_assert_msg(fabs(got.gain_a - want.gain_a) <=
                          1e-5 * gain_size(l, 0, want.give_units,
                                           want.receive_units) &&
                      fabs(got.gain_b - want.gain_b) <=
                          1e-5 * gain_size(l, 1, want.give_units,
                                           want.receive_units),
                      "case %d: gains %.9g %.9g, host %.9g %.9g", t,
                      (double)got.gain_a, (double)got.gain_b,
                      (double)want.gain_a, (double)want.gain_b);
    }
    ck_assert_msg(differ * 50 <= n, "%d of %d offers differ", differ, n);
    ck_assert_int_gt(made, n / 10);
    clfunction_free(f);
    clctx_free(ctx);
}
END_TEST

Suite *societies_phase2_suite(void)
{
    Suite *s = suite_create("societies_phase2");
    TCase *tc = test_case("reference");
    tcase_add_test(tc, best_offer_matches_hand_computed_values);
    tcase_add_test(tc, best_offer_is_the_best_quantity_both_accept);
    tcase_add_test(tc, pairing_is_a_permutation_new_each_day);
    tcase_add_test(tc, pairing_is_even);
    tcase_add_test(tc, trades_conserve_resources_and_both_gain);
    tcase_add_test(tc, a_round_makes_the_best_offer_of_the_menus);
    tcase_add_test(tc, equal_agents_do_not_trade);
    tcase_add_test(tc, menus_hold_only_held_resources);
    tcase_add_test(tc, a_society_trades_and_keeps_its_resources);
    tcase_add_test(tc, device_offers_match_the_host);
    suite_add_tcase(s, tc);
    return s;
}
