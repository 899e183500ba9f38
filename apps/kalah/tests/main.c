/*
 * main.c: bin/test-kalah, the suites of apps/kalah.
 */
#include "common/tests/testing.h"

Suite *kalah_board_suite(void);
Suite *kalah_suite(void);
Suite *deepen_suite(void);

int main(void)
{
    return test_main((Suite *(*const[])(void)){
        kalah_board_suite, kalah_suite, deepen_suite, NULL});
}
