/*
 * matmul.c: every OpenCL version of apps/matmul against the exact
 * product (matmul_compare's k-scaled bound) and the C reference, on
 * square, rectangular, tiny, odd and prime sizes and sizes just past the
 * tiles; the blocked kernel with several tiles; argument errors; and
 * bin/matmul's output and exit statuses.
 */
#include "common/tests/testing.h"
#include "matmul/matmul.h"

#include <stdlib.h>
#include <string.h>

typedef struct mm_size {
    uint32_t m, k, n;
} mm_size;

/* Tiny, odd, prime, rectangular, and one past 16 and 32 (every tile's
 * edge); small enough for Oclgrind. */
static const mm_size memory_sizes[] = {
    {1, 1, 1}, {1, 7, 1}, {5, 1, 9}, {17, 13, 5}, {3, 24, 2}, {16, 16, 16},
    {17, 17, 17}, {23, 19, 11}, {24, 5, 23},
};
/* Larger ones for the normal run: the brief's sizes and multiples of the
 * GPU tile (128) and of the CPU tile (32), plus one past them. */
static const mm_size full_sizes[] = {
    {17, 33, 5}, {31, 1, 64}, {65, 63, 67}, {64, 64, 64}, {33, 65, 129},
    {128, 16, 128}, {129, 17, 131}, {100, 200, 50}, {1, 300, 1},
    {200, 3, 1}, {97, 101, 103},
};

/* The sizes per run (support.h): how many of full_sizes each version
 * multiplies, and of the panels' sizes. */
static const struct {
    int full_sizes, panel_sizes;
} run_sizes[] = {
    [TEST_FULL]    = {sizeof full_sizes / sizeof *full_sizes, 4},
    [TEST_CHECKED] = {0, 1},
};

/* A plan on the context test_run_context gives (a fresh one under
 * Oclgrind). */
typedef struct mm_device {
    clctx *own;
    matmul_plan *plan;
} mm_device;

static mm_device device_open(matmul_version v, const matmul_tile *tile)
{
    mm_device d = {test_run_context(), NULL};
    d.plan = matmul_plan_new(d.own, v, tile, NULL);
    ck_assert_app_made(d.plan);
    return d;
}

static void device_close(mm_device *d)
{
    matmul_plan_free(d->plan);
    clctx_free(d->own);
}

static float *random_matrix(size_t count, uint32_t *state)
{
    float *p = malloc(count * sizeof *p);
    ck_assert_ptr_nonnull(p);
    for (size_t i = 0; i < count; i++)
        p[i] = (float)test_random(state) / (1 << 23) - 1.0f;  /* [-1, 1) */
    return p;
}

/* Runs plan on random m x k and k x n matrices and checks C against the
 * exact product and the C reference (both within the bound). */
static void assert_multiplies(matmul_plan *plan, const char *what, mm_size s)
{
    uint32_t state = s.m * 7919u + s.k * 31u + s.n;
    float *a = random_matrix((size_t)s.m * s.k, &state);
    float *b = random_matrix((size_t)s.k * s.n, &state);
    size_t nc = (size_t)s.m * s.n;
    float *c = malloc(nc * sizeof *c), *ref = malloc(nc * sizeof *ref);
    ck_assert(c && ref);
    for (size_t i = 0; i < nc; i++)
        c[i] = 1e30f;                       /* a missed element fails */
    int rc = matmul_plan_run(plan, a, b, c, s.m, s.k, s.n);
    ck_assert_msg(rc == 0, "%s %u x %u x %u: %s", what, s.m, s.k, s.n,
                  app_last_error());
    ck_assert_app(matmul_reference(a, b, ref, s.m, s.k, s.n));
    double worst, ref_worst;
    long wrong = matmul_compare(a, b, c, s.m, s.k, s.n, &worst);
    ck_assert_int_eq(matmul_compare(a, b, ref, s.m, s.k, s.n, &ref_worst), 0);
    ck_assert_msg(wrong == 0, "%s %u x %u x %u: %ld elements beyond the "
                  "bound (worst %.3g of it)", what, s.m, s.k, s.n, wrong,
                  worst);
    free(a);
    free(b);
    free(c);
    free(ref);
}

