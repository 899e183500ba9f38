/*
 * societies.h: the Societies simulation on the host (issue 8; the model,
 * its configuration struct and formulas are kernels/societies/model.h,
 * shared with the device). So far: the configuration, its defaults, its
 * file (key = value lines) and the definitions kernels are built with;
 * the agents and the C reference of phase 1.
 */
#ifndef APPS_SOCIETIES_H
#define APPS_SOCIETIES_H

#include "societies/model.h"
#include "lib/mwc64x.h"
#include "clframe.h"

#include <stddef.h>

/* The defaults: 1000 agents, 16 resources, 10 days of 600 minutes, D 1
 * and n 2 for every resource, epsilon 0.05, maximum experience 100,
 * effort 1 to 10 minutes, menus of 4, 4 trades a pairing, an idle penalty
 * of 1, seed 1. */
void societies_config_default(societies_config *c);

/* Applies `text`, key = value lines, to c (start from the defaults).
 * Blank lines and lines starting with '#' are skipped. Keys: agents,
 * resources, days, minutes_per_day, max_experience, menu_size,
 * trades_per_pairing, idle_penalty, epsilon, min_effort, max_effort,
 * seed, and utility_level and utility_root: one number for every resource,
 * or one per resource (as many as `resources` says when the text ends).
 * `name` is what messages call the text. 0, or CLFRAME_ERR_BAD_INPUT with
 * "NAME:LINE: ..." naming the key and what is wrong; then validated as
 * societies_config_check does. */
int societies_config_parse(const char *text, const char *name,
                           societies_config *c);
/* The same from a file; a file that cannot be read is CLFRAME_ERR_IO. */
int societies_config_read(const char *path, societies_config *c);

/* 0 if every value is in its range (resources at most max_resources, the
 * device's work-group limit, and at most SOCIETIES_MAX_RESOURCES; 0 for
 * no device limit), else CLFRAME_ERR_BAD_INPUT naming the value. */
int societies_config_check(const societies_config *c, size_t max_resources);

/* The values a kernel is built with, as OpenCL build options
 * ("-DSOCIETIES_RESOURCES=16 ..."): known at build time, they cost no
 * memory reads (the seed's advice), and clframe's program cache keys on
 * them. 0, or CLFRAME_ERR_BAD_SIZE if size is too small. */
int societies_config_defines(const societies_config *c, char *buf,
                             size_t size);

/* ---- agents and phase 1 (phase1.c) ------------------------------------- */

/* Every agent's holdings, agent-major: units[a * resources + r], and the
 * same for experience; rng[a] is agent a's MWC64X stream. */
typedef struct societies_agents {
    int agents, resources;
    CLF_INT *units;
    CLF_INT *experience;
    mwc64x_state *rng;
} societies_agents;

/* Agents with nothing and no experience, agent a on stream a of the seed.
 * 0, or CLFRAME_ERR_NO_MEMORY; free with societies_agents_free. */
int societies_agents_new(const societies_config *c, societies_agents *a);
void societies_agents_free(societies_agents *a);

/* Phase 1, resource extraction, for one agent and one day (the C
 * reference): while the day has minutes left, the agent extracts a unit
 * of a resource chosen uniformly at random (one draw of its stream) among
 * the candidates, those whose gain per minute is at least (1 - epsilon)
 * times the best, numbered in resource order (group_choose.cl's rule); the
 * unit costs effort(experience) minutes and adds one of experience. An
 * extraction started before the end of the day finishes, so the day's
 * minutes end between minutes_per_day and minutes_per_day + max_effort.
 * At the end, each resource not extracted that day loses idle_penalty
 * experience (not below 0), and experience is clamped to max_experience.
 * The units extracted; the minutes used in *minutes. */
int societies_phase1_agent(const societies_config *c, CLF_INT *units,
                           CLF_INT *experience, mwc64x_state *rng,
                           float *minutes);
/* Phase 1 for every agent, one day; the units extracted in all. */
long societies_phase1(const societies_config *c, societies_agents *a);

#endif /* APPS_SOCIETIES_H */
