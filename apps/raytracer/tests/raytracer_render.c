/*
 * raytracer_render.c: the raytracer's renderers against each other.
 * The OpenCL kernels (brute force and BVH) must give the C reference's
 * image on the shipped scenes, on the seed's 1000-sphere scene and on odd
 * image sizes; purpose-built scenes check shadows and reflections against
 * values worked out by hand; the BVH is checked for structure; bin/raytrace
 * is run for its files, its fps line and its errors.
 */
#include "common/tests/testing.h"
#include "raytracer/raytracer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The sizes per run (support.h): images (width, height) and scenes. */
static const struct {
    uint32_t shipped_w, shipped_h;  /* the shipped scenes' images */
    uint32_t seed_spheres, seed_size;
    int max_depth;                  /* the odd sizes' reflections */
    int pinned_sizes;               /* the first how many of the list */
    uint32_t random_spheres, random_size;
} run_sizes[] = {
    [TEST_FULL]    = {96, 72, 1000, 48, 3, 3, 3000, 40},
    [TEST_CHECKED] = {12, 9, 40, 8, 0, 1, 30, 8},
};

/* ---- helpers ----------------------------------------------------------------- */

/* A renderer on the context test_run_context gives (a fresh one under
 * Oclgrind). */
typedef struct device_render {
    clctx *own;
    rt_renderer *r;
} device_render;

static device_render render_open(const rt_scene *scene, rt_method method)
{
    device_render d = {test_run_context(), NULL};
    d.r = rt_renderer_create(d.own, scene, method);
    ck_assert_app_made(d.r);
    return d;
}

static void render_close(device_render *d)
{
    rt_renderer_free(d->r);
    clctx_free(d->own);
}

static uint8_t *render_device(const rt_scene *scene, const rt_view *view,
                              rt_method method, uint32_t w, uint32_t h)
{
    uint8_t *pixels = malloc((size_t)w * h * 4);
    ck_assert_ptr_nonnull(pixels);
    device_render d = render_open(scene, method);
    ck_assert_app(rt_renderer_render(d.r, view, w, h, RT_PIXELS_RGBA, pixels));
    render_close(&d);
    return pixels;
}

static uint8_t *render_reference(const rt_scene *scene, const rt_view *view,
                                 uint32_t w, uint32_t h)
{
    uint8_t *pixels = malloc((size_t)w * h * 4);
    ck_assert_ptr_nonnull(pixels);
    ck_assert_app(rt_render_reference(scene, view, w, h, pixels));
    return pixels;
}

/* Images agree when every channel of every pixel is within 2 levels, but
 * for at most 0.2 % of the pixels (and at least 1): a ray that grazes a
 * sphere's silhouette may hit on one device and miss on another when their
 * last bits of sqrt or pow differ, and then its whole colour changes. On
 * PoCL the images are in fact identical. */
static void assert_images_agree(const uint8_t *a, const uint8_t *b,
                                uint32_t w, uint32_t h, const char *what)
{
    size_t pixels = (size_t)w * h, off = 0, first_off = 0;
    int worst = 0;
    for (size_t i = 0; i < pixels; i++) {
        int diff = 0;
        for (int c = 0; c < 4; c++) {
            int d = abs(a[4 * i + c] - b[4 * i + c]);
            diff = d > diff ? d : diff;
        }
        if (diff > 2 && off++ == 0)
            first_off = i;
        worst = diff > worst ? diff : worst;
    }
    size_t allowed = pixels / 500 > 1 ? pixels / 500 : 1;
    ck_assert_msg(off <= allowed, "%s: %zu of %zu pixels differ by more than "
                  "2 (at most %zu may), the first at (%zu, %zu); largest "
                  "difference %d", what, off, pixels, allowed,
                  first_off % w, first_off / w, worst);
}

static void assert_not_flat(const uint8_t *p, uint32_t w, uint32_t h)
{
    size_t differ = 0;
    for (size_t i = 1; i < (size_t)w * h; i++)
        differ += memcmp(p + 4 * i, p, 3) != 0;
    ck_assert_msg(differ > (size_t)w * h / 10, "the image is nearly one "
                  "colour (%zu of %u pixels differ from the first)", differ,
                  w * h);
}

static const char *scene_path(const char *name)
{
    static char path[256];
    snprintf(path, sizeof path, "apps/raytracer/scenes/%s", name);
    return path;
}

static void load_text(rt_scene *scene, const char *text)
{
    ck_assert_app(rt_scene_parse(scene, text, "test scene"));
}

/* ---- reference against kernels ---------------------------------------------- */

/* Both kernels against the reference on scene's own camera; the picture
 * must not be one colour, or the comparison would prove little. */
static void assert_kernels_match_reference(const rt_scene *scene, uint32_t w,
                                           uint32_t h)
{
    uint8_t *want = render_reference(scene, &scene->camera, w, h);
    assert_not_flat(want, w, h);
    for (int m = RT_METHOD_BRUTE_FORCE; m <= RT_METHOD_BVH; m++) {
        uint8_t *got = render_device(scene, &scene->camera, m, w, h);
        assert_images_agree(want, got, w, h, rt_method_name(m));
        free(got);
    }
    free(want);
}

