/*
 * test_layout.c: sharing code between host and device: every CLF_ type has
 * one size and alignment on both sides; CLF_DEVICE tells them apart; the
 * float3 and packing mistakes are caught by clframe_check_layout with a
 * message naming the moved fields, and the shared versions pass; bad names,
 * unknown types and fields fail with the build log; the static asserts of
 * the shared header fail a device build; and one function written once in
 * a shared header (tests/kernels/layout/sample.h) gives the same results
 * from C and from a kernel.
 */
#include "support.h"

#include "clframe/shared.h"
#include "kernels/layout/sample.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Declares `__VA_ARGS__` here and keeps its words as the string `name`, so
 * host and device compile the very same declaration. */
#define SHARED_DECL(name, ...) \
    __VA_ARGS__ static const char name[] = #__VA_ARGS__;

/* A header for the device: the shared types, then decl. The path is
 * returned in a static buffer. */
static const char *device_header(const char *file, const char *decl)
{
    static char path[512];
    char text[4096];
    snprintf(text, sizeof text, "#include \"clframe/shared.h\"\n%s\n", decl);
    snprintf(path, sizeof path, "%s", test_write_file(file, text));
    return path;
}

static int device_has_fp64(void)
{
    cl_device_fp_config fp64 = 0;
    clGetDeviceInfo(clctx_device(NULL), CL_DEVICE_DOUBLE_FP_CONFIG,
                    sizeof fp64, &fp64, NULL);
    return fp64 != 0;
}

/* ---- the type header ------------------------------------------------------ */

/* The double types last: a device without fp64 checks the others. */
#define CLF_TEST_TYPES_(X)                                                 \
    X(CLF_CHAR) X(CLF_UCHAR) X(CLF_SHORT) X(CLF_USHORT) X(CLF_INT)         \
    X(CLF_UINT) X(CLF_LONG) X(CLF_ULONG) X(CLF_FLOAT)                      \
    X(CLF_CHAR2) X(CLF_UCHAR3) X(CLF_SHORT4) X(CLF_USHORT8) X(CLF_INT2)    \
    X(CLF_INT3) X(CLF_INT4) X(CLF_UINT16) X(CLF_LONG2) X(CLF_ULONG3)       \
    X(CLF_FLOAT2) X(CLF_FLOAT3) X(CLF_FLOAT4) X(CLF_FLOAT8) X(CLF_FLOAT16) \
    X(CLF_DOUBLE) X(CLF_DOUBLE2) X(CLF_DOUBLE3) X(CLF_DOUBLE4)
enum { FP64_TYPES = 4 };

#define HOST_SIZE_(T) sizeof(T), _Alignof(T),
#define DEVICE_NAME_(T) #T,

START_TEST(every_shared_type_has_one_size_and_alignment)
{
    static const size_t host[] = {CLF_TEST_TYPES_(HOST_SIZE_)};
    static const char *names[] = {CLF_TEST_TYPES_(DEVICE_NAME_)};
    const int n = (int)(sizeof names / sizeof names[0]) -
                  (device_has_fp64() ? 0 : FP64_TYPES);
    char source[8192];
    int len = snprintf(source, sizeof source,
                       "#include \"clframe/shared.h\"\n"
                       "__kernel void sizes(__global ulong *out) {\n");
    for (int i = 0; i < n; i++)
        len += snprintf(source + len, sizeof source - (size_t)len,
                        "    out[%d] = sizeof(%s); out[%d] = __alignof__(%s);\n",
                        2 * i, names[i], 2 * i + 1, names[i]);
    snprintf(source + len, sizeof source - (size_t)len, "}\n");
    cl_ulong device[2 * (sizeof names / sizeof names[0])];
    clkernel *k = test_kernel(source, "sizes");
    ck_assert_cl(clkernel_global(k, 1));
    ck_assert_cl(clkernel_call(k, CLARG_OUT(device, 2 * (size_t)n)));
    for (int i = 0; i < n; i++) {
        ck_assert_msg(device[2 * i] == host[2 * i], "sizeof(%s): %zu on the "
                      "host, %llu on the device", names[i], host[2 * i],
                      (unsigned long long)device[2 * i]);
        ck_assert_msg(device[2 * i + 1] == host[2 * i + 1], "alignment of %s: "
                      "%zu on the host, %llu on the device", names[i],
                      host[2 * i + 1], (unsigned long long)device[2 * i + 1]);
    }
    clkernel_free(k);
}
END_TEST

