/*
 * test_ctx.c: device selection by every form of selector and environment
 * variable, debug mode, and the errors for selectors that match nothing.
 */
#include "support.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *selection_vars[] = {"CLFRAME_DEVICE", "HPCE_SELECT_PLATFORM",
                                       "HPCE_SELECT_DEVICE", "CL_DEBUG"};

static char *saved[sizeof selection_vars / sizeof *selection_vars];

/* Each test starts from no selection variables at all, and leaves them as it
 * found them (under CK_FORK=no, later suites share this process). */
static void clear_selection(void)
{
    for (size_t i = 0; i < sizeof selection_vars / sizeof *selection_vars; i++) {
        const char *v = getenv(selection_vars[i]);
        saved[i] = v ? strdup(v) : NULL;
        unsetenv(selection_vars[i]);
    }
}

static void restore_selection(void)
{
    for (size_t i = 0; i < sizeof selection_vars / sizeof *selection_vars; i++) {
        if (saved[i])
            setenv(selection_vars[i], saved[i], 1);
        else
            unsetenv(selection_vars[i]);
        free(saved[i]);
        saved[i] = NULL;
    }
}

static clctx *new_ctx(const char *selector)
{
    clctx *ctx = clctx_new(selector);
    ck_assert_made(ctx);
    return ctx;
}

START_TEST(automatic_choice_prefers_a_gpu)
{
    clctx *ctx = new_ctx(NULL);
    const char *why = clctx_describe(ctx);
    if (clctx_device_type(ctx) & CL_DEVICE_TYPE_GPU)
        ck_assert_ptr_nonnull(strstr(why, "the first GPU"));
    else
        ck_assert_ptr_nonnull(strstr(why, "no GPU found, so the CPU fallback"));
    ck_assert_ptr_nonnull(clctx_context(ctx));
    ck_assert_ptr_nonnull(clctx_queue(ctx));
    ck_assert_ptr_nonnull(clctx_device(ctx));
    ck_assert_ptr_nonnull(clctx_platform(ctx));
    ck_assert_int_eq(clctx_debug(ctx), 0);
    ck_assert_cl(clctx_finish(ctx));
    clctx_free(ctx);
}
END_TEST

START_TEST(cpu_selector_and_env)
{
    clctx *ctx = new_ctx("cpu");
    ck_assert(clctx_device_type(ctx) & CL_DEVICE_TYPE_CPU);
    ck_assert_ptr_nonnull(strstr(clctx_describe(ctx), "clctx_new(\"cpu\")"));
    clctx_free(ctx);
    setenv("CLFRAME_DEVICE", "cpu", 1);
    ctx = new_ctx(NULL);
    ck_assert(clctx_device_type(ctx) & CL_DEVICE_TYPE_CPU);
    ck_assert_ptr_nonnull(strstr(clctx_describe(ctx), "CLFRAME_DEVICE=cpu"));
    clctx_free(ctx);
}
END_TEST

START_TEST(gpu_selector_finds_a_gpu_or_says_there_is_none)
{
    clctx *ctx = clctx_new("gpu");
    if (ctx) {
        ck_assert(clctx_device_type(ctx) & CL_DEVICE_TYPE_GPU);
        clctx_free(ctx);
        return;
    }
    ck_assert_ptr_nonnull(strstr(clframe_last_error(),
                                 "asks for a GPU but there is none"));
    ck_assert_ptr_nonnull(strstr(clframe_last_error(), "CLFRAME_DEVICE=cpu"));
}
END_TEST

START_TEST(indices_select_and_out_of_range_is_an_error)
{
    clctx *ctx = new_ctx("0:0");
    ck_assert_ptr_nonnull(strstr(clctx_describe(ctx), "platform 0 device 0"));
    clctx_free(ctx);
    ck_assert_ptr_null(clctx_new("0:99"));
    ck_assert_ptr_nonnull(strstr(clframe_last_error(),
                                 "names platform 0 device 99, which does not exist"));
    ck_assert_ptr_nonnull(strstr(clframe_last_error(), "0:0 "));
    ck_assert_ptr_null(clctx_new("42:0"));
}
END_TEST

