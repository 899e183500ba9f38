/*
 * test_source.c: where kernel sources are found (the file on disk first,
 * CLFRAME_KERNEL_PATH, then the sources compiled into the program, -I and
 * kernels/ folders for includes) and how #include lines are expanded, with
 * compiler messages still naming the right file and line.
 */
#include "support.h"
#include "internal.h"               /* the expander and the log mapper */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* ---- sources compiled into the program -------------------------------------- */

START_TEST(the_librarys_device_sources_work_from_any_directory)
{
    ck_assert_int_eq(chdir("/"), 0);
    clfunction *f = clfunction_file(NULL, "lib/mwc64x.h", "mwc64x_step",
                                    NULL);
    ck_assert_made(f);
    clfunction_free(f);
    check_add_n(clkernel_source(NULL, "#include \"lib/mwc64x.h\"\n"
        "__kernel void add_n(__global int *x, CLF_INT n)"
        " { x[get_global_id(0)] += n; }\n", "add_n", NULL));
}
END_TEST

/* A program's own table: a kernel including a header beside it, by a
 * path that climbs out of its folder and back. */
static const char sum_cl[] =
    "#include \"../app/amount.h\"\n"
    "__kernel void add_n(__global int *x, int n)"
    " { x[get_global_id(0)] += AMOUNT(n); }\n";
static const char amount_h[] = "#define AMOUNT(n) (n)\n";
static const clframe_source app_sources[] = {
    {"app/kernels/sum.cl", sum_cl, sizeof sum_cl - 1},
    {"app/amount.h", amount_h, sizeof amount_h - 1},
    {NULL, NULL, 0}};

START_TEST(added_sources_work_from_any_directory_and_again)
{
    ck_assert_int_eq(chdir("/"), 0);
    ck_assert_ptr_null(clkernel_file(NULL, "app/kernels/sum.cl", "add_n",
                                     NULL));
    ck_assert_cl(clframe_add_sources(app_sources));
    ck_assert_cl(clframe_add_sources(app_sources));    /* no-op */
    check_add_n(clkernel_file(NULL, "app/kernels/sum.cl", "add_n", NULL));
    ck_assert_fails(clframe_add_sources(NULL), CLFRAME_ERR_USAGE, "NULL");
}
END_TEST

/* The rule of clkernel_file: a user's file on disk always wins over a
 * compiled-in source of the same path, and ./ names only the file. */
static const char vadd_only[] =
    "__kernel void vadd(__global const float *a, __global const float *b,\n"
    "                   __global float *c, int n)\n"
    "{ int i = get_global_id(0); if (i < n) c[i] = a[i] + b[i]; }\n";
static const clframe_source shadowed[] = {
    {"kernels/demo/vadd.cl", vadd_only, sizeof vadd_only - 1},
    {NULL, NULL, 0}};

START_TEST(the_users_file_wins_over_a_compiled_in_one)
{
    ck_assert_cl(clframe_add_sources(shadowed));
    test_write_file("user/kernels/demo/vadd.cl",
        "__kernel void vadd(__global int *x, int n)"
        " { x[get_global_id(0)] += n; }\n"
        "__kernel void vmul(__global int *x, int n)"
        " { x[get_global_id(0)] *= n; }\n");
    char dir[600];
    snprintf(dir, sizeof dir, "%s/user", test_tmpdir());
    ck_assert_int_eq(chdir(dir), 0);
    const char *paths[] = {"kernels/demo/vadd.cl", "./kernels/demo/vadd.cl"};
    for (int p = 0; p < 2; p++) {
        clkernel *k = clkernel_file(NULL, paths[p], "vmul", NULL);
        ck_assert_made(k);
        int x[4] = {1, 2, 3, 4};
        ck_assert_cl(clkernel_global(k, 4));
        ck_assert_cl(clkernel_call(k, CLARG_INOUT(x, 4), CLARG(3)));
        ck_assert_int_eq(x[3], 12);
        clkernel_free(k);
    }

    /* Elsewhere the compiled-in copy is used, and a message says so. */
    ck_assert_int_eq(chdir("/"), 0);
    ck_assert_ptr_null(clkernel_file(NULL, paths[0], "vmul", NULL));
    ck_assert_msg(strstr(clframe_last_error(), "kernels/demo/vadd.cl (the "
                         "copy compiled into the program: no such file "
                         "here) has no __kernel named \"vmul\""),
                  "message: %s", clframe_last_error());
    ck_assert_ptr_null(clkernel_file(NULL, paths[1], "vadd", NULL));
    ck_assert_msg(strstr(clframe_last_error(), "names a file on disk only"),
                  "message: %s", clframe_last_error());
}
END_TEST

/* Under CL_DEBUG=1 clframe says on stderr when it uses a compiled-in
 * source. */