static const char *const small_scenes[] = {"simple.txt", "mirrors.txt",
                                           "shadows.txt"};

START_TEST(shipped_scenes_match_reference)
{
    rt_scene scene;
    ck_assert_app(rt_scene_load_file(&scene, scene_path(small_scenes[_i])));
    assert_kernels_match_reference(&scene, RUN_SIZE(shipped_w),
                                   RUN_SIZE(shipped_h));
    rt_scene_free(&scene);
}
END_TEST

START_TEST(seed_scene_matches_reference)
{
    rt_scene scene;
    ck_assert_app(rt_scene_generate(&scene, RUN_SIZE(seed_spheres)));
    uint32_t size = RUN_SIZE(seed_size);
    assert_kernels_match_reference(&scene, size, size);
    rt_scene_free(&scene);
}
END_TEST

/* Sizes that are not multiples of the 8 x 8 work-group, down to one pixel,
 * and every reflection depth from 0 to 3. */
START_TEST(odd_sizes_and_depths_match_reference)
{
    static const uint32_t sizes[][2] = {{1, 1}, {7, 5}, {9, 17}, {33, 2}};
    rt_scene scene;
    ck_assert_app(rt_scene_load_file(&scene, scene_path("mirrors.txt")));
    for (int depth = 0; depth <= RUN_SIZE(max_depth); depth++) {
        scene.max_depth = depth;
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            uint32_t w = sizes[s][0], h = sizes[s][1];
            uint8_t *want = render_reference(&scene, &scene.camera, w, h);
            uint8_t *got = render_device(&scene, &scene.camera, RT_METHOD_BVH,
                                         w, h);
            assert_images_agree(want, got, w, h, "bvh, odd size");
            free(want);
            free(got);
        }
    }
    rt_scene_free(&scene);
}
END_TEST

/* A frame read into pinned pixels (clframe_host_alloc, as the GUI's
 * surfaces are) is the frame read into malloc'd ones, bit for bit, at
 * sizes that are not multiples of the work-group, for both methods. */
START_TEST(pinned_frames_match_pageable_frames)
{
    static const uint32_t sizes[][2] = {{7, 5}, {33, 70}, {20, 129}};
    rt_scene scene;
    ck_assert_app(rt_scene_load_file(&scene, scene_path("mirrors.txt")));
    device_render d = render_open(&scene, (rt_method)_i);
    clctx *ctx = d.own ? d.own : clctx_default();
    for (int s = 0; s < RUN_SIZE(pinned_sizes); s++) {
        uint32_t w = sizes[s][0], h = sizes[s][1];
        size_t bytes = (size_t)w * h * 4;
        uint8_t *paged = malloc(bytes), *pinned = clframe_host_alloc(ctx, bytes);
        ck_assert(paged && pinned);
        memset(pinned, 0, bytes);
        ck_assert_app(rt_renderer_render(d.r, &scene.camera, w, h,
                                         RT_PIXELS_RGBA, paged));
        ck_assert_app(rt_renderer_render(d.r, &scene.camera, w, h,
                                         RT_PIXELS_RGBA, pinned));
        ck_assert_msg(memcmp(paged, pinned, bytes) == 0, "%ux%u: the pinned "
                      "frame differs", w, h);
        free(paged);
        ck_assert_cl(clframe_host_free(pinned));
    }
    render_close(&d);
    rt_scene_free(&scene);
}
END_TEST

/* Random spheres, some overlapping, some inside others, some far away: the
 * BVH kernel must see what the brute-force kernel sees. */
START_TEST(bvh_matches_brute_force_on_random_scenes)
{
    uint32_t seed = 77 + (uint32_t)_i;
    uint32_t n = RUN_SIZE(random_spheres), size = RUN_SIZE(random_size);
    rt_scene scene;
    ck_assert_app(rt_scene_generate(&scene, 1));
    cl_float4 *spheres = realloc(scene.spheres, n * sizeof *spheres);
    cl_int *materials = realloc(scene.sphere_material, n * sizeof *materials);
    ck_assert(spheres && materials);
    scene.spheres = spheres, scene.sphere_material = materials;
    scene.n_spheres = n;
    for (uint32_t i = 0; i < n; i++) {
        float x = (float)test_random(&seed) / (1 << 24) * 60 - 30;
        float y = (float)test_random(&seed) / (1 << 24) * 20;
        float z = (float)test_random(&seed) / (1 << 24) * 60 - 30;
        float r = 0.05f + (float)test_random(&seed) / (1 << 24) *
                  (i % 50 == 0 ? 6.0f : 1.0f);
        spheres[i] = (cl_float4){{x, y, z, r}};
        materials[i] = (cl_int)(test_random(&seed) % scene.n_materials);
    }
    uint8_t *brute = render_device(&scene, &scene.camera,
                                   RT_METHOD_BRUTE_FORCE, size, size);
    uint8_t *bvh = render_device(&scene, &scene.camera, RT_METHOD_BVH, size,
                                 size);
    assert_not_flat(bvh, size, size);
    assert_images_agree(brute, bvh, size, size, "bvh against brute force");
    free(brute);
    free(bvh);
    rt_scene_free(&scene);
}
END_TEST