START_TEST(name_substring_selects_case_insensitively)
{
    clctx *first = new_ctx("0:0");
    char part[8] = {0};
    const char *name = clctx_device_name(first);
    ck_assert_uint_ge(strlen(name), 4);
    for (int i = 0; i < 4; i++)
        part[i] = (char)toupper((unsigned char)name[1 + i]);
    clctx *ctx = new_ctx(part);
    ck_assert_str_eq(clctx_device_name(ctx), name);
    clctx_free(ctx);
    clctx_free(first);
    ck_assert_ptr_null(clctx_new("no-such-device-xyz"));
    ck_assert_ptr_nonnull(strstr(clframe_last_error(),
                                 "no device name contains \"no-such-device-xyz\""));
}
END_TEST

START_TEST(hpce_variables_select_and_are_checked)
{
    setenv("HPCE_SELECT_PLATFORM", "0", 1);
    setenv("HPCE_SELECT_DEVICE", "0", 1);
    clctx *ctx = new_ctx(NULL);
    ck_assert_ptr_nonnull(strstr(clctx_describe(ctx), "HPCE_SELECT"));
    ck_assert_ptr_nonnull(strstr(clctx_describe(ctx), "platform 0 device 0"));
    clctx_free(ctx);

    setenv("HPCE_SELECT_DEVICE", "7", 1);
    ck_assert_ptr_null(clctx_new(NULL));
    ck_assert_ptr_nonnull(strstr(clframe_last_error(), "does not exist"));

    setenv("HPCE_SELECT_DEVICE", "first", 1);
    ck_assert_ptr_null(clctx_new(NULL));
    ck_assert_ptr_nonnull(strstr(clframe_last_error(), "must be a number"));

    /* CLFRAME_DEVICE wins over the seed's variables. */
    setenv("CLFRAME_DEVICE", "cpu", 1);
    ctx = new_ctx(NULL);
    ck_assert_ptr_nonnull(strstr(clctx_describe(ctx), "CLFRAME_DEVICE=cpu"));
    clctx_free(ctx);
}
END_TEST

START_TEST(debug_mode_uses_the_cpu)
{
    setenv("CL_DEBUG", "1", 1);
    capture_stderr_begin();
    clctx *ctx = new_ctx(NULL);
    char *said = capture_stderr_end();
    /* One line names the device and the mode, even if nothing else is said. */
    char line[1500];
    snprintf(line, sizeof line, "clframe: %s\n", clctx_describe(ctx));
    ck_assert_str_eq(said, line);
    ck_assert_ptr_nonnull(strstr(said, "(debug mode)"));
    free(said);
    ck_assert_int_eq(clctx_debug(ctx), 1);
    ck_assert(clctx_device_type(ctx) & CL_DEVICE_TYPE_CPU);
    ck_assert_ptr_nonnull(strstr(clctx_describe(ctx), "CL_DEBUG=1"));
    clctx_free(ctx);
}
END_TEST

START_TEST(the_default_context_can_be_freed_early)
{
    clctx *first = clctx_default();
    ck_assert_made(first);
    ck_assert_ptr_eq(clctx_default(), first);
    clctx_free(first);
    clctx *second = clctx_default();       /* a new one */
    ck_assert_made(second);
    ck_assert_cl(clctx_finish(NULL));
    clctx_free(second);   /* later tests get one made with their variables */
}
END_TEST

START_TEST(empty_selector_is_an_error)
{
    setenv("CLFRAME_DEVICE", "", 1);
    ck_assert_ptr_null(clctx_new(NULL));
    ck_assert_ptr_nonnull(strstr(clframe_last_error(), "CLFRAME_DEVICE= is empty"));
}
END_TEST

/* With no ICD files at all, ocl-icd finds no platform: clframe must say what
 * to install. ocl-icd reads OCL_ICD_VENDORS once per process, so this needs
 * a fresh (forked) process. */
