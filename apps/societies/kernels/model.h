/*
 * societies/model.h: the Societies economics model (Ditta, Haarsma and
 * Haney; apps/societies/SPEC.md) as one source for host and device
 * (clframe/shared.h's idiom): the configuration both sides read, with the
 * same layout, and the formulas of a day: the utility of holding units of
 * a resource, its marginal utility, the effort an extraction costs at an
 * experience, and the gain per minute that phase 1 maximises; phase 2's
 * offer between two agents for one pair of resources.
 */
#ifndef KERNELS_SOCIETIES_MODEL_H
#define KERNELS_SOCIETIES_MODEL_H

#include "clframe/shared.h"

#ifdef CLF_DEVICE
#define SOCIETIES_POW(x, y) pow((x), (y))
#define SOCIETIES_EXP(x) exp(x)
#define SOCIETIES_SQRT(x) sqrt(x)
#define SOCIETIES_ROUND(x) round(x)
#define SOCIETIES_EXPM1(x) expm1(x)
#define SOCIETIES_LOG1P(x) log1p(x)
#define SOCIETIES_FABS(x) fabs(x)
#define SOCIETIES_FMIN(x, y) fmin((x), (y))
#else
#include <math.h>
#define SOCIETIES_POW(x, y) powf((x), (y))
#define SOCIETIES_EXP(x) expf(x)
#define SOCIETIES_SQRT(x) sqrtf(x)
#define SOCIETIES_ROUND(x) roundf(x)
#define SOCIETIES_EXPM1(x) expm1f(x)
#define SOCIETIES_LOG1P(x) log1pf(x)
#define SOCIETIES_FABS(x) fabsf(x)
#define SOCIETIES_FMIN(x, y) fminf((x), (y))
#endif

/* A work-item per resource: at most the largest work-group a device has
 * (256 in the seed). */
#define SOCIETIES_MAX_RESOURCES 256

/* Phase 2: the device keeps menu_size^2 offers of a pair in local memory,
 * so menus are short. */
#define SOCIETIES_MAX_MENU 16

typedef struct societies_config {
    CLF_INT agents;
    CLF_INT resources;
    CLF_INT days;
    CLF_INT minutes_per_day;
    CLF_INT max_experience;     /* experience is clamped to it */
    CLF_INT menu_size;          /* phase 2: resources offered */
    CLF_INT trades_per_pairing; /* phase 2: rounds per pair */
    CLF_INT idle_penalty;       /* experience lost by an idle resource */
    CLF_FLOAT epsilon;          /* candidates: GPM >= (1 - epsilon) best */
    CLF_FLOAT min_effort;       /* minutes a unit, fully experienced */
    CLF_FLOAT max_effort;       /* minutes a unit, no experience */
    CLF_FLOAT pad_;             /* 0 */
    CLF_ULONG seed;
    CLF_FLOAT utility_level[SOCIETIES_MAX_RESOURCES];  /* D of each */
    CLF_FLOAT utility_root[SOCIETIES_MAX_RESOURCES];   /* n of each */
} societies_config;

CLF_STATIC_ASSERT_SIZE(societies_config, 2104);
CLF_STATIC_ASSERT_OFFSET(societies_config, seed, 48);
CLF_STATIC_ASSERT_OFFSET(societies_config, utility_root, 1080);

/* A resource's rows in the item kernels' table (agent.h), here because
 * the formulas below read them: MU(x) at rows[x], then x^(1/n) at
 * rows[SOCIETIES_TABLE_UNITS + x], for x < SOCIETIES_TABLE_UNITS, each the
 * host's own value of the expression that computes it. */
#define SOCIETIES_TABLE_UNITS 2048

/* x^(1/n) for x >= 1, from the rows where the caller has them (else 0). */
CLF_INLINE CLF_FLOAT societies_power_(CLF_FLOAT root,
                                      const CLF_GLOBAL CLF_FLOAT *rows,
                                      CLF_INT x)
{
    return rows && x < SOCIETIES_TABLE_UNITS
               ? rows[SOCIETIES_TABLE_UNITS + x]
               : SOCIETIES_POW((CLF_FLOAT)x, 1.0f / root);
}

/* U(x) = D x^(1/n): the utility of holding `units` (0 for none). */
CLF_INLINE CLF_FLOAT societies_utility(CLF_FLOAT level, CLF_FLOAT root,
                                       CLF_INT units)
{
    return units <= 0 ? 0.0f : level * societies_power_(root, 0, units);
}

