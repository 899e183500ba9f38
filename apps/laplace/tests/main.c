/*
 * main.c: bin/test-laplace, the suites of apps/laplace.
 */
#include "common/tests/testing.h"

Suite *laplace_suite(void);

int main(void)
{
    return test_main((Suite *(*const[])(void)){
        laplace_suite, NULL});
}
