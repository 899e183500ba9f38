/*
 * test_kernel.c: calling kernels: 1-3 dimensions, offsets, local memory,
 * structs, enqueue chains; every kind of argument mismatch and size error
 * rejected with its message; build failures with their log; no OpenCL
 * object leaked over 1000 calls; freed kernels' programs kept for reuse;
 * the profile table and debug mode; a kernel's launches counted and every
 * timed launch's time summed.
 */
#include "support.h"
#include "internal.h"           /* clctx's no_arg_info */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The sizes per run (support.h): valgrind and Oclgrind run kernels many
 * times slower, and on Oclgrind 4096 work-items make each test that uses
 * them slow. */
static const struct {
    size_t work_items;      /* of the timed kernel */
} run_sizes[] = {
    [TEST_FULL]    = {4096},
    [TEST_CHECKED] = {256},
};

START_TEST(vadd_from_a_file_with_a_rounded_up_global_size)
{
    enum { N = 1001 };
    float a[N], b[N], c[N];
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = 0.5f * (float)i;
        c[i] = -1;
    }
    clkernel *k = clkernel_file(NULL, "tests/kernels/vadd.cl", "vadd", NULL);
    ck_assert_made(k);
    ck_assert_str_eq(clkernel_name(k), "vadd");
    ck_assert_uint_eq(clkernel_num_args(k), 4);
    ck_assert_ptr_nonnull(strstr(clkernel_signature(k), "__global float* c"));
    ck_assert_cl(clkernel_global(k, 1024));
    ck_assert_cl(clkernel_local(k, 64));
    ck_assert_cl(clkernel_call(k, CLARG_IN(a, N), CLARG_IN(b, N),
                               CLARG_OUT(c, N), CLARG((int)N)));
    for (int i = 0; i < N; i++)
        ck_assert_float_eq(c[i], 1.5f * (float)i);
    ck_assert(clkernel_last_ms(k) == -1);          /* timing is off */
    ck_assert_cl(clkernel_set_timing(k, 1));
    ck_assert_cl(clkernel_call(k, CLARG_IN(a, N), CLARG_IN(b, N),
                               CLARG_OUT(c, N), CLARG((int)N)));
    double ms = clkernel_last_ms(k);
    ck_assert(ms >= 0 && ms < 10000);
    ck_assert_cl(clkernel_enqueue(k, CLARG_IN(a, N), CLARG_IN(b, N),
                                  CLARG_OUT(c, N), CLARG((int)N)));
    ck_assert(clkernel_last_ms(k) >= 0);           /* waits for the event */
    ck_assert_cl(clctx_finish(NULL));
    clkernel_free(k);
}
END_TEST

