/*
 * run.c: the Societies host driver. It runs the days of a simulation,
 * phase 1 then phase 2 for every agent, on the C reference, its OpenMP
 * version or a device, and summarises each day: total utility, the
 * quantiles of the units agents hold, the units extracted and the trades
 * made; as CSV, and as a PNG plot drawn by gnuplot.
 */
#include "societies.h"
#include "common/clock.h"
#include "common/plot.h"
#include "common/error.h"
#include "clframe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const app_version versions[SOCIETIES_VERSION_COUNT] = {
    [SOCIETIES_REFERENCE] = {"reference", NULL, 0},
    [SOCIETIES_OPENMP] = {"openmp", NULL, 0},
    [SOCIETIES_GROUP] = {"group", NULL, 1},
    [SOCIETIES_ITEM] = {"item", NULL, 1},
};
const app_versions societies_versions = {versions, SOCIETIES_VERSION_COUNT,
                                         SOCIETIES_GROUP, SOCIETIES_ITEM};

societies_version societies_default_version(const societies_config *c,
                                            clctx *ctx)
{
    if (c->agents >= SOCIETIES_ITEM_AGENTS)
        return SOCIETIES_ITEM;
    return (societies_version)app_version_default(&societies_versions, ctx);
}

/* A run: its agents, and where its phases happen. */
struct societies_run {
    const societies_config *c;
    societies_agents agents;
    societies_version version;
    int threads;                    /* 1 reference, 0 OpenMP */
    clctx *ctx;                     /* a device selector's, or NULL */
    societies_device *device;
    mwc64x_state pairing;           /* the stream pairings are drawn from */
    CLF_INT *pairs;
    int day;                        /* days run */
};

static int compare_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

int societies_summarize(const societies_config *c, const societies_agents *a,
                        societies_summary *s)
{
    long *held = malloc((size_t)a->agents * sizeof *held);
    double *utility = malloc((size_t)a->agents * sizeof *utility);
    if (!held || !utility) {
        free(held);
        free(utility);
        return app_fail(APP_ERR_NO_MEMORY, "societies: no memory "
                        "for the summary of %d agents", a->agents);
    }
    /* Agents in parallel, their utilities added in order afterwards: the
     * same total for any number of threads. */
#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
    for (int i = 0; i < a->agents; i++) {
        const CLF_INT *units = a->units + (size_t)i * (size_t)a->resources;
        held[i] = 0;
        utility[i] = 0;
        for (int r = 0; r < a->resources; r++) {
            held[i] += units[r];
            utility[i] += societies_utility(c->utility_level[r],
                                            c->utility_root[r], units[r]);
        }
    }
    s->total_utility = 0;
    for (int i = 0; i < a->agents; i++)
        s->total_utility += utility[i];
    qsort(held, (size_t)a->agents, sizeof *held, compare_long);
    /* Nearest rank: quantile q is the agent at q (agents - 1). */
    for (int q = 0; q < 5; q++)
        s->units[q] = held[(size_t)((double)q / 4 * (a->agents - 1) + 0.5)];
    free(held);
    free(utility);
    return 0;
}

void societies_csv_header(FILE *out)
{
    fputs("day,total_utility,units_min,units_q1,units_median,units_q3,"
          "units_max,extracted,trades\n", out);
}

void societies_csv_row(FILE *out, const societies_summary *s)
{
    fprintf(out, "%d,%.6g,%ld,%ld,%ld,%ld,%ld,%ld,%ld\n", s->day,
            s->total_utility, s->units[0], s->units[1], s->units[2],
            s->units[3], s->units[4], s->extracted, s->trades);
}

