/* settings.c: the reader of a per-device setting's file (clf_setting_parse)
 * on any bytes: the key before the first NUL byte, the file after it,
 * copied to a buffer of its exact size so that a read past its end is
 * ASan's to see. A damaged file must be no value, never a crash; a value
 * read must be the file's last line, shorter than the buffer. */
#include "fuzz.h"
#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, '\0', size);
    size_t key_len = nul ? (size_t)(nul - data) : size;
    size_t file_size = nul ? size - key_len - 1 : 0;
    char *key = malloc(key_len + 1), *file = malloc(file_size + 1);
    if (!key || !file) {
        free(key);
        free(file);
        return 0;
    }
    memcpy(key, data, key_len);
    memcpy(file, nul ? (const char *)nul + 1 : "", file_size);
    /* Buffers of 1, 8 and 64 bytes: too small for most values, and not. */
    static const size_t sizes[] = {1, 8, 64};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        char value[64];
        int whole = -1;
        int got = clf_setting_parse(file, file_size, key, key_len, value,
                                    sizes[i], &whole);
        size_t len = got ? strlen(value) : 0;
        if ((whole != 0 && whole != 1) || (got && !whole))
            abort();
        /* A value is the file's last line, before its '\n'. */
        if (got && (len == 0 || len >= sizes[i] || len + 1 > file_size ||
                    file[file_size - 1] != '\n' ||
                    memcmp(file + file_size - 1 - len, value, len) != 0))
            abort();
    }
    free(key);
    free(file);
    return 0;
}
