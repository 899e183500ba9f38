/*
 * test_mwc64x.c: the MWC64X generator of clframe/kernels/lib/mwc64x.h, one source
 * for host and device. On the host, against arithmetic written out again
 * here with 128-bit integers: a step is the multiply-with-carry, z = A x +
 * c is multiplied by A mod M at each step, a skip of d steps equals d steps
 * (small d) and the 128-bit power (large d), skips compose, streams are
 * the gap apart and distinct, and the draws look uniform. On the device,
 * through generated shims and a kernel that draws whole sequences: every
 * state and draw equal to the host's, bit for bit, for several seeds and
 * streams.
 */
#include "support.h"
#include "lib/mwc64x.h"

#include <stdlib.h>

/* The sizes per run (support.h). */
enum { MAX_STREAMS = 64 };
static const struct {
    int shim_cases;         /* seeds through each generated shim */
    int streams;            /* streams drawn by one launch */
} run_sizes[] = {
    [TEST_FULL]    = {12, MAX_STREAMS},
    [TEST_CHECKED] = {3, 4},
};

typedef unsigned __int128 u128;

static const uint64_t M = 18446383549859758079ull;      /* A 2^32 - 1 */

static uint64_t z_of(mwc64x_state s)
{
    return (uint64_t)(((u128)MWC64X_A * s.x + s.c) % M);
}

static uint64_t pow_mod(uint64_t base, uint64_t e)
{
    u128 power = 1, square = base % M;
    for (; e; e >>= 1) {
        if (e & 1)
            power = power * square % M;
        square = square * square % M;
    }
    return (uint64_t)power;
}

static int same(mwc64x_state a, mwc64x_state b)
{
    return a.x == b.x && a.c == b.c;
}

/* A few states to start from: streams of several seeds. */
static mwc64x_state start(int i)
{
    static const uint64_t seeds[] = {0, 1, 42, 0xffffffffffffffffull,
                                     12345678901234567ull};
    return mwc64x_stream(seeds[i % 5], (uint64_t)(i / 5) * 977);
}

START_TEST(a_step_is_the_multiply_with_carry_and_multiplies_z_by_a)
{
    /* The first draws from (x, c) = (12345, 67890), worked out by an
     * independent implementation of the recurrence (Python integers). */
    static const uint32_t known[] = {80139u, 3258787597u, 4102661284u,
                                     2260266748u, 3935175101u};
    mwc64x_state k = {12345u, 67890u};
    for (int n = 0; n < 5; n++) {
        ck_assert_uint_eq(mwc64x_draw(k), known[n]);
        k = mwc64x_step(k);
    }

    for (int i = 0; i < 20; i++) {
        mwc64x_state s = start(i);
        for (int n = 0; n < 1000; n++) {
            uint64_t t = (uint64_t)MWC64X_A * s.x + s.c;
            mwc64x_state next = mwc64x_step(s);
            ck_assert_quietly(next.x == (uint32_t)t &&
                                  next.c == (uint32_t)(t >> 32) &&
                                  mwc64x_draw(s) == (s.x ^ s.c) &&
                                  z_of(next) == (uint64_t)((u128)z_of(s) *
                                                           MWC64X_A % M),
                              "start %d, step %d: (%u, %u) after (%u, %u)",
                              i, n, next.x, next.c, s.x, s.c);
            s = next;
        }
    }
}
END_TEST

START_TEST(skips_equal_steps_and_the_power_of_a)
{
    for (int i = 0; i < 10; i++) {
        mwc64x_state s = start(i), stepped = s;
        for (uint64_t d = 0; d <= 300; d++) {
            ck_assert_quietly(same(mwc64x_skip(s, d), stepped),
                              "start %d, %llu steps", i,
                              (unsigned long long)d);
            stepped = mwc64x_step(stepped);
        }
        static const uint64_t far[] = {1ull << 40, 1ull << 63,
                                       0xffffffffffffffffull,
                                       123456789012345ull};
        for (int f = 0; f < 4; f++) {
            mwc64x_state t = mwc64x_skip(s, far[f]);
            uint64_t z = (uint64_t)((u128)z_of(s) * pow_mod(MWC64X_A, far[f])
                                    % M);
            ck_assert_uint_eq(z_of(t), z);
            ck_assert_uint_eq(t.x, z / MWC64X_A);
            ck_assert_uint_eq(t.c, z % MWC64X_A);
            /* Skips compose. */
            ck_assert(same(mwc64x_skip(mwc64x_skip(s, far[f] / 3), far[f] -
                                                                  far[f] / 3),
                           t));
        }
    }
}
END_TEST

