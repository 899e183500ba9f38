/*
 * test_function.c: device functions called from the host through generated
 * shims: values, private struct pointers (modified and written back), struct
 * returns, __global arrays, __local copies in one work-item and in a whole
 * work-group; prototypes read from awkward declarations; every kind of
 * mismatch rejected; no OpenCL object leaked.
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The sizes per run (support.h). */
static const struct {
    int candidate_rounds;   /* random draws of each group shape */
} run_sizes[] = {
    [TEST_FULL]    = {4},
    [TEST_CHECKED] = {1},
};

/* Host and device agree on this layout: five 4-byte ints. */
typedef struct Board {
    cl_int cells[4];
    cl_int turn;
} Board;

static const char *game_source =
    "typedef struct Board { int cells[4]; int turn; } Board;\n"
    "typedef float real;\n"
    "/* play(int) and int play(float) in a comment are not the prototype */\n"
    "int add(int a, int b) { return a + b; }\n"
    "real scale(real x, float4 v) { return x * v.y; }\n"
    "float4 swizzle(float4 v) { return v.wzyx; }\n"
    "int play(Board *b, int move)\n"
    "{\n"
    "    b->cells[move] += 1;\n"
    "    b->turn = 1 - b->turn;\n"
    "    return b->cells[move];\n"
    "}\n"
    "int total(const Board *boards, int n)\n"
    "{\n"
    "    int s = 0;\n"
    "    for (int i = 0; i < n; i++)\n"
    "        for (int c = 0; c < 4; c++) s += boards[i].cells[c];\n"
    "    return s;\n"
    "}\n"
    "Board fresh(int t)\n"
    "{\n"
    "    Board b;\n"
    "    for (int i = 0; i < 4; i++) b.cells[i] = i * t;\n"
    "    b.turn = t;\n"
    "    return b;\n"
    "}\n"
    "int weigh(Board b, int k) { return b.cells[k] * (b.turn + 1); }\n"
    "void twice(__global float *x, int n) { for (int i = 0; i < n; i++) x[i] *= 2; }\n"
    "int local_sum(__local int *x, int n)\n"
    "{\n"
    "    int s = 0;\n"
    "    for (int i = 0; i < n; i++) s += x[i];\n"
    "    return s;\n"
    "}\n"
    "/* Every work-item doubles its stride of x; work-item 0 reports the sum. */\n"
    "int group_double(__local int *x, int n)\n"
    "{\n"
    "    for (size_t i = get_local_id(0); i < (size_t)n; i += get_local_size(0))\n"
    "        x[i] *= 2;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    int s = 0;\n"
    "    for (int i = 0; i < n; i++) s += x[i];\n"
    "    return s + (int)get_local_id(0);\n"
    "}\n";

/* Function name of source, which must be made. */
static clfunction *function_of(const char *source, const char *name)
{
    clfunction *f = clfunction_source(NULL, source, name, NULL);
    ck_assert_made(f);
    return f;
}

static clfunction *game(const char *name)
{
    return function_of(game_source, name);
}

START_TEST(scalar_and_vector_functions)
{
    clfunction *f = game("add");
    int r = 0;
    ck_assert_cl(clfunction_call(f, &r, CLARG(2), CLARG(40)));
    ck_assert_int_eq(r, 42);
    ck_assert_cl(clfunction_call(f, &r, CLARG(-7), CLARG(3)));
    ck_assert_int_eq(r, -4);
    clfunction_free(f);

    f = game("scale");                     /* real is a typedef of float */
    ck_assert_str_eq(clfunction_prototype(f), "float scale(float x, float4 v)");
    float x = 0;
    cl_float4 v = {{1, 3, 5, 7}};
    ck_assert_cl(clfunction_call(f, &x, CLARG(2.5f), CLARG(v)));
    ck_assert_float_eq(x, 7.5f);
    clfunction_free(f);

    f = game("swizzle");
    cl_float4 w;
    ck_assert_cl(clfunction_call(f, &w, CLARG(v)));
    ck_assert_float_eq(w.s[0], 7);
    ck_assert_float_eq(w.s[3], 1);
    clfunction_free(f);
}
END_TEST

START_TEST(private_struct_pointer_is_copied_and_written_back)
{
    clfunction *f = game("play");
    Board b = {{1, 2, 3, 4}, 0};
    int r = 0;
    ck_assert_cl(clfunction_call(f, &r, CLARG_TYPED("Board", &b, 1,
                 CLARG_TO_DEVICE | CLARG_FROM_DEVICE), CLARG(2)));
    ck_assert_int_eq(r, 4);
    ck_assert_int_eq(b.cells[2], 4);
    ck_assert_int_eq(b.turn, 1);
    /* In only: the function's changes stay on the device. */
    ck_assert_cl(clfunction_call(f, &r, CLARG_TYPED("Board", &b, 1,
                 CLARG_TO_DEVICE), CLARG(0)));
    ck_assert_int_eq(r, 2);
    ck_assert_int_eq(b.cells[0], 1);
    clfunction_free(f);
}
END_TEST

START_TEST(private_arrays_grow_the_shim)
{
    clfunction *f = game("total");
    Board boards[10];
    for (int i = 0; i < 10; i++)
        boards[i] = (Board){{i, i, i, 1}, 0};
    int r = 0;
    ck_assert_cl(clfunction_call(f, &r, CLARG_TYPED("Board", boards, 1,
                 CLARG_TO_DEVICE), CLARG(1)));
    ck_assert_int_eq(r, 1);
    ck_assert_ptr_nonnull(strstr(clfunction_shim_source(f), "clf_p0[1]"));
    ck_assert_cl(clfunction_call(f, &r, CLARG_TYPED("Board", boards, 10,
                 CLARG_TO_DEVICE), CLARG(10)));
    ck_assert_int_eq(r, 3 * 45 + 10);
    ck_assert_ptr_nonnull(strstr(clfunction_shim_source(f), "clf_p0[10]"));
    clfunction_free(f);
}
END_TEST

