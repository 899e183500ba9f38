/*
 * laplace.c: the Laplace solver (apps/laplace) and PNG reading
 * (apps/common/png_read.c). Every version against the C reference bit for
 * bit (all add in the reference's order): the seed's problem and random
 * grids of odd sizes, iterations 0, 1, 2, 3 and 100; fast's tiles of every
 * kind (LAPLACE_TILE) and bad ones refused; rows's blocks and
 * launches of every shape (small ones set by LAPLACE_ROW_BLOCK and
 * LAPLACE_ROW_STEPS); tolerance mode stops at the reference's iteration
 * with its max change, mid-launch for rows too; convergence to known
 * solutions (a uniform potential, a linear profile between two plates);
 * errors; PNG masks and bad PNG files; and bin/laplace.
 */
#include "common/tests/testing.h"
#include "common/image.h"
#include "laplace/laplace.h"

#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const laplace_version versions[] = {LAPLACE_OPENMP, LAPLACE_SEED,
                                           LAPLACE_DOUBLE, LAPLACE_FAST,
                                           LAPLACE_ROW_BLOCKS};
enum { NVERSIONS = sizeof versions / sizeof versions[0] };

/* laplace_solve on the context test_run_context gives (a fresh one under
 * Oclgrind). */
static int solve_checked(laplace_grid *g, const laplace_plan *plan,
                         laplace_version v, laplace_stats *stats)
{
    if (!app_version_uses_opencl(&laplace_versions, v))
        return laplace_solve(g, plan, v, NULL, stats);
    clctx *own = test_run_context();
    int rc = laplace_solve(g, plan, v, own, stats);
    clctx_free(own);
    return rc;
}

/* Solves copies of g with v and the reference; asserts equal bits, the
 * same iteration count and max change. */
static void assert_matches_reference(const laplace_grid *g,
                                     const laplace_plan *plan,
                                     laplace_version v, const char *what)
{
    laplace_grid want, got;
    laplace_stats ws = {0}, gs = {0};
    ck_assert_app(laplace_grid_copy(&want, g));
    ck_assert_app(laplace_grid_copy(&got, g));
    ck_assert_app(laplace_solve(&want, plan, LAPLACE_REFERENCE, NULL, &ws));
    int rc = solve_checked(&got, plan, v, &gs);
    ck_assert_msg(rc == 0, "%s, %s: %s", what, app_version_name(&laplace_versions, v),
                  app_last_error());
    size_t n = (size_t)g->nx * g->ny;
    if (memcmp(want.phi, got.phi, n * sizeof(float)) != 0) {
        size_t i = 0;
        while (memcmp(&want.phi[i], &got.phi[i], sizeof(float)) == 0)
            i++;
        ck_abort_msg("%s (%u x %u), %s, %u iterations: cell x=%zu y=%zu is "
                     "%.9g, the reference has %.9g", what, g->nx, g->ny,
                     app_version_name(&laplace_versions, v), plan->iterations, i % g->nx,
                     i / g->nx, got.phi[i], want.phi[i]);
    }
    ck_assert_uint_eq(gs.iterations, ws.iterations);
    ck_assert_uint_eq(gs.checks, ws.checks);
    ck_assert_int_eq(gs.converged, ws.converged);
    ck_assert_msg(memcmp(&gs.max_change, &ws.max_change, 4) == 0,
                  "%s, %s: max change %.9g, the reference's %.9g", what,
                  app_version_name(&laplace_versions, v), gs.max_change, ws.max_change);
    laplace_grid_free(&want);
    laplace_grid_free(&got);
}

/* A grid with a fixed border, about 10 % fixed cells inside and random
 * potentials in [-1, 1] everywhere. */
static void make_random_grid(laplace_grid *g, uint32_t nx, uint32_t ny,
                             uint32_t seed)
{
    ck_assert_app(laplace_grid_alloc(g, nx, ny));
    uint32_t s = seed;
    for (uint32_t y = 0; y < ny; y++)
        for (uint32_t x = 0; x < nx; x++) {
            size_t i = (size_t)y * nx + x;
            int border = x == 0 || y == 0 || x == nx - 1 || y == ny - 1;
            g->mask[i] = !border && test_random(&s) % 10 != 0;
            g->phi[i] = (float)(test_random(&s) % 2000001) / 1e6f - 1.0f;
        }
    ck_assert_app(laplace_grid_validate(g));
}

static const uint32_t sizes[][2] = {
    {3, 3}, {5, 7}, {31, 17}, {65, 33}, {70, 130}, {129, 61}};
static const unsigned counts[] = {0, 1, 2, 3, 100};
enum { NSIZES = sizeof sizes / sizeof sizes[0],
       NCOUNTS = sizeof counts / sizeof counts[0] };

/* The sizes per run (support.h): the first how many of the lists (the
 * grids above, their iteration counts, the rows version's shapes and
 * counts below), and grids (nx, ny) and iterations. A checked run keeps
 * to grids of at most 3000 cells and counts up to 10, and to the tiles
 * that fit Oclgrind's 32 KB of local memory. */
