/*
 * main.c: bin/test-societies, the suites of apps/societies.
 */
#include "common/tests/testing.h"

Suite *societies_config_suite(void);
Suite *societies_phase1_suite(void);
Suite *societies_phase2_suite(void);
Suite *societies_device_suite(void);

int main(void)
{
    return test_main((Suite *(*const[])(void)){
        societies_config_suite, societies_phase1_suite, societies_phase2_suite,
        societies_device_suite, NULL});
}