START_TEST(struct_return)
{
    clfunction *f = game("fresh");
    Board b;
    memset(&b, 0xff, sizeof b);
    ck_assert_cl(clfunction_call(f, &b, CLARG(3)));
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(b.cells[i], 3 * i);
    ck_assert_int_eq(b.turn, 3);
    clfunction_free(f);
}
END_TEST

/* ret must point to what the function returns, byte for byte: a host type
 * of another size is refused before anything runs, naming both sizes, and
 * the memory after a smaller one is left alone. NULL drops the result. */
static const char *sized_source =
    "typedef struct Big { float v[7]; } Big;\n"
    "Big big(float x)\n"
    "{\n"
    "    Big b;\n"
    "    for (int i = 0; i < 7; i++) b.v[i] = x + i;\n"
    "    return b;\n"
    "}\n"
    "float halve(float x) { return x / 2; }\n"
    "int answer(void) { return 42; }\n"
    "void nothing(void) { }\n";

typedef struct Big { cl_float v[7]; } Big;     /* 28 bytes, as on the device */
typedef struct Vec { cl_float x, y, z; } Vec;   /* 12 bytes */

/* Each of the n bytes at p is b. */
static void assert_untouched(const unsigned char *p, size_t n, int b,
                             const char *what)
{
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(p[i] == b, "%s: byte %zu is 0x%02x, was 0x%02x", what,
                      i, p[i], b);
}

START_TEST(ret_of_another_size_is_refused)
{
    clfunction *f = function_of(sized_source, "big");
    struct {
        Vec v;
        unsigned char guard[16];
    } small;
    memset(&small, 0x5a, sizeof small);
    int rc = clfunction_call(f, &small.v, CLARG(1.0f));
    assert_untouched(small.guard, sizeof small.guard, 0x5a,
                     "the 16 bytes after a 12-byte ret");
    assert_untouched((const unsigned char *)&small.v, sizeof small.v, 0x5a,
                     "a ret refused");
    ck_assert_fails(rc, CLFRAME_ERR_ARG_TYPE, "clfunction_call(big): ret "
                    "points to 12 bytes, but the function returns Big, 28 "
                    "bytes on ");
    Big b;
    memset(&b, 0, sizeof b);
    ck_assert_cl(clfunction_call(f, &b, CLARG(1.5f)));
    for (int i = 0; i < 7; i++)
        ck_assert_float_eq(b.v[i], 1.5f + (float)i);
    ck_assert_cl(clfunction_call(f, NULL, CLARG(1.5f)));    /* dropped */
    float one = -1;
    ck_assert_fails(clfunction_call(f, &one, CLARG(1.5f)), CLFRAME_ERR_ARG_TYPE,
                    "the function returns Big, but ret points to float "
                    "(4 bytes)");
    ck_assert(one == -1);
    void *untyped = &b;
    ck_assert_fails(clfunction_call(f, untyped, CLARG(1.5f)),
                    CLFRAME_ERR_USAGE, "ret is a void pointer");
    clfunction_free(f);

    f = function_of(sized_source, "halve");
    double d = -1;
    ck_assert_fails(clfunction_call(f, &d, CLARG(3.0f)), CLFRAME_ERR_ARG_TYPE,
                    "returns float (4 bytes), but ret points to double "
                    "(8 bytes)");
    ck_assert(d == -1);
    float h = 0;
    ck_assert_cl(clfunction_call(f, &h, CLARG(3.0f)));
    ck_assert_float_eq(h, 1.5f);
    clfunction_free(f);

    /* long long is no OpenCL type by name, but its size is known. */
    f = function_of(sized_source, "answer");
    long long wide = -1;
    ck_assert_fails(clfunction_call(f, &wide), CLFRAME_ERR_ARG_TYPE,
                    "ret points to 8 bytes, but the function returns int, "
                    "4 bytes");
    ck_assert(wide == -1);
    int r = 0;
    ck_assert_cl(clfunction_call(f, &r));
    ck_assert_int_eq(r, 42);
    clfunction_free(f);

    f = function_of(sized_source, "nothing");
    ck_assert_cl(clfunction_call(f, NULL));
    ck_assert_fails(clfunction_call(f, &b), CLFRAME_ERR_ARG_TYPE,
                    "returns nothing: pass NULL as ret");
    clfunction_free(f);
}
END_TEST

START_TEST(global_array_function)
{
    clfunction *f = game("twice");
    float x[37];
    for (int i = 0; i < 37; i++)
        x[i] = (float)i - 3.5f;
    ck_assert_cl(clfunction_call(f, NULL, CLARG_INOUT(x, 37), CLARG(37)));
    for (int i = 0; i < 37; i++)
        ck_assert_float_eq(x[i], 2 * ((float)i - 3.5f));
    clfunction_free(f);
}
END_TEST

START_TEST(local_copies_in_one_item_and_in_a_group)
{
    enum { N = 100 };
    int data[N], want = 0;
    for (int i = 0; i < N; i++)
        want += data[i] = i * 3 - 7;
    clfunction *f = game("local_sum");
    int r = 0;
    ck_assert_cl(clfunction_call(f, &r, CLARG_IN(data, N), CLARG(N)));
    ck_assert_int_eq(r, want);
    clfunction_free(f);

    f = game("group_double");
    size_t sizes[] = {1, 7, 64, 100};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        int copy[N];
        memcpy(copy, data, sizeof copy);
        ck_assert_cl(clfunction_group(f, sizes[s]));
        ck_assert_cl(clfunction_call(f, &r, CLARG_INOUT(copy, N), CLARG(N)));
        ck_assert_int_eq(r, 2 * want);              /* work-item 0's */
        for (int i = 0; i < N; i++)
            ck_assert_int_eq(copy[i], 2 * data[i]);  /* stored back */
    }
    int all[64];
    ck_assert_cl(clfunction_group(f, 64));
    ck_assert_cl(clfunction_group_results(f, 1));
    ck_assert_cl(clfunction_call(f, all, CLARG_IN(data, N), CLARG(N)));
    for (int i = 0; i < 64; i++)
        ck_assert_int_eq(all[i], 2 * want + i);
    clfunction_free(f);
}
END_TEST

