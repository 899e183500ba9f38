/* world.c: the heat world loader on any input, text or binary, as the
 * programs read a world from a file or standard input. */
#include "fuzz.h"
#include "heat/world.h"

#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;               /* fmemopen wants at least one byte */
    FILE *f = fmemopen((void *)data, size, "rb");
    if (!f)
        return 0;
    heat_world world;
    if (heat_world_load_whole(&world, f, "fuzz") == 0)
        heat_world_free(&world);
    fclose(f);
    return 0;
}
