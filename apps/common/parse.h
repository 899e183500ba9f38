/*
 * parse.h: numbers as the apps take them, on command lines and in their
 * text files. Only a whole word counts: "10x", " 5", "+3", "-1" as a count,
 * "nan" and "1e99" as a float are refused, so a typo is an error, never a
 * default. A comma list ("0,5,-10,0,0,0,45") is split by parse_comma_list
 * alone, which refuses an empty field rather than merging two commas.
 */
#ifndef APPS_PARSE_H
#define APPS_PARSE_H

#include <stdint.h>

/* 1 if text is a decimal integer from lo to hi, stored in *value. */
int parse_uint(const char *text, unsigned long lo, unsigned long hi,
               unsigned long *value);

/* 1 if text is a number whose float is finite (subnormals included),
 * stored in *value. Reads in the current locale's LC_NUMERIC. */
int parse_float(const char *text, float *value);

enum { PARSE_FIELD_MAX = 63 };    /* the longest field of a comma list */

/* Called with each field of a comma list, as a string of its own, and its
 * number (1 for the first); returns 1 if it is what the list holds, else
 * 0. */
typedef int parse_field_fn(const char *field, int number, void *ctx);

/* Splits text, the value of option (a name for messages: "--camera"), at
 * every comma and hands each field to field(). Returns how many fields
 * there were, min to max (min >= 1), or 0 with a message in
 * app_last_error() naming the option, its value and the field: an empty
 * one ("1,,2", a comma first or last, an empty text), one longer than
 * PARSE_FIELD_MAX, too few or too many fields, or one that field()
 * refused ("--camera \"0,x,1\": field 2, 'x', is not a number", from
 * what). */
int parse_comma_list(const char *option, const char *text, int min,
                     int max, const char *what, parse_field_fn *field,
                     void *ctx);

/* parse_comma_list of up to max whole numbers, each from lo to hi, into
 * values (the benchmarks' lists of sizes): how many, or 0 after its
 * message. */
int parse_uint_list(const char *option, const char *text, unsigned long lo,
                    unsigned long hi, unsigned long *values, int max);

/* The fields of a shape "AxBxC..." (a tile, a block, an image size): from
 * min to max whole numbers (each at most UINT_MAX) joined by 'x', into
 * values. How many there are, or 0 if text is not such a shape (an empty
 * field, a sign, a space, another character, too few or too many). */
int parse_shape(const char *text, int min, int max, unsigned long *values);

/* 1 if text is "WxH" (an image size), each a whole number from 1 to max,
 * stored in *width and *height. */
int parse_size(const char *text, unsigned long max, uint32_t *width,
               uint32_t *height);

#endif /* APPS_PARSE_H */
