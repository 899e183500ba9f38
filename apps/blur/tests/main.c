/*
 * main.c: bin/test-blur, the suites of apps/blur.
 */
#include "common/tests/testing.h"

Suite *blur_suite(void);

int main(void)
{
    return test_main((Suite *(*const[])(void)){
        blur_suite, NULL});
}
