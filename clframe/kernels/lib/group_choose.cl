/*
 * group_choose.cl: one element chosen at random among the candidates of an
 * array, by a whole work-group together. An agent simulation needs it
 * many times a day per agent: every resource whose gain per minute is
 * within epsilon of the best is a candidate, and one of them, uniformly at
 * random, is extracted.
 *
 * The seed registered candidates with an atomic counter in local memory;
 * the numbers it hands out follow the order in which work-items happen to
 * run, so the same draw picks different candidates from run to run, and
 * no host program can repeat the choice. Here the candidates are numbered
 * in index order instead, by a prefix sum over the work-group: a draw r
 * picks candidate number r mod count, which depends only on the mask and
 * r. The host twin (a loop: the (r mod count)-th set element) makes the
 * same choice, so a simulation can be checked against its C reference
 * draw for draw; with r uniform (mwc64x.h) the choice is uniform up to the
 * bias of r mod count, below count / 2^32.
 *
 * Call it as group_minmax.cl's functions: every work-item of the group,
 * the same arguments, never under a divergent condition (it has barriers);
 * mask __local, written by the caller just before (the function starts
 * with a barrier) and unchanged by it; scratch: __local
 * int[get_local_size(0)], undefined afterwards (it ends with a barrier, so
 * scratch may be reused at once). The result is the same in every
 * work-item: the chosen index, or -1 when no element is a candidate.
 */
#ifndef CLFRAME_LIB_GROUP_CHOOSE_CL
#define CLFRAME_LIB_GROUP_CHOOSE_CL

/* The index i < n with mask[i] != 0 that is candidate number r mod count,
 * counting from 0 in index order; -1 when count is 0. */
int group_choose(__local const uchar *mask, int n, uint r,
                 __local int *scratch)
{
    int lid = (int)get_local_id(0), size = (int)get_local_size(0);
    /* Work-item lid owns the indices [first, end): contiguous, so that
     * its candidates are numbered after those of every lower work-item. */
    int chunk = (n + size - 1) / size;
    int first = min(lid * chunk, n), end = min(first + chunk, n);
    int mine = 0;
    barrier(CLK_LOCAL_MEM_FENCE);           /* the caller's mask */
    for (int i = first; i < end; i++)
        mine += mask[i] != 0;
    scratch[lid] = mine;
    barrier(CLK_LOCAL_MEM_FENCE);

    /* Inclusive prefix sums over the work-items (Hillis and Steele). */
    for (int step = 1; step < size; step <<= 1) {
        int add = lid >= step ? scratch[lid - step] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        scratch[lid] += add;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    int count = scratch[size - 1], before = scratch[lid] - mine;
    barrier(CLK_LOCAL_MEM_FENCE);           /* every read done */

    /* The owner of candidate number k finds it and tells the group. */
    if (lid == 0)
        scratch[0] = -1;
    barrier(CLK_LOCAL_MEM_FENCE);
    int k = count > 0 ? (int)(r % (uint)count) : -1;
    if (k >= before && k < before + mine) {
        int seen = before;
        for (int i = first; i < end; i++)
            if (mask[i] != 0 && seen++ == k) {
                scratch[0] = i;
                break;
            }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    int chosen = scratch[0];
    barrier(CLK_LOCAL_MEM_FENCE);           /* scratch free again */
    return chosen;
}

#endif /* CLFRAME_LIB_GROUP_CHOOSE_CL */
