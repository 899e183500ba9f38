/*
 * societies_phase1.c: the C reference of phase 1 (resource
 * extraction, apps/societies/phase1.c). Time accounting within a day (the
 * efforts of the units extracted add up to the minutes used, which end
 * between the day's length and one extraction more); one resource worked
 * out by hand; the idle penalty, not below 0, and the clamp to the maximum
 * experience; only candidates are extracted; the choice between equal
 * resources is even; the same seed gives the same society, another seed
 * another, and the OpenMP version the same one.
 */
#include "common/tests/testing.h"
#include "societies/societies.h"

#include <string.h>

static societies_config small(int resources)
{
    societies_config c;
    societies_config_default(&c);
    c.agents = 50;
    c.resources = resources;
    c.menu_size = 1;
    return c;
}

START_TEST(the_days_minutes_are_the_efforts_of_its_units)
{
    uint32_t seed = 5;
    for (int t = 0; t < 40; t++) {
        societies_config c = small(1 + (int)(test_random(&seed) % 40));
        c.minutes_per_day = 50 + (int)(test_random(&seed) % 500);
        c.epsilon = (float)(test_random(&seed) % 50) / 100.0f;
        CLF_INT units[64] = {0}, experience[64] = {0}, before[64];
        mwc64x_state rng = mwc64x_stream((uint64_t)t, 0);
        for (int day = 0; day < 3; day++) {
            memcpy(before, experience, sizeof before);
            /* Replay the day: each unit's effort at the experience it was
             * extracted with. */
            CLF_INT u0[64];
            memcpy(u0, units, sizeof u0);
            societies_day day;
            int made = societies_phase1_agent(&c, units, experience, &rng,
                                              &day);
            float minutes = day.minutes;
            ck_assert_int_gt(made, 0);
            int total = 0;
            double efforts = 0;
            for (int r = 0; r < c.resources; r++) {
                int got = units[r] - u0[r];
                total += got;
                for (int k = 0; k < got; k++)
                    efforts += societies_effort(c.min_effort, c.max_effort,
                                                c.max_experience,
                                                before[r] + k);
            }
            ck_assert_int_eq(total, made);
            ck_assert_msg(minutes >= (float)c.minutes_per_day &&
                          minutes < (float)c.minutes_per_day + c.max_effort,
                          "%.3f minutes in a day of %d", (double)minutes,
                          c.minutes_per_day);
            ck_assert_msg(efforts > minutes - 0.01 && efforts < minutes + 0.01,
                          "efforts %.4f, minutes %.4f", efforts,
                          (double)minutes);
        }
    }
}
END_TEST

/* One resource: every unit is its, each costing effort(experience). */
START_TEST(one_resource_worked_out_by_hand)
{
    societies_config c = small(1);
    c.minutes_per_day = 30;
    c.idle_penalty = 3;
    CLF_INT units = 0, experience = 0;
    mwc64x_state rng = mwc64x_stream(1, 0);
    int made = societies_phase1_agent(&c, &units, &experience, &rng, NULL);
    /* effort(0) = 9.984, effort(1) = 9.972, effort(2) = 9.954 (Python):
     * three units take 29.91 minutes, the fourth starts before 30 and
     * finishes. */
    ck_assert_int_eq(made, 4);
    ck_assert_int_eq(units, 4);
    ck_assert_int_eq(experience, 4);
}
END_TEST

START_TEST(idle_resources_lose_experience_and_experience_is_clamped)
{
    societies_config c = small(2);
    c.minutes_per_day = 100;
    c.epsilon = 0;
    c.utility_level[0] = 100.0f;            /* always the better */
    c.utility_level[1] = 0.001f;
    c.idle_penalty = 2;
    c.max_experience = 5;
    CLF_INT units[2] = {0, 0}, experience[2] = {0, 3};
    mwc64x_state rng = mwc64x_stream(2, 0);
    int made = societies_phase1_agent(&c, units, experience, &rng, NULL);
    ck_assert_int_eq(units[1], 0);
    ck_assert_int_eq(units[0], made);
    ck_assert_int_gt(made, 5);
    ck_assert_int_eq(experience[0], 5);     /* clamped */
    ck_assert_int_eq(experience[1], 1);     /* 3 - 2 */
    societies_phase1_agent(&c, units, experience, &rng, NULL);
    ck_assert_int_eq(experience[1], 0);     /* not below 0 */
}
END_TEST

/* Two equal resources are both candidates at every step until one gets
 * ahead; with epsilon 0 the first choice of each agent is a coin toss. */
