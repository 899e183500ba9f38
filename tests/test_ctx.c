/*
 * test_ctx.c: device selection by every form of selector and environment
 * variable, debug mode, and the errors for selectors that match nothing.
 */
#include "support.h"

#include "internal.h"               /* clf_apply_selector on made-up lists */

#include <ctype.h>
#include <limits.h>
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

/* A bare number opens the device at that place in the whole list, as
 * clframe-info numbers it; one past the end is an error listing them. */
START_TEST(a_bare_number_opens_that_device)
{
    clctx *named = new_ctx("0:0");
    clctx *ctx = new_ctx("0");
    ck_assert_ptr_eq(clctx_device(ctx), clctx_device(named));
    ck_assert_ptr_nonnull(strstr(clctx_describe(ctx),
                                 "platform 0 device 0: chosen by "
                                 "clctx_new(\"0\")"));
    clctx_free(ctx);
    clctx_free(named);
    setenv("CLFRAME_DEVICE", "999", 1);
    ck_assert_ptr_null(clctx_new(NULL));
    ck_assert_error_has("CLFRAME_DEVICE=999 names device 999, which does not "
                        "exist: there ");
    ck_assert_error_has("(0 is 0:0 ");
}
END_TEST

/* Under CL_DEBUG=1 an explicit choice still wins, debug mode kept: the CPU
 * is only what CL_DEBUG picks when nothing else chooses. */
START_TEST(debug_mode_keeps_an_explicit_choice)
{
    setenv("CL_DEBUG", "1", 1);
    setenv("CLFRAME_DEVICE", "0:0", 1);
    capture_stderr_begin();
    clctx *ctx = clctx_new(NULL);
    free(capture_stderr_end());
    ck_assert_made(ctx);
    ck_assert_int_eq(clctx_debug(ctx), 1);
    ck_assert_ptr_nonnull(strstr(clctx_describe(ctx), "platform 0 device 0: "
                                 "chosen by CLFRAME_DEVICE=0:0 (debug mode)"));
    clctx_free(ctx);
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

/* The CPU devices of every platform in list order: what "cpu" goes round. */
static int cpu_devices(cl_device_id *out, int max)
{
    cl_platform_id platforms[16];
    cl_uint np = 0;
    ck_assert_int_eq(clGetPlatformIDs(16, platforms, &np), CL_SUCCESS);
    int n = 0;
    for (cl_uint p = 0; p < np && p < 16; p++) {
        cl_device_id devices[64];
        cl_uint nd = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 64, devices,
                           &nd) != CL_SUCCESS)
            continue;
        for (cl_uint d = 0; d < nd && d < 64 && n < max; d++) {
            cl_device_type type = 0;
            clGetDeviceInfo(devices[d], CL_DEVICE_TYPE, sizeof type, &type,
                            NULL);
            if (type & CL_DEVICE_TYPE_CPU)
                out[n++] = devices[d];
        }
    }
    return n;
}

START_TEST(nth_goes_round_the_cpu_devices)
{
    cl_device_id cpus[64];
    int count = cpu_devices(cpus, 64);
    ck_assert_int_ge(count, 1);
    clctx *first = new_ctx("cpu");
    ck_assert_ptr_eq(clctx_device(first), cpus[0]);
    ck_assert_ptr_null(strstr(clctx_describe(first), "(index"));
    clctx_free(first);
    static const unsigned indices[] = {0, 1, 7};
    for (size_t k = 0; k < sizeof indices / sizeof *indices; k++) {
        clctx *ctx = clctx_new_nth("cpu", indices[k]);
        ck_assert_made(ctx);
        ck_assert(clctx_device_type(ctx) & CL_DEVICE_TYPE_CPU);
        ck_assert_ptr_eq(clctx_device(ctx), cpus[indices[k] % (unsigned)count]);
        char call[64], place[64];
        snprintf(call, sizeof call, "chosen by clctx_new_nth(\"cpu\", %u)",
                 indices[k]);
        snprintf(place, sizeof place, ": device %u of %d (index %u)",
                 indices[k] % (unsigned)count + 1, count, indices[k]);
        ck_assert_ptr_nonnull(strstr(clctx_describe(ctx), call));
        ck_assert_ptr_nonnull(strstr(clctx_describe(ctx), place));
        ck_assert_cl(clctx_finish(ctx));
        clctx_free(ctx);
    }
}
END_TEST