/* ---- spheres too big for float's areas -------------------------------------- */

/* Eight spheres over a floor, and one more sphere given as "X Y Z R":
 * around all of them ("0 0 0 1e20", a sky sphere), or reaching beyond
 * float's range ("3e38 0 0 3e38"), where a box's area overflows float and
 * once made the BVH's build split forever and write past its nodes. */
static const char *huge_sphere_scene(const char *sphere)
{
    static char text[1024];
    snprintf(text, sizeof text,
             "camera position 0 3 -9 look_at 0 0.5 0 fov 50\n"
             "background 0.5 0.7 0.9\n"
             "material grey colour 0.6 0.6 0.6\n"
             "material red colour 1 0.2 0.2 specular 0.5\n"
             "light position 4 8 -6\n"
             "plane normal 0 1 0 offset 0 material grey\n"
             "sphere centre -3 1 0 radius 1 material red\n"
             "sphere centre -1 0.5 -1 radius 0.5 material red\n"
             "sphere centre 0 1 1 radius 1 material grey\n"
             "sphere centre 1.5 0.7 -1.5 radius 0.7 material red\n"
             "sphere centre 3 1 0.5 radius 1 material red\n"
             "sphere centre 0 2.5 0 radius 0.4 material red\n"
             "sphere centre -2 0.3 -2.5 radius 0.3 material grey\n"
             "sphere centre 2 0.3 -3 radius 0.3 material red\n"
             "sphere centre %s material grey\n", sphere);
    return text;
}

static const char *const huge_spheres[] = {
    "0 0 0 radius 1e20", "0 0 0 radius 3e38", "3e38 0 0 radius 3e38"};

/* Whatever the huge sphere, both kernels draw what the reference draws
 * (none of them sees a sphere whose squared radius overflows). */
START_TEST(huge_spheres_render_as_the_reference_does)
{
    rt_scene scene;
    load_text(&scene, huge_sphere_scene(huge_spheres[_i]));
    assert_kernels_match_reference(&scene, 24, 18);
    rt_scene_free(&scene);
}
END_TEST

/* ---- shadows and reflections, by hand ------------------------------------------- */

/* The camera looks straight down at a grey plane. A sphere at (3, 1, 0)
 * stands between the light at (6, 2, 0) and the origin, so the centre
 * pixel sees the plane in shadow: ambient light only. */
static const char shadow_scene[] =
    "camera position 0 10 0 look_at 0 0 0 up 0 0 1 fov 30\n"
    "ambient 0.3\n"
    "material grey colour 0.5 0.5 0.5\n"
    "material red colour 1 0 0\n"
    "light position 6 2 0\n"
    "plane normal 0 1 0 offset 0 material grey\n"
    "sphere centre 3 1 0 radius 0.5 material red\n";

static void centre_pixel(const rt_scene *scene, rt_method method,
                         uint8_t out[4], int on_device)
{
    uint32_t size = 5;              /* odd: one pixel looks at the centre */
    uint8_t *p = on_device
        ? render_device(scene, &scene->camera, method, size, size)
        : render_reference(scene, &scene->camera, size, size);
    memcpy(out, p + 4 * (2 * size + 2), 4);
    free(p);
}

static void assert_centre_pixel(const rt_scene *scene, int r, int g, int b)
{
    for (int where = 0; where < 3; where++) {
        uint8_t px[4];
        centre_pixel(scene, where == 2 ? RT_METHOD_BVH : RT_METHOD_BRUTE_FORCE,
                     px, where > 0);
        ck_assert_msg(px[0] == r && px[1] == g && px[2] == b && px[3] == 255,
                      "%s: centre pixel (%d, %d, %d, %d), expected (%d, %d, "
                      "%d, 255)", where == 0 ? "reference" : where == 1
                      ? "brute" : "bvh", px[0], px[1], px[2], px[3], r, g, b);
    }
}

START_TEST(shadowed_point_gets_only_ambient_light)
{
    rt_scene scene;
    load_text(&scene, shadow_scene);
    /* 0.5 * 0.3 = 0.15 -> 38 (0.15 * 255 + 0.5 = 38.75, truncated) */
    assert_centre_pixel(&scene, 38, 38, 38);
    /* Without the sphere the light reaches it at cosine 2/sqrt(40):
     * 0.5 * (0.3 + 0.316228) = 0.308114 -> 79. */
    scene.n_spheres = 0;
    assert_centre_pixel(&scene, 79, 79, 79);
    rt_scene_free(&scene);
}
END_TEST

/* The camera at y = 5 looks down at a mirror plane; straight above it a
 * dark red sphere's underside is lit by a light at (3, 4, 0) under it
 * (cosine 0.8). The centre ray reflects off the mirror up to the sphere. */
