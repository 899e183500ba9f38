/*
 * error.c: the apps' failures (apps/common/error.h): codes and messages,
 * "FILE:LINE: " for a bad line of an input, a message cut rather than
 * overflowing, and clframe's errors followed into app_last_error().
 */
#include "testing.h"

#include <string.h>

START_TEST(a_failure_returns_its_code_and_keeps_its_message)
{
    ck_assert_int_eq(app_fail(APP_ERR_IO, "%s: cannot open", "a.txt"),
                     APP_ERR_IO);
    ck_assert_str_eq(app_last_error(), "a.txt: cannot open");
    ck_assert_int_eq(app_fail_at(APP_ERR_BAD_INPUT, "scene.txt", 12,
                                 "sphere: %d numbers", 3),
                     APP_ERR_BAD_INPUT);
    ck_assert_str_eq(app_last_error(), "scene.txt:12: sphere: 3 numbers");
}
END_TEST

START_TEST(a_long_message_is_cut_not_overflowed)
{
    static char big[10000];
    memset(big, 'x', sizeof big - 1);
    app_fail(APP_ERR_BAD_INPUT, "%s", big);
    size_t n = strlen(app_last_error());
    ck_assert_uint_gt(n, 1000);
    ck_assert_uint_lt(n, sizeof big - 1);
    app_fail_at(APP_ERR_BAD_INPUT, big, 1, "the end");
    ck_assert_uint_lt(strlen(app_last_error()), sizeof big - 1);
}
END_TEST

START_TEST(clframes_errors_are_followed)
{
    app_fail(APP_ERR_IO, "an older failure");
    ck_assert_ptr_null(clkernel_file(NULL, "no/such/kernel.cl", "k", NULL));
    ck_assert_str_eq(app_last_error(), clframe_last_error());
    ck_assert_ptr_nonnull(strstr(app_last_error(), "no/such/kernel.cl"));
}
END_TEST

Suite *error_suite(void)
{
    Suite *s = suite_create("app errors");
    TCase *tc = test_case("errors");
    tcase_add_test(tc, a_failure_returns_its_code_and_keeps_its_message);
    tcase_add_test(tc, a_long_message_is_cut_not_overflowed);
    tcase_add_test(tc, clframes_errors_are_followed);
    suite_add_tcase(s, tc);
    return s;
}