/* ---- groups of 1 to 3 dimensions ------------------------------------------ */

/* Each work-item writes its code (which it makes of all three local ids)
 * into its cell of a __local grid, x fastest, and returns the code of the
 * cell at the mirror image of its own: both need the group's real shape. */
static const char *grid_source =
    "int code(size_t x, size_t y, size_t z) { return (int)(x + 16 * y + 256 * z); }\n"
    "int mirror_code(__local int *grid)\n"
    "{\n"
    "    size_t x = get_local_id(0), y = get_local_id(1), z = get_local_id(2);\n"
    "    size_t sx = get_local_size(0), sy = get_local_size(1), sz = get_local_size(2);\n"
    "    grid[x + sx * (y + sy * z)] = code(x, y, z);\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    return grid[(sx - 1 - x) + sx * ((sy - 1 - y) + sy * (sz - 1 - z))];\n"
    "}\n";

static int grid_code(size_t x, size_t y, size_t z)
{
    return (int)(x + 16 * y + 256 * z);
}

/* Runs mirror_code in a group of sizes s (unused dimensions 1) and checks
 * the grid and every work-item's result, listed x fastest, against C. */
static void check_mirror_codes(clfunction *f, const size_t s[3])
{
    enum { MAX = 64 };
    int grid[MAX], all[MAX];
    size_t n = s[0] * s[1] * s[2];
    ck_assert_uint_le(n, MAX);
    for (size_t i = 0; i < n; i++)
        grid[i] = all[i] = -1;
    ck_assert_cl(clfunction_call(f, all, CLARG_INOUT(grid, n)));
    for (size_t z = 0; z < s[2]; z++)
        for (size_t y = 0; y < s[1]; y++)
            for (size_t x = 0; x < s[0]; x++) {
                size_t i = x + s[0] * (y + s[1] * z);
                int mirror = grid_code(s[0] - 1 - x, s[1] - 1 - y, s[2] - 1 - z);
                ck_assert_msg(grid[i] == grid_code(x, y, z) && all[i] == mirror,
                              "%zux%zux%zu, item (%zu,%zu,%zu): cell %d, "
                              "result %d; want %d and %d", s[0], s[1], s[2],
                              x, y, z, grid[i], all[i], grid_code(x, y, z),
                              mirror);
            }
}

START_TEST(groups_of_two_and_three_dimensions)
{
    clfunction *f = function_of(grid_source, "mirror_code");
    ck_assert_cl(clfunction_group_results(f, 1));
    ck_assert_cl(clfunction_group(f, 7));                   /* 1-D, as ever */
    check_mirror_codes(f, (size_t[3]){7, 1, 1});
    ck_assert_cl(clfunction_group(f, 3, 5));
    check_mirror_codes(f, (size_t[3]){3, 5, 1});
    ck_assert_cl(clfunction_group(f, 1, 6));
    check_mirror_codes(f, (size_t[3]){1, 6, 1});
    ck_assert_cl(clfunction_group(f, 2, 3, 4));
    check_mirror_codes(f, (size_t[3]){2, 3, 4});
    ck_assert_cl(clfunction_group(f, 3, 1, 5));
    check_mirror_codes(f, (size_t[3]){3, 1, 5});
    ck_assert_cl(clfunction_group(f, 1));                   /* one work-item */
    check_mirror_codes(f, (size_t[3]){1, 1, 1});

    /* Without all results, work-item 0's: the code of the far corner. */
    int r = 0, grid[24] = {0};
    ck_assert_cl(clfunction_group_results(f, 0));
    ck_assert_cl(clfunction_group(f, 2, 3, 4));
    ck_assert_cl(clfunction_call(f, &r, CLARG_INOUT(grid, 24)));
    ck_assert_int_eq(r, grid_code(1, 2, 3));
    clfunction_free(f);
}
END_TEST

START_TEST(group_sizes_the_device_cannot_run_are_refused)
{
    clfunction *f = function_of(grid_source, "mirror_code");
    ck_assert_cl(clfunction_group(f, 3, 5));
    ck_assert_fails(clfunction_set_group(f, 0, (size_t[]){4}),
                    CLFRAME_ERR_BAD_SIZE, "clfunction_group(mirror_code): 0 "
                    "sizes given, 1 to 3 expected");
    ck_assert_fails(clfunction_group(f, 2, 2, 2, 2), CLFRAME_ERR_BAD_SIZE,
                    "clfunction_group(mirror_code): 4 sizes given");
    ck_assert_fails(clfunction_group(f, 4, 0), CLFRAME_ERR_BAD_SIZE,
                    "clfunction_group(mirror_code): size 0 in dimension 1");
    ck_assert_fails(clfunction_group(f, 0), CLFRAME_ERR_BAD_SIZE,
                    "size 0 in dimension 0");
    size_t most = clctx_max_work_group_size(NULL);
    char want[200];
    snprintf(want, sizeof want, "clfunction_group(mirror_code): size %zu in "
             "dimension 0: the device allows 1 to", most + 1);
    ck_assert_fails(clfunction_group(f, most + 1), CLFRAME_ERR_BAD_SIZE, want);
    snprintf(want, sizeof want, "clfunction_group(mirror_code): a work-group of "
             "%zu work-items is more than", 2 * most);
    ck_assert_fails(clfunction_group(f, 2, most), CLFRAME_ERR_BAD_SIZE, want);
    ck_assert_fails(clfunction_set_group(f, 2, NULL), CLFRAME_ERR_USAGE,
                    "NULL sizes");
    ck_assert_fails(clfunction_group(NULL, 4), CLFRAME_ERR_USAGE,
                    "NULL function");
    /* A refused size leaves the group as it was. */
    ck_assert_cl(clfunction_group_results(f, 1));
    check_mirror_codes(f, (size_t[3]){3, 5, 1});
    clfunction_free(f);
}
END_TEST

