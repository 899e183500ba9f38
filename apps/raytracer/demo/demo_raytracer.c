/*
 * demo_raytracer.c: the raytracer (apps/raytracer): the seed's test scene,
 * 1000 spheres over a ground plane, rendered by the BVH kernel, compared
 * with the plain C reference pixel by pixel and written to a PNG (480 x
 * 480 in the benchmark table). The raytracer has no OpenMP version.
 */
#include "demo/demo.h"
#include "common/error.h"

#include "common/image.h"
#include "raytracer/raytracer.h"

#include <stdio.h>
#include <stdlib.h>

/* The demo's image side, and the benchmark table's. */
enum { RT_SPHERES = 1000 };
static const int RT_SIZE[2] = {320, 480};
#define RT_PNG DEMO_PICTURES "/raytracer.png"

/* Like the tests (tests/test_raytracer_render.c): every channel within 2
 * levels, but for at most 0.2 % of the pixels (silhouettes a last bit of
 * sqrt can move). */
static void compare_images(demo_result *r, const uint8_t *got,
                           const uint8_t *want, int side)
{
    size_t pixels = (size_t)side * side;
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
                 "differ, the first at (%zu, %zu)", off, first % side,
                 first / side);
}

/* Renders DEMO_CALLS frames with the BVH kernel, timing the last. */
static int render_device(demo_result *r, const rt_scene *scene,
                         uint8_t *pixels, int side)
{
    rt_renderer *renderer = rt_renderer_create(NULL, scene, RT_METHOD_BVH);
    if (!renderer)
        return demo_fail(r, APP_ERR_BAD_INPUT, "raytracer: setting up");
    rt_renderer_set_timing(renderer, 1);
    int rc = 0;
    for (int call = 0; call < DEMO_CALLS && rc == 0; call++) {
        double t0 = demo_now_ms();
        rc = rt_renderer_render(renderer, &scene->camera, side, side,
                                RT_PIXELS_RGBA, pixels);
        r->call_ms = demo_now_ms() - t0;
        r->kernel_ms = rt_renderer_last_kernel_ms(renderer);
    }
    if (rc)
        demo_fail(r, rc, "raytracer: rendering");
    rt_renderer_free(renderer);
    return rc;
}

/* The image as a PNG, named in r's note. */
static void save(demo_result *r, const uint8_t *pixels, int side)
{
    demo_picture_folder();
    demo_picture_note(r, image_png_save(RT_PNG, side, side, 4, pixels),
                      "raytracer", "raytracer: the seed's test scene is "
                      "drawn in " RT_PNG " (bin/raytracer-gtk --generate "
                      "1000 shows it in a window)");
}

int demo_raytracer(demo_result *r, demo_scale scale)
{
    int side = RT_SIZE[scale];
    snprintf(r->version, sizeof r->version, "bvh");
    snprintf(r->size, sizeof r->size, "%dx%d, %d spheres", side, side,
             RT_SPHERES);
    size_t pixels = (size_t)side * side;
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
    double t0 = demo_now_ms();
    rc = rt_render_reference(&scene, &scene.camera, side, side, want);
    r->ref_ms = demo_now_ms() - t0;
    if (rc)
        demo_fail(r, rc, "raytracer: the C reference");
    if (rc == 0)
        rc = render_device(r, &scene, got, side);
    if (rc == 0)
        compare_images(r, got, want, side);
    if (rc == 0 && scale == DEMO_SMALL)
        save(r, got, side);
    rt_scene_free(&scene);
    free(want), free(got);
    return rc;
}
