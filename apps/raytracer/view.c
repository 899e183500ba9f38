/*
 * view.c: the camera. rt_frame_make turns a view (position, look_at, up,
 * field of view) into the vectors every primary ray is made of, once per
 * frame on the host, so the reference and the kernels start from the same
 * numbers. Pan and dolly are the GUI's mouse movements.
 */
#include "raytracer.h"
#include "common/error.h"

#include <math.h>

typedef struct vec3 {
    double x, y, z;
} vec3;

static vec3 vec3_of(const float v[3])
{
    return (vec3){v[0], v[1], v[2]};
}

static vec3 sub(vec3 a, vec3 b)
{
    return (vec3){a.x - b.x, a.y - b.y, a.z - b.z};
}

static vec3 scale(vec3 a, double s)
{
    return (vec3){a.x * s, a.y * s, a.z * s};
}

static vec3 cross(vec3 a, vec3 b)
{
    return (vec3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z,
                  a.x * b.y - a.y * b.x};
}

static double length(vec3 a)
{
    return sqrt(a.x * a.x + a.y * a.y + a.z * a.z);
}

static cl_float4 float4_of(vec3 a)
{
    return (cl_float4){{(float)a.x, (float)a.y, (float)a.z, 0.0f}};
}

/* The view's unit forward, right and up vectors; -1 if the view is
 * degenerate (look_at on position, or up along the view direction). */
static int view_basis(const rt_view *view, vec3 *forward, vec3 *right,
                      vec3 *up)
{
    vec3 f = sub(vec3_of(view->look_at), vec3_of(view->position));
    double fl = length(f);
    if (!(fl > 0))
        return -1;
    f = scale(f, 1 / fl);
    vec3 r = cross(f, vec3_of(view->up));
    double rl = length(r);
    if (!(rl > 1e-9 * length(vec3_of(view->up))) || !(rl > 0))
        return -1;
    *forward = f;
    *right = scale(r, 1 / rl);
    *up = cross(*right, f);
    return 0;
}

int rt_frame_make(const rt_scene *scene, const rt_view *view, uint32_t width,
                  uint32_t height, int pixel_order, rt_frame *frame)
{
    if (width == 0 || height == 0 || width > 32768 || height > 32768)
        return app_fail(APP_ERR_BAD_INPUT, "an image of %u x %u "
                        "pixels: each side must be 1 to 32768", width,
                        height);
    if (!(view->fov_degrees > 0 && view->fov_degrees < 180))
        return app_fail(APP_ERR_BAD_INPUT, "camera: the field of "
                        "view is %g degrees; it must be in (0, 180)",
                        view->fov_degrees);
    vec3 forward, right, up;
    if (view_basis(view, &forward, &right, &up) != 0)
        return app_fail(APP_ERR_BAD_INPUT, "camera: position and "
                        "look_at coincide, or up lies along the view");
    double half_h = tan(view->fov_degrees * (M_PI / 360.0));
    double half_w = half_h * width / height;
    *frame = (rt_frame){
        .origin = float4_of(vec3_of(view->position)),
        .forward = float4_of(forward),
        .right = float4_of(scale(right, half_w)),
        .up = float4_of(scale(up, half_h)),
        .background = {{scene->background[0], scene->background[1],
                        scene->background[2], 0.0f}},
        .ambient = scene->ambient,
        .width = (cl_int)width,
        .height = (cl_int)height,
        .max_depth = scene->max_depth,
        .n_spheres = (cl_int)scene->n_spheres,
        .n_planes = (cl_int)scene->n_planes,
        .n_lights = (cl_int)scene->n_lights,
        .pixel_order = pixel_order,
    };
    return 0;
}

static void move(rt_view *view, vec3 by)
{
    float d[3] = {(float)by.x, (float)by.y, (float)by.z};
    for (int i = 0; i < 3; i++) {
        view->position[i] += d[i];
        view->look_at[i] += d[i];
    }
}

void rt_view_pan(rt_view *view, float right, float up)
{
    vec3 f, r, u;
    if (view_basis(view, &f, &r, &u) != 0)
        return;
    vec3 by = scale(r, right);
    vec3 lift = scale(u, up);
    move(view, (vec3){by.x + lift.x, by.y + lift.y, by.z + lift.z});
}

void rt_view_dolly(rt_view *view, float forward)
{
    vec3 f, r, u;
    if (view_basis(view, &f, &r, &u) == 0)
        move(view, scale(f, forward));
}
