/*
 * heat_step.c: every heat stepper (OpenMP and the OpenCL versions v3
 * to v7) against the plain C reference, byte for byte: all of them evaluate
 * each cell with the reference's operations in its order, so any difference
 * at all is a bug. Inputs: the standard world at n = 10, 33, 100; random
 * worlds with insulators and fixed cells inside, of sizes that are not
 * multiples of any work-group or tile; steps 0 to 3, across v6's launches of
 * 4 steps, and 50; v7 with blocks far smaller than the world, its halo
 * wider than a block, and launches of 1 to 4 steps. Then the step_world
 * programs: both formats, round trips, and bad arguments and inputs.
 */
#include "common/tests/testing.h"
#include "heat/heat.h"
#include "heat/tests/random_world.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const heat_version versions[] = {
    HEAT_OPENMP, HEAT_V3_NAIVE, HEAT_V4_DOUBLE_BUFFERED, HEAT_V5_PACKED,
    HEAT_V6_TILED, HEAT_V7_BLOCKED};
enum { NVERSIONS = sizeof versions / sizeof versions[0] };

/* The sizes per run (support.h): the first how many of each list below
 * (worlds, step counts, v7's worlds with an inside from the 5th) and the
 * rounds of random divisions. A checked run keeps to worlds of at most
 * 5000 cells and to 5 steps: the buffers end in either role after 1 to 5
 * steps (v4, v5) and after one or two of v6's launches (4 and 5 steps),
 * which is all a longer run does to memory. */
static const struct {
    int standard_worlds, standard_steps;
    int random_worlds, random_steps;
    int first_block_world, block_steps;
    int division_rounds;
} run_sizes[] = {
    [TEST_FULL]    = {3, 5, 12, 8, 0, 7, 400},
    [TEST_CHECKED] = {2, 4, 9, 6, 4, 6, 20},
};

/* heat_step on the context test_run_context gives (a fresh one under
 * Oclgrind); every kernel run here goes through this. */
static int step_checked(heat_world *world, float dt, unsigned steps,
                        heat_version v, app_timing *stats)
{
    clctx *own = test_run_context();
    int rc = heat_step(world, dt, steps, v, own, stats);
    clctx_free(own);
    return rc;
}

/* Steps copies of world with v and with the reference and asserts that the
 * states are the same bytes, naming the first cell that differs. */
static void assert_matches_reference(const heat_world *world, float dt,
                                     unsigned steps, heat_version v,
                                     const char *what)
{
    heat_world want, got;
    ck_assert_app(heat_world_copy(&want, world));
    ck_assert_app(heat_world_copy(&got, world));
    ck_assert_app(heat_step(&want, dt, steps, HEAT_REFERENCE, NULL, NULL));
    int rc = step_checked(&got, dt, steps, v, NULL);
    ck_assert_msg(rc == 0, "%s, %s, %u steps: %s", what,
                  app_version_name(&heat_versions, v), steps, app_last_error());
    size_t n = (size_t)world->w * world->h;
    if (memcmp(want.state, got.state, n * sizeof(float)) != 0) {
        size_t i = 0;
        while (memcmp(&want.state[i], &got.state[i], sizeof(float)) == 0)
            i++;
        ck_abort_msg("%s (%u x %u), %s, %u steps: cell x=%zu y=%zu is %.9g, "
                     "the reference has %.9g", what, world->w, world->h,
                     app_version_name(&heat_versions, v), steps, i % world->w, i / world->w,
                     got.state[i], want.state[i]);
    }
    ck_assert(memcmp(want.properties, got.properties, n * 4) == 0);
    heat_world_free(&want);
    heat_world_free(&got);
}

/* ---- the standard world ------------------------------------------------- */

static const uint32_t standard_sizes[] = {10, 33, 100};
static const unsigned standard_steps[] = {0, 1, 2, 3, 50};

