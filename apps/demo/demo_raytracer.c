/*
 * demo_raytracer.c: the raytracer (apps/raytracer): the seed's test scene,
 * 1000 spheres over a ground plane, rendered by the BVH kernel, compared
 * with the plain C reference pixel by pixel and written to a PNG.
 */
#include "demo.h"
#include "common/error.h"

#include "common/image.h"
#include "raytracer/raytracer.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

enum { RT_SPHERES = 1000, RT_SIZE = 320 };
static const char RT_PNG[] = "build/demo/raytracer.png";

/* Like the tests (tests/test_raytracer_render.c): every channel within 2
 * levels, but for at most 0.2 % of the pixels (silhouettes a last bit of
 * sqrt can move). */
static void compare_images(demo_result *r, const uint8_t *got,
                           const uint8_t *want, size_t pixels)
{
    size_t off = 0, first = 0;
    for (size_t i = 0; i < pixels; i++)
        for (int c = 0; c < 3; c++)
            if (abs(got[4 * i + c] - want[4 * i + c]) > 2) {
                if (off++ == 0)
                    first = i;
                break;
            }
    r->ok = off <= pixels / 500;
    if (r->ok)
        snprintf(r->verdict, sizeof r->verdict, "ok");
    else
        snprintf(r->verdict, sizeof r->verdict, "MISMATCH: %zu pixels "
                 "differ, the first at (%zu, %zu)", off, first % RT_SIZE,
                 first / RT_SIZE);
}

/* Renders DEMO_CALLS frames with the BVH kernel, timing the last. */
static int render_device(demo_result *r, const rt_scene *scene,
                         uint8_t *pixels)
{
    rt_renderer *renderer = rt_renderer_create(NULL, scene, RT_METHOD_BVH);
    if (!renderer)
        return demo_fail(r, APP_ERR_BAD_INPUT, "raytracer: setting up");
    rt_renderer_set_timing(renderer, 1);
    int rc = 0;
    for (int call = 0; call < DEMO_CALLS && rc == 0; call++) {
        double t0 = demo_now_ms();
        rc = rt_renderer_render(renderer, &scene->camera, RT_SIZE, RT_SIZE,
                                RT_PIXELS_RGBA, pixels);
        r->call_ms = demo_now_ms() - t0;
        r->kernel_ms = rt_renderer_last_kernel_ms(renderer);
    }
    if (rc)
        demo_fail(r, rc, "raytracer: rendering");
    rt_renderer_free(renderer);
    return rc;
}

int demo_raytracer(demo_result *r)
{
    snprintf(r->version, sizeof r->version, "bvh");
    snprintf(r->size, sizeof r->size, "%dx%d, %d spheres", RT_SIZE, RT_SIZE,
             RT_SPHERES);
    size_t pixels = (size_t)RT_SIZE * RT_SIZE;
    uint8_t *want = malloc(4 * pixels), *got = malloc(4 * pixels);
    if (!want || !got) {
        free(want), free(got);
        return demo_fail_host(r, "raytracer: out of memory");
    }
    rt_scene scene;
    int rc = rt_scene_generate(&scene, RT_SPHERES);
    if (rc) {
        free(want), free(got);
        return demo_fail(r, rc, "raytracer: generating the scene");
    }
    if (rc == 0) {
        double t0 = demo_now_ms();
        rc = rt_render_reference(&scene, &scene.camera, RT_SIZE, RT_SIZE,
                                 want);
        r->ref_ms = demo_now_ms() - t0;
        if (rc)
            demo_fail(r, rc, "raytracer: the C reference");
    }
    if (rc == 0)
        rc = render_device(r, &scene, got);
    if (rc == 0) {
        compare_images(r, got, want, pixels);
        mkdir("build", 0777);
        mkdir("build/demo", 0777);
        if (image_png_save(RT_PNG, RT_SIZE, RT_SIZE, 4, got) == 0)
            snprintf(r->note, sizeof r->note, "raytracer: the seed's test "
                     "scene is drawn in %s (bin/raytracer-gtk --generate "
                     "1000 shows it in a window)", RT_PNG);
        else
            snprintf(r->note, sizeof r->note, "raytracer: no picture: %s",
                     app_last_error());
    }
    rt_scene_free(&scene);
    free(want), free(got);
    return rc;
}
