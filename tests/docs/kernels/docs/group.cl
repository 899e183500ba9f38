/* group.cl: the cooperative device functions of the examples: each runs
 * in a whole work-group (clfunction_group). */

/* Work-item (x, y) writes its flattened number plus one into its cell of
 * the grid and returns that number. */
int mark(__local int *grid)
{
    int id = (int)(get_local_id(0) + get_local_size(0) * get_local_id(1));
    grid[id] = id + 1;
    return id;
}

/* The index brought by the work-item whose value is largest (the lowest
 * such work-item on ties), through __local scratch v and at. */
int group_best(float value, int index, __local float *v, __local int *at)
{
    int id = (int)get_local_id(0), n = (int)get_local_size(0);
    v[id] = value;
    at[id] = index;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (id == 0)
        for (int i = 1; i < n; i++)
            if (v[i] > v[0]) {
                v[0] = v[i];
                at[0] = at[i];
            }
    barrier(CLK_LOCAL_MEM_FENCE);
    return at[0];
}

/* The number of the work-item whose value is largest, through __local tmp. */
int best(float value, __local float *tmp)
{
    int id = (int)get_local_id(0), n = (int)get_local_size(0), top = 0;
    tmp[id] = value;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = 1; i < n; i++)
        if (tmp[i] > tmp[top])
            top = i;
    barrier(CLK_LOCAL_MEM_FENCE);
    return top;
}