START_TEST(standard_world_matches_reference)
{
    uint32_t n = standard_sizes[_i];
    heat_world world;
    ck_assert_app(heat_world_make_standard(&world, n, 0.1f));
    char what[64];
    snprintf(what, sizeof what, "standard world %u", n);
    for (int v = 0; v < NVERSIONS; v++)
        for (int s = 0; s < RUN_SIZE(standard_steps); s++)
            assert_matches_reference(&world, 0.1f, standard_steps[s],
                                     versions[v], what);
    heat_world_free(&world);
}
END_TEST

/* ---- random worlds ---------------------------------------------------------- */

/* Sizes around the work-groups (64 x 4) and v6's output blocks (56 x 56
 * on big-local-memory devices): below, at, just past, several; and one
 * past v7's default block width (2048; its rows are cut to fit the
 * world, so that every compute unit gets blocks). */
static const uint32_t random_sizes[][2] = {
    {3, 3}, {4, 7}, {1, 1}, {2, 5}, {31, 33}, {37, 23}, {129, 5}, {5, 129},
    {57, 57}, {130, 61}, {241, 83}, {2053, 37}};
static const unsigned random_steps[] = {0, 1, 2, 3, 4, 5, 7, 9};

START_TEST(random_worlds_match_reference)
{
    uint32_t w = random_sizes[_i][0], h = random_sizes[_i][1];
    heat_world world;
    make_random_world(&world, w, h, 1234u + (uint32_t)_i);
    for (int v = 0; v < NVERSIONS; v++)
        for (int s = 0; s < RUN_SIZE(random_steps); s++)
            assert_matches_reference(&world, 0.25f + 0.5f * (float)(_i % 3),
                                     random_steps[s], versions[v],
                                     "random world");
    heat_world_free(&world);
}
END_TEST

/* ---- v7's blocks ------------------------------------------------------------ */

/* v7 with blocks of ROWSxCOLSxSTEPS (HEAT_V7_BLOCK) far smaller than the
 * default, so that small worlds hold many blocks, blocks end mid-world in
 * both directions, the halo (STEPS cells) is wider than a block, and a run
 * ends on a launch of fewer steps than STEPS: every way a block's halo or
 * a level's rows and columns could come out one cell short. */
static const char *const small_blocks[] = {"5x7x3", "3x2x4", "1x1x1",
                                           "2x3x2", "4x1000x3"};
static const uint32_t block_worlds[][2] = {
    {1, 1}, {1, 6}, {6, 1}, {2, 2}, {3, 3}, {3, 8}, {13, 11}, {23, 17}};
static const unsigned block_steps[] = {0, 1, 2, 3, 4, 5, 7};

START_TEST(small_blocks_match_reference)
{
    const char *block = small_blocks[_i];
    size_t nworlds = sizeof block_worlds / sizeof *block_worlds;
    setenv("HEAT_V7_BLOCK", block, 1);
    for (size_t k = (size_t)RUN_SIZE(first_block_world); k < nworlds; k++) {
        heat_world world;
        char what[64];
        make_random_world(&world, block_worlds[k][0], block_worlds[k][1],
                          77u + (uint32_t)k);
        snprintf(what, sizeof what, "blocks %s, random world", block);
        for (int s = 0; s < RUN_SIZE(block_steps); s++)
            assert_matches_reference(&world, 0.5f + 0.25f * (float)(k % 3),
                                     block_steps[s], HEAT_V7_BLOCKED, what);
        heat_world_free(&world);
    }
    unsetenv("HEAT_V7_BLOCK");
}
END_TEST

/* Each of n values of the setting `name` makes v refuse to run with a
 * message naming the setting, and leaves the world as it was. */
static void assert_settings_refused(const char *name, const char *const *bad,
                                    size_t n, heat_version v)
{
    heat_world world, before;
    make_random_world(&world, 9, 7, 5);
    ck_assert_app(heat_world_copy(&before, &world));
    for (size_t i = 0; i < n; i++) {
        setenv(name, bad[i], 1);
        ck_assert_app_fails(step_checked(&world, 0.1f, 3, v, NULL),
                            APP_ERR_BAD_INPUT, name);
        ck_assert(memcmp(world.state, before.state, 9 * 7 * 4) == 0);
    }
    unsetenv(name);
    heat_world_free(&world);
    heat_world_free(&before);
}

