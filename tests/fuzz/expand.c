/* expand.c: clframe's #include expander on any top-level source, with the
 * build options after a NUL byte (includes are looked up on disk as they
 * would be: files the input names are read, never written). */
#include "fuzz.h"
#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *options;
    char *text = fuzz_text(data, size, &options);
    if (text)
        free(clf_source_expand(text, "fuzz.cl", options));
    free(text);
    return 0;
}
