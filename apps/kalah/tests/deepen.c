/*
 * deepen.c: kalah_deepen, the iterative deepening of the three timed
 * players, with a fake search whose depths, deadlines and outcomes the
 * test chooses: the depths it asks for, the deadline only from depth 2 on
 * (and never to a search that cannot stop), the deepest finished result
 * kept when a depth stops or fails, the time rule of a search that cannot
 * stop, and bad arguments.
 */
#include "common/tests/testing.h"
#include "kalah/kalah.h"

#include <time.h>

/* What the fake search saw and what it is told to do. */
typedef struct fake {
    int calls, depths[KALAH_MAX_DEPTH + 1];
    double deadlines[KALAH_MAX_DEPTH + 1];
    int stop_at, fail_at;        /* KALAH_STOPPED / a failure at this depth
                                    (1 or more; 0: none) */
    long sleep_ms;               /* each depth takes at least this long */
} fake;

static int fake_search(void *state, kalah_board b, int depth,
                       double deadline, kalah_result *r)
{
    (void)b;
    fake *f = state;
    f->depths[f->calls] = depth;
    f->deadlines[f->calls++] = deadline;
    if (f->sleep_ms) {
        struct timespec ts = {0, f->sleep_ms * 1000000L};
        nanosleep(&ts, NULL);
    }
    if (f->fail_at > 0 && depth == f->fail_at)
        return app_fail(APP_ERR_NO_MEMORY, "fake failure at %d", depth);
    if (f->stop_at > 0 && depth == f->stop_at)
        return KALAH_STOPPED;
    *r = (kalah_result){depth % KALAH_PITS, 10 * depth, depth, 100u * depth};
    return 0;
}

/* kalah_deepen from the opening with the fake search f. */
static int deepen(fake *f, double seconds, int max_depth, int can_stop,
                  kalah_result *r)
{
    return kalah_deepen("t", kalah_start(KALAH_BOTTOM), seconds, max_depth,
                        can_stop, fake_search, f, r);
}

START_TEST(every_depth_to_the_maximum_with_a_deadline_from_depth_2)
{
    fake f = {0};
    kalah_result r;
    ck_assert_app(deepen(&f, 100, 5, 1, &r));
    ck_assert_int_eq(f.calls, 5);
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(f.depths[i], i + 1);
    ck_assert(f.deadlines[0] == 0);
    ck_assert(f.deadlines[1] > 0 && f.deadlines[4] == f.deadlines[1]);
    ck_assert_int_eq(r.depth, 5);
    ck_assert_int_eq(r.score, 50);
    ck_assert_uint_eq(r.nodes, 500);

    /* A search that cannot stop is never given a deadline. */
    f = (fake){0};
    ck_assert_app(deepen(&f, 100, 4, 0, &r));
    ck_assert_int_eq(f.calls, 4);
    for (int i = 0; i < 4; i++)
        ck_assert(f.deadlines[i] == 0);
    ck_assert_int_eq(r.depth, 4);
}
END_TEST

START_TEST(a_depth_that_stops_or_fails_leaves_the_last_finished_one)
{
    fake f = {.stop_at = 3};
    kalah_result r;
    ck_assert_app(deepen(&f, 100, 9, 1, &r));
    ck_assert_int_eq(f.calls, 3);
    ck_assert_int_eq(r.depth, 2);
    ck_assert_int_eq(r.score, 20);

    f = (fake){.fail_at = 2};
    ck_assert_app_fails(deepen(&f, 100, 9, 1, &r), APP_ERR_NO_MEMORY,
                        "fake failure at 2");
    ck_assert_int_eq(r.depth, 1);
}
END_TEST

/* Depth 1 always runs; a search that cannot stop starts depth 2 only if
 * its expected time (depth 1's times 6, the first guess of the growth)
 * fits: after 30 ms, 180 more do not fit in 150 (nor if it was slower). */
START_TEST(a_search_that_cannot_stop_starts_only_what_fits)
{
    fake f = {.sleep_ms = 30};
    kalah_result r;
    ck_assert_app(deepen(&f, 0.15, 9, 0, &r));
    ck_assert_int_eq(f.calls, 1);
    ck_assert_int_eq(r.depth, 1);
    /* One that can stop goes on while time is left: depth 2 is asked for,
     * and it is over its deadline when it ends. */
    f = (fake){.sleep_ms = 30};
    ck_assert_app(deepen(&f, 0.05, 9, 1, &r));
    ck_assert_int_eq(f.calls, 2);
    ck_assert_int_eq(r.depth, 2);
}
END_TEST

START_TEST(a_finished_game_or_depth_0_is_one_search)
{
    fake f = {0};
    kalah_result r;
    ck_assert_app(deepen(&f, 1, 0, 1, &r));
    ck_assert_int_eq(f.calls, 1);
    ck_assert_int_eq(f.depths[0], 0);
    kalah_board over = {{0}, KALAH_TOP, 0};
    over.cells[KALAH_TOP_STORE] = 24;
    over.cells[KALAH_BOTTOM_STORE] = 24;
    f = (fake){0};
    ck_assert_app(kalah_deepen("t", over, 1, 7, 1, fake_search, &f, &r));
    ck_assert_int_eq(f.calls, 1);
    ck_assert_int_eq(f.depths[0], 7);
}
END_TEST

START_TEST(bad_arguments_and_the_time_check)
{
    fake f = {0};
    kalah_result r;
    ck_assert_app_fails(deepen(&f, 0, 3, 1, &r), APP_ERR_USAGE,
                        "t: 0 seconds");
    ck_assert_app_fails(deepen(&f, KALAH_MAX_SECONDS + 1, 3, 1, &r),
                        APP_ERR_USAGE, "at most 3600");
    ck_assert_app_fails(deepen(&f, 1, KALAH_MAX_DEPTH + 1, 1, &r),
                        APP_ERR_USAGE, "0 to 40");
    ck_assert_app_fails(deepen(&f, 1, 3, 1, NULL), APP_ERR_USAGE,
                        "t: depth 3");
    ck_assert_int_eq(f.calls, 0);
    ck_assert_int_eq(kalah_past(0), 0);
    ck_assert_int_eq(kalah_past(1e-9), 1);
    ck_assert_int_eq(kalah_past(1e300), 0);
}
END_TEST

Suite *deepen_suite(void)
{
    Suite *s = suite_create("kalah_deepen");
    TCase *tc = test_case("deepen");
    tcase_add_test(tc, every_depth_to_the_maximum_with_a_deadline_from_depth_2);
    tcase_add_test(tc,
                   a_depth_that_stops_or_fails_leaves_the_last_finished_one);
    tcase_add_test(tc, a_search_that_cannot_stop_starts_only_what_fits);
    tcase_add_test(tc, a_finished_game_or_depth_0_is_one_search);
    tcase_add_test(tc, bad_arguments_and_the_time_check);
    suite_add_tcase(s, tc);
    return s;
}
