/*
 * test_group_minmax.c: the work-group max/min library (lib/group_minmax.cl)
 * through its hand-written shims (tests/kernels/group_minmax_shim.cl),
 * against a plain C reference: every array length from 0 to 256, work-groups
 * of 1, 7, 64, 100 and 256 work-items, arrays with distinct values, ties,
 * NaNs and infinities, masks with none, all, some, only the first or only
 * the last element set, and k from -1 to beyond the number masked in. Every
 * work-item's result is checked, and the shims check on the device that the
 * __local inputs were left as they were.
 *
 * Each work-group of a launch tests its own array, so one launch per length
 * and group size covers every kind of array, mask and k. In a checked run
 * (valgrind, Oclgrind: run_sizes) the lengths are 0 and the sweep's edges,
 * the group sizes up to 100, and a launch holds each kind of array, mask
 * and k once rather than every pairing.
 */
#include "support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SHIM "tests/kernels/group_minmax_shim.cl"
#define MAX_N 256
#define UNSET (-7)                  /* SHIM_UNSET in the shim */

static const int group_sizes[] = {1, 7, 64, 100, 256};
enum { NSIZES = sizeof group_sizes / sizeof group_sizes[0] };

/* The kinds of array, mask and k; work-group g of a launch takes data kind
 * g % NDATA, so a launch of ARG_GROUPS (K_GROUPS) holds every pairing. */
enum { NDATA = 7, NMASKS = 5, NK = 9 };
enum { ARG_GROUPS = NDATA * NMASKS, K_GROUPS = NMASKS * NK, KMAX = MAX_N + 2 };

/* The sizes per run (support.h). In a checked run the group sizes stop at
 * 100: a group of 256 runs the same code as the group of 100 (a tree over
 * min(n, size) entries, one element per work-item below its size, idle
 * work-items above) but launches 256 of the 428 work-items that each
 * length's five sizes make. A launch holds each kind once, not every
 * pairing. On Oclgrind, k lists of 255 and 256 elements, or forced rounds
 * for large k, are too slow: the k lists there stop at 65, one past the
 * group of 64 (lengths below, at, past and several times a group's size
 * all come up with groups of 7 and 64; the argmax tests take the group of
 * 100 past its size, through the same reduction; on Oclgrind, one thread,
 * the lengths 99 to 101 were most of that test's time), and with a method
 * forced at 33. */
static const struct {
    test_sweep sweep;
    int max_group;          /* the largest work-group size tested */
    int arg_groups;         /* work-groups of a masked argmax launch */
    int k_groups;           /* work-groups of a k lists' launch */
    int k_max_n;            /* the longest array of the k lists */
    int forced_k_max_n;     /* the same with one method forced */
} run_sizes[] = {
    [TEST_FULL]    = {TEST_EVERY_LENGTH, 256, ARG_GROUPS, K_GROUPS, MAX_N,
                      MAX_N},
    [TEST_CHECKED] = {TEST_EDGE_LENGTHS, 100, NDATA, NK, 65, 33},
};

/* The lengths tested: 0, then the sweep's up to max. Returns how many. */
static int test_lengths(int max, int lengths[MAX_N + 1])
{
    lengths[0] = 0;
    return 1 + test_sweep_lengths(RUN_SIZE(sweep), max, lengths + 1);
}

static int group_size_tested(int size)
{
    return size <= RUN_SIZE(max_group);
}

/* ---- deterministic data ------------------------------------------------- */

static const char *data_names[NDATA] = {
    "distinct", "ties", "all equal", "specials", "all NaN", "ascending",
    "descending with repeats"};
static const char *mask_names[NMASKS] = {
    "none set", "all set", "some set", "only the first", "only the last"};

/* Array number `kind` of length n, with a seed of its own. */
static void fill_data(float *a, int n, int kind, unsigned seed)
{
    static const float specials[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f,
                                     1.0f, -1.0f, 1.0f};
    uint32_t s = seed * 7919u + (unsigned)kind;
    for (int i = 0; i < n; i++) {
        unsigned r = test_random(&s);
        switch (kind) {
        case 0: a[i] = (float)(r % 2000000u) / 1000.0f - 1000.0f; break;
        case 1: a[i] = (float)(r % 4u); break;
        case 2: a[i] = 5.0f; break;
        case 3: a[i] = specials[r % 8u]; break;
        case 4: a[i] = NAN; break;
        case 5: a[i] = (float)i; break;
        default: a[i] = (float)((n - i) / 3); break;
        }
    }
}

