/* cache.c: the reader of a program cache entry (clf_cache_entry_binary) on
 * any bytes: the key before the first NUL byte, the entry after it,
 * copied to a buffer of its exact size so that a read past its end is
 * ASan's to see. A truncated, damaged or foreign entry must be a miss,
 * never a crash; a binary found must lie inside the entry, after its
 * header and key, and end where the entry ends. */
#include "fuzz.h"
#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, '\0', size);
    size_t key_len = nul ? (size_t)(nul - data) : size;
    size_t entry_size = nul ? size - key_len - 1 : 0;
    char *key = malloc(key_len + 1);
    unsigned char *entry = malloc(entry_size + 1);
    if (!key || !entry) {
        free(key);
        free(entry);
        return 0;
    }
    memcpy(key, data, key_len);
    if (nul)
        memcpy(entry, nul + 1, entry_size);
    size_t binary_len = 0;
    const unsigned char *binary =
        clf_cache_entry_binary(entry, entry_size, key, key_len, &binary_len);
    if (binary && (binary_len == 0 || binary < entry + key_len ||
                   binary + binary_len != entry + entry_size))
        abort();
    free(key);
    free(entry);
    return 0;
}
