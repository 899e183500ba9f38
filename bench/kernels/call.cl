/* call.cl: the kernels of bench/call. vadd is the README's first call;
 * lerp is a small device function that clfunction_call reaches through its
 * generated shim, and lerp_shim the shim a user would write by hand. */
__kernel void vadd(__global const float *a, __global const float *b,
                   __global float *c, int n)
{
    int i = (int)get_global_id(0);
    if (i < n)
        c[i] = a[i] + b[i];
}

float lerp(float a, float b, float t)
{
    return a + (b - a) * t;
}

__kernel void lerp_shim(__global float *ret, float a, float b, float t)
{
    *ret = lerp(a, b, t);
}