/* Mask number `kind`; set entries are any non-zero byte, not only 1. */
static void fill_mask(cl_uchar *m, int n, int kind, unsigned seed)
{
    uint32_t s = seed * 104729u + (unsigned)kind;
    for (int i = 0; i < n; i++) {
        unsigned r = test_random(&s);
        int set = kind == 1 || (kind == 2 && r % 10u < 3u) ||
                  (kind == 3 && i == 0) || (kind == 4 && i == n - 1);
        m[i] = set ? (cl_uchar)(1u + (r >> 4) % 255u) : 0;
    }
}

/* ---- the C reference: a stable sort ------------------------------------- */

/* Sorting key of one element: NaNs last, then by value (negated for the
 * largest first; -0.0 and 0.0 compare equal), then by index. */
typedef struct ref_key {
    int nan;
    float value;
    int index;
} ref_key;

static int ref_compare(const void *pa, const void *pb)
{
    const ref_key *a = pa, *b = pb;
    if (a->nan != b->nan)
        return a->nan - b->nan;
    if (!a->nan && a->value != b->value)
        return a->value < b->value ? -1 : 1;
    return a->index - b->index;
}

/* The masked-in indices of a[0..n-1] (all when mask is NULL), largest or
 * smallest first, into order[]; returns how many. */
static int ref_order(const float *a, const cl_uchar *mask, int n, int largest,
                     int *order)
{
    ref_key keys[MAX_N];
    int c = 0;
    for (int i = 0; i < n; i++)
        if (!mask || mask[i])
            keys[c++] = (ref_key){isnan(a[i]) != 0, largest ? -a[i] : a[i], i};
    qsort(keys, (size_t)c, sizeof keys[0], ref_compare);
    for (int j = 0; j < c; j++)
        order[j] = keys[j].index;
    return c;
}

/* The first of that order, or -1. */
static int ref_first(const float *a, const cl_uchar *mask, int n, int largest)
{
    int order[MAX_N];
    return ref_order(a, mask, n, largest, order) > 0 ? order[0] : -1;
}

/* ---- a small case by hand ----------------------------------------------- */

enum { HAND_L = 3 };                /* work-items in the group */

/* One of the one-array shims in a group of HAND_L: argmax or argmin (mask
 * NULL) into result[], or a k list (mask set) into list[0..k], whose entry
 * k shows whether the function wrote beyond k. Adds to *changed. */
static void call_hand_shim(clkernel *shim, float *a, cl_uchar *mask, int n,
                           int k, int *result, int *list, int *changed)
{
    ck_assert_cl(clkernel_global(shim, HAND_L));
    ck_assert_cl(clkernel_local(shim, HAND_L));
    clarg scratch = CLARG_LOCAL(HAND_L * sizeof(int));
    clarg local_a = CLARG_LOCAL((size_t)n * sizeof(float));
    if (!mask)
        ck_assert_cl(clkernel_call(shim, CLARG_IN(a, n), CLARG(n),
                                   CLARG_OUT(result, HAND_L),
                                   CLARG_INOUT(changed, 1), local_a, scratch));
    else
        ck_assert_cl(clkernel_call(
            shim, CLARG_IN(a, n), CLARG_IN(mask, n), CLARG(n), CLARG_IN(&k, 1),
            CLARG(k + 1), CLARG_OUT(result, HAND_L), CLARG_OUT(list, k + 1),
            CLARG_INOUT(changed, 1), local_a, CLARG_LOCAL((size_t)n),
            CLARG_LOCAL((size_t)(k + 1) * sizeof(int)), scratch));
}