START_TEST(two_and_three_dimensions_with_offsets)
{
    enum { W = 37, H = 19, D = 3 };
    int out[D][H][W];
    clkernel *k = test_kernel(
        "__kernel void coords(__global int *out, int w, int h) {"
        "  size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);"
        "  out[(z * h + y) * w + x] = (int)(x + 100 * y + 10000 * z); }",
        "coords");
    memset(out, 0xff, sizeof out);
    ck_assert_cl(clkernel_global(k, W, H));
    ck_assert_cl(clkernel_call(k, CLARG_INOUT(&out[0][0][0], W * H * D),
                               CLARG((int)W), CLARG((int)H)));
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            ck_assert_int_eq(out[0][y][x], x + 100 * y);
    ck_assert_int_eq(out[1][0][0], -1);

    memset(out, 0xff, sizeof out);
    ck_assert_cl(clkernel_global(k, W - 2, H, D));
    ck_assert_cl(clkernel_offset(k, 2, 0, 0));
    ck_assert_cl(clkernel_call(k, CLARG_INOUT(&out[0][0][0], W * H * D),
                               CLARG((int)W), CLARG((int)H)));
    for (int z = 0; z < D; z++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                ck_assert_int_eq(out[z][y][x],
                                 x < 2 ? -1 : x + 100 * y + 10000 * z);
    clkernel_free(k);
}
END_TEST

START_TEST(local_memory_work_group_sums)
{
    enum { N = 1000, G = 64, GROUPS = (N + G - 1) / G };
    int in[N], sums[GROUPS];
    for (int i = 0; i < N; i++)
        in[i] = i % 17 - 8;
    clkernel *k = test_kernel(
        "__kernel void group_sum(__global const int *in, __global int *sums,"
        "                        __local int *scratch, int n) {"
        "  size_t i = get_global_id(0), l = get_local_id(0);"
        "  scratch[l] = i < (size_t)n ? in[i] : 0;"
        "  barrier(CLK_LOCAL_MEM_FENCE);"
        "  for (size_t s = get_local_size(0) / 2; s > 0; s /= 2) {"
        "    if (l < s) scratch[l] += scratch[l + s];"
        "    barrier(CLK_LOCAL_MEM_FENCE); }"
        "  if (l == 0) sums[get_group_id(0)] = scratch[0]; }",
        "group_sum");
    ck_assert_cl(clkernel_global(k, GROUPS * G));
    ck_assert_cl(clkernel_local(k, G));
    ck_assert_cl(clkernel_call(k, CLARG_IN(in, N), CLARG_OUT(sums, GROUPS),
                               CLARG_LOCAL(G * sizeof(int)), CLARG((int)N)));
    for (int g = 0; g < GROUPS; g++) {
        int want = 0;
        for (int i = g * G; i < (g + 1) * G && i < N; i++)
            want += in[i];
        ck_assert_int_eq(sums[g], want);
    }
    clkernel_free(k);
}
END_TEST

/* Host and device agree on this layout: two 4-byte members. */
typedef struct Item {
    cl_int id;
    cl_float weight;
} Item;

static const char *item_source =
    "typedef struct Item { int id; float weight; } Item;\n"
    "__kernel void scale(__global Item *items, Item by, int n) {"
    "  int i = get_global_id(0); if (i < n) {"
    "  items[i].id += by.id; items[i].weight *= by.weight; } }\n"
    "__kernel void sig(__global float *a, __local int *scratch, int n, Item it)"
    "  { if (n < 0) a[0] = scratch[0] + it.weight; }\n";

START_TEST(structs_by_value_and_in_arrays)
{
    enum { N = 10 };
    Item items[N], by = {100, 2.0f};
    for (int i = 0; i < N; i++)
        items[i] = (Item){i, (float)i + 0.5f};
    clkernel *k = test_kernel(item_source, "scale");
    ck_assert_cl(clkernel_global(k, 16));
    ck_assert_cl(clkernel_call(k, CLARG_TYPED("Item", items, N,
                                              CLARG_TO_DEVICE | CLARG_FROM_DEVICE),
                               CLARG_VALUE("Item", &by), CLARG((int)N)));
    for (int i = 0; i < N; i++) {
        ck_assert_int_eq(items[i].id, i + 100);
        ck_assert_float_eq(items[i].weight, 2.0f * ((float)i + 0.5f));
    }
    clkernel_free(k);
}
END_TEST

/* A pair of ints, on both sides. */
typedef struct Pair {
    cl_int a, b;
} Pair;

/* k(ps, d) adds d to both of ps, the array named `array`, d named `value`. */
static void add_pairs(clkernel *k, const char *array, const char *value,
                      Pair ps[2], const Pair *d)
{
    ck_assert_cl(clkernel_call(k, CLARG_TYPED(array, ps, 2,
                                              CLARG_TO_DEVICE | CLARG_FROM_DEVICE),
                               CLARG_VALUE(value, d)));
}

/* A struct parameter without a typedef: the driver names it "Pair", the
 * user may write "struct Pair"; and a typedef of a struct: its name and the
 * struct's tag are one type. */
START_TEST(struct_names_with_or_without_the_word_struct)
{
    Pair ps[2] = {{1, 2}, {3, 4}}, d = {10, 20};
    clkernel *k = test_kernel(
        "struct Pair { int a; int b; };\n"
        "__kernel void add(__global struct Pair *ps, struct Pair d) {"
        "  ps[get_global_id(0)].a += d.a; ps[get_global_id(0)].b += d.b; }",
        "add");
    ck_assert_cl(clkernel_global(k, 2));
    add_pairs(k, "struct Pair", "struct Pair", ps, &d);
    add_pairs(k, "Pair", "Pair", ps, &d);
    ck_assert_int_eq(ps[0].a, 21);
    ck_assert_int_eq(ps[1].b, 44);
    ck_assert_fails(clkernel_call(k, CLARG_TYPED("struct Pear", ps, 2,
                                                 CLARG_TO_DEVICE),
                                  CLARG_VALUE("Pair", &d)),
                    CLFRAME_ERR_ARG_TYPE, "expects __global Pair*, got an "
                    "array of struct Pear");
    clkernel_free(k);
    k = test_kernel("typedef struct pair_s { int a; int b; } Duo;\n"
                    "__kernel void add(__global Duo *ps, struct pair_s d) {"
                    "  ps[get_global_id(0)].a += d.a; }", "add");
    ck_assert_cl(clkernel_global(k, 2));
    add_pairs(k, "struct pair_s", "Duo", ps, &d);
    add_pairs(k, "Duo", "pair_s", ps, &d);
    ck_assert_int_eq(ps[0].a, 41);
    clkernel_free(k);
}
END_TEST

/* Parameters whose types are typedefs of built-in types take arguments of
 * those types. */
START_TEST(typedefs_of_built_in_types_are_those_types)
{
    float x[4] = {1, 2, 3, 4};
    cl_int2 shift = {{1, 2}};
    clkernel *k = test_kernel(
        "typedef float real;\ntypedef int2 pair;\n"
        "__kernel void scale(__global real *x, real s, pair d, int n) {"
        "  int i = get_global_id(0); if (i < n) x[i] = x[i] * s + d.x + d.y; }",
        "scale");
    ck_assert_cl(clkernel_global(k, 4));
    ck_assert_cl(clkernel_call(k, CLARG_INOUT(x, 4), CLARG(2.0f), CLARG(shift),
                               CLARG(4)));
    ck_assert(x[0] == 5.0f && x[3] == 11.0f);
    ck_assert_fails(clkernel_call(k, CLARG_INOUT(x, 4), CLARG(2.0), CLARG(shift),
                                  CLARG(4)),
                    CLFRAME_ERR_ARG_TYPE, "expects float, got a value of type "
                    "double");
    clkernel_free(k);
}
END_TEST

/* sig(__global float *a, __local int *scratch, int n, Item it) */
START_TEST(every_kind_of_mismatch_is_named)
{
    float f[4] = {0};
    int i4[4] = {0};
    Item items[2] = {{0, 0.0f}, {0, 0.0f}}, it = {1, 1.0f};
    struct { cl_int a, b, c; } big = {0, 0, 0};
    clkernel *k = test_kernel(item_source, "sig");
    ck_assert_cl(clkernel_global(k, 1));
    ck_assert_cl(clkernel_call(k, CLARG_IN(f, 4), CLARG_LOCAL(16), CLARG(1),
                               CLARG_VALUE("Item", &it)));

    ck_assert_fails(clkernel_call(k, CLARG_IN(f, 4), CLARG_LOCAL(16), CLARG(1)),
                    CLFRAME_ERR_ARG_COUNT,
                    "3 arguments given, the kernel takes 4: sig(__global float* a");
    ck_assert_fails(clkernel_call(k, CLARG(1.0f), CLARG_LOCAL(16), CLARG(1),
                                  CLARG_VALUE("Item", &it)),
                    CLFRAME_ERR_ARG_TYPE, "argument 1 (a): the kernel expects "
                    "__global float*, got a value of type float (CLARG)");
    ck_assert_fails(clkernel_call(k, CLARG_IN(i4, 4), CLARG_LOCAL(16), CLARG(1),
                                  CLARG_VALUE("Item", &it)),
                    CLFRAME_ERR_ARG_TYPE, "argument 1 (a): the kernel expects "
                    "__global float*, got an array of int");
    ck_assert_fails(clkernel_call(k, CLARG_IN(f, 4), CLARG_IN(i4, 4), CLARG(1),
                                  CLARG_VALUE("Item", &it)),
                    CLFRAME_ERR_ARG_TYPE, "argument 2 (scratch): the kernel "
                    "expects __local int*, got an array of int; pass CLARG_LOCAL");
    ck_assert_fails(clkernel_call(k, CLARG_IN(f, 4), CLARG_LOCAL(16), CLARG(1.0f),
                                  CLARG_VALUE("Item", &it)),
                    CLFRAME_ERR_ARG_TYPE, "argument 3 (n): the kernel expects "
                    "int, got a value of type float");
    ck_assert_fails(clkernel_call(k, CLARG_IN(f, 4), CLARG_LOCAL(16), CLARG(1L),
                                  CLARG_VALUE("Item", &it)),
                    CLFRAME_ERR_ARG_TYPE, "expects int, got a value of type long");
    ck_assert_fails(clkernel_call(k, CLARG_IN(f, 4), CLARG_LOCAL(16),
                                  CLARG_IN(i4, 4), CLARG_VALUE("Item", &it)),
                    CLFRAME_ERR_ARG_TYPE, "expects int, got an array of int");
    ck_assert_fails(clkernel_call(k, CLARG_IN(f, 4), CLARG_LOCAL(16), CLARG(1),
                                  CLARG_VALUE("Thing", &it)),
                    CLFRAME_ERR_ARG_TYPE, "expects Item, got a value of type Thing");
    /* A struct of the right name but the wrong size, by value or as the
     * elements of an array: clframe measures the device's sizeof (drivers,
     * PoCL among them, take any size). */
    ck_assert_fails(clkernel_call(k, CLARG_IN(f, 4), CLARG_LOCAL(16), CLARG(1),
                                  CLARG_VALUE("Item", &big)),
                    CLFRAME_ERR_ARG_TYPE, "argument 4 (it): Item is 8 bytes on");
    ck_assert_ptr_nonnull(strstr(clframe_last_error(), "but 12 on the host"));
    clkernel *scale = test_kernel(item_source, "scale");
    ck_assert_cl(clkernel_global(scale, 2));
    struct { cl_int a, b, c; } bigs[2] = {{0, 0, 0}, {0, 0, 0}};
    ck_assert_fails(clkernel_call(scale, CLARG_TYPED("Item", bigs, 2,
                                                     CLARG_TO_DEVICE),
                                  CLARG_VALUE("Item", &it), CLARG(2)),
                    CLFRAME_ERR_ARG_TYPE, "argument 1 (items): Item is 8 bytes");
    ck_assert_cl(clkernel_call(scale, CLARG_TYPED("Item", items, 2,
                                                  CLARG_TO_DEVICE),
                               CLARG_VALUE("Item", &it), CLARG(2)));
    clkernel_free(scale);
    ck_assert_fails(clkernel_call(k, CLARG_IN(items, 2), CLARG_LOCAL(16),
                                  CLARG(1), CLARG_VALUE("Item", &it)),
                    CLFRAME_ERR_ARG_TYPE, "name the element type with CLARG_TYPED");
    ck_assert_fails(clkernel_call(k, CLARG_IN(f, 4), CLARG_LOCAL((size_t)1 << 40),
                                  CLARG(1), CLARG_VALUE("Item", &it)),
                    CLFRAME_ERR_BAD_SIZE, "bytes of __local memory;");
    ck_assert_fails(clkernel_call(k, CLARG_IN(f, 4), CLARG_LOCAL(0), CLARG(1),
                                  CLARG_VALUE("Item", &it)),
                    CLFRAME_ERR_USAGE, "CLARG_LOCAL(0)");
    ck_assert_fails(clkernel_call(k, CLARG_TYPED("float", f, 4, 16),
                                  CLARG_LOCAL(16), CLARG(1),
                                  CLARG_VALUE("Item", &it)),
                    CLFRAME_ERR_USAGE, "unknown copy flags");
    ck_assert_fails(clkernel_call(k, CLARG_TYPED("float", NULL, 4, CLARG_TO_DEVICE),
                                  CLARG_LOCAL(16), CLARG(1),
                                  CLARG_VALUE("Item", &it)),
                    CLFRAME_ERR_USAGE, "NULL host array");
    clarg zeroed = {0};
    ck_assert_fails(clkernel_call(k, CLARG_IN(f, 4), zeroed, CLARG(1),
                                  CLARG_VALUE("Item", &it)),
                    CLFRAME_ERR_USAGE, "argument 2 is an empty clarg");
    ck_assert_fails(clkernel_call(NULL, CLARG(1)), CLFRAME_ERR_USAGE,
                    "NULL kernel");
    clkernel_free(k);
}
END_TEST


/* ---- signatures from the source ------------------------------------------- */

#define MIXED "tests/kernels/mixed.cl"

/* A context that builds as NVIDIA's driver must for a file with a kernel
 * without parameters: without -cl-kernel-arg-info, so that the driver
 * reports nothing and every check rests on the source. */
static clctx *context_without_arg_info(void)
{
    clctx *ctx = clctx_new(getenv("CLFRAME_DEVICE"));
    ck_assert_made(ctx);
    ctx->no_arg_info = 1;
    return ctx;
}

static clkernel *mixed(clctx *ctx, const char *name)
{
    clkernel *k = clkernel_file(ctx, MIXED, name, NULL);
    ck_assert_made(k);
    return k;
}

/* Every mistake of a call is found from the source, with or without the
 * driver's report: a struct of the wrong size, a float array for float4, a
 * misspelt struct name, a double for a typedef of float. */
static void check_treal(clctx *ctx)
{
    Pair p[4] = {{0, 0}, {1, 1}, {2, 2}, {3, 3}};
    struct { cl_int a, b, c; } big[4] = {{0, 0, 0}};
    cl_float4 v[4];
    float f[16];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            v[i].s[j] = f[4 * i + j] = (float)(i + j);
    clkernel *k = mixed(ctx, "treal");
    ck_assert_str_eq(clkernel_signature(k),
                     "treal(__global Pair* p, __global float4* v, float s)");
    ck_assert_cl(clkernel_global(k, 4));
    unsigned io = CLARG_TO_DEVICE | CLARG_FROM_DEVICE;
    ck_assert_fails(clkernel_call(k, CLARG_TYPED("Pair", big, 4, io),
                                  CLARG_INOUT(v, 4), CLARG(2.0f)),
                    CLFRAME_ERR_ARG_TYPE, "argument 1 (p): Pair is 8 bytes on");
    ck_assert_fails(clkernel_call(k, CLARG_TYPED("Pair", p, 4, io),
                                  CLARG_INOUT(f, 16), CLARG(2.0f)),
                    CLFRAME_ERR_ARG_TYPE, "argument 2 (v): the kernel expects "
                    "__global float4*, got an array of float");
    ck_assert_fails(clkernel_call(k, CLARG_TYPED("Pear", p, 4, io),
                                  CLARG_INOUT(v, 4), CLARG(2.0f)),
                    CLFRAME_ERR_ARG_TYPE, "argument 1 (p): the kernel expects "
                    "__global Pair*, got an array of Pear");
    ck_assert_fails(clkernel_call(k, CLARG_TYPED("Pair", p, 4, io),
                                  CLARG_INOUT(v, 4), CLARG(2.0)),
                    CLFRAME_ERR_ARG_TYPE, "argument 3 (s): the kernel expects "
                    "float, got a value of type double");
    ck_assert_cl(clkernel_call(k, CLARG_TYPED("struct Pair", p, 4, io),
                               CLARG_INOUT(v, 4), CLARG_VALUE("real", &(float){2.0f})));
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(p[i].a, i + 1);
        ck_assert_int_eq(p[i].b, i + 2);
        ck_assert(v[i].s[3] == 2.0f * (float)(i + 3));
    }
    clkernel_free(k);
}