/* "P:D" names one device: every index shares it. */
START_TEST(nth_of_one_named_device_is_that_device)
{
    clctx *named = new_ctx("0:0");
    clctx *ctx = clctx_new_nth("0:0", 9);
    ck_assert_made(ctx);
    ck_assert_ptr_eq(clctx_device(ctx), clctx_device(named));
    ck_assert_ptr_nonnull(strstr(clctx_describe(ctx),
                                 "platform 0 device 0: chosen by "
                                 "clctx_new_nth(\"0:0\", 9): device 1 of 1 "
                                 "(index 9)"));
    clctx_free(ctx);
    clctx_free(named);
}
END_TEST

static int raised_code;

static void remember_code(int code, const char *message)
{
    (void)message;
    raised_code = code;
}

START_TEST(nth_of_a_name_matching_nothing_is_an_error)
{
    raised_code = 0;
    clframe_error_handler old = clframe_set_error_handler(remember_code);
    clctx *ctx = clctx_new_nth("no-such-device-xyz", 3);
    clframe_set_error_handler(old);
    ck_assert_ptr_null(ctx);
    ck_assert_int_eq(raised_code, CLFRAME_ERR_NO_DEVICE);
    ck_assert_error_has("selector \"no-such-device-xyz\": no device name "
                        "contains \"no-such-device-xyz\" (devices: 0:0 ");
}
END_TEST

START_TEST(nth_follows_the_environment)
{
    clctx *ctx = clctx_new_nth(NULL, 4);
    ck_assert_made(ctx);
    if (clctx_device_type(ctx) & CL_DEVICE_TYPE_GPU)
        ck_assert_ptr_nonnull(strstr(clctx_describe(ctx), ": the GPUs: device "));
    else
        ck_assert_ptr_nonnull(strstr(clctx_describe(ctx),
                              "no GPU found, so the CPU fallback: device "));
    ck_assert_ptr_nonnull(strstr(clctx_describe(ctx), " (index 4)"));
    clctx_free(ctx);

    cl_device_id cpus[64];
    int count = cpu_devices(cpus, 64);
    setenv("CLFRAME_DEVICE", "cpu", 1);
    for (unsigned k = 0; k < 3; k++) {
        ctx = clctx_new_nth(NULL, k);
        ck_assert_made(ctx);
        ck_assert_ptr_eq(clctx_device(ctx), cpus[k % (unsigned)count]);
        char why[96];
        snprintf(why, sizeof why, "chosen by CLFRAME_DEVICE=cpu: device %u "
                 "of %d (index %u)", k % (unsigned)count + 1, count, k);
        ck_assert_ptr_nonnull(strstr(clctx_describe(ctx), why));
        clctx_free(ctx);
    }
}
END_TEST

/* The modulo rule over made-up lists, as a node with several GPUs has them:
 * no device needed. */
static const clf_candidate three_gpus[] = {
    {.pi = 0, .di = 0, .type = CL_DEVICE_TYPE_CPU, .name = "cpu-haswell"},
    {.pi = 1, .di = 0, .type = CL_DEVICE_TYPE_GPU, .name = "NVIDIA H100"},
    {.pi = 1, .di = 1, .type = CL_DEVICE_TYPE_GPU, .name = "NVIDIA H100"},
    {.pi = 1, .di = 2, .type = CL_DEVICE_TYPE_GPU, .name = "NVIDIA H100"},
};