START_TEST(a_small_example_by_hand)
{
    float a[] = {3, 9, 1, 9, 1, NAN, -2, 9};
    cl_uchar mask[] = {1, 0, 1, 1, 1, 1, 0, 1};
    enum { N = sizeof a / sizeof a[0] };
    int result[HAND_L], list[9], changed = 0;
    clkernel *argmax = clkernel_file(NULL, SHIM, "shim_group_argmax", NULL);
    clkernel *argmin = clkernel_file(NULL, SHIM, "shim_group_argmin", NULL);
    clkernel *largest = clkernel_file(NULL, SHIM, "shim_group_largest_k", NULL);
    clkernel *smallest =
        clkernel_file(NULL, SHIM, "shim_group_smallest_k", NULL);
    ck_assert_made(argmax);
    ck_assert_made(argmin);
    ck_assert_made(largest);
    ck_assert_made(smallest);

    call_hand_shim(argmax, a, NULL, N, 0, result, NULL, &changed);
    ck_assert_int_eq(result[0], 1);        /* the first 9 */
    call_hand_shim(argmin, a, NULL, N, 0, result, NULL, &changed);
    ck_assert_int_eq(result[2], 6);        /* -2 */

    /* Masked in: 3@0 1@2 9@3 1@4 NaN@5 9@7. The six largest, then the four
     * smallest, then eight of six: the last two are -1. */
    call_hand_shim(largest, a, mask, N, 6, result, list, &changed);
    ck_assert_int_eq(result[1], 6);
    ck_assert_mem_eq(list, ((int[]){3, 7, 0, 2, 4, 5, UNSET}), 7 * sizeof(int));
    call_hand_shim(smallest, a, mask, N, 4, result, list, &changed);
    ck_assert_int_eq(result[2], 4);
    ck_assert_mem_eq(list, ((int[]){2, 4, 0, 3, UNSET}), 5 * sizeof(int));
    call_hand_shim(smallest, a, mask, N, 8, result, list, &changed);
    ck_assert_int_eq(result[0], 6);
    ck_assert_mem_eq(list, ((int[]){2, 4, 0, 3, 7, 5, -1, -1, UNSET}),
                     9 * sizeof(int));
    ck_assert_int_eq(changed, 0);
    clkernel_free(argmax);
    clkernel_free(argmin);
    clkernel_free(largest);
    clkernel_free(smallest);
}
END_TEST

/* ---- argmax and argmin, with and without a mask ------------------------- */

/* The mask kind of work-group g of a launch of `groups`: one that holds
 * every pairing takes per_mask groups of each mask kind in turn; a smaller
 * one (a checked run's, as long as the longest list of kinds) gives group
 * g kind g % count of each list. */
static int mask_of(int g, int per_mask, int groups)
{
    return groups >= per_mask * NMASKS ? g / per_mask : g % NMASKS;
}

/* Work-group g of a launch: data kind g % NDATA, mask kind
 * mask_of(g, NDATA, groups). */

/* Shim `name` (one of the four argmax/argmin shims) on every tested length
 * and group size. Unmasked shims take no mask argument and run NDATA
 * work-groups. */
