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
