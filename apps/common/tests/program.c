/*
 * program.c: the apps' tables of versions (common/versions.h) and what
 * their programs share (common/program.h): lookup by name and alias, the
 * names listed with the default marked, the usage with them, the exit
 * statuses of --help, a bad argument and a failure, and the device for
 * --device.
 */
#include "testing.h"

#include "common/program.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { SLOW, QUICK, FASTEST, COUNT };
static const app_version list[COUNT] = {
    [SLOW] = {"slow", "prog_slow", 0},
    [QUICK] = {"quick", NULL, 1},
    [FASTEST] = {"fastest", "prog_fastest", 1},
};
static const app_versions versions = {list, COUNT, QUICK, QUICK};
static const app_program program = {"prog",
    "usage: prog [--version V]\n  --version V  %s\n", &versions};

START_TEST(versions_by_name_and_alias)
{
    ck_assert_int_eq(app_version_parse(&versions, "slow"), SLOW);
    ck_assert_int_eq(app_version_parse(&versions, "prog_slow"), SLOW);
    ck_assert_int_eq(app_version_parse(&versions, "fastest"), FASTEST);
    ck_assert_int_eq(app_version_parse(&versions, "prog_fastest"), FASTEST);
    ck_assert_int_eq(app_version_parse(&versions, "Quick"), -1);
    ck_assert_int_eq(app_version_parse(&versions, ""), -1);
    ck_assert_int_eq(app_version_parse(&versions, NULL), -1);
    ck_assert_str_eq(app_version_name(&versions, QUICK), "quick");
    ck_assert_str_eq(app_version_name(&versions, COUNT), "unknown");
    ck_assert_str_eq(app_version_name(&versions, -1), "unknown");
    ck_assert_int_eq(app_version_uses_opencl(&versions, SLOW), 0);
    ck_assert_int_eq(app_version_uses_opencl(&versions, FASTEST), 1);
    ck_assert_int_eq(app_version_uses_opencl(&versions, COUNT), 0);
}
END_TEST

START_TEST(the_names_listed_with_the_default_marked)
{
    char buf[128];
    ck_assert_str_eq(app_version_names(&versions, 0, buf, sizeof buf),
                     "slow, quick or fastest");
    ck_assert_str_eq(app_version_names(&versions, 1, buf, sizeof buf),
                     "slow, quick (default) or fastest");
    const app_versions one = {list, 1, -1, -1};
    ck_assert_str_eq(app_version_names(&one, 1, buf, sizeof buf), "slow");
    const app_versions two = {list, 2, 1, 1};
    ck_assert_str_eq(app_version_names(&two, 1, buf, sizeof buf),
                     "slow or quick (default)");
    const app_versions split = {list, COUNT, FASTEST, QUICK};
    ck_assert_str_eq(app_version_names(&split, 1, buf, sizeof buf),
                     "slow, quick (default on a CPU) or fastest (default "
                     "on a GPU)");
    /* Cut, never overflowed. */
    char small[8];
    memset(small, 'x', sizeof small);
    app_version_names(&versions, 1, small, 6);
    ck_assert_str_eq(small, "slow,");
    ck_assert_int_eq(small[7], 'x');
}
END_TEST

START_TEST(the_usage_lists_the_versions)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    app_usage(&program, f);
    char text[256] = "";
    rewind(f);
    ck_assert_uint_gt(fread(text, 1, sizeof text - 1, f), 0);
    fclose(f);
    ck_assert_str_eq(text, "usage: prog [--version V]\n"
                           "  --version V  slow, quick (default) or "
                           "fastest\n");
}
END_TEST

/* Runs app_start with the parser's status, its stdout thrown away. */
static int start_quietly(int parsed)
{
    fflush(stdout);
    int saved = dup(1), null = open("/dev/null", O_WRONLY);
    ck_assert(saved >= 0 && null >= 0);
    dup2(null, 1);
    int status = app_start(&program, parsed);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    close(null);
    return status;
}

