/*
 * device.c: the Societies simulation on an OpenCL device, in either shape:
 * group (phase1.cl, phase2.cl: a work-group per agent or pair) or item
 * (agents.cl: a work-item per agent or pair, with the host's table of the
 * model's values as well). The agents' units, experience and random streams
 * stay on the device between phases and days (persistent clframe
 * buffers), with the configuration; a phase moves only what it must:
 * phase 1 its per-agent counts back, phase 2 the day's pairs in and the
 * trades back. The group kernels are built with the configuration as
 * definitions (societies_config_defines), so clframe's program cache keeps
 * one program per configuration; the item kernels read it, one program
 * for all.
 */
#include "societies.h"
#include "common/error.h"
#include "clframe.h"

#include <stdio.h>
#include <stdlib.h>

/* apps/societies/kernels, compiled in (scripts/embed-sources). */
extern const clframe_source societies_kernel_sources[];

struct societies_device {
    clctx *ctx;
    societies_config config;
    societies_agents *agents;       /* the host copy, read on request */
    societies_version version;      /* SOCIETIES_GROUP or SOCIETIES_ITEM */
    clkernel *phase1, *phase2;
    clarg config_arg, units, experience, rng;   /* config_arg: config's */
    CLF_FLOAT *table;               /* item: the host's values (agent.h) */
    clarg table_arg;
    CLF_INT *made;                  /* per agent, from the last phase 1 */
    CLF_INT *trades;                /* per pair, from the last phase 2 */
};

/* The item kernels' work-group. Any size serves (PoCL ran as fast with
 * the size left to it); a small one keeps short the tail by which the
 * global size is rounded up. */
enum { ITEM_GROUP = 8 };

/* Builds phase `phase` (1 or 2) of d's version into *k, for `items`
 * agents or pairs: the group kernel in work-groups of a work-item per
 * resource, or the item kernel in groups of the device's choosing. */
static int build(societies_device *d, clkernel **k, int phase, size_t items)
{
    static const char *const names[2][2] = {
        {"societies_phase1", "societies_phase2"},
        {"societies_phase1_item", "societies_phase2_item"}};
    int item = d->version == SOCIETIES_ITEM;
    const char *name = names[item][phase - 1];
    char defines[512] = "", path[64];
    snprintf(path, sizeof path, "apps/societies/kernels/%s",
             item ? "agents.cl" : phase == 1 ? "phase1.cl" : "phase2.cl");
    /* The item kernels divide as the host does (gain per minute). */
    int rc = item ? snprintf(defines, sizeof defines, "%s",
                             clctx_exact_fp_option(d->ctx)) < 0
                  : societies_config_defines(&d->config, defines,
                                             sizeof defines);
    if (rc == 0)
        rc = clframe_add_sources(societies_kernel_sources);
    if (rc)
        return rc;
    if (!(*k = clkernel_file(d->ctx, path, name, defines)))
        return CLFRAME_ERR_BUILD;
    if (item) {
        rc = clkernel_global(*k, clframe_round_up(items, ITEM_GROUP));
        return rc ? rc : clkernel_local(*k, ITEM_GROUP);
    }
    size_t group = (size_t)d->config.resources;
    if (clkernel_max_group_size(*k) < group)
        return app_fail(APP_ERR_BAD_INPUT, "societies: %s takes "
                        "work-groups of at most %zu work-items on %s, and "
                        "%d resources need one each", name,
                        clkernel_max_group_size(*k),
                        clctx_device_name(d->ctx), d->config.resources);
    rc = clkernel_global(*k, items * group);
    return rc ? rc : clkernel_local(*k, group);
}

/* The item kernels' table (agent.h): the model's values on the host. */
static int fill_table(societies_device *d)
{
    const societies_config *c = &d->config;
    d->table = malloc(SOCIETIES_TABLE_SIZE((size_t)c->resources) *
                      sizeof *d->table);
    if (!d->table)
        return app_fail(APP_ERR_NO_MEMORY, "societies: no memory");
    for (CLF_INT e = 0; e < SOCIETIES_TABLE_EFFORT; e++)
        d->table[e] = societies_effort(c->min_effort, c->max_effort,
                                       c->max_experience, e);
    for (CLF_INT r = 0; r < c->resources; r++) {
        CLF_FLOAT level = c->utility_level[r], root = c->utility_root[r];
        CLF_FLOAT *rows = d->table + SOCIETIES_TABLE_MU(r);
        for (CLF_INT x = 0; x < SOCIETIES_TABLE_UNITS; x++) {
            rows[x] = societies_marginal_utility(level, root, x);
            rows[SOCIETIES_TABLE_UNITS + x] = societies_power_(root, 0, x);
        }
    }
    d->table_arg = CLARG_IN(d->table, SOCIETIES_TABLE_SIZE(
                                          (size_t)c->resources));
    return clarg_keep_on_device(&d->table_arg, d->ctx, 1);
}

