/*
 * generate.c: the seed's test scene, n spheres of eight materials resting
 * on a grey reflective ground plane under one light, made by the rule in
 * README "Scene files". The rule draws its randomness from a 32-bit LCG
 * and turns it into floats exactly (24-bit integers times 2^-24), and the
 * arithmetic after that is single IEEE operations in a fixed order, so the
 * same n gives the same scene, bit for bit, on every machine
 * (apps/raytracer/scenes/spheres1000.txt is this scene for n = 1000).
 */
#include "raytracer.h"
#include "common/error.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_SPHERES = 1 << 24 };   /* the loader's limit (scene.c) */

static const float spacing = 2.5f; /* between the grid's columns and rows */

typedef struct named_material {
    const char *name;
    rt_material m;
} named_material;

#define SOLID(r, g, b) {{{r, g, b, 0.0f}}, 0.0f, 0.4f, 30.0f, 0.0f}

/* Material 0 is the ground's; a sphere gets 1 + floor(8u). */
static const named_material palette[] = {
    {"ground", {{{0.6f, 0.6f, 0.6f, 0.0f}}, 0.25f, 0.0f, 32.0f, 0.0f}},
    {"red", SOLID(0.9f, 0.15f, 0.12f)},
    {"green", SOLID(0.2f, 0.7f, 0.25f)},
    {"blue", SOLID(0.15f, 0.35f, 0.9f)},
    {"yellow", SOLID(0.95f, 0.85f, 0.2f)},
    {"orange", SOLID(1.0f, 0.5f, 0.1f)},
    {"purple", SOLID(0.6f, 0.25f, 0.8f)},
    {"mirror", {{{1.0f, 1.0f, 1.0f, 0.0f}}, 0.8f, 0.8f, 80.0f, 0.0f}},
    {"gold", {{{1.0f, 0.8f, 0.4f, 0.0f}}, 0.5f, 0.6f, 50.0f, 0.0f}},
};
enum { N_PALETTE = sizeof palette / sizeof *palette };

/* The rule's random numbers: x = 1664525 x + 1013904223 (mod 2^32) from
 * x = 1; u = (x >> 8) 2^-24, exact in a float, in [0, 1). */
typedef struct lcg {
    uint32_t x;
} lcg;

static uint32_t lcg_next(lcg *g)
{
    g->x = 1664525u * g->x + 1013904223u;
    return g->x;
}

static float lcg_unit(lcg *g)
{
    return (float)(lcg_next(g) >> 8) * 0x1p-24f;
}

/* The smallest g with g * g >= n. */
static uint32_t grid_columns(uint32_t n)
{
    uint32_t g = 1;
    while ((uint64_t)g * g < n)
        g++;
    return g;
}

/* Sphere centres and radii on the grid, with their materials; each
 * sphere draws four numbers in this order: radius, x jitter, z jitter,
 * material. The jitter keeps a sphere inside its 2.5 x 2.5 cell. */
static void place_spheres(rt_scene *scene, uint32_t n, uint32_t g)
{
    lcg rng = {1};
    float middle = (float)(g - 1) * 0.5f;
    for (uint32_t i = 0; i < n; i++) {
        float col = (float)(i % g) - middle, row = (float)(i / g) - middle;
        float r = 0.35f + 0.5f * lcg_unit(&rng);
        float slack = spacing - 2.0f * r;
        float x = col * spacing + (lcg_unit(&rng) - 0.5f) * slack;
        float z = row * spacing + (lcg_unit(&rng) - 0.5f) * slack;
        /* floor(8u) is u's top three bits, x's top three bits. */
        uint32_t k = lcg_next(&rng) >> 29;
        scene->spheres[i] = (cl_float4){{x, r, z, r}};
        scene->sphere_material[i] = (cl_int)(1 + k);
    }
}

/* The light, camera and settings, scaled by the field's width E. */
static void place_view(rt_scene *scene, uint32_t g)
{
    float e = spacing * (float)g;
    scene->lights[0] = (rt_light){
        .position = {{0.3f * e, 0.8f * e + 10.0f, -0.4f * e, 0.0f}},
        .colour = {{1.0f, 1.0f, 1.0f, 0.0f}},
    };
    scene->camera = (rt_view){
        .position = {0.0f, 0.35f * e + 2.0f, -0.75f * e - 4.0f},
        .look_at = {0.0f, 0.0f, 0.1f * e},
        .up = {0.0f, 1.0f, 0.0f},
        .fov_degrees = 50.0f,
    };
    scene->background[0] = 0.55f;
    scene->background[1] = 0.7f;
    scene->background[2] = 0.9f;
    scene->ambient = 0.15f;
    scene->max_depth = 3;
}

/* scene is an output, left empty (rt_scene_init) on an error. */
int rt_scene_generate(rt_scene *scene, uint32_t n)
{
    rt_scene_init(scene);
    if (n == 0 || n > MAX_SPHERES)
        return app_fail(APP_ERR_BAD_INPUT, "generated scene of %u "
                        "spheres: it must have 1 to %d (2^24)", n,
                        MAX_SPHERES);
    scene->materials = calloc(N_PALETTE, sizeof *scene->materials);
    scene->material_names = calloc(N_PALETTE, sizeof *scene->material_names);
    scene->spheres = calloc(n, sizeof *scene->spheres);
    scene->sphere_material = calloc(n, sizeof *scene->sphere_material);
    scene->planes = calloc(1, sizeof *scene->planes);
    scene->lights = calloc(1, sizeof *scene->lights);
    if (!scene->materials || !scene->material_names || !scene->spheres ||
        !scene->sphere_material || !scene->planes || !scene->lights) {
        rt_scene_free(scene);
        return app_fail(APP_ERR_NO_MEMORY, "generated scene of %u "
                        "spheres: out of memory", n);
    }
    for (uint32_t i = 0; i < N_PALETTE; i++) {
        scene->materials[i] = palette[i].m;
        strcpy(scene->material_names[i], palette[i].name);
    }
    scene->n_materials = N_PALETTE;
    scene->planes[0] = (rt_plane){.normal_offset = {{0.0f, 1.0f, 0.0f, 0.0f}},
                                  .material = 0};
    scene->n_planes = 1;
    scene->n_lights = 1;
    uint32_t g = grid_columns(n);
    place_spheres(scene, n, g);
    scene->n_spheres = n;
    place_view(scene, g);
    return 0;
}