START_TEST(debug_mode_says_when_a_compiled_in_source_is_used)
{
    ck_assert_cl(clframe_add_sources(app_sources));
    ck_assert_int_eq(chdir("/"), 0);
    setenv("CL_DEBUG", "1", 1);
    clctx *ctx = clctx_new(NULL);
    unsetenv("CL_DEBUG");
    ck_assert_made(ctx);
    capture_stderr_begin();
    clkernel *k = clkernel_file(ctx, "app/kernels/sum.cl", "add_n", NULL);
    char *said = capture_stderr_end();
    ck_assert_made(k);
    ck_assert_msg(strstr(said, "clkernel_file: app/kernels/sum.cl (the copy "
                         "compiled into the program"), "stderr: %s", said);
    free(said);
    clkernel_free(k);
    clctx_free(ctx);
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

START_TEST(includes_fall_back_to_the_kernels_folder)
{
    test_write_file("proj/kernels/inc/amount.h", "#define AMOUNT(n) (n)\n");
    char dir[600];
    snprintf(dir, sizeof dir, "%s/proj", test_tmpdir());
    ck_assert_int_eq(chdir(dir), 0);
    check_add_n(clkernel_source(NULL, "#include \"inc/amount.h\"\n"
        "__kernel void add_n(__global int *x, int n)"
        " { x[get_global_id(0)] += AMOUNT(n); }\n", "add_n", NULL));
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


/* ---- hostile sources and build logs ------------------------------------------ */

/* The log of a failed build names lines of the expanded text ("<kernel>:N:"
 * from NVIDIA, "input.cl:N:" from Oclgrind); the mapper reads each line
 * within its own end, however the text and the log are laid out. */
START_TEST(build_logs_are_mapped_within_their_lines)
{
    const char *expanded = "#line 1 \"a.cl\"\n"    /* 1 */
                           "int x;\n"               /* 2: a.cl:1 */
                           "#line 7\n"              /* 3: a user's #line */
                           "\"quoted\n"             /* 4: a.cl:7 */
                           "bad;\n";                /* 5: a.cl:8 */
    char *mapped = clf_source_map_log("<kernel>:2: error: one\n"
                                      "input.cl:5: warning: two\n"
                                      "<kernel>:4:\n", expanded);
    ck_assert_ptr_nonnull(mapped);
    ck_assert_str_eq(mapped, "a.cl:1: error: one\na.cl:8: warning: two\n"
                             "a.cl:7:\n");
    free(mapped);
    /* Numbers that end at the line's end, or run into the next line, are
     * not locations: the log is copied as it is. */
    const char *log = "<kernel>:\n1: boom\ninput.cl:\n2:\n<kernel>:3\n"
                      "<kernel>:99999999999999999999: far\n<kernel>";
    mapped = clf_source_map_log(log, expanded);
    ck_assert_ptr_nonnull(mapped);
    ck_assert_str_eq(mapped, log);
    free(mapped);
    mapped = clf_source_map_log("<kernel>:9: past the end\n", "#line 3\n\"");
    ck_assert_ptr_nonnull(mapped);
    ck_assert_str_eq(mapped, "<kernel>:9: past the end\n");
    free(mapped);
}
END_TEST

/* A file that is there but is no source (a device that never ends) is an
 * error naming it, whether it is the kernel's file or an include. */
START_TEST(sources_that_are_not_regular_files_are_errors)
{
    ck_assert_ptr_null(clkernel_file(NULL, "/dev/zero", "k", NULL));
    ck_assert_error_has("\"/dev/zero\" is not a regular "
                      "file");
    test_write_file("dev/main.cl", "int a;\n#include \"/dev/zero\"\n");
    char path[600];
    snprintf(path, sizeof path, "%s/dev/main.cl", test_tmpdir());
    ck_assert_ptr_null(clkernel_file(NULL, path, "k", NULL));
    ck_assert_error_has("main.cl:2: #include "
                      "\"/dev/zero\": /dev/zero is not a regular file");
    ck_assert_ptr_null(clkernel_source(NULL, "#include <.>\n", "k", NULL));
    ck_assert_error_has("is not a regular file");
    /* A FIFO with no writer: refused at once, never waited on. */
    char fifo[600];
    snprintf(fifo, sizeof fifo, "%s/dev/pipe.cl", test_tmpdir());
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    ck_assert_ptr_null(clkernel_file(NULL, fifo, "k", NULL));
    ck_assert_error_has("pipe.cl\" is not a regular file");
    test_write_file("dev/main.cl", "int a;\n#include \"pipe.cl\"\n");
    ck_assert_ptr_null(clkernel_file(NULL, path, "k", NULL));
    ck_assert_error_has("main.cl:2: #include \"pipe.cl\"");
    ck_assert_error_has("is not a regular file");
    ck_assert_ptr_null(clfunction_file(NULL, fifo, "f", NULL));
    ck_assert_error_has("is not a regular file");
}
END_TEST

static size_t count_of(const char *text, const char *word)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, word)); p += strlen(word))
        n++;
    return n;
}

/* Headers guarded the classic way (#ifndef X / #define X ... #endif) are
 * expanded once, as a compiler reads them: 16 levels that each include the
 * next twice would otherwise make 2^16 copies of the last. A header with
 * text after its #endif is no guarded header, and comes in every time. */
