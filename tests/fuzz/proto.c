/* proto.c: clframe's prototype reader on any source text: the prototype of
 * f, and after a NUL byte, a prototype given by hand for it. */
#include "fuzz.h"
#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *given;
    char *source = fuzz_text(data, size, &given);
    if (!source)
        return 0;
    clf_proto proto;
    clf_proto_find(source, NULL, "f", &proto);
    clf_proto_parse(source, NULL, given, "f", &proto);
    free(source);
    return 0;
}