static const char mirror_scene[] =
    "camera position 0 5 0 look_at 0 0 0 up 0 0 1 fov 20\n"
    "ambient 0.1\n"
    "depth 1\n"
    "material mirror colour 0 0 0 reflect 1\n"
    "material red colour 0.5 0 0\n"
    "material black colour 0 0 0\n"
    "light position 3 4 0\n"
    "plane normal 0 1 0 offset 0 material mirror\n"
    "sphere centre 0 10 0 radius 2 material red\n";

START_TEST(reflections_are_lit_and_shadowed)
{
    rt_scene scene;
    load_text(&scene, mirror_scene);
    /* Depth 1: the sphere's underside, 0.5 * (0.1 + 0.8) = 0.45 -> 115. */
    assert_centre_pixel(&scene, 115, 0, 0);
    /* Depth 0: the mirror is the last surface, shown as its own colour. */
    scene.max_depth = 0;
    assert_centre_pixel(&scene, 0, 0, 0);
    rt_scene_free(&scene);

    /* A black sphere between the light and the underside, off the ray's
     * path, leaves the reflected point in shadow: ambient only,
     * 0.5 * 0.1 = 0.05 -> 13. */
    char shadowed[sizeof mirror_scene + 64];
    snprintf(shadowed, sizeof shadowed, "%s%s", mirror_scene,
             "sphere centre 1.5 6 0 radius 0.5 material black\n");
    load_text(&scene, shadowed);
    assert_centre_pixel(&scene, 13, 0, 0);
    rt_scene_free(&scene);
}
END_TEST

/* A half mirror mixes its own colour with the reflection's. */
START_TEST(partial_reflection_mixes_colours)
{
    rt_scene scene;
    load_text(&scene, mirror_scene);
    rt_material *mirror = &scene.materials[0];
    mirror->colour = (cl_float4){{1, 1, 1, 0}};
    mirror->reflectivity = 0.5f;
    /* The plane at the centre: light at distance 5, cosine 0.8; its own
     * colour 1 * (0.1 + 0.8) = 0.9 weighs 0.5, the sphere's 0.45 weighs
     * 0.5: red 0.675 -> 172, green and blue 0.45 -> 115. */
    assert_centre_pixel(&scene, 172, 115, 115);
    rt_scene_free(&scene);
}
END_TEST

START_TEST(moving_the_light_changes_the_image_as_the_reference_does)
{
    rt_scene scene;
    ck_assert_app(rt_scene_load_file(&scene, scene_path("shadows.txt")));
    ck_assert_uint_gt(scene.n_lights, 0);
    uint32_t w = 24, h = 18;
    device_render d = render_open(&scene, RT_METHOD_BVH);
    uint8_t *before = malloc(w * h * 4), *after = malloc(w * h * 4);
    ck_assert_app(rt_renderer_render(d.r, &scene.camera, w, h, RT_PIXELS_RGBA,
                                    before));
    float moved[3] = {scene.lights[0].position.s[0] + 5,
                      scene.lights[0].position.s[1] + 3,
                      scene.lights[0].position.s[2] - 4};
    ck_assert_app(rt_renderer_move_light(d.r, 0, moved));
    ck_assert_app(rt_renderer_render(d.r, &scene.camera, w, h, RT_PIXELS_RGBA,
                                    after));
    ck_assert_msg(memcmp(before, after, w * h * 4) != 0, "moving the light "
                  "changed nothing");
    for (int a = 0; a < 3; a++)
        scene.lights[0].position.s[a] = moved[a];
    uint8_t *want = render_reference(&scene, &scene.camera, w, h);
    assert_images_agree(want, after, w, h, "after moving the light");
    ck_assert_app_fails(rt_renderer_move_light(d.r, scene.n_lights, moved),
                        APP_ERR_BAD_INPUT, "light");
    render_close(&d);
    free(before), free(after), free(want);
    rt_scene_free(&scene);
}
END_TEST

/* BGRA is RGBA with red and blue exchanged, for the GUI's cairo surface. */
START_TEST(bgra_order_swaps_red_and_blue)
{
    rt_scene scene;
    ck_assert_app(rt_scene_load_file(&scene, scene_path("simple.txt")));
    uint32_t w = 16, h = 12;
    device_render d = render_open(&scene, RT_METHOD_BVH);
    uint8_t *rgba = malloc(w * h * 4), *bgra = malloc(w * h * 4);
    ck_assert_app(rt_renderer_render(d.r, &scene.camera, w, h, RT_PIXELS_RGBA,
                                    rgba));
    ck_assert_app(rt_renderer_render(d.r, &scene.camera, w, h, RT_PIXELS_BGRA,
                                    bgra));
    for (size_t i = 0; i < (size_t)w * h; i++)
        ck_assert(rgba[4 * i] == bgra[4 * i + 2] &&
                  rgba[4 * i + 1] == bgra[4 * i + 1] &&
                  rgba[4 * i + 2] == bgra[4 * i] && bgra[4 * i + 3] == 255);
    render_close(&d);
    free(rgba), free(bgra);
    rt_scene_free(&scene);
}
END_TEST

/* ---- the camera, the BVH, errors ------------------------------------------------ */