static void check_arg_shim(const char *name, int masked, int largest)
{
    /* + 1: a buffer of length 0 cannot be made, so n = 0 passes one more. */
    static float a[ARG_GROUPS * MAX_N + 1];
    static cl_uchar mask[ARG_GROUPS * MAX_N + 1];
    static int result[ARG_GROUPS * MAX_N];
    int want[ARG_GROUPS], changed[ARG_GROUPS], lengths[MAX_N + 1];
    int nlengths = test_lengths(MAX_N, lengths);
    int groups = masked ? RUN_SIZE(arg_groups) : NDATA;
    const char *what = name + strlen("shim_");

    clkernel *k = clkernel_file(NULL, SHIM, name, NULL);
    ck_assert_made(k);
    for (int t = 0; t < nlengths; t++) {
        int n = lengths[t];
        for (int g = 0; g < groups; g++) {
            fill_data(a + g * n, n, g % NDATA, (unsigned)n);
            fill_mask(mask + g * n, n, mask_of(g, NDATA, groups), (unsigned)(n + g));
            want[g] = ref_first(a + g * n, masked ? mask + g * n : NULL, n,
                                largest);
        }
        size_t len = (size_t)(groups * n + 1);
        for (int s = 0; s < NSIZES; s++) {
            int size = group_sizes[s];
            if (!group_size_tested(size))
                continue;
            ck_assert_cl(clkernel_global(k, (size_t)(groups * size)));
            ck_assert_cl(clkernel_local(k, (size_t)size));
            memset(changed, 0, sizeof changed);
            clarg out = CLARG_OUT(result, (size_t)(groups * size));
            clarg local_a = CLARG_LOCAL((size_t)(n + 1) * sizeof(float));
            clarg scratch = CLARG_LOCAL((size_t)size * sizeof(int));
            if (masked)
                ck_assert_cl(clkernel_call(
                    k, CLARG_IN(a, len), CLARG_IN(mask, len), CLARG(n), out,
                    CLARG_INOUT(changed, ARG_GROUPS), local_a,
                    CLARG_LOCAL((size_t)(n + 1)), scratch));
            else
                ck_assert_cl(clkernel_call(k, CLARG_IN(a, len), CLARG(n), out,
                                           CLARG_INOUT(changed, ARG_GROUPS),
                                           local_a, scratch));

            for (int g = 0; g < groups; g++) {
                const char *data = data_names[g % NDATA];
                const char *m = masked ? mask_names[mask_of(g, NDATA, groups)] : "none";
                ck_assert_quietly(changed[g] == 0, "%s changed %d input "
                                  "elements: n %d, group size %d, data %s, "
                                  "mask %s", what, changed[g], n, size, data,
                                  m);
                for (int l = 0; l < size; l++)
                    ck_assert_quietly(result[g * size + l] == want[g],
                                      "%s = %d at work-item %d, expected %d: "
                                      "n %d, group size %d, data %s, mask %s",
                                      what, result[g * size + l], l, want[g],
                                      n, size, data, m);
            }
        }
    }
    clkernel_free(k);
}

START_TEST(argmax_and_argmin_of_every_length)
{
    check_arg_shim("shim_group_argmax", 0, 1);
    check_arg_shim("shim_group_argmin", 0, 0);
}
END_TEST

START_TEST(masked_argmax_and_argmin_of_every_length)
{
    check_arg_shim("shim_group_argmax_masked", 1, 1);
    check_arg_shim("shim_group_argmin_masked", 1, 0);
}
END_TEST

/* ---- the k largest and smallest ----------------------------------------- */

/* Work-group g of a launch: mask kind mask_of(g, NK, groups), k choice g % NK,
 * data kind g % NDATA (NK and NDATA are coprime, so every pairing comes
 * up); NK groups in a checked run. */

static int k_choice(int choice, int count, int n)
{
    int ks[NK] = {-1, 0, 1, 2, count > 0 ? count - 1 : 0, count, count + 1,
                  n, n + 2};
    return ks[choice];
}

/* Shim `name` on every tested length and group size; options as for
 * clkernel_file (to force one of the library's two methods). */
