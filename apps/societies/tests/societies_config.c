/*
 * societies_config.c: the Societies configuration and formulas
 * (apps/societies/config.c, apps/societies/kernels/model.h). Defaults that pass
 * the checks; a file with comments, spaces and per-resource lists; the
 * README's example, comments after values; every kind of bad line (a key
 * given twice too) refused with its name and line number, and every range
 * check; files that cannot be read, are not text or are too long; the
 * build definitions, seen by a kernel built with them. The formulas
 * against values worked out by hand (Python, double precision) on the
 * host, and the device's through generated shims within float rounding.
 */
#include "common/tests/testing.h"
#include "societies/societies.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The sizes per run (support.h). */
static const struct {
    int experience_step;        /* between the formulas' tested points */
} run_sizes[] = {
    [TEST_FULL]    = {7},
    [TEST_CHECKED] = {50},
};

START_TEST(defaults_pass_the_checks)
{
    societies_config c;
    societies_config_default(&c);
    ck_assert_app(societies_config_check(&c, 256));
    ck_assert_int_eq(c.resources, 16);
    ck_assert_int_eq(c.minutes_per_day, 600);
    ck_assert(c.utility_level[255] == 1.0f && c.utility_root[0] == 2.0f);
    /* A device whose work-groups are smaller than the resources. */
    ck_assert_app_fails(societies_config_check(&c, 8), APP_ERR_BAD_INPUT,
                        "resources must be 1 to");
    /* Set directly, past what a file may say: the checks still hold. */
    c.resources = 32;
    c.menu_size = 17;
    ck_assert_app_fails(societies_config_check(&c, 0), APP_ERR_BAD_INPUT,
                        "menu_size must be 1 to resources, and at most 16");
    c.menu_size = 16;
    ck_assert_app(societies_config_check(&c, 0));
    c.agents = SOCIETIES_MAX_AGENTS + 1;
    ck_assert_app_fails(societies_config_check(&c, 0), APP_ERR_BAD_INPUT,
                        "agents must be 1 to 4194304");
}
END_TEST

START_TEST(a_file_sets_values_and_lists)
{
    const char *text =
        "# a small society\n"
        "\n"
        "  agents = 2000  \n"
        "resources=4\n"
        "days = 3\n"
        "epsilon = 0.1\n"
        "utility_level = 1 2 3 4.5\n"
        "utility_root = 3\n"
        "seed = 18446744073709551615\n"
        "menu_size = 2\n";
    societies_config c;
    societies_config_default(&c);
    ck_assert_app(societies_config_parse(text, "small.conf", &c));
    ck_assert_int_eq(c.agents, 2000);
    ck_assert_int_eq(c.resources, 4);
    ck_assert_int_eq(c.days, 3);
    ck_assert(c.epsilon == 0.1f);
    ck_assert(c.utility_level[0] == 1.0f && c.utility_level[3] == 4.5f);
    ck_assert(c.utility_root[0] == 3.0f && c.utility_root[3] == 3.0f);
    ck_assert(c.seed == 18446744073709551615ull);
    ck_assert_int_eq(c.menu_size, 2);
    ck_assert_int_eq(c.minutes_per_day, 600);       /* the default kept */
}
END_TEST

/* The example of apps/societies/README.md, as it shows it: comments after
 * values. It gives the defaults. */
START_TEST(the_readmes_example_is_read)
{
    const char *text =
        "agents = 1000            # 1 to 2^22 (4194304): a random stream "
        "each\n"
        "resources = 16           # a work-item each: at most the work-group "
        "size\n"
        "days = 10\n"
        "minutes_per_day = 600\n"
        "utility_level = 1        # D (> 0): one value for all, or one per "
        "resource\n"
        "utility_root = 2         # n (at least 1), likewise\n"
        "epsilon = 0.05           # candidates: gain per minute >= (1 - "
        "epsilon) best\n"
        "max_experience = 100\n"
        "min_effort = 1           # minutes a unit, fully experienced\n"
        "max_effort = 10          # minutes a unit, without experience\n"
        "menu_size = 4            # 1 to resources, at most 16\n"
        "trades_per_pairing = 4\n"
        "idle_penalty = 1\n"
        "seed = 1\n";
    societies_config c, defaults;
    societies_config_default(&defaults);
    memset(&c, 0x5a, sizeof c);
    societies_config_default(&c);
    c.agents = 7;
    c.epsilon = 0.5f;
    ck_assert_app(societies_config_parse(text, "README.md", &c));
    ck_assert_mem_eq(&c, &defaults, sizeof c);
    ck_assert_app(societies_config_parse("days = 5# no space\n", "t", &c));
    ck_assert_int_eq(c.days, 5);
}
END_TEST