START_TEST(pan_and_dolly_move_along_the_view)
{
    rt_view v = {{0, 0, -10}, {0, 0, 0}, {0, 1, 0}, 60};
    rt_view_dolly(&v, 4);
    ck_assert_float_eq_tol(v.position[2], -6, 1e-6);
    ck_assert_float_eq_tol(v.look_at[2], 4, 1e-6);
    rt_view_pan(&v, 2, 3);
    /* Looking along +z with y up, right is cross(forward, up) = -x. */
    ck_assert_float_eq_tol(v.position[0], -2, 1e-6);
    ck_assert_float_eq_tol(v.position[1], 3, 1e-6);
    ck_assert_float_eq_tol(v.look_at[1], 3, 1e-6);
    ck_assert_float_eq_tol(v.position[2], -6, 1e-6);
}
END_TEST

static void check_bvh_node(const rt_bvh *bvh, uint32_t node, int *seen,
                           uint32_t depth)
{
    ck_assert_uint_lt(node, bvh->n_nodes);
    ck_assert_uint_le(depth, RT_BVH_MAX_DEPTH);
    const rt_bvh_node *n = &bvh->nodes[node];
    if (n->count > 0) {
        for (int i = n->first; i < n->first + n->count; i++) {
            ck_assert(i >= 0 && (uint32_t)i < bvh->n_spheres && !seen[i]);
            seen[i] = 1;
            cl_float4 s = bvh->spheres[i];
            for (int a = 0; a < 3; a++)
                ck_assert(s.s[a] - s.s[3] >= n->lo.s[a] &&
                          s.s[a] + s.s[3] <= n->hi.s[a]);
        }
        return;
    }
    for (int c = 0; c < 2; c++) {
        const rt_bvh_node *child = &bvh->nodes[n->first + c];
        for (int a = 0; a < 3; a++)
            ck_assert(child->lo.s[a] >= n->lo.s[a] &&
                      child->hi.s[a] <= n->hi.s[a]);
        check_bvh_node(bvh, (uint32_t)n->first + c, seen, depth + 1);
    }
}

/* Every sphere in exactly one leaf, inside its box; every box inside its
 * parent's; no deeper than the device's stack; and coincident spheres
 * (which no split can separate) still make a valid tree. */
START_TEST(bvh_holds_every_sphere_once_inside_its_boxes)
{
    rt_scene scene;
    ck_assert_app(rt_scene_generate(&scene, 5000));
    for (int coincide = 0; coincide <= 1; coincide++) {
        if (coincide)
            for (uint32_t i = 0; i < 300; i++)
                scene.spheres[i] = scene.spheres[0];
        rt_bvh bvh;
        ck_assert_app(rt_bvh_build(&bvh, scene.spheres, scene.sphere_material,
                                  scene.n_spheres));
        int *seen = calloc(bvh.n_spheres, sizeof *seen);
        check_bvh_node(&bvh, 0, seen, 1);
        for (uint32_t i = 0; i < bvh.n_spheres; i++)
            ck_assert_msg(seen[i], "sphere %u is in no leaf", i);
        ck_assert_uint_le(bvh.depth, RT_BVH_MAX_DEPTH);
        ck_assert_uint_le(bvh.n_nodes, 2 * bvh.n_spheres - 1);
        free(seen);
        rt_bvh_free(&bvh);
    }
    rt_bvh empty;
    ck_assert_app_fails(rt_bvh_build(&empty, NULL, NULL, 0), APP_ERR_BAD_INPUT,
                        "at least one sphere");
    rt_scene_free(&scene);
}
END_TEST

/* Every sphere in exactly one leaf, inside its box, and no more nodes
 * than the 2n - 1 allocated (under ASan a write past them shows). */
static void assert_valid_bvh(const rt_scene *scene)
{
    rt_bvh bvh;
    ck_assert_app(rt_bvh_build(&bvh, scene->spheres, scene->sphere_material,
                               scene->n_spheres));
    ck_assert_uint_le(bvh.n_nodes, 2 * bvh.n_spheres - 1);
    int *seen = calloc(bvh.n_spheres, sizeof *seen);
    check_bvh_node(&bvh, 0, seen, 1);
    for (uint32_t i = 0; i < bvh.n_spheres; i++)
        ck_assert_msg(seen[i], "sphere %u is in no leaf", i);
    ck_assert_msg(bvh.depth > 2, "the huge sphere made one leaf of "
                  "everything (depth %u)", bvh.depth);
    free(seen);
    rt_bvh_free(&bvh);
}

/* A huge sphere among 8 and among 300: a valid tree in its nodes. */
START_TEST(bvh_of_huge_spheres_fits_its_nodes)
{
    for (size_t k = 0; k < sizeof huge_spheres / sizeof *huge_spheres; k++) {
        rt_scene small;
        load_text(&small, huge_sphere_scene(huge_spheres[k]));
        assert_valid_bvh(&small);
        rt_scene_free(&small);
    }
    rt_scene scene;
    ck_assert_app(rt_scene_generate(&scene, 300));
    float where[][4] = {{0, 0, 0, 1e20f}, {0, 0, 0, 3e38f},
                        {3e38f, 0, 0, 3e38f}};
    for (size_t k = 0; k < sizeof where / sizeof *where; k++) {
        for (uint32_t i = 0; i <= k; i++)    /* one, two, three of them */
            memcpy(scene.spheres[7 * i].s, where[k], sizeof where[k]);
        assert_valid_bvh(&scene);
    }
    rt_scene_free(&scene);
}
END_TEST

