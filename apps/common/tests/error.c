/*
 * error.c: the apps' failures (apps/common/error.h): codes and messages,
 * "FILE:LINE: " for a bad line of an input, a message cut rather than
 * overflowing, one last message with clframe (either side's failure is
 * the other's last error, and reaches clframe's handler), and the codes'
 * names.
 */
#include "testing.h"

#include <stdio.h>
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

static int handled_code;
static char handled[256];

static void remember(int code, const char *message)
{
    handled_code = code;
    snprintf(handled, sizeof handled, "%s", message);
}

START_TEST(an_apps_failure_is_clframes_last_error)
{
    clframe_error_handler old = clframe_set_error_handler(remember);
    app_fail_at(APP_ERR_BAD_INPUT, "plan.txt", 3, "bad %s", "size");
    clframe_set_error_handler(old);
    ck_assert_str_eq(clframe_last_error(), "plan.txt:3: bad size");
    ck_assert_int_eq(handled_code, APP_ERR_BAD_INPUT);
    ck_assert_str_eq(handled, "plan.txt:3: bad size");
}
END_TEST

START_TEST(codes_have_names)
{
    ck_assert_str_eq(app_error_name(APP_ERR_BAD_INPUT), "APP_ERR_BAD_INPUT");
    ck_assert_str_eq(app_error_name(APP_ERR_IO), "APP_ERR_IO");
    ck_assert_str_eq(app_error_name(APP_ERR_NO_MEMORY), "APP_ERR_NO_MEMORY");
    ck_assert_str_eq(app_error_name(APP_ERR_USAGE), "APP_ERR_USAGE");
    ck_assert_str_eq(app_error_name(APP_ERR_DEVICE), "APP_ERR_DEVICE");
    ck_assert_str_eq(app_error_name(CLFRAME_ERR_IO), "CLFRAME_ERR_IO");
    ck_assert_str_eq(app_error_name(-30), "CL_INVALID_VALUE");
    ck_assert_str_eq(app_error_name(-9199), "unknown error");
}
END_TEST

Suite *error_suite(void)
{
    Suite *s = suite_create("app errors");
    TCase *tc = test_case("errors");
    tcase_add_test(tc, a_failure_returns_its_code_and_keeps_its_message);
    tcase_add_test(tc, a_long_message_is_cut_not_overflowed);
    tcase_add_test(tc, clframes_errors_are_followed);
    tcase_add_test(tc, an_apps_failure_is_clframes_last_error);
    tcase_add_test(tc, codes_have_names);
    suite_add_tcase(s, tc);
    return s;
}
