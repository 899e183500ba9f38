/*
 * test_error.c: error names and the last-error message.
 */
#include "support.h"

#include <string.h>

START_TEST(names_cover_every_opencl_code)
{
    ck_assert_str_eq(clframe_error_name(0), "CL_SUCCESS");
    ck_assert_str_eq(clframe_error_name(-5), "CL_OUT_OF_RESOURCES");
    ck_assert_str_eq(clframe_error_name(-11), "CL_BUILD_PROGRAM_FAILURE");
    ck_assert_str_eq(clframe_error_name(-52), "CL_INVALID_KERNEL_ARGS");
    ck_assert_str_eq(clframe_error_name(-72),
                     "CL_MAX_SIZE_RESTRICTION_EXCEEDED");
    ck_assert_str_eq(clframe_error_name(-1001), "CL_PLATFORM_NOT_FOUND_KHR");
    /* OpenCL 1.0 to 3.0 use 0..-19 and -30..-72 without gaps. */
    for (int code = 0; code >= -72; code--) {
        if (code < -19 && code > -30)
            continue;
        ck_assert_msg(strncmp(clframe_error_name(code), "CL_", 3) == 0,
                      "code %d has no name", code);
    }
    ck_assert_str_eq(clframe_error_name(-25), "unknown error");
}
END_TEST

START_TEST(names_cover_clframe_codes)
{
    for (int code = CLFRAME_ERR_NO_PLATFORM; code >= CLFRAME_ERR_IO; code--)
        ck_assert_msg(strncmp(clframe_error_name(code), "CLFRAME_ERR_", 12) == 0,
                      "code %d has no name", code);
    ck_assert_str_eq(clframe_error_name(CLFRAME_ERR_BUILD), "CLFRAME_ERR_BUILD");
}
END_TEST

static int handled_code;
static char handled_message[256];

static void remember(int code, const char *message)
{
    handled_code = code;
    strncpy(handled_message, message, sizeof handled_message - 1);
}

START_TEST(handler_sees_every_error)
{
    clframe_error_handler old = clframe_set_error_handler(remember);
    ck_assert_ptr_null(old);
    ck_assert_int_eq(clkernel_call(NULL), CLFRAME_ERR_USAGE);
    ck_assert_int_eq(handled_code, CLFRAME_ERR_USAGE);
    ck_assert_str_eq(handled_message, clframe_last_error());
    ck_assert_ptr_eq(clframe_set_error_handler(NULL), remember);
}
END_TEST

Suite *error_suite(void)
{
    Suite *s = suite_create("error");
    TCase *tc = test_case("names");
    tcase_add_test(tc, names_cover_every_opencl_code);
    tcase_add_test(tc, names_cover_clframe_codes);
    tcase_add_test(tc, handler_sees_every_error);
    suite_add_tcase(s, tc);
    return s;
}
