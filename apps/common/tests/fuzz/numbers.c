/* numbers.c: the command-line number parsers on any text: whole numbers,
 * floats, sizes and comma lists. */
#include "fuzz.h"
#include "common/parse.h"

static int float_field(const char *field, int number, void *ctx)
{
    (void)number, (void)ctx;
    float x;
    return parse_float(field, &x);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size, NULL);
    if (!text)
        return 0;
    unsigned long u;
    float x;
    uint32_t w, h;
    parse_uint(text, 0, 1000000, &u);
    parse_float(text, &x);
    parse_size(text, 65536, &w, &h);
    parse_comma_list("--fuzz", text, 1, 12, "a number", float_field, NULL);
    free(text);
    return 0;
}
