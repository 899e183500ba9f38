/*
 * test_source.c: where kernel sources are found (embedded table, current
 * directory, CLFRAME_KERNEL_PATH, -I folders) and how #include lines are
 * expanded, with compiler messages still naming the right file and line.
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *adder =
    "__kernel void add_n(__global int *x, int n) { x[get_global_id(0)] += n; }";

/* Builds kernel add_n from path and checks that it runs. */
static void check_add_n(clkernel *k)
{
    ck_assert_made(k);
    int x[4] = {1, 2, 3, 4};
    ck_assert_cl(clkernel_global(k, 4));
    ck_assert_cl(clkernel_call(k, CLARG_INOUT(x, 4), CLARG(10)));
    ck_assert_int_eq(x[3], 14);
    clkernel_free(k);
}

START_TEST(embedded_sources_work_from_any_directory)
{
    ck_assert_int_eq(chdir("/"), 0);
    clkernel *k = clkernel_file(NULL, "kernels/demo/vadd.cl", "vadd", NULL);
    ck_assert_made(k);
    clkernel_free(k);
    k = clkernel_file(NULL, "./kernels/demo/vadd.cl", "vadd", NULL);
    ck_assert_made(k);
    clkernel_free(k);
    /* An include of an embedded file, found through kernels/. */
    k = clkernel_source(NULL, "#include \"demo/vadd.cl\"\n", "vadd", NULL);
    ck_assert_made(k);
    clkernel_free(k);
}
END_TEST

START_TEST(files_from_the_current_directory_and_kernel_path)
{
    test_write_file("kp/adder.cl", adder);
    char dir[600];
    snprintf(dir, sizeof dir, "%s/kp", test_tmpdir());
    ck_assert_int_eq(chdir(dir), 0);
    check_add_n(clkernel_file(NULL, "adder.cl", "add_n", NULL));
    ck_assert_int_eq(chdir("/"), 0);
    ck_assert_ptr_null(clkernel_file(NULL, "adder.cl", "add_n", NULL));
    ck_assert_ptr_nonnull(strstr(clframe_last_error(), "CLFRAME_KERNEL_PATH (unset)"));
    char path[700];
    snprintf(path, sizeof path, "/nonexistent:%s", dir);
    setenv("CLFRAME_KERNEL_PATH", path, 1);
    check_add_n(clkernel_file(NULL, "adder.cl", "add_n", NULL));
    unsetenv("CLFRAME_KERNEL_PATH");
}
END_TEST

START_TEST(includes_relative_nested_and_by_dash_i)
{
    test_write_file("inc/sub/deeper.h", "#define AMOUNT_SCALE 1\n");
    test_write_file("inc/sub/amount.h", "#include \"deeper.h\"\n"
                                        "#define AMOUNT(n) ((n) * AMOUNT_SCALE)\n");
    test_write_file("inc/main.cl",
        "/* #include \"not/there.h\" inside a comment is ignored */\n"
        "#include \"sub/amount.h\"\n"
        "__kernel void add_n(__global int *x, int n)"
        " { x[get_global_id(0)] += AMOUNT(n); }\n");
    char path[600];
    snprintf(path, sizeof path, "%s/inc/main.cl", test_tmpdir());
    check_add_n(clkernel_file(NULL, path, "add_n", NULL));

    char opts[600];
    snprintf(opts, sizeof opts, "-DX=1 -I %s/inc/sub", test_tmpdir());
    check_add_n(clkernel_source(NULL, "#include \"amount.h\"\n"
        "__kernel void add_n(__global int *x, int n)"
        " { x[get_global_id(0)] += AMOUNT(n); }\n", "add_n", opts));
}
END_TEST

START_TEST(errors_in_included_files_name_file_and_line)
{
    test_write_file("err/bad.h", "// line 1\nint broken_here = ;\n");
    test_write_file("err/main.cl", "#include \"bad.h\"\n"
                    "__kernel void k(__global int *x) { x[0] = 1; }\n");
    char path[600];
    snprintf(path, sizeof path, "%s/err/main.cl", test_tmpdir());
    ck_assert_ptr_null(clkernel_file(NULL, path, "k", NULL));
    ck_assert_msg(strstr(clframe_last_error(), "err/bad.h:2"),
                  "message: %s", clframe_last_error());

    /* An include found nowhere is left for the compiler to report. */
    ck_assert_ptr_null(clkernel_source(NULL, "#include \"nowhere.h\"\n"
                                       "__kernel void k(void) {}\n", "k", NULL));
    ck_assert_msg(strstr(clframe_last_error(), "nowhere.h"),
                  "message: %s", clframe_last_error());
}
END_TEST

START_TEST(include_cycles_stop_and_pragma_once_is_honoured)
{
    test_write_file("cyc/a.h", "#include \"b.h\"\n");
    test_write_file("cyc/b.h", "#include \"a.h\"\n");
    char path[600];
    snprintf(path, sizeof path, "%s/cyc/a.h", test_tmpdir());
    ck_assert_ptr_null(clkernel_file(NULL, path, "k", NULL));
    ck_assert_ptr_nonnull(strstr(clframe_last_error(), "an include cycle?"));

    test_write_file("once/a.h", "#pragma once\n#include \"b.h\"\n"
                    "#define FROM_A 1\n");
    test_write_file("once/b.h", "#pragma once\n#include \"a.h\"\n");
    test_write_file("once/main.cl", "#include \"a.h\"\n#include \"b.h\"\n"
        "__kernel void add_n(__global int *x, int n)"
        " { x[get_global_id(0)] += n * FROM_A; }\n");
    snprintf(path, sizeof path, "%s/once/main.cl", test_tmpdir());
    check_add_n(clkernel_file(NULL, path, "add_n", NULL));
}
END_TEST

/* Two tests move to other folders; with CK_FORK=no (valgrind, sanitizers,
 * Oclgrind) the suites after them share this process and its folder, and
 * they find the project's files (scenes, scripts) relative to it. */
static char start_dir[4096];

static void remember_directory(void)
{
    ck_assert_ptr_nonnull(getcwd(start_dir, sizeof start_dir));
}

static void return_to_directory(void)
{
    ck_assert_int_eq(chdir(start_dir), 0);
}

Suite *source_suite(void)
{
    Suite *s = suite_create("sources");
    TCase *tc = test_case("resolution");
    tcase_add_checked_fixture(tc, remember_directory, return_to_directory);
    tcase_add_test(tc, embedded_sources_work_from_any_directory);
    tcase_add_test(tc, files_from_the_current_directory_and_kernel_path);
    tcase_add_test(tc, includes_relative_nested_and_by_dash_i);
    tcase_add_test(tc, errors_in_included_files_name_file_and_line);
    tcase_add_test(tc, include_cycles_stop_and_pragma_once_is_honoured);
    suite_add_tcase(s, tc);
    return s;
}
