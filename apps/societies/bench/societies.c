/*
 * societies.c (bin/bench-societies): the Societies table of `make bench`.
 * For each number of agents and of resources, `days` days of the
 * simulation (the defaults, with epsilon 0.2 so that agents come to differ
 * and trade) from new agents, by the C reference on one core, its OpenMP
 * version and both device versions (group and item), with the ratio of
 * the device's default to the reference: agents per second in phase 1
 * (extraction) and pairs per second in phase 2 (trading, the host's
 * pairing included), each the median of `runs` runs. The CPU versions' work per agent does
 * not depend on the number of agents, so they run at most ref_cap and
 * omp_cap agents (a million agents of 256 resources would take the
 * reference hours); the table says when. Where the reference ran every
 * agent, each device version's society is checked against it: the same total
 * utility within 1 % (near ties send agents along other paths; seeds
 * alone move it by 0.2 % at 2000 agents).
 *
 * usage: bench-societies [agents=1000,10000] [resources=16,64]
 *                        [days=3] [runs=3] [ref_cap=2000] [omp_cap=20000]
 */
#include "clframe.h"
#include "median.h"
#include "common/parse.h"
#include "societies/societies.h"
#include "common/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_RUNS = 21, MAX_LIST = 16 };

/* What one version did in a run. */
typedef struct timing {
    int agents;                     /* how many it ran */
    double agents_per_s, pairs_per_s;
    double utility;                 /* at the end */
    long trades;
} timing;

/* `runs` runs of c by version v; the medians of the rates. */
static int time_version(const societies_config *c, societies_version v,
                        int runs, timing *t)
{
    double phase1[MAX_RUNS], phase2[MAX_RUNS];
    int rc = 0;
    t->agents = c->agents;
    t->trades = 0;
    for (int i = 0; i < runs && rc == 0; i++) {
        societies_run *run;
        societies_summary s = {0};
        phase1[i] = phase2[i] = 0;
        long trades = 0;
        rc = societies_run_open(&run, c, (int)v, NULL);
        for (int day = 0; rc == 0 && day < c->days; day++) {
            rc = societies_run_day(run, &s);
            phase1[i] += s.phase1_s;
            phase2[i] += s.phase2_s;
            trades += s.trades;
        }
        if (rc == 0)
            rc = societies_run_summarize(run, &s);
        societies_run_close(run);
        t->utility = s.total_utility;
        t->trades = trades;
    }
    if (rc)
        return rc;
    double days = c->days;
    t->agents_per_s = c->agents * days / median_of(phase1, runs);
    t->pairs_per_s = (c->agents / 2) * days / median_of(phase2, runs);
    return 0;
}

/* "yes" if t's society ended with ref's total utility, within 1 %. */
static const char *agrees(const timing *t, const timing *ref)
{
    return fabs(t->utility - ref->utility) <= 1e-2 * ref->utility ? "yes"
                                                                   : "NO";
}

static void print_rate(double rate)
{
    printf(" %.3g |", rate);
}

int main(int argc, char **argv)
{
    unsigned long agents[MAX_LIST] = {1000, 10000};
    unsigned long resources[MAX_LIST] = {16, 64};
    int n_agents = 2, n_resources = 2;
    unsigned long days = 3, runs = 3, ref_cap = 2000, omp_cap = 20000;
    if ((argc > 1 && !(n_agents = parse_uint_list("agents", argv[1], 2,
                                                  SOCIETIES_MAX_AGENTS,
                                                  agents, MAX_LIST))) ||
        (argc > 2 && !(n_resources = parse_uint_list("resources", argv[2], 1,
                                                     SOCIETIES_MAX_RESOURCES,
                                                     resources, MAX_LIST))) ||
        (argc > 3 && !parse_uint(argv[3], 1, 1000, &days)) ||
        (argc > 4 && !parse_uint(argv[4], 1, MAX_RUNS, &runs)) ||
        (argc > 5 && !parse_uint(argv[5], 2, SOCIETIES_MAX_AGENTS, &ref_cap)) ||
        (argc > 6 && !parse_uint(argv[6], 2, SOCIETIES_MAX_AGENTS, &omp_cap)) ||
        argc > 7) {
        if (n_agents == 0 || n_resources == 0)
            fprintf(stderr, "bench-societies: %s\n", app_last_error());
        fprintf(stderr, "usage: bench-societies [agents=1000,10000] "
                "[resources=16,64] [days=3] [runs=3] [ref_cap=2000] "
                "[omp_cap=20000]\n");
        return 2;
    }
    clctx *ctx = clctx_default();
    if (!ctx) {
        fprintf(stderr, "bench-societies: %s\n", app_last_error());
        return 1;
    }
    printf("Societies, %lu days from new agents (defaults, epsilon 0.2); "
           "median of %lu runs; OpenMP %d threads; device %s\n\n", days, runs,
           societies_threads(0), clctx_describe(ctx));
    printf("| agents | resources | phase 1 agents/s: reference | openmp | "
           "group | item | default / reference | phase 2 pairs/s: "
           "reference | openmp | group | item | default / reference | "
           "trades a pair-day | group, item = reference |\n"
           "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
           "---:|:---:|\n");
    int rc = 0;
    for (int i = 0; i < n_agents && rc == 0; i++)
        for (int j = 0; j < n_resources && rc == 0; j++) {
            societies_config c;
            societies_config_default(&c);
            c.agents = (int)agents[i];
            c.resources = (int)resources[j];
            c.days = (int)days;
            c.epsilon = 0.2f;
            if (c.menu_size > c.resources)
                c.menu_size = c.resources;
            timing t[SOCIETIES_VERSION_COUNT];
            societies_config small = c;
            small.agents = c.agents < (int)ref_cap ? c.agents : (int)ref_cap;
            rc = time_version(&small, SOCIETIES_REFERENCE, (int)runs,
                              &t[SOCIETIES_REFERENCE]);
            small.agents = c.agents < (int)omp_cap ? c.agents : (int)omp_cap;
            if (rc == 0)
                rc = time_version(&small, SOCIETIES_OPENMP, (int)runs,
                                  &t[SOCIETIES_OPENMP]);
            for (int v = SOCIETIES_GROUP; rc == 0 && v <= SOCIETIES_ITEM; v++)
                rc = time_version(&c, v, (int)runs, &t[v]);
            if (rc)
                break;
            societies_version v_default = societies_default_version(&c, ctx);
            const timing *ref = &t[SOCIETIES_REFERENCE], *def = &t[v_default];
            printf("| %d | %d |", c.agents, c.resources);
            for (int v = 0; v < SOCIETIES_VERSION_COUNT; v++)
                print_rate(t[v].agents_per_s);
            printf(" %.1fx (%s) |", def->agents_per_s / ref->agents_per_s,
                   app_version_name(&societies_versions, v_default));
            for (int v = 0; v < SOCIETIES_VERSION_COUNT; v++)
                print_rate(t[v].pairs_per_s);
            printf(" %.1fx | %.2f |", def->pairs_per_s / ref->pairs_per_s,
                   (double)def->trades / (c.agents / 2) / c.days);
            if (ref->agents < c.agents)
                printf(" - (reference ran %d, OpenMP %d) |\n", ref->agents,
                       t[SOCIETIES_OPENMP].agents);
            else
                printf(" %s, %s |\n", agrees(&t[SOCIETIES_GROUP], ref),
                       agrees(&t[SOCIETIES_ITEM], ref));
            fflush(stdout);
        }
    if (rc) {
        fprintf(stderr, "bench-societies: %s\n", app_last_error());
        return 1;
    }
    return 0;
}
