/* config.c: the Societies configuration parser on any text. */
#include "fuzz.h"
#include "societies/societies.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size, NULL);
    if (!text)
        return 0;
    societies_config c;
    societies_config_parse(text, "fuzz", &c);
    free(text);
    return 0;
}
