/*
 * main.c: `raytracer-gtk SCENE.txt [--size WxH] [--method bvh|brute]`
 * (or --generate N instead of a scene file): the raytracer in a GTK 3
 * window. Everything that can fail -- options, the scene, the display, the
 * OpenCL device and kernels -- is checked before the window opens, so an
 * error is a message and a non-zero exit, never an empty window.
 */
#include "gui.h"
#include "common/error.h"

#include <gtk/gtk.h>
#include <stdio.h>
#include <string.h>

/* The scene file or the generated scene, and a name for the title. */
static int load_scene(const rtg_options *opts, rt_scene *scene,
                      char *name, size_t name_size)
{
    if (opts->generate) {
        snprintf(name, name_size, "generated scene of %u spheres",
                 opts->generate);
        return rt_scene_generate(scene, opts->generate);
    }
    const char *slash = strrchr(opts->scene_path, '/');
    snprintf(name, name_size, "%s", slash ? slash + 1 : opts->scene_path);
    return rt_scene_load_file(scene, opts->scene_path);
}

int main(int argc, char **argv)
{
    rtg_options opts;
    char err[512];
    int rc = rtg_options_parse(argc, argv, &opts, err, sizeof err);
    if (rc > 0) {
        fputs(rtg_usage, stdout);
        return 0;
    }
    if (rc < 0) {
        fprintf(stderr, "raytracer-gtk: %s\nusage: raytracer-gtk SCENE.txt | "
                "--generate N [--size WxH] [--method bvh|brute]\n"
                "(raytracer-gtk --help says more)\n", err);
        return 2;
    }

    rt_scene scene;
    rt_scene_init(&scene);
    char name[256];
    if (load_scene(&opts, &scene, name, sizeof name) != 0) {
        fprintf(stderr, "raytracer-gtk: %s\n", app_last_error());
        rt_scene_free(&scene);
        return 1;
    }
    /* The display before the device: it fails fast, building kernels not. */
    if (!gtk_init_check(NULL, NULL)) {
        fprintf(stderr, "raytracer-gtk: cannot open the display (is "
                "DISPLAY set?)\n");
        rt_scene_free(&scene);
        return 1;
    }
    rt_renderer *r = rt_renderer_create(NULL, &scene, opts.method);
    if (!r) {
        fprintf(stderr, "raytracer-gtk: %s\n", app_last_error());
        rt_scene_free(&scene);
        return 1;
    }

    rtg_window *win = rtg_window_open(&scene, name, r, &opts);
    int failed = 1;
    if (win) {
        gtk_main();
        failed = rtg_window_close(win);
    }
    rt_renderer_free(r);
    rt_scene_free(&scene);
    return failed ? 1 : 0;
}
