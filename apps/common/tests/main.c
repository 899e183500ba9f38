/*
 * main.c: bin/test-common, the suites of apps/common.
 */
#include "testing.h"

Suite *error_suite(void);
Suite *parse_suite(void);
Suite *plot_suite(void);
Suite *program_suite(void);
Suite *save_suite(void);
Suite *timing_suite(void);
Suite *text_suite(void);

int main(void)
{
    return test_main((Suite *(*const[])(void)){
        error_suite, parse_suite, plot_suite, program_suite, save_suite,
        text_suite,
        timing_suite, NULL});
}
