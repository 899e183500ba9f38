/*
 * group_minmax_shim.cl: hand-written shims that test the work-group library
 * clframe/kernels/lib/group_minmax.cl from the host (tests/test_group_minmax.c).
 *
 * The idiom for a device function that needs a whole work-group: copy the
 * inputs into the memory space the function wants (here __local), call the
 * function from every work-item, then copy what it produced to __global for
 * the host to check. These shims also check what a host cannot see: that
 * the function left its const __local inputs exactly as they were, and that
 * every work-item got the same result (each stores its own).
 *
 * Many independent tests per launch: work-group g works on its own array,
 * in[g * n .. g * n + n - 1] (and mask likewise), with its own k = ks[g].
 * Outputs, per work-group g and work-item l of a group of size L:
 *   result[g * L + l] / found[g * L + l]  what work-item l got back;
 *   lists[g * kmax .. g * kmax + kmax-1]  the k list (beyond k: SHIM_UNSET);
 *   changed[g] (zeroed by the host)      how many elements of the __local
 *                                        inputs differ afterwards, bitwise.
 */
#include "lib/group_minmax.cl"

#define SHIM_UNSET (-7)            /* fills the k list before the call */

/* The group's slice of src into dst, shared by the work-group. */
void shim_load_floats(__global const float *src, __local float *dst, int n)
{
    for (int i = get_local_id(0); i < n; i += get_local_size(0))
        dst[i] = src[i];
}

void shim_load_mask(__global const uchar *src, __local uchar *dst, int n)
{
    for (int i = get_local_id(0); i < n; i += get_local_size(0))
        dst[i] = src[i];
}

/* How many of this work-item's elements differ from the originals; bits,
 * not values, so a NaN that stayed a NaN counts as unchanged. */
int shim_changed_floats(__global const float *src, __local const float *a,
                        int n)
{
    int changed = 0;
    for (int i = get_local_id(0); i < n; i += get_local_size(0))
        changed += as_uint(a[i]) != as_uint(src[i]);
    return changed;
}

int shim_changed_mask(__global const uchar *src, __local const uchar *m, int n)
{
    int changed = 0;
    for (int i = get_local_id(0); i < n; i += get_local_size(0))
        changed += m[i] != src[i];
    return changed;
}

/* One group's argmax (which == 0), argmin (1), masked argmax (2) or masked
 * argmin (3). mask and m are unused for 0 and 1. */
void shim_arg(__global const float *in, __global const uchar *mask, int n,
              __global int *result, __global int *changed, __local float *a,
              __local uchar *m, __local int *scratch, int which)
{
    size_t g = get_group_id(0);
    in += g * n;
    mask += which >= 2 ? g * n : 0;

    shim_load_floats(in, a, n);
    if (which >= 2)
        shim_load_mask(mask, m, n);
    barrier(CLK_LOCAL_MEM_FENCE);

    int r = which == 0 ? group_argmax(a, n, scratch)
          : which == 1 ? group_argmin(a, n, scratch)
          : which == 2 ? group_argmax_masked(a, m, n, scratch)
          :              group_argmin_masked(a, m, n, scratch);

    result[get_global_id(0)] = r;
    int c = shim_changed_floats(in, a, n);
    if (which >= 2)
        c += shim_changed_mask(mask, m, n);
    if (c)
        atomic_add(&changed[g], c);
}

__kernel void shim_group_argmax(__global const float *in, int n,
                                __global int *result, __global int *changed,
                                __local float *a, __local int *scratch)
{
    shim_arg(in, 0, n, result, changed, a, 0, scratch, 0);
}

__kernel void shim_group_argmin(__global const float *in, int n,
                                __global int *result, __global int *changed,
                                __local float *a, __local int *scratch)
{
    shim_arg(in, 0, n, result, changed, a, 0, scratch, 1);
}

__kernel void shim_group_argmax_masked(__global const float *in,
                                       __global const uchar *mask, int n,
                                       __global int *result,
                                       __global int *changed, __local float *a,
                                       __local uchar *m, __local int *scratch)
{
    shim_arg(in, mask, n, result, changed, a, m, scratch, 2);
}

__kernel void shim_group_argmin_masked(__global const float *in,
                                       __global const uchar *mask, int n,
                                       __global int *result,
                                       __global int *changed, __local float *a,
                                       __local uchar *m, __local int *scratch)
{
    shim_arg(in, mask, n, result, changed, a, m, scratch, 3);
}

/* One group's k largest (largest != 0) or k smallest. */
void shim_k(__global const float *in, __global const uchar *mask, int n,
            __global const int *ks, int kmax, __global int *found,
            __global int *lists, __global int *changed, __local float *a,
            __local uchar *m, __local int *list, __local int *scratch,
            int largest)
{
    size_t g = get_group_id(0);
    int k = ks[g];
    in += g * n;
    mask += g * n;
    lists += g * kmax;

    shim_load_floats(in, a, n);
    shim_load_mask(mask, m, n);
    for (int j = get_local_id(0); j < kmax; j += get_local_size(0))
        list[j] = SHIM_UNSET;
    barrier(CLK_LOCAL_MEM_FENCE);

    int count = largest ? group_largest_k(a, m, n, k, list, scratch)
                        : group_smallest_k(a, m, n, k, list, scratch);

    found[get_global_id(0)] = count;
    for (int j = get_local_id(0); j < kmax; j += get_local_size(0))
        lists[j] = list[j];
    int c = shim_changed_floats(in, a, n) + shim_changed_mask(mask, m, n);
    if (c)
        atomic_add(&changed[g], c);
}

__kernel void shim_group_largest_k(__global const float *in,
                                   __global const uchar *mask, int n,
                                   __global const int *ks, int kmax,
                                   __global int *found, __global int *lists,
                                   __global int *changed, __local float *a,
                                   __local uchar *m, __local int *list,
                                   __local int *scratch)
{
    shim_k(in, mask, n, ks, kmax, found, lists, changed, a, m, list, scratch,
           1);
}

__kernel void shim_group_smallest_k(__global const float *in,
                                    __global const uchar *mask, int n,
                                    __global const int *ks, int kmax,
                                    __global int *found, __global int *lists,
                                    __global int *changed, __local float *a,
                                    __local uchar *m, __local int *list,
                                    __local int *scratch)
{
    shim_k(in, mask, n, ks, kmax, found, lists, changed, a, m, list, scratch,
           0);
}