START_TEST(guarded_headers_are_expanded_once)
{
    enum { LEVELS = 16 };
    for (int i = 0; i < LEVELS; i++) {
        char name[64], text[512];
        snprintf(name, sizeof name, "guards/g%d.h", i);
        if (i + 1 < LEVELS)
            snprintf(text, sizeof text, "/* level %d */\n#ifndef G%d_H\n"
                     "#define G%d_H\n#include \"g%d.h\"\n#include \"g%d.h\"\n"
                     "int level%d;\n#endif /* G%d_H */\n", i, i, i, i + 1,
                     i + 1, i, i);
        else
            snprintf(text, sizeof text, "#ifndef G%d_H\n#define G%d_H\n"
                     "#if 1\nint level%d;\n#endif\n#endif\n", i, i, i);
        test_write_file(name, text);
    }
    test_write_file("guards/open.h", "#ifndef OPEN_H\n#define OPEN_H\n"
                    "#endif\nint open_twice;\n");
    char origin[600];
    snprintf(origin, sizeof origin, "%s/guards/main.cl", test_tmpdir());
    char *text = clf_source_expand("#include \"g0.h\"\n#include \"g0.h\"\n"
                                   "#include \"open.h\"\n#include \"open.h\"\n",
                                   origin, NULL);
    ck_assert_ptr_nonnull(text);
    ck_assert_uint_eq(count_of(text, "int level15;"), 1);
    ck_assert_uint_eq(count_of(text, "int level0;"), 1);
    ck_assert_uint_eq(count_of(text, "int open_twice;"), 2);
    ck_assert_uint_lt(strlen(text), 8192);
    free(text);
}
END_TEST

/* Headers without guards multiply: 17 includes of a header that includes
 * the next 25 times, which includes the last 25 times, are 11067 includes,
 * more than clframe expands for one source (100 at each of three levels
 * made 72 MB). An error, not unbounded work. */
START_TEST(includes_that_multiply_stop_with_a_message)
{
    for (int i = 0; i < 3; i++) {
        char name[64], text[1024] = "";
        snprintf(name, sizeof name, "many/m%d.h", i);
        for (int k = 0; k < 25 && i < 2; k++)
            snprintf(text + strlen(text), sizeof text - strlen(text),
                     "#include \"m%d.h\"\n", i + 1);
        strcat(text, "int x;\n");
        test_write_file(name, text);
    }
    char origin[600];
    snprintf(origin, sizeof origin, "%s/many/main.cl", test_tmpdir());
    ck_assert_ptr_null(clf_source_expand("#include \"m0.h\"\n"
                                         "#include \"m0.h\"\n"
                                         "#include \"m0.h\"\n"
                                         "#include \"m0.h\"\n"
                                         "#include \"m0.h\"\n"
                                         "#include \"m0.h\"\n"
                                         "#include \"m0.h\"\n"
                                         "#include \"m0.h\"\n"
                                         "#include \"m0.h\"\n"
                                         "#include \"m0.h\"\n"
                                         "#include \"m0.h\"\n"
                                         "#include \"m0.h\"\n"
                                         "#include \"m0.h\"\n"
                                         "#include \"m0.h\"\n"
                                         "#include \"m0.h\"\n"
                                         "#include \"m0.h\"\n"
                                         "#include \"m0.h\"\n",
                                         origin, NULL));
    ck_assert_error_has("more than 10000 #include lines expanded");
    /* The middle header alone is 26 includes: expanded. */
    char *text = clf_source_expand("#include \"m1.h\"\n", origin, NULL);
    ck_assert_ptr_nonnull(text);
    ck_assert_uint_eq(count_of(text, "int x;"), 26);
    free(text);
}
END_TEST

/* Two tests move to other folders; with CK_FORK=no (`make test`, valgrind,
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
    tcase_add_test(tc, the_librarys_device_sources_work_from_any_directory);
    tcase_add_test(tc, added_sources_work_from_any_directory_and_again);
    tcase_add_test(tc, the_users_file_wins_over_a_compiled_in_one);
    tcase_add_test(tc, debug_mode_says_when_a_compiled_in_source_is_used);
    tcase_add_test(tc, includes_fall_back_to_the_kernels_folder);
    tcase_add_test(tc, files_from_the_current_directory_and_kernel_path);
    tcase_add_test(tc, includes_relative_nested_and_by_dash_i);
    tcase_add_test(tc, errors_in_included_files_name_file_and_line);
    tcase_add_test(tc, include_cycles_stop_and_pragma_once_is_honoured);
    tcase_add_test(tc, build_logs_are_mapped_within_their_lines);
    tcase_add_test(tc, sources_that_are_not_regular_files_are_errors);
    tcase_add_test(tc, guarded_headers_are_expanded_once);
    tcase_add_test(tc, includes_that_multiply_stop_with_a_message);
    suite_add_tcase(s, tc);
    return s;
}
