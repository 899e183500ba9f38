/* smooth.cl: one step of the examples' simulation: next[i] is the mean of
 * cur[i] and its neighbours (ends held). */
__kernel void smooth(__global const float *cur, __global float *next, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    if (i == 0 || i == n - 1)
        next[i] = cur[i];
    else
        next[i] = (cur[i - 1] + cur[i] + cur[i + 1]) / 3.0f;
}