/* A scene with no spheres renders its background and planes on both
 * kernels (their sphere arrays are then one unused element). */
START_TEST(scene_without_spheres_renders)
{
    rt_scene scene;
    load_text(&scene, "background 0.2 0.4 0.6\nmaterial g colour 1 1 1\n"
                      "light position 0 5 0\n"
                      "plane normal 0 1 0 offset -1 material g\n");
    uint8_t *want = render_reference(&scene, &scene.camera, 8, 8);
    for (int m = RT_METHOD_BRUTE_FORCE; m <= RT_METHOD_BVH; m++) {
        uint8_t *got = render_device(&scene, &scene.camera, m, 8, 8);
        assert_images_agree(want, got, 8, 8, rt_method_name(m));
        free(got);
    }
    ck_assert_int_eq(want[0], 51);  /* the top row sees the sky: 0.2 */
    free(want);
    rt_scene_free(&scene);
}
END_TEST

START_TEST(bad_frames_and_scenes_are_refused)
{
    rt_scene scene;
    ck_assert_app(rt_scene_load_file(&scene, scene_path("simple.txt")));
    uint8_t px[4 * 4];
    rt_view v = scene.camera;
    ck_assert_app_fails(rt_render_reference(&scene, &v, 0, 2, px),
                        APP_ERR_BAD_INPUT, "0 x 2");
    v.fov_degrees = 180;
    ck_assert_app_fails(rt_render_reference(&scene, &v, 2, 2, px),
                        APP_ERR_BAD_INPUT, "field of view");
    v = scene.camera;
    memcpy(v.look_at, v.position, sizeof v.look_at);
    ck_assert_app_fails(rt_render_reference(&scene, &v, 2, 2, px),
                        APP_ERR_BAD_INPUT, "coincide");
    ck_assert_uint_gt(scene.n_spheres, 0);
    scene.sphere_material[0] = (cl_int)scene.n_materials;
    ck_assert_ptr_null(rt_renderer_create(NULL, &scene, RT_METHOD_BVH));
    ck_assert_msg(strstr(app_last_error(), "sphere 0 has material"),
                  "%s", app_last_error());
    ck_assert_ptr_null(rt_renderer_create(NULL, &scene, (rt_method)7));
    ck_assert_int_eq(rt_method_parse("bvh"), RT_METHOD_BVH);
    ck_assert_int_eq(rt_method_parse("brute"), RT_METHOD_BRUTE_FORCE);
    ck_assert_int_eq(rt_method_parse("fast"), -1);
    rt_scene_free(&scene);
}
END_TEST

START_TEST(shared_structs_have_the_device_layout)
{
    const char *h = "apps/raytracer/kernels/types.h";
    ck_assert_app(CLFRAME_CHECK_LAYOUT(NULL, h, rt_material, colour,
                                      reflectivity, specular, shininess));
    ck_assert_app(CLFRAME_CHECK_LAYOUT(NULL, h, rt_plane, normal_offset,
                                      material));
    ck_assert_app(CLFRAME_CHECK_LAYOUT(NULL, h, rt_light, position, colour));
    ck_assert_app(CLFRAME_CHECK_LAYOUT(NULL, h, rt_bvh_node, lo, hi, first,
                                      count));
    ck_assert_app(CLFRAME_CHECK_LAYOUT(NULL, h, rt_frame, origin, forward,
                                      right, up, background, ambient, width,
                                      height, max_depth, n_spheres, n_planes,
                                      n_lights, pixel_order));
}
END_TEST

/* ---- bin/raytrace ------------------------------------------------------------------ */

static const char *tmp_path(const char *name)
{
    return test_tmp_path("raytrace", name);
}

START_TEST(raytrace_writes_a_png_and_reports_frames)
{
    const char *png = tmp_path("out.png"), *log = tmp_path("log");
    ck_assert_int_eq(test_run("%s %s -o %s --size 31x17 --frames 3 > %s",
                         test_program("raytrace"), scene_path("simple.txt"),
                         png, log), 0);
    size_t size;
    char *data = test_read_file(png, &size);
    ck_assert_msg(size > 8 && memcmp(data, "\x89PNG", 4) == 0, "not a PNG");
    free(data);
    char *text = test_read_file(log, &size);
    ck_assert_msg(strstr(text, "31x17") && strstr(text, "frames/s") &&
                  strstr(text, "wrote"), "%s", text);
    free(text);
    /* The reference through the program: the same image as the kernel's. */
    const char *ref = tmp_path("ref.png");
    ck_assert_int_eq(test_run("%s --generate 20 --size 16x16 --method reference "
                         "-o %s --save %s > /dev/null",
                         test_program("raytrace"), ref,
                         tmp_path("scene.txt")), 0);
    rt_scene saved;
    ck_assert_app(rt_scene_load_file(&saved, tmp_path("scene.txt")));
    ck_assert_uint_eq(saved.n_spheres, 20);
    rt_scene_free(&saved);
}
END_TEST

