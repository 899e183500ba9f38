/*
 * device.c: the Societies simulation on an OpenCL device. The agents'
 * units, experience and random streams stay on the device between phases
 * and days (persistent clframe buffers); a phase moves only what it must:
 * phase 1 its per-agent counts back, phase 2 the day's pairs in and the
 * trades back. The kernels are built with the configuration as
 * definitions (societies_config_defines), so clframe's program cache
 * keeps one program per configuration.
 */
#include "societies.h"
#include "common/error.h"
#include "clframe.h"

#include <stdlib.h>

/* apps/societies/kernels, compiled in (scripts/embed-sources). */
extern const clframe_source societies_kernel_sources[];

struct societies_device {
    clctx *ctx;
    societies_config config;
    societies_agents *agents;       /* the host copy, read on request */
    clkernel *phase1, *phase2;
    clarg units, experience, rng, level, root;
    CLF_INT *made;                  /* per agent, from the last phase 1 */
    CLF_INT *trades;                /* per pair, from the last phase 2 */
};

/* Builds kernel `name` of `path` for the configuration into *k, in
 * work-groups of a work-item per resource, `items` groups. */
static int build(societies_device *d, clkernel **k, const char *path,
                 const char *name, size_t items)
{
    char defines[512];
    int rc = societies_config_defines(&d->config, defines, sizeof defines);
    if (rc)
        return rc;
    if ((rc = clframe_add_sources(societies_kernel_sources)))
        return rc;
    if (!(*k = clkernel_file(d->ctx, path, name, defines)))
        return CLFRAME_ERR_BUILD;
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

int societies_device_new(clctx *ctx, const societies_config *c,
                         societies_agents *a, societies_device **out)
{
    *out = NULL;
    if (!c || !a || a->agents != c->agents || a->resources != c->resources)
        return app_fail(APP_ERR_USAGE, "societies_device_new: no "
                        "configuration or agents, or agents of another "
                        "size");
    if (!ctx && !(ctx = clctx_default()))
        return CLFRAME_ERR_NO_DEVICE;
    int rc = societies_config_check(c, clctx_max_work_group_size(ctx));
    if (rc)
        return rc;
    societies_device *d = calloc(1, sizeof *d);
    if (!d)
        return app_fail(APP_ERR_NO_MEMORY, "societies: no memory");
    d->ctx = ctx;
    d->config = *c;
    d->agents = a;
    size_t cells = (size_t)a->agents * (size_t)a->resources;
    d->units = CLARG_INOUT(a->units, cells);
    d->experience = CLARG_INOUT(a->experience, cells);
    d->rng = CLARG_TYPED("mwc64x_state", a->rng, (size_t)a->agents,
                         CLARG_TO_DEVICE | CLARG_FROM_DEVICE);
    d->level = CLARG_IN(d->config.utility_level, (size_t)c->resources);
    d->root = CLARG_IN(d->config.utility_root, (size_t)c->resources);
    d->made = malloc((size_t)a->agents * sizeof *d->made);
    d->trades = malloc((size_t)(a->agents / 2 + 1) * sizeof *d->trades);
    if (!d->made || !d->trades)
        rc = app_fail(APP_ERR_NO_MEMORY, "societies: no memory");
    if (rc == 0)
        rc = build(d, &d->phase1, "apps/societies/kernels/phase1.cl",
                   "societies_phase1", (size_t)a->agents);
    if (rc == 0 && a->agents >= 2)     /* no pair, no kernel to run */
        rc = build(d, &d->phase2, "apps/societies/kernels/phase2.cl",
                   "societies_phase2", (size_t)(a->agents / 2));
    clarg *kept[] = {&d->units, &d->experience, &d->rng, &d->level, &d->root};
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
    clarg *kept[] = {&d->units, &d->experience, &d->rng, &d->level, &d->root};
    for (size_t i = 0; i < sizeof kept / sizeof *kept; i++)
        clarg_release(kept[i]);
    clkernel_free(d->phase1);
    clkernel_free(d->phase2);
    free(d->made);
    free(d->trades);
    free(d);
}

long societies_device_phase1(societies_device *d)
{
    int agents = d->config.agents;
    int rc = clkernel_call(d->phase1, d->units, d->experience, d->rng,
                           d->level, d->root, CLARG_OUT(d->made, agents));
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
    int rc = clkernel_call(d->phase2, d->units,
                           CLARG_IN(pairs, 2 * (size_t)count), d->level,
                           d->root, CLARG_OUT(d->trades, count));
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