/* A block shape that is not ROWSxCOLSxSTEPS in range is refused. */
START_TEST(bad_block_settings_are_refused)
{
    static const char *const bad[] = {
        "0x4x4", "4x0x4", "4x4x0", "4x4x65", "1048577x4x4", "4x1048577x4",
        "-1x4x4", "4x4", "4x4x4x4", "4x4x4 ", "ax4x4", "4 x4x4", "x"};
    assert_settings_refused("HEAT_V7_BLOCK", bad, sizeof bad / sizeof *bad,
                            HEAT_V7_BLOCKED);
}
END_TEST

/* ---- v6's tiles ------------------------------------------------------------- */

/* v6 with tiles and work-groups other than the default (HEAT_V6_TILE):
 * one column of cells a work-item and several, columns 32 apart, halos of
 * 1 to 5, output blocks narrower than the world and wider, and launches of
 * fewer steps than the halo; each tile within the 32 KB of local memory
 * every OpenCL device has (Oclgrind has no more). */
static const char *const v6_tiles[] = {"64x48x4x64x4", "64x48x4x32x8",
                                       "32x16x1x32x4", "96x24x5x32x8",
                                       "64x32x3x64x2"};
static const uint32_t tile_worlds[][2] = {{5, 3}, {57, 41}, {131, 47}};

START_TEST(v6_tiles_match_reference)
{
    setenv("HEAT_V6_TILE", v6_tiles[_i], 1);
    for (size_t k = 0; k < sizeof tile_worlds / sizeof *tile_worlds; k++) {
        heat_world world;
        char what[64];
        make_random_world(&world, tile_worlds[k][0], tile_worlds[k][1],
                          31u + (uint32_t)k);
        snprintf(what, sizeof what, "tile %s, random world", v6_tiles[_i]);
        for (int s = 0; s < RUN_SIZE(random_steps); s++)
            assert_matches_reference(&world, 0.25f + 0.5f * (float)(k % 3),
                                     random_steps[s], HEAT_V6_TILED, what);
        heat_world_free(&world);
    }
    unsetenv("HEAT_V6_TILE");
}
END_TEST

/* A tile that is not WxHxHALO[xGWxGH] with W a multiple of GW, H of GH and
 * the halo leaving an output block is refused. */
START_TEST(bad_tile_settings_are_refused)
{
    static const char *const bad[] = {
        "64x48", "64x48x0", "64x48x24", "64x48x4x64", "64x48x4x0x4",
        "64x48x4x48x4", "64x48x4x64x5", "64x48x4x64x4x1", "64x48x4 ",
        "ax48x4", "0x48x4"};
    assert_settings_refused("HEAT_V6_TILE", bad, sizeof bad / sizeof *bad,
                            HEAT_V6_TILED);
}
END_TEST

/* A large time step makes inner small and contrib vary most; alpha*dt just
 * under 4 is the most extreme the steppers accept. */
START_TEST(extreme_time_steps_match_reference)
{
    heat_world world;
    make_random_world(&world, 45, 19, 99);
    world.alpha = 1.0f;
    for (int v = 0; v < NVERSIONS; v++) {
        assert_matches_reference(&world, 3.999f, 3, versions[v], "dt 3.999");
        assert_matches_reference(&world, 0.0f, 2, versions[v], "dt 0");
        assert_matches_reference(&world, 1e-30f, 2, versions[v], "dt 1e-30");
    }
    heat_world_free(&world);
}
END_TEST

/* v6 divides by multiplying with a double reciprocal (apps/heat/kernels/heat.cl
 * says why that is exact). Checked here on the host, whose double and float
 * arithmetic is IEEE, for divisors as the steppers make them and dividends
 * across the whole range a cell can hold, subnormals included. */