/* U(to) - U(from), holdings of 0 or more: a trade's or an extraction's
 * worth. Written as D lo^(1/n) ((hi / lo)^(1/n) - 1) with expm1 and log1p
 * (lo, hi the smaller and larger holding), because the difference of two
 * nearly equal powers loses most of a float's digits (MU at 1000 units,
 * n 1.06, was 2e-5 off): then a host and a device whose pow differ by an
 * ulp would disagree on values, and on choices, far more often than they
 * need to. */
CLF_INLINE CLF_FLOAT societies_change_(CLF_FLOAT level, CLF_FLOAT root,
                                       const CLF_GLOBAL CLF_FLOAT *rows,
                                       CLF_INT from, CLF_INT to)
{
    CLF_INT lo = from < to ? from : to, hi = from < to ? to : from;
    CLF_FLOAT change;
    if (rows && hi - lo == 1 && hi < SOCIETIES_TABLE_UNITS)
        change = rows[hi];              /* MU(hi): this very expression */
    else if (lo <= 0)
        change = hi <= 0 ? 0.0f : level * societies_power_(root, rows, hi);
    else {
        CLF_FLOAT power = 1.0f / root;
        change = level * societies_power_(root, rows, lo) *
                 SOCIETIES_EXPM1(power * SOCIETIES_LOG1P((CLF_FLOAT)(hi - lo) /
                                                         (CLF_FLOAT)lo));
    }
    return from <= to ? change : -change;
}

/* The same, computing everything (societies_change_ with no table). */
CLF_INLINE CLF_FLOAT societies_utility_change(CLF_FLOAT level, CLF_FLOAT root,
                                              CLF_INT from, CLF_INT to)
{
    return societies_change_(level, root, 0, from, to);
}

/* MU(x) = U(x) - U(x - 1): what the x-th unit adds (0 for x <= 0). */
CLF_INLINE CLF_FLOAT societies_marginal_utility(CLF_FLOAT level,
                                                CLF_FLOAT root, CLF_INT units)
{
    return units <= 0 ? 0.0f
                      : societies_utility_change(level, root, units - 1,
                                                 units);
}

/* Minutes to extract one unit at `experience` (a Gompertz curve): close
 * to max_effort without experience, falling to min_effort:
 * max - (max - min) exp(-2 sqrt(max) exp(-(max - min) e / max_experience)),
 * computed as min - (max - min) expm1(...), the same value without the
 * cancellation of max - (max - min) near min. */
CLF_INLINE CLF_FLOAT societies_effort(CLF_FLOAT min_effort,
                                      CLF_FLOAT max_effort,
                                      CLF_INT max_experience,
                                      CLF_INT experience)
{
    CLF_FLOAT span = max_effort - min_effort;
    CLF_FLOAT inner = SOCIETIES_EXP(-span * (CLF_FLOAT)experience /
                                    (CLF_FLOAT)max_experience);
    return min_effort -
           span * SOCIETIES_EXPM1(-2.0f * SOCIETIES_SQRT(max_effort) * inner);
}

/* Gain per minute of extracting one more unit of a resource held in
 * `units`, when a unit costs `effort` minutes (societies_effort, which
 * phase 1 keeps anyway to count the day's minutes):
 * MU(units + 1) / effort. */
CLF_INLINE CLF_FLOAT societies_gain_per_minute(CLF_FLOAT level,
                                               CLF_FLOAT root, CLF_INT units,
                                               CLF_FLOAT effort)
{
    return societies_marginal_utility(level, root, units + 1) / effort;
}

/* ---- phase 2: an offer between two agents --------------------------------
 *
 * A proposed trade between agent A and agent B: A gives give_units of
 * resource `give` to B and receives receive_units of resource `receive`
 * from B. gain_a, gain_b: the utility change of each. No trade is
 * give_units = receive_units = 0 with gains 0. */
typedef struct societies_offer {
    CLF_INT give, receive;
    CLF_INT give_units, receive_units;
    CLF_FLOAT gain_a, gain_b;
} societies_offer;

CLF_STATIC_ASSERT_SIZE(societies_offer, 24);

/* What a trade of whole lots between A and B depends on: the utility of
 * g (A gives it) and of h (A receives it), both agents' holdings of them,
 * and a lot: give_lot units of g for receive_lot units of h; g's and h's
 * rows of the table where the caller has one, else 0. */
