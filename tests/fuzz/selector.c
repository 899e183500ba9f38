/* selector.c: the device selector (CLFRAME_DEVICE's text) on any string:
 * a context is made when it names a device, and freed. Long inputs are
 * cut: a selector is a word or two. */
#include "fuzz.h"
#include "clframe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *selector = fuzz_text(data, size < 64 ? size : 64, NULL);
    if (selector)
        clctx_free(clctx_new(selector));
    free(selector);
    return 0;
}