START_TEST(reciprocal_division_is_correctly_rounded)
{
    uint32_t s = 7;
    long checked = 0;
    int rounds = RUN_SIZE(division_rounds);
    for (int round = 0; round < rounds; round++) {
        float alpha = (float)(test_random(&s) % 1000 + 1) / 1000.0f;
        float dt = (float)(test_random(&s) % 3999 + 1) / 1000.0f;
        float inner, outer;
        heat_coefficients(alpha, dt, &inner, &outer);
        if (!(outer < 4))
            continue;
        float c = inner;
        for (int k = 0; k <= 4; k++, c += outer) {
            double r = 1.0 / (double)c;
            for (int i = 0; i < 2000; i++) {
                uint32_t bits = test_random(&s) << 8 ^ test_random(&s);
                float acc;
                bits %= 0x40a00000u;     /* 0 .. 5.0f: any acc of a cell */
                memcpy(&acc, &bits, sizeof acc);
                float want = acc / c, got = (float)((double)acc * r);
                if (memcmp(&want, &got, sizeof want) != 0)
                    ck_abort_msg("%a / %a: %a, by reciprocal %a", acc, c, want,
                                 got);
                checked++;
            }
        }
    }
    ck_assert_int_gt(checked, 1000);
}
END_TEST

START_TEST(packed_flags_name_insulating_neighbours)
{
    heat_world world;
    ck_assert_app(heat_world_alloc(&world, 4, 4, 0.1f));
    for (uint32_t i = 0; i < 16; i++)
        world.properties[i] = HEAT_CELL_INSULATOR;
    world.properties[1 * 4 + 1] = HEAT_CELL_NORMAL;
    world.properties[1 * 4 + 2] = HEAT_CELL_NORMAL;
    world.properties[2 * 4 + 1] = HEAT_CELL_FIXED;
    world.properties[2 * 4 + 2] = HEAT_CELL_NORMAL;
    /* (1,1): above and left insulate; below is fixed; right is normal. */
    ck_assert_uint_eq(heat_packed_flags(&world, 1, 1),
                      HEAT_PACKED_ABOVE | HEAT_PACKED_LEFT);
    /* (2,2): below and right insulate. */
    ck_assert_uint_eq(heat_packed_flags(&world, 2, 2),
                      HEAT_PACKED_BELOW | HEAT_PACKED_RIGHT);
    /* Fixed and insulating cells keep their flags alone. */
    ck_assert_uint_eq(heat_packed_flags(&world, 1, 2), HEAT_CELL_FIXED);
    ck_assert_uint_eq(heat_packed_flags(&world, 0, 0), HEAT_CELL_INSULATOR);
    heat_world_free(&world);
}
END_TEST

START_TEST(stats_count_launches_and_time_kernels)
{
    heat_world world;
    ck_assert_app(heat_world_make_standard(&world, 20, 0.1f));
    app_timing stats = {.want_kernel_time = 1};
    ck_assert_app(step_checked(&world, 0.1f, 10, HEAT_V4_DOUBLE_BUFFERED,
                              &stats));
    ck_assert_uint_eq(stats.launches, 10);
    ck_assert_msg(stats.kernel_ms > 0, "kernel time %g",
                  stats.kernel_ms);
    ck_assert_app(step_checked(&world, 0.1f, 10, HEAT_V6_TILED, &stats));
    ck_assert_uint_eq(stats.launches, 3); /* 4 + 4 + 2 steps */
    ck_assert_app(step_checked(&world, 0.1f, 0, HEAT_V6_TILED, &stats));
    ck_assert_uint_eq(stats.launches, 0);
    ck_assert_app(step_checked(&world, 0.1f, 10, HEAT_V7_BLOCKED, &stats));
    ck_assert_uint_eq(stats.launches, 2); /* 8 + 2 steps */
    setenv("HEAT_V7_BLOCK", "4x4x3", 1);
    ck_assert_app(step_checked(&world, 0.1f, 10, HEAT_V7_BLOCKED, &stats));
    unsetenv("HEAT_V7_BLOCK");
    ck_assert_uint_eq(stats.launches, 4); /* 3 + 3 + 3 + 1 steps */
    heat_world_free(&world);
}
END_TEST

