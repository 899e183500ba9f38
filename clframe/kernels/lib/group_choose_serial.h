/*
 * group_choose_serial.h: group_choose.cl's rule in one thread, for the host
 * and for device code that runs a work-item per array (clframe/shared.h's
 * idiom): the index of candidate number r mod count among mask[0..n) (set
 * elements, in index order), or -1 when none is set. A C reference that
 * chooses with it makes a work-group's choices, draw for draw.
 */
#ifndef KERNELS_LIB_GROUP_CHOOSE_SERIAL_H
#define KERNELS_LIB_GROUP_CHOOSE_SERIAL_H

#include "clframe/shared.h"

CLF_INLINE CLF_INT group_choose_serial(const CLF_UCHAR *mask, CLF_INT n,
                                       CLF_UINT r)
{
    CLF_INT count = 0;
    for (CLF_INT i = 0; i < n; i++)
        count += mask[i] != 0;
    if (count == 0)
        return -1;
    CLF_UINT k = r % (CLF_UINT)count;
    for (CLF_INT i = 0; i < n; i++)
        if (mask[i] && k-- == 0)
            return i;
    return -1;
}

#endif /* KERNELS_LIB_GROUP_CHOOSE_SERIAL_H */