/* ---- per-work-item arguments ---------------------------------------------- */

/* group_best: a work-group's cooperative choice of the largest value, ties
 * to the lowest index, where each work-item brings its own candidate (value
 * and index): a tree over __local scratch of one element per work-item,
 * for groups of any size and shape. bump: a work-item's own counter, moved
 * by its own step. */
static const char *each_source =
    "int group_best(float value, int index, __local float *v, __local int *at)\n"
    "{\n"
    "    size_t lid = get_local_id(0) + get_local_size(0) *\n"
    "                 (get_local_id(1) + get_local_size(1) * get_local_id(2));\n"
    "    size_t n = get_local_size(0) * get_local_size(1) * get_local_size(2);\n"
    "    v[lid] = value;\n"
    "    at[lid] = index;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    for (size_t m = n; m > 1;) {          /* m candidates left */\n"
    "        size_t h = (m + 1) / 2;\n"
    "        if (lid + h < m && (v[lid + h] > v[lid] ||\n"
    "                            (v[lid + h] == v[lid] && at[lid + h] < at[lid]))) {\n"
    "            v[lid] = v[lid + h];\n"
    "            at[lid] = at[lid + h];\n"
    "        }\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);\n"
    "        m = h;\n"
    "    }\n"
    "    return at[0];\n"
    "}\n"
    "int bump(int *counter, const int *step, int base, int *twice)\n"
    "{\n"
    "    int old = *counter;\n"
    "    *counter += *step;\n"
    "    *twice = 2 * *step;\n"
    "    return old + base;\n"
    "}\n"
    "void touch(__global void *p) { }\n";

static clfunction *each_function(const char *name)
{
    return function_of(each_source, name);
}

/* group_best's C twin. */
static int best_index(const float *value, const int *index, size_t n)
{
    size_t b = 0;
    for (size_t i = 1; i < n; i++)
        if (value[i] > value[b] || (value[i] == value[b] && index[i] < index[b]))
            b = i;
    return index[b];
}

/* Group shapes for the per-work-item tests: none, odd 1-D, 2-D and 3-D. */
static const size_t each_shapes[][3] = {
    {1, 1, 1}, {37, 1, 1}, {3, 5, 1}, {2, 3, 4}, {64, 1, 1}};

static void set_shape(clfunction *f, const size_t s[3])
{
    ck_assert_cl(clfunction_group(f, s[0], s[1], s[2]));
}

START_TEST(each_work_item_brings_its_own_candidate)
{
    enum { MAX = 64 };
    clfunction *f = each_function("group_best");
    ck_assert_cl(clfunction_group_results(f, 1));
    float value[MAX], vscratch[MAX] = {0};
    int index[MAX], iscratch[MAX] = {0}, all[MAX];
    uint32_t seed = 5;
    for (size_t g = 0; g < sizeof each_shapes / sizeof *each_shapes; g++) {
        const size_t *s = each_shapes[g];
        size_t n = s[0] * s[1] * s[2];
        set_shape(f, s);
        for (int round = 0; round < RUN_SIZE(candidate_rounds); round++) {
            /* Few distinct values, so ties are common; indices shuffled,
             * so the lowest is rarely the first work-item's. */
            for (size_t i = 0; i < n; i++) {
                value[i] = (float)(test_random(&seed) % 6) - 2.5f;
                index[i] = 1000 + (int)i;
            }
            for (size_t i = n; i > 1; i--) {
                size_t j = test_random(&seed) % i;
                int t = index[i - 1];
                index[i - 1] = index[j];
                index[j] = t;
            }
            ck_assert_cl(clfunction_call(f, all, CLARG_EACH_IN(value, n),
                         CLARG_EACH_IN(index, n), CLARG_IN(vscratch, n),
                         CLARG_IN(iscratch, n)));
            int want = best_index(value, index, n);
            for (size_t i = 0; i < n; i++)
                ck_assert_msg(all[i] == want, "group %zux%zux%zu round %d, "
                              "work-item %zu: %d, want %d", s[0], s[1], s[2],
                              round, i, all[i], want);
        }
    }
    clfunction_free(f);
}
END_TEST

/* Private pointers: each work-item gets its own copy of its element, in
 * (const), out or both; plain arguments beside them are shared. */
START_TEST(each_work_item_has_its_own_private_copy)
{
    enum { N = 15 };
    clfunction *f = each_function("bump");
    ck_assert_cl(clfunction_group(f, 3, 5));
    ck_assert_cl(clfunction_group_results(f, 1));
    int counter[N], step[N], twice[N], all[N];
    for (int i = 0; i < N; i++) {
        counter[i] = 10 * i;
        step[i] = i % 4 - 1;
        twice[i] = -99;
    }
    ck_assert_cl(clfunction_call(f, all, CLARG_EACH_INOUT(counter, N),
                 CLARG_EACH_IN(step, N), CLARG(7), CLARG_EACH_OUT(twice, N)));
    for (int i = 0; i < N; i++) {
        ck_assert_int_eq(all[i], 10 * i + 7);
        ck_assert_int_eq(counter[i], 10 * i + i % 4 - 1);
        ck_assert_int_eq(twice[i], 2 * (i % 4 - 1));
        ck_assert_int_eq(step[i], i % 4 - 1);
    }
    /* One work-item without a group; then the same function with plain
     * arrays again, which takes another shim. */
    ck_assert_cl(clfunction_group(f, 1));
    int c = 4, st = 3, tw = 0, r = 0;
    ck_assert_cl(clfunction_call(f, &r, CLARG_EACH_INOUT(&c, 1),
                 CLARG_EACH_IN(&st, 1), CLARG(1), CLARG_EACH_OUT(&tw, 1)));
    ck_assert_int_eq(r, 5);
    ck_assert_int_eq(c, 7);
    ck_assert_int_eq(tw, 6);
    ck_assert_cl(clfunction_call(f, &r, CLARG_INOUT(&c, 1), CLARG_IN(&st, 1),
                 CLARG(0), CLARG_OUT(&tw, 1)));
    ck_assert_int_eq(r, 7);
    ck_assert_int_eq(c, 10);
    clfunction_free(f);
}
END_TEST

