/*
 * group_minmax.cl: where the largest and smallest values of an array are,
 * found by a whole work-group together, without touching the array.
 *
 * The idiom comes from an agent simulation (seed 002, "Array Maximum and
 * Minimum"): agents pick the resource with the best gain per minute, or their
 * few least valuable resources, many times a day, and the array of values is
 * still needed afterwards, so the reduction tree lives in separate scratch.
 * Here each work-item first reduces a strided slice of the array to the index
 * of its best element, then a tree over those indices in scratch finds the
 * group's best; comparing values through indices keeps the array untouched
 * and gives the index, not just the value.
 *
 * How to call them (every function below):
 * - every work-item of a work-group calls the function, with the same
 *   arguments (n, k and the pointers alike in all); they contain barriers,
 *   so never under a condition that differs between work-items. The group
 *   is one-dimensional (get_local_id(0)), of any size, not only powers of 2;
 * - arrays are __local; the function starts with a barrier, so the caller may
 *   write them just before the call, and ends with one, so every result is
 *   visible to every work-item and scratch may be reused at once;
 * - scratch: __local int[get_local_size(0)] (min(n, local size) suffices),
 *   not overlapping any other argument; its contents on return are undefined;
 * - n <= 0 is an empty array.
 *
 * The order: "largest" is by value, descending; "smallest" by value,
 * ascending; equal values (0.0f and -0.0f are equal) by index, ascending, so
 * ties go to the lowest index; NaNs come after every number, by index. Every
 * call is therefore deterministic and agrees with a plain C loop or a stable
 * sort. mask[i] != 0 means element i takes part.
 */
#ifndef CLFRAME_LIB_GROUP_MINMAX_CL
#define CLFRAME_LIB_GROUP_MINMAX_CL

/* 1 when element i comes strictly before element j in the order above
 * (largest first if largest, smallest first otherwise). */
int group_minmax_before_(__local const float *a, int i, int j, int largest)
{
    float x = a[i], y = a[j];
    if (isnan(x) || isnan(y))
        return isnan(y) && (!isnan(x) || i < j);
    if (x != y)
        return largest ? x > y : x < y;
    return i < j;
}

/* The first element in the order among those that take part (mask set, or
 * every element when use_mask is 0) and come strictly after element `after`
 * (every element when after < 0); -1 when there is none. Uniform result;
 * no barrier on entry (the public functions have one), one on exit. */