/* typedef chains of any depth, the source's parameter names (PoCL renames
 * step and dot), __constant without a const the source did not write, and
 * the kernel's own typedef names accepted as the types they name. */
static void check_chain(clctx *ctx)
{
    float x[4] = {1, 2, 3, 4}, c[4] = {10, 20, 30, 40};
    clkernel *k = mixed(ctx, "chain");
    ck_assert_str_eq(clkernel_signature(k), "chain(__global float* x, float a, "
                     "__constant float* c, int step, int dot)");
    ck_assert_cl(clkernel_global(k, 4));
    ck_assert_cl(clkernel_call(k, CLARG_INOUT(x, 4), CLARG(2.0f), CLARG_IN(c, 4),
                               CLARG(100), CLARG(1000)));
    ck_assert(x[0] == 1112.0f && x[3] == 1148.0f);
    ck_assert_cl(clkernel_call(k, CLARG_TYPED("real_arg", x, 4, CLARG_TO_DEVICE),
                               CLARG_VALUE("real_arg", &(float){1.0f}),
                               CLARG_TYPED("real", c, 4, CLARG_TO_DEVICE),
                               CLARG(0), CLARG(0)));
    ck_assert_fails(clkernel_call(k, CLARG_INOUT(x, 4), CLARG(2.0f),
                                  CLARG_IN(c, 4), CLARG(1.0f), CLARG(0)),
                    CLFRAME_ERR_ARG_TYPE, "argument 4 (step): the kernel "
                    "expects int, got a value of type float");
    ck_assert_fails(clkernel_call(k, CLARG_TYPED("double", x, 4, CLARG_TO_DEVICE),
                                  CLARG(2.0f), CLARG_IN(c, 4), CLARG(0),
                                  CLARG(0)),
                    CLFRAME_ERR_ARG_TYPE, "argument 1 (x): the kernel expects "
                    "__global float*, got an array of double");
    clkernel_free(k);
}

/* A struct's typedef of a typedef, its tag and its other typedef name are
 * one type; messages use the source's name. */
