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

/* The most digits whose value surely fits 64 bits (10^19 - 1 < 2^64),
 * and the bound past which an exponent's value stops growing (far
 * outside any float). */
enum { DIGITS_MAX = 19, EXPONENT_CAP = 100000 };

/* A number's decimal parts: its value is +-digits * 10^exponent when
 * count <= DIGITS_MAX; beyond, digits has wrapped and means nothing. */
typedef struct decimal {
    int negative;
    uint64_t digits;
    size_t count;             /* digits read, leading zeros included */
    long exponent;
} decimal;

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Reads the digits from text[*i] on into d; how many there were. */
static size_t take_digits(const char *text, size_t len, size_t *i, decimal *d)
{
    size_t start = *i;
    uint64_t v = d->digits;
    for (; *i < len && is_digit(text[*i]); ++*i)
        v = v * 10 + (uint64_t)(text[*i] - '0');
    d->digits = v;
    d->count += *i - start;
    return *i - start;
}

/* Splits text by the format's rule into d; 0 if it does not follow it. */
static int split_decimal(const char *text, size_t len, decimal *d)
{
    size_t i = 0;
    memset(d, 0, sizeof *d);
    if (len > 0 && text[0] == '-')
        d->negative = 1, i++;
    take_digits(text, len, &i, d);
    if (i < len && text[i] == '.') {
        i++;
        d->exponent = -(long)take_digits(text, len, &i, d);
    }
    if (d->count == 0)
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

/* How far a double lies from the nearest float midpoint of its binade,
 * in units of its last place, for a double in the range of normal floats:
 * its 29 significand bits below a float's 24 against 1 followed by 28
 * zeros, the pattern of a midpoint. Midpoints of the binades either side
 * lie over 2^27 units away. */
static uint32_t ulps_from_float_midpoint(double q)
{
    uint64_t bits;
    memcpy(&bits, &q, sizeof bits);
    uint32_t low = (uint32_t)(bits & 0x1fffffffu), mid = 0x10000000u;
    return low > mid ? low - mid : mid - low;
}

/* 10^-k rounded to double, for k from 0 to EXACT_POWER_MAX. */
static const double rounded_power_of_ten[] = {
    1e0,   1e-1,  1e-2,  1e-3,  1e-4,  1e-5,  1e-6,  1e-7,  1e-8,  1e-9,
    1e-10, 1e-11, 1e-12, 1e-13, 1e-14, 1e-15, 1e-16, 1e-17, 1e-18, 1e-19,
    1e-20, 1e-21, 1e-22};

/* A quotient digits / 10^k within this many units in the last place of a
 * float midpoint is worked out exactly; the product by 10^-k errs by less
 * than 3. */
enum { PRODUCT_ERROR_ULPS = 4 };

/* d's value as a float, correctly rounded, where that is quick to get:
 * 1 and the float in *value, or 0 for strtof to decide. Why it is exact:
 *
 * With digits < 2^53 and |exponent| <= 22, (double)digits and 10^|e| are
 * exact, so q is the exact value x rounded once, to double.  Every float
 * midpoint is a double and rounding is monotone, so q lies on the same
 * side of each midpoint as x, and (float)q is x rounded to float, unless
 * q is a midpoint itself (then x may have been just off it).
 *
 * A division costs several multiplications, so for a negative exponent
 * p = digits * RN(10^-k) comes first: two roundings, so |p - x| <
 * 2.01 * 2^-53 * x, under 3 units in p's last place. When p is further
 * than that from every float midpoint, no midpoint lies between p and x,
 * and (float)p is x rounded to float; else q is worked out as above.
 *
 * Here 1e-22 <= x < 2^53 * 1e22 < FLT_MAX, so the float is a normal one
 * and ulps_from_float_midpoint applies. This needs double arithmetic
 * without excess precision (FLT_EVAL_METHOD 0) in the default rounding
 * mode, to nearest, which no program of the app changes. */
static int quick_float(const decimal *d, float *value)
{
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
    if (d->count > DIGITS_MAX || d->digits >= (UINT64_C(1) << 53) ||
        d->exponent < -EXACT_POWER_MAX || d->exponent > EXACT_POWER_MAX)
        return 0;
    double q = (double)d->digits;
    if (d->exponent >= 0) {
        q *= exact_power_of_ten[d->exponent];
    } else {
        double p = q * rounded_power_of_ten[-d->exponent];
        if (ulps_from_float_midpoint(p) > PRODUCT_ERROR_ULPS)
            q = p;
        else
            q /= exact_power_of_ten[-d->exponent];
    }
    if (q != 0 && ulps_from_float_midpoint(q) == 0)
        return 0;
    float f = (float)q;
    *value = d->negative ? -f : f;
    return 1;
#else
    (void)d, (void)value, (void)exact_power_of_ten;
    (void)rounded_power_of_ten, (void)ulps_from_float_midpoint;
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