int group_minmax_first_(__local const float *a, __local const uchar *mask,
                        int use_mask, int n, int after, int largest,
                        __local int *scratch)
{
    int lid = (int)get_local_id(0), size = (int)get_local_size(0);
    int m = min(n, size);           /* tree entries, one per work-item */

    int best = -1;
    for (int i = lid; i < n; i += size) {
        if (use_mask && !mask[i])
            continue;
        if (after >= 0 && !group_minmax_before_(a, after, i, largest))
            continue;
        if (best < 0 || group_minmax_before_(a, i, best, largest))
            best = i;
    }
    if (lid < m)
        scratch[lid] = best;
    barrier(CLK_LOCAL_MEM_FENCE);

    /* Fold the upper half onto the lower: entries [upper, live) into
     * [0, live - upper). Writes stay below upper, reads at or above it, so
     * a step has no race; rounding upper up makes any size work. */
    for (int live = m; live > 1;) {
        int upper = (live + 1) / 2;
        if (lid + upper < live) {
            int mine = scratch[lid], other = scratch[lid + upper];
            if (other >= 0 &&
                (mine < 0 || group_minmax_before_(a, other, mine, largest)))
                scratch[lid] = other;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        live = upper;
    }
    int result = m > 0 ? scratch[0] : -1;
    barrier(CLK_LOCAL_MEM_FENCE);   /* all have read scratch[0] */
    return result;
}

/* The first k elements in the order, in rounds: each round finds the element
 * that follows the previous one in the order, so nothing needs to be marked
 * as taken. min(k, count + 1) group reductions. */
int group_minmax_k_by_rounds_(__local const float *a, __local const uchar *mask,
                              int n, int k, int largest, __local int *out,
                              __local int *scratch)
{
    int lid = (int)get_local_id(0), size = (int)get_local_size(0);
    int count = 0;
    for (int prev = -1; count < k; count++) {
        int next = group_minmax_first_(a, mask, 1, n, prev, largest, scratch);
        if (next < 0)
            break;                  /* uniform: every work-item got -1 */
        if (lid == 0)
            out[count] = next;
        prev = next;
    }
    for (int j = count + lid; j < k; j += size)
        out[j] = -1;
    barrier(CLK_LOCAL_MEM_FENCE);
    return count;
}

/* The first k elements in the order, by ranks: every masked-in element
 * counts the masked-in elements before it (stopping at k) and, if it has
 * fewer than k, writes itself at its rank. Ranks are distinct, so the writes
 * never collide; the ranks present are 0, 1, ..., so the count is where the
 * first -1 is. Up to n comparisons per element, three barriers. */
int group_minmax_k_by_ranks_(__local const float *a, __local const uchar *mask,
                             int n, int k, int largest, __local int *out)
{
    int lid = (int)get_local_id(0), size = (int)get_local_size(0);
    for (int j = lid; j < k; j += size)
        out[j] = -1;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = lid; i < n; i += size) {
        if (!mask[i])
            continue;
        int rank = 0;
        for (int j = 0; j < n && rank < k; j++)
            rank += mask[j] && group_minmax_before_(a, j, i, largest);
        if (rank < k)
            out[rank] = i;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    int lo = 0, hi = max(k, 0);     /* out[0..lo) found, out[hi..k) are -1 */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (out[mid] >= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    barrier(CLK_LOCAL_MEM_FENCE);   /* all have read out before the caller
                                       may write it */
    return lo;
}

/* The first k elements in the order, written to out; see group_largest_k.
 * Rounds cost a group reduction per element found, ranks up to n comparisons
 * per element: take the one with fewer steps (a step being a comparison or
 * a barrier, roughly), or the one GROUP_MINMAX_K_METHOD names (1 rounds,
 * 2 ranks) when the program defines it, as tests of both do. */
int group_minmax_first_k_(__local const float *a, __local const uchar *mask,
                          int n, int k, int largest, __local int *out,
                          __local int *scratch)
{
    int size = (int)get_local_size(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (k <= 0 || n <= 0) {
        for (int j = get_local_id(0); j < k; j += size)
            out[j] = -1;
        barrier(CLK_LOCAL_MEM_FENCE);
        return 0;
    }
    int per_item = (n + size - 1) / size;
    int levels = 32 - (int)clz(min(n, size) - 1);
    long rounds_cost = (long)min(k, n + 1) * (per_item + levels + 3);
    long ranks_cost = (long)per_item * n;
#if defined(GROUP_MINMAX_K_METHOD) && GROUP_MINMAX_K_METHOD == 1
    ranks_cost = rounds_cost + 1;
#elif defined(GROUP_MINMAX_K_METHOD) && GROUP_MINMAX_K_METHOD == 2
    ranks_cost = 0;
#endif
    if (ranks_cost <= rounds_cost)
        return group_minmax_k_by_ranks_(a, mask, n, k, largest, out);
    return group_minmax_k_by_rounds_(a, mask, n, k, largest, out, scratch);
}

/* Index of the largest of a[0..n-1] (the lowest such index on ties; NaNs
 * only if every element is NaN), or -1 when n <= 0. Every work-item gets it.
 * a is not written. scratch: __local int[get_local_size(0)]. */
int group_argmax(__local const float *a, int n, __local int *scratch)
{
    barrier(CLK_LOCAL_MEM_FENCE);
    return group_minmax_first_(a, 0, 0, n, -1, 1, scratch);
}

/* Index of the smallest of a[0..n-1], as group_argmax. */
int group_argmin(__local const float *a, int n, __local int *scratch)
{
    barrier(CLK_LOCAL_MEM_FENCE);
    return group_minmax_first_(a, 0, 0, n, -1, 0, scratch);
}

/* Index of the largest a[i] with mask[i] != 0, i < n; -1 when no element is
 * masked in. Every work-item gets it; a and mask are not written.
 * scratch: __local int[get_local_size(0)]. */
int group_argmax_masked(__local const float *a, __local const uchar *mask,
                        int n, __local int *scratch)
{
    barrier(CLK_LOCAL_MEM_FENCE);
    return group_minmax_first_(a, mask, 1, n, -1, 1, scratch);
}

/* Index of the smallest masked-in element, as group_argmax_masked. */
int group_argmin_masked(__local const float *a, __local const uchar *mask,
                        int n, __local int *scratch)
{
    barrier(CLK_LOCAL_MEM_FENCE);
    return group_minmax_first_(a, mask, 1, n, -1, 0, scratch);
}

/* The indices of the k largest masked-in elements of a[0..n-1], largest
 * first (ties: lower index first), in out[0..k-1]. Returns how many were
 * found, c = min(k, number of masked-in elements); out[c..k-1] are set to -1
 * and out[k..] is not touched; k <= 0 writes nothing and returns 0. Every
 * work-item gets the return value and sees out filled in. a and mask are not
 * written. out: __local int[max(k, 0)]; scratch: __local
 * int[get_local_size(0)]; neither may overlap a, mask or each other.
 * Cost: the cheaper of about min(k, n + 1) group reductions (each
 * n / local size + log2(local size) steps) and about n * n / local size
 * comparisons per work-item. */
int group_largest_k(__local const float *a, __local const uchar *mask, int n,
                    int k, __local int *out, __local int *scratch)
{
    return group_minmax_first_k_(a, mask, n, k, 1, out, scratch);
}

/* The indices of the k smallest masked-in elements, smallest first, as
 * group_largest_k. */
int group_smallest_k(__local const float *a, __local const uchar *mask, int n,
                     int k, __local int *out, __local int *scratch)
{
    return group_minmax_first_k_(a, mask, n, k, 0, out, scratch);
}

#endif
