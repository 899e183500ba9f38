/*
 * test_arg.c: every scalar and vector type through CLARG, each copy
 * direction (shown by poisoning and by the transfer counters), persistent
 * buffers that keep data on the device, and clarg_swap double buffering over
 * 0 to 3 steps (the seed's warning: one step hides bugs).
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The types CLARG must know, listed here independently of clframe.h so a
 * type missing there fails this test (and since a macro cannot expand
 * inside itself, CLARG could not be used inside CLFRAME_TYPES_ anyway). */
#define TEST_VECTORS(X, c, n) X(c##2, n##2) X(c##4, n##4) X(c##8, n##8) \
                              X(c##16, n##16)
#define TEST_TYPES(X)                                                      \
    X(cl_char, char) X(cl_uchar, uchar) X(cl_short, short)                 \
    X(cl_ushort, ushort) X(cl_int, int) X(cl_uint, uint) X(cl_long, long)  \
    X(cl_ulong, ulong) X(cl_float, float) X(cl_double, double)             \
    TEST_VECTORS(X, cl_char, char) TEST_VECTORS(X, cl_uchar, uchar)        \
    TEST_VECTORS(X, cl_short, short) TEST_VECTORS(X, cl_ushort, ushort)    \
    TEST_VECTORS(X, cl_int, int) TEST_VECTORS(X, cl_uint, uint)            \
    TEST_VECTORS(X, cl_long, long) TEST_VECTORS(X, cl_ulong, ulong)        \
    TEST_VECTORS(X, cl_float, float) TEST_VECTORS(X, cl_double, double)

static int device_has_fp64(void)
{
    char ext[8192] = "";
    clGetDeviceInfo(clctx_device(NULL), CL_DEVICE_EXTENSIONS, sizeof ext - 1,
                    ext, NULL);
    return strstr(ext, "cl_khr_fp64") != NULL;
}

/* One program of echo kernels, echo_<type>(type x, __global type *out),
 * one per type CLARG knows; built once and shared through the context. */
static char *echo_source(int fp64)
{
    static char src[65536];
    size_t n = (size_t)snprintf(src, sizeof src, "%s",
        fp64 ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" : "");
#define ECHO_KERNEL_(ctype, name)                                           \
    if (fp64 || !strstr(#name, "double"))                                  \
        n += (size_t)snprintf(src + n, sizeof src - n,                     \
            "__kernel void echo_" #name "(" #name " x, __global " #name    \
            " *out) { out[0] = x; }\n");
    TEST_TYPES(ECHO_KERNEL_)
#undef ECHO_KERNEL_
    return src;
}

/* Fills a value with bytes 0x40.. so that float and double lanes are
 * ordinary numbers (never NaN or denormal) and every lane differs. */
static void fill_pattern(void *p, size_t size)
{
    for (size_t i = 0; i < size; i++)
        ((unsigned char *)p)[i] = (unsigned char)(0x40 + i % 31);
}

START_TEST(every_scalar_and_vector_type_reaches_the_kernel)
{
    int fp64 = device_has_fp64();
    const char *src = echo_source(fp64);
    int tested = 0;
#define ECHO_CHECK_(ctype, name)                                            \
    if (fp64 || !strstr(#name, "double")) {                                \
        ctype value, out;                                                  \
        fill_pattern(&value, sizeof value);                                \
        memset(&out, 0, sizeof out);                                       \
        clkernel *k = test_kernel(src, "echo_" #name);                     \
        ck_assert_cl(clkernel_global(k, 1));                               \
        ck_assert_cl(clkernel_call(k, CLARG(value), CLARG_OUT(&out, 1)));  \
        ck_assert_msg(memcmp(&value, &out, sizeof value) == 0,             \
                      "%s came back changed", #name);                      \
        clkernel_free(k);                                                  \
        tested++;                                                          \
    }
    TEST_TYPES(ECHO_CHECK_)
#undef ECHO_CHECK_
    ck_assert_int_eq(tested, fp64 ? 50 : 45);
}
END_TEST

START_TEST(float3_parameters_take_cl_float3)
{
    clkernel *k = test_kernel(
        "__kernel void echo3(float3 x, __global float3 *out, int n) {"
        "  for (int i = 0; i < n; i++) out[i] = x + (float3)(i); }", "echo3");
    cl_float3 v = {{1.5f, -2.0f, 3.25f}};
    cl_float3 out[3];
    memset(out, 0, sizeof out);
    ck_assert_cl(clkernel_global(k, 1));
    ck_assert_cl(clkernel_call(k, CLARG(v), CLARG_OUT(out, 3), CLARG(3)));
    for (int i = 0; i < 3; i++) {
        ck_assert_float_eq(out[i].s[0], 1.5f + (float)i);
        ck_assert_float_eq(out[i].s[1], -2.0f + (float)i);
        ck_assert_float_eq(out[i].s[2], 3.25f + (float)i);
    }
    clkernel_free(k);
}
END_TEST

/* ---- copy directions ------------------------------------------------------ */

static const char *direction_source =
    "__kernel void spoil_in(__global int *in, __global int *out) {"
    "  int i = get_global_id(0); out[i] = in[i] * 3; in[i] = -1; }\n"
    "__kernel void see_poison(__global int *out, int poison) {"
    "  int i = get_global_id(0); out[i] = out[i] == poison ? 1 : 2; }\n"
    "__kernel void write_index(__global int *out) {"
    "  int i = get_global_id(0); out[i] = i; }\n"
    "__kernel void add_one(__global int *x) {"
    "  int i = get_global_id(0); x[i] += 1; }\n";

enum { N = 1000, POISON = 0x5EEDF00D };

START_TEST(in_is_copied_in_and_never_back)
{
    int in[N], out[N];
    for (int i = 0; i < N; i++)
        in[i] = i - 500;
    clkernel *k = test_kernel(direction_source, "spoil_in");
    ck_assert_cl(clkernel_global(k, N));
    clctx_stats before = clctx_get_stats(NULL);
    ck_assert_cl(clkernel_call(k, CLARG_IN(in, N), CLARG_OUT(out, N)));
    clctx_stats after = clctx_get_stats(NULL);
    for (int i = 0; i < N; i++) {
        ck_assert_int_eq(in[i], i - 500);      /* the kernel's -1 stayed there */
        ck_assert_int_eq(out[i], (i - 500) * 3);
    }
    ck_assert_uint_eq(after.bytes_to_device - before.bytes_to_device, sizeof in);
    ck_assert_uint_eq(after.bytes_from_device - before.bytes_from_device,
                      sizeof out);
    clkernel_free(k);
}
END_TEST

/* Poisoning without reading uninitialised memory (valgrind would rightly
 * object): the device holds known data, the host holds poison, and an OUT
 * call must let the kernel see the device's data. The lazy path shows the
 * same through the counters: no copy to the device at all. */
START_TEST(out_is_not_copied_in)
{
    int out[N], sevens[N];
    for (int i = 0; i < N; i++)
        sevens[i] = 7;
    clarg dev = CLARG_OUT(sevens, N);
    ck_assert_cl(clarg_persist(&dev, NULL));
    ck_assert_cl(clarg_write(&dev));
    for (int i = 0; i < N; i++)
        sevens[i] = POISON;
    clkernel *k = test_kernel(direction_source, "see_poison");
    ck_assert_cl(clkernel_global(k, N));
    clctx_stats before = clctx_get_stats(NULL);
    ck_assert_cl(clkernel_call(k, dev, CLARG((int)POISON)));
    clctx_stats after = clctx_get_stats(NULL);
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(sevens[i], 2);
    ck_assert_uint_eq(after.writes, before.writes);
    ck_assert_uint_eq(after.bytes_from_device - before.bytes_from_device,
                      sizeof sevens);
    clarg_release(&dev);
    clkernel_free(k);

    for (int i = 0; i < N; i++)
        out[i] = POISON;
    k = test_kernel(direction_source, "write_index");
    ck_assert_cl(clkernel_global(k, N));
    before = clctx_get_stats(NULL);
    ck_assert_cl(clkernel_call(k, CLARG_OUT(out, N)));
    after = clctx_get_stats(NULL);
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(out[i], i);
    ck_assert_uint_eq(after.writes, before.writes);
    ck_assert_uint_eq(after.reads - before.reads, 1);
    clkernel_free(k);
}
END_TEST

START_TEST(inout_goes_both_ways_and_no_copy_neither)
{
    int x[N];
    for (int i = 0; i < N; i++)
        x[i] = i;
    clkernel *k = test_kernel(direction_source, "add_one");
    ck_assert_cl(clkernel_global(k, N));
    ck_assert_cl(clkernel_call(k, CLARG_INOUT(x, N)));
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(x[i], i + 1);
    clctx_stats before = clctx_get_stats(NULL);
    ck_assert_cl(clkernel_call(k, CLARG_TYPED("int", x, N, CLARG_NO_COPY)));
    clctx_stats after = clctx_get_stats(NULL);
    ck_assert_uint_eq(after.writes, before.writes);
    ck_assert_uint_eq(after.reads, before.reads);
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(x[i], i + 1);
    clkernel_free(k);
}
END_TEST

/* ---- persistent buffers --------------------------------------------------- */

static const char *persist_source =
    "__kernel void fill(__global int *p) {"
    "  int i = get_global_id(0); p[i] = 2 * i; }\n"
    "__kernel void twice(__global int *p) {"
    "  int i = get_global_id(0); p[i] *= 2; }\n";

START_TEST(persistent_data_stays_on_the_device_between_kernels)
{
    int host[N];
    for (int i = 0; i < N; i++)
        host[i] = POISON;
    clkernel *fill = test_kernel(persist_source, "fill");
    clkernel *twice = test_kernel(persist_source, "twice");
    ck_assert_cl(clkernel_global(fill, N));
    ck_assert_cl(clkernel_global(twice, N));
    clarg p = CLARG_INOUT(host, N);
    ck_assert_cl(clarg_persist(&p, NULL));
    ck_assert_cl(clarg_set_flags(&p, CLARG_NO_COPY));
    clarg copy = p;                      /* copies share the device buffer */
    ck_assert_ptr_eq(clarg_mem(&copy), clarg_mem(&p));

    clctx_stats before = clctx_get_stats(NULL);
    ck_assert_cl(clkernel_call(fill, p));
    ck_assert_cl(clkernel_call(twice, copy));
    clctx_stats after = clctx_get_stats(NULL);
    ck_assert_uint_eq(after.writes, before.writes);
    ck_assert_uint_eq(after.reads, before.reads);
    ck_assert_int_eq(host[7], POISON);   /* nothing came back yet */

    ck_assert_cl(clarg_read(&p));
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(host[i], 4 * i);

    /* Flags decide each call's copies: TO_DEVICE sends the host data. */
    for (int i = 0; i < N; i++)
        host[i] = 1;
    ck_assert_cl(clarg_set_flags(&p, CLARG_TO_DEVICE | CLARG_FROM_DEVICE));
    ck_assert_cl(clkernel_call(twice, p));
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(host[i], 2);

    long live = clctx_get_stats(NULL).live_objects;
    clarg_release(&p);
    ck_assert_int_eq(clctx_get_stats(NULL).live_objects, live - 1);
    ck_assert_ptr_null(clarg_mem(&p));
    clkernel_free(fill);
    clkernel_free(twice);
}
END_TEST

/* clarg_keep_on_device: uploaded or not, then no copies on calls. */
START_TEST(kept_arguments_move_only_when_asked)
{
    int host[N], other[N];
    for (int i = 0; i < N; i++) {
        host[i] = i;
        other[i] = POISON;
    }
    clkernel *twice = test_kernel(persist_source, "twice");
    ck_assert_cl(clkernel_global(twice, N));
    clarg p = CLARG_INOUT(host, N), q = CLARG_INOUT(other, N);
    clctx_stats before = clctx_get_stats(NULL);
    ck_assert_cl(clarg_keep_on_device(&p, NULL, 1));
    ck_assert_cl(clarg_keep_on_device(&q, NULL, 0));
    clctx_stats kept = clctx_get_stats(NULL);
    ck_assert_uint_eq(kept.writes, before.writes + 1);  /* p's upload */
    ck_assert_cl(clkernel_call(twice, p));
    ck_assert_cl(clkernel_call(twice, p));
    clctx_stats after = clctx_get_stats(NULL);
    ck_assert_uint_eq(after.writes, kept.writes);
    ck_assert_uint_eq(after.reads, kept.reads);
    ck_assert_int_eq(host[3], 3);                /* nothing came back yet */
    ck_assert_cl(clarg_read(&p));
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(host[i], 4 * i);
    ck_assert_int_eq(other[0], POISON);          /* q was never written */
    clarg s = CLARG(5);
    ck_assert_fails(clarg_keep_on_device(&s, NULL, 1), CLFRAME_ERR_USAGE,
                    "only an array argument");
    clarg_release(&p);
    clarg_release(&q);
    clkernel_free(twice);
}
END_TEST

START_TEST(read_write_and_swap_need_persistent_arguments)
{
    int a[4], b[8];
    clarg x = CLARG_INOUT(a, 4), y = CLARG_INOUT(b, 8);
    ck_assert_fails(clarg_read(&x), CLFRAME_ERR_USAGE, "not persistent");
    ck_assert_fails(clarg_write(&x), CLFRAME_ERR_USAGE, "not persistent");
    ck_assert_fails(clarg_swap(&x, &y), CLFRAME_ERR_USAGE, "must be persistent");
    ck_assert_cl(clarg_persist(&x, NULL));
    ck_assert_cl(clarg_persist(&y, NULL));
    ck_assert_fails(clarg_swap(&x, &y), CLFRAME_ERR_USAGE, "cannot be exchanged");
    /* The same bytes, but floats and ints. */
    float f[4];
    clarg z = CLARG_INOUT(f, 4);
    ck_assert_cl(clarg_persist(&z, NULL));
    ck_assert_fails(clarg_swap(&x, &z), CLFRAME_ERR_USAGE,
                    "an array of int (4 bytes each) and one of float");
    ck_assert_fails(clarg_read(NULL), CLFRAME_ERR_USAGE,
                    "clarg_read: the argument is NULL");
    ck_assert_fails(clarg_swap(&x, NULL), CLFRAME_ERR_USAGE,
                    "argument b is NULL");
    clarg_release(&z);
    clarg s = CLARG(5);
    ck_assert_fails(clarg_persist(&s, NULL), CLFRAME_ERR_USAGE,
                    "only an array argument");
    ck_assert_fails(clarg_set_flags(&x, 16), CLFRAME_ERR_USAGE, "flags must");
    clarg_release(&x);
    clarg_release(&y);
    clarg_release(&s);                    /* harmless on non-persistent */
}
END_TEST

/* One step of a stencil whose result depends on which buffer is which:
 * out[i] = 2 * in[(i + 1) % n] + i. */
static const char *step_source =
    "__kernel void stencil_step(__global const int *in, __global int *out, int n) {"
    "  int i = get_global_id(0); out[i] = 2 * in[(i + 1) % n] + i; }\n";

static void step_reference(int *state, int n, int steps)
{
    int *next = malloc(sizeof *next * (size_t)n);
    for (int t = 0; t < steps; t++) {
        for (int i = 0; i < n; i++)
            next[i] = 2 * state[(i + 1) % n] + i;
        memcpy(state, next, sizeof *next * (size_t)n);
    }
    free(next);
}

/* Copies of a persistent argument share its buffer; once one of them is
 * released, using any other is an error with a message, never freed
 * memory (ASan and valgrind run this) nor the buffer that takes its place. */
START_TEST(a_copy_used_after_release_is_an_error)
{
    int x[4] = {0}, y[4] = {0};
    clkernel *k = test_kernel(direction_source, "add_one");
    ck_assert_cl(clkernel_global(k, 4));
    clarg a = CLARG_INOUT(x, 4);
    ck_assert_cl(clarg_keep_on_device(&a, NULL, 1));
    clarg copy = a;
    ck_assert_cl(clkernel_call(k, copy));
    clarg_release(&a);
    ck_assert_fails(clkernel_call(k, copy), CLFRAME_ERR_USAGE,
                    "argument 1: its device buffer was released");
    /* A new persistent argument may reuse the record; the copy stays old. */
    clarg b = CLARG_INOUT(y, 4);
    ck_assert_cl(clarg_keep_on_device(&b, NULL, 1));
    ck_assert_fails(clarg_read(&copy), CLFRAME_ERR_USAGE,
                    "clarg_read: the argument's device buffer was released");
    ck_assert_fails(clarg_write(&copy), CLFRAME_ERR_USAGE, "was released");
    ck_assert_fails(clarg_swap(&copy, &b), CLFRAME_ERR_USAGE, "was released");
    ck_assert_fails(clarg_persist(&copy, NULL), CLFRAME_ERR_USAGE,
                    "was released");
    ck_assert_ptr_null(clarg_mem(&copy));
    clarg_release(&copy);                 /* a no-op: b keeps its buffer */
    ck_assert_cl(clkernel_call(k, b));
    ck_assert_cl(clarg_read(&b));
    ck_assert_int_eq(y[3], 1);
    clarg_release(&b);
    clkernel_free(k);
}
END_TEST

START_TEST(swap_double_buffering_over_0_to_3_steps)
{
    enum { W = 37 };
    int steps = _i;                      /* the loop test's index: 0..3 */
    int state[W], buffer[W], want[W];
    for (int i = 0; i < W; i++)
        state[i] = want[i] = (i * 7919) % 101 - 50;
    for (int i = 0; i < W; i++)
        buffer[i] = POISON;
    step_reference(want, W, steps);

    clkernel *k = test_kernel(step_source, "stencil_step");
    ck_assert_cl(clkernel_global(k, W));
    clarg cur = CLARG_INOUT(state, W), next = CLARG_INOUT(buffer, W);
    ck_assert_cl(clarg_persist(&cur, NULL));
    ck_assert_cl(clarg_persist(&next, NULL));
    ck_assert_cl(clarg_write(&cur));
    clarg_set_flags(&cur, CLARG_NO_COPY);
    clarg_set_flags(&next, CLARG_NO_COPY);
    for (int t = 0; t < steps; t++) {
        ck_assert_cl(clkernel_enqueue(k, cur, next, CLARG(W)));
        ck_assert_cl(clarg_swap(&cur, &next));
    }
    ck_assert_cl(clarg_read(&cur));
    for (int i = 0; i < W; i++)
        ck_assert_msg(state[i] == want[i], "steps %d, cell %d: %d, want %d",
                      steps, i, state[i], want[i]);
    clarg_release(&cur);
    clarg_release(&next);
    clkernel_free(k);
}
END_TEST

Suite *arg_suite(void)
{
    Suite *s = suite_create("clarg");
    TCase *types = test_case("types");
    tcase_add_test(types, every_scalar_and_vector_type_reaches_the_kernel);
    tcase_add_test(types, float3_parameters_take_cl_float3);
    suite_add_tcase(s, types);
    TCase *dirs = test_case("directions");
    tcase_add_test(dirs, in_is_copied_in_and_never_back);
    tcase_add_test(dirs, out_is_not_copied_in);
    tcase_add_test(dirs, inout_goes_both_ways_and_no_copy_neither);
    suite_add_tcase(s, dirs);
    TCase *persist = test_case("persistent");
    tcase_add_test(persist, persistent_data_stays_on_the_device_between_kernels);
    tcase_add_test(persist, kept_arguments_move_only_when_asked);
    tcase_add_test(persist, read_write_and_swap_need_persistent_arguments);
    tcase_add_test(persist, a_copy_used_after_release_is_an_error);
    tcase_add_loop_test(persist, swap_double_buffering_over_0_to_3_steps, 0, 4);
    suite_add_tcase(s, persist);
    return s;
}
