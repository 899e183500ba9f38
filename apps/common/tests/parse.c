/*
 * parse.c: comma lists as every app's options take them (common/parse.h):
 * fields handed over one at a time, and an empty field, a missing or
 * extra one, an over-long one or a refused one named with the option;
 * shapes ("64x48x4") as the apps' tiles and blocks take them.
 */
#include "testing.h"

#include "common/parse.h"

#include <string.h>

static int number_field(const char *field, int number, void *values)
{
    return parse_float(field, (float *)values + number - 1);
}

/* Asserts parse_comma_list of text, 2 to 3 numbers, fails saying why. */
static void assert_refused(const char *text, const char *why)
{
    float v[3];
    ck_assert_int_eq(parse_comma_list("--point", text, 2, 3, "a number",
                                      number_field, v), 0);
    ck_assert_msg(strstr(app_last_error(), "--point \"") &&
                  strstr(app_last_error(), why), "%s: message \"%s\" lacks "
                  "\"%s\"", text, app_last_error(), why);
}

START_TEST(comma_lists_refuse_empty_fields)
{
    float v[3];
    ck_assert_int_eq(parse_comma_list("--point", "1,-2.5", 2, 3, "a number",
                                      number_field, v), 2);
    ck_assert(v[0] == 1 && v[1] == -2.5f);
    ck_assert_int_eq(parse_comma_list("--point", "1,2,3", 2, 3, "a number",
                                      number_field, v), 3);
    ck_assert(v[2] == 3);

    assert_refused(",,1,2,,3,,", "field 1 is empty");
    assert_refused("1,,2", "field 2 is empty");
    assert_refused("1,2,", "field 3 is empty");
    assert_refused(",1,2", "field 1 is empty");
    assert_refused("", "field 1 is empty");
    assert_refused(",", "field 1 is empty");
    assert_refused("1", "1 field, expected 2 or 3");
    assert_refused("1,2,3,4", "more than 3 fields");
    assert_refused("1,x,3", "field 2, 'x', is not a number");
    assert_refused("1, 2", "field 2, ' 2', is not a number");
    char long_field[100];
    memset(long_field, '1', sizeof long_field - 1);
    long_field[sizeof long_field - 1] = '\0';
    long_field[0] = '2', long_field[1] = ',';
    assert_refused(long_field, "field 2 is longer than 63 characters");
}
END_TEST

START_TEST(whole_number_lists)
{
    unsigned long v[4];
    ck_assert_int_eq(parse_uint_list("sizes", "3,40000,7", 3, 40000, v, 4), 3);
    ck_assert(v[0] == 3 && v[1] == 40000 && v[2] == 7);
    ck_assert_int_eq(parse_uint_list("sizes", "3,,7", 3, 40000, v, 4), 0);
    ck_assert_str_eq(app_last_error(), "sizes \"3,,7\": field 2 is empty");
    ck_assert_int_eq(parse_uint_list("sizes", "3,2", 3, 40000, v, 4), 0);
    ck_assert_str_eq(app_last_error(), "sizes \"3,2\": field 2, '2', is not "
                     "a whole number from 3 to 40000");
    ck_assert_int_eq(parse_uint_list("sizes", "3,4,5,6,7", 3, 40000, v, 4),
                     0);
    ck_assert_str_eq(app_last_error(), "sizes \"3,4,5,6,7\": more than 4 "
                     "fields");
}
END_TEST

START_TEST(shapes_are_whole_numbers_joined_by_x)
{
    unsigned long v[4] = {0, 0, 0, 7};
    ck_assert_int_eq(parse_shape("64x48x4", 3, 4, v), 3);
    ck_assert(v[0] == 64 && v[1] == 48 && v[2] == 4 && v[3] == 7);
    ck_assert_int_eq(parse_shape("0x1x4294967295x2", 3, 4, v), 4);
    ck_assert(v[0] == 0 && v[2] == 4294967295ul && v[3] == 2);
    static const char *const bad[] = {
        "", "x", "64", "64x48", "64x48x4x2x1", "64x48x", "x64x48x4",
        "64xx48x4", "64x48x4 ", " 64x48x4", "64 x48x4", "-1x48x4", "+1x48x4",
        "64X48X4", "64x48x4.0", "4294967296x1x1",
        "000000000000000000000000000000000001x1x1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        ck_assert_msg(parse_shape(bad[i], 3, 4, v) == 0, "\"%s\" taken",
                      bad[i]);
    uint32_t w, h;
    ck_assert(parse_size("640x480", 1000, &w, &h) && w == 640 && h == 480);
    ck_assert(!parse_size("0x480", 1000, &w, &h));
    ck_assert(!parse_size("640x1001", 1000, &w, &h));
    ck_assert(!parse_size("640x480x3", 1000, &w, &h));
}
END_TEST

Suite *parse_suite(void)
{
    Suite *s = suite_create("parse");
    TCase *tc = test_case("parse");
    tcase_add_test(tc, comma_lists_refuse_empty_fields);
    tcase_add_test(tc, whole_number_lists);
    tcase_add_test(tc, shapes_are_whole_numbers_joined_by_x);
    suite_add_tcase(s, tc);
    return s;
}