/* A key given twice is refused, naming both lines, rather than taken
 * from its last. */
START_TEST(a_key_given_twice_is_refused)
{
    static const struct {
        const char *text, *says;
    } bad[] = {
        {"agents = 10\n# c\nagents = 20\n", "t.conf:3: agents is given "
                                            "again: line 1 gave it already"},
        {"seed = 1\nseed=1\n", "t.conf:2: seed is given again: line 1"},
        {"resources = 2\nutility_root = 2\nepsilon = 0.1\n"
         "utility_root = 1 2\n", "t.conf:4: utility_root is given again: "
                                 "line 2"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        societies_config c;
        societies_config_default(&c);
        ck_assert_app_fails(societies_config_parse(bad[i].text, "t.conf", &c),
                            APP_ERR_BAD_INPUT, bad[i].says);
    }
}
END_TEST

START_TEST(bad_lines_are_named_with_their_number)
{
    static const struct {
        const char *text, *says;
    } bad[] = {
        {"agents = 10\n\nwealth = 3\n", "t.conf:3: unknown key \"wealth\""},
        {"agents 10\n", "t.conf:1: \"agents 10\" is not key = value"},
        {"agents =\n", "t.conf:1: agents: a key and a value are needed"},
        {"# c\nresources = 257\n", "t.conf:2: resources = 257: a whole "
                                   "number from 1 to 256"},
        {"days = -1\n", "t.conf:1: days = -1"},
        {"agents = 10x\n", "t.conf:1: agents = 10x"},
        {"epsilon = nan\n", "t.conf:1: epsilon = nan: a number"},
        {"seed = -3\n", "t.conf:1: seed = -3"},
        {"resources = 4\nutility_level = 1 2 3\n",
         "t.conf:2: utility_level lists 3 values for 4 resources"},
        {"utility_root = 2 x\n", "t.conf:1: utility_root: 'x' is not a "
                                  "finite number"},
        {"epsilon = 1.5\n", "epsilon must be at least 0 and below 1"},
        {"min_effort = 5\nmax_effort = 2\n", "max_effort at least min_effort"},
        {"min_effort = 0\n", "min_effort must be above 0"},
        {"resources = 3\nmenu_size = 4\n", "menu_size must be 1 to resources"},
        {"resources = 32\nmenu_size = 17\n", "t.conf:2: menu_size = 17: a "
                                              "whole number from 1 to 16"},
        {"agents = 4194305\n", "agents = 4194305: a whole number from 1 to "
                                "4194304"},
        {"utility_level = 0\n", "every utility_level must be above 0"},
        {"utility_root = 0.5\n", "every utility_root must be at least 1"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        societies_config c;
        societies_config_default(&c);
        ck_assert_app_fails(societies_config_parse(bad[i].text, "t.conf", &c),
                            APP_ERR_BAD_INPUT, bad[i].says);
    }
}
END_TEST

/* A list one value too long for 256 resources was "finite numbers are
 * needed" (its values all finite); it says how many it lists, and the
 * most it may. 256 values for 256 resources are taken. */
START_TEST(a_list_too_long_says_its_count)
{
    static const int counts[] = {256, 257, 300};
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
        char text[4096], says[160];
        int at = snprintf(text, sizeof text, "resources = 256\n"
                          "utility_level =");
        for (int v = 0; v < counts[i]; v++)
            at += snprintf(text + at, sizeof text - (size_t)at, " %d",
                           v % 9 + 1);
        snprintf(text + at, sizeof text - (size_t)at, "\n");
        societies_config c;
        societies_config_default(&c);
        int rc = societies_config_parse(text, "t.conf", &c);
        if (counts[i] <= SOCIETIES_MAX_RESOURCES) {
            ck_assert_app(rc);
            ck_assert(c.utility_level[255] == 255 % 9 + 1);
            continue;
        }
        snprintf(says, sizeof says, "t.conf:2: utility_level lists %d "
                 "values; give one for all, or one per resource (at most "
                 "256)", counts[i]);
        ck_assert_msg(rc == APP_ERR_BAD_INPUT, "%d values: %d, %s",
                      counts[i], rc, app_last_error());
        ck_assert_str_eq(app_last_error(), says);
    }
}
END_TEST

START_TEST(files_are_read_or_refused)
{
    const char *path = test_tmp_path("societies", "ok.conf");
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("agents = 7\nresources = 2\nmenu_size = 1\n", f);
    fclose(f);
    societies_config c;
    societies_config_default(&c);
    ck_assert_app(societies_config_read(path, &c));
    ck_assert_int_eq(c.agents, 7);
    ck_assert_app_fails(societies_config_read(test_tmp_path("societies",
                                                        "missing.conf"), &c),
                        APP_ERR_IO, "missing.conf: cannot read it");
    const char *binary = test_tmp_path("societies", "nul.conf");
    f = fopen(binary, "wb");
    ck_assert_ptr_nonnull(f);
    fwrite("agents = 1\0\n", 1, 12, f);
    fclose(f);
    ck_assert_app_fails(societies_config_read(binary, &c), APP_ERR_BAD_INPUT,
                        "nul.conf:1: a NUL byte at byte offset 10: this is "
                        "not text");
    /* Past 1 MiB a file is refused, whatever it holds. */
    const char *huge = test_tmp_path("societies", "huge.conf");
    f = fopen(huge, "w");
    ck_assert_ptr_nonnull(f);
    for (int i = 0; i < 40000; i++)
        fputs("# twenty-seven bytes a line\n", f);
    fclose(f);
    ck_assert_app_fails(societies_config_read(huge, &c), APP_ERR_BAD_INPUT,
                        "huge.conf: longer than 1048576 bytes");
    const char *wide = test_tmp_path("societies", "wide.conf");
    f = fopen(wide, "w");
    ck_assert_ptr_nonnull(f);
    fputs("days = 2\nutility_root =", f);
    for (int i = 0; i < 2000; i++)
        fputs(" 1.5", f);
    fclose(f);
    ck_assert_app_fails(societies_config_read(wide, &c), APP_ERR_BAD_INPUT,
                        "wide.conf:2: the line is longer than 4095 "
                        "characters");
}
END_TEST

/* A kernel built with the definitions sees the configuration's values. */
START_TEST(kernels_are_built_with_the_values)
{
    societies_config c;
    societies_config_default(&c);
    c.resources = 37;
    c.epsilon = 0.3f;
    c.max_effort = 12.5f;
    char defines[512];
    ck_assert_app(societies_config_defines(&c, defines, sizeof defines));
    ck_assert_ptr_nonnull(strstr(defines, "-DSOCIETIES_RESOURCES=37 "));
    ck_assert_app_fails(societies_config_defines(&c, defines, 20),
                        APP_ERR_USAGE, "do not fit");
    ck_assert_app(societies_config_defines(&c, defines, sizeof defines));
    clctx *ctx = test_run_context();
    clkernel *k = clkernel_source(
        ctx, "__kernel void seen(__global int *i, __global float *f) {\n"
             "    i[0] = SOCIETIES_RESOURCES; i[1] = SOCIETIES_MENU_SIZE;\n"
             "    f[0] = SOCIETIES_EPSILON; f[1] = SOCIETIES_MAX_EFFORT;\n"
             "}\n", "seen", defines);
    ck_assert_app_made(k);
    cl_int ints[2] = {0, 0};
    cl_float floats[2] = {0, 0};
    ck_assert_app(clkernel_global(k, 1));
    ck_assert_app(clkernel_call(k, CLARG_OUT(ints, 2), CLARG_OUT(floats, 2)));
    ck_assert_int_eq(ints[0], 37);
    ck_assert_int_eq(ints[1], c.menu_size);
    ck_assert(floats[0] == 0.3f && floats[1] == 12.5f);
    clkernel_free(k);
    clctx_free(ctx);
}
END_TEST

/* got within `rel` of want. */
static void near_rel(double got, double want, double rel, const char *what)
{
    ck_assert_msg(fabs(got - want) <= rel * fabs(want) + 1e-7,
                  "%s: %.9g, want %.9g", what, got, want);
}

/* The host's float formulas against double-precision values. */
static void near(double got, double want, const char *what)
{
    near_rel(got, want, 1e-5, what);
}

START_TEST(formulas_match_hand_computed_values)
{
    near(societies_utility(1, 2, 4), 2.0, "U(4), D 1, n 2");
    near(societies_utility(1, 2, 0), 0.0, "U(0)");
    near(societies_marginal_utility(1, 2, 4), 0.2679491924311228, "MU(4)");
    near(societies_marginal_utility(2, 3, 8), 0.17413763445522212,
         "MU(8), D 2, n 3");
    near(societies_effort(1, 10, 100, 0), 9.983874134494814, "effort(0)");
    near(societies_effort(1, 10, 100, 20), 6.836172229287337, "effort(20)");
    near(societies_effort(1, 10, 100, 100), 1.0070218685139007,
         "effort(100)");
    near(societies_gain_per_minute(1, 2, 3, societies_effort(1, 10, 100, 0)),
         0.026838198160506067, "GPM(3 units, experience 0)");
    /* Experience only helps; more units only add less. */
    for (int e = 1; e <= 200; e++)
        ck_assert(societies_effort(1, 10, 100, e) <=
                  societies_effort(1, 10, 100, e - 1));
    for (int x = 2; x <= 200; x++)
        ck_assert(societies_marginal_utility(1.5f, 2.5f, x) <
                  societies_marginal_utility(1.5f, 2.5f, x - 1));
    /* MU of large holdings keeps a float's precision (as a difference of
     * two powers in float, n 1.06, it was 2e-5 off at 1000 units and 1e-3
     * at 100000). */
    static const double roots[] = {1.06, 2, 3};
    static const int holdings[] = {2, 10, 1000, 100000};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) {
            double n = roots[i], x = holdings[j];
            near(societies_marginal_utility(1.5f, (float)n, holdings[j]),
                 1.5 * (pow(x, 1 / (double)(float)n) -
                        pow(x - 1, 1 / (double)(float)n)),
                 "MU of large holdings");
        }
}
END_TEST

