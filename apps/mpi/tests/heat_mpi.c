/*
 * heat_mpi.c: the heat world over MPI ranks against the C reference, byte
 * for byte: the standard world and random ones of odd sizes, steps 0 to 3
 * and counts that are not a multiple of the halo (5, 9); slabs thinner
 * than a halo (3 to 7 rows over 3 ranks); halos of 1 to 17 rows, deeper
 * and shallower than a launch's steps; steps too large or negative; a
 * rank that fails. The
 * programs are checked by tests/ranks.
 */
#include "common/tests/testing.h"
#include "heat/tests/random_world.h"
#include "mpi/heat_mpi.h"
#include "mpi/slab.h"

#include <stdlib.h>
#include <string.h>

/* The sizes per run (support.h): the first how many of the random worlds,
 * step counts and halo depths below, and the tall world's height. A
 * checked run keeps to worlds of at most 1000 cells, 5 steps and depth 9,
 * on a shorter tall world, which 2 and 3 ranks still cut into slabs thick
 * enough for depth 9's cone. */
static const struct {
    int random_worlds, step_counts, depths;
    uint32_t tall_height;
} run_sizes[] = {
    [TEST_FULL]    = {7, 6, 8, 3001},
    [TEST_CHECKED] = {5, 5, 1, 701},
};

static int rank(void)
{
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

static int ranks(void)
{
    int n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}

/* Steps world by steps of dt over the ranks (rank 0's copy counts), with
 * halos `depth` deep (0: the default), and with the reference and asserts,
 * on rank 0, that the states are the same bytes. */
static void assert_matches_reference(const heat_world *world, float dt,
                                     unsigned steps, unsigned depth,
                                     const char *what)
{
    slab_options o = {.depth = depth};
    heat_world want, got;
    ck_assert_app(heat_world_copy(&want, world));
    ck_assert_app(heat_world_copy(&got, world));
    clctx *ctx = test_run_context();
    int rc = heat_step_mpi(&got, dt, steps, MPI_COMM_WORLD,
                           ctx ? ctx : clctx_default(), &o, NULL);
    clctx_free(ctx);
    ck_assert_msg(rc == 0, "%s, %u steps over %d ranks, depth %u: %s", what,
                  steps, ranks(), depth, app_last_error());
    /* Rank 0 compares; every rank fails alike, so that all of them leave
     * the test at the same point. */
    size_t n = (size_t)world->w * world->h, i = 0;
    if (rank() == 0) {
        ck_assert_app(heat_step_reference(&want, dt, steps));
        while (i < n && !memcmp(&want.state[i], &got.state[i], sizeof(float)))
            i++;
    }
    MPI_Bcast(&i, sizeof i, MPI_BYTE, 0, MPI_COMM_WORLD);
    ck_assert_msg(i == n, "%s (%u x %u), %u steps over %d ranks, depth %u: "
                  "cell x=%zu y=%zu is %.9g, the reference has %.9g", what,
                  world->w, world->h, steps, ranks(), depth, i % world->w,
                  i / world->w,
                  rank() == 0 ? got.state[i] : 0,
                  rank() == 0 ? want.state[i] : 0);
    heat_world_free(&want);
    heat_world_free(&got);
}

static const unsigned step_counts[] = {0, 1, 2, 3, 5, 9};
enum { STEP_COUNTS = sizeof step_counts / sizeof *step_counts };

START_TEST(standard_world_matches_reference)
{
    heat_world world;
    ck_assert_app(heat_world_make_standard(&world, 37, 0.1f));
    for (int s = 0; s < STEP_COUNTS; s++)
        assert_matches_reference(&world, 0.1f, step_counts[s], 0,
                                 "standard world");
    heat_world_free(&world);
}
END_TEST

/* Sizes that divide by no rank count, tile or work-group; 3 to 7 rows
 * leave 3 ranks slabs thinner than the halo of 4. */
static const uint32_t random_sizes[][2] = {
    {7, 3}, {5, 4}, {9, 5}, {6, 7}, {33, 17}, {70, 101}, {129, 131}};

START_TEST(random_worlds_match_reference)
{
    const uint32_t *size = random_sizes[_i];
    if (size[1] < (uint32_t)ranks())
        return;                         /* too_few_rows_are_refused */
    heat_world world;
    make_random_world(&world, size[0], size[1], 1000u + (uint32_t)_i);
    for (int s = 0; s < RUN_SIZE(step_counts); s++)
        assert_matches_reference(&world, 0.1f, step_counts[s], 0,
                                 "random world");
    heat_world_free(&world);
}
END_TEST

/* Halos shallower than a launch's 4 steps, as deep, and deeper (several
 * launches between exchanges, the last one short), over 23 steps: on a
 * world whose slabs are too thin for a cone of tiles (slab.c), and on a
 * tall one whose slabs take them. */
START_TEST(halo_depths_match_reference)
{
    static const unsigned depths[] = {9, 1, 3, 4, 5, 8, 16, 17};
    static const uint32_t widths[] = {70, 30};
    heat_world world;
    uint32_t height = _i ? RUN_SIZE(tall_height) : 101;
    make_random_world(&world, widths[_i], height, 77);
    for (int d = 0; d < RUN_SIZE(depths); d++) {
        assert_matches_reference(&world, 0.1f, 23, depths[d], "random world");
    }
    heat_world_free(&world);
}
END_TEST

/* A grid with fewer rows than ranks is refused on every rank; the message
 * stands on rank 0 alone. */
START_TEST(too_few_rows_are_refused)
{
    slab s;
    int rc = slab_plan(&s, MPI_COMM_WORLD, 10, (uint32_t)ranks() - 1, NULL);
    rc = slab_agree(MPI_COMM_WORLD, rc);
    if (ranks() == 1) {
        ck_assert_int_ne(rc, 0);
        return;
    }
    ck_assert_int_eq(rc, rank() == 0 ? APP_ERR_USAGE : SLAB_ERR_ELSEWHERE);
    if (rank() == 0)
        ck_assert_ptr_nonnull(strstr(app_last_error(), "rows cannot be "
                                     "split over"));
}
END_TEST

/* Steps heat_step refuses (alpha*dt outside [0, 4), or dt not finite)
 * are refused over ranks too, by the same check and message, on every
 * rank, before any step: the world is left as it was. At alpha*dt = 4 a
 * walled-in cell would become 0/0. */
START_TEST(bad_steps_are_refused)
{
    static const float bad[] = {-1.0f, 1e30f, 4.0f, NAN, INFINITY};
    heat_world world, before;
    ck_assert_app(heat_world_make_standard(&world, 10, 1.0f));
    world.properties[3 * 10 + 3] = HEAT_CELL_NORMAL;
    world.properties[2 * 10 + 3] = HEAT_CELL_INSULATOR;   /* walled in */
    world.properties[4 * 10 + 3] = HEAT_CELL_INSULATOR;
    world.properties[3 * 10 + 2] = HEAT_CELL_INSULATOR;
    world.properties[3 * 10 + 4] = HEAT_CELL_INSULATOR;
    ck_assert_app(heat_world_copy(&before, &world));
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int rc = heat_step_mpi(&world, bad[i], 2, MPI_COMM_WORLD,
                               clctx_default(), NULL, NULL);
        if (rank() != 0) {
            ck_assert_int_eq(rc, SLAB_ERR_ELSEWHERE);
            continue;
        }
        ck_assert_msg(rc == APP_ERR_BAD_INPUT, "dt = %g over %d ranks: "
                      "returned %d; message: %s", bad[i], ranks(), rc,
                      app_last_error());
        ck_assert_ptr_nonnull(strstr(app_last_error(), "must be in [0, 4)"));
        ck_assert_mem_eq(world.state, before.state,
                         (size_t)world.w * world.h * sizeof *world.state);
    }
    /* Just inside the limit it steps, as the reference does. */
    assert_matches_reference(&world, 3.5f, 3, 0, "alpha*dt = 3.5");
    heat_world_free(&before);
    heat_world_free(&world);
}
END_TEST

