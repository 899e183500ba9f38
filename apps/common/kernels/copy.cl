/* copy.cl: the plainest memory-bound kernel, whose speed benchmarks quote as
 * the device's memory bandwidth (read n float4 + write n float4). */
__kernel void copy_float4(__global const float4 *in, __global float4 *out)
{
    size_t i = get_global_id(0);
    out[i] = in[i];
}