static void assert_version_on_all_sizes(matmul_version v,
                                        const matmul_tile *tile)
{
    mm_device d = device_open(v, tile);
    for (size_t i = 0; i < sizeof memory_sizes / sizeof *memory_sizes; i++)
        assert_multiplies(d.plan, app_version_name(&matmul_versions, v), memory_sizes[i]);
    for (int i = 0; i < RUN_SIZE(full_sizes); i++)
        assert_multiplies(d.plan, app_version_name(&matmul_versions, v), full_sizes[i]);
    device_close(&d);
}

/* ---- the versions ---------------------------------------------------------- */

static const matmul_version versions[] = {
    MATMUL_REFERENCE, MATMUL_OPENMP, MATMUL_NAIVE, MATMUL_TILED,
    MATMUL_BLOCKED,
};

START_TEST(version_matches_exact_product)
{
    assert_version_on_all_sizes(versions[_i], NULL);
}
END_TEST

/* The OpenCL versions in row panels (clkernel_call_chunked), from pageable
 * and pinned arrays, give the bits the whole call gives: the same kernel
 * over the same rows. Panels of one row group, of several, and more
 * panels than row groups. */
static void assert_chunks_match_whole(clctx *ctx, matmul_plan *plan,
                                      const char *what, mm_size s, int pinned)
{
    uint32_t state = s.m * 31u + s.k + s.n * 7u;
    size_t na = (size_t)s.m * s.k, nb = (size_t)s.k * s.n;
    size_t nc = (size_t)s.m * s.n;
    float *a = pinned ? clframe_host_alloc(ctx, na * sizeof *a)
                      : malloc(na * sizeof *a);
    float *c = pinned ? clframe_host_alloc(ctx, nc * sizeof *c)
                      : malloc(nc * sizeof *c);
    float *b = random_matrix(nb, &state), *whole = malloc(nc * sizeof *whole);
    ck_assert(a && c && whole);
    float *ra = random_matrix(na, &state);
    memcpy(a, ra, na * sizeof *a);
    free(ra);
    matmul_plan_set_chunks(plan, 1);
    ck_assert_app(matmul_plan_run(plan, a, b, whole, s.m, s.k, s.n));
    static const unsigned chunks[] = {2, 3, 7, 1000};
    for (int i = 0; i < 4; i++) {
        for (size_t j = 0; j < nc; j++)
            c[j] = 1e30f;
        matmul_plan_set_chunks(plan, chunks[i]);
        ck_assert_app(matmul_plan_run(plan, a, b, c, s.m, s.k, s.n));
        ck_assert_msg(memcmp(c, whole, nc * sizeof *c) == 0, "%s %u x %u x "
                      "%u in %u panels, %s: differs from the whole call",
                      what, s.m, s.k, s.n, chunks[i],
                      pinned ? "pinned" : "pageable");
    }
    matmul_plan_set_chunks(plan, 0);
    if (pinned) {
        ck_assert_cl(clframe_host_free(a));
        ck_assert_cl(clframe_host_free(c));
    } else {
        free(a);
        free(c);
    }
    free(b);
    free(whole);
}

START_TEST(panels_match_the_whole_call)
{
    static const matmul_version opencl[] = {MATMUL_NAIVE, MATMUL_TILED,
                                            MATMUL_BLOCKED};
    static const mm_size sizes[] = {{1, 3, 5}, {17, 13, 5}, {97, 33, 65},
                                    {300, 20, 40}};
    mm_device d = device_open(opencl[_i], NULL);
    for (int i = 0; i < RUN_SIZE(panel_sizes); i++)
        for (int pinned = 0; pinned < 2; pinned++)
            assert_chunks_match_whole(d.own ? d.own : clctx_default(),
                                      d.plan, app_version_name(
                &matmul_versions, opencl[_i]), sizes[i], pinned);
    device_close(&d);
}
END_TEST

/* Tiles of other shapes: tall, wide, deep, shallow, padded, a column-wide
 * work-group; the GPU and CPU defaults too (on a CPU the GPU's is just
 * another shape). */
static const char *const tiles[] = {
    "8x8x16x16x16x4", "8x8x32x16x16x4", "4x8x8x4x8x0", "8x4x4x8x4x8",
    "4x4x8x1x16", "4x4x4x4x4", "4x4x16x8x8x0",
};

