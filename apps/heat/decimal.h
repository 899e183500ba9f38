/*
 * decimal.h: the numbers of the heat world's text format (alpha and the
 * temperatures, apps/heat/SPEC.md), parsed to exactly the float strtof
 * gives but without its per-number cost. Internal to the heat app; its
 * own header so that the tests can hold it against strtof.
 */
#ifndef HEAT_DECIMAL_H
#define HEAT_DECIMAL_H

#include <stddef.h>

/* The rule the format's numbers follow, as messages state it. */
#define HEAT_DECIMAL_RULE \
    "decimal digits with an optional fraction and exponent"

/* Parses text[0..len), which must be followed by a NUL, as a float: 1 and
 * strtof's value in *value (bit for bit, -0, overflow to infinity and
 * subnormals included) if the whole text is a number by the format's rule,
 * an optional '-', decimal digits with an optional fraction and exponent
 * ("0.5", ".5", "5.", "1e-05", "-2"); else 0. Not the rest of what strtof
 * reads: hexadecimal, "inf", "nan", a '+', surrounding spaces. */
int heat_parse_decimal(const char *text, size_t len, float *value);

#endif /* HEAT_DECIMAL_H */
