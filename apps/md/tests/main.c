/*
 * main.c: bin/test-md, the suites of apps/md.
 */
#include "common/tests/testing.h"

Suite *md_suite(void);

int main(void)
{
    return test_main((Suite *(*const[])(void)){
        md_suite, NULL});
}
