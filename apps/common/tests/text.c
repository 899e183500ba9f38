/*
 * text.c: lines read with bounds (apps/common/text.h): whole lines with
 * or without a last line end, an over-long line refused whole and the
 * next one read, a NUL byte named by its offset, an endless line and an
 * input past its limit refused.
 */
#include "testing.h"

#include "common/text.h"

#include <stdio.h>
#include <stdlib.h>

/* A reader of n bytes of data named "in.txt", limited to limit bytes. */
static text_reader reader_of(const void *data, size_t n,
                             unsigned long long limit)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, n, f), n);
    rewind(f);
    return (text_reader){f, "in.txt", limit, 0, 0};
}

START_TEST(lines_are_read_whole)
{
    text_reader r = reader_of("one\r\n\ntwo", 9, 0);
    char line[8];
    ck_assert_int_eq(text_read_line(&r, line, sizeof line), TEXT_LINE);
    ck_assert_str_eq(line, "one\r");
    ck_assert_int_eq(text_read_line(&r, line, sizeof line), TEXT_LINE);
    ck_assert_str_eq(line, "");
    ck_assert_int_eq(text_read_line(&r, line, sizeof line), TEXT_LINE);
    ck_assert_str_eq(line, "two");
    ck_assert_int_eq(r.line, 3);
    ck_assert_int_eq(r.offset, 9);
    ck_assert_int_eq(text_read_line(&r, line, sizeof line), TEXT_END);
    ck_assert_int_eq(text_read_line(&r, line, sizeof line), TEXT_END);
    fclose(r.f);
}
END_TEST

START_TEST(an_over_long_line_is_refused_whole)
{
    text_reader r = reader_of("1234\n12345\n3\n", 13, 0);
    char line[5];
    ck_assert_int_eq(text_read_line(&r, line, sizeof line), TEXT_LINE);
    ck_assert_str_eq(line, "1234");
    ck_assert_int_eq(text_read_line(&r, line, sizeof line), TEXT_TOO_LONG);
    ck_assert_str_eq(app_last_error(), "in.txt:2: the line is longer than 4 "
                     "characters");
    ck_assert_int_eq(text_read_line(&r, line, sizeof line), TEXT_LINE);
    ck_assert_str_eq(line, "3");
    ck_assert_int_eq(r.line, 3);
    fclose(r.f);
}
END_TEST

START_TEST(nul_bytes_endless_lines_and_long_inputs_are_refused)
{
    char line[16];
    text_reader r = reader_of("ok\nab\0c\n", 8, 0);
    ck_assert_int_eq(text_read_line(&r, line, sizeof line), TEXT_LINE);
    ck_assert_app_fails(text_read_line(&r, line, sizeof line),
                        APP_ERR_BAD_INPUT, "in.txt:2: a NUL byte at byte "
                        "offset 5: this is not text");
    fclose(r.f);

    size_t n = TEXT_LINE_MAX + 2;
    char *endless = malloc(n);
    ck_assert_ptr_nonnull(endless);
    memset(endless, 'x', n);
    r = reader_of(endless, n, 0);
    free(endless);
    ck_assert_app_fails(text_read_line(&r, line, sizeof line),
                        APP_ERR_BAD_INPUT, "in.txt:1: no line end within "
                        "1048576 bytes");
    fclose(r.f);

    r = reader_of("012345678\n0\n", 12, 10);
    ck_assert_int_eq(text_read_line(&r, line, sizeof line), TEXT_LINE);
    ck_assert_app_fails(text_read_line(&r, line, sizeof line),
                        APP_ERR_BAD_INPUT, "in.txt: longer than 10 bytes");
    fclose(r.f);
}
END_TEST

Suite *text_suite(void)
{
    Suite *s = suite_create("app text");
    TCase *tc = test_case("lines");
    tcase_add_test(tc, lines_are_read_whole);
    tcase_add_test(tc, an_over_long_line_is_refused_whole);
    tcase_add_test(tc, nul_bytes_endless_lines_and_long_inputs_are_refused);
    suite_add_tcase(s, tc);
    return s;
}
