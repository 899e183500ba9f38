/*
 * timing.c: a run's timing (apps/common/timing.h): launches counted with
 * and without kernel time, kernel time only when wanted and then every
 * launch's, several kernels added up, a NULL kernel ignored.
 */
#include "testing.h"

#include "common/timing.h"

static clkernel *counter_kernel(void)
{
    clkernel *k = test_kernel("__kernel void count(__global int *x)"
                              " { x[get_global_id(0)] += 1; }", "count");
    ck_assert_cl(clkernel_global(k, 16));
    return k;
}

/* n launches of k on x, enqueued without waiting. */
static void launch(clkernel *k, clarg x, int n)
{
    for (int i = 0; i < n; i++)
        ck_assert_cl(clkernel_enqueue(k, x));
}

START_TEST(launches_are_counted_without_kernel_time)
{
    int x[16] = {0};
    clarg p = CLARG_INOUT(x, 16);
    ck_assert_cl(clarg_keep_on_device(&p, NULL, 1));
    app_timing t = {0};
    clkernel *k = counter_kernel();
    app_timing_watch(&t, k);
    launch(k, p, 3);
    app_timing_add(&t, k);
    ck_assert_uint_eq(t.launches, 3);
    ck_assert(t.kernel_ms == 0);
    ck_assert(clkernel_last_ms(k) == -1);           /* never timed */
    ck_assert_cl(clarg_read(&p));
    ck_assert_int_eq(x[15], 3);
    clkernel_free(k);
    clarg_release(&p);
}
END_TEST

START_TEST(kernel_time_of_every_launch_when_wanted)
{
    int x[16] = {0};
    clarg p = CLARG_INOUT(x, 16);
    ck_assert_cl(clarg_keep_on_device(&p, NULL, 1));
    app_timing t = {.want_kernel_time = 1};
    clkernel *a = counter_kernel(), *b = counter_kernel();
    app_timing_watch(&t, a);
    app_timing_watch(&t, b);
    launch(a, p, 4);
    launch(b, p, 2);
    app_timing_add(&t, a);
    app_timing_add(&t, b);
    app_timing_add(&t, NULL);                       /* a build that failed */
    ck_assert_uint_eq(t.launches, 6);
    ck_assert_double_eq_tol(t.kernel_ms,
                            clkernel_total_ms(a) + clkernel_total_ms(b),
                            1e-12);
    ck_assert(t.kernel_ms > 0 && t.kernel_ms >= clkernel_last_ms(a));
    ck_assert_cl(clarg_read(&p));
    ck_assert_int_eq(x[15], 6);
    clkernel_free(a);
    clkernel_free(b);
    clarg_release(&p);
}
END_TEST

Suite *timing_suite(void)
{
    Suite *s = suite_create("app timing");
    TCase *tc = test_case("timing");
    tcase_add_test(tc, launches_are_counted_without_kernel_time);
    tcase_add_test(tc, kernel_time_of_every_launch_when_wanted);
    suite_add_tcase(s, tc);
    return s;
}