/* Structs per work-item: by value, through a private pointer (written back
 * or const), as return values; a __global pointer gets its element. */
START_TEST(each_work_item_gets_its_own_struct_or_element)
{
    enum { N = 6 };
    Board boards[N], got[N];
    int moves[N], ts[N], all[N];
    for (int i = 0; i < N; i++) {
        boards[i] = (Board){{i, 2 * i, 3 * i, 4 * i}, i % 2};
        moves[i] = (i * 3) % 4;
        ts[i] = i + 1;
    }
    clfunction *f = game("weigh");
    ck_assert_cl(clfunction_group(f, 2, 3));
    ck_assert_cl(clfunction_group_results(f, 1));
    ck_assert_cl(clfunction_call(f, all, CLARG_TYPED("Board", boards, N,
                 CLARG_EACH | CLARG_TO_DEVICE), CLARG_EACH_IN(moves, N)));
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(all[i], boards[i].cells[moves[i]] * (i % 2 + 1));
    clfunction_free(f);

    f = game("total");                      /* const Board *: one each */
    ck_assert_cl(clfunction_group(f, 2, 3));
    ck_assert_cl(clfunction_group_results(f, 1));
    ck_assert_cl(clfunction_call(f, all, CLARG_TYPED("Board", boards, N,
                 CLARG_EACH | CLARG_TO_DEVICE), CLARG(1)));
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(all[i], 10 * i);
    clfunction_free(f);

    f = game("play");                       /* Board *: written back */
    ck_assert_cl(clfunction_group(f, 3, 2));
    ck_assert_cl(clfunction_group_results(f, 1));
    ck_assert_cl(clfunction_call(f, all, CLARG_TYPED("Board", boards, N,
                 CLARG_EACH | CLARG_TO_DEVICE | CLARG_FROM_DEVICE),
                 CLARG_EACH_IN(moves, N)));
    for (int i = 0; i < N; i++) {
        int before = (moves[i] + 1) * i;
        ck_assert_int_eq(all[i], before + 1);
        ck_assert_int_eq(boards[i].cells[moves[i]], before + 1);
        ck_assert_int_eq(boards[i].turn, 1 - i % 2);
    }
    clfunction_free(f);

    f = game("fresh");                      /* a Board back from each */
    ck_assert_cl(clfunction_group(f, N));
    ck_assert_cl(clfunction_group_results(f, 1));
    ck_assert_cl(clfunction_call(f, got, CLARG_EACH_IN(ts, N)));
    for (int i = 0; i < N; i++) {
        ck_assert_int_eq(got[i].cells[3], 3 * ts[i]);
        ck_assert_int_eq(got[i].turn, ts[i]);
    }
    clfunction_free(f);

    f = game("twice");                      /* __global: &x[i] */
    float x[7];
    for (int i = 0; i < 7; i++)
        x[i] = (float)i + 0.5f;
    ck_assert_cl(clfunction_group(f, 7));
    ck_assert_cl(clfunction_call(f, NULL, CLARG_EACH_INOUT(x, 7), CLARG(1)));
    for (int i = 0; i < 7; i++)
        ck_assert_float_eq(x[i], 2 * ((float)i + 0.5f));
    clfunction_free(f);
}
END_TEST

START_TEST(per_work_item_mistakes_are_named)
{
    enum { N = 15 };
    clfunction *f = each_function("group_best");
    float value[N] = {0}, vscratch[N] = {0};
    int index[N] = {0}, iscratch[N] = {0}, r = 0;
    ck_assert_cl(clfunction_group(f, 3, 5));
    ck_assert_fails(clfunction_call(f, &r, CLARG_EACH_IN(value, N - 1),
                    CLARG_EACH_IN(index, N), CLARG_IN(vscratch, N),
                    CLARG_IN(iscratch, N)), CLFRAME_ERR_BAD_SIZE,
                    "clfunction_call(group_best): argument 1 (value): a "
                    "per-work-item array of 14 elements, but the group has "
                    "15 work-items");
    ck_assert_fails(clfunction_call(f, &r, CLARG_EACH_IN(value, N),
                    CLARG_EACH_OUT(index, N), CLARG_IN(vscratch, N),
                    CLARG_IN(iscratch, N)), CLFRAME_ERR_USAGE,
                    "argument 2 (index) is passed by value, so nothing comes "
                    "back from it: use CLARG_EACH_IN");
    ck_assert_fails(clfunction_call(f, &r, CLARG_EACH_IN(value, N),
                    CLARG_EACH_INOUT(index, N), CLARG_IN(vscratch, N),
                    CLARG_IN(iscratch, N)), CLFRAME_ERR_USAGE,
                    "is passed by value");
    ck_assert_fails(clfunction_call(f, &r, CLARG_EACH_IN(value, N),
                    CLARG_EACH_IN(index, N), CLARG_EACH_IN(vscratch, N),
                    CLARG_IN(iscratch, N)), CLFRAME_ERR_USAGE,
                    "argument 3 (v): a __local parameter is shared by the "
                    "work-group");
    ck_assert_fails(clfunction_call(f, &r, CLARG_EACH_IN(value, N),
                    CLARG_EACH_IN(value, N), CLARG_IN(vscratch, N),
                    CLARG_IN(iscratch, N)), CLFRAME_ERR_ARG_TYPE,
                    "argument 2 (index): the function takes int, got a "
                    "per-work-item array of float");
    ck_assert_fails(clfunction_call(f, &r, CLARG_EACH_IN(value, N),
                    clarg_array(NULL, sizeof(int), index, N,
                                CLARG_EACH | CLARG_TO_DEVICE),
                    CLARG_IN(vscratch, N), CLARG_IN(iscratch, N)),
                    CLFRAME_ERR_ARG_TYPE, "name the element type");
    ck_assert_fails(clfunction_call(f, &r, CLARG_EACH_IN(value, N),
                    CLARG_IN(index, N), CLARG_IN(vscratch, N),
                    CLARG_IN(iscratch, N)), CLFRAME_ERR_ARG_TYPE,
                    "or one per work-item with CLARG_EACH_IN(p, n)");
    ck_assert_cl(clfunction_group(f, 1));
    ck_assert_fails(clfunction_call(f, &r, CLARG_EACH_IN(value, 2),
                    CLARG_EACH_IN(index, 1), CLARG_IN(vscratch, 1),
                    CLARG_IN(iscratch, 1)), CLFRAME_ERR_BAD_SIZE,
                    "a per-work-item array of 2 elements, but the group has "
                    "1 work-item");
    clfunction_free(f);

    f = each_function("touch");
    ck_assert_fails(clfunction_call(f, NULL, CLARG_EACH_IN(index, 1)),
                    CLFRAME_ERR_USAGE, "argument 1 (p) is a void pointer");
    clfunction_free(f);

    f = game("play");                       /* the device's size is checked */
    struct { cl_int cells[4]; } small[2] = {{{0}}};
    int moves[2] = {0, 1};
    ck_assert_cl(clfunction_group(f, 2));
    ck_assert_fails(clfunction_call(f, &r, CLARG_TYPED("Board", small, 2,
                    CLARG_EACH | CLARG_TO_DEVICE), CLARG_EACH_IN(moves, 2)),
                    CLFRAME_ERR_ARG_TYPE, "argument 1 (b): Board is 20 bytes "
                    "on");
    clfunction_free(f);

    clkernel *k = test_kernel("__kernel void inc(__global int *x)\n"
                              "{ x[get_global_id(0)] += 1; }\n", "inc");
    ck_assert_cl(clkernel_global(k, 4));
    ck_assert_fails(clkernel_call(k, CLARG_EACH_INOUT(index, 4)),
                    CLFRAME_ERR_USAGE, "clkernel_call(inc): argument 1 is "
                    "per-work-item (CLARG_EACH), which only clfunction_call "
                    "knows");
    clkernel_free(k);
}
END_TEST

