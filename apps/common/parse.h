/*
 * parse.h: numbers as the apps take them, on command lines and in their
 * text files. Only a whole word counts: "10x", " 5", "+3", "-1" as a count,
 * "nan" and "1e99" as a float are refused, so a typo is an error, never a
 * default.
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

/* "a,b,c": up to max whole numbers, each from lo to hi, into values; how
 * many, or 0 if the text is empty, too long or has a word that is not one
 * (the benchmarks' lists of sizes). */
int parse_uint_list(const char *text, unsigned long lo, unsigned long hi,
                    unsigned long *values, int max);

/* 1 if text is "WxH" (an image size), each a whole number from 1 to max,
 * stored in *width and *height. */
int parse_size(const char *text, unsigned long max, uint32_t *width,
               uint32_t *height);

#endif /* APPS_PARSE_H */