START_TEST(device_formulas_match_the_host)
{
    clctx *ctx = test_run_context();
    const char *model = "apps/societies/kernels/model.h";
    clfunction *effort = clfunction_file(ctx, model, "societies_effort",
                                         NULL);
    clfunction *gpm = clfunction_file(ctx, model, "societies_gain_per_minute",
                                      NULL);
    ck_assert_app_made(effort);
    ck_assert_app_made(gpm);
    for (int e = 0; e <= 100; e += RUN_SIZE(experience_step)) {
        cl_float got;
        ck_assert_app(clfunction_call(effort, &got, CLARG(1.0f), CLARG(10.0f),
                                     CLARG((cl_int)100), CLARG((cl_int)e)));
        /* OpenCL allows pow and exp a few ulps (16 for pow). */
        near_rel(got, societies_effort(1, 10, 100, e), 1e-5,
                 "device effort");
        cl_float minutes = societies_effort(1, 10, 100, e);
        ck_assert_app(clfunction_call(gpm, &got, CLARG(1.5f), CLARG(2.5f),
                                     CLARG((cl_int)(e / 3)), CLARG(minutes)));
        near_rel(got, societies_gain_per_minute(1.5f, 2.5f, e / 3, minutes),
                 1e-5, "device GPM");
    }
    clfunction_free(effort);
    clfunction_free(gpm);
    clctx_free(ctx);
}
END_TEST

Suite *societies_config_suite(void)
{
    Suite *s = suite_create("societies_config");
    TCase *tc = test_case("config");
    tcase_add_test(tc, defaults_pass_the_checks);
    tcase_add_test(tc, a_file_sets_values_and_lists);
    tcase_add_test(tc, the_readmes_example_is_read);
    tcase_add_test(tc, a_key_given_twice_is_refused);
    tcase_add_test(tc, bad_lines_are_named_with_their_number);
    tcase_add_test(tc, a_list_too_long_says_its_count);
    tcase_add_test(tc, files_are_read_or_refused);
    tcase_add_test(tc, kernels_are_built_with_the_values);
    tcase_add_test(tc, formulas_match_hand_computed_values);
    tcase_add_test(tc, device_formulas_match_the_host);
    suite_add_tcase(s, tc);
    return s;
}