static const clf_candidate gpus_on_two_platforms[] = {
    {.pi = 0, .di = 0, .type = CL_DEVICE_TYPE_GPU, .name = "AMD Radeon"},
    {.pi = 1, .di = 0, .type = CL_DEVICE_TYPE_CPU, .name = "cpu-haswell"},
    {.pi = 2, .di = 0, .type = CL_DEVICE_TYPE_GPU, .name = "NVIDIA H100"},
    {.pi = 2, .di = 1, .type = CL_DEVICE_TYPE_GPU, .name = "NVIDIA H200"},
};

/* Asserts that sel over list picks want[k] for index k, from a set of
 * `matched` devices. */
static void assert_picks(const clf_candidate *list, int n, const char *sel,
                         const int *want, int count, int matched)
{
    for (int k = 0; k < count; k++) {
        int got_matched = -1;
        int i = clf_apply_selector(list, n, sel, "test", (unsigned)k,
                                   &got_matched);
        ck_assert_msg(i == want[k], "\"%s\" index %d chose %d, not %d: %s",
                      sel, k, i, want[k], i < 0 ? clframe_last_error() : "");
        ck_assert_int_eq(got_matched, matched);
    }
}

START_TEST(selector_goes_round_the_gpus)
{
    assert_picks(three_gpus, 4, "gpu", (const int[]){1, 2, 3, 1, 2, 3}, 6, 3);
    assert_picks(three_gpus, 4, "cpu", (const int[]){0, 0, 0}, 3, 1);
    int matched;
    ck_assert_int_eq(clf_apply_selector(three_gpus, 4, "gpu", "test",
                                        UINT_MAX, &matched), 1);
    assert_picks(gpus_on_two_platforms, 4, "GPU",
                 (const int[]){0, 2, 3, 0, 2, 3}, 6, 3);
}
END_TEST

START_TEST(selector_goes_round_the_names_it_matches)
{
    assert_picks(gpus_on_two_platforms, 4, "nvidia",
                 (const int[]){2, 3, 2, 3}, 4, 2);
    assert_picks(gpus_on_two_platforms, 4, "h200", (const int[]){3, 3}, 2, 1);
    assert_picks(gpus_on_two_platforms, 4, "2:0", (const int[]){2, 2, 2}, 3, 1);
    int matched = -1;
    ck_assert_int_eq(clf_apply_selector(gpus_on_two_platforms, 4, "intel",
                                        "test", 5, &matched),
                     CLFRAME_ERR_NO_DEVICE);
    ck_assert_int_eq(matched, 0);
    ck_assert_error_has("no device name contains \"intel\"");
}
END_TEST

/* "1" is device 1, not the first device whose name holds a 1 (an avx512
 * CPU); a number past the list is an error naming every device with its
 * number, even one that a device's name holds. */
START_TEST(a_bare_number_is_a_device_index)
{
    static const clf_candidate avx512[] = {
        {.pi = 0, .di = 0, .type = CL_DEVICE_TYPE_CPU,
         .name = "pthread-skylake-avx512"},
        {.pi = 1, .di = 0, .type = CL_DEVICE_TYPE_GPU, .name = "NVIDIA H200"},
    };
    assert_picks(avx512, 2, "1", (const int[]){1, 1, 1}, 3, 1);
    assert_picks(avx512, 2, "0", (const int[]){0, 0}, 2, 1);
    assert_picks(avx512, 2, "001", (const int[]){1}, 1, 1);
    assert_picks(gpus_on_two_platforms, 4, "3", (const int[]){3, 3}, 2, 1);
    assert_picks(avx512, 2, "h200", (const int[]){1}, 1, 1);
    static const char *beyond[] = {"2", "200", "512", "99999999999999999999"};
    for (size_t k = 0; k < sizeof beyond / sizeof *beyond; k++) {
        int matched = -1;
        ck_assert_int_eq(clf_apply_selector(avx512, 2, beyond[k], "test", 0,
                                            &matched), CLFRAME_ERR_NO_DEVICE);
        ck_assert_int_eq(matched, 0);
        char want[160];
        snprintf(want, sizeof want, "test names device %s, which does not "
                 "exist: there are 2 (0 is 0:0 pthread-skylake-avx512 (CPU); "
                 "1 is 1:0 NVIDIA H200 (GPU)); a bare number", beyond[k]);
        ck_assert_error_has(want);
    }
}
END_TEST