typedef struct societies_lots_ {
    CLF_FLOAT level_g, root_g, level_h, root_h;
    CLF_INT a_g, a_h, b_g, b_h;
    CLF_INT give_lot, receive_lot;
    const CLF_GLOBAL CLF_FLOAT *rows_g, *rows_h;
} societies_lots_;

/* A float gain is a sum of two changes of opposite signs, each rounded:
 * below this share of their sizes it may be a loss in exact arithmetic,
 * so it does not count as a gain. */
#define SOCIETIES_GAIN_NOISE 1e-6f

/* The utility change of A (side_b 0) or of B (side_b 1) when k lots are
 * traded: the sum of the changes in g and in h, each computed without
 * subtracting utilities (societies_utility_change), into *gain; and less
 * the rounding it may hold (SOCIETIES_GAIN_NOISE) into *sure_gain: above
 * 0 only if it is a gain beyond doubt. */
CLF_INLINE void societies_lots_gains_(societies_lots_ t, CLF_INT side_b,
                                      CLF_INT k, CLF_FLOAT *gain,
                                      CLF_FLOAT *sure_gain)
{
    CLF_INT g = k * t.give_lot, h = k * t.receive_lot;
    CLF_FLOAT in_g = side_b ? societies_change_(t.level_g, t.root_g,
                                                t.rows_g, t.b_g, t.b_g + g)
                            : societies_change_(t.level_g, t.root_g,
                                                t.rows_g, t.a_g, t.a_g - g);
    CLF_FLOAT in_h = side_b ? societies_change_(t.level_h, t.root_h,
                                                t.rows_h, t.b_h, t.b_h - h)
                            : societies_change_(t.level_h, t.root_h,
                                                t.rows_h, t.a_h, t.a_h + h);
    CLF_FLOAT size = SOCIETIES_FABS(in_g) + SOCIETIES_FABS(in_h);
    *gain = in_g + in_h;
    *sure_gain = in_g + in_h - SOCIETIES_GAIN_NOISE * size;
}

/* What the k-th lot adds to A's gain: the changes in g and in h over that
 * one lot, each computed directly. At A's peak this is near 0, and as the
 * difference of two gains, each rounded to 1e-7 of its size, its sign
 * was noise: host and device then stopped a lot apart. */
CLF_INLINE CLF_FLOAT societies_lots_step_(societies_lots_ t, CLF_INT k)
{
    CLF_INT g = t.give_lot, h = t.receive_lot;
    return societies_change_(t.level_g, t.root_g, t.rows_g,
                             t.a_g - (k - 1) * g, t.a_g - k * g) +
           societies_change_(t.level_h, t.root_h, t.rows_h,
                             t.a_h + (k - 1) * h, t.a_h + k * h);
}

/* The largest k in [1, kmax] for which the test holds, 0 if it holds for
 * none, by binary search: the test is true up to some k and false after,
 * because both gains are concave in k (U is concave, the holdings affine
 * in k). A's test (side_b 0): the k-th lot still raises A's gain (its
 * step), so the answer is where A's gain peaks. B's test (side_b 1): B
 * surely gains, so the answer is the most lots B accepts (a concave
 * function that is 0 at k = 0 and positive at some k is positive at every
 * smaller k; the sure gain is concave too, (1 - noise) times B's gain in
 * g plus (1 + noise) times its loss in h). */
