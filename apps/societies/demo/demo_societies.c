/*
 * demo_societies.c: the Societies simulation (apps/societies): 2000 agents
 * of 16 resources for 5 days, each day extraction then trading, on the
 * device (Societies' default version there: a work-group per agent on a
 * GPU, a work-item per agent on a CPU) and in the C reference, the last
 * day's summaries compared. The device makes the reference's choices
 * except at near ties; an agent whose tie went the other way follows
 * another path, so the societies agree statistically: total utility within 1 % (seeds alone move it by
 * 0.2 % at this size, most around day 5, when experience makes extraction
 * take off), trades within 5 %. Times are the two phases of every day;
 * the kernel column is empty (two kernels a day, and the host's pairing).
 * The benchmark table runs 10000 agents.
 */
#include "demo/demo.h"

#include "societies/societies.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Keeps the last day's summary and adds up the phases' times. */
typedef struct demo_run {
    societies_summary last;
    double ms;
    long trades;
} demo_run;

static int keep(const societies_summary *s, void *user)
{
    demo_run *run = user;
    run->last = *s;
    run->ms += 1e3 * (s->phase1_s + s->phase2_s);
    run->trades += s->trades;
    return 0;
}

int demo_societies(demo_result *r, demo_scale scale)
{
    societies_config c;
    societies_config_default(&c);
    c.agents = scale == DEMO_SMALL ? 2000 : 10000;
    c.days = 5;
    c.epsilon = 0.2f;
    snprintf(r->size, sizeof r->size, "%d x %d, %d days", c.agents,
             c.resources, c.days);
    r->kernel_ms = -1;
    demo_run want = {0}, got = {0}, omp = {0};
    int rc = societies_simulate(&c, SOCIETIES_REFERENCE, NULL, keep, &want);
    if (rc == 0)
        rc = societies_simulate(&c, SOCIETIES_OPENMP, NULL, keep, &omp);
    if (rc)
        return demo_fail(r, rc, "societies: the reference or OpenMP");
    r->ref_ms = want.ms;
    r->omp_ms = omp.ms;
    int version = demo_name_version(r, &societies_versions,
                                    societies_default_version(&c, NULL));
    if ((rc = societies_simulate(&c, version, NULL, keep, &got)))
        return demo_fail(r, rc, "societies: the device");
    r->call_ms = got.ms;
    double u = got.last.total_utility, v = want.last.total_utility;
    r->ok = fabs(u - v) <= 1e-2 * v &&
            labs(got.trades - want.trades) <= want.trades / 20 + 2;
    snprintf(r->verdict, sizeof r->verdict, r->ok ? "ok" :
             "MISMATCH: utility %.6g trades %ld, reference %.6g and %ld", u,
             got.trades, v, want.trades);
    snprintf(r->note, sizeof r->note, "societies: after %d days the agents "
             "hold %.6g of utility (a median of %ld units) and made %ld "
             "trades on the device; the reference: %.6g and %ld", c.days, u,
             got.last.units[2], got.trades, v, want.trades);
    return 0;
}