/* The program with a sky sphere: the BVH's image is the brute force's,
 * byte for byte. */
START_TEST(raytrace_draws_a_sky_sphere_as_brute_force_does)
{
    const char *scene = test_write_file("raytrace-sky.txt",
                                        huge_sphere_scene(huge_spheres[0]));
    const char *png[2] = {tmp_path("sky-bvh.png"), tmp_path("sky-brute.png")};
    const char *method[2] = {"bvh", "brute"};
    char *data[2];
    size_t size[2];
    for (int m = 0; m < 2; m++) {
        ck_assert_int_eq(test_run("%s %s -o %s --size 24x18 --method %s "
                                  "> /dev/null", test_program("raytrace"),
                                  scene, png[m], method[m]), 0);
        data[m] = test_read_file(png[m], &size[m]);
    }
    ck_assert_msg(size[0] == size[1] && !memcmp(data[0], data[1], size[0]),
                  "the BVH's image differs from the brute force's");
    free(data[0]);
    free(data[1]);
}
END_TEST

static void assert_png(const char *path)
{
    size_t size;
    char *data = test_read_file(path, &size);
    ck_assert_msg(size > 8 && memcmp(data, "\x89PNG", 4) == 0,
                  "%s is not a PNG", path);
    free(data);
}

/* -o through a link writes the file it names, and into a FIFO writes to
 * its reader; neither is replaced. */
