/*
 * render_cl.c: the OpenCL renderer. Creating it uploads the scene once into
 * persistent device buffers (for the BVH method, the BVH and its reordered
 * spheres); a frame is then one kernel call that writes the pixels and one
 * read of them into the caller's array, which for the GUI is the pixels of
 * the surface on screen. The read runs at the bus's speed when the
 * caller's pixels are pinned (clframe_host_alloc, as the GUI's surfaces
 * are). A frame in bands of rows, each read while the next renders
 * (clkernel_call_chunked), was slower at every size tried on a GPU
 * (bench/RESULTS.md, Data movement): a frame is one call.
 */
#include "raytracer.h"
#include "common/error.h"
#include "clframe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* apps/raytracer/kernels, compiled in (scripts/embed-sources). */
extern const clframe_source raytracer_kernel_sources[];
#define RT_KERNELS "apps/raytracer/kernels/render.cl"

/* 8 x 8 pixels per work-group: neighbouring rays take the same path
 * through the BVH, and 64 is a multiple of every GPU's SIMD width. */
enum { GROUP_W = 8, GROUP_H = 8 };

struct rt_renderer {
    clctx *ctx;
    rt_method method;
    rt_scene scene;               /* lights and counts; arrays not owned */
    rt_light *lights;             /* owned: the GUI moves them */
    rt_bvh bvh;
    clkernel *kernel;
    clarg bvh_nodes, spheres, sphere_material, planes, materials,
          light_arg, pixels;
    size_t pixels_capacity;       /* pixels in the device's pixel buffer */
};

static const char *const method_names[] = {"brute", "bvh"};

const char *rt_method_name(rt_method method)
{
    return (unsigned)method < 2 ? method_names[method] : "unknown";
}

int rt_method_parse(const char *text)
{
    for (int m = 0; m < 2; m++)
        if (strcmp(text, method_names[m]) == 0)
            return m;
    return -1;
}

/* A persistent copy of a host array on the device. An empty array gets one
 * zeroed element: a kernel argument must be a buffer, and the scene's
 * counts keep the kernel from reading it. */
static int upload(rt_renderer *r, clarg *a, const char *type, const void *host,
                  size_t elem_size, size_t count)
{
    static const unsigned char zeros[64];
    *a = clarg_array(type, elem_size, (void *)(count ? host : zeros),
                     count ? count : 1, CLARG_TO_DEVICE);
    int rc = clarg_persist(a, r->ctx);
    if (rc == 0)
        rc = clarg_write(a);
    if (rc == 0)
        rc = clarg_set_flags(a, 0);   /* stays on the device from now on */
    return rc;
}

static int upload_scene(rt_renderer *r)
{
    const rt_scene *s = &r->scene;
    const cl_float4 *spheres = s->spheres;
    const cl_int *materials_of = s->sphere_material;
    int rc = 0;
    if (r->method == RT_METHOD_BVH && s->n_spheres > 0) {
        rc = rt_bvh_build(&r->bvh, s->spheres, s->sphere_material,
                          s->n_spheres);
        if (rc == 0)
            rc = upload(r, &r->bvh_nodes, "rt_bvh_node", r->bvh.nodes,
                        sizeof *r->bvh.nodes, r->bvh.n_nodes);
        spheres = r->bvh.spheres;
        materials_of = r->bvh.sphere_material;
    } else if (r->method == RT_METHOD_BVH) {
        rc = upload(r, &r->bvh_nodes, "rt_bvh_node", NULL,
                    sizeof(rt_bvh_node), 0);
    }
    if (rc == 0)
        rc = upload(r, &r->spheres, "float4", spheres, sizeof *spheres,
                    s->n_spheres);
    if (rc == 0)
        rc = upload(r, &r->sphere_material, "int", materials_of,
                    sizeof *materials_of, s->n_spheres);
    if (rc == 0)
        rc = upload(r, &r->planes, "rt_plane", s->planes, sizeof *s->planes,
                    s->n_planes);
    if (rc == 0)
        rc = upload(r, &r->materials, "rt_material", s->materials,
                    sizeof *s->materials, s->n_materials);
    if (rc == 0)
        rc = upload(r, &r->light_arg, "rt_light", r->lights,
                    sizeof *r->lights, s->n_lights);
    return rc;
}

static int check_materials(const rt_scene *s)
{
    for (uint32_t i = 0; i < s->n_spheres; i++)
        if (s->sphere_material[i] < 0 ||
            (uint32_t)s->sphere_material[i] >= s->n_materials)
            return app_fail(APP_ERR_BAD_INPUT, "sphere %u has "
                            "material %d; the scene has %u", i,
                            s->sphere_material[i], s->n_materials);
    for (uint32_t i = 0; i < s->n_planes; i++)
        if (s->planes[i].material < 0 ||
            (uint32_t)s->planes[i].material >= s->n_materials)
            return app_fail(APP_ERR_BAD_INPUT, "plane %u has "
                            "material %d; the scene has %u", i,
                            s->planes[i].material, s->n_materials);
    return 0;
}

