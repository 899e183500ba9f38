/*
 * heat.c: the versions of the heat stepper by name, heat_step, the one
 * entry point that checks its input once and hands it to a version, and
 * the check of a step's size that every stepper shares (heat_check_dt).
 */
#include "heat.h"
#include "common/error.h"

#include <math.h>
#include <string.h>

static const app_version versions[HEAT_VERSION_COUNT] = {
    [HEAT_REFERENCE] = {"reference", "step_world", 0},
    [HEAT_OPENMP] = {"openmp", "step_world_openmp", 0},
    [HEAT_V3_NAIVE] = {"v3", "step_world_v3_opencl", 1},
    [HEAT_V4_DOUBLE_BUFFERED] = {"v4", "step_world_v4_double_buffered", 1},
    [HEAT_V5_PACKED] = {"v5", "step_world_v5_packed_properties", 1},
    [HEAT_V6_TILED] = {"v6", "step_world_v6_tiled", 1},
    [HEAT_V7_BLOCKED] = {"v7", "step_world_v7_cpu_blocked", 1},
};
const app_versions heat_versions = {versions, HEAT_VERSION_COUNT,
                                    HEAT_V6_TILED, HEAT_V7_BLOCKED};

int heat_check_dt(float alpha, float dt)
{
    float inner, outer;
    heat_coefficients(alpha, dt, &inner, &outer);
    /* outer >= 4 makes inner <= 0: a cell then takes more heat than it
     * has, and a walled-in cell divides 0 by 0. */
    if (!isfinite(dt) || !(outer >= 0 && outer < 4))
        return app_fail(APP_ERR_BAD_INPUT, "heat: dt = %g with alpha "
                        "= %g gives alpha*dt = %g; it must be in [0, 4)",
                        dt, alpha, outer);
    return 0;
}

int heat_step(heat_world *world, float dt, unsigned steps, heat_version v,
              clctx *ctx, app_timing *timing)
{
    if (!world || !world->properties || !world->state)
        return app_fail(APP_ERR_USAGE, "heat_step: no world");
    /* The border check in validate is what keeps every version in bounds. */
    int rc = heat_world_validate(world);
    if (rc)
        return rc;
    rc = heat_check_dt(world->alpha, dt);
    if (rc)
        return rc;
    if (timing) {
        timing->kernel_ms = 0;
        timing->launches = 0;
    }
    switch (v) {
    case HEAT_REFERENCE:
        return heat_step_reference(world, dt, steps);
    case HEAT_OPENMP:
        return heat_step_openmp(world, dt, steps);
    default:
        if (!app_version_uses_opencl(&heat_versions, v))
            return app_fail(APP_ERR_USAGE, "heat_step: unknown "
                            "version %d", (int)v);
        return heat_step_opencl(world, dt, steps, v, ctx, timing);
    }
}
