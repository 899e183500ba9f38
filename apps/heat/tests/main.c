/*
 * main.c: bin/test-heat, the suites of apps/heat.
 */
#include "common/tests/testing.h"

Suite *heat_decimal_suite(void);
Suite *heat_world_suite(void);
Suite *heat_step_suite(void);

int main(void)
{
    return test_main((Suite *(*const[])(void)){
        heat_decimal_suite, heat_world_suite, heat_step_suite, NULL});
}
