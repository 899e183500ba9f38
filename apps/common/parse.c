/*
 * parse.c: whole-word number parsing for every app (parse.h).
 */
#include "parse.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int parse_uint(const char *text, unsigned long lo, unsigned long hi,
               unsigned long *value)
{
    if (text[0] < '0' || text[0] > '9')
        return 0;       /* strtoul would take a sign or leading spaces */
    char *end;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (*end != '\0' || errno != 0 || v < lo || v > hi)
        return 0;
    *value = v;
    return 1;
}

int parse_uint_list(const char *text, unsigned long lo, unsigned long hi,
                    unsigned long *values, int max)
{
    char word[32];
    int count = 0;
    while (count < max) {
        size_t len = strcspn(text, ",");
        if (len == 0 || len >= sizeof word)
            return 0;
        memcpy(word, text, len);
        word[len] = '\0';
        if (!parse_uint(word, lo, hi, &values[count++]))
            return 0;
        if (text[len] == '\0')
            return count;
        text += len + 1;
    }
    return 0;                       /* more than max */
}

int parse_float(const char *text, float *value)
{
    if (text[0] == '\0' || text[0] == ' ' || text[0] == '\t')
        return 0;
    /* errno is not looked at: strtof reports ERANGE for a subnormal result
     * too, which is a number like any other; overflow gives infinity. */
    char *end;
    float v = strtof(text, &end);
    if (*end != '\0' || !isfinite(v))
        return 0;
    *value = v;
    return 1;
}

int parse_size(const char *text, unsigned long max, uint32_t *width,
               uint32_t *height)
{
    char first[32];
    const char *x = strchr(text, 'x');
    if (!x || (size_t)(x - text) >= sizeof first)
        return 0;
    memcpy(first, text, (size_t)(x - text));
    first[x - text] = '\0';
    unsigned long w, h;
    if (!parse_uint(first, 1, max, &w) || !parse_uint(x + 1, 1, max, &h))
        return 0;
    *width = (uint32_t)w;
    *height = (uint32_t)h;
    return 1;
}
