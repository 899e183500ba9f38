/*
 * heat_decimal.c: the text format's number parser (apps/heat/decimal.c)
 * against strtof, bit for bit: every temperature a world can hold as
 * written, random decimals of every shape, and decimals built to sit
 * within half a double's step of a float midpoint, where a parser that
 * rounds to double and then to float goes wrong.
 */
#include "common/tests/testing.h"

#include "heat/decimal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t float_bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

static float float_of_bits(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

/* A random 64-bit number from test_random's 24-bit ones. */
static uint64_t random64(uint32_t *seed)
{
    uint64_t hi = test_random(seed), mid = test_random(seed),
             lo = test_random(seed);
    return (hi << 48) ^ (mid << 24) ^ lo;
}

/* text must be a number that the parser reads exactly as strtof does.
 * (A passing ck_assert records where it passed, a system call: too slow
 * for millions, so the checks here only abort.) */
static void assert_as_strtof(const char *text)
{
    char *end;
    float want = strtof(text, &end), got = 42.0f;
    if (*end != '\0')
        ck_abort_msg("strtof stops early in '%s'", text);
    if (!heat_parse_decimal(text, strlen(text), &got))
        ck_abort_msg("'%s' refused", text);
    if (float_bits(got) != float_bits(want))
        ck_abort_msg("'%s': %a (0x%08x), strtof %a (0x%08x)", text, got,
                     float_bits(got), want, float_bits(want));
}

START_TEST(every_written_temperature_reads_as_strtof_reads_it)
{
    uint32_t seed = 2;
    char text[64];
    for (int i = 0; i < 1000000; i++) {
        /* Any float in [0, 1], by bits (mostly tiny ones), and uniform. */
        float t = float_of_bits(test_random(&seed) % 0x3f800001u);
        snprintf(text, sizeof text, "%.8f", t);
        assert_as_strtof(text);
        t = (float)test_random(&seed) / (1 << 24);
        snprintf(text, sizeof text, "%.8f", t);
        assert_as_strtof(text);
        /* Any 8-decimal number in [0, 1]. */
        snprintf(text, sizeof text, "0.%08" PRIu32,
                 (uint32_t)(random64(&seed) % 100000000u));
        assert_as_strtof(text);
    }
    assert_as_strtof("1.00000000");
    assert_as_strtof("0.00000000");
}
END_TEST

START_TEST(midpoints_printed_in_any_precision_read_as_strtof)
{
    uint32_t seed = 3;
    char text[96];
    for (int i = 0; i < 200000; i++) {
        float f = float_of_bits(0x00800000u + test_random(&seed) %
                                (0x3f800000u - 0x00800000u));
        double m = ((double)f + (double)nextafterf(f, 2.0f)) / 2;
        int precision = 6 + (int)(test_random(&seed) % 30);
        snprintf(text, sizeof text, "%.*g", precision, m);
        assert_as_strtof(text);
        snprintf(text, sizeof text, "%.*f", precision, m);
        assert_as_strtof(text);
        snprintf(text, sizeof text, "%.8f", m);
        assert_as_strtof(text);
    }
}
END_TEST

/* Appends n random digits to *p, leading zeros included. */
static void put_digits(char **p, int n, uint32_t *seed)
{
    for (int i = 0; i < n; i++)
        *(*p)++ = (char)('0' + test_random(seed) % 10);
}

START_TEST(random_decimals_read_as_strtof_reads_them)
{
    static const char *const fixed[] = {
        "0", "-0", "0.0", "-0.0e5", ".5", "5.", "-.5e-1", "00000.00001",
        "1e-45", "1.4e-45", "7e-46", "8e-46", "1e-46", "1e-40", "1.17549e-38",
        "1.1754942e-38", "3.4028235e38", "3.4028236e38", "3.4028234e38",
        "1e39", "-1e39", "1e400", "1e-400", "1e0000000000000000000000000005",
        "9007199254740993", "9007199254740992e-22", "123456789012345678901",
        "1.00000005960464477539062500000000000000000001", "16777217",
        "0.1", "0.2", "1E5", "1e+5", "1e-05"};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        assert_as_strtof(fixed[i]);

    uint32_t seed = 4;
    char text[160];
    for (int i = 0; i < 1000000; i++) {
        char *p = text;
        if (test_random(&seed) % 3 == 0)
            *p++ = '-';
        int digits = 1 + (int)(test_random(&seed) % 40);
        int before = (int)(test_random(&seed) % (digits + 1));
        if (test_random(&seed) % 4 == 0)
            put_digits(&p, 0, &seed), *p++ = '0', *p++ = '0';
        put_digits(&p, before, &seed);
        if (before < digits || test_random(&seed) % 2) {
            *p++ = '.';
            put_digits(&p, digits - before, &seed);
        }
        if (test_random(&seed) % 4 != 0) {
            *p++ = test_random(&seed) % 2 ? 'e' : 'E';
            uint32_t sign = test_random(&seed) % 3;
            if (sign)
                *p++ = sign == 1 ? '-' : '+';
            if (test_random(&seed) % 4 == 0)
                *p++ = '0';
            p += sprintf(p, "%u", (unsigned)(test_random(&seed) % 61));
        }
        *p = '\0';
        assert_as_strtof(text);
    }
}
END_TEST

START_TEST(what_the_format_does_not_write_is_refused)
{
    static const char *const refused[] = {
        "", "-", ".", "-.", "e5", ".e5", "1e", "1e+", "1e-", "+1", "--1",
        "1.2.3", "1e5.5", "1e5e5", " 1", "1 ", "inf", "-inf", "nan",
        "infinity", "0x1p3", "1f", "1,5", "1-", "1e--5"};
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        float v = 42.0f;
        ck_assert_msg(!heat_parse_decimal(refused[i], strlen(refused[i]),
                                           &v), "'%s' read as %g",
                      refused[i], v);
    }
    /* Only the first len characters count. */
    float v;
    ck_assert(heat_parse_decimal("0.5 junk", 3, &v) && v == 0.5f);
}
END_TEST

