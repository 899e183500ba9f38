/* preproc.c: clframe's preprocessor on any source, with the build options
 * after a NUL byte; the device's macros come from the CPU device, whose
 * context and macros are read once (its allocations are PoCL's, not the
 * input's). */
#include "fuzz.h"
#include "internal.h"

#include <stdio.h>

static clctx *ctx;
static clf_device_macros device;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    setenv("CLFRAME_DEVICE", "cpu", 0);
    ctx = clctx_default();
    if (!ctx) {     /* fuzzing nothing would look like fuzzing that found nothing */
        fprintf(stderr, "fuzz-preproc: %s\n", clframe_last_error());
        exit(1);
    }
    clf_device_macros_read(ctx, &device);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *options;
    char *source = fuzz_text(data, size, &options);
    char *view = NULL;
    if (source && ctx)
        clf_preprocess(&device, source, options, &view);
    free(view);
    free(source);
    return 0;
}
