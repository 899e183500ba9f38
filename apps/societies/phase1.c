/*
 * phase1.c: the agents, and the C reference of phase 1 (resource
 * extraction), which the device's version will be checked against draw
 * for draw: the same formulas (apps/societies/kernels/model.h), the same
 * stream per agent (mwc64x.h) and the same choice among candidates
 * (clframe/kernels/lib/group_choose.cl's rule: candidate number r mod count, in
 * resource order).
 */
#include "societies.h"
#include "common/choose.h"
#include "common/error.h"

#include <math.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <stdlib.h>
#include <string.h>

int societies_agents_new(const societies_config *c, societies_agents *a)
{
    memset(a, 0, sizeof *a);
    size_t cells = (size_t)c->agents * (size_t)c->resources;
    a->agents = c->agents;
    a->resources = c->resources;
    a->units = calloc(cells, sizeof *a->units);
    a->experience = calloc(cells, sizeof *a->experience);
    a->rng = malloc((size_t)c->agents * sizeof *a->rng);
    if (!a->units || !a->experience || !a->rng) {
        societies_agents_free(a);
        return app_fail(APP_ERR_NO_MEMORY, "societies: no memory "
                        "for %d agents of %d resources", c->agents,
                        c->resources);
    }
    /* Stream i + 1 is MWC64X_STREAM_GAP steps after stream i: one jump
     * each, where mwc64x_stream would compute the power every time (5 s
     * for a million agents). */
    CLF_ULONG gap = mwc64x_power(MWC64X_STREAM_GAP);
    a->rng[0] = mwc64x_stream(c->seed, 0);
    for (int i = 1; i < c->agents; i++)
        a->rng[i] = mwc64x_jump(a->rng[i - 1], gap);
    return 0;
}

void societies_agents_free(societies_agents *a)
{
    free(a->units);
    free(a->experience);
    free(a->rng);
    memset(a, 0, sizeof *a);
}

/* Resource r's gain per minute and the minutes its next unit costs. */
static void value_resource(const societies_config *c, const CLF_INT *units,
                           const CLF_INT *experience, int r, float *gpm,
                           float *effort)
{
    effort[r] = societies_effort(c->min_effort, c->max_effort,
                                 c->max_experience, experience[r]);
    gpm[r] = societies_gain_per_minute(c->utility_level[r],
                                       c->utility_root[r], units[r],
                                       effort[r]);
}

/* How far value v is from threshold t, relative to t. */
static float relative_distance(float v, float t)
{
    return fabsf(v - t) / t;
}

int societies_phase1_agent(const societies_config *c, CLF_INT *units,
                           CLF_INT *experience, mwc64x_state *rng,
                           societies_day *day)
{
    float gpm[SOCIETIES_MAX_RESOURCES], effort[SOCIETIES_MAX_RESOURCES];
    unsigned char extracted[SOCIETIES_MAX_RESOURCES] = {0};
    int n = c->resources, made = 0;
    float used = 0.0f, closest = INFINITY;
    for (int r = 0; r < n; r++)
        value_resource(c, units, experience, r, gpm, effort);
    for (;;) {
        if (day)
            closest = fminf(closest, relative_distance(
                                         used, (float)c->minutes_per_day));
        if (!(used < (float)c->minutes_per_day))
            break;
        int best = 0;
        for (int r = 1; r < n; r++)
            best = gpm[r] > gpm[best] ? r : best;
        /* The candidates, chosen among by one draw as the device does. */
        float threshold = (1.0f - c->epsilon) * gpm[best];
        unsigned char candidate[SOCIETIES_MAX_RESOURCES];
        for (int r = 0; r < n; r++) {
            candidate[r] = gpm[r] >= threshold;
            /* A resource in the best's state has the best's value on
             * every device; any other is a near tie if close. */
            if (day && (units[r] != units[best] ||
                        experience[r] != experience[best] ||
                        c->utility_level[r] != c->utility_level[best] ||
                        c->utility_root[r] != c->utility_root[best]))
                closest = fminf(closest,
                                relative_distance(gpm[r], threshold));
        }
        int chosen = group_choose_host(candidate, n, mwc64x_draw(*rng));
        *rng = mwc64x_step(*rng);
        if (chosen < 0)
            break;      /* as the device: only a NaN could do it */
        used += effort[chosen];
        units[chosen]++;
        experience[chosen]++;
        extracted[chosen] = 1;
        made++;
        /* Only the chosen resource changes. */
        value_resource(c, units, experience, chosen, gpm, effort);
    }
    for (int r = 0; r < n; r++) {
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

int societies_threads(int threads)
{
#ifdef _OPENMP
    return threads > 0 ? threads : omp_get_max_threads();
#else
    (void)threads;
    return 1;
#endif
}

long societies_phase1(const societies_config *c, societies_agents *a,
                      int threads)
{
    long made = 0;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : made) \
    num_threads(societies_threads(threads))
#else
    (void)threads;      /* OPENMP_FLAGS= builds without OpenMP */
#endif
    for (int i = 0; i < a->agents; i++) {
        size_t at = (size_t)i * (size_t)a->resources;
        made += societies_phase1_agent(c, a->units + at, a->experience + at,
                                       &a->rng[i], NULL);
    }
    return made;
}
