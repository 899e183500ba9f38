/*
 * raytrace.c: the headless renderer. Renders a scene file (or the seed's
 * generated test scene) to a PNG, and with --frames measures frames per
 * second for benchmarks; works where there is no display.
 */
#include "raytracer/raytracer.h"
#include "common/parse.h"
#include "common/image.h"
#include "common/clock.h"
#include "common/error.h"
#include "median.h"
#include "common/program.h"
#include "common/save.h"
#include "clframe.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const app_program program = {"raytrace",
"usage: raytrace (SCENE.txt | --generate N) [-o OUT.png] [options]\n"
"  -o FILE            write the image as a PNG\n"
"  --size WxH         image size in pixels (default 700x700)\n"
"  --camera X,Y,Z,LX,LY,LZ[,FOV]\n"
"                     camera position, the point it looks at, and the\n"
"                     vertical field of view in degrees (default: the scene's)\n"
"  --method M         bvh (default), brute, or reference (plain C)\n"
"  --frames N         render N frames and print the median time per frame\n"
"  --save FILE        write the scene (e.g. a generated one) as a scene file\n"
"The device is clframe's choice (a GPU if any); CLFRAME_DEVICE=cpu|gpu|...\n"
"picks one.\n", NULL};

typedef struct options {
    const char *scene_path, *out_path, *save_path;
    unsigned long generate, frames;
    uint32_t width, height;
    int method;                   /* rt_method, or -1: the C reference */
    int have_camera;
    rt_view camera;
} options;

static int camera_field(const char *field, int number, void *v)
{
    return parse_float(field, (float *)v + number - 1);
}

/* "X,Y,Z,LX,LY,LZ[,FOV]" into view; without FOV its fov is NAN. 0 after
 * a message naming the field. */
static int parse_camera(const char *text, rt_view *view)
{
    float v[7];
    int n = parse_comma_list("--camera", text, 6, 7, "a number",
                             camera_field, v);
    if (n == 0)
        return 0;
    memcpy(view->position, v, sizeof view->position);
    memcpy(view->look_at, v + 3, sizeof view->look_at);
    view->fov_degrees = n == 7 ? v[6] : NAN;   /* NAN: the scene's */
    return 1;
}

/* 0, or the exit status to leave with (-1: help, 2: after a message). */
static int parse_options(int argc, char **argv, options *o)
{
    *o = (options){.width = 700, .height = 700, .method = RT_METHOD_BVH};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        int ok = 1;
        if (!strcmp(a, "-h") || !strcmp(a, "--help"))
            return -1;
        if (a[0] != '-' || a[1] == '\0') {
            if (o->scene_path) {
                fprintf(stderr, "raytrace: one scene only ('%s')\n", a);
                return 2;
            }
            o->scene_path = a;
            continue;
        }
        if (!value) {
            fprintf(stderr, "raytrace: %s needs a value\n", a);
            return 2;
        }
        i++;
        if (!strcmp(a, "-o"))
            o->out_path = value;
        else if (!strcmp(a, "--save"))
            o->save_path = value;
        else if (!strcmp(a, "--size"))
            ok = parse_size(value, 32768, &o->width, &o->height);
        else if (!strcmp(a, "--generate"))
            ok = parse_uint(value, 1, 1ul << 24, &o->generate);
        else if (!strcmp(a, "--frames"))
            ok = parse_uint(value, 1, 1000000, &o->frames);
        else if (!strcmp(a, "--camera")) {
            if (!(o->have_camera = parse_camera(value, &o->camera)))
                return app_usage_error(&program, "%s", app_last_error());
        }
        else if (!strcmp(a, "--method"))
            ok = !strcmp(value, "reference")
                 ? (o->method = -1, 1)
                 : (o->method = rt_method_parse(value)) >= 0;
        else
            return app_usage_error(&program, "unknown option %s", a);
        if (!ok) {
            fprintf(stderr, "raytrace: bad value '%s' for %s\n", value, a);
            return 2;
        }
    }
    if (!o->scene_path == !o->generate)
        return app_usage_error(&program, "%s",
                               "give a scene file or --generate N");
    return 0;
}