rt_renderer *rt_renderer_create(clctx *ctx, const rt_scene *scene,
                                rt_method method)
{
    if (method != RT_METHOD_BRUTE_FORCE && method != RT_METHOD_BVH) {
        app_fail(APP_ERR_USAGE, "rt_renderer_create: unknown method "
                 "%d", (int)method);
        return NULL;
    }
    if (check_materials(scene) != 0)
        return NULL;
    if (!ctx && !(ctx = clctx_default()))
        return NULL;
    rt_renderer *r = calloc(1, sizeof *r);
    rt_light *lights = malloc((scene->n_lights + 1) * sizeof *lights);
    if (!r || !lights) {
        free(r), free(lights);
        app_fail(APP_ERR_NO_MEMORY, "out of memory for a renderer");
        return NULL;
    }
    memcpy(lights, scene->lights, scene->n_lights * sizeof *lights);
    *r = (rt_renderer){.ctx = ctx, .method = method, .scene = *scene,
                       .lights = lights};
    /* Correctly rounded sqrt and division make the kernels' images the
     * reference's, to the bit on the devices tried. */
    r->kernel = clframe_add_sources(raytracer_kernel_sources) ? NULL
                : clkernel_file(ctx, RT_KERNELS, method == RT_METHOD_BVH
                                ? "rt_render_bvh" : "rt_render_brute",
                                clctx_exact_fp_option(ctx));
    if (!r->kernel || upload_scene(r) != 0) {
        rt_renderer_free(r);
        return NULL;
    }
    clkernel_local(r->kernel, GROUP_W, GROUP_H);
    return r;
}

void rt_renderer_free(rt_renderer *r)
{
    if (!r)
        return;
    clarg *args[] = {&r->bvh_nodes, &r->spheres, &r->sphere_material,
                     &r->planes, &r->materials, &r->light_arg, &r->pixels};
    for (size_t i = 0; i < sizeof args / sizeof *args; i++)
        if (args[i]->kind != CLARG_KIND_NONE)
            clarg_release(args[i]);
    clkernel_free(r->kernel);
    rt_bvh_free(&r->bvh);
    free(r->lights);
    free(r);
}

int rt_renderer_move_light(rt_renderer *r, uint32_t i, const float pos[3])
{
    if (i >= r->scene.n_lights)
        return app_fail(APP_ERR_BAD_INPUT, "light %u: the scene has "
                        "%u lights", i, r->scene.n_lights);
    for (int a = 0; a < 3; a++)
        r->lights[i].position.s[a] = pos[a];
    return clarg_write(&r->light_arg);
}

/* The device's pixel buffer, grown (never shrunk) to width * height. */
static int reserve_pixels(rt_renderer *r, size_t count)
{
    if (count <= r->pixels_capacity)
        return 0;
    if (r->pixels.kind != CLARG_KIND_NONE)
        clarg_release(&r->pixels);
    r->pixels = clarg_array("uchar4", sizeof(cl_uchar4), NULL, count,
                            CLARG_FROM_DEVICE);
    int rc = clarg_persist(&r->pixels, r->ctx);
    if (rc != 0) {
        r->pixels.kind = CLARG_KIND_NONE;
        r->pixels_capacity = 0;
        return rc;
    }
    r->pixels_capacity = count;
    return 0;
}

int rt_renderer_render(rt_renderer *r, const rt_view *view, uint32_t width,
                       uint32_t height, int pixel_order, uint8_t *pixels)
{
    rt_frame frame;
    int rc = rt_frame_make(&r->scene, view, width, height, pixel_order,
                           &frame);
    if (rc == 0)
        rc = reserve_pixels(r, (size_t)width * height);
    if (rc != 0)
        return rc;
    /* A copy of the persistent pixel argument shares its device buffer;
     * with the caller's array as its host side, the call reads the frame
     * straight into it. */
    clarg out = r->pixels;
    out.host = pixels;
    out.count = (size_t)width * height;
    clkernel_global(r->kernel, clframe_round_up(width, GROUP_W),
                    clframe_round_up(height, GROUP_H));
    if (r->method == RT_METHOD_BVH)
        return clkernel_call(r->kernel, CLARG_VALUE("rt_frame", &frame),
                             r->bvh_nodes, r->spheres, r->sphere_material,
                             r->planes, r->materials, r->light_arg, out);
    return clkernel_call(r->kernel, CLARG_VALUE("rt_frame", &frame),
                         r->spheres, r->sphere_material, r->planes,
                         r->materials, r->light_arg, out);
}

clctx *rt_renderer_ctx(rt_renderer *r)
{
    return r ? r->ctx : NULL;
}

int rt_renderer_set_timing(rt_renderer *r, int on)
{
    return clkernel_set_timing(r->kernel, on);
}

double rt_renderer_last_kernel_ms(rt_renderer *r)
{
    return clkernel_last_ms(r->kernel);
}