/* A tile the device cannot hold (8x8x32x16x16x4 needs 33 KB of local
 * memory; Oclgrind has 32) is refused by the plan with a message, never
 * launched. */
START_TEST(blocked_tiles_match_exact_product)
{
    matmul_tile tile;
    ck_assert_app(matmul_tile_parse(tiles[_i], &tile));
    if (matmul_tile_fits(NULL, &tile) == 0) {
        assert_version_on_all_sizes(MATMUL_BLOCKED, &tile);
        return;
    }
    int rc;
    ck_assert_ptr_null(matmul_plan_new(NULL, MATMUL_BLOCKED, &tile, &rc));
    ck_assert_int_eq(rc, APP_ERR_DEVICE);
    ck_assert_msg(strstr(app_last_error(), "bytes of local memory"),
                  "%s", app_last_error());
}
END_TEST

START_TEST(matmul_tile_env_var_is_used_and_checked)
{
    matmul_tile tile;
    setenv("MATMUL_TILE", "4x4x8x4x8", 1);
    ck_assert_app(matmul_tile_choose(NULL, &tile));
    ck_assert_uint_eq(tile.tm, 4);
    ck_assert_uint_eq(tile.wy, 8);
    ck_assert_uint_eq(tile.pad, 4);
    mm_device d = device_open(MATMUL_BLOCKED, NULL);
    ck_assert_uint_eq(matmul_plan_tile(d.plan)->tn, 4);
    assert_multiplies(d.plan, "MATMUL_TILE=4x4x8x4x8", (mm_size){19, 9, 21});
    device_close(&d);
    setenv("MATMUL_TILE", "8x8x6x16x16", 1);        /* TK not a multiple of 4 */
    ck_assert_app_fails(matmul_tile_choose(NULL, &tile), APP_ERR_BAD_INPUT,
                        "multiples of 4");
    setenv("MATMUL_TILE", "8x8x16x64x64", 1);       /* groups of 4096 */
    int rc = matmul_tile_choose(NULL, &tile);
    ck_assert(rc == 0 || rc == APP_ERR_DEVICE);
    unsetenv("MATMUL_TILE");
    ck_assert_app_fails(matmul_tile_parse("8x8x16", &tile), APP_ERR_BAD_INPUT,
                        "TMxTNxTKxWXxWY");
    ck_assert_app_fails(matmul_tile_parse("8x8x16x16x16x1x", &tile),
                        APP_ERR_BAD_INPUT, "TMxTNxTKxWXxWY");
    ck_assert_app_fails(matmul_tile_parse("3x4x16x3x8", &tile),
                        APP_ERR_BAD_INPUT, "multiples of 4");
    ck_assert_app_fails(matmul_tile_parse("4x4x16x4x8x2", &tile),
                        APP_ERR_BAD_INPUT, "PAD");
}
END_TEST

START_TEST(one_call_form_and_names)
{
    float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, 0, 0, 1, 1, 1}, c[4];
    /* [1 2 3; 4 5 6] x [1 0; 0 1; 1 1] = [4 5; 10 11], exactly. */
    for (int v = 0; v < MATMUL_VERSION_COUNT; v++) {
        memset(c, 0, sizeof c);
        ck_assert_app(matmul(a, b, c, 2, 3, 2, (matmul_version)v, NULL));
        ck_assert_msg(c[0] == 4 && c[1] == 5 && c[2] == 10 && c[3] == 11,
                      "%s: %g %g %g %g", app_version_name(&matmul_versions, v), c[0], c[1],
                      c[2], c[3]);
        ck_assert_int_eq(app_version_parse(&matmul_versions, app_version_name(&matmul_versions, v)), v);
    }
    ck_assert_int_eq(app_version_parse(&matmul_versions, "fast"), -1);
    ck_assert_int_eq(app_version_parse(&matmul_versions, NULL), -1);
    ck_assert_str_eq(app_version_name(&matmul_versions, MATMUL_VERSION_COUNT), "unknown");
}
END_TEST