/* Renders o->frames frames (or one) into pixels; *median_ms is the median
 * time of a frame, kernel launch and read-back of the pixels included. On
 * the device the frames are read into pinned memory, at the bus's speed as
 * the GUI's are, and the last is copied into pixels. */
static int render(const rt_scene *scene, const rt_view *view,
                  const options *o, uint8_t *pixels, double *median_ms)
{
    unsigned long frames = o->frames ? o->frames : 1;
    double *ms = malloc(frames * sizeof *ms);
    if (!ms)
        return app_fail(APP_ERR_NO_MEMORY, "out of memory");
    rt_renderer *r = NULL;
    int rc = 0;
    if (o->method >= 0 && !(r = rt_renderer_create(NULL, scene, o->method)))
        rc = APP_ERR_BAD_INPUT;
    size_t bytes = (size_t)o->width * o->height * 4;
    uint8_t *frame = pixels;
    if (rc == 0 && r && !(frame = clframe_host_alloc(rt_renderer_ctx(r),
                                                     bytes)))
        rc = APP_ERR_NO_MEMORY;
    uint8_t *out = r ? frame : pixels;
    /* One frame first so that compiling and first-touch costs stay out of
     * the timed frames. */
    if (rc == 0 && r && o->frames)
        rc = rt_renderer_render(r, view, o->width, o->height, RT_PIXELS_RGBA,
                                out);
    for (unsigned long f = 0; rc == 0 && f < frames; f++) {
        double start = clock_ms();
        rc = r ? rt_renderer_render(r, view, o->width, o->height,
                                    RT_PIXELS_RGBA, out)
               : rt_render_reference(scene, view, o->width, o->height, pixels);
        ms[f] = clock_ms() - start;
    }
    if (rc == 0)
        *median_ms = median_of(ms, (int)frames);
    if (r && frame) {
        if (rc == 0)
            memcpy(pixels, frame, bytes);
        clframe_host_free(frame);
    }
    rt_renderer_free(r);
    free(ms);
    return rc;
}

static int write_scene(FILE *f, void *scene)
{
    return rt_scene_save(scene, f);
}

int main(int argc, char **argv)
{
    options o;
    int rc = app_start(&program, parse_options(argc, argv, &o));
    if (rc >= 0)
        return rc;
    rt_scene scene;
    rc = o.generate ? rt_scene_generate(&scene, (uint32_t)o.generate)
                    : rt_scene_load_file(&scene, o.scene_path);
    if (rc != 0)
        return app_failed(&program);
    rt_view view = scene.camera;
    if (o.have_camera) {
        memcpy(view.position, o.camera.position, sizeof view.position);
        memcpy(view.look_at, o.camera.look_at, sizeof view.look_at);
        if (!isnan(o.camera.fov_degrees))
            view.fov_degrees = o.camera.fov_degrees;
    }
    uint8_t *pixels = malloc((size_t)o.width * o.height * 4);
    double median_ms = 0;
    if (!pixels)
        rc = app_fail(APP_ERR_NO_MEMORY, "out of memory for a %ux%u "
                      "image", o.width, o.height);
    if (rc == 0 && o.save_path)
        rc = save_file(o.save_path, write_scene, &scene);
    if (rc == 0 && (o.out_path || o.frames))
        rc = render(&scene, &view, &o, pixels, &median_ms);
    if (rc == 0 && o.out_path)
        rc = image_png_save(o.out_path, o.width, o.height, 4, pixels);
    if (rc == 0 && o.frames) {
        clctx *ctx = o.method >= 0 ? clctx_default() : NULL;
        printf("%ux%u, %u spheres, %s on %s: median %.3f ms per frame, "
               "%.1f frames/s (%lu frames)\n", o.width, o.height,
               scene.n_spheres, o.method >= 0 ? rt_method_name(o.method)
                                              : "reference",
               ctx ? clctx_device_name(ctx) : "the host (plain C)",
               median_ms, 1e3 / median_ms, o.frames);
    }
    if (rc == 0 && o.out_path)
        printf("wrote %s (%ux%u)\n", o.out_path, o.width, o.height);
    free(pixels);
    rt_scene_free(&scene);
    return rc ? app_failed(&program) : 0;
}
