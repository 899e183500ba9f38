/* png.c: the PNG reader on any file. It reads paths, so each input is
 * written to one temporary file first. */
#include "fuzz.h"
#include "common/image.h"

#include <stdio.h>
#include <unistd.h>

static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    snprintf(path, sizeof path, "/tmp/fuzz-png-%ld.png", (long)getpid());
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    int written = fwrite(data, 1, size, f) == size;
    if (fclose(f) != 0 || !written)
        return 0;
    uint32_t w, h;
    uint8_t *rgba = NULL;
    image_png_load(path, &w, &h, &rgba);
    free(rgba);
    return 0;
}