START_TEST(clf_device_and_qualifiers_exist_only_on_the_device)
{
#ifdef CLF_DEVICE
    ck_abort_msg("CLF_DEVICE is defined on the host");
#endif
    int on_device[2] = {-1, -1};
    clkernel *k = test_kernel(
        "#include \"clframe/shared.h\"\n"
        "CLF_INLINE void put(CLF_GLOBAL int *out, int v) { *out = v; }\n"
        "__kernel void which(__global int *out) {\n"
        "#ifdef CLF_DEVICE\n"
        "    put(out, CLF_DEVICE);\n"
        "#else\n"
        "    put(out, 0);\n"
        "#endif\n"
        "    CLF_LOCAL int scratch; scratch = 7;\n"
        "    barrier(CLK_LOCAL_MEM_FENCE); out[1] = scratch; }\n",
        "which");
    ck_assert_cl(clkernel_global(k, 1));
    ck_assert_cl(clkernel_call(k, CLARG_OUT(on_device, 2)));
    ck_assert_int_eq(on_device[0], 1);
    ck_assert_int_eq(on_device[1], 7);
    clkernel_free(k);
}
END_TEST

/* ---- the float3 mistake and its fix -------------------------------------- */

/* Written by hand for each side: three floats here, a float3 there. */
typedef struct BadParticle {
    cl_float pos[3];
    cl_float w;
} BadParticle;

START_TEST(float3_against_three_floats_is_detected)
{
    const char *h = device_header("layout/bad_particle.h",
                                  "typedef struct BadParticle { float3 pos; "
                                  "float w; } BadParticle;");
    int rc = CLFRAME_CHECK_LAYOUT(NULL, h, BadParticle, pos, w);
    ck_assert_fails(rc, CLFRAME_ERR_ARG_TYPE,
                    "layout of BadParticle differs between the host and ");
    const char *msg = clframe_last_error();
    ck_assert_ptr_nonnull(strstr(msg, clctx_device_name(NULL)));
    ck_assert_ptr_nonnull(strstr(msg, "sizeof 16 on the host, 32 on the device"));
    ck_assert_ptr_nonnull(strstr(msg, "field w at offset 12 on the host, 16 "
                                      "on the device"));
    ck_assert_ptr_null(strstr(msg, "field pos"));     /* it did not move */
    ck_assert_ptr_nonnull(strstr(msg, "CLF_FLOAT3"));
}
END_TEST

SHARED_DECL(good_particle_h,
            typedef struct GoodParticle {
                CLF_FLOAT3 pos;
                CLF_FLOAT w;
            } GoodParticle;)

START_TEST(float3_written_once_with_clf_float3_passes)
{
    ck_assert_uint_eq(sizeof(GoodParticle), 32);
    const char *h = device_header("layout/good_particle.h", good_particle_h);
    ck_assert_cl(CLFRAME_CHECK_LAYOUT(NULL, h, GoodParticle, pos, w));
    /* A shared header, by its path in the tree, both ways. */
    ck_assert_cl(CLFRAME_CHECK_LAYOUT(NULL, "tests/kernels/layout/sample.h",
                                      Sample, tag, gain, unused_, at));
    ck_assert_cl(CLFRAME_CHECK_LAYOUT(NULL, "./tests/kernels/layout/sample.h",
                                      Sample, unused_[1], at));
}
END_TEST

/* ---- padding ---------------------------------------------------------------- */

SHARED_DECL(mixed_h,
            typedef struct Mixed {
                CLF_CHAR c;
                CLF_INT i;
                CLF_DOUBLE d;
                CLF_SHORT s;
                CLF_UCHAR4 u;
                CLF_LONG l;
                CLF_CHAR tail;
            } Mixed;)

START_TEST(char_int_double_padding_matches_with_shared_types)
{
    if (!device_has_fp64())
        return;
    ck_assert_uint_eq(offsetof(Mixed, d), 8);
    const char *h = device_header("layout/mixed.h", mixed_h);
    ck_assert_cl(CLFRAME_CHECK_LAYOUT(NULL, h, Mixed, c, i, d, s, u, l, tail));
}
END_TEST

