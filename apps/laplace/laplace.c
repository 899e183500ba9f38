/*
 * laplace.c: the Laplace problem's grid (made, read from a PNG, checked),
 * the versions by name, laplace_solve (the one entry point, which checks
 * its input once and hands it to a version), and the output files.
 */
#include "laplace.h"
#include "common/error.h"

#include "common/parse.h"
#include "common/image.h"
#include "common/save.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const app_version versions[LAPLACE_VERSION_COUNT] = {
    [LAPLACE_REFERENCE] = {"reference", NULL, 0},
    [LAPLACE_OPENMP] = {"openmp", NULL, 0},
    [LAPLACE_SEED] = {"seed", NULL, 1},
    [LAPLACE_DOUBLE] = {"double", NULL, 1},
    [LAPLACE_FAST] = {"fast", NULL, 1},
    [LAPLACE_ROW_BLOCKS] = {"rows", NULL, 1},
};
const app_versions laplace_versions = {versions, LAPLACE_VERSION_COUNT,
                                       LAPLACE_FAST, LAPLACE_ROW_BLOCKS};

/* ---- the grid ------------------------------------------------------------ */

static int check_size(uint32_t nx, uint32_t ny)
{
    if (nx < 3 || ny < 3 || nx > LAPLACE_MAX_SIDE || ny > LAPLACE_MAX_SIDE)
        return app_fail(APP_ERR_BAD_INPUT, "laplace: a %u x %u grid; "
                        "each side must be from 3 to %u", nx, ny,
                        LAPLACE_MAX_SIDE);
    return 0;
}

int laplace_grid_alloc(laplace_grid *g, uint32_t nx, uint32_t ny)
{
    memset(g, 0, sizeof *g);
    int rc = check_size(nx, ny);
    if (rc)
        return rc;
    size_t cells = (size_t)nx * ny;
    g->phi = calloc(cells, sizeof *g->phi);
    g->mask = calloc(cells, 1);
    if (!g->phi || !g->mask) {
        laplace_grid_free(g);
        return app_fail(APP_ERR_NO_MEMORY, "laplace: no memory for a "
                        "%u x %u grid", nx, ny);
    }
    g->nx = nx;
    g->ny = ny;
    return 0;
}

void laplace_grid_free(laplace_grid *g)
{
    if (!g)
        return;
    free(g->phi);
    free(g->mask);
    memset(g, 0, sizeof *g);
}

int laplace_grid_copy(laplace_grid *dst, const laplace_grid *src)
{
    int rc = laplace_grid_alloc(dst, src->nx, src->ny);
    if (rc == 0) {
        size_t cells = (size_t)src->nx * src->ny;
        memcpy(dst->phi, src->phi, cells * sizeof *src->phi);
        memcpy(dst->mask, src->mask, cells);
    }
    return rc;
}

static int check_potential(float v, const char *what)
{
    if (!(fabsf(v) <= LAPLACE_MAX_POTENTIAL))
        return app_fail(APP_ERR_BAD_INPUT, "laplace: the %s potential "
                        "%g is not a number of magnitude at most %g", what,
                        v, LAPLACE_MAX_POTENTIAL);
    return 0;
}

/* Fixes every border cell at `boundary` and frees the inside at 0. */
static void set_box(laplace_grid *g, float boundary)
{
    for (uint32_t y = 0; y < g->ny; y++)
        for (uint32_t x = 0; x < g->nx; x++) {
            size_t i = (size_t)y * g->nx + x;
            int border = x == 0 || y == 0 || x == g->nx - 1 || y == g->ny - 1;
            g->mask[i] = !border;
            g->phi[i] = border ? boundary : 0.0f;
        }
}

int laplace_grid_make(laplace_grid *g, uint32_t nx, uint32_t ny,
                      float boundary, float object, uint32_t object_w,
                      uint32_t object_h)
{
    memset(g, 0, sizeof *g);
    int rc = check_size(nx, ny);
    if (rc == 0)
        rc = check_potential(boundary, "boundary");
    if (rc == 0)
        rc = check_potential(object, "object");
    if (rc == 0 && (object_w > nx - 2 || object_h > ny - 2))
        rc = app_fail(APP_ERR_BAD_INPUT, "laplace: a %u x %u object "
                      "does not fit inside a %u x %u grid (at most %u x "
                      "%u)", object_w, object_h, nx, ny, nx - 2, ny - 2);
    if (rc == 0)
        rc = laplace_grid_alloc(g, nx, ny);
    if (rc)
        return rc;
    set_box(g, boundary);
    uint32_t x0 = (nx - object_w) / 2, y0 = (ny - object_h) / 2;
    for (uint32_t y = y0; y < y0 + object_h; y++)
        for (uint32_t x = x0; x < x0 + object_w; x++) {
            size_t i = (size_t)y * nx + x;
            g->mask[i] = 0;
            g->phi[i] = object;
        }
    return 0;
}