CLF_INLINE CLF_INT societies_lots_last_(societies_lots_ t, CLF_INT side_b,
                                        CLF_INT kmax)
{
    CLF_INT lo = 0, hi = kmax;      /* the answer lies in [lo, hi] */
    while (lo < hi) {
        CLF_INT mid = hi - (hi - lo) / 2;       /* above lo */
        CLF_FLOAT gain, test = 0.0f;
        if (side_b)
            societies_lots_gains_(t, 1, mid, &gain, &test);
        else
            test = societies_lots_step_(t, mid);
        if (test > 0.0f)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* A's best trade with B that gives resource `give` (g) and receives
 * `receive` (h); a_g, a_h are A's units of g and h, b_g, b_h B's; level_*
 * and root_* are D and n of g and h. The rule (phase 2 of
 * apps/societies/SPEC.md leaves the exchange ratio and the
 * quantity to us):
 * - valuations are marginal utilities of the next unit: A would pay
 *   vA = MU(h, a_h + 1) / MU(g, a_g + 1) units of g for one of h, B
 *   would take vB = MU(h, b_h + 1) / MU(g, b_g + 1). Only vA > vB leaves
 *   room for a trade both want (and give != receive);
 * - the exchange ratio is their geometric mean, rho = sqrt(vA vB) units
 *   of g per unit of h, which splits the room evenly on a log scale and
 *   treats both agents alike. Trades are in whole lots: round(rho) of g
 *   for 1 of h when rho >= 1, else 1 of g for round(1 / rho) of h;
 * - the quantity is k lots, 1 <= k <= kmax (A can pay k lots of g, B k
 *   lots of h): the k that maximises A's gain among those where B gains,
 *   that is the smaller of where A's gain peaks and the most B accepts
 *   (societies_lots_last_); the trade is made only if both gains are
 *   then surely above 0 (beyond float's rounding: SOCIETIES_GAIN_NOISE).
 * A marginal utility that float rounds to 0 gives an infinite or NaN
 * valuation; a lot that is NaN or more than can be paid means no trade,
 * so every case ends in an offer or none. societies_best_offer_valued
 * takes vA and vB as computed by its caller, and g's and h's rows of the
 * table where it has one (else 0): agent.h's. */
CLF_INLINE societies_offer societies_best_offer_valued(
    CLF_FLOAT level_g, CLF_FLOAT root_g, CLF_FLOAT level_h, CLF_FLOAT root_h,
    CLF_INT give, CLF_INT receive, CLF_INT a_g, CLF_INT a_h, CLF_INT b_g,
    CLF_INT b_h, CLF_FLOAT va, CLF_FLOAT vb,
    const CLF_GLOBAL CLF_FLOAT *rows_g, const CLF_GLOBAL CLF_FLOAT *rows_h)
{
    societies_offer none = {give, receive, 0, 0, 0.0f, 0.0f};
    if (give == receive || !(va > vb))
        return none;
    CLF_FLOAT rho = SOCIETIES_SQRT(va * vb);
    CLF_FLOAT give_lot = rho >= 1.0f ? SOCIETIES_ROUND(rho) : 1.0f;
    CLF_FLOAT receive_lot = rho >= 1.0f ? 1.0f
                                        : SOCIETIES_ROUND(1.0f / rho);
    /* In float before any conversion: NaN and huge lots end here. */
    if (!(give_lot >= 1.0f && give_lot <= (CLF_FLOAT)a_g &&
          receive_lot >= 1.0f && receive_lot <= (CLF_FLOAT)b_h))
        return none;
    societies_lots_ t = {level_g, root_g, level_h, root_h, a_g, a_h,
                         b_g, b_h, (CLF_INT)give_lot, (CLF_INT)receive_lot,
                         rows_g, rows_h};
    CLF_INT kmax = a_g / t.give_lot < b_h / t.receive_lot
                       ? a_g / t.give_lot : b_h / t.receive_lot;
    CLF_INT k_a = societies_lots_last_(t, 0, kmax);
    CLF_INT k_b = societies_lots_last_(t, 1, kmax);
    CLF_INT k = k_a < k_b ? k_a : k_b;
    if (k < 1)
        return none;
    CLF_FLOAT gain_a, gain_b, sure_a, sure_b;
    societies_lots_gains_(t, 0, k, &gain_a, &sure_a);
    societies_lots_gains_(t, 1, k, &gain_b, &sure_b);
    societies_offer offer = {give, receive, k * t.give_lot,
                             k * t.receive_lot, gain_a, gain_b};
    return sure_a > 0.0f && sure_b > 0.0f ? offer : none;
}

/* The same, valuing from the holdings: vA and vB as above. */
CLF_INLINE societies_offer societies_best_offer(
    CLF_FLOAT level_g, CLF_FLOAT root_g, CLF_FLOAT level_h, CLF_FLOAT root_h,
    CLF_INT give, CLF_INT receive, CLF_INT a_g, CLF_INT a_h, CLF_INT b_g,
    CLF_INT b_h)
{
    CLF_FLOAT va = societies_marginal_utility(level_h, root_h, a_h + 1) /
                   societies_marginal_utility(level_g, root_g, a_g + 1);
    CLF_FLOAT vb = societies_marginal_utility(level_h, root_h, b_h + 1) /
                   societies_marginal_utility(level_g, root_g, b_g + 1);
    return societies_best_offer_valued(level_g, root_g, level_h, root_h,
                                       give, receive, a_g, a_h, b_g, b_h,
                                       va, vb, 0, 0);
}

#endif /* KERNELS_SOCIETIES_MODEL_H */
