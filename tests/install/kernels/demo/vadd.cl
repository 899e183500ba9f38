/* vadd.cl: a user's own kernels at the path of the demo's, which the
 * installed library must not shadow: vadd as the demo has it, and vmul,
 * which only this file has; a kernel without parameters and a device
 * function, for the call macros' other forms. */
__kernel void vadd(__global const float *a, __global const float *b,
                   __global float *c, int n)
{
    int i = get_global_id(0);
    if (i < n)
        c[i] = a[i] + b[i];
}

__kernel void vmul(__global const float *a, __global const float *b,
                   __global float *c, int n)
{
    int i = get_global_id(0);
    if (i < n)
        c[i] = a[i] * b[i];
}

__kernel void nothing(void)
{
}

float twice(float x)
{
    return 2.0f * x;
}

/* A vector of 32 bytes by value: gcc notes (-Wpsabi) every call that passes
 * one by value, so the user's program shows whether CLARG does. */
__kernel void sum4(long4 v, __global long *out)
{
    out[0] = v.x + v.y + v.z + v.w;
}

#include "pair.h"

/* A struct by value and a void function with a private pointer, for the
 * C++ calls. */
float pair_sum(Pair p)
{
    return (float)p.a + p.b;
}

void scale(float *x, float s)
{
    *x *= s;
}

/* A struct returned, for a ret of its size and one too small. */
Pair pair_of(int a, float b)
{
    Pair p = {a, b};
    return p;
}
