/*
 * args.h: the numbers the heat programs take on their command lines. Only
 * a whole argument counts: "10x", " 5", "+3", "-1" as a count, "nan" and
 * "1e99" as a float are refused, so a typo is an error, never a default.
 */
#ifndef HEAT_ARGS_H
#define HEAT_ARGS_H

/* 1 if text is a decimal integer from lo to hi, stored in *value. */
int heat_arg_uint(const char *text, unsigned long lo, unsigned long hi,
                  unsigned long *value);

/* 1 if text is a number whose float is finite, stored in *value. */
int heat_arg_float(const char *text, float *value);

#endif /* HEAT_ARGS_H */