/* ---- prototypes ----------------------------------------------------------- */

static const struct {
    const char *source, *name, *prototype;
} awkward[] = {
    {"/* int f(float x); */ int f(int x) { return x; }", "f", "int f(int x)"},
    {"static inline __attribute__((always_inline)) float f(float a)\n{ return a; }",
     "f", "float f(float a)"},
    {"unsigned int f(unsigned int a, unsigned b) { return a + b; }", "f",
     "uint f(uint a, uint b)"},
    {"float f(__global const float *p, global int *q, int n) { return p[n]; }",
     "f", "float f(__global const float* p, __global int* q, int n)"},
    {"struct Board { int c; };\nint f(struct Board b, struct Board *p)"
     " { return b.c + p->c; }", "f", "int f(Board b, Board* p)"},
    {"typedef uchar byte;\nbyte f(byte b) { return b; }", "f",
     "uchar f(uchar b)"},
    {"uchar16 f(float4 v,\n        int2 w,\n        double2 d)\n{ return (uchar16)(0); }",
     "f", "uchar16 f(float4 v, int2 w, double2 d)"},
    {"#define DECLARE_F int f(int y);\nDECLARE_F\n"
     "int g(int x) { int r = f(x); return r + f(x + 1); }\n"
     "int f(int y) { return y; }", "f", "int f(int y)"},
    {"int f(int, float);\nint f(int a, float b) { return a; }", "f",
     "int f(int a, float b)"},
    {"int f(int x __attribute__((unused)), int y) { return y; }", "f",
     "int f(int x, int y)"},
    {"int f(void) { return 1; }", "f", "int f()"},
    {"int f(int a[4]) { return a[0]; }", "f", "int f(int* a)"},
    {"int f(const __local int *x) { return x[0]; }", "f",
     "int f(__local const int* x)"},
    {"int ff(int a) { return a; }\nint f(int b) { return ff(b); }", "f",
     "int f(int b)"},
    {"void f(__constant float *table, int i) { }", "f",
     "void f(__constant float* table, int i)"},
    /* A shared header's function (docs/sharing.md): shared.h's macros are
     * read as the device compiler reads them. */
    {"#include \"clframe/shared.h\"\n"
     "CLF_INLINE CLF_FLOAT4 f(const CLF_GLOBAL CLF_FLOAT *p, CLF_LOCAL "
     "CLF_UINT *q, CLF_UCHAR c)\n{ return (CLF_FLOAT4)(p[0] + q[0] + c); }",
     "f", "float4 f(__global const float* p, __local uint* q, uchar c)"},
};

START_TEST(prototypes_of_awkward_declarations)
{
    for (size_t i = 0; i < sizeof awkward / sizeof *awkward; i++) {
        clfunction *f = clfunction_source(NULL, awkward[i].source,
                                          awkward[i].name, NULL);
        ck_assert_msg(f != NULL, "case %zu: %s", i, clframe_last_error());
        ck_assert_msg(strcmp(clfunction_prototype(f), awkward[i].prototype) == 0,
                      "case %zu: read \"%s\", want \"%s\"", i,
                      clfunction_prototype(f), awkward[i].prototype);
        /* The shim must build, which proves the declarations it wrote. */
        ck_assert_msg(clfunction_shim_source(f) != NULL, "case %zu: %s", i,
                      clframe_last_error());
        clfunction_free(f);
    }
}
END_TEST