/* CL_DEBUG=1 on a machine without a CPU device: the message says how to
 * debug on another device instead. */
START_TEST(debug_without_a_cpu_says_how_to_choose)
{
    int matched = -1;
    ck_assert_int_eq(clf_apply_selector(three_gpus + 1, 3, "cpu",
                                        "CL_DEBUG=1", 0, &matched),
                     CLFRAME_ERR_NO_DEVICE);
    ck_assert_error_has("CL_DEBUG=1 asks for a CPU device but there is none "
                        "(devices: 1:0 NVIDIA H100 (GPU); ");
    ck_assert_error_has("or choose one of these with CLFRAME_DEVICE");
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

/* Opening the drivers leaves OCL_ICD_FILENAMES as it was, so that the
 * programs and ranks this process starts find the same devices. (A list of
 * drivers was cut at its first ':' on the GPU machine, where it names
 * PoCL's and NVIDIA's, and children found no GPU.) */
START_TEST(children_inherit_the_drivers_list_whole)
{
    if (test_run_apart("clctx", "drivers list"))
        return;
    const char *value = getenv("OCL_ICD_FILENAMES");
    char *before = value ? strdup(value) : NULL;
    clctx *ctx = clctx_new(NULL);
    ck_assert_made(ctx);
    value = getenv("OCL_ICD_FILENAMES");
    ck_assert_msg((!before && !value) ||
                  (before && value && strcmp(before, value) == 0),
                  "OCL_ICD_FILENAMES was \"%s\", is \"%s\"",
                  before ? before : "(unset)", value ? value : "(unset)");
    free(before);
    clctx_free(ctx);
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
    tcase_add_test(tc, a_bare_number_opens_that_device);
    tcase_add_test(tc, name_substring_selects_case_insensitively);
    tcase_add_test(tc, hpce_variables_select_and_are_checked);
    tcase_add_test(tc, debug_mode_uses_the_cpu);
    tcase_add_test(tc, debug_mode_keeps_an_explicit_choice);
    tcase_add_test(tc, empty_selector_is_an_error);
    tcase_add_test(tc, the_default_context_can_be_freed_early);
    tcase_add_test(tc, exact_fp_option_matches_the_device);
    tcase_add_test(tc, limits_are_the_devices);
    tcase_add_test(tc, nth_goes_round_the_cpu_devices);
    tcase_add_test(tc, nth_of_one_named_device_is_that_device);
    tcase_add_test(tc, nth_of_a_name_matching_nothing_is_an_error);
    tcase_add_test(tc, nth_follows_the_environment);
    tcase_add_test(tc, selector_goes_round_the_gpus);
    tcase_add_test(tc, selector_goes_round_the_names_it_matches);
    tcase_add_test(tc, a_bare_number_is_a_device_index);
    tcase_add_test(tc, debug_without_a_cpu_says_how_to_choose);
    suite_add_tcase(s, tc);
    /* A process that has opened no platform yet (test_run_apart); not
     * under Oclgrind, whose log each forked test would truncate. */
    TCase *apart = test_case("no platform");
    tcase_set_tags(apart, "no-oclgrind");
    tcase_add_checked_fixture(apart, clear_selection, restore_selection);
    tcase_add_test(apart, no_platform_says_what_to_install);
    suite_add_tcase(s, apart);
    TCase *drivers = test_case("drivers list");
    tcase_set_tags(drivers, "no-oclgrind");
    tcase_add_test(drivers, children_inherit_the_drivers_list_whole);
    suite_add_tcase(s, drivers);
    return s;
}
