/*
 * societies/group.cl: the device library's group functions
 * (clframe/kernels/lib/group_minmax.cl, group_choose.cl) as the Societies
 * kernels call them: over a work-group of a work-item per resource, each
 * taking its scratch from local_malloc and giving it back before it
 * returns. The kernels then declare no scratch and pass none down; the
 * rewrite (clframe/source/localmalloc.c) gives each kernel one arena of the
 * largest scratch any of these calls needs, the same bytes for every call,
 * as the single scratch array the kernels declared before.
 *
 * Built with societies_config_defines (SOCIETIES_RESOURCES is the local
 * size, so scratch of one int per work-item is SOCIETIES_SCRATCH_BYTES);
 * every work-item calls these with the same arguments, never under a
 * divergent condition (the group functions' rules).
 */
#ifndef SOCIETIES_GROUP_CL
#define SOCIETIES_GROUP_CL

#include "lib/group_minmax.cl"
#include "lib/group_choose.cl"

#define SOCIETIES_SCRATCH_BYTES (SOCIETIES_RESOURCES * sizeof(int))

/* group_argmax over the resources: the index of the largest a[r]. */
int societies_argmax(__local const float *a)
{
    __local int *scratch = local_malloc(SOCIETIES_SCRATCH_BYTES);
    int best = group_argmax(a, SOCIETIES_RESOURCES, scratch);
    local_free(SOCIETIES_SCRATCH_BYTES);
    return best;
}

/* group_choose over the resources: candidate number draw mod count of
 * those with mask[r] set, or -1 when there is none. */
int societies_choose(__local const uchar *mask, uint draw)
{
    __local int *scratch = local_malloc(SOCIETIES_SCRATCH_BYTES);
    int chosen = group_choose(mask, SOCIETIES_RESOURCES, draw, scratch);
    local_free(SOCIETIES_SCRATCH_BYTES);
    return chosen;
}

/* group_smallest_k over the resources: the k smallest a[r] with mask[r]
 * set, in out[0..k-1]; how many there were. */
int societies_smallest_k(__local const float *a, __local const uchar *mask,
                         int k, __local int *out)
{
    __local int *scratch = local_malloc(SOCIETIES_SCRATCH_BYTES);
    int found = group_smallest_k(a, mask, SOCIETIES_RESOURCES, k, out,
                                 scratch);
    local_free(SOCIETIES_SCRATCH_BYTES);
    return found;
}

/* group_argmax_masked over any n elements (the offers of phase 2 may
 * outnumber the resources; the tree needs no more scratch than the local
 * size): the largest a[i] with mask[i] set, or -1. */
int societies_argmax_masked(__local const float *a, __local const uchar *mask,
                            int n)
{
    __local int *scratch = local_malloc(SOCIETIES_SCRATCH_BYTES);
    int best = group_argmax_masked(a, mask, n, scratch);
    local_free(SOCIETIES_SCRATCH_BYTES);
    return best;
}

#endif /* SOCIETIES_GROUP_CL */
