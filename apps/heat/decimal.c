/*
 * decimal.c: the heat world's decimal numbers to float, as strtof would
 * read them. strtof is exact but slow for this (locale look-ups and
 * arbitrary precision for every number); a world holds millions of
 * numbers of at most a dozen digits, so most are read here by a few
 * multiplications whose result is provably strtof's, and any other
 * (long digit strings, large exponents, the rare exact tie) by strtof.
 */
#include "decimal.h"

#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The powers of ten a double holds exactly: 5^22 < 2^53. */
static const double exact_power_of_ten[] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
enum { EXACT_POWER_MAX = 22 };

/* Digits kept in the significand (10^19 - 1 < 2^64), and the bound past
 * which an exponent's value stops growing (far outside any float). */
enum { SIGNIFICAND_DIGITS_MAX = 19, EXPONENT_CAP = 100000 };

/* A number's decimal parts: the value is +-digits * 10^exponent, when
 * exact is set (no significant digit was dropped). */
typedef struct decimal {
    int negative;
    uint64_t digits;
    int significant;          /* digits kept in `digits` */
    int exact;
    long exponent;
} decimal;

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Adds one digit of the significand; leading zeros count for nothing. */
static void take_digit(decimal *d, char c)
{
    unsigned v = (unsigned)(c - '0');
    if (d->digits == 0 && v == 0)
        return;
    if (d->significant == SIGNIFICAND_DIGITS_MAX) {
        d->exact = 0;
        return;
    }
    d->digits = d->digits * 10 + v;
    d->significant++;
}

/* Splits text by the format's rule into d; 0 if it does not follow it. */
static int split_decimal(const char *text, size_t len, decimal *d)
{
    size_t i = 0, digits = 0;
    memset(d, 0, sizeof *d);
    d->exact = 1;
    if (len > 0 && text[0] == '-')
        d->negative = 1, i++;
    for (; i < len && is_digit(text[i]); i++, digits++)
        take_digit(d, text[i]);
    if (i < len && text[i] == '.')
        for (i++; i < len && is_digit(text[i]); i++, digits++) {
            take_digit(d, text[i]);
            d->exponent--;
        }
    if (digits == 0)
        return 0;
    if (i < len && (text[i] == 'e' || text[i] == 'E')) {
        i++;
        int negative = i < len && text[i] == '-';
        if (i < len && (text[i] == '+' || text[i] == '-'))
            i++;
        size_t start = i;
        long e = 0;
        for (; i < len && is_digit(text[i]); i++)
            if (e < EXPONENT_CAP)
                e = e * 10 + (text[i] - '0');
        if (i == start)
            return 0;
        d->exponent += negative ? -e : e;
    }
    return i == len;
}

/* Whether a double lies exactly halfway between two floats: for a double
 * in the range of normal floats, its 29 significand bits below a float's
 * 24 are 1 followed by 28 zeros. */
static int is_float_midpoint(double q)
{
    uint64_t bits;
    memcpy(&bits, &q, sizeof bits);
    return (bits & 0x1fffffffu) == 0x10000000u;
}

/* d's value as a float, correctly rounded, where that is quick to get:
 * 1 and the float in *value, or 0 for strtof to decide.
 *
 * With digits < 2^53 and |exponent| <= 22, (double)digits and 10^|e| are
 * exact, so q is the exact value x rounded once, to double.  Every float
 * midpoint is a double and rounding is monotone, so q lies on the same
 * side of each midpoint as x, and (float)q is x rounded to float, unless
 * q is a midpoint itself (then x may have been just off it).
 *
 * Here 1e-22 <= q < 2^53 * 1e22 < FLT_MAX, so (float)q is a normal float
 * and is_float_midpoint applies. This needs double arithmetic without
 * excess precision (FLT_EVAL_METHOD 0) in the default rounding mode, to
 * nearest, which no program of the app changes. */
static int quick_float(const decimal *d, float *value)
{
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
    if (!d->exact || d->digits >= (UINT64_C(1) << 53) ||
        d->exponent < -EXACT_POWER_MAX || d->exponent > EXACT_POWER_MAX)
        return 0;
    double q = (double)d->digits;
    if (d->exponent < 0)
        q /= exact_power_of_ten[-d->exponent];
    else
        q *= exact_power_of_ten[d->exponent];
    if (q != 0 && is_float_midpoint(q))
        return 0;
    float f = (float)q;
    *value = d->negative ? -f : f;
    return 1;
#else
    (void)d, (void)value, (void)exact_power_of_ten;
    return 0;
#endif
}

int heat_parse_decimal(const char *text, size_t len, float *value)
{
    decimal d;
    if (!split_decimal(text, len, &d))
        return 0;
    if (quick_float(&d, value))
        return 1;
    char *end;
    *value = strtof(text, &end);
    return end == text + len;
}