static const struct {
    int grids, counts, row_shapes, row_counts, tiles, tile_grids, tile_counts;
    uint32_t tolerance_nx, tolerance_ny;
    unsigned uniform_iterations;
    uint32_t uniform_nx, uniform_ny, uniform_object; /* object's side */
    uint32_t plates_nx, plates_ny;
} run_sizes[] = {
    [TEST_FULL]    = {NSIZES, NCOUNTS, 7, 7, 10, 5, 5, 45, 38, 100, 19, 14, 5,
                      16, 10},
    [TEST_CHECKED] = {4, 4, 6, 6, 9, 2, 4, 12, 9, 5, 9, 7, 2, 8, 5},
};

START_TEST(seed_problem_matches_reference)
{
    const uint32_t *n = sizes[_i];
    laplace_grid g;
    ck_assert_app(laplace_grid_make(&g, n[0], n[1], 0.5f, 1.0f, n[0] / 3,
                                   n[1] / 4));
    for (int v = 0; v < NVERSIONS; v++)
        for (int c = 0; c < RUN_SIZE(counts); c++) {
            laplace_plan plan = {counts[c], 0.0f, 1};
            assert_matches_reference(&g, &plan, versions[v], "seed problem");
        }
    laplace_grid_free(&g);
}
END_TEST

START_TEST(random_grids_match_reference)
{
    const uint32_t *n = sizes[_i];
    laplace_grid g;
    make_random_grid(&g, n[0], n[1], 1234 + _i);
    for (int v = 0; v < NVERSIONS; v++)
        for (int c = 0; c < RUN_SIZE(counts); c++) {
            laplace_plan plan = {counts[c], 0.0f, 1};
            assert_matches_reference(&g, &plan, versions[v], "random grid");
        }
    laplace_grid_free(&g);
}
END_TEST

/* double's GPU kernels (LAPLACE_UPDATE=column, one cell wide and 4 rows
 * deep; float4, four cells wide where nx is a multiple of 4 and the
 * column one where not) against the reference on the CPU device too:
 * grids narrower than, as wide as and wider than a float4, shorter than,
 * equal to and longer than a column, at every count. */
START_TEST(gpu_update_kernels_match_reference)
{
    static const uint32_t column_sizes[][2] = {
        {3, 3}, {33, 8}, {17, 9}, {40, 23}, {7, 65}, {4, 4}, {8, 17},
        {12, 9}, {132, 5},
    };
    static const char *const kinds[] = {"column", "float4"};
    for (int w = 0; w < 2; w++) {
        setenv("LAPLACE_UPDATE", kinds[w], 1);
        for (size_t s = 0; s < sizeof column_sizes / sizeof *column_sizes;
             s++) {
            const uint32_t *n = column_sizes[s];
            laplace_grid g;
            make_random_grid(&g, n[0], n[1], 99 + (uint32_t)s);
            for (int c = 0; c < RUN_SIZE(counts); c++) {
                laplace_plan plan = {counts[c], 0.0f, 1};
                assert_matches_reference(&g, &plan, LAPLACE_DOUBLE,
                                         kinds[w]);
            }
            laplace_grid_free(&g);
        }
    }
    unsetenv("LAPLACE_UPDATE");
}
END_TEST

/* fast with tiles of every kind (LAPLACE_TILE): halos 1 to 8, blocks 1, 2
 * and 4 cells wide and 1 to 16 high, one copy of their perimeters and two;
 * grids narrower and shorter than a tile, of odd sizes and of sizes that
 * are multiples of 2 and 4 (rows as float2 or float4 where the halo is a
 * multiple too, cell by cell where not), random masks with a tenth of the
 * cells fixed; counts 0 to 3 and 17 (a launch of fewer iterations than
 * the halo last). */
START_TEST(fast_tiles_match_reference)
{
    static const char *const tiles[] = {
        "16x8x1x1x2",           /* halo 1, blocks a cell wide */
        "16x16x2x2x4x1",        /* one copy */
        "24x12x3x4x3",          /* halo not a multiple of VX */
        "32x16x4x4x2x2",
        "64x64x4x1",            /* PY for groups of 256: 16 */
        "40x24x5x2x6",
        "64x32x6x2x8x1",
        "24x20x7x1x4",
        "64x64x8x4x8x2",
        "128x128x8x4x16x1",     /* more local memory than Oclgrind's */
    };
    static const uint32_t tile_sizes[][2] = {
        {33, 17}, {64, 37}, {5, 7}, {70, 45}, {131, 129}};
    static const unsigned tile_counts[] = {0, 1, 2, 3, 17};
    for (int t = 0; t < RUN_SIZE(tiles); t++) {
        setenv("LAPLACE_TILE", tiles[t], 1);
        for (int s = 0; s < RUN_SIZE(tile_grids); s++) {
            laplace_grid g;
            make_random_grid(&g, tile_sizes[s][0], tile_sizes[s][1],
                             700 + (uint32_t)s);
            for (int c = 0; c < RUN_SIZE(tile_counts); c++) {
                char what[64];
                snprintf(what, sizeof what, "fast, LAPLACE_TILE=%s",
                         tiles[t]);
                laplace_plan plan = {tile_counts[c], 0.0f, 1};
                assert_matches_reference(&g, &plan, LAPLACE_FAST, what);
            }
            laplace_grid_free(&g);
        }
    }
    unsetenv("LAPLACE_TILE");
}
END_TEST