START_TEST(streams_are_the_gap_apart_distinct_and_uniform)
{
    enum { STREAMS = 2000, DRAWS = 200000, BINS = 16 };
    static uint64_t starts[STREAMS];
    uint64_t gap = mwc64x_power(MWC64X_STREAM_GAP);
    for (int k = 0; k < STREAMS; k++) {
        mwc64x_state s = mwc64x_stream(7, (uint64_t)k);
        starts[k] = z_of(s);
        ck_assert_uint_ne(starts[k], 0);
        if (k > 0) {
            mwc64x_state before = mwc64x_stream(7, (uint64_t)k - 1);
            ck_assert(same(s, mwc64x_skip(before, MWC64X_STREAM_GAP)));
            ck_assert(same(s, mwc64x_jump(before, gap)));  /* the same */
        }
        for (int j = 0; j < k; j++)
            ck_assert_quietly(starts[j] != starts[k], "streams %d and %d "
                              "start alike", j, k);
    }
    ck_assert(!same(mwc64x_stream(7, 0), mwc64x_stream(8, 0)));
    /* The draws' top 4 bits over 16 bins: chi-square with 15 degrees of
     * freedom is below 40 but with probability 1 - 5e-4. */
    long bins[BINS] = {0};
    mwc64x_state s = mwc64x_stream(2026, 3);
    for (int n = 0; n < DRAWS; n++) {
        bins[mwc64x_draw(s) >> 28]++;
        s = mwc64x_step(s);
    }
    double chi2 = 0, expect = (double)DRAWS / BINS;
    for (int b = 0; b < BINS; b++)
        chi2 += (bins[b] - expect) * (bins[b] - expect) / expect;
    ck_assert_msg(chi2 < 40, "chi-square %.1f", chi2);
}
END_TEST

/* The generated shims of the header's functions, against the host. */
START_TEST(device_functions_match_the_host)
{
    clctx *ctx = test_run_context();
    clfunction *stream = clfunction_file(ctx, "lib/mwc64x.h",
                                         "mwc64x_stream", NULL);
    clfunction *step = clfunction_file(ctx, "lib/mwc64x.h",
                                       "mwc64x_step", NULL);
    clfunction *skip = clfunction_file(ctx, "lib/mwc64x.h",
                                       "mwc64x_skip", NULL);
    ck_assert_made(stream);
    ck_assert_made(step);
    ck_assert_made(skip);
    for (int i = 0; i < RUN_SIZE(shim_cases); i++) {
        cl_ulong seed = (cl_ulong)i * 0x9e3779b97f4a7c15ull, k = (cl_ulong)i;
        mwc64x_state got, want = mwc64x_stream(seed, k);
        ck_assert_cl(clfunction_call(stream, &got, CLARG(seed), CLARG(k)));
        ck_assert(same(got, want));
        ck_assert_cl(clfunction_call(step, &got,
                                     CLARG_VALUE("mwc64x_state", &want)));
        ck_assert(same(got, mwc64x_step(want)));
        cl_ulong d = (cl_ulong)1 << (i * 5 % 64);
        ck_assert_cl(clfunction_call(skip, &got,
                                     CLARG_VALUE("mwc64x_state", &want),
                                     CLARG(d)));
        ck_assert(same(got, mwc64x_skip(want, d)));
    }
    clfunction_free(stream);
    clfunction_free(step);
    clfunction_free(skip);
    clctx_free(ctx);
}
END_TEST

/* Whole sequences: a work-item per stream draws `count` numbers. */
START_TEST(device_streams_draw_the_hosts_numbers)
{
    enum { COUNT = 100 };
    static cl_uint out[MAX_STREAMS * COUNT];
    const char *src =
        "#include \"lib/mwc64x.h\"\n"
        "__kernel void draws(__global uint *out, ulong seed, int count) {\n"
        "    int k = get_global_id(0);\n"
        "    mwc64x_state s = mwc64x_stream(seed, k);\n"
        "    for (int n = 0; n < count; n++) {\n"
        "        out[k * count + n] = mwc64x_draw(s);\n"
        "        s = mwc64x_step(s);\n"
        "    }\n"
        "}\n";
    clctx *ctx = test_run_context();
    clkernel *k = clkernel_source(ctx, src, "draws", NULL);
    ck_assert_made(k);
    int streams = RUN_SIZE(streams);
    static const cl_ulong seeds[] = {1, 99, 0xfedcba9876543210ull};
    for (int i = 0; i < 3; i++) {
        ck_assert_cl(clkernel_global(k, (size_t)streams));
        ck_assert_cl(clkernel_call(k, CLARG_OUT(out, streams * COUNT),
                                   CLARG(seeds[i]), CLARG((cl_int)COUNT)));
        for (int s = 0; s < streams; s++) {
            mwc64x_state state = mwc64x_stream(seeds[i], (uint64_t)s);
            for (int n = 0; n < COUNT; n++) {
                ck_assert_msg(out[s * COUNT + n] == mwc64x_draw(state),
                              "seed %d stream %d draw %d", i, s, n);
                state = mwc64x_step(state);
            }
        }
    }
    clkernel_free(k);
    clctx_free(ctx);
}
END_TEST

Suite *mwc64x_suite(void)
{
    Suite *s = suite_create("mwc64x");
    TCase *host = test_case("host");
    tcase_add_test(host, a_step_is_the_multiply_with_carry_and_multiplies_z_by_a);
    tcase_add_test(host, skips_equal_steps_and_the_power_of_a);
    tcase_add_test(host, streams_are_the_gap_apart_distinct_and_uniform);
    suite_add_tcase(s, host);
    TCase *device = test_case("device");
    tcase_add_test(device, device_functions_match_the_host);
    tcase_add_test(device, device_streams_draw_the_hosts_numbers);
    suite_add_tcase(s, device);
    return s;
}
