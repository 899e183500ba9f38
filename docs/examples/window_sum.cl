/* window_sum.cl: out[i] is the sum of in[i - radius .. i + radius] (the part
 * inside the array). The kernel of the gdb walk-through in docs/debugging.md. */
__kernel void window_sum(__global const int *in, __global int *out, int n,
                         int radius)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    int sum = 0;
    for (int d = -radius; d <= radius; d++) {
        int j = i + d;
        if (j >= 0 && j < n)
            sum += in[j];
    }
    out[i] = sum;
}