/* Tiles that are not tiles are refused, and one the device cannot hold
 * is a device error; laplace_fast_tile names the tile with every field. */
START_TEST(fast_refuses_bad_tiles)
{
    laplace_grid g;
    ck_assert_app(laplace_grid_make(&g, 10, 10, 0, 1, 2, 2));
    laplace_plan plan = {3, 0.0f, 1};
    static const char *const bad[] = {
        "64x64", "64x64x32", "64x64x0", "64x64x4x3", "66x64x4", "64x64x4x4x5",
        "64x64x4x4x4x3", "64x64x4x4x4x1x1", "64x64x4x4x32", "64xx64x4",
        "64x64x4x", "x64x64x4", "64X64X4", "64x64x4 ", "",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        setenv("LAPLACE_TILE", bad[i], 1);
        if (!*bad[i])           /* empty: the default */
            ck_assert_app(solve_checked(&g, &plan, LAPLACE_FAST, NULL));
        else
            ck_assert_app_fails(solve_checked(&g, &plan, LAPLACE_FAST, NULL),
                                APP_ERR_BAD_INPUT, "LAPLACE_TILE");
    }
    setenv("LAPLACE_TILE", "4096x4096x8x4x16", 1);
    ck_assert_app_fails(solve_checked(&g, &plan, LAPLACE_FAST, NULL),
                        APP_ERR_DEVICE, "local memory");
    /* The other versions do not read it. */
    ck_assert_app(solve_checked(&g, &plan, LAPLACE_DOUBLE, NULL));
    setenv("LAPLACE_TILE", "64x32x4x2x8x1", 1);
    char name[64];
    clctx *own = test_run_context();
    ck_assert_app(laplace_fast_tile(own ? own : clctx_default(), name,
                                    sizeof name));
    ck_assert_str_eq(name, "64x32x4x2x8x1");
    setenv("LAPLACE_TILE", "64x64x4", 1);
    ck_assert_app(laplace_fast_tile(own ? own : clctx_default(), name,
                                    sizeof name));
    ck_assert_msg(!strncmp(name, "64x64x4x4x4x", 12), "%s", name);
    clctx_free(own);
    unsetenv("LAPLACE_TILE");
    laplace_grid_free(&g);
}
END_TEST

/* rows with small blocks and short launches (LAPLACE_ROW_BLOCK and
 * LAPLACE_ROW_STEPS), so that small grids have many blocks: heights that
 * are not a multiple of the block, fewer rows than a block, halos taller
 * than a block, one iteration per launch and the most, counts 0 to 3 and
 * counts that are not a multiple of a launch's iterations, random masks
 * (a tenth of the cells fixed, or half). */
START_TEST(rows_blocks_match_reference)
{
    static const struct {
        const char *block, *steps;
        uint32_t nx, ny, fixed_in;      /* 1 in fixed_in cells fixed */
    } shapes[] = {
        {"5", "4", 13, 23, 10},     /* 4 blocks of 5 rows and one of 3 */
        {"1", "3", 9, 11, 2},       /* blocks of a row, halos of 2 */
        {"2", "2", 17, 9, 10},
        {"7", "1", 6, 20, 2},       /* one iteration per launch */
        {"50", "4", 21, 9, 10},     /* fewer rows than a block */
        {"4", "64", 11, 30, 10},    /* the most per launch */
        {"3", "5", 70, 47, 10},
    };
    static const unsigned rows_counts[] = {0, 1, 2, 3, 7, 10, 100};
    for (int s = 0; s < RUN_SIZE(row_shapes); s++) {
        setenv("LAPLACE_ROW_BLOCK", shapes[s].block, 1);
        setenv("LAPLACE_ROW_STEPS", shapes[s].steps, 1);
        laplace_grid g;
        make_random_grid(&g, shapes[s].nx, shapes[s].ny, 500 + (uint32_t)s);
        uint32_t seed = 900 + (uint32_t)s;
        for (size_t i = 0; i < (size_t)g.nx * g.ny; i++)
            if (g.mask[i] && test_random(&seed) % shapes[s].fixed_in == 0)
                g.mask[i] = 0;
        for (int c = 0; c < RUN_SIZE(row_counts); c++) {
            char what[64];
            snprintf(what, sizeof what, "rows, blocks of %s, %s per launch",
                     shapes[s].block, shapes[s].steps);
            laplace_plan plan = {rows_counts[c], 0.0f, 1};
            assert_matches_reference(&g, &plan, LAPLACE_ROW_BLOCKS, what);
        }
        laplace_grid_free(&g);
    }
    unsetenv("LAPLACE_ROW_BLOCK");
    unsetenv("LAPLACE_ROW_STEPS");
}
END_TEST

