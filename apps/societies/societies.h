/*
 * societies.h: the Societies simulation (apps/societies/SPEC.md):
 * its configuration (defaults, key = value files, the definitions kernels
 * are built with; config.c), the agents and the C references of phase 1
 * (extraction; phase1.c) and phase 2 (trading; phase2.c), with OpenMP
 * versions, the same phases on a device (device.c,
 * apps/societies/kernels/phase*.cl), and runs of days with their summaries,
 * CSV and plot (run.c). The model, its configuration struct and formulas
 * are apps/societies/kernels/model.h, shared with the device.
 */
#ifndef APPS_SOCIETIES_H
#define APPS_SOCIETIES_H

#include "societies/kernels/agent.h"
#include "lib/mwc64x.h"
#include "common/versions.h"

#include <stddef.h>
#include <stdio.h>

/* clframe's context (clframe.h), which the OpenCL versions run on. */
typedef struct clctx clctx;

/* Agents: agent a draws from MWC64X stream a of the seed, the pairing
 * (phase 2) from the last of the 2^23 streams mwc64x.h fits
 * (SOCIETIES_PAIRING_STREAM below); 2^22 agents keep the two apart and
 * leave the upper half of the streams free for later phases. */
#define SOCIETIES_MAX_AGENTS (1 << 22)

/* The defaults: 1000 agents, 16 resources, 10 days of 600 minutes, D 1
 * and n 2 for every resource, epsilon 0.05, maximum experience 100,
 * effort 1 to 10 minutes, menus of 4, 4 trades a pairing, an idle penalty
 * of 1, seed 1. */
void societies_config_default(societies_config *c);

/* Applies `text`, key = value lines, to c (start from the defaults).
 * A comment runs from '#' to the end of its line, after a value too;
 * blank lines are skipped; a key may be given once. Keys: agents,
 * resources, days, minutes_per_day, max_experience, menu_size,
 * trades_per_pairing, idle_penalty, epsilon, min_effort, max_effort,
 * seed, and utility_level and utility_root: one number for every resource,
 * or one per resource (as many as `resources` says when the text ends).
 * `name` is what messages call the text. 0, or APP_ERR_BAD_INPUT with
 * "NAME:LINE: ..." naming the key and what is wrong; then validated as
 * societies_config_check does. */
int societies_config_parse(const char *text, const char *name,
                           societies_config *c);
/* The same from a file of at most SOCIETIES_CONFIG_MAX_BYTES (the
 * longest real one is a few KB: two lists of 256 numbers) and of text
 * alone (a NUL byte is refused with its line and offset), so that
 * /dev/zero or an endless pipe is refused at once. A file that cannot be
 * read is APP_ERR_IO. */
#define SOCIETIES_CONFIG_MAX_BYTES (1 << 20)
int societies_config_read(const char *path, societies_config *c);

/* 0 if every value is in its range (resources at most max_resources, the
 * device's work-group limit, and at most SOCIETIES_MAX_RESOURCES; 0 for
 * no device limit), else APP_ERR_BAD_INPUT naming the value. */
int societies_config_check(const societies_config *c, size_t max_resources);

/* The values a kernel is built with, as OpenCL build options
 * ("-DSOCIETIES_RESOURCES=16 ..."): known at build time, they cost no
 * memory reads (the seed's advice), and clframe's program cache keys on
 * them. 0, or APP_ERR_USAGE if size is too small. */
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
 * 0, or APP_ERR_NO_MEMORY; free with societies_agents_free. */
int societies_agents_new(const societies_config *c, societies_agents *a);
void societies_agents_free(societies_agents *a);

/* Phase 1 for one agent and one day, the C reference, is
 * societies_phase1_agent (kernels/agent.h, shared with the CPU kernels),
 * with societies_day, how near the day came to a tie. */
/* Phase 1 for every agent, one day, in `threads` OpenMP threads (1: the
 * plain C reference; 0: OpenMP's default; the results are the same); the
 * units extracted in all. */
long societies_phase1(const societies_config *c, societies_agents *a,
                      int threads);
/* The OpenMP threads `threads` stands for (0: OpenMP's default; 1 in a
 * build without OpenMP). */
int societies_threads(int threads);

/* ---- phase 2 (phase2.c) ------------------------------------------------- */

/* The stream the pairings are drawn from: the last of the 2^23 streams
 * mwc64x.h fits (agents use streams 0 to agents - 1, at most
 * SOCIETIES_MAX_AGENTS - 1, so the two never meet). */
#define SOCIETIES_PAIRING_STREAM (((CLF_ULONG)1 << 23) - 1)

/* A day's pairing, drawn on the host: a random permutation of the agents
 * 0 to agents - 1 into pairs[0..agents) (Fisher-Yates: for i from
 * agents - 1 down to 1, swap i with j uniform in [0, i], j being a 64-bit
 * number made of two draws of *rng, the first the high half, modulo
 * i + 1, which leaves a bias below 2^-40). Pair p is agents pairs[2p]
 * (A) and pairs[2p + 1] (B); with an odd number the last one sits out.
 * *rng moves on, so the next day's pairing is another. */
void societies_pairing(const societies_config *c, mwc64x_state *rng,
                       CLF_INT *pairs);

