/* empty.cl: the (almost) empty kernel of bench/overhead. Both arguments are
 * really used, so no compiler can drop them, yet no work-item ever writes:
 * the benchmark passes n outside the global range. */
__kernel void empty(__global float *p, int n)
{
    if (get_global_id(0) == (size_t)n)
        p[0] = 0;
}