int laplace_grid_from_png(laplace_grid *g, const char *path, float boundary,
                          float object)
{
    memset(g, 0, sizeof *g);
    int rc = check_potential(boundary, "boundary");
    if (rc == 0)
        rc = check_potential(object, "object");
    uint32_t w = 0, h = 0;
    uint8_t *rgba = NULL;
    if (rc == 0)
        rc = image_png_load(path, &w, &h, &rgba);
    if (rc == 0 && (w < 3 || h < 3 || w > LAPLACE_MAX_SIDE ||
                    h > LAPLACE_MAX_SIDE))
        rc = app_fail(APP_ERR_BAD_INPUT, "%s: a %u x %u image; a "
                      "mask's sides must be from 3 to %u pixels", path, w,
                      h, LAPLACE_MAX_SIDE);
    if (rc == 0)
        rc = laplace_grid_alloc(g, w, h);
    if (rc == 0) {
        set_box(g, boundary);
        for (size_t i = 0; i < (size_t)w * h; i++) {
            const uint8_t *p = rgba + 4 * i;
            /* Rec. 601 luma, in integers. */
            unsigned luma = (299u * p[0] + 587u * p[1] + 114u * p[2]) / 1000u;
            if (g->mask[i] && luma < 128 && p[3] >= 128) {
                g->mask[i] = 0;
                g->phi[i] = object;
            }
        }
    }
    free(rgba);
    return rc;
}

/* One side of an object size: cells, or a fraction below 1 of `side`. */
static int parse_extent(const char *text, uint32_t side, uint32_t *out)
{
    unsigned long cells;
    float f;
    if (parse_uint(text, 0, side - 2, &cells)) {
        *out = (uint32_t)cells;
        return 1;
    }
    if (strchr(text, '.') && parse_float(text, &f) && f >= 0.0f && f < 1.0f) {
        *out = (uint32_t)lroundf(f * (float)side);
        return *out <= side - 2;
    }
    return 0;
}

int laplace_object_parse(const char *text, uint32_t nx, uint32_t ny,
                         uint32_t *w, uint32_t *h)
{
    char copy[64];
    if (!text || strlen(text) >= sizeof copy || nx < 3 || ny < 3)
        return 0;
    strcpy(copy, text);
    char *x = strchr(copy, 'x');
    if (!x)
        return 0;
    *x = '\0';
    return parse_extent(copy, nx, w) && parse_extent(x + 1, ny, h);
}

int laplace_grid_validate(const laplace_grid *g)
{
    if (!g || !g->phi || !g->mask)
        return app_fail(APP_ERR_USAGE, "laplace: no grid");
    int rc = check_size(g->nx, g->ny);
    for (uint32_t y = 0; y < g->ny && rc == 0; y++)
        for (uint32_t x = 0; x < g->nx && rc == 0; x++) {
            size_t i = (size_t)y * g->nx + x;
            int border = x == 0 || y == 0 || x == g->nx - 1 ||
                         y == g->ny - 1;
            if (border && g->mask[i])
                rc = app_fail(APP_ERR_BAD_INPUT, "laplace: cell x=%u "
                              "y=%u is on the border but free; the "
                              "border must be fixed", x, y);
            else if (!(fabsf(g->phi[i]) <= LAPLACE_MAX_POTENTIAL))
                rc = app_fail(APP_ERR_BAD_INPUT, "laplace: cell x=%u "
                              "y=%u has potential %g; at most %g in "
                              "magnitude", x, y, g->phi[i],
                              LAPLACE_MAX_POTENTIAL);
        }
    return rc;
}

/* ---- solving ------------------------------------------------------------- */

unsigned laplace_next_stretch(const laplace_plan *plan, unsigned done)
{
    unsigned left = plan->iterations - done;
    if (plan->tolerance <= 0.0f)
        return left;
    unsigned to_check = plan->check_every - done % plan->check_every;
    return to_check < left ? to_check : left;
}