/* Phase 2 for one pair, the C reference, is societies_trade_pair
 * (kernels/agent.h). */

/* Phase 2 for every pair of `pairs` (societies_pairing), one day, in
 * `threads` OpenMP threads as societies_phase1; the trades made in all.
 * The pairs are disjoint, so every thread count gives the same result. */
long societies_phase2(const societies_config *c, societies_agents *a,
                      const CLF_INT *pairs, int threads);

/* ---- on a device (device.c) ------------------------------------------- */

/* The versions: where the phases run, and in what shape. */
typedef enum societies_version {
    SOCIETIES_REFERENCE = 0,    /* plain C, one core */
    SOCIETIES_OPENMP,           /* the reference's agents in OpenMP threads */
    SOCIETIES_GROUP,            /* a work-group per agent or pair, a
                                   work-item per resource (GPUs) */
    SOCIETIES_ITEM,             /* a work-item per agent or pair, running
                                   the reference's loops (CPU devices) */
    SOCIETIES_VERSION_COUNT
} societies_version;

/* Their names, "reference", "openmp", "group" and "item", and the
 * defaults: group on a GPU, item on any other device
 * (common/versions.h, which says why). */
extern const app_versions societies_versions;

/* A GPU runs item for societies of this many agents or more: a work-item
 * per agent then fills it, and item outran group from there up, while
 * group won on smaller societies (bench/RESULTS.md, Defaults per device). */
#define SOCIETIES_ITEM_AGENTS 100000

/* The version to run c on ctx's device (NULL: the default device) when
 * none is asked for: the table's default, and item on a GPU from
 * SOCIETIES_ITEM_AGENTS agents. */
societies_version societies_default_version(const societies_config *c,
                                            clctx *ctx);

/* The agents on an OpenCL device, in one of the device versions. */
typedef struct societies_device societies_device;

/* Builds the kernels of version v (SOCIETIES_GROUP or SOCIETIES_ITEM) for
 * c on ctx (NULL: the default) and copies the agents there, into *d; a
 * stays the caller's, and is the host copy societies_device_read fills. 0,
 * or a negative code (another version; a configuration the device cannot
 * run: more resources than its work-groups hold, for group; a kernel that
 * does not build; no memory). */
int societies_device_new(clctx *ctx, const societies_config *c,
                         societies_agents *a, societies_version v,
                         societies_device **d);
void societies_device_free(societies_device *d);

/* Phase 1 for every agent, one day, as societies_phase1 does it; the
 * units extracted, or a negative code. */
long societies_device_phase1(societies_device *d);

/* Copies the agents' units, experience and streams to the host copy;
 * or their units only, all a summary needs. */
int societies_device_read(societies_device *d);
int societies_device_read_units(societies_device *d);

/* Phase 2 for every pair of `pairs`, as societies_phase2 does it; the
 * trades made, or a negative code. */
long societies_device_phase2(societies_device *d, const CLF_INT *pairs);

/* ---- runs and their summaries (run.c) ----------------------------------- */

/* A day of a run, summarised. units: the units an agent holds (of every
 * resource together), quantiles by nearest rank: the least, the first
 * quartile, the median, the third quartile and the most. */
typedef struct societies_summary {
    int day;                    /* 0: before the first */
    double total_utility;       /* of every agent and resource */
    long units[5];
    long extracted, trades;     /* that day */
    double phase1_s, phase2_s;  /* seconds, the pairing in phase 2's */
    societies_version version;  /* that ran it (a default resolved) */
} societies_summary;

/* The summary's utility and quantiles for agents a. 0 or a code. */
int societies_summarize(const societies_config *c, const societies_agents *a,
                        societies_summary *s);

/* Called after every day (day 0 first); a non-zero return stops the run
 * and is its result. */
typedef int (*societies_report)(const societies_summary *s, void *user);

/* Runs c->days days, each phase 1 then phase 2 for every agent, by
 * version v, or -1 for the device's default; a device version runs on the
 * device `where` selects (a CLFRAME_DEVICE selector; NULL: the default).
 * Every version gives the same society, up to near ties on a device.
 * report sees day 0 (the start) to c->days. 0 or a negative code. */
int societies_simulate(const societies_config *c, int v, const char *where,
                       societies_report report, void *user);

/* The same a day at a time, for programs that time or watch the days: a
 * run of c (which must outlive it) as societies_simulate's v and where
 * say, its agents new. */
typedef struct societies_run societies_run;
int societies_run_open(societies_run **run, const societies_config *c,
                       int v, const char *where);
void societies_run_close(societies_run *run);
/* The next day: fills s's day, extracted, trades and phase times. */
int societies_run_day(societies_run *run, societies_summary *s);
/* Fills s's day, utility and quantiles from the agents as they are now
 * (a device run copies their units to the host first). */
int societies_run_summarize(societies_run *run, societies_summary *s);

/* The summary as CSV: a header line, then a line per day. */
void societies_csv_header(FILE *out);
void societies_csv_row(FILE *out, const societies_summary *s);

/* Plots a run's CSV into a PNG with gnuplot: the quantiles of holdings
 * and the total utility by day. 0, or APP_ERR_IO. */
int societies_plot(const char *csv, const char *png);

#endif /* APPS_SOCIETIES_H */
