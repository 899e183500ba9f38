/*
 * test_group_shim.c: the work-group max/min library (lib/group_minmax.cl)
 * called through clframe's GENERATED group shims, against C, on
 * deterministic random arrays of every length from 1 to 256 (every fifth
 * for the k lists) and several work-group sizes (edge lengths only in a
 * checked run: run_sizes). tests/test_group_minmax.c
 * tests the same functions through the hand-written shims in
 * tests/kernels/group_minmax_shim.cl; passing both shows the generated shim
 * does what the hand-written idiom does.
 */
#include "support.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_N = 256 };

/* The sizes per run (support.h): the lengths swept, and every how manyth
 * of them the k lists take. */
static const struct {
    test_sweep sweep;
    int k_length_step;
} run_sizes[] = {
    [TEST_FULL]    = {TEST_EVERY_LENGTH, 5},
    [TEST_CHECKED] = {TEST_EDGE_LENGTHS, 1},
};

static const char *lib = "lib/group_minmax.cl";

/* Values from a small range, so that ties are common. */
static void fill(float *a, unsigned char *mask, int n, uint32_t seed)
{
    for (int i = 0; i < n; i++) {
        a[i] = (float)(test_random(&seed) % 23) - 11.0f;
        mask[i] = (unsigned char)(test_random(&seed) % 3 != 0);
    }
}

/* The first index of the largest (or smallest) masked-in value; -1 if none. */
static int reference_best(const float *a, const unsigned char *mask, int n,
                          int largest)
{
    int best = -1;
    for (int i = 0; i < n; i++)
        if ((!mask || mask[i]) &&
            (best < 0 || (largest ? a[i] > a[best] : a[i] < a[best])))
            best = i;
    return best;
}

/* The k best masked-in indices in order, ties to the lower index. */
static int reference_k(const float *a, const unsigned char *mask, int n, int k,
                       int largest, int *out)
{
    unsigned char taken[MAX_N] = {0};
    int c = 0;
    for (; c < k; c++) {
        int best = -1;
        for (int i = 0; i < n; i++)
            if (mask[i] && !taken[i] &&
                (best < 0 || (largest ? a[i] > a[best] : a[i] < a[best])))
                best = i;
        if (best < 0)
            break;
        taken[best] = 1;
        out[c] = best;
    }
    for (int i = c; i < k; i++)
        out[i] = -1;
    return c;
}

static const size_t group_sizes[] = {1, 7, 64, 100, 256};

START_TEST(argmax_and_argmin_through_generated_group_shims)
{
    clfunction *fmax = clfunction_file(NULL, lib, "group_argmax", NULL);
    clfunction *fmin = clfunction_file(NULL, lib, "group_argmin", NULL);
    ck_assert_made(fmax);
    ck_assert_made(fmin);
    float a[MAX_N];
    unsigned char mask[MAX_N];
    int scratch[MAX_N] = {0};
    int lengths[MAX_N];
    int count = test_sweep_lengths(RUN_SIZE(sweep), MAX_N, lengths);
    for (size_t g = 0; g < sizeof group_sizes / sizeof *group_sizes; g++) {
        ck_assert_cl(clfunction_group(fmax, group_sizes[g]));
        ck_assert_cl(clfunction_group(fmin, group_sizes[g]));
        for (int l = 0; l < count; l++) {
            int n = lengths[l];
            fill(a, mask, n, (unsigned)(n * 31 + (int)g));
            int got = -2;
            ck_assert_cl(clfunction_call(fmax, &got, CLARG_IN(a, n), CLARG(n),
                         CLARG_IN(scratch, group_sizes[g])));
            ck_assert_msg(got == reference_best(a, NULL, n, 1),
                          "argmax n=%d group=%zu: %d", n, group_sizes[g], got);
            ck_assert_cl(clfunction_call(fmin, &got, CLARG_IN(a, n), CLARG(n),
                         CLARG_IN(scratch, group_sizes[g])));
            ck_assert_msg(got == reference_best(a, NULL, n, 0),
                          "argmin n=%d group=%zu: %d", n, group_sizes[g], got);
        }
    }
    clfunction_free(fmax);
    clfunction_free(fmin);
}
END_TEST