START_TEST(bad_worlds_and_steps_are_refused)
{
    heat_world world;
    ck_assert_app(heat_world_make_standard(&world, 10, 0.1f));
    ck_assert_app_fails(heat_step(&world, 40.0f, 1, HEAT_V5_PACKED, NULL, NULL),
                        APP_ERR_BAD_INPUT, "must be in [0, 4)");
    ck_assert_app_fails(heat_step(&world, -0.1f, 1, HEAT_REFERENCE, NULL, NULL),
                        APP_ERR_BAD_INPUT, "must be in [0, 4)");
    ck_assert_app_fails(heat_step(&world, NAN, 1, HEAT_V6_TILED, NULL, NULL),
                        APP_ERR_BAD_INPUT, "must be in [0, 4)");
    world.properties[5] = HEAT_CELL_NORMAL;     /* a hole in the top border */
    for (int v = 0; v < HEAT_VERSION_COUNT; v++)
        ck_assert_int_eq(heat_step(&world, 0.1f, 1, (heat_version)v, NULL,
                                   NULL), APP_ERR_BAD_INPUT);
    ck_assert_app_fails(heat_step(&world, 0.1f, 1, HEAT_VERSION_COUNT, NULL,
                                  NULL), APP_ERR_BAD_INPUT, "x=5");
    heat_world_free(&world);
}
END_TEST

START_TEST(version_names_round_trip)
{
    for (int v = 0; v < HEAT_VERSION_COUNT; v++) {
        ck_assert_int_eq(app_version_parse(&heat_versions, app_version_name(&heat_versions, v)), v);
        ck_assert_int_eq(app_version_parse(&heat_versions, heat_versions.list[v].alias), v);
    }
    ck_assert_int_eq(app_version_parse(&heat_versions, "v8"), -1);
    ck_assert_int_eq(app_version_parse(&heat_versions, NULL), -1);
}
END_TEST

/* ---- the programs ----------------------------------------------------------- */

static void assert_same_file(const char *a, const char *b)
{
    size_t na, nb;
    char *da = test_read_file(a, &na), *db = test_read_file(b, &nb);
    ck_assert_msg(na == nb && memcmp(da, db, na) == 0, "%s (%zu bytes) and "
                  "%s (%zu bytes) differ", a, na, b, nb);
    free(da);
    free(db);
}

/* Runs a shell command line built from a format; returns its exit status. */
static const char *tmp_path(const char *name)
{
    return test_tmp_path("heat-step", name);
}

START_TEST(programs_match_the_reference_program_in_both_formats)
{
    char make[4096];                /* kept: test_program's buffers turn */
    snprintf(make, sizeof make, "%s", test_program("make_world"));
    for (int binary = 0; binary <= 1; binary++) {
        const char *want = tmp_path(binary ? "want.bin" : "want.txt");
        ck_assert_int_eq(test_run("%s 33 0.1 %d | %s 0.1 3 %d > %s", make, binary,
                             test_program("step_world"), binary, want), 0);
        for (int v = HEAT_OPENMP; v < HEAT_VERSION_COUNT; v++) {
            const char *got = tmp_path("got");
            ck_assert_int_eq(test_run("%s 33 0.1 %d | %s 0.1 3 %d > %s", make,
                                 binary, test_program(heat_versions.list[v].alias),
                                 binary, got), 0);
            assert_same_file(want, got);
        }
    }
}
END_TEST

START_TEST(text_binary_text_round_trip_is_exact)
{
    const char *text = tmp_path("world.txt"), *bin = tmp_path("world.bin");
    const char *back = tmp_path("back.txt");
    const char *step = test_program("step_world_v6_tiled");
    /* 7 steps first, so the temperatures are not round numbers. */
    ck_assert_int_eq(test_run("%s 40 0.1 | %s 0.1 7 > %s",
                         test_program("make_world"), step, text), 0);
    ck_assert_int_eq(test_run("%s 0.1 0 1 < %s > %s", step, text, bin), 0);
    ck_assert_int_eq(test_run("%s 0.1 0 0 < %s > %s", step, bin, back), 0);
    assert_same_file(text, back);
}
END_TEST

