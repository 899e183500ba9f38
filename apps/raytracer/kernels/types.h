/*
 * raytracer/types.h: the scene as the device sees it, one header for the
 * host's C compiler and the OpenCL C compiler (docs/sharing.md). Every
 * struct is built of 16-byte vectors and 4-byte scalars with its padding
 * written out, so the layouts match on both sides (checked at compile time
 * below and at run time by the raytracer tests).
 *
 * Spheres themselves are plain float4s (x, y, z: centre; w: radius) with a
 * parallel int array of material indices: a BVH leaf test then reads one
 * 16-byte vector per sphere.
 */
#ifndef RAYTRACER_TYPES_H
#define RAYTRACER_TYPES_H

#include "clframe/shared.h"

/* A surface's look. colour is the diffuse (and ambient) colour in [0, 1];
 * reflectivity in [0, 1] is the share of light that comes from the mirror
 * direction instead (0: solid, 1: a perfect mirror); specular scales a
 * Phong highlight of the given shininess exponent. */
typedef struct rt_material {
    CLF_FLOAT4 colour;            /* r, g, b, unused */
    CLF_FLOAT reflectivity;
    CLF_FLOAT specular;
    CLF_FLOAT shininess;
    CLF_FLOAT pad_;
} rt_material;
CLF_STATIC_ASSERT_SIZE(rt_material, 32);

/* The points p with dot(normal, p) == offset; normal has unit length. */
typedef struct rt_plane {
    CLF_FLOAT4 normal_offset;     /* x, y, z: normal; w: offset */
    CLF_INT material;
    CLF_INT pad_[3];
} rt_plane;
CLF_STATIC_ASSERT_SIZE(rt_plane, 32);

/* A point light; colour is its intensity per channel (1, 1, 1: white). */
typedef struct rt_light {
    CLF_FLOAT4 position;          /* x, y, z; w unused */
    CLF_FLOAT4 colour;            /* r, g, b; w unused */
} rt_light;
CLF_STATIC_ASSERT_SIZE(rt_light, 32);

/* A node of the bounding volume hierarchy over the spheres (built on the
 * host, apps/raytracer/bvh.c). count > 0: a leaf holding spheres
 * first .. first + count - 1 (of the BVH's reordered sphere array);
 * count == 0: an inner node whose children are nodes first and first + 1.
 * Node 0 is the root. */
typedef struct rt_bvh_node {
    CLF_FLOAT4 lo;                /* x, y, z: box minimum; w unused */
    CLF_FLOAT4 hi;                /* x, y, z: box maximum; w unused */
    CLF_INT first;
    CLF_INT count;
    CLF_INT pad_[2];
} rt_bvh_node;
CLF_STATIC_ASSERT_SIZE(rt_bvh_node, 48);

/* How pixels are stored: RGBA bytes (PNG) or BGRA (cairo's ARGB32 on a
 * little-endian host, so the GUI reads frames straight into its surface). */
enum { RT_PIXELS_RGBA = 0, RT_PIXELS_BGRA = 1 };

/* Deepest BVH the device's traversal stack holds; the builder stops
 * splitting before it (apps/raytracer/bvh.c). */
#define RT_BVH_MAX_DEPTH 48

/* Everything one frame needs besides the scene's arrays, passed by value.
 * The primary ray through pixel (x, y) has direction
 *     forward + u * right + v * up,  u = (2 (x + 0.5) / width) - 1,
 *                                    v = 1 - (2 (y + 0.5) / height),
 * normalized; row 0 is the top of the image. */
typedef struct rt_frame {
    CLF_FLOAT4 origin;            /* the camera's position */
    CLF_FLOAT4 forward;           /* unit view direction */
    CLF_FLOAT4 right;             /* half the image's width at distance 1 */
    CLF_FLOAT4 up;                /* half the image's height at distance 1 */
    CLF_FLOAT4 background;        /* colour of a ray that hits nothing */
    CLF_FLOAT ambient;            /* ambient light, times material colour */
    CLF_INT width, height;        /* pixels */
    CLF_INT max_depth;            /* reflections followed (0: none) */
    CLF_INT n_spheres, n_planes, n_lights;
    CLF_INT pixel_order;          /* RT_PIXELS_RGBA or RT_PIXELS_BGRA */
} rt_frame;
CLF_STATIC_ASSERT_SIZE(rt_frame, 112);

/* Offsets that keep secondary rays from hitting the surface they leave:
 * a ray starts RT_EPSILON along the normal and ignores hits nearer than
 * RT_EPSILON. Scenes are in units where objects are about 1 across. */
#define RT_EPSILON 1e-3f

#endif /* RAYTRACER_TYPES_H */
