/*
 * raytracer.h: the raytracer application's library (no GTK in it): scenes
 * (the text format, the seed's generated test scene), the camera, a plain C
 * reference renderer, the BVH built on the host, and the OpenCL renderer
 * with its two kernels (brute force and BVH). bin/raytrace (headless) and
 * bin/raytracer-gtk (the window) are built on it.
 *
 * The model, the same in the reference and on the device: spheres and
 * planes, each with a material; every point light adds diffuse and Phong
 * specular light unless something lies between it and the point (shadows);
 * a reflective surface mixes its own lit colour with what its mirror ray
 * sees, followed iteratively up to max_depth reflections, each hit lit and
 * shadowed like a primary one. apps/raytracer/kernels/types.h has the structs.
 *
 * Every function that can fail returns 0 or a negative code and
 * leaves a message (file, line, what was expected) in app_last_error().
 */
#ifndef RAYTRACER_H
#define RAYTRACER_H

#include "raytracer/kernels/types.h"

#include <stdint.h>
#include <stdio.h>

/* clframe's context (clframe.h), which the OpenCL versions run on. */
typedef struct clctx clctx;

/* ---- scenes ---------------------------------------------------------------- */

/* Where the camera is and what it looks at; fov is the vertical field of
 * view in degrees, in (0, 180). up need not be perpendicular to the view. */
typedef struct rt_view {
    float position[3];
    float look_at[3];
    float up[3];
    float fov_degrees;
} rt_view;

enum { RT_NAME_MAX = 32 };        /* a material's name, with its NUL */

typedef struct rt_scene {
    rt_view camera;
    float background[3];
    float ambient;
    int max_depth;                /* reflections followed, 0 .. RT_MAX_DEPTH */
    rt_material *materials;
    char (*material_names)[RT_NAME_MAX];
    uint32_t n_materials;
    cl_float4 *spheres;           /* x, y, z: centre; w: radius */
    cl_int *sphere_material;      /* index into materials, per sphere */
    uint32_t n_spheres;
    rt_plane *planes;
    uint32_t n_planes;
    rt_light *lights;
    uint32_t n_lights;
} rt_scene;

enum { RT_MAX_DEPTH = 16 };

/* Defaults of a scene that says nothing: camera at (0, 1, -5) looking at
 * the origin, up (0, 1, 0), fov 60; background (0, 0, 0); ambient 0.1;
 * max_depth 3; no objects, materials or lights. */
void rt_scene_init(rt_scene *scene);
void rt_scene_free(rt_scene *scene);

/* The text format (README "Scene files"). name is used in messages. */
int rt_scene_load(rt_scene *scene, FILE *f, const char *name);
int rt_scene_load_file(rt_scene *scene, const char *path);
int rt_scene_parse(rt_scene *scene, const char *text, const char *name);

/* Writes scene in the text format; loading it gives the same scene. */
int rt_scene_save(const rt_scene *scene, FILE *f);

/* The seed's test scene with n spheres (n >= 1) over a ground plane, lit
 * by one light, by the rule the README documents: the same n gives the
 * same scene on every machine. */
int rt_scene_generate(rt_scene *scene, uint32_t n);

/* ---- the camera ------------------------------------------------------------ */

/* The frame for a view of scene at width x height pixels. */
int rt_frame_make(const rt_scene *scene, const rt_view *view, uint32_t width,
                  uint32_t height, int pixel_order, rt_frame *frame);

/* GUI movements: pan moves position and look_at together along the view's
 * right and up directions; dolly along the view direction (positive: in). */
void rt_view_pan(rt_view *view, float right, float up);
void rt_view_dolly(rt_view *view, float forward);

/* ---- renderers --------------------------------------------------------------- */

/* Plain C, one pixel after another, brute force over every object: what
 * the kernels are tested against. pixels holds width * height * 4 bytes. */
int rt_render_reference(const rt_scene *scene, const rt_view *view,
                        uint32_t width, uint32_t height, uint8_t *pixels);

/* The BVH over a scene's spheres, with the spheres reordered so that every
 * leaf's spheres are consecutive. */
typedef struct rt_bvh {
    rt_bvh_node *nodes;
    uint32_t n_nodes;
    uint32_t depth;               /* levels, root only: 1 */
    cl_float4 *spheres;
    cl_int *sphere_material;
    uint32_t n_spheres;
} rt_bvh;

int rt_bvh_build(rt_bvh *bvh, const cl_float4 *spheres,
                 const cl_int *sphere_material, uint32_t n_spheres);
void rt_bvh_free(rt_bvh *bvh);

typedef enum rt_method {
    RT_METHOD_BRUTE_FORCE,        /* every ray against every sphere */
    RT_METHOD_BVH                 /* traversal of the BVH, no recursion */
} rt_method;

const char *rt_method_name(rt_method method);
int rt_method_parse(const char *text);       /* rt_method or -1 */

/* The OpenCL renderer: the scene's arrays stay on the device (persistent
 * buffers) and each frame is one kernel call and one read of the pixels. */
typedef struct rt_renderer rt_renderer;

/* NULL on error (message set). ctx NULL: the default context. */
rt_renderer *rt_renderer_create(clctx *ctx, const rt_scene *scene,
                                rt_method method);
void rt_renderer_free(rt_renderer *r);
/* The context it renders on (for pinned pixels: clframe_host_alloc). */
clctx *rt_renderer_ctx(rt_renderer *r);

/* Replaces light i's position (the GUI's sliders) on the device too. */
int rt_renderer_move_light(rt_renderer *r, uint32_t i, const float pos[3]);

/* Renders view into pixels (width * height * 4 bytes, in pixel_order). */
int rt_renderer_render(rt_renderer *r, const rt_view *view, uint32_t width,
                       uint32_t height, int pixel_order, uint8_t *pixels);

/* Kernel time of the last frame in ms (timing on), or -1. */
int rt_renderer_set_timing(rt_renderer *r, int on);
double rt_renderer_last_kernel_ms(rt_renderer *r);

#endif /* RAYTRACER_H */