static void check_couple(clctx *ctx)
{
    Pair d[2] = {{1, 2}, {3, 4}}, by = {10, 20};
    clkernel *k = mixed(ctx, "couple");
    ck_assert_str_eq(clkernel_signature(k),
                     "couple(__global Couple* d, Duo by)");
    ck_assert_cl(clkernel_global(k, 2));
    unsigned io = CLARG_TO_DEVICE | CLARG_FROM_DEVICE;
    ck_assert_cl(clkernel_call(k, CLARG_TYPED("Couple", d, 2, io),
                               CLARG_VALUE("Duo", &by)));
    ck_assert_cl(clkernel_call(k, CLARG_TYPED("struct pair_s", d, 2, io),
                               CLARG_VALUE("Couple", &by)));
    ck_assert_int_eq(d[1].b, 44);
    ck_assert_fails(clkernel_call(k, CLARG_TYPED("Pair", d, 2, io),
                                  CLARG_VALUE("Duo", &by)),
                    CLFRAME_ERR_ARG_TYPE, "expects __global Couple*, got an "
                    "array of Pair");
    clkernel_free(k);
}

START_TEST(signatures_come_from_the_source_on_every_platform)
{
    clctx *without = context_without_arg_info();
    clctx *contexts[] = {NULL, without};
    for (int c = 0; c < 2; c++) {
        clkernel *none = mixed(contexts[c], "noargs");
        ck_assert_str_eq(clkernel_signature(none), "noargs()");
        ck_assert_cl(clkernel_global(none, 4));
        ck_assert_cl(clkernel_call(none));
        clkernel_free(none);
        check_treal(contexts[c]);
        check_chain(contexts[c]);
        check_couple(contexts[c]);
    }
    clctx_free(without);
}
END_TEST

/* Without the driver's report, a kernel the source does not show (made by
 * a ## macro clframe cannot expand) is refused with why, not checked by
 * its argument count alone; with it, the driver's report is used. */
START_TEST(a_kernel_whose_signature_nothing_reports_is_refused)
{
    const char *src =
        "#define KERNEL(name) __kernel void k_##name(__global int *x) "
        "{ x[get_global_id(0)] = 1; }\n"
        "KERNEL(one)\n";
    clctx *without = context_without_arg_info();
    ck_assert_ptr_null(clkernel_source(without, src, "k_one", NULL));
    ck_assert_error_has("kernel k_one: its parameters could not be read from "
                        "the source");
    ck_assert_error_has("so its calls could not be checked");
    clctx_free(without);
    /* With the driver's report, its calls are checked by that. */
    float f[4];
    clkernel *k = test_kernel(src, "k_one");
    ck_assert_cl(clkernel_global(k, 4));
    ck_assert_fails(clkernel_call(k, CLARG_OUT(f, 4)), CLFRAME_ERR_ARG_TYPE,
                    "expects __global int*, got an array of float");
    clkernel_free(k);
}
END_TEST

/* An array of no elements goes as a buffer the kernel must not touch (it
 * learns the length from another argument), so a call with nothing to do
 * is a correct no-op; CLARG_LOCAL(0) is refused before anything is
 * enqueued, with or without the driver's report. Either way the context
 * goes on working: on NVIDIA a queue that ran a bad launch is lost. */
START_TEST(empty_arrays_and_local_0_leave_the_context_working)
{
    enum { N = 64 };
    float a[N], b[N], c[N];
    for (int i = 0; i < N; i++)
        a[i] = (float)i, b[i] = 1;
    clctx *without = context_without_arg_info();
    clctx *contexts[] = {NULL, without};
    for (int ci = 0; ci < 2; ci++) {
        c[0] = -1;
        clkernel *v = clkernel_file(contexts[ci], "tests/kernels/vadd.cl",
                                    "vadd", NULL);
        ck_assert_made(v);
        clkernel *l = clkernel_source(contexts[ci],
            "__kernel void stage(__global float *a, __local float *s, int n) {"
            "  size_t i = get_global_id(0), l = get_local_id(0);"
            "  s[l] = (float)i; barrier(CLK_LOCAL_MEM_FENCE);"
            "  if (i < (size_t)n) a[i] = s[l]; }", "stage", NULL);
        ck_assert_made(l);
        ck_assert_cl(clkernel_global(v, N));
        ck_assert_cl(clkernel_global(l, N));
        ck_assert_cl(clkernel_local(l, N));
        ck_assert_cl(clkernel_call(v, CLARG_IN(a, 0), CLARG_IN(b, 0),
                                   CLARG_OUT(c, 0), CLARG(0)));
        ck_assert_cl(clkernel_enqueue(v, CLARG_IN(a, 0), CLARG_IN(b, 0),
                                      CLARG_OUT(c, 0), CLARG(0)));
        ck_assert_cl(clctx_finish(contexts[ci]));
        ck_assert(c[0] == -1.0f);               /* nothing came back */
        ck_assert_fails(clkernel_call(l, CLARG_OUT(c, N), CLARG_LOCAL(0),
                                      CLARG(N)),
                        CLFRAME_ERR_USAGE, "argument 2 (s): CLARG_LOCAL(0) is "
                        "not a valid size");
        ck_assert_fails(clkernel_enqueue(l, CLARG_OUT(c, N), CLARG_LOCAL(0),
                                         CLARG(N)),
                        CLFRAME_ERR_USAGE, "clkernel_enqueue(stage)");
        ck_assert_cl(clkernel_call(v, CLARG_IN(a, N), CLARG_IN(b, N),
                                   CLARG_OUT(c, N), CLARG(N)));
        ck_assert(c[N - 1] == (float)N);
        ck_assert_cl(clkernel_call(l, CLARG_OUT(c, N),
                                   CLARG_LOCAL(N * sizeof(float)), CLARG(N)));
        ck_assert(c[N - 1] == (float)(N - 1));
        clkernel_free(v);
        clkernel_free(l);
    }
    clctx_free(without);
}
END_TEST

/* A global size of SIZE_MAX (n - 1 for n = 0), alone, past an offset or
 * in all dimensions together, is refused with the limit, not run. */
START_TEST(global_sizes_no_device_runs_are_refused)
{
    int x[4];
    clkernel *k = test_kernel("__kernel void touch(__global int *x, int n) {"
                              " if (get_global_id(0) < (size_t)n) "
                              "x[get_global_id(0)] = 1; }", "touch");
    ck_assert_cl(clkernel_global(k, SIZE_MAX));
    ck_assert_fails(clkernel_call(k, CLARG_OUT(x, 4), CLARG(4)),
                    CLFRAME_ERR_BAD_SIZE, "clkernel_call(touch): global size "
                    "18446744073709551615 in dimension 0:");
    ck_assert_error_has("runs fewer than");
    ck_assert_cl(clkernel_global(k, (size_t)1 << 40));
    ck_assert_cl(clkernel_offset(k, SIZE_MAX - 4));
    ck_assert_fails(clkernel_enqueue(k, CLARG_OUT(x, 4), CLARG(4)),
                    CLFRAME_ERR_BAD_SIZE, "clkernel_enqueue(touch): global "
                    "size 1099511627776 past its offset");
    ck_assert_cl(clkernel_offset(k, 0, 0, 0));
    ck_assert_cl(clkernel_global(k, (size_t)1 << 30, (size_t)1 << 30,
                                 (size_t)1 << 30));
    ck_assert_fails(clkernel_call(k, CLARG_OUT(x, 4), CLARG(4)),
                    CLFRAME_ERR_BAD_SIZE, "3-D global size of more than");
    ck_assert_cl(clkernel_offset(k, 0));
    ck_assert_cl(clkernel_global(k, 4));
    ck_assert_cl(clkernel_call(k, CLARG_OUT(x, 4), CLARG(4)));
    ck_assert_int_eq(x[3], 1);
    clkernel_free(k);
}
END_TEST

