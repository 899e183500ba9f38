/*
 * test_group_choose.c: choosing one candidate at random by a work-group
 * (clframe/kernels/lib/group_choose.cl). Through clframe's generated group
 * shims, against its serial twin (lib/group_choose_serial.h: the (r mod
 * count)-th candidate in index order) on random masks of every length 1 to
 * 300 (a third of the edge lengths in a checked run: run_sizes), several
 * work-group sizes, empty and full masks, and draws at the ends of the range; every
 * work-item gets the same answer. Then the statistics: many work-groups,
 * each drawing r from its own MWC64X stream, choose among the same
 * candidates about equally often.
 */
#include "support.h"
#include "lib/mwc64x.h"
#include "lib/group_choose_serial.h"

#include <string.h>

enum { MAX_N = 300, MAX_GROUPS = 20000 };

/* The sizes per run (support.h): under valgrind and Oclgrind each call is
 * a simulated launch, so two group sizes, a third of the edge lengths, two
 * draws and 50 work-groups. */
static const struct {
    test_sweep sweep;
    int length_step;        /* every how manyth length of the sweep */
    int group_sizes;        /* the first how many of the list */
    int draws;              /* the first how many draws of the list */
    int groups;             /* work-groups drawing for the statistics */
} run_sizes[] = {
    [TEST_FULL]    = {TEST_EVERY_LENGTH, 1, 5, 4, MAX_GROUPS},
    [TEST_CHECKED] = {TEST_EDGE_LENGTHS, 3, 2, 2, 50},
};

static const char *lib = "lib/group_choose.cl";

START_TEST(the_choice_is_the_host_twins_on_every_length)
{
    static const size_t groups[] = {7, 100, 1, 64, 256};
    clfunction *f = clfunction_file(NULL, lib, "group_choose", NULL);
    ck_assert_made(f);
    unsigned char mask[MAX_N];
    int scratch[256] = {0}, lengths[MAX_N], all[256];
    int count = test_sweep_lengths(RUN_SIZE(sweep), MAX_N, lengths);
    uint32_t seed = 17;
    for (int g = 0; g < RUN_SIZE(group_sizes); g++) {
        ck_assert_cl(clfunction_group(f, groups[g]));
        ck_assert_cl(clfunction_group_results(f, 1));
        for (int l = 0; l < count; l += RUN_SIZE(length_step)) {
            int n = lengths[l];
            /* Sparse, dense, empty and full masks in turn. */
            int kind = l % 4;
            for (int i = 0; i < n; i++)
                mask[i] = kind == 2 ? 0 : kind == 3 ? 1
                          : test_random(&seed) % (kind ? 2u : 9u) == 0;
            uint32_t draws[] = {0xffffffffu, test_random(&seed), 0, 1};
            for (int d = 0; d < RUN_SIZE(draws); d++) {
                ck_assert_cl(clfunction_call(f, all, CLARG_IN(mask, n),
                                             CLARG(n), CLARG(draws[d]),
                                             CLARG_IN(scratch, groups[g])));
                int want = group_choose_serial(mask, n, draws[d]);
                for (size_t i = 0; i < groups[g]; i++)
                    ck_assert_msg(all[i] == want, "n=%d group=%zu r=%u item "
                                  "%zu: %d, want %d", n, groups[g], draws[d],
                                  i, all[i], want);
            }
        }
    }
    clfunction_free(f);
}
END_TEST

/* Work-group g draws r from stream g and chooses among the same
 * candidates; how often each is chosen. */
START_TEST(draws_from_mwc64x_choose_every_candidate_about_equally)
{
    enum { N = 64, CANDIDATES = 10 };
    const char *src =
        "#include \"lib/group_choose.cl\"\n"
        "#include \"lib/mwc64x.h\"\n"
        "__kernel void choose(__global const uchar *mask, int n,\n"
        "                     __global int *chosen, ulong seed) {\n"
        "    __local uchar m[64];\n"
        "    __local int scratch[64];\n"
        "    __local uint r;\n"
        "    int lid = get_local_id(0);\n"
        "    m[lid] = mask[lid];\n"
        "    if (lid == 0)\n"
        "        r = mwc64x_draw(mwc64x_stream(seed, get_group_id(0)));\n"
        "    barrier(CLK_LOCAL_MEM_FENCE);\n"
        "    int c = group_choose(m, n, r, scratch);\n"
        "    if (lid == 0)\n"
        "        chosen[get_group_id(0)] = c;\n"
        "}\n";
    clctx *ctx = test_run_context();
    clkernel *k = clkernel_source(ctx, src, "choose", NULL);
    ck_assert_made(k);
    unsigned char mask[N] = {0};
    static const int where[CANDIDATES] = {0, 3, 4, 17, 30, 31, 32, 50, 62, 63};
    for (int i = 0; i < CANDIDATES; i++)
        mask[where[i]] = 1;
    int groups = RUN_SIZE(groups);
    static int chosen[MAX_GROUPS];
    ck_assert_cl(clkernel_global(k, (size_t)groups * N));
    ck_assert_cl(clkernel_local(k, N));
    ck_assert_cl(clkernel_call(k, CLARG_IN(mask, N), CLARG((cl_int)N),
                               CLARG_OUT(chosen, groups),
                               CLARG((cl_ulong)2026)));
    long times[N] = {0};
    for (int g = 0; g < groups; g++) {
        ck_assert_int_ge(chosen[g], 0);
        ck_assert_msg(mask[chosen[g]], "group %d chose %d", g, chosen[g]);
        /* The serial twin with the same draw chose the same. */
        ck_assert_int_eq(chosen[g],
                         group_choose_serial(mask, N, mwc64x_draw(mwc64x_stream(
                                                  2026, (uint64_t)g))));
        times[chosen[g]]++;
    }
    /* Chi-square, 9 degrees of freedom: below 30 but with probability
     * 1 - 4e-4. */
    double expect = (double)groups / CANDIDATES, chi2 = 0;
    for (int i = 0; i < CANDIDATES; i++)
        chi2 += (times[where[i]] - expect) * (times[where[i]] - expect) /
                expect;
    ck_assert_msg(chi2 < 30, "chi-square %.1f", chi2);
    clkernel_free(k);
    clctx_free(ctx);
}
END_TEST

Suite *group_choose_suite(void)
{
    Suite *s = suite_create("group_choose");
    TCase *tc = test_case("choose");
    tcase_add_test(tc, the_choice_is_the_host_twins_on_every_length);
    tcase_add_test(tc, draws_from_mwc64x_choose_every_candidate_about_equally);
    suite_add_tcase(s, tc);
    return s;
}
