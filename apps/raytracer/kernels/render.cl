/*
 * render.cl: the raytracer's kernels, one pixel per work-item. Both follow
 * the model of apps/raytracer/raytracer.h and apps/raytracer/reference.c
 * operation for operation; they differ only in how a ray finds the spheres
 * it meets:
 *
 *   rt_render_brute  every ray tests every sphere (the seed's method, and
 *                    the reference for the BVH kernel);
 *   rt_render_bvh    rays walk a bounding volume hierarchy built on the
 *                    host, with a small stack instead of recursion, nearer
 *                    child first, skipping boxes beyond the nearest hit.
 *
 * Planes are few and unbounded: both kernels test every plane. Reflections
 * are a loop carrying the ray and its weight, so a reflected surface is lit
 * and shadowed like one seen directly.
 */
#pragma OPENCL FP_CONTRACT OFF

#include "types.h"

#define NO_HIT INFINITY

/* The scene's arrays; bvh is NULL-like (unused) in the brute-force kernel. */
typedef struct scene {
    const __global rt_bvh_node *bvh;
    const __global float4 *spheres;
    const __global int *sphere_material;
    const __global rt_plane *planes;
    const __global rt_material *materials;
    const __global rt_light *lights;
    int n_spheres, n_planes, n_lights;
    int use_bvh;
} scene;

static float3 xyz(float4 v)
{
    return (float3)(v.x, v.y, v.z);
}

/* Written out rather than dot(): OpenCL's dot may fuse or reorder, and the
 * reference's sum is (x*x + y*y) + z*z. */