int societies_device_new(clctx *ctx, const societies_config *c,
                         societies_agents *a, societies_version v,
                         societies_device **out)
{
    *out = NULL;
    if (!c || !a || a->agents != c->agents || a->resources != c->resources)
        return app_fail(APP_ERR_USAGE, "societies_device_new: no "
                        "configuration or agents, or agents of another "
                        "size");
    if (v != SOCIETIES_GROUP && v != SOCIETIES_ITEM)
        return app_fail(APP_ERR_USAGE, "societies_device_new: %s is not "
                        "a device version",
                        app_version_name(&societies_versions, v));
    if (!ctx && !(ctx = clctx_default()))
        return CLFRAME_ERR_NO_DEVICE;
    /* Only a work-group per agent limits the resources to its size. */
    int rc = societies_config_check(c, v == SOCIETIES_GROUP
                                           ? clctx_max_work_group_size(ctx)
                                           : 0);
    if (rc)
        return rc;
    societies_device *d = calloc(1, sizeof *d);
    if (!d)
        return app_fail(APP_ERR_NO_MEMORY, "societies: no memory");
    d->ctx = ctx;
    d->config = *c;
    d->agents = a;
    d->version = v;
    size_t cells = (size_t)a->agents * (size_t)a->resources;
    d->units = CLARG_INOUT(a->units, cells);
    d->experience = CLARG_INOUT(a->experience, cells);
    d->rng = CLARG_TYPED("mwc64x_state", a->rng, (size_t)a->agents,
                         CLARG_TO_DEVICE | CLARG_FROM_DEVICE);
    d->config_arg = CLARG_TYPED("societies_config", &d->config, 1,
                                CLARG_TO_DEVICE);
    d->made = malloc((size_t)a->agents * sizeof *d->made);
    d->trades = malloc((size_t)(a->agents / 2 + 1) * sizeof *d->trades);
    if (!d->made || !d->trades)
        rc = app_fail(APP_ERR_NO_MEMORY, "societies: no memory");
    if (rc == 0 && v == SOCIETIES_ITEM)
        rc = fill_table(d);
    if (rc == 0)
        rc = build(d, &d->phase1, 1, (size_t)a->agents);
    if (rc == 0 && a->agents >= 2)     /* no pair, no kernel to run */
        rc = build(d, &d->phase2, 2, (size_t)(a->agents / 2));
    clarg *kept[] = {&d->config_arg, &d->units, &d->experience, &d->rng};
    for (size_t i = 0; rc == 0 && i < sizeof kept / sizeof *kept; i++)
        rc = clarg_keep_on_device(kept[i], ctx, 1);
    if (rc) {
        societies_device_free(d);
        return rc;
    }
    *out = d;
    return 0;
}

void societies_device_free(societies_device *d)
{
    if (!d)
        return;
    clarg *kept[] = {&d->config_arg, &d->units, &d->experience, &d->rng,
                     &d->table_arg};
    for (size_t i = 0; i < sizeof kept / sizeof *kept; i++)
        clarg_release(kept[i]);
    free(d->table);
    clkernel_free(d->phase1);
    clkernel_free(d->phase2);
    free(d->made);
    free(d->trades);
    free(d);
}

long societies_device_phase1(societies_device *d)
{
    int agents = d->config.agents;
    clarg counts = CLARG_OUT(d->made, agents);
    int rc = d->version == SOCIETIES_ITEM
                 ? clkernel_call(d->phase1, d->config_arg, d->table_arg,
                                 d->units, d->experience, d->rng, counts)
                 : clkernel_call(d->phase1, d->config_arg, d->units,
                                 d->experience, d->rng, counts);
    if (rc)
        return rc;
    long made = 0;
    for (int i = 0; i < agents; i++)
        made += d->made[i];
    return made;
}

long societies_device_phase2(societies_device *d, const CLF_INT *pairs)
{
    int count = d->config.agents / 2;
    if (count == 0)
        return 0;
    clarg in = CLARG_IN(pairs, 2 * (size_t)count);
    clarg out = CLARG_OUT(d->trades, count);
    int rc = d->version == SOCIETIES_ITEM
                 ? clkernel_call(d->phase2, d->config_arg, d->table_arg,
                                 d->units, in, out)
                 : clkernel_call(d->phase2, d->config_arg, d->units, in, out);
    if (rc)
        return rc;
    long trades = 0;
    for (int p = 0; p < count; p++)
        trades += d->trades[p];
    return trades;
}

int societies_device_read_units(societies_device *d)
{
    return clarg_read(&d->units);
}

int societies_device_read(societies_device *d)
{
    int rc = societies_device_read_units(d);
    if (rc == 0)
        rc = clarg_read(&d->experience);
    if (rc == 0)
        rc = clarg_read(&d->rng);
    return rc;
}