/* Every call's errors name the function called, and a NULL kernel keeps
 * the reason it is NULL. */
START_TEST(errors_name_the_function_called)
{
    int x[8];
    clkernel *k = test_kernel("__kernel void touch(__global int *x) {"
                              " x[get_global_id(0)] = 1; }", "touch");
    ck_assert_fails(clkernel_enqueue(k, CLARG_OUT(x, 8)),
                    CLFRAME_ERR_NO_GLOBAL_SIZE, "clkernel_enqueue(touch): no "
                    "global size");
    ck_assert_cl(clkernel_global(k, 8));
    ck_assert_fails(clkernel_enqueue(k, CLARG(1)), CLFRAME_ERR_ARG_TYPE,
                    "clkernel_enqueue(touch): argument 1 (x)");
    clstream *s = clstream_new(NULL);
    ck_assert_made(s);
    ck_assert_fails(clkernel_enqueue_on(k, s, CLARG(1), CLARG(2)),
                    CLFRAME_ERR_ARG_COUNT, "clkernel_enqueue_on(touch): 2 "
                    "arguments given");
    ck_assert_fails(clkernel_call_chunked(k, 8, 4, CLARG(1.0f)),
                    CLFRAME_ERR_ARG_TYPE, "clkernel_call_chunked(touch): "
                    "argument 1 (x)");
    clstream_free(s);
    ck_assert_cl(clctx_finish(NULL));
    clkernel_free(k);

    clkernel *missing = clkernel_file(NULL, "kernels/no_such_file.cl", "f",
                                      NULL);
    ck_assert_ptr_null(missing);
    ck_assert_fails(clkernel_global(missing, 8), CLFRAME_ERR_USAGE,
                    "clkernel_global: NULL kernel; the last error before it: "
                    "kernel source \"kernels/no_such_file.cl\" not found");
    ck_assert_fails(clkernel_call(missing, CLARG(1)), CLFRAME_ERR_USAGE,
                    "clkernel_call: NULL kernel; the last error before it: "
                    "clkernel_global: NULL kernel");
}
END_TEST

START_TEST(work_size_errors_say_what_is_wrong)
{
    int x[64];
    clkernel *k = test_kernel("__kernel void touch(__global int *x) {"
                              " x[get_global_id(0)] = 1; }", "touch");
    ck_assert_fails(clkernel_call(k, CLARG_OUT(x, 64)), CLFRAME_ERR_NO_GLOBAL_SIZE,
                    "call clkernel_global(k, ...) first");
    ck_assert_fails(clkernel_set_global(k, 4, (size_t[]){1, 1, 1, 1}),
                    CLFRAME_ERR_BAD_SIZE, "1 to 3 expected");
    ck_assert_cl(clkernel_global(k, 60));
    ck_assert_cl(clkernel_local(k, 16));
    ck_assert_fails(clkernel_call(k, CLARG_OUT(x, 64)), CLFRAME_ERR_BAD_SIZE,
                    "global size 60 is not a multiple of local size 16");
    ck_assert_cl(clkernel_global(k, 1 << 22));
    ck_assert_cl(clkernel_local(k, 1 << 21));
    ck_assert_fails(clkernel_call(k, CLARG_OUT(x, 64)), CLFRAME_ERR_BAD_SIZE,
                    "the device allows 1 to");
    /* Dimensions that differ, either way, and for the offset. */
    ck_assert_cl(clkernel_global(k, 64));
    ck_assert_cl(clkernel_local(k, 8, 8));
    ck_assert_fails(clkernel_call(k, CLARG_OUT(x, 64)), CLFRAME_ERR_BAD_SIZE,
                    "the global size is 1-D, the local size 2-D");
    ck_assert_cl(clkernel_global(k, 8, 8));
    ck_assert_cl(clkernel_local(k, 8));
    ck_assert_fails(clkernel_call(k, CLARG_OUT(x, 64)), CLFRAME_ERR_BAD_SIZE,
                    "the global size is 2-D, the local size 1-D");
    ck_assert_cl(clkernel_global(k, 64));
    ck_assert_cl(clkernel_local(k, 0));          /* back to "you choose" */
    ck_assert_cl(clkernel_offset(k, 0, 0, 0));
    ck_assert_fails(clkernel_call(k, CLARG_OUT(x, 64)), CLFRAME_ERR_BAD_SIZE,
                    "the global size is 1-D, the offset size 3-D");
    ck_assert_cl(clkernel_offset(k, 0));
    ck_assert_cl(clkernel_call(k, CLARG_OUT(x, 64)));
    ck_assert_int_eq(x[63], 1);
    clkernel_free(k);
}
END_TEST

START_TEST(build_failure_returns_the_log)
{
    uint64_t compiles = clctx_get_stats(NULL).compiles;
    clkernel *k = clkernel_source(NULL,
        "__kernel void broken(__global int *x)\n{\n    x[0] = undeclared_y;\n}\n",
        "broken", NULL);
    ck_assert_ptr_null(k);
    const char *msg = clframe_last_error();
    ck_assert_ptr_nonnull(strstr(msg, "does not compile"));
    ck_assert_ptr_nonnull(strstr(msg, "Build log:"));
    ck_assert_ptr_nonnull(strstr(msg, "undeclared_y"));
    ck_assert_ptr_nonnull(strstr(msg, "source of broken:3"));
    /* Compiled once: only NVIDIA's driver gets a second try (program.c). */
    if (!strstr(clctx_describe(NULL), "NVIDIA"))
        ck_assert_uint_eq(clctx_get_stats(NULL).compiles, compiles + 1);
}
END_TEST

START_TEST(unknown_kernel_and_file_are_named)
{
    ck_assert_ptr_null(clkernel_file(NULL, "tests/kernels/vadd.cl", "vsub", NULL));
    ck_assert_ptr_nonnull(strstr(clframe_last_error(),
        "tests/kernels/vadd.cl has no __kernel named \"vsub\" (its kernels: vadd)"));
    ck_assert_ptr_null(clkernel_file(NULL, "kernels/nope.cl", "f", NULL));
    ck_assert_ptr_nonnull(strstr(clframe_last_error(),
                                 "kernel source \"kernels/nope.cl\" not found"));
    ck_assert_ptr_null(clkernel_source(NULL, NULL, "f", NULL));
    ck_assert_ptr_null(clkernel_file(NULL, "tests/kernels/vadd.cl", NULL, NULL));
}
END_TEST

START_TEST(a_kernel_without_arguments)
{
    clkernel *k = test_kernel("__kernel void nothing(void) {}", "nothing");
    ck_assert_cl(clkernel_global(k, 8));
    ck_assert_cl(clkernel_call(k));
    ck_assert_cl(clkernel_enqueue(k));
    ck_assert_cl(clctx_finish(NULL));
    ck_assert_fails(clkernel_call(k, CLARG(1)), CLFRAME_ERR_ARG_COUNT,
                    "1 argument given, the kernel takes 0: nothing()");
    clkernel_free(k);
}
END_TEST

