/* Kernels of every kind of parameter in one file, beside one without
 * parameters: NVIDIA's driver builds such a file only without
 * -cl-kernel-arg-info, so their signatures must come from the source. */
typedef struct Pair { int a; int b; } Pair;
typedef float real;
typedef real real_arg;          /* a typedef of a typedef */
typedef struct pair_s { int a; int b; } Duo;
typedef Duo Couple;

__kernel void noargs(void) {}

__kernel void treal(__global Pair *p, __global float4 *v, real s)
{
    size_t i = get_global_id(0);
    p[i].a += 1;
    p[i].b += 2;
    v[i] *= s;
}

/* step and dot are built-in functions' names, which PoCL renames. */
__kernel void chain(__global real_arg *x, real_arg a, __constant float *c,
                    int step, int dot)
{
    size_t i = get_global_id(0);
    x[i] = a * x[i] + c[i] + step + dot;
}

__kernel void couple(__global Couple *d, Duo by)
{
    size_t i = get_global_id(0);
    d[i].a += by.a;
    d[i].b += by.b;
}