START_TEST(programs_refuse_bad_arguments_and_worlds)
{
    const char *err = tmp_path("err"), *out = tmp_path("out");
    const char *step = test_program("step_world_v5_packed_properties");
    const char *world = tmp_path("w.txt");
    ck_assert_int_eq(test_run("%s 10 > %s", test_program("make_world"), world), 0);
    static const struct {
        const char *args;
        int status;
        const char *message;
    } cases[] = {
        {"abc", 2, "dt \"abc\" is not a number"},
        {"0.1 -1", 2, "steps \"-1\" is not a count"},
        {"0.1 2x", 2, "steps \"2x\" is not a count"},
        {"0.1 1 2", 2, "binary \"2\" must be 0 or 1"},
        {"50 1", 1, "must be in [0, 4)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int status = test_run("%s %s < %s > %s 2> %s", step, cases[i].args, world,
                         out, err);
        ck_assert_msg(status == cases[i].status, "%s %s: exit status %d, "
                      "expected %d", step, cases[i].args, status,
                      cases[i].status);
        size_t n;
        char *text = test_read_file(err, &n);
        ck_assert_msg(strstr(text, cases[i].message), "%s %s said: %s", step,
                      cases[i].args, text);
        free(text);
        free(test_read_file(out, &n));
        ck_assert_msg(n == 0, "%s %s wrote %zu bytes", step, cases[i].args, n);
    }
    /* A world cut short: an error naming the problem, and no output. */
    ck_assert_int_eq(test_run("head -c 300 %s | %s > %s 2> %s", world, step, out,
                         err), 1);
    size_t n;
    char *text = test_read_file(err, &n);
    ck_assert_msg(strstr(text, "<stdin>"), "said: %s", text);
    free(text);
    free(test_read_file(out, &n));
    ck_assert_int_eq(n, 0);
}
END_TEST

/* A program's failure said `expected` on standard error (file err) and
 * wrote nothing to standard output (file out); `what` names the run. */
static void assert_said_alone(const char *err, const char *out,
                              const char *expected, const char *what)
{
    size_t n;
    char *said = test_read_file(err, &n);
    ck_assert_msg(strstr(said, expected), "%s said: %s", what, said);
    free(said);
    free(test_read_file(out, &n));
    ck_assert_msg(n == 0, "%s wrote %zu bytes", what, n);
}

/* make_world's n runs to 46340, the largest square within
 * HEAT_WORLD_MAX_CELLS; past it (or below 3), a message and no output,
 * before anything is allocated. */
START_TEST(make_world_refuses_sizes_past_the_largest_square)
{
    const char *err = tmp_path("err"), *out = tmp_path("out");
    const char *sizes[] = {"46341", "65536", "2"};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        ck_assert_int_eq(test_run("%s %s > %s 2> %s",
                                  test_program("make_world"), sizes[i], out,
                                  err), 1);
        assert_said_alone(err, out, "is not an integer from 3 to 46340",
                          sizes[i]);
    }
}
END_TEST

/* Standard input holds one world: text after its End is refused, by
 * the steppers and render_world alike, with no output. */
START_TEST(programs_refuse_text_after_end)
{
    const char *world = tmp_path("after-end.txt"), *out = tmp_path("out");
    const char *err = tmp_path("err"), *png = tmp_path("after-end.png");
    ck_assert_int_eq(test_run("(%s 10; echo End) > %s",
                              test_program("make_world"), world), 0);
    const char *commands[] = {test_program("step_world"),
                              test_program("render_world")};
    const char *outputs[] = {out, png};
    for (int i = 0; i < 2; i++) {
        remove(outputs[i]);
        ck_assert_int_eq(test_run("%s %s < %s > %s 2> %s", commands[i],
                                  i ? png : "", world, out, err), 1);
        assert_said_alone(err, out, "<stdin>: line 26: 'End' after 'End'",
                          commands[i]);
        ck_assert_msg(test_run("test -e %s", png) != 0, "left %s", png);
    }
}
END_TEST

/* step_world, run by test_spawn, on `input` (written to a file): its exit
 * status, and what it said in *said (caller frees). */