/* rows measures the last iteration of a launch; a check stretch that is
 * not a multiple of its iterations per launch ends a shorter launch, and
 * the run stops at the reference's iteration with its largest change. */
START_TEST(rows_tolerance_stops_mid_launch)
{
    uint32_t nx = RUN_SIZE(tolerance_nx), ny = RUN_SIZE(tolerance_ny);
    laplace_grid g;
    make_random_grid(&g, nx, ny, 78);
    setenv("LAPLACE_ROW_BLOCK", "4", 1);
    setenv("LAPLACE_ROW_STEPS", "4", 1);
    /* Converging at a check 7 apart, capped 2 after a check 6 apart,
     * converging with checks every 9 and every iteration. */
    static const laplace_plan plans[] = {
        {100000, 1e-4f, 7}, {50, 1e-30f, 6}, {100000, 1e-3f, 9},
        {100000, 1e-3f, 1}};
    for (size_t p = 0; p < sizeof plans / sizeof *plans; p++)
        assert_matches_reference(&g, &plans[p], LAPLACE_ROW_BLOCKS,
                                 "rows, tolerance");
    unsetenv("LAPLACE_ROW_BLOCK");
    unsetenv("LAPLACE_ROW_STEPS");
    laplace_grid_free(&g);
}
END_TEST

/* rows reduces the change per block: each block's must count. Two fixed
 * cells at 1 either side of a free cell at 0 make its change (0.5) the
 * largest of one iteration, alone; it moves through every row, so through
 * every block of 2 rows (the last, rows 6 and 7, has a free row too). */
START_TEST(rows_change_counts_in_every_block)
{
    enum { N = 8 };
    setenv("LAPLACE_ROW_BLOCK", "2", 1);
    for (uint32_t y = 1; y < N - 1; y++) {
        laplace_grid g;
        ck_assert_app(laplace_grid_make(&g, N, N, 0.0f, 0.0f, 0, 0));
        for (uint32_t x = 2; x <= 4; x += 2) {
            g.mask[y * N + x] = 0;
            g.phi[y * N + x] = 1.0f;
        }
        laplace_plan plan = {1, 1e-30f, 1};
        assert_matches_reference(&g, &plan, LAPLACE_ROW_BLOCKS,
                                 "rows, the largest change in one row");
        laplace_grid_free(&g);
    }
    unsetenv("LAPLACE_ROW_BLOCK");
}
END_TEST