START_TEST(enqueue_chains_then_finish)
{
    enum { N = 256 };
    int x[N];
    for (int i = 0; i < N; i++)
        x[i] = i;
    clkernel *k = test_kernel("__kernel void inc(__global int *x) {"
                              " x[get_global_id(0)] += 1; }", "inc");
    ck_assert_cl(clkernel_global(k, N));
    clarg p = CLARG_INOUT(x, N);
    ck_assert_cl(clarg_persist(&p, NULL));
    ck_assert_cl(clarg_write(&p));
    clarg_set_flags(&p, CLARG_NO_COPY);
    for (int t = 0; t < 10; t++)
        ck_assert_cl(clkernel_enqueue(k, p));
    ck_assert_cl(clctx_finish(NULL));
    ck_assert_cl(clarg_read(&p));
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(x[i], i + 10);
    clarg_release(&p);
    clkernel_free(k);
}
END_TEST

START_TEST(no_opencl_object_leaks_over_1000_calls)
{
    enum { N = 64 };
    int a[N], b[N];
    for (int i = 0; i < N; i++)
        a[i] = i;
    const char *src = "__kernel void copy(__global const int *a,"
                      " __global int *b, int n) {"
                      " int i = get_global_id(0); if (i < n) b[i] = a[i]; }";
    clkernel *warm = test_kernel(src, "copy");
    long before = clctx_get_stats(NULL).live_objects;
    for (int round = 0; round < 1000; round++) {
        clkernel *k = round % 100 == 0 ? test_kernel(src, "copy") : warm;
        clkernel_global(k, N);
        ck_assert_cl(clkernel_call(k, CLARG_IN(a, N), CLARG_OUT(b, N), CLARG(N)));
        ck_assert_int_eq(clkernel_call(k, CLARG_IN(a, N), CLARG_OUT(b, N),
                                       CLARG(1.0)), CLFRAME_ERR_ARG_TYPE);
        ck_assert_cl(clkernel_enqueue(k, CLARG_IN(a, N), CLARG_OUT(b, N),
                                      CLARG(N)));
        ck_assert_cl(clctx_finish(NULL));
        if (k != warm)
            clkernel_free(k);
    }
    ck_assert_int_eq(b[N - 1], N - 1);
    ck_assert_int_eq(clctx_get_stats(NULL).live_objects, before);
    clkernel_free(warm);
}
END_TEST

/* A new context made while variable is 1 (it is read at creation). */
static clctx *ctx_with(const char *variable)
{
    setenv(variable, "1", 1);
    clctx *ctx = clctx_new(NULL);
    unsetenv(variable);
    ck_assert_made(ctx);
    return ctx;
}

/* How many programs ctx has built: compiled, or loaded from the cache. */
static uint64_t builds(clctx *ctx)
{
    clctx_stats st = clctx_get_stats(ctx);
    return st.cache_misses + st.cache_hits;
}

/* Makes, runs and frees kernel "k" of source number v in ctx. */
static void make_and_free(clctx *ctx, int v)
{
    char src[128];
    snprintf(src, sizeof src, "__kernel void k(__global int *x) "
             "{ x[0] = %d; }", v);
    clkernel *k = clkernel_source(ctx, src, "k", NULL);
    ck_assert_made(k);
    int x = -1;
    ck_assert_cl(clkernel_global(k, 1));
    ck_assert_cl(clkernel_call(k, CLARG_OUT(&x, 1)));
    ck_assert_int_eq(x, v);
    clkernel_free(k);
}

/* A kernel made again after the last kernel of its program was freed finds
 * the program still built; the 16 most recently freed programs are kept,
 * and not counted as live objects. */
START_TEST(freed_kernels_programs_are_kept_for_reuse)
{
    enum { KEPT = 16 };
    clctx *ctx = clctx_new(NULL);
    ck_assert_made(ctx);
    make_and_free(ctx, 0);
    make_and_free(ctx, 0);
    ck_assert_uint_eq(builds(ctx), 1);
    ck_assert_int_eq(clctx_get_stats(ctx).live_objects, 0);
    for (int v = 1; v <= KEPT; v++)         /* program 0 is now the 17th */
        make_and_free(ctx, v);
    ck_assert_uint_eq(builds(ctx), KEPT + 1);
    make_and_free(ctx, 1);                  /* kept: the 16th most recent */
    ck_assert_uint_eq(builds(ctx), KEPT + 1);
    make_and_free(ctx, 0);                  /* dropped: built again */
    ck_assert_uint_eq(builds(ctx), KEPT + 2);
    ck_assert_int_eq(clctx_get_stats(ctx).live_objects, 0);
    clctx_free(ctx);
}
END_TEST

/* A kernel with struct parameters measures their sizes when it is made
 * (one more build), so that its first call costs no build; a kernel
 * without any builds once. */
START_TEST(struct_sizes_are_measured_when_the_kernel_is_made)
{
    enum { N = 4 };
    clctx *ctx = clctx_new(NULL);
    ck_assert_made(ctx);
    clkernel *k = clkernel_source(ctx, item_source, "scale", NULL);
    ck_assert_made(k);
    ck_assert_uint_eq(builds(ctx), 2);
    Item items[N] = {{0}}, by = {1, 1.0f};
    ck_assert_cl(clkernel_global(k, N));
    ck_assert_cl(clkernel_call(k, CLARG_TYPED("Item", items, N,
                                              CLARG_TO_DEVICE | CLARG_FROM_DEVICE),
                               CLARG_VALUE("Item", &by), CLARG((int)N)));
    ck_assert_int_eq(items[N - 1].id, 1);
    ck_assert_uint_eq(builds(ctx), 2);
    clkernel_free(k);
    make_and_free(ctx, 7);
    ck_assert_uint_eq(builds(ctx), 3);
    clctx_free(ctx);
}
END_TEST

START_TEST(profile_table_at_the_end)
{
    clctx *ctx = ctx_with("CLFRAME_PROFILE");
    int x[32] = {0};
    clkernel *k = clkernel_source(ctx, "__kernel void profiled(__global int *x)"
                                  " { x[get_global_id(0)] += 2; }",
                                  "profiled", NULL);
    ck_assert_made(k);
    clkernel_global(k, 32);
    for (int t = 0; t < 3; t++)
        ck_assert_cl(clkernel_enqueue(k, CLARG_INOUT(x, 32)));
    ck_assert_cl(clkernel_call(k, CLARG_INOUT(x, 32)));
    ck_assert_int_eq(x[31], 8);
    clkernel_free(k);
    capture_stderr_begin();
    clctx_free(ctx);
    char *table = capture_stderr_end();
    ck_assert_msg(strstr(table, "profiled") && strstr(table, "       4 "),
                  "profile table: %s", table);
    ck_assert_ptr_nonnull(strstr(table, "host -> device"));
    ck_assert_ptr_nonnull(strstr(table, "GB/s"));
    free(table);
}
END_TEST

/* The bytes the profile table timed in direction row ("host -> device"). */
static unsigned long long timed_bytes(const char *table, const char *row)
{
    const char *at = strstr(table, row);
    unsigned long long copies = 0, bytes = 0;
    ck_assert_msg(at && sscanf(at + strlen(row), "%llu %llu", &copies,
                               &bytes) == 2, "profile table: %s", table);
    return bytes;
}

