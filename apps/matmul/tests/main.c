/*
 * main.c: bin/test-matmul, the suites of apps/matmul.
 */
#include "common/tests/testing.h"

Suite *matmul_suite(void);

int main(void)
{
    return test_main((Suite *(*const[])(void)){
        matmul_suite, NULL});
}
