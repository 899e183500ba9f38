/*
 * options.c: bin/raytracer-gtk's command line. Only whole arguments count
 * ("700x" or "-5" as a size is an error, never a default), and every
 * problem is reported before a window opens.
 */
#include "gui.h"

#include "common/parse.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char rtg_usage[] =
    "usage: raytracer-gtk SCENE.txt [options]\n"
    "       raytracer-gtk --generate N [options]\n"
    "Shows a scene in a window: drag to pan, scroll to move in and out, the\n"
    "sliders move the first light; Escape or Ctrl+Q closes it.\n"
    "  --size WxH             the image's size at start (default 700x700);\n"
    "                         resizing the window renders at the new size\n"
    "  --method bvh|brute     the renderer's kernel (default bvh)\n"
    "  --generate N           the seed's test scene with N spheres instead\n"
    "                         of a scene file\n"
    "Test hooks:\n"
    "  --trace                print the layout, every input and every frame\n"
    "                         to standard output, one line each\n"
    "  --quit-after-frames N  close the window after N frames (a frame is\n"
    "                         rendered only when something changed)\n"
    "  --frame-delay-ms N     sleep N ms before each frame (a slow device)\n"
    "The device is clframe's default (CLFRAME_DEVICE=gpu, cpu, ...).\n";

/* Writes a message into err; returns -1, the usage error status. */
static int refuse(char *err, size_t err_size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int refuse(char *err, size_t err_size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
    return -1;
}

int rtg_options_parse(int argc, char **argv, rtg_options *opts, char *err,
                      size_t err_size)
{
    *opts = (rtg_options){.width = 700, .height = 700,
                          .method = RT_METHOD_BVH};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
            return 1;
        if (strcmp(a, "--trace") == 0) {
            opts->trace = 1;
            continue;
        }
        if (a[0] != '-') {
            if (opts->scene_path)
                return refuse(err, err_size, "two scene files: %s and %s",
                              opts->scene_path, a);
            opts->scene_path = a;
            continue;
        }
        /* Every other option takes a value. */
        if (i + 1 >= argc)
            return refuse(err, err_size, "%s needs a value", a);
        const char *v = argv[++i];
        unsigned long n;
        if (strcmp(a, "--size") == 0) {
            if (!parse_size(v, 16384, &opts->width, &opts->height))
                return refuse(err, err_size, "--size \"%s\" is not WxH with "
                              "W and H from 1 to 16384", v);
        } else if (strcmp(a, "--method") == 0) {
            int m = rt_method_parse(v);
            if (m < 0)
                return refuse(err, err_size, "--method \"%s\" is not bvh or "
                              "brute", v);
            opts->method = (rt_method)m;
        } else if (strcmp(a, "--generate") == 0) {
            if (!parse_uint(v, 1, 100000000, &n))
                return refuse(err, err_size, "--generate \"%s\" is not a "
                              "count of spheres from 1", v);
            opts->generate = (uint32_t)n;
        } else if (strcmp(a, "--quit-after-frames") == 0) {
            if (!parse_uint(v, 1, (unsigned long)-1, &n))
                return refuse(err, err_size, "--quit-after-frames \"%s\" is "
                              "not a count from 1", v);
            opts->quit_after_frames = n;
        } else if (strcmp(a, "--frame-delay-ms") == 0) {
            if (!parse_uint(v, 0, 60000, &n))
                return refuse(err, err_size, "--frame-delay-ms \"%s\" is not "
                              "a number of ms from 0 to 60000", v);
            opts->frame_delay_ms = (unsigned)n;
        } else {
            return refuse(err, err_size, "unknown option %s", a);
        }
    }
    if (!opts->scene_path == !opts->generate)
        return refuse(err, err_size, opts->generate
                      ? "a scene file and --generate: give one of them"
                      : "no scene: give a scene file or --generate N");
    return 0;
}
