/*
 * reference.c: the plain C renderer the kernels are tested against. It
 * follows the model of raytracer.h as directly as C allows: for each pixel
 * a loop over reflections, each hit found by testing every object, lit by
 * every light that no object hides. No BVH, no tricks; single precision
 * and the operations in the kernels' order, so on a device with correctly
 * rounded arithmetic the images agree to the last bit or nearly.
 */
#include "raytracer.h"

#include <math.h>
#include <stdlib.h>

typedef struct vec {
    float x, y, z;
} vec;

static vec v_add(vec a, vec b) { return (vec){a.x + b.x, a.y + b.y, a.z + b.z}; }
static vec v_sub(vec a, vec b) { return (vec){a.x - b.x, a.y - b.y, a.z - b.z}; }
static vec v_mul(vec a, float s) { return (vec){a.x * s, a.y * s, a.z * s}; }
static vec v_prod(vec a, vec b) { return (vec){a.x * b.x, a.y * b.y, a.z * b.z}; }
static float v_dot(vec a, vec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static vec v_of4(cl_float4 a) { return (vec){a.s[0], a.s[1], a.s[2]}; }

static vec v_normalize(vec a)
{
    return v_mul(a, 1.0f / sqrtf(v_dot(a, a)));
}

/* Distance along the unit ray (o, d) to sphere s beyond tmin, or INFINITY.
 * The discriminant is computed from the ray's closest approach to the
 * centre, which keeps its precision for spheres far from the origin. */
static float hit_sphere(cl_float4 s, vec o, vec d, float tmin)
{
    vec oc = v_sub(o, v_of4(s));
    float b = v_dot(oc, d);
    vec closest = v_sub(oc, v_mul(d, b));
    float r = s.s[3];
    float disc = r * r - v_dot(closest, closest);
    if (disc < 0.0f)
        return INFINITY;
    float root = sqrtf(disc);
    float t = -b - root;
    if (t > tmin)
        return t;
    t = -b + root;
    return t > tmin ? t : INFINITY;
}

static float hit_plane(const rt_plane *p, vec o, vec d, float tmin)
{
    vec n = v_of4(p->normal_offset);
    float denom = v_dot(n, d);
    if (fabsf(denom) < 1e-12f)
        return INFINITY;
    float t = (p->normal_offset.s[3] - v_dot(n, o)) / denom;
    return t > tmin ? t : INFINITY;
}

typedef struct hit {
    float t;
    vec normal;
    int material;
} hit;

/* The nearest object along (o, d); t is INFINITY if there is none. Ties go
 * to the first sphere, then to the first plane. */
static hit nearest(const rt_scene *scene, vec o, vec d)
{
    hit h = {INFINITY, {0, 0, 0}, -1};
    int sphere = -1, plane = -1;
    for (uint32_t i = 0; i < scene->n_spheres; i++) {
        float t = hit_sphere(scene->spheres[i], o, d, RT_EPSILON);
        if (t < h.t)
            h.t = t, sphere = (int)i;
    }
    for (uint32_t i = 0; i < scene->n_planes; i++) {
        float t = hit_plane(&scene->planes[i], o, d, RT_EPSILON);
        if (t < h.t)
            h.t = t, plane = (int)i, sphere = -1;
    }
    vec p = v_add(o, v_mul(d, h.t));
    if (plane >= 0) {
        h.normal = v_of4(scene->planes[plane].normal_offset);
        h.material = scene->planes[plane].material;
    } else if (sphere >= 0) {
        cl_float4 s = scene->spheres[sphere];
        h.normal = v_mul(v_sub(p, v_of4(s)), 1.0f / s.s[3]);
        h.material = scene->sphere_material[sphere];
    }
    return h;
}

/* Whether any object lies on (o, d) nearer than dist. */
static int occluded(const rt_scene *scene, vec o, vec d, float dist)
{
    for (uint32_t i = 0; i < scene->n_spheres; i++)
        if (hit_sphere(scene->spheres[i], o, d, RT_EPSILON) < dist)
            return 1;
    for (uint32_t i = 0; i < scene->n_planes; i++)
        if (hit_plane(&scene->planes[i], o, d, RT_EPSILON) < dist)
            return 1;
    return 0;
}

/* Ambient, plus diffuse and specular from every light that sees p. */
static vec shade(const rt_scene *scene, const rt_frame *frame, vec p, vec n,
                 vec d, const rt_material *m)
{
    vec colour = v_of4(m->colour);
    vec local = v_mul(colour, frame->ambient);
    vec lifted = v_add(p, v_mul(n, RT_EPSILON));
    for (uint32_t i = 0; i < scene->n_lights; i++) {
        vec to_light = v_sub(v_of4(scene->lights[i].position), p);
        float dist = sqrtf(v_dot(to_light, to_light));
        vec l = v_mul(to_light, 1.0f / dist);
        float diffuse = v_dot(n, l);
        if (diffuse <= 0.0f || occluded(scene, lifted, l, dist))
            continue;
        vec mirrored = v_sub(v_mul(n, 2.0f * diffuse), l);
        float facing = -v_dot(mirrored, d);
        float specular = facing > 0.0f
            ? m->specular * powf(facing, m->shininess) : 0.0f;
        vec light = v_add(v_mul(colour, diffuse),
                          (vec){specular, specular, specular});
        local = v_add(local, v_prod(v_of4(scene->lights[i].colour), light));
    }
    return local;
}

/* The colour seen along the primary ray (o, d), reflections included. */
static vec trace(const rt_scene *scene, const rt_frame *frame, vec o, vec d)
{
    vec colour = {0, 0, 0};
    float weight = 1.0f;
    for (int bounce = 0;; bounce++) {
        hit h = nearest(scene, o, d);
        if (h.t == INFINITY) {
            colour = v_add(colour, v_mul(v_of4(frame->background), weight));
            break;
        }
        vec p = v_add(o, v_mul(d, h.t));
        vec n = v_dot(h.normal, d) > 0.0f ? v_mul(h.normal, -1.0f) : h.normal;
        const rt_material *m = &scene->materials[h.material];
        /* The last surface a ray may reach shows its own colour fully. */
        float k = bounce < frame->max_depth ? m->reflectivity : 0.0f;
        vec local = shade(scene, frame, p, n, d, m);
        colour = v_add(colour, v_mul(local, weight * (1.0f - k)));
        if (k <= 0.0f)
            break;
        weight *= k;
        d = v_sub(d, v_mul(n, 2.0f * v_dot(d, n)));
        o = v_add(p, v_mul(n, RT_EPSILON));
    }
    return colour;
}

static uint8_t channel(float c)
{
    c = c > 0.0f ? (c < 1.0f ? c : 1.0f) : 0.0f;
    return (uint8_t)(c * 255.0f + 0.5f);
}

int rt_render_reference(const rt_scene *scene, const rt_view *view,
                        uint32_t width, uint32_t height, uint8_t *pixels)
{
    rt_frame frame;
    int rc = rt_frame_make(scene, view, width, height, RT_PIXELS_RGBA, &frame);
    if (rc != 0)
        return rc;
    vec origin = v_of4(frame.origin), forward = v_of4(frame.forward);
    vec right = v_of4(frame.right), up = v_of4(frame.up);
    for (uint32_t y = 0; y < height; y++)
        for (uint32_t x = 0; x < width; x++) {
            float u = 2.0f * ((float)x + 0.5f) / (float)width - 1.0f;
            float v = 1.0f - 2.0f * ((float)y + 0.5f) / (float)height;
            vec d = v_normalize(v_add(forward, v_add(v_mul(right, u),
                                                     v_mul(up, v))));
            vec c = trace(scene, &frame, origin, d);
            uint8_t *px = pixels + 4 * ((size_t)y * width + x);
            px[0] = channel(c.x), px[1] = channel(c.y);
            px[2] = channel(c.z), px[3] = 255;
        }
    return 0;
}