static float dot3(float3 a, float3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

static float hit_sphere(float4 s, float3 o, float3 d, float tmin)
{
    float3 oc = o - xyz(s);
    float b = dot3(oc, d);
    float3 closest = oc - d * b;
    float disc = s.w * s.w - dot3(closest, closest);
    if (disc < 0.0f)
        return NO_HIT;
    float root = sqrt(disc);
    float t = -b - root;
    if (t > tmin)
        return t;
    t = -b + root;
    return t > tmin ? t : NO_HIT;
}

static float hit_plane(float4 p, float3 o, float3 d, float tmin)
{
    float3 n = xyz(p);
    float denom = dot3(n, d);
    if (fabs(denom) < 1e-12f)
        return NO_HIT;
    float t = (p.w - dot3(n, o)) / denom;
    return t > tmin ? t : NO_HIT;
}

/* Entry distance of the ray into a box, or NO_HIT if it misses the box or
 * enters it beyond limit. inv is 1/d per component. */
static float hit_box(float4 lo, float4 hi, float3 o, float3 inv, float limit)
{
    float3 t0 = (xyz(lo) - o) * inv, t1 = (xyz(hi) - o) * inv;
    float3 tn = fmin(t0, t1), tf = fmax(t0, t1);
    float enter = fmax(fmax(tn.x, tn.y), fmax(tn.z, 0.0f));
    float leave = fmin(fmin(tf.x, tf.y), tf.z);
    return enter <= leave && enter < limit ? enter : NO_HIT;
}

/* The nearest sphere hit nearer than *t along (o, d): updates *t and
 * *sphere. BVH order differs from the array order, so ties between two
 * spheres at exactly the same distance may go either way. */
static void nearest_sphere_bvh(const scene *sc, float3 o, float3 d,
                               float *t, int *sphere)
{
    int stack[RT_BVH_MAX_DEPTH];
    float entry[RT_BVH_MAX_DEPTH];
    float3 inv = 1.0f / d;
    int sp = 0, node = 0;
    if (hit_box(sc->bvh[0].lo, sc->bvh[0].hi, o, inv, *t) == NO_HIT)
        return;
    for (;;) {
        rt_bvh_node n = sc->bvh[node];
        if (n.count > 0) {
            for (int i = n.first; i < n.first + n.count; i++) {
                float ti = hit_sphere(sc->spheres[i], o, d, RT_EPSILON);
                if (ti < *t)
                    *t = ti, *sphere = i;
            }
        } else {
            int a = n.first, b = n.first + 1;
            float ta = hit_box(sc->bvh[a].lo, sc->bvh[a].hi, o, inv, *t);
            float tb = hit_box(sc->bvh[b].lo, sc->bvh[b].hi, o, inv, *t);
            if (tb < ta) {
                int swap = a; a = b; b = swap;
                float tswap = ta; ta = tb; tb = tswap;
            }
            if (ta != NO_HIT) {
                if (tb != NO_HIT)
                    stack[sp] = b, entry[sp] = tb, sp++;
                node = a;
                continue;
            }
        }
        /* Pop the next subtree that may still hold a nearer hit. */
        for (;;) {
            if (sp == 0)
                return;
            sp--;
            if (entry[sp] < *t)
                break;
        }
        node = stack[sp];
    }
}

/* Whether any sphere lies on (o, d) nearer than dist, walking the BVH. */
static bool any_sphere_bvh(const scene *sc, float3 o, float3 d, float dist)
{
    int stack[RT_BVH_MAX_DEPTH];
    float3 inv = 1.0f / d;
    int sp = 0, node = 0;
    if (hit_box(sc->bvh[0].lo, sc->bvh[0].hi, o, inv, dist) == NO_HIT)
        return false;
    for (;;) {
        rt_bvh_node n = sc->bvh[node];
        if (n.count > 0) {
            for (int i = n.first; i < n.first + n.count; i++)
                if (hit_sphere(sc->spheres[i], o, d, RT_EPSILON) < dist)
                    return true;
        } else {
            int a = n.first, b = n.first + 1;
            bool in_a = hit_box(sc->bvh[a].lo, sc->bvh[a].hi, o, inv, dist)
                        != NO_HIT;
            bool in_b = hit_box(sc->bvh[b].lo, sc->bvh[b].hi, o, inv, dist)
                        != NO_HIT;
            if (in_a || in_b) {
                if (in_a && in_b)
                    stack[sp++] = b;
                node = in_a ? a : b;
                continue;
            }
        }
        if (sp == 0)
            return false;
        node = stack[--sp];
    }
}

typedef struct hit {
    float t;
    float3 normal;
    int material;
} hit;

static hit nearest(const scene *sc, float3 o, float3 d)
{
    hit h = {NO_HIT, (float3)(0.0f), -1};
    int sphere = -1, plane = -1;
    if (sc->use_bvh) {
        if (sc->n_spheres > 0)
            nearest_sphere_bvh(sc, o, d, &h.t, &sphere);
    } else {
        for (int i = 0; i < sc->n_spheres; i++) {
            float t = hit_sphere(sc->spheres[i], o, d, RT_EPSILON);
            if (t < h.t)
                h.t = t, sphere = i;
        }
    }
    for (int i = 0; i < sc->n_planes; i++) {
        float t = hit_plane(sc->planes[i].normal_offset, o, d, RT_EPSILON);
        if (t < h.t)
            h.t = t, plane = i, sphere = -1;
    }
    float3 p = o + d * h.t;
    if (plane >= 0) {
        h.normal = xyz(sc->planes[plane].normal_offset);
        h.material = sc->planes[plane].material;
    } else if (sphere >= 0) {
        float4 s = sc->spheres[sphere];
        h.normal = (p - xyz(s)) * (1.0f / s.w);
        h.material = sc->sphere_material[sphere];
    }
    return h;
}

static bool occluded(const scene *sc, float3 o, float3 d, float dist)
{
    if (sc->use_bvh) {
        if (sc->n_spheres > 0 && any_sphere_bvh(sc, o, d, dist))
            return true;
    } else {
        for (int i = 0; i < sc->n_spheres; i++)
            if (hit_sphere(sc->spheres[i], o, d, RT_EPSILON) < dist)
                return true;
    }
    for (int i = 0; i < sc->n_planes; i++)
        if (hit_plane(sc->planes[i].normal_offset, o, d, RT_EPSILON) < dist)
            return true;
    return false;
}

static float3 shade(const scene *sc, float ambient, float3 p, float3 n,
                    float3 d, rt_material m)
{
    float3 colour = xyz(m.colour);
    float3 lit = colour * ambient;
    float3 lifted = p + n * RT_EPSILON;
    for (int i = 0; i < sc->n_lights; i++) {
        float3 to_light = xyz(sc->lights[i].position) - p;
        float dist = sqrt(dot3(to_light, to_light));
        float3 l = to_light * (1.0f / dist);
        float diffuse = dot3(n, l);
        if (diffuse <= 0.0f || occluded(sc, lifted, l, dist))
            continue;
        float3 mirrored = n * (2.0f * diffuse) - l;
        float facing = -dot3(mirrored, d);
        float specular = facing > 0.0f
            ? m.specular * pow(facing, m.shininess) : 0.0f;
        float3 light = colour * diffuse + (float3)(specular);
        lit = lit + xyz(sc->lights[i].colour) * light;
    }
    return lit;
}

static float3 trace(const scene *sc, const rt_frame *f, float3 o, float3 d)
{
    float3 colour = (float3)(0.0f);
    float weight = 1.0f;
    for (int bounce = 0;; bounce++) {
        hit h = nearest(sc, o, d);
        if (h.t == NO_HIT) {
            colour = colour + xyz(f->background) * weight;
            break;
        }
        float3 p = o + d * h.t;
        float3 n = dot3(h.normal, d) > 0.0f ? h.normal * -1.0f : h.normal;
        rt_material m = sc->materials[h.material];
        float k = bounce < f->max_depth ? m.reflectivity : 0.0f;
        float3 lit = shade(sc, f->ambient, p, n, d, m);
        colour = colour + lit * (weight * (1.0f - k));
        if (k <= 0.0f)
            break;
        weight *= k;
        d = d - n * (2.0f * dot3(d, n));
        o = p + n * RT_EPSILON;
    }
    return colour;
}

static uchar to_byte(float c)
{
    c = c > 0.0f ? (c < 1.0f ? c : 1.0f) : 0.0f;
    return (uchar)(c * 255.0f + 0.5f);
}

static void render_pixel(const scene *sc, const rt_frame *f,
                         __global uchar4 *pixels)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= f->width || y >= f->height)
        return;
    float u = 2.0f * ((float)x + 0.5f) / (float)f->width - 1.0f;
    float v = 1.0f - 2.0f * ((float)y + 0.5f) / (float)f->height;
    float3 dir = xyz(f->forward) + (xyz(f->right) * u + xyz(f->up) * v);
    dir = dir * (1.0f / sqrt(dot3(dir, dir)));
    float3 c = trace(sc, f, xyz(f->origin), dir);
    uchar r = to_byte(c.x), g = to_byte(c.y), b = to_byte(c.z);
    pixels[y * f->width + x] = f->pixel_order == RT_PIXELS_BGRA
        ? (uchar4)(b, g, r, 255) : (uchar4)(r, g, b, 255);
}

__kernel void rt_render_brute(rt_frame frame,
                              const __global float4 *spheres,
                              const __global int *sphere_material,
                              const __global rt_plane *planes,
                              const __global rt_material *materials,
                              const __global rt_light *lights,
                              __global uchar4 *pixels)
{
    scene sc = {0, spheres, sphere_material, planes, materials, lights,
                frame.n_spheres, frame.n_planes, frame.n_lights, 0};
    render_pixel(&sc, &frame, pixels);
}

__kernel void rt_render_bvh(rt_frame frame,
                            const __global rt_bvh_node *bvh,
                            const __global float4 *spheres,
                            const __global int *sphere_material,
                            const __global rt_plane *planes,
                            const __global rt_material *materials,
                            const __global rt_light *lights,
                            __global uchar4 *pixels)
{
    scene sc = {bvh, spheres, sphere_material, planes, materials, lights,
                frame.n_spheres, frame.n_planes, frame.n_lights, 1};
    render_pixel(&sc, &frame, pixels);
}
