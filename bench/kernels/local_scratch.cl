/*
 * local_scratch.cl: bench-localmalloc's workload. Group reductions and a
 * scan that take their __local scratch from local_malloc, two and three
 * calls below the kernels, as a library of group functions would.
 */
#define GROUP 64

float group_sum(float x)
{
    __local float *t = local_malloc(GROUP * sizeof(float));
    uint l = get_local_id(0);
    t[l] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = GROUP / 2; s > 0; s >>= 1) {
        if (l < s)
            t[l] += t[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    float r = t[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    local_free(GROUP * sizeof(float));
    return r;
}

float group_max(float x)
{
    __local float *t = local_malloc(GROUP * sizeof(float));
    uint l = get_local_id(0);
    t[l] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = GROUP / 2; s > 0; s >>= 1) {
        if (l < s)
            t[l] = fmax(t[l], t[l + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    float r = t[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    local_free(GROUP * sizeof(float));
    return r;
}

/* Exclusive prefix sum over the group, double-buffered. */
int group_scan(int x)
{
    __local int *buf = local_malloc(2 * GROUP * sizeof(int));
    uint l = get_local_id(0), from = 0;
    buf[l] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = 1; d < GROUP; d <<= 1) {
        uint to = GROUP - from;
        buf[to + l] = buf[from + l] + (l >= d ? buf[from + l - d] : 0);
        barrier(CLK_LOCAL_MEM_FENCE);
        from = to;
    }
    int r = buf[from + l] - x;
    barrier(CLK_LOCAL_MEM_FENCE);
    local_free(2 * GROUP * sizeof(int));
    return r;
}

/* Sum and maximum: two calls in a row that reuse the same bytes. */
float2 group_stats(float x)
{
    __local float2 *kept = local_malloc(sizeof(float2));
    float s = group_sum(x);
    float m = group_max(x);
    if (get_local_id(0) == 0)
        kept[0] = (float2)(s, m);
    barrier(CLK_LOCAL_MEM_FENCE);
    float2 r = kept[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    local_free(sizeof(float2));
    return r;
}

__kernel void stats(__global const float *in, __global float2 *out, int n)
{
    int i = get_global_id(0);
    float2 r = group_stats(i < n ? in[i] : 0.0f);
    if (get_local_id(0) == 0)
        out[get_group_id(0)] = r;
}

__kernel void scan(__global const int *in, __global int *out)
{
    int i = get_global_id(0);
    out[i] = group_scan(in[i]);
}