/* Packed on the host only: the device pads i to offset 4. */
typedef struct __attribute__((packed)) Packed {
    cl_char c;
    cl_int i;
} Packed;

START_TEST(host_only_packing_is_detected)
{
    const char *h = device_header("layout/packed.h",
                                  "typedef struct Packed { char c; int i; } "
                                  "Packed;");
    ck_assert_fails(CLFRAME_CHECK_LAYOUT(NULL, h, Packed, c, i),
                    CLFRAME_ERR_ARG_TYPE,
                    "sizeof 5 on the host, 8 on the device; field i at "
                    "offset 1 on the host, 4 on the device");
}
END_TEST

SHARED_DECL(sixteen_h,
            typedef struct Sixteen {
                CLF_CHAR a; CLF_SHORT b; CLF_INT c; CLF_LONG d;
                CLF_UCHAR e; CLF_USHORT f; CLF_UINT g; CLF_ULONG h;
                CLF_FLOAT i; CLF_FLOAT2 j; CLF_FLOAT3 k; CLF_FLOAT4 l;
                CLF_INT2 m; CLF_INT4 n; CLF_CHAR o; CLF_INT p[3];
            } Sixteen;)

START_TEST(sixteen_fields_and_a_table_by_hand)
{
    const char *hdr = device_header("layout/sixteen.h", sixteen_h);
    ck_assert_cl(CLFRAME_CHECK_LAYOUT(NULL, hdr, Sixteen, a, b, c, d, e, f, g,
                                      h, i, j, k, l, m, n, o, p));
    /* A wrong host offset in a hand-made table is reported as such. */
    clframe_field fields[] = {{"a", 0}, {"k", offsetof(Sixteen, k) + 4}};
    ck_assert_fails(clframe_check_layout(NULL, hdr, "Sixteen", sizeof(Sixteen),
                                         fields, 2),
                    CLFRAME_ERR_ARG_TYPE, "; field k at offset ");
    ck_assert_ptr_null(strstr(clframe_last_error(), "field a "));
    /* Size alone, and a built-in type without a header. */
    ck_assert_cl(clframe_check_layout(NULL, hdr, "Sixteen", sizeof(Sixteen),
                                      NULL, 0));
    ck_assert_cl(clframe_check_layout(NULL, NULL, "float3", sizeof(cl_float3),
                                      NULL, 0));
}
END_TEST

/* ---- errors ------------------------------------------------------------------ */

START_TEST(unknown_types_fields_and_headers_fail_to_build)
{
    const char *h = device_header("layout/known.h",
                                  "typedef struct Known { int a; } Known;");
    ck_assert_fails(clframe_check_layout(NULL, h, "NoSuchType", 4, NULL, 0),
                    CLFRAME_ERR_BUILD, "checking the layout of NoSuchType");
    ck_assert_ptr_nonnull(strstr(clframe_last_error(), "Build log"));
    ck_assert_ptr_nonnull(strstr(clframe_last_error(), "NoSuchType"));

    clframe_field missing[] = {{"b", 4}};
    ck_assert_fails(clframe_check_layout(NULL, h, "Known", 4, missing, 1),
                    CLFRAME_ERR_BUILD, "is every field a member of it?");

    ck_assert_fails(clframe_check_layout(NULL, "layout/no_such_header.h",
                                         "Known", 4, NULL, 0),
                    CLFRAME_ERR_BUILD, "no_such_header.h");
}
END_TEST

START_TEST(names_that_are_not_c_names_are_refused)
{
    clframe_field evil[] = {{"a; } __kernel void x() {", 0}};
    ck_assert_fails(clframe_check_layout(NULL, NULL, "int", 4, evil, 1),
                    CLFRAME_ERR_USAGE, "is not a member name");
    ck_assert_fails(clframe_check_layout(NULL, NULL, "int*)0; //", 4, NULL, 0),
                    CLFRAME_ERR_USAGE, "is not a type name");
    ck_assert_fails(clframe_check_layout(NULL, NULL, NULL, 4, NULL, 0),
                    CLFRAME_ERR_USAGE, "is not a type name");
    ck_assert_fails(clframe_check_layout(NULL, NULL, "int", 4, NULL, 2),
                    CLFRAME_ERR_USAGE, "no field table");
    ck_assert_fails(clframe_check_layout(NULL, "a.h\"\nint x;", "int", 4,
                                         NULL, 0),
                    CLFRAME_ERR_USAGE, "is not a header path");
}
END_TEST

