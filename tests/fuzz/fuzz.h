/*
 * fuzz.h: what every libFuzzer harness shares (tests/fuzz, apps/NAME/tests/
 * fuzz): the entry point's declaration and the input as C text. A harness
 * calls one parser on the bytes and frees all it made; `make fuzz` runs it
 * (scripts/fuzz), `make test` replays its corpus through it.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a NUL-terminated string (the parsers read C text), split at
 * its first NUL byte into text and, after it, *rest (or "" when none).
 * Free with free(); NULL if out of memory. */
static inline char *fuzz_text(const uint8_t *data, size_t size,
                              const char **rest)
{
    char *text = malloc(size + 2);
    if (!text)
        return NULL;
    memcpy(text, data, size);
    text[size] = text[size + 1] = '\0';
    if (rest)
        *rest = text + strlen(text) + (strlen(text) < size ? 1 : 0);
    return text;
}

#endif
