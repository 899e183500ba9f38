/*
 * blur.c (bin/blur): blurs a PNG by passes of the four-neighbour average
 * (apps/blur/blur.h has the rule) and writes it as a PNG, RGB or RGBA as
 * the input was. Run with --help for the options.
 */
#include "blur/blur.h"
#include "common/clock.h"
#include "common/parse.h"
#include "common/program.h"
#include "clframe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const app_program program = {"blur",
    "usage: blur IN.png OUT.png --passes N [options]\n"
    "  --passes N        blur passes (0 copies the image)\n"
    "  --version V       %s\n"
    "  --device WHERE    the OpenCL device: gpu, cpu, P:D or part of a\n"
    "                    name (default: the best device, or CLFRAME_DEVICE)\n"
    "Exit status: 0 done, 1 a bad input or a failure, 2 a bad argument.\n",
    &blur_versions};

typedef struct options {
    const char *in, *out, *where;
    unsigned passes;
    int have_passes;
    int version;                /* -1 (no --version): the device's default */
} options;

static int usage_error(const char *fmt, const char *arg)
{
    return app_usage_error(&program, fmt, arg);
}

/* One option and its value; 0, or the exit status to leave with. */
static int parse_option(const char *opt, const char *val, options *o)
{
    unsigned long n;
    int v, status;
    if (!strcmp(opt, "--passes")) {
        if (!parse_uint(val, 0, 1000000000ul, &n))
            return usage_error("--passes \"%s\" is not a count", val);
        o->passes = (unsigned)n;
        o->have_passes = 1;
    } else if (!strcmp(opt, "--version")) {
        if ((status = app_version_option(&program, val, &v)))
            return status;
        o->version = v;
    } else if (!strcmp(opt, "--device")) {
        o->where = val;
    } else {
        return usage_error("unknown option %s", opt);
    }
    return 0;
}

/* Fills o from argv; 0, or the exit status to leave with (-1: help). */
static int parse_options(int argc, char **argv, options *o)
{
    *o = (options){.version = -1};
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h"))
            return -1;
        if (strncmp(arg, "--", 2) != 0) {
            if (o->out)
                return usage_error("%s: only IN.png and OUT.png are named",
                                   arg);
            *(o->in ? &o->out : &o->in) = arg;
            continue;
        }
        if (i + 1 >= argc)
            return usage_error("%s: a value is missing (or an unknown "
                               "option)", arg);
        int status = parse_option(arg, argv[++i], o);
        if (status)
            return status;
    }
    if (!o->out)
        return usage_error("%s", "name the input and the output: IN.png "
                           "OUT.png");
    if (!o->have_passes)
        return usage_error("%s", "how many passes? give --passes N");
    return 0;
}

int main(int argc, char **argv)
{
    options o;
    int status = app_start(&program, parse_options(argc, argv, &o));
    if (status >= 0)
        return status;
    blur_image img;
    if (blur_image_load(&img, o.in))
        return app_failed(&program);
    clctx *own = NULL, *ctx = NULL;
    if ((o.version < 0 || app_version_uses_opencl(&blur_versions, o.version))
        && !(ctx = app_open_device(&program, o.where, &own))) {
        blur_image_free(&img);
        return 1;
    }
    if (o.version < 0)
        o.version = app_version_default(&blur_versions, ctx);
    double t0 = clock_seconds();
    int rc = blur_run(&img, o.passes, o.version, ctx, NULL);
    double ms = (clock_seconds() - t0) * 1e3;
    if (rc == 0)
        rc = blur_image_save(o.out, &img);
    if (rc)
        app_failed(&program);
    else
        fprintf(stderr, "blur: %u x %u %s, %s on %s, %u passes, %.1f ms\n",
                img.width, img.height, img.has_alpha ? "RGBA" : "RGB",
                app_version_name(&blur_versions, o.version),
                ctx ? clctx_device_name(ctx) : "the host", o.passes, ms);
    blur_image_free(&img);
    clctx_free(own);
    return rc ? 1 : 0;
}