START_TEST(equal_resources_are_chosen_evenly)
{
    societies_config c = small(2);
    c.agents = 4000;
    c.minutes_per_day = 1;                  /* one unit a day */
    c.epsilon = 0;
    societies_agents a;
    ck_assert_app(societies_agents_new(&c, &a));
    ck_assert_int_eq(societies_phase1(&c, &a, 1), 4000);
    int first = 0;
    for (int i = 0; i < a.agents; i++)
        first += a.units[2 * i];
    /* 4000 tosses: 2000 +- 200 is 6.3 standard deviations. */
    ck_assert_msg(first > 1800 && first < 2200, "%d of 4000", first);
    /* The choice is the draw's: resource 0 when r mod 2 is 0. */
    for (int i = 0; i < 100; i++) {
        uint32_t r = mwc64x_draw(mwc64x_stream(c.seed, (uint64_t)i));
        ck_assert_int_eq(a.units[2 * i], r % 2 == 0);
    }
    societies_agents_free(&a);
}
END_TEST

START_TEST(only_candidates_are_extracted)
{
    societies_config c = small(8);
    c.epsilon = 0.2f;
    for (int r = 0; r < 8; r++)
        c.utility_level[r] = 1.0f + 0.5f * (float)r;
    CLF_INT units[8] = {0}, experience[8] = {0};
    mwc64x_state rng = mwc64x_stream(9, 0);
    /* Step by step: a day of one minute is one extraction; the unit went
     * to a resource within epsilon of the best before it. */
    c.minutes_per_day = 1;
    for (int step = 0; step < 300; step++) {
        float gpm[8], best = 0;
        for (int r = 0; r < 8; r++) {
            gpm[r] = societies_gain_per_minute(
                c.utility_level[r], c.utility_root[r], units[r],
                societies_effort(c.min_effort, c.max_effort,
                                 c.max_experience, experience[r]));
            best = gpm[r] > best ? gpm[r] : best;
        }
        CLF_INT before[8];
        memcpy(before, units, sizeof before);
        ck_assert_int_eq(societies_phase1_agent(&c, units, experience, &rng,
                                                NULL), 1);
        for (int r = 0; r < 8; r++)
            if (units[r] != before[r])
                ck_assert_msg(gpm[r] >= (1 - c.epsilon) * best,
                              "step %d: resource %d at %g, best %g", step, r,
                              (double)gpm[r], (double)best);
    }
}
END_TEST

START_TEST(the_same_seed_gives_the_same_society)
{
    societies_config c = small(16);
    societies_agents a, b;
    ck_assert_app(societies_agents_new(&c, &a));
    ck_assert_app(societies_agents_new(&c, &b));
    for (int i = 0; i < c.agents; i += 7)   /* agent i on stream i */
        ck_assert(a.rng[i].x == mwc64x_stream(c.seed, (uint64_t)i).x &&
                  a.rng[i].c == mwc64x_stream(c.seed, (uint64_t)i).c);
    for (int day = 0; day < 3; day++)
        ck_assert_int_eq(societies_phase1(&c, &a, 1),
                         societies_phase1(&c, &b, 0));   /* OpenMP too */
    size_t cells = (size_t)c.agents * 16;
    ck_assert_mem_eq(a.units, b.units, cells * sizeof *a.units);
    ck_assert_mem_eq(a.experience, b.experience, cells * sizeof *a.units);
    societies_agents_free(&b);
    c.seed = 2;
    ck_assert_app(societies_agents_new(&c, &b));
    for (int day = 0; day < 3; day++)
        societies_phase1(&c, &b, 1);
    ck_assert(memcmp(a.units, b.units, cells * sizeof *a.units) != 0);
    societies_agents_free(&a);
    societies_agents_free(&b);
}
END_TEST

Suite *societies_phase1_suite(void)
{
    Suite *s = suite_create("societies_phase1");
    TCase *tc = test_case("reference");
    tcase_add_test(tc, the_days_minutes_are_the_efforts_of_its_units);
    tcase_add_test(tc, one_resource_worked_out_by_hand);
    tcase_add_test(tc,
                   idle_resources_lose_experience_and_experience_is_clamped);
    tcase_add_test(tc, equal_resources_are_chosen_evenly);
    tcase_add_test(tc, only_candidates_are_extracted);
    tcase_add_test(tc, the_same_seed_gives_the_same_society);
    suite_add_tcase(s, tc);
    return s;
}
