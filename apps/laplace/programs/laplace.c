/*
 * laplace.c (bin/laplace): the potential around a conductor in a box by
 * Jacobi iteration, written as raw floats and/or a colour-mapped PNG. Run
 * with --help for the options.
 */
#include "laplace/laplace.h"
#include "common/parse.h"
#include "common/program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const app_program program = {"laplace",
    "usage: laplace [options]\n"
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
    "  --version V           %s\n"
    "  -o FILE               the potential as nx*ny little-endian float32\n"
    "  --png FILE            the potential as a colour-mapped PNG\n"
    "Exit status: 0 done, 1 a bad input or a failure, 2 a bad argument.\n",
    &laplace_versions};

typedef struct options {
    const char *size, *object, *mask, *raw, *png;
    float boundary, object_potential;
    laplace_plan plan;
    laplace_version version;
} options;

static int usage_error(const char *fmt, const char *arg)
{
    return app_usage_error(&program, fmt, arg);
}

/* Fills o from argv; 0, or the exit status to leave with (-1: help). */
static int parse_options(int argc, char **argv, options *o)
{
    *o = (options){.object = "0.25x0.25", .object_potential = 1.0f,
                   .plan = {1000, 0.0f, 10}, .version = LAPLACE_FAST};
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        if (!strcmp(opt, "--help") || !strcmp(opt, "-h"))
            return -1;
        if (i + 1 >= argc)
            return usage_error("%s: a value is missing (or an unknown "
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
                return usage_error("--boundary \"%s\" is not a number", val);
        } else if (!strcmp(opt, "--object-potential")) {
            if (!parse_float(val, &o->object_potential))
                return usage_error("--object-potential \"%s\" is not a "
                                   "number", val);
        } else if (!strcmp(opt, "--iterations") ||
                   !strcmp(opt, "--max-iterations")) {
            if (!parse_uint(val, 0, 2000000000ul, &n))
                return usage_error("the iteration count \"%s\" is not a count",
                                   val);
            o->plan.iterations = (unsigned)n;
        } else if (!strcmp(opt, "--tolerance")) {
            if (!parse_float(val, &o->plan.tolerance) ||
                !(o->plan.tolerance > 0.0f))
                return usage_error("--tolerance \"%s\" is not a number above "
                                   "0", val);
        } else if (!strcmp(opt, "--check-every")) {
            if (!parse_uint(val, 1, 1000000000ul, &n))
                return usage_error("--check-every \"%s\" is not a count of 1 "
                                   "or more", val);
            o->plan.check_every = (unsigned)n;
        } else if (!strcmp(opt, "--version")) {
            if ((status = app_version_option(&program, val, &v)))
                return status;
            o->version = (laplace_version)v;
        } else {
            return usage_error("unknown option %s", opt);
        }
    }
    if (o->mask && o->size)
        return usage_error("%s", "give --size or --mask, not both (a mask's "
                           "size is the grid's)");
    if (!o->raw && !o->png)
        return usage_error("%s", "no output: give -o FILE and/or --png FILE");
    return 0;
}

/* The grid the options describe; 0, or 1/2 (the exit status). */
static int make_grid(const options *o, laplace_grid *g)
{
    if (o->mask)
        return laplace_grid_from_png(g, o->mask, o->boundary,
                                     o->object_potential) ? 1 : 0;
    uint32_t nx = 200, ny = 200, w, h;
    if (o->size && !parse_size(o->size, LAPLACE_MAX_SIDE, &nx, &ny))
        return usage_error("--size \"%s\" is not NXxNY", o->size);
    if (nx < 3 || ny < 3)
        return usage_error("--size %s: each side must be 3 or more", o->size);
    if (!laplace_object_parse(o->object, nx, ny, &w, &h))
        return usage_error("--object \"%s\" is not WxH in cells or fractions "
                           "below 1 that fits inside the border", o->object);
    return laplace_grid_make(g, nx, ny, o->boundary, o->object_potential, w,
                             h) ? 1 : 0;
}

int main(int argc, char **argv)
{
    options o;
    int status = app_start(&program, parse_options(argc, argv, &o));
    if (status >= 0)
        return status;
    laplace_grid g = {0};
    status = make_grid(&o, &g);
    if (status == 1)
        return app_failed(&program);
    if (status)
        return status;
    laplace_stats stats = {0};
    int rc = laplace_solve(&g, &o.plan, o.version, NULL, &stats);
    if (rc == 0 && o.raw)
        rc = laplace_write_raw(o.raw, &g);
    if (rc == 0 && o.png)
        rc = laplace_write_png(o.png, &g);
    if (rc) {
        laplace_grid_free(&g);
        return app_failed(&program);
    }
    fprintf(stderr, "laplace: %u x %u, %s, %u iterations", g.nx, g.ny,
            app_version_name(&laplace_versions, o.version), stats.iterations);
    if (o.plan.tolerance > 0.0f)
        fprintf(stderr, ", largest change %g at the last check (%s)",
                stats.max_change, stats.converged ? "converged"
                                                  : "not converged");
    fprintf(stderr, "\n");
    laplace_grid_free(&g);
    return 0;
}