START_TEST(raytrace_follows_links_and_writes_into_fifos)
{
    const char *real = tmp_path("real.png"), *link = tmp_path("link.png");
    const char *fifo = tmp_path("fifo"), *got = tmp_path("from-fifo.png");
    test_write_file("raytrace-real.png", "an old picture\n");
    ck_assert_int_eq(symlink(real, link), 0);
    ck_assert_int_eq(test_run("%s %s -o %s --size 8x8 > /dev/null",
                              test_program("raytrace"),
                              scene_path("simple.txt"), link), 0);
    struct stat st;
    ck_assert(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    assert_png(real);

    /* The reader gives up after a while, should the program never open
     * the FIFO. */
    ck_assert_int_eq(mkfifo(fifo, 0644), 0);
    ck_assert_int_eq(test_run("timeout 60 cat %s > %s & %s %s -o %s --size "
                              "8x8 > /dev/null; s=$?; wait; exit $s", fifo,
                              got, test_program("raytrace"),
                              scene_path("simple.txt"), fifo), 0);
    ck_assert(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
    assert_png(got);
}
END_TEST

/* A scene that cannot be written whole leaves the old file as it was:
 * /dev/full, and a file size limit (a disk that fills). */
START_TEST(raytrace_save_fails_whole)
{
    const char *err = tmp_path("save-err"), *old = tmp_path("old.txt");
    ck_assert_int_eq(test_run("%s --generate 100 --save /dev/full 2> %s",
                              test_program("raytrace"), err), 1);
    size_t size;
    char *text = test_read_file(err, &size);
    ck_assert_msg(strstr(text, "/dev/full: writing the scene failed: No "
                  "space left on device"), "%s", text);
    free(text);

    test_write_file("raytrace-old.txt", "# the old scene\n");
    ck_assert_int_ne(test_run("trap '' XFSZ; ulimit -f 1; %s --generate "
                              "1000 --save %s 2> %s", test_program("raytrace"),
                              old, err), 0);
    text = test_read_file(err, &size);
    ck_assert_msg(strstr(text, "raytrace-old.txt: writing the scene failed"),
                  "%s", text);
    free(text);
    text = test_read_file(old, &size);
    ck_assert_str_eq(text, "# the old scene\n");
    free(text);

    ck_assert_int_eq(test_run("%s --generate 1 --save %s 2> %s",
                              test_program("raytrace"),
                              tmp_path("no/such.txt"), err), 1);
    text = test_read_file(err, &size);
    ck_assert_msg(strstr(text, "no/such.txt: cannot write: the folder ") &&
                  strstr(text, "raytrace-no does not exist"), "%s", text);
    free(text);
}
END_TEST

/* A scene file without a statement (empty, /dev/null) is refused, and
 * /dev/zero at its first byte rather than read without end. */
START_TEST(raytrace_refuses_empty_and_endless_scenes)
{
    const char *png = tmp_path("nothing.png"), *err = tmp_path("empty-err");
    const char *empty = test_write_file("raytrace-empty.txt", "# nothing\n");
    const char *bad[][2] = {
        {empty, "raytrace-empty.txt: no statement"},
        {"/dev/null", "/dev/null: no statement"},
        {"/dev/zero", "/dev/zero:1: expected text, found a NUL byte"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ck_assert_int_eq(test_run("timeout 20 %s %s -o %s 2> %s",
                                  test_program("raytrace"), bad[i][0], png,
                                  err), 1);
        size_t size;
        char *text = test_read_file(err, &size);
        ck_assert_msg(strstr(text, bad[i][1]), "%s: stderr was: %s",
                      bad[i][0], text);
        free(text);
        ck_assert_msg(access(png, F_OK) != 0, "%s left %s", bad[i][0], png);
    }
}
END_TEST

START_TEST(raytrace_refuses_bad_arguments_without_output)
{
    const char *png = tmp_path("never.png"), *err = tmp_path("err");
    const char *bad[][2] = {
        {"--size 0x5", "bad value '0x5' for --size"},
        {"--size 7", "bad value '7' for --size"},
        {"--camera 1,2,3", "--camera \"1,2,3\": 3 fields, expected 6 or 7"},
        {"--camera ,,0,1,-5,,0,0,0,,45,,",
         "--camera \",,0,1,-5,,0,0,0,,45,,\": field 1 is empty"},
        {"--camera 0,1,-5,0,0,0,", "field 7 is empty"},
        {"--camera 0,1,-5,0,x,0", "field 5, 'x', is not a number"},
        {"--method fast", "bad value 'fast' for --method"},
        {"--frames -1", "bad value '-1' for --frames"},
        {"--bogus 1", "unknown option --bogus"},
        {"--camera 0,0,0,0,0,0", "coincide"},
        {"--camera 0,1,-5,0,0,0,0", "field of view"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ck_assert_int_ne(test_run("%s %s -o %s %s 2> %s",
                             test_program("raytrace"),
                             scene_path("simple.txt"), png, bad[i][0], err),
                         0);
        size_t size;
        char *text = test_read_file(err, &size);
        ck_assert_msg(strstr(text, bad[i][1]), "%s: stderr was: %s",
                      bad[i][0], text);
        free(text);
        ck_assert_msg(access(png, F_OK) != 0, "%s left %s", bad[i][0], png);
    }
    ck_assert_int_ne(test_run("%s %s -o %s 2> %s", test_program("raytrace"),
                         tmp_path("missing.txt"), png, err), 0);
    size_t size;
    char *text = test_read_file(err, &size);
    ck_assert_msg(strstr(text, "missing.txt"), "%s", text);
    free(text);
    ck_assert_int_ne(test_run("%s 2> %s", test_program("raytrace"), err), 0);
}
END_TEST

/* What the program writes to standard output is its result: lost there
 * ("> /dev/full"), it is a failure with a message, not exit status 0. */
START_TEST(the_program_fails_when_its_output_is_lost)
{
    static const char *const raytrace_args[] = {
        "--generate 2 --size 8x8 --frames 1 --method reference",
        "--help",
        NULL};
    test_assert_lost_output_fails("raytrace", raytrace_args);
}
END_TEST

Suite *raytracer_render_suite(void)
{
    Suite *s = suite_create("raytracer_render");
    TCase *tc = test_case("kernels");
    tcase_add_loop_test(tc, shipped_scenes_match_reference, 0,
                        sizeof small_scenes / sizeof *small_scenes);
    tcase_add_test(tc, seed_scene_matches_reference);
    tcase_add_test(tc, odd_sizes_and_depths_match_reference);
    tcase_add_loop_test(tc, pinned_frames_match_pageable_frames, 0, 2);
    tcase_add_loop_test(tc, bvh_matches_brute_force_on_random_scenes, 0, 3);
    tcase_add_test(tc, shadowed_point_gets_only_ambient_light);
    tcase_add_test(tc, reflections_are_lit_and_shadowed);
    tcase_add_test(tc, partial_reflection_mixes_colours);
    tcase_add_test(tc, moving_the_light_changes_the_image_as_the_reference_does);
    tcase_add_test(tc, bgra_order_swaps_red_and_blue);
    tcase_add_test(tc, scene_without_spheres_renders);
    tcase_add_loop_test(tc, huge_spheres_render_as_the_reference_does, 0,
                        sizeof huge_spheres / sizeof *huge_spheres);
    tcase_add_test(tc, bad_frames_and_scenes_are_refused);
    tcase_add_test(tc, shared_structs_have_the_device_layout);
    suite_add_tcase(s, tc);

    TCase *host = test_case("host");
    tcase_add_test(host, pan_and_dolly_move_along_the_view);
    tcase_add_test(host, bvh_holds_every_sphere_once_inside_its_boxes);
    tcase_add_test(host, bvh_of_huge_spheres_fits_its_nodes);
    suite_add_tcase(s, host);

    TCase *programs = test_case("programs");
    tcase_set_tags(programs, "no-oclgrind");
    tcase_add_test(programs, raytrace_writes_a_png_and_reports_frames);
    tcase_add_test(programs, raytrace_refuses_bad_arguments_without_output);
    tcase_add_test(programs, raytrace_draws_a_sky_sphere_as_brute_force_does);
    tcase_add_test(programs, raytrace_follows_links_and_writes_into_fifos);
    tcase_add_test(programs, raytrace_save_fails_whole);
    tcase_add_test(programs, raytrace_refuses_empty_and_endless_scenes);
    tcase_add_test(programs, the_program_fails_when_its_output_is_lost);
    suite_add_tcase(s, programs);
    return s;
}