START_TEST(static_asserts_of_the_shared_header_fail_a_device_build)
{
    clkernel *k = clkernel_source(NULL,
        "#include \"clframe/shared.h\"\n"
        "typedef struct P { float3 pos; float w; } P;\n"
        "CLF_STATIC_ASSERT_SIZE(P, 16);\n"
        "__kernel void k(__global int *out) { *out = 0; }\n",
        "k", NULL);
    ck_assert_ptr_null(k);
    ck_assert_ptr_nonnull(strstr(clframe_last_error(),
                                 "clf_static_assert_failed_at_line_3"));
    k = clkernel_source(NULL,
        "#include \"clframe/shared.h\"\n"
        "typedef struct P { float3 pos; float w; } P;\n"
        "CLF_STATIC_ASSERT_SIZE(P, 32);\n"
        "CLF_STATIC_ASSERT_OFFSET(P, w, 16);\n"
        "__kernel void k(__global int *out) { *out = 0; }\n",
        "k", NULL);
    ck_assert_made(k);
    clkernel_free(k);
}
END_TEST

/* ---- one function, two compilers -------------------------------------------- */

static const char *score_source =
    "#include \"tests/kernels/layout/sample.h\"\n"
    "__kernel void score_all(__global const Sample *ps, int n,\n"
    "                        float3 target, __global float *scores,\n"
    "                        __global int *best) {\n"
    "    int i = get_global_id(0);\n"
    "    if (i < n) scores[i] = sample_weight(ps[i], target);\n"
    "    if (i == 0) *best = sample_heaviest(ps, n, target);\n"
    "}\n";

START_TEST(one_shared_function_gives_the_same_results_on_both_sides)
{
    enum { N = 37 };
    /* Small halves and integers: every product and sum is exact, so a
     * device that fuses multiply-adds must still agree to the bit. */
    Sample ps[N];
    for (int i = 0; i < N; i++)
        ps[i] = sample_make((unsigned)i % 5, i % 3 ? 1.0f : 0.5f,
                            (float)(i % 9 - 4), (float)(i % 5) * 0.5f,
                            (float)(i % 7 - 3));
    cl_float3 target = {.s = {1.0f, -2.0f, 0.5f, 0.0f}};
    float device[N], host[N];
    cl_int best = -2;

    clkernel *k = test_kernel(score_source, "score_all");
    ck_assert_cl(clkernel_global(k, clframe_round_up(N, 16)));
    ck_assert_cl(clkernel_call(k, CLARG_TYPED("Sample", ps, N,
                                              CLARG_TO_DEVICE),
                               CLARG((cl_int)N), CLARG(target),
                               CLARG_OUT(device, N), CLARG_OUT(&best, 1)));
    for (int i = 0; i < N; i++) {
        host[i] = sample_weight(ps[i], target);
        ck_assert_msg(host[i] == device[i], "sample %d: %.9g on the host, "
                      "%.9g on the device", i, host[i], device[i]);
    }
    ck_assert_int_eq(best, sample_heaviest(ps, N, target));
    ck_assert_int_ge(best, 0);
    ck_assert_int_eq(sample_heaviest(ps, 0, target), -1);
    clkernel_free(k);
}
END_TEST

Suite *layout_suite(void)
{
    Suite *s = suite_create("layout");
    TCase *tc = test_case("layout");
    tcase_add_test(tc, every_shared_type_has_one_size_and_alignment);
    tcase_add_test(tc, clf_device_and_qualifiers_exist_only_on_the_device);
    tcase_add_test(tc, float3_against_three_floats_is_detected);
    tcase_add_test(tc, float3_written_once_with_clf_float3_passes);
    tcase_add_test(tc, char_int_double_padding_matches_with_shared_types);
    tcase_add_test(tc, host_only_packing_is_detected);
    tcase_add_test(tc, sixteen_fields_and_a_table_by_hand);
    tcase_add_test(tc, unknown_types_fields_and_headers_fail_to_build);
    tcase_add_test(tc, names_that_are_not_c_names_are_refused);
    tcase_add_test(tc, static_asserts_of_the_shared_header_fail_a_device_build);
    tcase_add_test(tc, one_shared_function_gives_the_same_results_on_both_sides);
    suite_add_tcase(s, tc);
    return s;
}