/* The option follows the device's own report, and a kernel builds with it. */
START_TEST(exact_fp_option_matches_the_device)
{
    clctx *ctx = clctx_default();
    ck_assert_made(ctx);
    cl_device_fp_config fp = 0;
    ck_assert_int_eq(clGetDeviceInfo(clctx_device(ctx),
                                     CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp,
                                     &fp, NULL), CL_SUCCESS);
    const char *option = clctx_exact_fp_option(ctx);
    ck_assert_str_eq(option, fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT
                     ? "-cl-fp32-correctly-rounded-divide-sqrt" : "");
    clkernel *k = clkernel_source(ctx, "__kernel void q(__global float *x)"
                                  "{ x[0] = sqrt(x[0]) / 3.0f; }", "q", option);
    ck_assert_made(k);
    float x = 2.0f;
    ck_assert_cl(clkernel_global(k, 1));
    ck_assert_cl(clkernel_call(k, CLARG_INOUT(&x, 1)));
    if (option[0])
        ck_assert_float_eq(x, sqrtf(2.0f) / 3.0f);
    clkernel_free(k);
}
END_TEST

START_TEST(limits_are_the_devices)
{
    clctx *ctx = clctx_default();
    ck_assert_made(ctx);
    size_t group = 0;
    cl_ulong local = 0;
    ck_assert_int_eq(clGetDeviceInfo(clctx_device(ctx),
                                     CL_DEVICE_MAX_WORK_GROUP_SIZE,
                                     sizeof group, &group, NULL), CL_SUCCESS);
    ck_assert_int_eq(clGetDeviceInfo(clctx_device(ctx),
                                     CL_DEVICE_LOCAL_MEM_SIZE, sizeof local,
                                     &local, NULL), CL_SUCCESS);
    ck_assert_uint_eq(clctx_max_work_group_size(ctx), group);
    ck_assert_uint_eq(clctx_local_mem_size(ctx), local);
}
END_TEST

START_TEST(no_platform_says_what_to_install)
{
    if (test_run_apart("clctx", "no platform"))
        return;
    char dir[] = "/tmp/clframe-no-icd-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    setenv("OCL_ICD_VENDORS", dir, 1);
    clctx *ctx = clctx_new(NULL);
    rmdir(dir);
    if (ctx) {
        /* A loader that does not read OCL_ICD_VENDORS (some GPU machines
         * ship their own) still finds platforms: nothing to test there. */
        fprintf(stderr, "note: this OpenCL loader ignores OCL_ICD_VENDORS; "
                "no-platform test not applicable\n");
        clctx_free(ctx);
        return;
    }
    ck_assert_ptr_nonnull(strstr(clframe_last_error(), "pocl-opencl-icd"));
    ck_assert_ptr_null(clctx_default());
}
END_TEST

Suite *ctx_suite(void)
{
    Suite *s = suite_create("clctx");
    TCase *tc = test_case("selection");
    tcase_add_checked_fixture(tc, clear_selection, restore_selection);
    tcase_add_test(tc, automatic_choice_prefers_a_gpu);
    tcase_add_test(tc, cpu_selector_and_env);
    tcase_add_test(tc, gpu_selector_finds_a_gpu_or_says_there_is_none);
    tcase_add_test(tc, indices_select_and_out_of_range_is_an_error);
    tcase_add_test(tc, name_substring_selects_case_insensitively);
    tcase_add_test(tc, hpce_variables_select_and_are_checked);
    tcase_add_test(tc, debug_mode_uses_the_cpu);
    tcase_add_test(tc, empty_selector_is_an_error);
    tcase_add_test(tc, the_default_context_can_be_freed_early);
    tcase_add_test(tc, exact_fp_option_matches_the_device);
    tcase_add_test(tc, limits_are_the_devices);
    suite_add_tcase(s, tc);
    /* A process that has opened no platform yet (test_run_apart); not
     * under Oclgrind, whose log each forked test would truncate. */
    TCase *apart = test_case("no platform");
    tcase_set_tags(apart, "no-oclgrind");
    tcase_add_checked_fixture(apart, clear_selection, restore_selection);
    tcase_add_test(apart, no_platform_says_what_to_install);
    suite_add_tcase(s, apart);
    return s;
}