laplace_stats *laplace_stats_start(laplace_stats *stats,
                                   laplace_stats *unread)
{
    if (!stats)
        stats = unread;
    int want_time = stats == unread ? 0 : stats->timing.want_kernel_time;
    *stats = (laplace_stats){.timing.want_kernel_time = want_time};
    return stats;
}

int laplace_note_check(const laplace_plan *plan, float change,
                       laplace_stats *stats)
{
    stats->checks++;
    stats->max_change = change;
    stats->converged = change < plan->tolerance;
    return stats->converged;
}

int laplace_check(const laplace_grid *g, const laplace_plan *plan)
{
    int rc = laplace_grid_validate(g);
    if (rc == 0 && (!plan || !(plan->tolerance >= 0.0f) ||
                    isinf(plan->tolerance) ||
                    (plan->tolerance > 0.0f && plan->check_every == 0)))
        rc = app_fail(APP_ERR_BAD_INPUT, "laplace: the tolerance must be a "
                      "finite number >= 0 and checks every 1 or more "
                      "iterations");
    return rc;
}

int laplace_solve(laplace_grid *g, const laplace_plan *plan,
                  laplace_version v, clctx *ctx, laplace_stats *stats)
{
    laplace_stats ignored;
    stats = laplace_stats_start(stats, &ignored);
    int rc = laplace_check(g, plan);
    if (rc)
        return rc;
    if (v == LAPLACE_REFERENCE || v == LAPLACE_OPENMP)
        return laplace_solve_c(g, plan, v == LAPLACE_OPENMP, stats);
    if (app_version_uses_opencl(&laplace_versions, v))
        return laplace_solve_opencl(g, plan, v, ctx, stats);
    return app_fail(APP_ERR_BAD_INPUT, "laplace: no version %d",
                    (int)v);
}

/* ---- output -------------------------------------------------------------- */

static int write_floats(FILE *f, void *ctx)
{
    const laplace_grid *g = ctx;
    size_t cells = (size_t)g->nx * g->ny;
    for (size_t i = 0; i < cells; i++) {
        uint32_t bits;
        memcpy(&bits, &g->phi[i], 4);
        uint8_t le[4] = {bits & 0xff, bits >> 8 & 0xff, bits >> 16 & 0xff,
                         bits >> 24};
        if (fwrite(le, 1, 4, f) != 4)
            return app_fail(APP_ERR_IO, "write failed");
    }
    return 0;
}

int laplace_write_raw(const char *path, const laplace_grid *g)
{
    return save_file(path, write_floats, (void *)g);
}

typedef struct colour_map {
    const laplace_grid *g;
    float lo, hi;
} colour_map;

static void colour_row(uint32_t y, uint8_t *out, void *ctx)
{
    const colour_map *m = ctx;
    const laplace_grid *g = m->g;
    for (uint32_t x = 0; x < g->nx; x++, out += 3) {
        size_t i = (size_t)y * g->nx + x;
        int border = x == 0 || y == 0 || x == g->nx - 1 || y == g->ny - 1;
        if (!g->mask[i] && !border) {
            out[0] = out[1] = out[2] = 48;      /* a conductor */
            continue;
        }
        float t = m->hi > m->lo ? (g->phi[i] - m->lo) / (m->hi - m->lo) : 0.5f;
        t = t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
        /* Blue through white-ish purple to red: red rises, blue falls,
         * a little green in the middle keeps mid values readable. */
        out[0] = (uint8_t)lroundf(255.0f * t);
        out[1] = (uint8_t)lroundf(255.0f * 0.5f * (1.0f - fabsf(2.0f * t -
                                                                1.0f)));
        out[2] = (uint8_t)lroundf(255.0f * (1.0f - t));
    }
}

typedef struct png_job {
    const laplace_grid *g;
    colour_map map;
} png_job;

static int write_png(FILE *f, void *ctx)
{
    png_job *job = ctx;
    return image_png_write_rows(f, job->g->nx, job->g->ny, 3, colour_row,
                                &job->map);
}

int laplace_write_png(const char *path, const laplace_grid *g)
{
    png_job job = {g, {g, INFINITY, -INFINITY}};
    for (size_t i = 0; i < (size_t)g->nx * g->ny; i++) {
        job.map.lo = fminf(job.map.lo, g->phi[i]);
        job.map.hi = fmaxf(job.map.hi, g->phi[i]);
    }
    return save_file(path, write_png, &job);
}