/* The decimal digits * 10^-k nearest to the float midpoint m (a 25-bit odd
 * significand times a power of two), worked out exactly in 128 bits:
 * m * 10^k = num / den. Sets *exact if the decimal is m itself. */
static uint64_t decimal_near(double m, int k, int *exact)
{
    int e;
    double frac = frexp(m, &e);
    unsigned __int128 num = (uint64_t)ldexp(frac, 25), den = 1;
    int twos = e - 25 + k;              /* m * 10^k = M * 5^k * 2^twos */
    for (int i = 0; i < (k > 0 ? k : -k); i++) {
        if (k > 0)
            num *= 5;
        else
            den *= 5;
    }
    if (twos >= 0)
        num <<= twos;
    else
        den <<= -twos;
    uint64_t w = (uint64_t)((2 * num + den) / (2 * den));
    *exact = (unsigned __int128)w * den == num;
    return w;
}

/* Decimals x within half a double's step of a float midpoint m, and not m:
 * x rounded to double is m, which rounded to float goes to the even
 * neighbour, wherever x lies. The parser must give strtof's float. */
START_TEST(decimals_beside_a_midpoint_read_as_strtof_reads_them)
{
    uint32_t seed = 5;
    int traps = 0, naive_wrong = 0;
    char text[64];
    for (int i = 0; i < 200000; i++) {
        /* Floats from about 1e-6 to 1e20, so that 10^k fits a double. */
        float f = float_of_bits(0x35800000u + test_random(&seed) %
                                (0x60800000u - 0x35800000u));
        double m = ((double)f + (double)nextafterf(f, INFINITY)) / 2;
        int k = (int)floor(log10(9007199254740992.0 / m));
        if (k < -22 || k > 22)
            continue;
        int exact;
        uint64_t w = decimal_near(m, k, &exact);
        if (w >= (UINT64_C(1) << 53))
            continue;
        double q = k >= 0 ? (double)w / pow(10, k) : (double)w * pow(10, -k);
        if (q != m || exact)
            continue;
        traps++;
        snprintf(text, sizeof text, "%" PRIu64 "e%d", w, -k);
        assert_as_strtof(text);
        if (float_bits((float)q) != float_bits(strtof(text, NULL)))
            naive_wrong++;
    }
    /* Enough traps were built, and rounding through a double does fail
     * on many of them. */
    ck_assert_int_gt(traps, 1000);
    ck_assert_int_gt(naive_wrong, traps / 4);
}
END_TEST

Suite *heat_decimal_suite(void)
{
    Suite *s = suite_create("heat_decimal");
    TCase *tc = test_case("against strtof");
    tcase_add_test(tc, every_written_temperature_reads_as_strtof_reads_it);
    tcase_add_test(tc, midpoints_printed_in_any_precision_read_as_strtof);
    tcase_add_test(tc, random_decimals_read_as_strtof_reads_them);
    tcase_add_test(tc, what_the_format_does_not_write_is_refused);
    tcase_add_test(tc, decimals_beside_a_midpoint_read_as_strtof_reads_them);
    suite_add_tcase(s, tc);
    return s;
}