START_TEST(prototypes_made_by_macros_are_given_by_hand)
{
    /* Pasting (##) is more than clframe's reader expands. */
    const char *src = "#define MAKE_ADDER(k) int add##k(int x) { return x + k; }\n"
                      "MAKE_ADDER(5)\n";
    clfunction *f = clfunction_source(NULL, src, "add5", NULL);
    ck_assert_made(f);
    int r = 0;
    ck_assert_fails(clfunction_call(f, &r, CLARG(1)), CLFRAME_ERR_NOT_FOUND,
                    "give it with clfunction_proto");
    ck_assert_ptr_null(clfunction_shim_source(f));
    ck_assert_fails(clfunction_proto(f, "int add5(int x"), CLFRAME_ERR_NOT_FOUND,
                    "is not a prototype of add5");
    ck_assert_cl(clfunction_proto(f, "int add5(int x)"));
    ck_assert_cl(clfunction_call(f, &r, CLARG(1)));
    ck_assert_int_eq(r, 6);
    clfunction_free(f);
}
END_TEST

/* A name not in the source: the message lists the functions that are, and
 * under CL_DEBUG it is printed when the object is made. */
/* A name that is no C name is refused at once: an empty one made the
 * prototype search loop for ever. */
START_TEST(function_names_must_be_c_names)
{
    static const char *const bad[] = {"", "1st", "twice ", "a-b", "f(x)"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_ptr_null(clfunction_source(NULL, game_source, bad[i], NULL));
        ck_assert_error_has("is not a function name");
        ck_assert_ptr_null(clfunction_file(NULL, "x.cl", bad[i], NULL));
        ck_assert_error_has("clfunction_file");
    }
    ck_assert_ptr_null(clfunction_source(NULL, game_source, NULL, NULL));
    ck_assert_error_has("(null)");
}
END_TEST

START_TEST(a_misspelt_name_lists_the_functions_found)
{
    const char *src = "float poly(float x) { return x * x; }\n"
                      "float declared_only(float x);\n"
                      "int horner(int x)\n{\n    return x + 1;\n}\n";
    clfunction *f = clfunction_source(NULL, src, "polly", NULL);
    ck_assert_made(f);                  /* clfunction_proto could supply it */
    float r = 0;
    ck_assert_fails(clfunction_call(f, &r, CLARG(1.0f)), CLFRAME_ERR_NOT_FOUND,
                    "no prototype of polly found in the source (its functions:"
                    " poly, horner;");
    clfunction_free(f);
    clctx *debug = NULL;
    setenv("CL_DEBUG", "1", 1);
    debug = clctx_new(NULL);
    unsetenv("CL_DEBUG");
    ck_assert_made(debug);
    capture_stderr_begin();
    f = clfunction_source(debug, src, "polly", NULL);
    char *said = capture_stderr_end();
    ck_assert_made(f);
    ck_assert_msg(strstr(said, "no prototype of polly") != NULL,
                  "not said at once: \"%s\"", said);
    free(said);
    clfunction_free(f);
    clctx_free(debug);
}
END_TEST

/* #include <name> is looked up in the -I folders and the library's own,
 * as "name" is after the including file's folder; a header found nowhere is
 * named when the function is not found. */
START_TEST(angle_includes_are_found_and_missing_ones_named)
{
    const char *path = test_write_file("angle/poly3.cl",
                                       "float poly3(float x) { return 3.0f * x; }\n");
    char options[1100];
    snprintf(options, sizeof options, "-I %.*s", (int)(strrchr(path, '/') - path),
             path);
    clfunction *f = clfunction_source(NULL, "#include <poly3.cl>\n", "poly3",
                                      options);
    ck_assert_made(f);
    float r = 0;
    ck_assert_cl(clfunction_call(f, &r, CLARG(2.0f)));
    ck_assert(r == 6.0f);
    clfunction_free(f);
    f = clfunction_source(NULL, "#include <nothere.cl>\n"
                          "float g(float x) { return x; }\n", "poly3", NULL);
    ck_assert_made(f);
    ck_assert_fails(clfunction_call(f, &r, CLARG(2.0f)), CLFRAME_ERR_NOT_FOUND,
                    "(its functions: g; headers not found, so not read: "
                    "<nothere.cl>;");
    clfunction_free(f);
}
END_TEST

/* A prototype clframe cannot use still makes the function (clfunction_proto
 * could correct a misreading); its calls fail saying why. A missing file
 * makes nothing. */
START_TEST(unusable_prototypes_are_errors)
{
    static const struct {
        const char *source, *name, *why;
    } unusable[] = {
        {"__kernel void k(int x) {}", "k", "is a __kernel"},
        {"int f(int **p) { return 0; }", "f", "pointers to pointers"},
        {"int *f(int x) { return 0; }", "f", "returns a pointer"},
    };
    for (size_t i = 0; i < sizeof unusable / sizeof *unusable; i++) {
        clfunction *f = clfunction_source(NULL, unusable[i].source,
                                          unusable[i].name, NULL);
        ck_assert_made(f);
        ck_assert_fails(clfunction_call(f, NULL), CLFRAME_ERR_USAGE,
                        unusable[i].why);
        ck_assert_ptr_nonnull(strstr(clframe_last_error(),
                                     "clfunction_proto can supply"));
        clfunction_free(f);
    }
    ck_assert_ptr_null(clfunction_file(NULL, "kernels/none.cl", "f", NULL));
    ck_assert_ptr_nonnull(strstr(clframe_last_error(), "not found"));
}
END_TEST

/* ---- mismatches ----------------------------------------------------------- */