START_TEST(exit_statuses_and_messages)
{
    ck_assert_int_eq(start_quietly(-1), 0);         /* --help */
    ck_assert_int_eq(start_quietly(0), -1);         /* go on */
    ck_assert_int_eq(start_quietly(2), 2);          /* a bad argument */
    char *argv_help[] = {"prog", "1", "--help", NULL};
    char *argv_none[] = {"prog", "1", "-x", NULL};
    ck_assert_int_eq(app_asks_help(3, argv_help), -1);
    ck_assert_int_eq(app_asks_help(3, argv_none), 0);

    capture_stderr_begin();
    int v = -1;
    int bad = app_version_option(&program, "medium", &v);
    int missing = app_version_option(&program, NULL, &v);
    int good = app_version_option(&program, "prog_fastest", &v);
    app_fail(APP_ERR_IO, "%s: cannot open", "in.png");
    int failed = app_failed(&program);
    int said = app_message(&program, 7, "a %s of %d", "message", 42);
    char *text = capture_stderr_end();
    ck_assert_int_eq(bad, 2);
    ck_assert_int_eq(missing, 2);
    ck_assert_int_eq(good, 0);
    ck_assert_int_eq(v, FASTEST);
    ck_assert_int_eq(failed, 1);
    ck_assert_int_eq(said, 7);
    const char *want[] = {
        ("prog: --version \"medium\": expected slow, quick or fastest\n"
         "usage: prog [--version V]\n"),
        "prog: --version: a value is missing\n",
        "prog: in.png: cannot open\n",
        "prog: a message of 42\n"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        ck_assert_msg(strstr(text, want[i]), "stderr lacks \"%s\": %s",
                      want[i], text);
    free(text);
}
END_TEST

START_TEST(the_device_for_the_device_option)
{
    clctx *own = (clctx *)&own;
    capture_stderr_begin();
    clctx *ctx = app_open_device(&program, "no-such-device", &own);
    char *text = capture_stderr_end();
    ck_assert_ptr_null(ctx);
    ck_assert_ptr_null(own);
    ck_assert_msg(strstr(text, "prog: ") && strstr(text, "no-such-device"),
                  "stderr: %s", text);
    free(text);
    ctx = app_open_device(&program, NULL, &own);
    ck_assert_ptr_eq(ctx, clctx_default());
    ck_assert_ptr_null(own);
    ctx = app_open_device(&program, "cpu", &own);
    ck_assert_app_made(ctx);
    ck_assert_ptr_eq(ctx, own);
    clctx_free(own);
}
END_TEST

/* A device of type GPU runs `preferred`, any other `preferred_cpu`: the
 * default device, and the one "cpu" selects (PoCL's CPU; Oclgrind's
 * simulated device says it is a GPU). */
static int want_on(clctx *ctx)
{
    return clctx_device_type(ctx) & CL_DEVICE_TYPE_GPU ? FASTEST : QUICK;
}

START_TEST(the_default_version_follows_the_device)
{
    const app_versions split = {list, COUNT, FASTEST, QUICK};
    clctx *ctx = clctx_default();
    ck_assert_app_made(ctx);
    ck_assert_int_eq(app_version_default(&split, ctx), want_on(ctx));
    ck_assert_int_eq(app_version_default(&split, NULL), want_on(ctx));
    clctx *cpu = clctx_new("cpu");
    ck_assert_app_made(cpu);
    ck_assert_int_eq(app_version_default(&split, cpu), want_on(cpu));
    clctx_free(cpu);
}
END_TEST

Suite *program_suite(void)
{
    Suite *s = suite_create("app programs");
    TCase *tc = test_case("programs");
    tcase_add_test(tc, versions_by_name_and_alias);
    tcase_add_test(tc, the_names_listed_with_the_default_marked);
    tcase_add_test(tc, the_usage_lists_the_versions);
    tcase_add_test(tc, exit_statuses_and_messages);
    tcase_add_test(tc, the_device_for_the_device_option);
    tcase_add_test(tc, the_default_version_follows_the_device);
    suite_add_tcase(s, tc);
    return s;
}