START_TEST(bad_arguments_are_refused)
{
    float x[4] = {0};
    ck_assert_app_fails(matmul(NULL, x, x + 2, 1, 1, 1, MATMUL_NAIVE, NULL),
                        APP_ERR_USAGE, "NULL");
    ck_assert_app_fails(matmul(x, x, NULL, 1, 1, 1, MATMUL_REFERENCE, NULL),
                        APP_ERR_USAGE, "NULL");
    ck_assert_app_fails(matmul(x, x, x + 2, 0, 1, 1, MATMUL_BLOCKED, NULL),
                        APP_ERR_BAD_INPUT, "at least 1");
    ck_assert_app_fails(matmul(x, x, x + 2, 1, 1, 0, MATMUL_TILED, NULL),
                        APP_ERR_BAD_INPUT, "at least 1");
    ck_assert_app_fails(matmul(x, x, x + 2, UINT32_MAX, UINT32_MAX, 1,
                           MATMUL_REFERENCE, NULL),
                        APP_ERR_BAD_INPUT, "overflows");
    ck_assert_app_fails(matmul(x, x, x + 2, 1, 1, 1, (matmul_version)99, NULL),
                        APP_ERR_USAGE, "unknown version");
    ck_assert_app_fails(matmul_plan_run(NULL, x, x, x + 2, 1, 1, 1),
                        APP_ERR_USAGE, "no plan");
}
END_TEST

START_TEST(compare_finds_wrong_elements)
{
    float a[4] = {1, 2, 3, 4}, b[4] = {1, 1, 1, 1}, c[4];
    ck_assert_app(matmul_reference(a, b, c, 2, 2, 2));
    double worst;
    ck_assert_int_eq(matmul_compare(a, b, c, 2, 2, 2, &worst), 0);
    ck_assert(worst == 0);
    c[3] *= 1.0001f;                /* far beyond 2 * 2^-22 relative */
    ck_assert_int_eq(matmul_compare(a, b, c, 2, 2, 2, &worst), 1);
    ck_assert(worst > 1);
}
END_TEST

/* ---- tuning ------------------------------------------------------------------ */

/* Tuning on a short list: a tile no device runs (groups of 16384) is
 * skipped, the fastest of the others is kept for the device and chosen
 * from then on (below MATMUL_TILE), and a kept value this build cannot run
 * is ignored. The setting lives in a cache folder of the test's own. */
START_TEST(tuning_keeps_the_fastest_tile_for_the_device)
{
    static const char *const candidates[] = {
        "4x4x8x128x128x0", "4x4x16x8x8x0", "4x4x8x8x8x0",
    };
    char *old_xdg = getenv("XDG_CACHE_HOME") ? strdup(getenv("XDG_CACHE_HOME"))
                                              : NULL;
    char *old_cache = getenv("CLFRAME_CACHE") ? strdup(getenv("CLFRAME_CACHE"))
                                              : NULL;
    char home[300];
    snprintf(home, sizeof home, "%s/tune-XXXXXX", test_tmpdir());
    ck_assert_ptr_nonnull(mkdtemp(home));
    setenv("XDG_CACHE_HOME", home, 1);
    unsetenv("CLFRAME_CACHE");
    clctx *own = test_run_context(), *ctx = own ? own : clctx_default();
    ck_assert_app_made(ctx);

    matmul_tile defaults, best, chosen;
    ck_assert_app(matmul_tile_choose(ctx, &defaults));
    const char *report_path = test_tmp_path("matmul", "tune.txt");
    FILE *report = fopen(report_path, "w");
    ck_assert_ptr_nonnull(report);
    ck_assert_app(matmul_tune(ctx, 24, 1, candidates, 3, &best, report));
    fclose(report);
    size_t size;
    char *text = test_read_file(report_path, &size);
    ck_assert_msg(strstr(text, "4x4x8x128x128x0  skipped: matmul tile") &&
                  strstr(text, "4x4x16x8x8x0 ") && strstr(text, "GFLOP/s"),
                  "%s", text);
    free(text);
    ck_assert(best.tk == 16 || best.tk == 8);
    ck_assert_uint_eq(best.wx, 8);

    ck_assert_app(matmul_tile_save(ctx, &best));
    ck_assert_app(matmul_tile_choose(ctx, &chosen));
    ck_assert_mem_eq(&chosen, &best, sizeof best);
    setenv("MATMUL_TILE", "4x4x4x4x4", 1);
    ck_assert_app(matmul_tile_choose(ctx, &chosen));
    ck_assert_uint_eq(chosen.tk, 4);
    unsetenv("MATMUL_TILE");
    ck_assert_app(clctx_setting_put(ctx, "matmul-tile", "4x4x8x128x128x0"));
    ck_assert_app(matmul_tile_choose(ctx, &chosen));
    ck_assert_mem_eq(&chosen, &defaults, sizeof defaults);

    /* Nothing to run: an error that says so; bad arguments. */
    ck_assert_app_fails(matmul_tune(ctx, 24, 1, candidates, 1, &best, NULL),
                        APP_ERR_DEVICE, "none of the 1 candidate tiles");
    ck_assert_app_fails(matmul_tune(ctx, 0, 1, NULL, 0, &best, NULL),
                        APP_ERR_USAGE, "size 0");

    clctx_free(own);
    if (old_xdg)
        setenv("XDG_CACHE_HOME", old_xdg, 1);
    else
        unsetenv("XDG_CACHE_HOME");
    if (old_cache)
        setenv("CLFRAME_CACHE", old_cache, 1);
    free(old_xdg);
    free(old_cache);
    test_run("rm -rf %s", home);
}
END_TEST