START_TEST(every_work_item_gets_the_same_index)
{
    clfunction *f = clfunction_file(NULL, lib, "group_argmax_masked", NULL);
    ck_assert_made(f);
    float a[MAX_N];
    unsigned char mask[MAX_N];
    int scratch[MAX_N] = {0}, all[100];
    ck_assert_cl(clfunction_group(f, 100));
    ck_assert_cl(clfunction_group_results(f, 1));
    for (int n = 1; n <= MAX_N; n += 17) {
        fill(a, mask, n, (unsigned)n);
        ck_assert_cl(clfunction_call(f, all, CLARG_IN(a, n), CLARG_IN(mask, n),
                                     CLARG(n), CLARG_IN(scratch, 100)));
        int want = reference_best(a, mask, n, 1);
        for (int i = 0; i < 100; i++)
            ck_assert_msg(all[i] == want, "n=%d item %d: %d, want %d", n, i,
                          all[i], want);
    }
    clfunction_free(f);
}
END_TEST

/* The lengths of the k lists' test, into out: every k_length_step-th of
 * the sweep (1, 6, ... 256 in a full run). Returns how many. */
static int k_lengths(int out[MAX_N])
{
    int all[MAX_N], count = 0;
    int swept = test_sweep_lengths(RUN_SIZE(sweep), MAX_N, all);
    for (int i = 0; i < swept; i += RUN_SIZE(k_length_step))
        out[count++] = all[i];
    return count;
}

START_TEST(k_largest_and_smallest_through_generated_group_shims)
{
    clfunction *largest = clfunction_file(NULL, lib, "group_largest_k", NULL);
    clfunction *smallest = clfunction_file(NULL, lib, "group_smallest_k", NULL);
    ck_assert_made(largest);
    ck_assert_made(smallest);
    float a[MAX_N];
    unsigned char mask[MAX_N];
    int scratch[MAX_N] = {0};
    ck_assert_cl(clfunction_group(largest, 64));
    ck_assert_cl(clfunction_group(smallest, 7));
    int lengths[MAX_N], count = k_lengths(lengths);
    for (int l = 0; l < count; l++) {
        int n = lengths[l];
        fill(a, mask, n, (unsigned)(n + 1000));
        int ks[] = {1, 3, n / 2 + 1, n + 2};
        for (size_t j = 0; j < sizeof ks / sizeof *ks; j++) {
            int k = ks[j], out[MAX_N + 2], want[MAX_N + 2], got = -2;
            for (int side = 0; side < 2; side++) {
                clfunction *f = side ? largest : smallest;
                memset(out, 0x7f, sizeof out);
                ck_assert_cl(clfunction_call(f, &got, CLARG_IN(a, n),
                             CLARG_IN(mask, n), CLARG(n), CLARG(k),
                             CLARG_INOUT(out, k), CLARG_IN(scratch, 64)));
                int c = reference_k(a, mask, n, k, side, want);
                ck_assert_msg(got == c, "n=%d k=%d side=%d: count %d, want %d",
                              n, k, side, got, c);
                for (int i = 0; i < k; i++)
                    ck_assert_msg(out[i] == want[i], "n=%d k=%d side=%d: "
                                  "out[%d]=%d, want %d", n, k, side, i,
                                  out[i], want[i]);
            }
        }
    }
    clfunction_free(largest);
    clfunction_free(smallest);
}
END_TEST

Suite *group_shim_suite(void)
{
    Suite *s = suite_create("generated group shims");
    TCase *tc = test_case("group_minmax");
    tcase_add_test(tc, argmax_and_argmin_through_generated_group_shims);
    tcase_add_test(tc, every_work_item_gets_the_same_index);
    tcase_add_test(tc, k_largest_and_smallest_through_generated_group_shims);
    suite_add_tcase(s, tc);
    return s;
}
