/* vadd.cl: a user's own kernels at the path of the demo's, which the
 * installed library must not shadow: vadd as the demo has it, and vmul,
 * which only this file has. */
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