/* The last rank's device cannot take v6's tiles (HEAT_V6_TILE asks for
 * ones too big): every rank returns an error, that rank with its message,
 * and none is left waiting. */
START_TEST(a_failing_rank_fails_every_rank)
{
    heat_world world;
    make_random_world(&world, 40, 30, 7);
    int last = rank() == ranks() - 1;
    if (last)
        setenv("HEAT_V6_TILE", "4096x4096x4", 1);
    int rc = heat_step_mpi(&world, 0.1f, 5, MPI_COMM_WORLD, clctx_default(),
                           NULL, NULL);
    unsetenv("HEAT_V6_TILE");
    if (last) {
        ck_assert_int_eq(rc, APP_ERR_DEVICE);
        ck_assert_ptr_nonnull(strstr(app_last_error(), "local memory"));
    } else {
        ck_assert_int_eq(rc, SLAB_ERR_ELSEWHERE);
    }
    heat_world_free(&world);
}
END_TEST

Suite *heat_mpi_suite(void)
{
    Suite *s = suite_create("heat_mpi");
    TCase *tc = test_case("steps");
    tcase_add_test(tc, standard_world_matches_reference);
    tcase_add_loop_test(tc, random_worlds_match_reference, 0,
                        RUN_SIZE(random_worlds));
    tcase_add_loop_test(tc, halo_depths_match_reference, 0, 2);
    suite_add_tcase(s, tc);
    tc = test_case("failures");
    tcase_add_test(tc, too_few_rows_are_refused);
    tcase_add_test(tc, bad_steps_are_refused);
    tcase_add_test(tc, a_failing_rank_fails_every_rank);
    suite_add_tcase(s, tc);
    return s;
}