START_TEST(every_kind_of_mismatch_is_named)
{
    clfunction *f = game("play");
    Board b = {{0}, 0};
    int r = 0, ints[5] = {0};
    float x = 0;
    ck_assert_fails(clfunction_call(f, &r, CLARG_TYPED("Board", &b, 1,
                    CLARG_TO_DEVICE)), CLFRAME_ERR_ARG_COUNT,
                    "1 argument given, the function takes 2: "
                    "int play(Board* b, int move)");
    ck_assert_fails(clfunction_call(f, &r, CLARG(1), CLARG(2)),
                    CLFRAME_ERR_ARG_TYPE, "argument 1 (b): the function takes "
                    "Board*, got a value of type int (CLARG); pass an array");
    ck_assert_fails(clfunction_call(f, &r, CLARG_IN(ints, 5), CLARG(2)),
                    CLFRAME_ERR_ARG_TYPE, "takes Board*, got an array of int");
    ck_assert_fails(clfunction_call(f, &r, CLARG_IN(&b, 1), CLARG(2)),
                    CLFRAME_ERR_ARG_TYPE, "name the element type");
    ck_assert_fails(clfunction_call(f, &r, CLARG_TYPED("Board", &b, 1,
                    CLARG_TO_DEVICE), CLARG(2.0f)),
                    CLFRAME_ERR_ARG_TYPE, "argument 2 (move): the function "
                    "takes int, got a value of type float");
    ck_assert_fails(clfunction_call(f, &x, CLARG_TYPED("Board", &b, 1,
                    CLARG_TO_DEVICE), CLARG(2)),
                    CLFRAME_ERR_ARG_TYPE, "returns int (4 bytes), but ret points "
                    "to float (4 bytes)");
    ck_assert_fails(clfunction_call(f, &r, CLARG_TYPED("Board", &b, 1,
                    CLARG_TO_DEVICE), CLARG_LOCAL(4)),
                    CLFRAME_ERR_USAGE, "clframe makes any __local copy itself");
    struct { cl_int cells[4]; } small = {{0}};
    ck_assert_fails(clfunction_call(f, &r, CLARG_TYPED("Board", &small, 1,
                    CLARG_TO_DEVICE), CLARG(2)),
                    CLFRAME_ERR_ARG_TYPE, "Board is 20 bytes on");
    static Board many[4000];
    ck_assert_fails(clfunction_call(f, &r, CLARG_TYPED("Board", many, 4000,
                    CLARG_TO_DEVICE), CLARG(2)),
                    CLFRAME_ERR_BAD_SIZE, "make the parameter __global");
    clfunction_free(f);

    f = game("twice");
    ck_assert_fails(clfunction_call(f, &r, CLARG_INOUT(&x, 1), CLARG(1)),
                    CLFRAME_ERR_ARG_TYPE, "returns nothing: pass NULL");
    clfunction_free(f);
    ck_assert_fails(clfunction_call(NULL, NULL), CLFRAME_ERR_USAGE,
                    "NULL function");
}
END_TEST

START_TEST(shims_are_dumped_on_request)
{
    char dir[600];
    snprintf(dir, sizeof dir, "%s/shims", test_tmpdir());
    setenv("CLFRAME_DUMP_SHIMS", dir, 1);
    clfunction *f = game("add");
    int r = 0;
    ck_assert_cl(clfunction_call(f, &r, CLARG(1), CLARG(1)));
    unsetenv("CLFRAME_DUMP_SHIMS");
    char path[700];
    snprintf(path, sizeof path, "%s/add.cl", dir);
    FILE *in = fopen(path, "r");
    ck_assert_msg(in != NULL, "no %s", path);
    char text[8192] = "";
    size_t n = fread(text, 1, sizeof text - 1, in);
    text[n] = '\0';
    fclose(in);
    ck_assert_ptr_nonnull(strstr(text, "__kernel void clf_shim_add("));
    ck_assert_ptr_nonnull(strstr(text, "int add(int a, int b)"));
    clfunction_free(f);
}
END_TEST

START_TEST(no_opencl_object_leaks_over_many_calls)
{
    long before = clctx_get_stats(NULL).live_objects;
    for (int round = 0; round < 20; round++) {
        clfunction *f = game("total");
        Board boards[3] = {{{1, 1, 1, 1}, 0}};
        int r = 0;
        for (int n = 1; n <= 3; n++)            /* grows the shim twice */
            ck_assert_cl(clfunction_call(f, &r, CLARG_TYPED("Board", boards, n,
                         CLARG_TO_DEVICE), CLARG(n)));
        ck_assert_int_eq(clfunction_call(f, &r, CLARG(1), CLARG(1)),
                         CLFRAME_ERR_ARG_TYPE);
        clfunction_free(f);
    }
    ck_assert_int_eq(clctx_get_stats(NULL).live_objects, before);
}
END_TEST

Suite *function_suite(void)
{
    Suite *s = suite_create("clfunction");
    TCase *calls = test_case("calls");
    tcase_add_test(calls, scalar_and_vector_functions);
    tcase_add_test(calls, private_struct_pointer_is_copied_and_written_back);
    tcase_add_test(calls, private_arrays_grow_the_shim);
    tcase_add_test(calls, struct_return);
    tcase_add_test(calls, ret_of_another_size_is_refused);
    tcase_add_test(calls, global_array_function);
    tcase_add_test(calls, local_copies_in_one_item_and_in_a_group);
    tcase_add_test(calls, groups_of_two_and_three_dimensions);
    tcase_add_test(calls, each_work_item_brings_its_own_candidate);
    tcase_add_test(calls, each_work_item_has_its_own_private_copy);
    tcase_add_test(calls, each_work_item_gets_its_own_struct_or_element);
    suite_add_tcase(s, calls);
    TCase *protos = test_case("prototypes");
    tcase_add_test(protos, prototypes_of_awkward_declarations);
    tcase_add_test(protos, prototypes_made_by_macros_are_given_by_hand);
    tcase_add_test(protos, a_misspelt_name_lists_the_functions_found);
    tcase_add_test(protos, function_names_must_be_c_names);
    tcase_add_test(protos, angle_includes_are_found_and_missing_ones_named);
    tcase_add_test(protos, unusable_prototypes_are_errors);
    suite_add_tcase(s, protos);
    TCase *errors = test_case("errors");
    tcase_add_test(errors, every_kind_of_mismatch_is_named);
    tcase_add_test(errors, group_sizes_the_device_cannot_run_are_refused);
    tcase_add_test(errors, per_work_item_mistakes_are_named);
    tcase_add_test(errors, shims_are_dumped_on_request);
    tcase_add_test(errors, no_opencl_object_leaks_over_many_calls);
    suite_add_tcase(s, errors);
    return s;
}
