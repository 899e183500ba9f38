/*
 * stencil.c: stepping a tiled stencil (stencil.h) over its whole grid.
 */
#include "common/stencil.h"
#include "clframe.h"

unsigned app_stencil_block(const app_stencil *s, uint32_t row)
{
    return row / s->block_rows;
}

int app_stencil_size(const app_stencil *s, clkernel *k, unsigned out_w,
                     unsigned group_w, unsigned group_h, unsigned first,
                     unsigned count)
{
    size_t groups_x = (s->width + out_w - 1) / out_w;
    int rc = clkernel_offset(k, 0, (size_t)first * group_h);
    if (rc == 0)
        rc = clkernel_global(k, groups_x * group_w, (size_t)count * group_h);
    return rc ? rc : clkernel_local(k, group_w, group_h);
}

int app_stencil_run(app_stencil *s, unsigned steps)
{
    unsigned blocks = app_stencil_block(s, s->height - 1) + 1;
    int rc = 0;
    for (unsigned done = 0; done < steps && rc == 0;) {
        unsigned now = steps - done < s->max_steps ? steps - done
                                                   : s->max_steps;
        rc = s->enqueue(s, 0, blocks, now);
        if (rc == 0)
            rc = clarg_swap(&s->cur, &s->next);
        done += now;
    }
    return rc;
}
