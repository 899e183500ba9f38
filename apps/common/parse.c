/*
 * parse.c: whole-word number parsing and comma lists for every app
 * (parse.h).
 */
#include "parse.h"
#include "error.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
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

/* A comma list's failure: 0, with "OPTION \"TEXT\": " and the reason. */
static int list_fail(const char *option, const char *text, const char *fmt,
                     ...) __attribute__((format(printf, 3, 4)));
static int list_fail(const char *option, const char *text, const char *fmt,
                     ...)
{
    char why[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    app_fail(APP_ERR_BAD_INPUT, "%s \"%.80s%s\": %s", option, text,
             strlen(text) > 80 ? "..." : "", why);
    return 0;
}

int parse_comma_list(const char *option, const char *text, int min,
                     int max, const char *what, parse_field_fn *field,
                     void *ctx)
{
    char word[PARSE_FIELD_MAX + 1];
    int n = 0;
    const char *at = text;
    for (;;) {
        size_t len = strcspn(at, ",");
        if (++n > max)
            return list_fail(option, text, "more than %d field%s", max,
                             max == 1 ? "" : "s");
        if (len == 0)
            return list_fail(option, text, "field %d is empty", n);
        if (len > PARSE_FIELD_MAX)
            return list_fail(option, text, "field %d is longer than %d "
                             "characters", n, PARSE_FIELD_MAX);
        memcpy(word, at, len);
        word[len] = '\0';
        if (!field(word, n, ctx))
            return list_fail(option, text, "field %d, '%s', is not %s", n,
                             word, what);
        if (at[len] == '\0')
            break;
        at += len + 1;
    }
    if (n < min && min == max)
        return list_fail(option, text, "%d field%s, expected %d", n,
                         n == 1 ? "" : "s", min);
    if (n < min)
        return list_fail(option, text, "%d field%s, expected %d %s %d", n,
                         n == 1 ? "" : "s", min, max == min + 1 ? "or" : "to",
                         max);
    return n;
}

typedef struct uint_list {
    unsigned long lo, hi, *values;
} uint_list;

static int uint_field(const char *field, int number, void *ctx)
{
    uint_list *list = ctx;
    return parse_uint(field, list->lo, list->hi, &list->values[number - 1]);
}

int parse_uint_list(const char *option, const char *text, unsigned long lo,
                    unsigned long hi, unsigned long *values, int max)
{
    char what[80];
    snprintf(what, sizeof what, "a whole number from %lu to %lu", lo, hi);
    uint_list list = {lo, hi, values};
    return parse_comma_list(option, text, 1, max, what, uint_field, &list);
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

int parse_shape(const char *text, int min, int max, unsigned long *values)
{
    char field[32];
    int n = 0;
    for (const char *at = text;; at++) {
        size_t len = strcspn(at, "x");
        if (n == max || len >= sizeof field)
            return 0;
        memcpy(field, at, len);
        field[len] = '\0';
        if (!parse_uint(field, 0, UINT_MAX, &values[n++]))
            return 0;
        at += len;
        if (*at == '\0')
            return n >= min ? n : 0;
    }
}

int parse_size(const char *text, unsigned long max, uint32_t *width,
               uint32_t *height)
{
    unsigned long f[2];
    if (!parse_shape(text, 2, 2, f) || f[0] < 1 || f[0] > max || f[1] < 1 ||
        f[1] > max)
        return 0;
    *width = (uint32_t)f[0];
    *height = (uint32_t)f[1];
    return 1;
}
