/*
 * cli.c: bin/laplace's command line, which bin/laplace_mpi shares: the
 * options, the grid they describe, the files written and the line that
 * reports a run.
 */
#include "laplace.h"
#include "common/parse.h"
#include "common/program.h"

#include <stdio.h>
#include <string.h>

/* The usage, with the program's name to fill in (the versions' %%s is
 * app_usage's). */
static const char usage_format[] =
    "usage: %s [options]\n"
    "  --size NXxNY          grid size (default 200x200; not with --mask)\n"
    "  --object WxH          centred conductor, in cells (40x30) or as\n"
    "                        fractions of the sides (0.25x0.5); 0x0 for none\n"
    "                        (default 0.25x0.25)\n"
    "  --mask FILE.png       conductor from a PNG: dark pixels conduct, the\n"
    "                        image's size is the grid's\n"
    "  --boundary V          potential of the border (default 0)\n"
    "  --object-potential V  potential of the conductor (default 1)\n"
    "  --iterations N        iterations, or the cap with --tolerance\n"
    "                        (default 1000)\n"
    "  --tolerance T         stop when one iteration's largest change < T\n"
    "  --check-every K       check the change every K iterations (default 10)\n"
    "  --version V           %%s\n"
    "  -o FILE               the potential as nx*ny little-endian float32\n"
    "  --png FILE            the potential as a colour-mapped PNG\n"
    "Exit status: 0 done, 1 a bad input or a failure, 2 a bad argument.\n";

void laplace_usage_for(char *usage, size_t size, const char *name)
{
    snprintf(usage, size, usage_format, name);
}

int laplace_parse_options(const app_program *program, int argc,
                          char **argv, laplace_options *o)
{
    *o = (laplace_options){.object = "0.25x0.25", .object_potential = 1.0f,
                           .plan = {1000, 0.0f, 10},
                           .version = -1};
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        if (!strcmp(opt, "--help") || !strcmp(opt, "-h"))
            return -1;
        if (i + 1 >= argc)
            return app_usage_error(program, "%s: a value is missing (or an unknown "
                               "option)", opt);
        const char *val = argv[++i];
        unsigned long n;
        int v, status;
        if (!strcmp(opt, "--size"))
            o->size = val;
        else if (!strcmp(opt, "--object"))
            o->object = val;
        else if (!strcmp(opt, "--mask"))
            o->mask = val;
        else if (!strcmp(opt, "-o"))
            o->raw = val;
        else if (!strcmp(opt, "--png"))
            o->png = val;
        else if (!strcmp(opt, "--boundary")) {
            if (!parse_float(val, &o->boundary))
                return app_usage_error(program, "--boundary \"%s\" is not a number", val);
        } else if (!strcmp(opt, "--object-potential")) {
            if (!parse_float(val, &o->object_potential))
                return app_usage_error(program, "--object-potential \"%s\" is not a "
                                   "number", val);
        } else if (!strcmp(opt, "--iterations") ||
                   !strcmp(opt, "--max-iterations")) {
            if (!parse_uint(val, 0, 2000000000ul, &n))
                return app_usage_error(program, "the iteration count \"%s\" is not a count",
                                   val);
            o->plan.iterations = (unsigned)n;
        } else if (!strcmp(opt, "--tolerance")) {
            if (!parse_float(val, &o->plan.tolerance) ||
                !(o->plan.tolerance > 0.0f))
                return app_usage_error(program, "--tolerance \"%s\" is not a number above "
                                   "0", val);
        } else if (!strcmp(opt, "--check-every")) {
            if (!parse_uint(val, 1, 1000000000ul, &n))
                return app_usage_error(program, "--check-every \"%s\" is not a count of 1 "
                                   "or more", val);
            o->plan.check_every = (unsigned)n;
        } else if (!strcmp(opt, "--version")) {
            if ((status = app_version_option(program, val, &v)))
                return status;
            o->version = v;
        } else {
            return app_usage_error(program, "unknown option %s", opt);
        }
    }
    if (o->mask && o->size)
        return app_usage_error(program, "%s", "give --size or --mask, not both (a mask's "
                           "size is the grid's)");
    if (!o->raw && !o->png)
        return app_usage_error(program, "%s", "no output: give -o FILE and/or --png FILE");
    return 0;
}

int laplace_make_grid(const app_program *program, const laplace_options *o,
                      laplace_grid *g)
{
    if (o->mask)
        return laplace_grid_from_png(g, o->mask, o->boundary,
                                     o->object_potential) ? 1 : 0;
    uint32_t nx = 200, ny = 200, w, h;
    if (o->size && !parse_size(o->size, LAPLACE_MAX_SIDE, &nx, &ny))
        return app_usage_error(program, "--size \"%s\" is not NXxNY", o->size);
    if (nx < 3 || ny < 3)
        return app_usage_error(program, "--size %s: each side must be 3 or more", o->size);
    if (!laplace_object_parse(o->object, nx, ny, &w, &h))
        return app_usage_error(program, "--object \"%s\" is not WxH in cells or fractions "
                           "below 1 that fits inside the border", o->object);
    return laplace_grid_make(g, nx, ny, o->boundary, o->object_potential, w,
                             h) ? 1 : 0;
}

int laplace_write_outputs(const laplace_options *o, const laplace_grid *g)
{
    int rc = 0;
    if (o->raw)
        rc = laplace_write_raw(o->raw, g);
    if (rc == 0 && o->png)
        rc = laplace_write_png(o->png, g);
    return rc;
}

void laplace_report(const char *name, const laplace_options *o,
                    const laplace_grid *g, const laplace_stats *stats)
{
    fprintf(stderr, "%s: %u x %u, %s, %u iterations", name, g->nx, g->ny,
            app_version_name(&laplace_versions, o->version),
            stats->iterations);
    if (o->plan.tolerance > 0.0f)
        fprintf(stderr, ", largest change %g at the last check (%s)",
                stats->max_change, stats->converged ? "converged"
                                                    : "not converged");
    fprintf(stderr, "\n");
}