static void check_k_shim(const char *name, int largest, const char *options,
                         int max_n)
{
    static float a[K_GROUPS * MAX_N + 1];
    static cl_uchar mask[K_GROUPS * MAX_N + 1];
    static int found[K_GROUPS * MAX_N], lists[K_GROUPS * KMAX];
    static int order[K_GROUPS][MAX_N];
    int count[K_GROUPS], ks[K_GROUPS], changed[K_GROUPS], lengths[MAX_N + 1];
    int nlengths = test_lengths(max_n, lengths);
    int groups = RUN_SIZE(k_groups);
    const char *what = name + strlen("shim_");

    clkernel *k = clkernel_file(NULL, SHIM, name, options);
    ck_assert_made(k);
    for (int t = 0; t < nlengths; t++) {
        int n = lengths[t], kmax = n + 2;
        for (int g = 0; g < groups; g++) {
            fill_data(a + g * n, n, g % NDATA, (unsigned)n);
            fill_mask(mask + g * n, n, mask_of(g, NK, groups), (unsigned)(n + g));
            count[g] = ref_order(a + g * n, mask + g * n, n, largest, order[g]);
            ks[g] = k_choice(g % NK, count[g], n);
        }
        size_t len = (size_t)(groups * n + 1);
        for (int s = 0; s < NSIZES; s++) {
            int size = group_sizes[s];
            if (!group_size_tested(size))
                continue;
            ck_assert_cl(clkernel_global(k, (size_t)(groups * size)));
            ck_assert_cl(clkernel_local(k, (size_t)size));
            memset(changed, 0, sizeof changed);
            ck_assert_cl(clkernel_call(
                k, CLARG_IN(a, len), CLARG_IN(mask, len), CLARG(n),
                CLARG_IN(ks, (size_t)groups), CLARG(kmax),
                CLARG_OUT(found, (size_t)(groups * size)),
                CLARG_OUT(lists, (size_t)(groups * kmax)),
                CLARG_INOUT(changed, (size_t)groups),
                CLARG_LOCAL((size_t)(n + 1) * sizeof(float)),
                CLARG_LOCAL((size_t)(n + 1)),
                CLARG_LOCAL((size_t)kmax * sizeof(int)),
                CLARG_LOCAL((size_t)size * sizeof(int))));

            for (int g = 0; g < groups; g++) {
                int kk = ks[g];
                int want = kk < 0 ? 0 : kk < count[g] ? kk : count[g];
#define K_CONTEXT                                                            \
    n, size, kk, data_names[g % NDATA], mask_names[mask_of(g, NK, groups)]
                ck_assert_quietly(changed[g] == 0, "%s changed %d inputs; "
                                  "n %d, group size %d, k %d, data %s, "
                                  "mask %s", what, changed[g], K_CONTEXT);
                for (int l = 0; l < size; l++)
                    ck_assert_quietly(found[g * size + l] == want,
                                      "%s returned %d to work-item %d, "
                                      "expected %d; n %d, group size %d, k %d,"
                                      " data %s, mask %s", what,
                                      found[g * size + l], l, want, K_CONTEXT);
                for (int j = 0; j < kmax; j++) {
                    int w = j < want ? order[g][j] : j < kk ? -1 : UNSET;
                    ck_assert_quietly(lists[g * kmax + j] == w,
                                      "%s: list[%d] = %d, expected %d; n %d, "
                                      "group size %d, k %d, data %s, mask %s",
                                      what, j, lists[g * kmax + j], w,
                                      K_CONTEXT);
                }
#undef K_CONTEXT
            }
        }
    }
    clkernel_free(k);
}

/* The library picks rounds or ranks by cost, so the first test runs both
 * (rounds for small k, ranks for large); the others force one method each,
 * on one of the two orders (both orders differ only in the comparison, which
 * the first test covers). */
START_TEST(smallest_and_largest_k_of_every_length)
{
    check_k_shim("shim_group_largest_k", 1, NULL, RUN_SIZE(k_max_n));
    check_k_shim("shim_group_smallest_k", 0, NULL, RUN_SIZE(k_max_n));
}
END_TEST

START_TEST(largest_k_by_rounds_alone)
{
    check_k_shim("shim_group_largest_k", 1, "-DGROUP_MINMAX_K_METHOD=1",
                 RUN_SIZE(forced_k_max_n));
}
END_TEST

START_TEST(smallest_k_by_ranks_alone)
{
    check_k_shim("shim_group_smallest_k", 0, "-DGROUP_MINMAX_K_METHOD=2",
                 RUN_SIZE(forced_k_max_n));
}
END_TEST

Suite *group_minmax_suite(void)
{
    Suite *s = suite_create("group_minmax");
    TCase *by_hand = test_case("by hand");
    tcase_add_test(by_hand, a_small_example_by_hand);
    suite_add_tcase(s, by_hand);
    TCase *arg = test_case("argmax and argmin");
    tcase_add_test(arg, argmax_and_argmin_of_every_length);
    tcase_add_test(arg, masked_argmax_and_argmin_of_every_length);
    suite_add_tcase(s, arg);
    TCase *k = test_case("k lists");
    tcase_add_test(k, smallest_and_largest_k_of_every_length);
    tcase_add_test(k, largest_k_by_rounds_alone);
    tcase_add_test(k, smallest_k_by_ranks_alone);
    suite_add_tcase(s, k);
    return s;
}