/* Every copy a call makes is timed: the events of enqueued copies and of a
 * chunked call's parts reach the profile, and are released. */
START_TEST(profile_times_every_copy_of_enqueued_and_chunked_calls)
{
    clctx *ctx = ctx_with("CLFRAME_PROFILE");
    enum { N = 64, CHUNK = 16 };
    int x[N] = {0};
    clkernel *k = clkernel_source(ctx, "__kernel void bumped(__global int *x)"
                                  " { x[get_global_id(0)] += 1; }",
                                  "bumped", NULL);
    ck_assert_made(k);
    ck_assert_cl(clkernel_global(k, N));
    long live = clctx_get_stats(ctx).live_objects;
    for (int t = 0; t < 3; t++)
        ck_assert_cl(clkernel_enqueue(k, CLARG_INOUT(x, N)));
    ck_assert_cl(clkernel_call_chunked(k, N, CHUNK, CLARG_INOUT_CHUNKS(x, N)));
    ck_assert_cl(clkernel_call(k, CLARG_INOUT(x, N)));
    ck_assert_cl(clctx_finish(ctx));
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(x[i], 5);
    ck_assert_int_eq(clctx_get_stats(ctx).live_objects, live);
    clctx_stats st = clctx_get_stats(ctx);
    ck_assert_uint_eq(st.bytes_to_device, 5 * sizeof x);
    clkernel_free(k);
    capture_stderr_begin();
    clctx_free(ctx);
    char *table = capture_stderr_end();
    ck_assert_uint_eq(timed_bytes(table, "host -> device"), st.bytes_to_device);
    ck_assert_uint_eq(timed_bytes(table, "device -> host"),
                      st.bytes_from_device);
    free(table);
}
END_TEST

START_TEST(debug_mode_prints_build_logs)
{
    clctx *ctx = ctx_with("CL_DEBUG");
    capture_stderr_begin();
    clkernel *k = clkernel_source(ctx, "__kernel void missing_semicolon("
                                  "__global int *x) { x[0] = 1 }",
                                  "missing_semicolon", NULL);
    char *log = capture_stderr_end();
    ck_assert_ptr_null(k);
    ck_assert_ptr_nonnull(strstr(clframe_last_error(), "-cl-opt-disable"));
    ck_assert_msg(strstr(log, "build log of source of missing_semicolon"),
                  "debug output: %s", log);
    free(log);
    clctx_free(ctx);
}
END_TEST

/* ---- counting and timing launches --------------------------------------- */

static const char *const add_one_source =
    "__kernel void add_one(__global int *x) { x[get_global_id(0)] += 1; }";

/* Long enough a kernel that its time shows in the profile's three
 * decimals, over RUN_SIZE(work_items) work-items. */
static const char *const work_source =
    "__kernel void work(__global float *x) {"
    "  float v = x[get_global_id(0)];"
    "  for (int i = 0; i < 200; i++) v = v * 0.5f + 1.0f;"
    "  x[get_global_id(0)] = v; }";

/* k over n work-items, every launch timed. */
static void time_kernel(clkernel *k, size_t n)
{
    ck_assert_cl(clkernel_global(k, n));
    ck_assert_cl(clkernel_set_timing(k, 1));
}

/* n launches of k(p), enqueued without waiting. */
static void enqueue_times(clkernel *k, clarg p, int n)
{
    for (int t = 0; t < n; t++)
        ck_assert_cl(clkernel_enqueue(k, p));
}

START_TEST(runs_are_counted_with_and_without_timing)
{
    enum { N = 64 };
    int x[N] = {0};
    clkernel *k = test_kernel(add_one_source, "add_one");
    ck_assert_cl(clkernel_global(k, N));
    ck_assert_uint_eq(clkernel_runs(k), 0);
    ck_assert(clkernel_total_ms(k) == 0);           /* nothing timed yet */
    ck_assert_cl(clkernel_call(k, CLARG_INOUT(x, N)));
    ck_assert_cl(clkernel_enqueue(k, CLARG_INOUT(x, N)));
    ck_assert_cl(clctx_finish(NULL));
    ck_assert_uint_eq(clkernel_runs(k), 2);
    ck_assert(clkernel_total_ms(k) == 0);           /* timing is off */
    ck_assert(clkernel_last_ms(k) == -1);
    ck_assert_cl(clkernel_set_timing(k, 1));
    ck_assert_cl(clkernel_enqueue(k, CLARG_INOUT(x, N)));
    ck_assert_cl(clkernel_call(k, CLARG_INOUT(x, N)));
    int refused = clkernel_call(k, CLARG(1));
    ck_assert_int_eq(refused, CLFRAME_ERR_ARG_TYPE);
    ck_assert_uint_eq(clkernel_runs(k), 4);         /* the refused one not */
    ck_assert(clkernel_total_ms(k) >= clkernel_last_ms(k));
    ck_assert_int_eq(x[N - 1], 4);
    clkernel_free(k);
}
END_TEST

START_TEST(total_is_the_sum_of_the_timed_launches)
{
    enum { CALLS = 5 };
    static float x[4096];
    size_t n = RUN_SIZE(work_items);
    clkernel *k = test_kernel(work_source, "work");
    time_kernel(k, n);
    double sum = 0;
    for (int t = 0; t < CALLS; t++) {       /* each read as it ends */
        ck_assert_cl(clkernel_call(k, CLARG_INOUT(x, n)));
        sum += clkernel_last_ms(k);
    }
    ck_assert_double_eq_tol(clkernel_total_ms(k), sum, 1e-9);
    ck_assert(sum > 0);
    clkernel_free(k);
}
END_TEST

/* Enqueued launches read only at the end: all of them count, as in the
 * CLFRAME_PROFILE table that sums the same events by kernel name. */
START_TEST(total_counts_every_enqueued_launch)
{
    enum { LAUNCHES = 6 };
    static float x[4096];
    size_t n = RUN_SIZE(work_items);
    setenv("CLFRAME_PROFILE", "1", 1);
    clctx *ctx = clctx_new(NULL);
    unsetenv("CLFRAME_PROFILE");
    ck_assert_made(ctx);
    clkernel *k = clkernel_source(ctx, work_source, "work", NULL);
    ck_assert_made(k);
    time_kernel(k, n);
    clarg p = CLARG_INOUT(x, n);
    ck_assert_cl(clarg_keep_on_device(&p, ctx, 1));
    enqueue_times(k, p, LAUNCHES);
    double total = clkernel_total_ms(k), last = clkernel_last_ms(k);
    ck_assert(last >= 0 && total >= last);
    ck_assert_uint_eq(clkernel_runs(k), LAUNCHES);
    clarg_release(&p);
    clkernel_free(k);
    capture_stderr_begin();
    clctx_free(ctx);
    char *table = capture_stderr_end();
    char row[128];
    snprintf(row, sizeof row, "%-32s %8d %12.3f", "work", LAUNCHES, total);
    ck_assert_msg(strstr(table, row), "no \"%s\" in the profile: %s", row,
                  table);
    free(table);
}
END_TEST

