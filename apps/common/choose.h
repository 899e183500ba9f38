/*
 * choose.h: the host twin of clframe/kernels/lib/group_choose.cl: the index of
 * candidate number r mod count among mask[0..n) (set elements, in index
 * order), or -1 when none is set. The C references choose with it, so
 * that they make the device's choices; the tests hold the device to it.
 */
#ifndef APPS_CHOOSE_H
#define APPS_CHOOSE_H

#include <stdint.h>

static inline int group_choose_host(const unsigned char *mask, int n,
                                    uint32_t r)
{
    int count = 0;
    for (int i = 0; i < n; i++)
        count += mask[i] != 0;
    if (count == 0)
        return -1;
    uint32_t k = r % (uint32_t)count;
    for (int i = 0; i < n; i++)
        if (mask[i] && k-- == 0)
            return i;
    return -1;
}

#endif /* APPS_CHOOSE_H */