static test_exit step_world_on(const char *input, size_t len,
                               unsigned limit_mib, char **said)
{
    const char *in = tmp_path("hostile-in"), *out = tmp_path("hostile-out");
    FILE *f = fopen(in, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(input, 1, len, f), len);
    fclose(f);
    const char *argv[] = {test_program("step_world"), NULL};
    test_exit e = test_spawn(argv, in, out, 30, limit_mib);
    size_t n;
    *said = test_read_file(out, &n);
    return e;
}

/* A header claiming the largest world (2^31 cells, 16 GiB), then two
 * cells: found short within 256 MiB of address space, so the arrays are
 * not sized by the header's claim alone. */
START_TEST(programs_read_a_huge_header_in_little_memory)
{
    static const char text[] = "HPCEHeatWorldV0\n65536 32768 0.1\n- 2 2\n";
    static const char binary[] = "HPCEHeatWorldV0Binary\n65536 32768 0.1\n"
                                 "-\2\0\0\0\2\0\0\0";
    const char *const worlds[] = {text, binary};
    const size_t lengths[] = {sizeof text - 1, sizeof binary - 1};
    for (int i = 0; i < 2; i++) {
        char *said;
        test_exit e = step_world_on(worlds[i], lengths[i], 256, &said);
        ck_assert_msg(e.status == 1 && strstr(said, "<stdin>") &&
                      strstr(said, "truncated properties array"),
                      "exit status %d%s, said: %s", e.status,
                      e.timed_out ? " (killed: too slow)" : "", said);
        free(said);
    }
}
END_TEST

/* An endless stream that can never become a world: refused at its first
 * byte, not read as one endless word. */
START_TEST(programs_stop_on_dev_zero)
{
    const char *out = tmp_path("zero-out");
    const char *argv[] = {test_program("step_world"), NULL};
    test_exit e = test_spawn(argv, "/dev/zero", out, 10, 0);
    size_t n;
    char *said = test_read_file(out, &n);
    ck_assert_msg(e.status == 1 && strstr(said, "<stdin>: line 1: a NUL "
                                          "byte at byte offset 0"),
                  "exit status %d%s, said: %s", e.status,
                  e.timed_out ? " (killed after 10 s)" : "", said);
    free(said);
}
END_TEST

Suite *heat_step_suite(void)
{
    Suite *s = suite_create("heat_step");
    TCase *tc = test_case("against the reference");
    tcase_add_loop_test(tc, standard_world_matches_reference, 0,
                        RUN_SIZE(standard_worlds));
    tcase_add_loop_test(tc, random_worlds_match_reference, 0,
                        RUN_SIZE(random_worlds));
    tcase_add_loop_test(tc, small_blocks_match_reference, 0,
                        sizeof small_blocks / sizeof *small_blocks);
    tcase_add_test(tc, bad_block_settings_are_refused);
    tcase_add_loop_test(tc, v6_tiles_match_reference, 0,
                        sizeof v6_tiles / sizeof *v6_tiles);
    tcase_add_test(tc, bad_tile_settings_are_refused);
    tcase_add_test(tc, extreme_time_steps_match_reference);
    tcase_add_test(tc, reciprocal_division_is_correctly_rounded);
    tcase_add_test(tc, packed_flags_name_insulating_neighbours);
    tcase_add_test(tc, stats_count_launches_and_time_kernels);
    tcase_add_test(tc, bad_worlds_and_steps_are_refused);
    tcase_add_test(tc, version_names_round_trip);
    suite_add_tcase(s, tc);
    /* The programs run as child processes, each opening Oclgrind's log
     * anew if run under it, which would cut earlier reports: not there. */
    TCase *programs = test_case("programs");
    tcase_set_tags(programs, "no-oclgrind");
    tcase_add_test(programs, programs_match_the_reference_program_in_both_formats);
    tcase_add_test(programs, text_binary_text_round_trip_is_exact);
    tcase_add_test(programs, programs_refuse_bad_arguments_and_worlds);
    tcase_add_test(programs, make_world_refuses_sizes_past_the_largest_square);
    tcase_add_test(programs, programs_read_a_huge_header_in_little_memory);
    tcase_add_test(programs, programs_stop_on_dev_zero);
    tcase_add_test(programs, programs_refuse_text_after_end);
    suite_add_tcase(s, programs);
    return s;
}