START_TEST(timed_launches_leave_no_event_behind)
{
    enum { N = 64, LAUNCHES = 10 };
    int x[N] = {0};
    long before = clctx_get_stats(NULL).live_objects;
    clkernel *k = test_kernel(add_one_source, "add_one");
    long made = clctx_get_stats(NULL).live_objects;
    time_kernel(k, N);
    clarg p = CLARG_INOUT(x, N);
    ck_assert_cl(clarg_keep_on_device(&p, NULL, 1));
    enqueue_times(k, p, LAUNCHES);
    ck_assert(clkernel_total_ms(k) >= 0);           /* reads them all */
    ck_assert_int_eq(clctx_get_stats(NULL).live_objects, made + 1);
    enqueue_times(k, p, LAUNCHES);
    clkernel_free(k);                               /* with them unread */
    ck_assert_cl(clctx_finish(NULL));
    clarg_release(&p);
    ck_assert_int_eq(clctx_get_stats(NULL).live_objects, before);
}
END_TEST

/* Events wait for a blocking call, but never more than some thousands. */
START_TEST(a_long_timed_run_keeps_few_events)
{
    enum { N = 64, LAUNCHES = 5000 };
    int x[N] = {0};
    clkernel *k = test_kernel(add_one_source, "add_one");
    time_kernel(k, N);
    clarg p = CLARG_INOUT(x, N);
    ck_assert_cl(clarg_keep_on_device(&p, NULL, 1));
    long before = clctx_get_stats(NULL).live_objects, most = before;
    for (int t = 0; t < LAUNCHES; t++) {
        ck_assert_cl(clkernel_enqueue(k, p));
        long live = clctx_get_stats(NULL).live_objects;
        most = live > most ? live : most;
    }
    ck_assert_msg(most - before <= 4096, "%ld events kept", most - before);
    ck_assert_cl(clarg_read(&p));
    ck_assert_int_eq(x[0], LAUNCHES);
    ck_assert(clkernel_total_ms(k) > 0);
    ck_assert_int_eq(clctx_get_stats(NULL).live_objects, before);
    clarg_release(&p);
    clkernel_free(k);
}
END_TEST

/* A context's timing times every launch of its kernels, which need no
 * timing of their own, and sums them with the launches of kernels timed
 * themselves; turned off, it adds only those. */
START_TEST(a_context_times_and_sums_all_its_kernels)
{
    static float x[4096];
    size_t n = RUN_SIZE(work_items);
    clctx *ctx = clctx_new(NULL);
    ck_assert_made(ctx);
    clkernel *a = clkernel_source(ctx, work_source, "work", NULL);
    clkernel *b = clkernel_source(ctx, work_source, "work", NULL);
    ck_assert_made(a);
    ck_assert_made(b);
    ck_assert_cl(clkernel_global(a, n));
    ck_assert_cl(clkernel_global(b, n));
    clarg p = CLARG_INOUT(x, n);
    ck_assert_cl(clarg_keep_on_device(&p, ctx, 1));
    ck_assert_cl(clkernel_enqueue(a, p));
    ck_assert(clctx_kernel_ms(ctx) == 0);           /* timing is off */
    ck_assert_cl(clctx_set_timing(ctx, 1));
    ck_assert_cl(clkernel_enqueue(a, p));
    ck_assert_cl(clkernel_enqueue(b, p));
    double both = clctx_kernel_ms(ctx);
    ck_assert(both > 0);
    ck_assert_double_eq_tol(both, clkernel_total_ms(a) + clkernel_total_ms(b),
                            1e-9);
    ck_assert_cl(clctx_set_timing(ctx, 0));
    ck_assert_cl(clkernel_enqueue(a, p));
    ck_assert_cl(clkernel_set_timing(b, 1));
    ck_assert_cl(clkernel_enqueue(b, p));
    ck_assert_double_eq_tol(clctx_kernel_ms(ctx), both + clkernel_last_ms(b),
                            1e-9);
    ck_assert_uint_eq(clkernel_runs(a), 3);
    clarg_release(&p);
    clkernel_free(a);
    clkernel_free(b);
    clctx_free(ctx);
}
END_TEST

START_TEST(counting_a_null_kernel)
{
    ck_assert_uint_eq(clkernel_runs(NULL), 0);
    ck_assert(clkernel_total_ms(NULL) == -1);
    ck_assert_ptr_nonnull(strstr(clframe_last_error(),
                                 "clkernel_total_ms: NULL kernel"));
    ck_assert(clkernel_last_ms(NULL) == -1);
}
END_TEST

Suite *kernel_suite(void)
{
    Suite *s = suite_create("clkernel");
    TCase *calls = test_case("calls");
    tcase_add_test(calls, vadd_from_a_file_with_a_rounded_up_global_size);
    tcase_add_test(calls, two_and_three_dimensions_with_offsets);
    tcase_add_test(calls, struct_names_with_or_without_the_word_struct);
    tcase_add_test(calls, typedefs_of_built_in_types_are_those_types);
    tcase_add_test(calls, local_memory_work_group_sums);
    tcase_add_test(calls, structs_by_value_and_in_arrays);
    tcase_add_test(calls, enqueue_chains_then_finish);
    tcase_add_test(calls, a_kernel_without_arguments);
    suite_add_tcase(s, calls);
    TCase *errors = test_case("errors");
    tcase_add_test(errors, every_kind_of_mismatch_is_named);
    tcase_add_test(errors, signatures_come_from_the_source_on_every_platform);
    tcase_add_test(errors, a_kernel_whose_signature_nothing_reports_is_refused);
    tcase_add_test(errors, empty_arrays_and_local_0_leave_the_context_working);
    tcase_add_test(errors, global_sizes_no_device_runs_are_refused);
    tcase_add_test(errors, errors_name_the_function_called);
    tcase_add_test(errors, work_size_errors_say_what_is_wrong);
    tcase_add_test(errors, build_failure_returns_the_log);
    tcase_add_test(errors, unknown_kernel_and_file_are_named);
    suite_add_tcase(s, errors);
    TCase *resources = test_case("resources");
    tcase_add_test(resources, no_opencl_object_leaks_over_1000_calls);
    tcase_add_test(resources, freed_kernels_programs_are_kept_for_reuse);
    tcase_add_test(resources, struct_sizes_are_measured_when_the_kernel_is_made);
    tcase_add_test(resources, profile_table_at_the_end);
    tcase_add_test(resources, debug_mode_prints_build_logs);
    suite_add_tcase(s, resources);
    TCase *timing = test_case("timing");
    tcase_add_test(timing, runs_are_counted_with_and_without_timing);
    tcase_add_test(timing, total_is_the_sum_of_the_timed_launches);
    tcase_add_test(timing, total_counts_every_enqueued_launch);
    tcase_add_test(timing, timed_launches_leave_no_event_behind);
    tcase_add_test(timing, a_long_timed_run_keeps_few_events);
    tcase_add_test(timing, a_context_times_and_sums_all_its_kernels);
    tcase_add_test(timing, counting_a_null_kernel);
    suite_add_tcase(s, timing);
    /* A chunked call writes its buffer in parts (scripts/check-oclgrind). */
    TCase *profiled_chunks = test_case("profiled_chunks");
    tcase_add_test(profiled_chunks,
                   profile_times_every_copy_of_enqueued_and_chunked_calls);
    tcase_set_tags(profiled_chunks, "partial-writes");
    suite_add_tcase(s, profiled_chunks);
    return s;
}
