/*
 * laplace_mpi.c: the Laplace solver over MPI ranks against the C
 * reference, bit for bit: grids of odd sizes (slabs thinner than the halo
 * among them), 0 to 3, 5 and 9 iterations, and the tolerance mode with
 * checks every 3 and 4 iterations (the same iterations, checks and largest
 * change), with halos of 1 to 17 rows; a bad plan is one message and a
 * failure on every rank.
 */
#include "common/tests/testing.h"
#include "mpi/laplace_mpi.h"
#include "mpi/slab.h"

#include <math.h>
#include <string.h>

/* The sizes per run (support.h): the first how many of the grids, counts,
 * plans and halo depths below, the tall grid's height and the tolerance's
 * cap. A checked run keeps to grids of at most 1000 cells, 5 iterations,
 * a check every 3 to the cap of 30, and depth 9, on a shorter tall grid,
 * which 2 and 3 ranks still cut into slabs thick enough for its cone. */
static const struct {
    int grids, counts, plans, depths;
    uint32_t tall_height;
    unsigned tolerance_cap;
} run_sizes[] = {
    [TEST_FULL]    = {6, 6, 4, 8, 3001, 60},
    [TEST_CHECKED] = {4, 5, 1, 1, 701, 30},
};

static int rank(void)
{
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

/* Solves a copy of g over the ranks, with halos `depth` deep (0: the
 * default), and one with the reference; asserts on every rank (rank 0's
 * verdict) that the potentials and stats agree. */
static void assert_matches_reference(const laplace_grid *g,
                                     const laplace_plan *plan, unsigned depth)
{
    slab_options o = {.depth = depth};
    laplace_grid want, got;
    laplace_stats ws = {0}, gs = {0};
    ck_assert_app(laplace_grid_copy(&want, g));
    ck_assert_app(laplace_grid_copy(&got, g));
    clctx *ctx = test_run_context();
    int rc = laplace_solve_mpi(&got, plan, MPI_COMM_WORLD,
                               ctx ? ctx : clctx_default(), &o, &gs);
    clctx_free(ctx);
    ck_assert_msg(rc == 0, "%u x %u, %u iterations, depth %u: %s", g->nx,
                  g->ny, plan->iterations, depth, app_last_error());
    size_t n = (size_t)g->nx * g->ny, i = 0;
    if (rank() == 0) {
        ck_assert_app(laplace_solve(&want, plan, LAPLACE_REFERENCE, NULL,
                                    &ws));
        while (i < n && !memcmp(&want.phi[i], &got.phi[i], sizeof(float)))
            i++;
    }
    MPI_Bcast(&i, sizeof i, MPI_BYTE, 0, MPI_COMM_WORLD);
    MPI_Bcast(&ws, sizeof ws, MPI_BYTE, 0, MPI_COMM_WORLD);
    ck_assert_msg(i == n, "%u x %u, %u iterations, depth %u: cell x=%zu "
                  "y=%zu differs", g->nx, g->ny, plan->iterations, depth,
                  i % g->nx, i / g->nx);
    ck_assert_uint_eq(gs.iterations, ws.iterations);
    ck_assert_uint_eq(gs.checks, ws.checks);
    ck_assert_int_eq(gs.converged, ws.converged);
    ck_assert_msg(!memcmp(&gs.max_change, &ws.max_change, sizeof(float)),
                  "largest change %.9g, the reference's %.9g", gs.max_change,
                  ws.max_change);
    laplace_grid_free(&want);
    laplace_grid_free(&got);
}

static const uint32_t sizes[][2] = {
    {7, 3}, {9, 5}, {6, 7}, {33, 17}, {70, 101}, {130, 67}};

START_TEST(fixed_iterations_match_reference)
{
    static const unsigned counts[] = {0, 1, 2, 3, 5, 9};
    int ranks;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (sizes[_i][1] < (uint32_t)ranks)
        return;                         /* fewer rows than ranks: refused */
    laplace_grid g;
    ck_assert_app(laplace_grid_make(&g, sizes[_i][0], sizes[_i][1], 0.25f,
                                    1.0f, sizes[_i][0] / 3,
                                    sizes[_i][1] / 3));
    for (int c = 0; c < RUN_SIZE(counts); c++) {
        laplace_plan plan = {counts[c], 0.0f, 1};
        assert_matches_reference(&g, &plan, 0);
    }
    laplace_grid_free(&g);
}
END_TEST

/* Checks every 3 (not a multiple of the halo) and 4 iterations, to the
 * cap and to convergence. */
START_TEST(tolerance_matches_reference)
{
    laplace_grid g;
    ck_assert_app(laplace_grid_make(&g, 41, 29, 0.0f, 1.0f, 9, 7));
    static const laplace_plan plans[] = {{30, 1e-6f, 3}, {400, 1e-3f, 3},
                                         {400, 1e-3f, 4}, {30, 1e-6f, 4}};
    for (int p = 0; p < RUN_SIZE(plans); p++)
        assert_matches_reference(&g, &plans[p], 0);
    laplace_grid_free(&g);
}
END_TEST

/* Halos shallower than a launch's 4 iterations, as deep, and deeper, for
 * 23 iterations and to a tolerance checked every 7: on a grid whose slabs
 * are too thin for a cone of tiles (slab.c), and on a tall one. */
START_TEST(halo_depths_match_reference)
{
    static const unsigned depths[] = {9, 1, 3, 4, 5, 8, 16, 17};
    static const uint32_t widths[] = {70, 30};
    laplace_grid g;
    uint32_t height = _i ? RUN_SIZE(tall_height) : 101;
    ck_assert_app(laplace_grid_make(&g, widths[_i], height, 0.25f, 1.0f,
                                    10, height / 3));
    laplace_plan fixed = {23, 0.0f, 1};
    laplace_plan tolerance = {RUN_SIZE(tolerance_cap), 1e-4f, 7};
    for (int d = 0; d < RUN_SIZE(depths); d++) {
        assert_matches_reference(&g, &fixed, depths[d]);
        assert_matches_reference(&g, &tolerance, depths[d]);
    }
    laplace_grid_free(&g);
}
END_TEST

START_TEST(a_bad_plan_fails_every_rank)
{
    laplace_grid g;
    ck_assert_app(laplace_grid_make(&g, 20, 20, 0.0f, 1.0f, 4, 4));
    laplace_plan plan = {10, NAN, 1};
    int rc = laplace_solve_mpi(&g, &plan, MPI_COMM_WORLD, clctx_default(),
                               NULL, NULL);
    ck_assert_int_eq(rc, rank() == 0 ? APP_ERR_BAD_INPUT
                                     : SLAB_ERR_ELSEWHERE);
    laplace_grid_free(&g);
}
END_TEST

Suite *laplace_mpi_suite(void)
{
    Suite *s = suite_create("laplace_mpi");
    TCase *tc = test_case("iterations");
    tcase_add_loop_test(tc, fixed_iterations_match_reference, 0,
                        RUN_SIZE(grids));
    tcase_add_test(tc, tolerance_matches_reference);
    tcase_add_loop_test(tc, halo_depths_match_reference, 0, 2);
    tcase_add_test(tc, a_bad_plan_fails_every_rank);
    suite_add_tcase(s, tc);
    return s;
}