int societies_run_open(societies_run **out, const societies_config *c,
                       int v, const char *where)
{
    *out = NULL;
    int rc = societies_config_check(c, 0);
    if (rc)
        return rc;
    if (v >= SOCIETIES_VERSION_COUNT)
        return app_fail(APP_ERR_USAGE, "societies: no version %d", v);
    societies_run *run = calloc(1, sizeof *run);
    if (!run)
        return app_fail(APP_ERR_NO_MEMORY, "societies: no memory");
    run->c = c;
    run->pairing = mwc64x_stream(c->seed, SOCIETIES_PAIRING_STREAM);
    run->pairs = malloc((size_t)c->agents * sizeof *run->pairs);
    rc = run->pairs ? societies_agents_new(c, &run->agents)
                    : app_fail(APP_ERR_NO_MEMORY, "societies: no "
                               "memory for %d agents", c->agents);
    int on_device = v < 0 || app_version_uses_opencl(&societies_versions, v);
    if (rc == 0 && on_device && where && !(run->ctx = clctx_new(where)))
        rc = CLFRAME_ERR_NO_DEVICE;
    run->version = v >= 0 || rc ? (societies_version)v
                                : societies_default_version(c, run->ctx);
    run->threads = run->version == SOCIETIES_REFERENCE ? 1 : 0;
    if (rc == 0 && on_device)
        rc = societies_device_new(run->ctx, c, &run->agents, run->version,
                                  &run->device);
    if (rc) {
        societies_run_close(run);
        return rc;
    }
    *out = run;
    return 0;
}

void societies_run_close(societies_run *run)
{
    if (!run)
        return;
    societies_device_free(run->device);
    clctx_free(run->ctx);
    societies_agents_free(&run->agents);
    free(run->pairs);
    free(run);
}

int societies_run_day(societies_run *run, societies_summary *s)
{
    const societies_config *c = run->c;
    s->day = ++run->day;
    s->version = run->version;
    double start = clock_seconds();
    s->extracted = run->device ? societies_device_phase1(run->device)
                               : societies_phase1(c, &run->agents,
                                                  run->threads);
    if (s->extracted < 0)
        return (int)s->extracted;
    double middle = clock_seconds();
    societies_pairing(c, &run->pairing, run->pairs);
    s->trades = run->device
                    ? societies_device_phase2(run->device, run->pairs)
                    : societies_phase2(c, &run->agents, run->pairs,
                                       run->threads);
    if (s->trades < 0)
        return (int)s->trades;
    s->phase1_s = middle - start;
    s->phase2_s = clock_seconds() - middle;
    return 0;
}

int societies_run_summarize(societies_run *run, societies_summary *s)
{
    s->day = run->day;
    s->version = run->version;
    int rc = run->device ? societies_device_read_units(run->device) : 0;
    return rc ? rc : societies_summarize(run->c, &run->agents, s);
}

int societies_simulate(const societies_config *c, int v, const char *where,
                       societies_report report, void *user)
{
    societies_run *run;
    int rc = societies_run_open(&run, c, v, where);
    societies_summary s = {0};
    for (int day = 0; rc == 0 && day <= c->days; day++) {
        if (day > 0)
            rc = societies_run_day(run, &s);
        /* A summary costs a read-back and a sort: only for a reader. */
        if (rc == 0 && report)
            rc = societies_run_summarize(run, &s);
        if (rc == 0 && report)
            rc = report(&s, user);
    }
    societies_run_close(run);
    return rc;
}

int societies_plot(const char *csv, const char *png)
{
    static const plot_chart chart = {960, 540,
        "Societies: the holdings of agents (quantiles) and total utility",
        "set key autotitle columnhead left top\n"
        "set xlabel 'day'\n"
        "set ylabel 'units an agent holds'\n"
        "set y2label 'total utility'\n"
        "set ytics nomirror\n"
        "set y2tics\n"
        "plot $data using 1:4:6 with filledcurves lc rgb '#c0d0f0' "
        "title 'units, middle half', "
        "$data using 1:5 with lines lw 2 title 'units, median', "
        "$data using 1:2 axes x1y2 with lines lw 2 title 'total utility'\n"};
    return plot_csv_png(csv, png, &chart);
}