/* Shapes that are not whole numbers in range are refused, not run. */
START_TEST(rows_refuses_bad_shapes)
{
    laplace_grid g;
    ck_assert_app(laplace_grid_make(&g, 10, 10, 0, 1, 2, 2));
    laplace_plan plan = {3, 0.0f, 1};
    static const struct { const char *name, *value; } bad[] = {
        {"LAPLACE_ROW_BLOCK", "0"}, {"LAPLACE_ROW_BLOCK", "12abc"},
        {"LAPLACE_ROW_BLOCK", ""}, {"LAPLACE_ROW_BLOCK", "99999999999"},
        {"LAPLACE_ROW_STEPS", "0"}, {"LAPLACE_ROW_STEPS", "65"},
        {"LAPLACE_ROW_STEPS", "-1"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        setenv(bad[i].name, bad[i].value, 1);
        ck_assert_app_fails(solve_checked(&g, &plan, LAPLACE_ROW_BLOCKS,
                                          NULL), APP_ERR_BAD_INPUT,
                            bad[i].name);
        unsetenv(bad[i].name);
    }
    laplace_grid_free(&g);
}
END_TEST

START_TEST(tolerance_stops_where_the_reference_does)
{
    uint32_t nx = RUN_SIZE(tolerance_nx), ny = RUN_SIZE(tolerance_ny);
    laplace_grid g;
    make_random_grid(&g, nx, ny, 77);
    /* Converging at a check, capped off a check, and every iteration. */
    static const laplace_plan plans[] = {
        {100000, 1e-4f, 7}, {50, 1e-30f, 8}, {100000, 1e-3f, 1}};
    for (size_t p = 0; p < sizeof plans / sizeof *plans; p++)
        for (int v = 0; v < NVERSIONS; v++)
            assert_matches_reference(&g, &plans[p], versions[v], "tolerance");
    laplace_stats s = {0};
    ck_assert_app(laplace_solve(&g, &plans[0], LAPLACE_REFERENCE, NULL, &s));
    ck_assert(s.converged && s.max_change < 1e-4f);
    ck_assert_uint_eq(s.iterations % 7, 0);
    ck_assert_app(laplace_solve(&g, &plans[1], LAPLACE_REFERENCE, NULL, &s));
    ck_assert_uint_eq(s.iterations, 50);
    ck_assert_uint_eq(s.checks, 6);             /* at 8, 16, ..., 48 */
    laplace_grid_free(&g);
}
END_TEST

START_TEST(uniform_potential_is_exact)
{
    uint32_t nx = RUN_SIZE(uniform_nx), ny = RUN_SIZE(uniform_ny);
    size_t cells = (size_t)nx * ny;
    laplace_grid g;
    ck_assert_app(laplace_grid_make(&g, nx, ny, 3.0f, 3.0f,
                                    RUN_SIZE(uniform_object),
                                    RUN_SIZE(uniform_object) - 1));
    for (size_t i = 0; i < cells; i++)
        g.phi[i] = 3.0f;                /* already the solution: stays */
    laplace_plan plan = {RUN_SIZE(uniform_iterations), 0.0f, 1};
    for (int v = 0; v < NVERSIONS; v++) {
        laplace_grid got;
        ck_assert_app(laplace_grid_copy(&got, &g));
        ck_assert_app(solve_checked(&got, &plan, versions[v], NULL));
        for (size_t i = 0; i < cells; i++)
            ck_assert_msg(got.phi[i] == 3.0f, "%s: cell %zu is %.9g",
                          app_version_name(&laplace_versions, versions[v]), i, got.phi[i]);
        laplace_grid_free(&got);
    }
    /* From 0 inside, it converges to 3 everywhere. */
    for (size_t i = 0; i < cells; i++)
        g.phi[i] = g.mask[i] ? 0.0f : 3.0f;
    laplace_plan tol = {100000, 1e-7f, 10};
    laplace_stats s = {0};
    ck_assert_app(solve_checked(&g, &tol, LAPLACE_FAST, &s));
    ck_assert(s.converged);
    for (size_t i = 0; i < cells; i++)
        ck_assert_msg(fabsf(g.phi[i] - 3.0f) < 1e-5f, "cell %zu is %.9g", i,
                      g.phi[i]);
    laplace_grid_free(&g);
}
END_TEST

START_TEST(two_plates_give_a_linear_profile)
{
    /* Left column 1, right column 5, top and bottom rows linear between
     * them: the solution is linear in x. Within 1e-4 after convergence to
     * a change below 1e-8 on a grid of 16 x 10 (in a full run). */
    const uint32_t NX = RUN_SIZE(plates_nx), NY = RUN_SIZE(plates_ny);
    laplace_grid g;
    ck_assert_app(laplace_grid_make(&g, NX, NY, 0.0f, 0.0f, 0, 0));
    for (uint32_t y = 0; y < NY; y++)
        for (uint32_t x = 0; x < NX; x++) {
            size_t i = (size_t)y * NX + x;
            if (!g.mask[i])
                g.phi[i] = 1.0f + 4.0f * (float)x / (NX - 1);
        }
    laplace_plan plan = {200000, 1e-8f, 10};
    laplace_stats s = {0};
    ck_assert_app(solve_checked(&g, &plan, LAPLACE_DOUBLE, &s));
    ck_assert(s.converged);
    for (uint32_t y = 0; y < NY; y++)
        for (uint32_t x = 0; x < NX; x++) {
            float want = 1.0f + 4.0f * (float)x / (NX - 1);
            float got = g.phi[(size_t)y * NX + x];
            ck_assert_msg(fabsf(got - want) < 1e-4f, "x=%u y=%u: %.7g, the "
                          "linear profile has %.7g", x, y, got, want);
        }
    laplace_grid_free(&g);
}
END_TEST

START_TEST(stats_count_launches)
{
    laplace_grid g;
    ck_assert_app(laplace_grid_make(&g, 20, 20, 0.0f, 1.0f, 4, 4));
    laplace_plan plan = {10, 0.0f, 1};
    laplace_stats s = {.timing.want_kernel_time = 1};
    ck_assert_app(solve_checked(&g, &plan, LAPLACE_SEED, &s));
    ck_assert_uint_eq(s.timing.launches, 20);   /* update + copy each */
    ck_assert_app(solve_checked(&g, &plan, LAPLACE_DOUBLE, &s));
    ck_assert_uint_eq(s.timing.launches, 10);
    setenv("LAPLACE_TILE", "32x32x4", 1);
    ck_assert_app(solve_checked(&g, &plan, LAPLACE_FAST, &s));
    ck_assert_uint_eq(s.timing.launches, 3);    /* 4 + 4 + 2 */
    setenv("LAPLACE_TILE", "32x32x3", 1);
    ck_assert_app(solve_checked(&g, &plan, LAPLACE_FAST, &s));
    ck_assert_uint_eq(s.timing.launches, 4);    /* 3 + 3 + 3 + 1 */
    unsetenv("LAPLACE_TILE");
    ck_assert_msg(s.timing.kernel_ms > 0, "kernel time %g",
                  s.timing.kernel_ms);
    setenv("LAPLACE_ROW_STEPS", "4", 1);
    ck_assert_app(solve_checked(&g, &plan, LAPLACE_ROW_BLOCKS, &s));
    unsetenv("LAPLACE_ROW_STEPS");
    ck_assert_uint_eq(s.timing.launches, 3);    /* 4 + 3 + 3 */
    laplace_grid_free(&g);
}
END_TEST

START_TEST(bad_grids_and_plans_are_refused)
{
    laplace_grid g;
    ck_assert_app_fails(laplace_grid_make(&g, 2, 10, 0, 1, 0, 0),
                        APP_ERR_BAD_INPUT, "from 3 to");
    ck_assert_app_fails(laplace_grid_make(&g, 10, 10, 0, 1, 9, 2),
                        APP_ERR_BAD_INPUT, "does not fit");
    ck_assert_app_fails(laplace_grid_make(&g, 10, 10, NAN, 1, 2, 2),
                        APP_ERR_BAD_INPUT, "boundary potential");
    ck_assert_app_fails(laplace_grid_make(&g, 10, 10, 0, 1e35f, 2, 2),
                        APP_ERR_BAD_INPUT, "object potential");
    ck_assert_app(laplace_grid_make(&g, 10, 10, 0, 1, 2, 2));
    laplace_plan plan = {1, 0.0f, 1}, bad = {1, -1.0f, 1}, zero = {1, 1.f, 0};
    ck_assert_app_fails(laplace_solve(&g, &bad, LAPLACE_DOUBLE, NULL, NULL),
                        APP_ERR_BAD_INPUT, "tolerance");
    ck_assert_app_fails(laplace_solve(&g, &zero, LAPLACE_DOUBLE, NULL, NULL),
                        APP_ERR_BAD_INPUT, "tolerance");
    ck_assert_app_fails(laplace_solve(&g, &plan, LAPLACE_VERSION_COUNT, NULL,
                                  NULL), APP_ERR_BAD_INPUT, "no version");
    g.mask[3] = 1;                              /* a hole in the border */
    for (int v = 0; v < LAPLACE_VERSION_COUNT; v++)
        ck_assert_app_fails(laplace_solve(&g, &plan, (laplace_version)v, NULL,
                                      NULL), APP_ERR_BAD_INPUT, "x=3 y=0");
    g.mask[3] = 0;
    g.phi[55] = INFINITY;
    ck_assert_app_fails(laplace_solve(&g, &plan, LAPLACE_FAST, NULL, NULL),
                        APP_ERR_BAD_INPUT, "x=5 y=5");
    laplace_grid_free(&g);
}
END_TEST

START_TEST(names_and_object_sizes_parse)
{
    for (int v = 0; v < LAPLACE_VERSION_COUNT; v++)
        ck_assert_int_eq(app_version_parse(&laplace_versions, app_version_name(&laplace_versions, v)), v);
    ck_assert_int_eq(app_version_parse(&laplace_versions, "v7"), -1);
    ck_assert_int_eq(app_version_parse(&laplace_versions, NULL), -1);
    uint32_t w, h;
    ck_assert(laplace_object_parse("40x30", 100, 50, &w, &h));
    ck_assert(w == 40 && h == 30);
    ck_assert(laplace_object_parse("0.25x0.5", 100, 50, &w, &h));
    ck_assert(w == 25 && h == 25);
    ck_assert(laplace_object_parse("0x0", 100, 50, &w, &h));
    ck_assert(w == 0 && h == 0);
    ck_assert(!laplace_object_parse("99x3", 100, 50, &w, &h));
    ck_assert(!laplace_object_parse("1.5x0.5", 100, 50, &w, &h));
    ck_assert(!laplace_object_parse("10", 100, 50, &w, &h));
    ck_assert(!laplace_object_parse("ax3", 100, 50, &w, &h));
}
END_TEST

/* ---- PNG files -------------------------------------------------------------- */

/* Writes a PNG of any libpng colour type at depth 8 from rows of bytes. */
static const char *write_png(const char *name, uint32_t w, uint32_t h,
                             int type, const uint8_t *pixels, int channels)
{
    return test_write_png(test_tmp_path("laplace", name), w, h, type, pixels,
                          channels);
}

START_TEST(png_of_every_kind_loads_as_rgba)
{
    /* 3 x 2: black, white, mid grey / white, black, white. */
    const uint8_t grey[] = {0, 255, 128, 255, 0, 255};
    const uint8_t index[] = {0, 1, 1, 1, 0, 1};
    uint8_t rgba[24];
    for (int i = 0; i < 6; i++)
        rgba[4 * i] = rgba[4 * i + 1] = rgba[4 * i + 2] = grey[i],
        rgba[4 * i + 3] = i == 5 ? 7 : 255;
    const char *paths[] = {
        write_png("grey.png", 3, 2, PNG_COLOR_TYPE_GRAY, grey, 1),
        write_png("palette.png", 3, 2, PNG_COLOR_TYPE_PALETTE, index, 1),
        write_png("rgba.png", 3, 2, PNG_COLOR_TYPE_RGBA, rgba, 4)};
    for (int p = 0; p < 3; p++) {
        uint32_t w, h;
        uint8_t *px;
        ck_assert_app(image_png_load(paths[p], &w, &h, &px));
        ck_assert(w == 3 && h == 2);
        for (int i = 0; i < 6; i++) {
            uint8_t want = p == 1 ? (index[i] ? 255 : 0) : grey[i];
            ck_assert_msg(px[4 * i] == want && px[4 * i + 1] == want &&
                          px[4 * i + 2] == want, "%s pixel %d: %u, want %u",
                          paths[p], i, px[4 * i], want);
            ck_assert_uint_eq(px[4 * i + 3], p == 2 && i == 5 ? 7 : 255);
        }
        free(px);
    }
}
END_TEST

START_TEST(bad_png_files_are_refused)
{
    uint32_t w, h;
    uint8_t *px;
    const char *not_png = test_write_file("laplace-not.png", "hello, world");
    ck_assert_app_fails(image_png_load(not_png, &w, &h, &px),
                        APP_ERR_BAD_INPUT, "not a PNG");
    ck_assert_ptr_null(px);
    ck_assert_app_fails(image_png_load(test_tmp_path("laplace", "missing.png"),
                                   &w, &h, &px), APP_ERR_IO, "missing.png");
    /* A real PNG cut short, and one with its image data scrambled. */
    uint8_t grey[64 * 64];
    for (int i = 0; i < 64 * 64; i++)
        grey[i] = (uint8_t)(i * 7);
    const char *good = write_png("good.png", 64, 64, PNG_COLOR_TYPE_GRAY,
                                 grey, 1);
    size_t n;
    char *data = test_read_file(good, &n);
    const char *cut = test_tmp_path("laplace", "cut.png");
    FILE *f = fopen(cut, "wb");
    fwrite(data, 1, n / 2, f);
    fclose(f);
    ck_assert_app_fails(image_png_load(cut, &w, &h, &px), APP_ERR_BAD_INPUT,
                        "cut.png");
    ck_assert_ptr_null(px);
    for (size_t i = 60; i < n - 20; i++)
        data[i] ^= 0x5a;
    const char *bad = test_tmp_path("laplace", "corrupt.png");
    f = fopen(bad, "wb");
    fwrite(data, 1, n, f);
    fclose(f);
    ck_assert_app_fails(image_png_load(bad, &w, &h, &px), APP_ERR_BAD_INPUT,
                        "corrupt.png");
    free(data);
}
END_TEST

START_TEST(png_mask_makes_the_grid)
{
    /* 5 x 4 grey: a dark pixel at (2, 1) and (1, 2), a dark border pixel. */
    const uint8_t grey[] = {0, 255, 255, 255, 255,
                            255, 255, 10, 255, 255,
                            255, 100, 200, 255, 255,
                            255, 255, 255, 255, 255};
    const char *path = write_png("mask.png", 5, 4, PNG_COLOR_TYPE_GRAY, grey,
                                 1);
    laplace_grid g;
    ck_assert_app(laplace_grid_from_png(&g, path, 2.0f, 7.0f));
    ck_assert(g.nx == 5 && g.ny == 4);
    ck_assert_app(laplace_grid_validate(&g));
    ck_assert(g.mask[0] == 0 && g.phi[0] == 2.0f);     /* border wins */
    ck_assert(g.mask[7] == 0 && g.phi[7] == 7.0f);
    ck_assert(g.mask[11] == 0 && g.phi[11] == 7.0f);
    ck_assert(g.mask[6] == 1 && g.mask[12] == 1 && g.mask[8] == 1);
    laplace_grid_free(&g);
}
END_TEST

/* ---- the program ----------------------------------------------------------- */

static const char *tmp(const char *name)
{
    return test_tmp_path("laplace", name);
}

START_TEST(program_matches_the_library_and_writes_files)
{
    const char *raw = tmp("out.raw"), *png = tmp("out.png");
    ck_assert_int_eq(test_run("%s --size 37x23 --object 9x5 --boundary 0.5 "
                              "--object-potential 2 --iterations 30 --version "
                              "double -o %s --png %s 2>/dev/null",
                              test_program("laplace"), raw, png), 0);
    laplace_grid g;
    ck_assert_app(laplace_grid_make(&g, 37, 23, 0.5f, 2.0f, 9, 5));
    laplace_plan plan = {30, 0.0f, 1};
    ck_assert_app(laplace_solve(&g, &plan, LAPLACE_REFERENCE, NULL, NULL));
    size_t n;
    char *data = test_read_file(raw, &n);
    ck_assert_uint_eq(n, 37 * 23 * 4);
    ck_assert(memcmp(data, g.phi, n) == 0);     /* little-endian host */
    free(data);
    uint32_t w, h;
    uint8_t *px;
    ck_assert_app(image_png_load(png, &w, &h, &px));
    ck_assert(w == 37 && h == 23);
    free(px);
    /* A mask from that PNG: its grey conductor pixels are dark. */
    ck_assert_int_eq(test_run("%s --mask %s --tolerance 1e-3 --check-every 5 "
                              "--iterations 5000 -o %s 2>/dev/null",
                              test_program("laplace"), png, raw), 0);
    laplace_grid_free(&g);
}
END_TEST

START_TEST(program_refuses_bad_arguments)
{
    const char *out = tmp("bad.raw"), *err = tmp("err");
    const char *not_png = test_write_file("laplace-text.png", "text");
    static const struct {
        const char *args;
        int status;
        const char *message;
    } cases[] = {
        {"--size 10", 2, "is not NXxNY"},
        {"--size 2x10", 2, "3 or more"},
        {"--object 20x2 --size 10x10", 2, "--object \"20x2\""},
        {"--iterations -1", 2, "not a count"},
        {"--tolerance 0", 2, "above 0"},
        {"--check-every 0", 2, "--check-every"},
        {"--version v9", 2, "expected reference"},
        {"--boundary x", 2, "not a number"},
        {"--frobnicate 1", 2, "unknown option"},
        {"--object-potential 1e36", 1, "object potential"},
        {"--mask /nonexistent/m.png", 1, "/nonexistent/m.png"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        remove(out);
        int status = test_run("%s %s -o %s 2> %s", test_program("laplace"),
                              cases[i].args, out, err);
        ck_assert_msg(status == cases[i].status, "%s: exit status %d, "
                      "expected %d", cases[i].args, status, cases[i].status);
        size_t n;
        char *text = test_read_file(err, &n);
        ck_assert_msg(strstr(text, cases[i].message), "%s said: %s",
                      cases[i].args, text);
        free(text);
        ck_assert_msg(test_run("test -e %s", out) != 0, "%s left %s",
                      cases[i].args, out);
    }
    ck_assert_int_eq(test_run("%s --mask %s -o %s 2> %s",
                              test_program("laplace"), not_png, out, err), 1);
    ck_assert_int_eq(test_run("%s --size 9x9 2> %s", test_program("laplace"),
                              err), 2);             /* no output named */
    ck_assert_int_eq(test_run("%s --help > %s", test_program("laplace"), err),
                     0);
}
END_TEST

/* What the program writes to standard output is its result: lost there
 * ("> /dev/full"), it is a failure with a message, not exit status 0. */
START_TEST(the_program_fails_when_its_output_is_lost)
{
    static const char *const laplace_args[] = {
        "--help",
        NULL};
    test_assert_lost_output_fails("laplace", laplace_args);
}
END_TEST

Suite *laplace_suite(void)
{
    Suite *s = suite_create("laplace");
    TCase *tc = test_case("against the reference");
    tcase_add_loop_test(tc, seed_problem_matches_reference, 0,
                        RUN_SIZE(grids));
    tcase_add_loop_test(tc, random_grids_match_reference, 0,
                        RUN_SIZE(grids));
    tcase_add_test(tc, gpu_update_kernels_match_reference);
    tcase_add_test(tc, fast_tiles_match_reference);
    tcase_add_test(tc, fast_refuses_bad_tiles);
    tcase_add_test(tc, rows_blocks_match_reference);
    tcase_add_test(tc, rows_tolerance_stops_mid_launch);
    tcase_add_test(tc, rows_change_counts_in_every_block);
    tcase_add_test(tc, rows_refuses_bad_shapes);
    tcase_add_test(tc, tolerance_stops_where_the_reference_does);
    tcase_add_test(tc, uniform_potential_is_exact);
    tcase_add_test(tc, two_plates_give_a_linear_profile);
    tcase_add_test(tc, stats_count_launches);
    tcase_add_test(tc, bad_grids_and_plans_are_refused);
    tcase_add_test(tc, names_and_object_sizes_parse);
    suite_add_tcase(s, tc);
    TCase *png = test_case("png");
    tcase_add_test(png, png_of_every_kind_loads_as_rgba);
    tcase_add_test(png, bad_png_files_are_refused);
    tcase_add_test(png, png_mask_makes_the_grid);
    suite_add_tcase(s, png);
    /* Child processes would reopen Oclgrind's log: not under it. */
    TCase *programs = test_case("program");
    tcase_set_tags(programs, "no-oclgrind");
    tcase_add_test(programs, program_matches_the_library_and_writes_files);
    tcase_add_test(programs, program_refuses_bad_arguments);
    tcase_add_test(programs, the_program_fails_when_its_output_is_lost);
    suite_add_tcase(s, programs);
    return s;
}