/* ---- bin/matmul --------------------------------------------------------------- */

START_TEST(program_checks_and_refuses_bad_arguments)
{
    const char *out = test_tmp_path("matmul", "out.txt");
    for (size_t v = 0; v < sizeof versions / sizeof *versions; v++) {
        ck_assert_int_eq(test_run("%s 33 17 9 --version %s --check --repeat "
                                  "2 > %s", test_program("matmul"),
                                  app_version_name(&matmul_versions, versions[v]), out), 0);
        size_t size;
        char *text = test_read_file(out, &size);
        ck_assert_msg(strstr(text, "GFLOP/s") && strstr(text, "check: ok"),
                      "%s", text);
        free(text);
    }
    static const char *const bad[] = {
        "", "1 2", "0 2 3", "1 2 x", "1 2 3 4", "1 2 3 --version fast",
        "1 2 3 --repeat 0", "1 2 3 --seed", "1 2 3 --frobnicate",
        "--tune 0", "--tune 20000", "--tune 64 5", "1 2 3 --tune",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        ck_assert_msg(test_run("%s %s > /dev/null 2>&1",
                               test_program("matmul"), bad[i]) == 2,
                      "matmul %s did not exit with 2", bad[i]);
    ck_assert_int_eq(test_run("MATMUL_TILE=1x2x3 %s 4 4 4 > /dev/null 2>&1",
                              test_program("matmul")), 1);
    ck_assert_int_eq(test_run("%s --help > /dev/null", test_program("matmul")),
                     0);
}
END_TEST

/* What the program writes to standard output is its result: lost there
 * ("> /dev/full"), it is a failure with a message, not exit status 0. */
START_TEST(the_program_fails_when_its_output_is_lost)
{
    static const char *const matmul_args[] = {
        "8 8 8 --version reference",
        "--help",
        NULL};
    test_assert_lost_output_fails("matmul", matmul_args);
}
END_TEST

Suite *matmul_suite(void)
{
    Suite *s = suite_create("matmul");
    TCase *tc = test_case("versions");
    tcase_add_loop_test(tc, version_matches_exact_product, 0,
                        sizeof versions / sizeof *versions);
    tcase_add_loop_test(tc, blocked_tiles_match_exact_product, 0,
                        sizeof tiles / sizeof *tiles);
    tcase_add_test(tc, matmul_tile_env_var_is_used_and_checked);
    tcase_add_test(tc, one_call_form_and_names);
    tcase_add_test(tc, bad_arguments_are_refused);
    tcase_add_test(tc, compare_finds_wrong_elements);
    tcase_add_test(tc, tuning_keeps_the_fastest_tile_for_the_device);
    suite_add_tcase(s, tc);

    /* A's panels are written at offsets: see scripts/check-oclgrind. */
    TCase *panels = test_case("panels");
    tcase_add_loop_test(panels, panels_match_the_whole_call, 0, 3);
    tcase_set_tags(panels, "partial-writes");
    suite_add_tcase(s, panels);

    TCase *programs = test_case("programs");
    tcase_add_test(programs, program_checks_and_refuses_bad_arguments);
    tcase_add_test(programs, the_program_fails_when_its_output_is_lost);
    tcase_set_tags(programs, "no-oclgrind");
    suite_add_tcase(s, programs);
    return s;
}
