/*
 * societies/model.h: the Societies economics model (Ditta, Haarsma and
 * Haney; ../shared/specs/societies.md) as one source for host and device
 * (clframe/shared.h's idiom): the configuration both sides read, with the
 * same layout, and the formulas of a day: the utility of holding units of
 * a resource, its marginal utility, the effort an extraction costs at an
 * experience, and the gain per minute that phase 1 maximises.
 */
#ifndef KERNELS_SOCIETIES_MODEL_H
#define KERNELS_SOCIETIES_MODEL_H

#include "clframe/shared.h"

#ifdef CLF_DEVICE
#define SOCIETIES_POW(x, y) pow((x), (y))
#define SOCIETIES_EXP(x) exp(x)
#define SOCIETIES_SQRT(x) sqrt(x)
#else
#include <math.h>
#define SOCIETIES_POW(x, y) powf((x), (y))
#define SOCIETIES_EXP(x) expf(x)
#define SOCIETIES_SQRT(x) sqrtf(x)
#endif

/* A work-item per resource: at most the largest work-group a device has
 * (256 in the seed). */
#define SOCIETIES_MAX_RESOURCES 256

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

/* U(x) = D x^(1/n): the utility of holding `units` (0 for none). */
CLF_INLINE CLF_FLOAT societies_utility(CLF_FLOAT level, CLF_FLOAT root,
                                       CLF_INT units)
{
    return units <= 0 ? 0.0f
                      : level * SOCIETIES_POW((CLF_FLOAT)units, 1.0f / root);
}

/* MU(x) = U(x) - U(x - 1): what the x-th unit adds. */
CLF_INLINE CLF_FLOAT societies_marginal_utility(CLF_FLOAT level,
                                                CLF_FLOAT root, CLF_INT units)
{
    return societies_utility(level, root, units) -
           societies_utility(level, root, units - 1);
}

/* Minutes to extract one unit at `experience` (a Gompertz curve): close
 * to max_effort without experience, falling to min_effort:
 * max - (max - min) exp(-2 sqrt(max) exp(-(max - min) e / max_experience)). */
CLF_INLINE CLF_FLOAT societies_effort(CLF_FLOAT min_effort,
                                      CLF_FLOAT max_effort,
                                      CLF_INT max_experience,
                                      CLF_INT experience)
{
    CLF_FLOAT span = max_effort - min_effort;
    CLF_FLOAT inner = SOCIETIES_EXP(-span * (CLF_FLOAT)experience /
                                    (CLF_FLOAT)max_experience);
    return max_effort -
           span * SOCIETIES_EXP(-2.0f * SOCIETIES_SQRT(max_effort) * inner);
}

/* Gain per minute of extracting one more unit of a resource held in
 * `units` at `experience`: MU(units + 1) / effort(experience). */
CLF_INLINE CLF_FLOAT societies_gain_per_minute(CLF_FLOAT level,
                                               CLF_FLOAT root, CLF_INT units,
                                               CLF_FLOAT min_effort,
                                               CLF_FLOAT max_effort,
                                               CLF_INT max_experience,
                                               CLF_INT experience)
{
    return societies_marginal_utility(level, root, units + 1) /
           societies_effort(min_effort, max_effort, max_experience,
                            experience);
}

#endif /* KERNELS_SOCIETIES_MODEL_H */
