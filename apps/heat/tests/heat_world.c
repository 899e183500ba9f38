/*
 * heat_world.c: the heat world outside of stepping it (apps/heat/
 * world.c and render.c): the spec's standard world, the text and binary
 * formats (exact bytes, round trips, every malformed file the spec lists,
 * each rejected with a message that says what and where), validation, and
 * rendering to BMP and PNG, including failures that must leave no file.
 */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE             /* F_GETPIPE_SZ */
#endif
#include "common/tests/testing.h"

#include "heat/world.h"
#include "heat/tests/random_world.h"

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <png.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* Helpers                                                                    */
/* ------------------------------------------------------------------------ */

/* A stream holding n bytes of data, positioned at its start. tmpfile
 * rather than fmemopen, which refuses an empty buffer. */
static FILE *stream_of(const void *data, size_t n)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, n, f), n);
    rewind(f);
    return f;
}

static int load_bytes(heat_world *world, const void *data, size_t n)
{
    FILE *f = stream_of(data, n);
    int rc = heat_world_load(world, f, "<test>");
    fclose(f);
    return rc;
}

static int load_text(heat_world *world, const char *text)
{
    return load_bytes(world, text, strlen(text));
}

static void assert_world_empty(const heat_world *world)
{
    ck_assert_uint_eq(world->w, 0);
    ck_assert_uint_eq(world->h, 0);
    ck_assert(world->alpha == 0.0f);
    ck_assert_ptr_null(world->properties);
    ck_assert_ptr_null(world->state);
}

/* Loading data must fail with APP_ERR_BAD_INPUT, a message containing
 * every one of the texts (NULL-terminated), and an empty world. */
static void assert_rejected_bytes(const void *data, size_t n, ...)
{
    heat_world world;
    memset(&world, 0x5a, sizeof world);     /* garbage that must be zeroed */
    ck_assert_app_fails(load_bytes(&world, data, n), APP_ERR_BAD_INPUT,
                        "<test>: ");
    va_list ap;
    va_start(ap, n);
    for (const char *text; (text = va_arg(ap, const char *)) != NULL;)
        ck_assert_msg(strstr(app_last_error(), text) != NULL,
                      "message lacks \"%s\": %s", text, app_last_error());
    va_end(ap);
    assert_world_empty(&world);
}

#define assert_rejected(text, ...) \
    assert_rejected_bytes((text), strlen(text), __VA_ARGS__, (const char *)NULL)

/* What heat_world_save writes, as a string (caller frees). */
static char *saved(const heat_world *world, int binary, size_t *len)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    ck_assert_ptr_nonnull(f);
    ck_assert_app(heat_world_save(world, f, binary));
    fclose(f);
    *len = size;
    return buf;
}

static void assert_worlds_equal(const heat_world *a, const heat_world *b)
{
    ck_assert_uint_eq(a->w, b->w);
    ck_assert_uint_eq(a->h, b->h);
    ck_assert(a->alpha == b->alpha);
    size_t n = (size_t)a->w * a->h;
    ck_assert_mem_eq(a->properties, b->properties, n * 4);
    ck_assert_mem_eq(a->state, b->state, n * 4);
}

/* A fresh empty folder under the test folder; its path in a static
 * buffer. */
static const char *fresh_dir(const char *name)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", test_tmpdir(), name);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    return path;
}

/* The number of entries in a folder besides . and .. */
static int entries_in(const char *dir)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

/* ------------------------------------------------------------------------ */
/* The standard world                                                         */
/* ------------------------------------------------------------------------ */

/* The spec's rules for cell (x, y) of the n x n world, written the other
 * way round from world.c: the last rule that covers a cell decides it. */
static uint32_t expected_flags(uint32_t n, uint32_t x, uint32_t y, float *t)
{
    uint32_t low = n / 3, mid = n / 2, high = 2 * n / 3;
    *t = 0.0f;
    if (x == mid && y == n - 3)
        return HEAT_CELL_FIXED;
    if (y == 1 && x >= 1 && x <= n - 2) {
        *t = 1.0f;
        return HEAT_CELL_FIXED;
    }
    if ((y == low && x < high) || (y == high && x >= low) ||
        (x == high && y >= low && y < mid) || (x == low && y >= mid && y < high))
        return HEAT_CELL_INSULATOR;
    if (x == 0 || y == 0 || x == n - 1 || y == n - 1)
        return HEAT_CELL_INSULATOR;
    return HEAT_CELL_NORMAL;
}

static void check_standard(uint32_t n)
{
    heat_world world;
    ck_assert_app(heat_world_make_standard(&world, n, 0.25f));
    ck_assert_uint_eq(world.w, n);
    ck_assert_uint_eq(world.h, n);
    ck_assert(world.alpha == 0.25f);
    for (uint32_t y = 0; y < n; y++)
        for (uint32_t x = 0; x < n; x++) {
            float t;
            uint32_t flags = expected_flags(n, x, y, &t);
            size_t i = (size_t)y * n + x;
            ck_assert_msg(world.properties[i] == flags && world.state[i] == t,
                          "n=%u, cell x=%u, y=%u: flags %u, t %g; expected "
                          "%u, %g", n, x, y, world.properties[i],
                          world.state[i], flags, t);
        }
    ck_assert_app(heat_world_validate(&world));
    heat_world_free(&world);
}

START_TEST(standard_world_10_matches_the_spec_cell_by_cell)
{
    /* Drawn by hand from the spec: low = 3, mid = 5, high = 6; '#' is an
     * insulator, 'H' fixed at 1, 'C' the sink fixed at 0. */
    static const char *map[10] = {
        "##########",
        "#HHHHHHHH#",
        "#........#",
        "#######..#",
        "#.....#..#",
        "#..#.....#",
        "#..#######",
        "#....C...#",
        "#........#",
        "##########",
    };
    heat_world world;
    ck_assert_app(heat_world_make_standard(&world, 10, 0.1f));
    ck_assert_uint_eq(world.w, 10);
    ck_assert_uint_eq(world.h, 10);
    ck_assert(world.alpha == 0.1f);
    for (uint32_t y = 0; y < 10; y++)
        for (uint32_t x = 0; x < 10; x++) {
            char c = map[y][x];
            uint32_t flags = c == '#' ? HEAT_CELL_INSULATOR
                           : c == '.' ? HEAT_CELL_NORMAL : HEAT_CELL_FIXED;
            float t = c == 'H' ? 1.0f : 0.0f;
            ck_assert_msg(world.properties[y * 10 + x] == flags,
                          "x=%u, y=%u: flags %u, expected %u ('%c')", x, y,
                          world.properties[y * 10 + x], flags, c);
            ck_assert_msg(world.state[y * 10 + x] == t, "x=%u, y=%u: t %g",
                          x, y, world.state[y * 10 + x]);
        }
    /* The cells the brief names: border, row 1 hot, the sink at (5, 7). */
    ck_assert_uint_eq(world.properties[1 * 10 + 0], HEAT_CELL_INSULATOR);
    ck_assert_uint_eq(world.properties[1 * 10 + 9], HEAT_CELL_INSULATOR);
    ck_assert_uint_eq(world.properties[7 * 10 + 5], HEAT_CELL_FIXED);
    ck_assert(world.state[7 * 10 + 5] == 0.0f);
    heat_world_free(&world);
}
END_TEST

START_TEST(standard_worlds_33_and_100_follow_the_rules)
{
    check_standard(33);
    check_standard(100);
    /* And the spec's corridor cells for n = 33 (low 11, mid 16, high 22). */
    heat_world world;
    ck_assert_app(heat_world_make_standard(&world, 33, 0.1f));
    ck_assert_uint_eq(world.properties[11 * 33 + 21], HEAT_CELL_INSULATOR);
    ck_assert_uint_eq(world.properties[11 * 33 + 22], HEAT_CELL_INSULATOR);
    ck_assert_uint_eq(world.properties[11 * 33 + 23], HEAT_CELL_NORMAL);
    ck_assert_uint_eq(world.properties[15 * 33 + 22], HEAT_CELL_INSULATOR);
    ck_assert_uint_eq(world.properties[16 * 33 + 22], HEAT_CELL_NORMAL);
    ck_assert_uint_eq(world.properties[22 * 33 + 10], HEAT_CELL_NORMAL);
    ck_assert_uint_eq(world.properties[22 * 33 + 11], HEAT_CELL_INSULATOR);
    ck_assert_uint_eq(world.properties[21 * 33 + 11], HEAT_CELL_INSULATOR);
    ck_assert_uint_eq(world.properties[15 * 33 + 11], HEAT_CELL_NORMAL);
    ck_assert_uint_eq(world.properties[16 * 33 + 11], HEAT_CELL_INSULATOR);
    ck_assert_uint_eq(world.properties[30 * 33 + 16], HEAT_CELL_FIXED);
    heat_world_free(&world);
}
END_TEST

START_TEST(standard_worlds_of_every_small_size_are_valid)
{
    for (uint32_t n = 3; n <= 64; n++)
        check_standard(n);
    heat_world world;
    ck_assert_app_fails(heat_world_make_standard(&world, 2, 0.1f),
                        APP_ERR_BAD_INPUT, "at least 3");
    assert_world_empty(&world);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Allocation, copy, validation                                               */
/* ------------------------------------------------------------------------ */

START_TEST(alloc_refuses_zero_and_overflowing_sizes)
{
    heat_world world;
    ck_assert_app(heat_world_alloc(&world, 7, 5, 0.5f));
    for (size_t i = 0; i < 35; i++)
        ck_assert(world.properties[i] == 0 && world.state[i] == 0.0f);
    heat_world_free(&world);
    assert_world_empty(&world);
    heat_world_free(&world);                    /* twice is harmless */

    ck_assert_app_fails(heat_world_alloc(&world, 0, 5, 0.5f),
                        APP_ERR_BAD_INPUT, "must be positive");
    assert_world_empty(&world);
    ck_assert_app_fails(heat_world_alloc(&world, 5, 0, 0.5f),
                        APP_ERR_BAD_INPUT, "must be positive");
    ck_assert_app_fails(heat_world_alloc(&world, UINT32_MAX, UINT32_MAX, 0.5f),
                        APP_ERR_BAD_INPUT, "too large");
    assert_world_empty(&world);
    ck_assert_app_fails(heat_world_alloc(&world, 46341, 46341, 0.5f),
                        APP_ERR_BAD_INPUT, "46341 x 46341 cells is too "
                        "large: at most 2147483648 cells");
    assert_world_empty(&world);
}
END_TEST

START_TEST(copy_is_equal_and_independent)
{
    heat_world a, b;
    ck_assert_app(heat_world_make_standard(&a, 12, 0.3f));
    a.state[2 * 12 + 3] = 0.75f;
    ck_assert_app(heat_world_copy(&b, &a));
    assert_worlds_equal(&a, &b);
    ck_assert_ptr_ne(a.state, b.state);
    b.state[2 * 12 + 3] = 0.5f;
    ck_assert(a.state[2 * 12 + 3] == 0.75f);
    heat_world_free(&a);
    heat_world_free(&b);
}
END_TEST

START_TEST(validate_names_the_bad_cell)
{
    heat_world world;
    ck_assert_app(heat_world_make_standard(&world, 10, 0.1f));
    ck_assert_app(heat_world_validate(&world));

    world.properties[4 * 10 + 4] = 3;
    ck_assert_app_fails(heat_world_validate(&world), APP_ERR_BAD_INPUT,
                        "flag value 3 at x=4, y=4 is unknown");
    world.properties[4 * 10 + 4] = HEAT_CELL_NORMAL;

    world.state[5 * 10 + 6] = NAN;
    ck_assert_app_fails(heat_world_validate(&world), APP_ERR_BAD_INPUT,
                        "at x=6, y=5 is not a number (NaN)");
    world.state[5 * 10 + 6] = 1.0f + 1e-6f;
    ck_assert_app_fails(heat_world_validate(&world), APP_ERR_BAD_INPUT,
                        "at x=6, y=5 is outside [0, 1]");
    world.state[5 * 10 + 6] = -0.0f;            /* refused, as in files */
    ck_assert_app_fails(heat_world_validate(&world), APP_ERR_BAD_INPUT,
                        "at x=6, y=5 is -0, a zero with a sign");
    world.state[5 * 10 + 6] = 0.0f;
    ck_assert_app(heat_world_validate(&world));

    world.properties[9 * 10 + 3] = HEAT_CELL_NORMAL;
    ck_assert_app_fails(heat_world_validate(&world), APP_ERR_BAD_INPUT,
                        "x=3, y=9 is a normal cell on the border");
    world.properties[9 * 10 + 3] = HEAT_CELL_FIXED;     /* fixed is fine */
    ck_assert_app(heat_world_validate(&world));
    heat_world_free(&world);

    heat_world empty = {0};
    ck_assert_app_fails(heat_world_validate(&empty), APP_ERR_USAGE, "empty");
}
END_TEST

/* Validation must fail naming cell (x, y); so must loading the world
 * saved in binary, whose loader scans the same way. */
static void assert_refused_at(const heat_world *world, uint32_t x, uint32_t y)
{
    char where[64];
    snprintf(where, sizeof where, "at x=%u, y=%u ", x, y);
    ck_assert_app_fails(heat_world_validate(world), APP_ERR_BAD_INPUT, where);
    size_t len;
    char *bin = saved(world, 1, &len);
    heat_world loaded;
    ck_assert_app_fails(load_bytes(&loaded, bin, len), APP_ERR_BAD_INPUT,
                        where);
    free(bin);
}

/* Validation and the binary loader scan whole arrays a block at a time;
 * every bad word must still be found wherever it lies, the first one in
 * index order reported, and every good one (0, 1, subnormals) let
 * through, as make_random_world's worlds are. */
START_TEST(bad_words_are_found_anywhere_in_a_large_world)
{
    static const uint32_t bad_flags[] = {3, 4, 7, 0x7fffffffu, 0x80000000u,
                                         0xfffffffdu, 0xffffffffu};
    static const uint32_t bad_bits[] = {
        0x3f800001u, 0x40000000u, 0x7f800000u, 0x7fc00000u, 0x7fffffffu,
        0x80000000u, 0x80000001u, 0xbf800000u, 0xffffffffu};
    const uint32_t w = 301, h = 9;
    uint32_t seed = 45;
    heat_world world;
    make_random_world(&world, w, h, 7);
    for (size_t k = 0; k < sizeof bad_flags / sizeof *bad_flags; k++) {
        uint32_t x = 1 + test_random(&seed) % (w - 2);
        uint32_t y = 1 + test_random(&seed) % (h - 2);
        size_t i = (size_t)y * w + x;
        uint32_t kept = world.properties[i];
        world.properties[i] = bad_flags[k];
        assert_refused_at(&world, x, y);
        world.properties[i] = kept;
    }
    for (size_t k = 0; k < sizeof bad_bits / sizeof *bad_bits; k++) {
        uint32_t x = test_random(&seed) % w, y = test_random(&seed) % h;
        size_t i = (size_t)y * w + x;
        float kept = world.state[i];
        memcpy(&world.state[i], &bad_bits[k], 4);
        assert_refused_at(&world, x, y);
        /* To validation, a bad flag word in a later cell comes second
         * (the loader reads every flag word before any temperature). */
        size_t later = i + 1 + test_random(&seed) % ((size_t)w * h - i);
        if (later < (size_t)w * h) {
            char where[64];
            snprintf(where, sizeof where, "at x=%u, y=%u ", x, y);
            uint32_t kept_flags = world.properties[later];
            world.properties[later] = 5;
            ck_assert_app_fails(heat_world_validate(&world),
                                APP_ERR_BAD_INPUT, where);
            world.properties[later] = kept_flags;
        }
        world.state[i] = kept;
    }
    ck_assert_app(heat_world_validate(&world));
    heat_world_free(&world);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* File formats                                                               */
/* ------------------------------------------------------------------------ */

/* A 3 x 3 world in canonical text: line 1 header, 2 sizes, 3 '-', 4-6
 * properties, 7 '-', 8-10 temperatures, 11 End. */
#define HEADER "HPCEHeatWorldV0\n3 3 0.1\n"
#define PROPS "-\n 2 2 2\n 2 0 2\n 2 1 2\n"
#define STATE "-\n 0.00000000 0.00000000 0.00000000\n" \
              " 0.00000000 0.50000000 0.00000000\n" \
              " 0.00000000 1.00000000 0.00000000\n"
#define END "End\n"

static void small_world(heat_world *world)
{
    ck_assert_app(heat_world_alloc(world, 3, 3, 0.1f));
    for (int i = 0; i < 9; i++)
        world->properties[i] = HEAT_CELL_INSULATOR;
    world->properties[4] = HEAT_CELL_NORMAL;
    world->properties[7] = HEAT_CELL_FIXED;
    world->state[4] = 0.5f;
    world->state[7] = 1.0f;
}

START_TEST(text_format_is_the_seeds_byte_for_byte)
{
    heat_world world;
    small_world(&world);
    size_t len;
    char *text = saved(&world, 0, &len);
    ck_assert_str_eq(text, HEADER PROPS STATE END);
    ck_assert_uint_eq(len, strlen(text));
    free(text);

    heat_world loaded;
    ck_assert_app(load_text(&loaded, HEADER PROPS STATE END));
    assert_worlds_equal(&world, &loaded);
    heat_world_free(&loaded);
    heat_world_free(&world);
}
END_TEST

START_TEST(binary_format_is_the_seeds_byte_for_byte)
{
    heat_world world;
    small_world(&world);
    unsigned char expected[200];
    size_t n = 0;
    const char *header = "HPCEHeatWorldV0Binary\n3 3 0.1\n-";
    memcpy(expected, header, strlen(header));
    n += strlen(header);
    for (int i = 0; i < 9; i++) {           /* little-endian uint32 */
        uint32_t v = world.properties[i];
        for (int b = 0; b < 4; b++)
            expected[n++] = (unsigned char)(v >> (8 * b));
    }
    expected[n++] = '-';
    for (int i = 0; i < 9; i++) {           /* little-endian float32 */
        uint32_t v;
        memcpy(&v, &world.state[i], 4);
        for (int b = 0; b < 4; b++)
            expected[n++] = (unsigned char)(v >> (8 * b));
    }
    memcpy(expected + n, "End\n", 4);
    n += 4;

    size_t len;
    char *bin = saved(&world, 1, &len);
    ck_assert_uint_eq(len, n);
    ck_assert_mem_eq(bin, expected, n);
    free(bin);

    heat_world loaded;
    ck_assert_app(load_bytes(&loaded, expected, n));
    assert_worlds_equal(&world, &loaded);
    heat_world_free(&loaded);
    heat_world_free(&world);
}
END_TEST

/* A world with random flags inside an insulating or fixed border and
 * temperatures that stress the formats: 0, 1, just below 1, denormals,
 * ties of "%.8f" and plain random values. */
static void random_world(heat_world *world, uint32_t w, uint32_t h)
{
    ck_assert_app(heat_world_alloc(world, w, h, 0.0375f));
    srand(12345);
    static const float special[] = {0.0f, 1.0f, 0.99999994f, 1e-45f, 1e-30f,
                                    0.001953125f, 0.5f, 0.123456789f,
                                    0.000000005f, 0.999999995f};
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            int border = x == 0 || y == 0 || x == w - 1 || y == h - 1;
            world->properties[i] = (uint32_t)(rand() % (border ? 2 : 3));
            if (border)
                world->properties[i] += 1;
            world->state[i] = i < sizeof special / sizeof *special
                            ? special[i] : (float)rand() / (float)RAND_MAX;
        }
    ck_assert_app(heat_world_validate(world));
}

START_TEST(text_round_trip_is_exact)
{
    heat_world world, loaded;
    random_world(&world, 37, 23);
    size_t len1, len2;
    char *first = saved(&world, 0, &len1);
    ck_assert_app(load_bytes(&loaded, first, len1));
    char *second = saved(&loaded, 0, &len2);
    ck_assert_uint_eq(len1, len2);
    ck_assert_mem_eq(first, second, len1);
    ck_assert_mem_eq(world.properties, loaded.properties, 37 * 23 * 4);
    free(first);
    free(second);
    heat_world_free(&world);
    heat_world_free(&loaded);
}
END_TEST

START_TEST(binary_round_trip_is_exact)
{
    heat_world world, loaded;
    random_world(&world, 41, 19);
    size_t len1, len2;
    char *first = saved(&world, 1, &len1);
    ck_assert_app(load_bytes(&loaded, first, len1));
    assert_worlds_equal(&world, &loaded);       /* binary loses nothing */
    char *second = saved(&loaded, 1, &len2);
    ck_assert_uint_eq(len1, len2);
    ck_assert_mem_eq(first, second, len1);
    free(first);
    free(second);
    heat_world_free(&world);
    heat_world_free(&loaded);
}
END_TEST

/* Worlds of more cells than the loader's first allocation, truncated or
 * whole: its arrays grow as the cells arrive, in both formats. */
START_TEST(worlds_larger_than_a_first_allocation_load_whole)
{
    heat_world world, loaded;
    random_world(&world, 301, 257);         /* 77357 cells: past 2^16 */
    for (int binary = 0; binary <= 1; binary++) {
        size_t len;
        char *data = saved(&world, binary, &len);
        ck_assert_app(load_bytes(&loaded, data, len));
        ck_assert_mem_eq(world.properties, loaded.properties, 301 * 257 * 4);
        if (binary)
            assert_worlds_equal(&world, &loaded);
        heat_world_free(&loaded);
        assert_rejected_bytes(data, len - 40, "truncated state array",
                              (char *)NULL);
        free(data);
    }
    heat_world_free(&world);
}
END_TEST

START_TEST(text_to_binary_to_text_is_exact)
{
    heat_world world, from_text, from_binary;
    random_world(&world, 29, 31);
    size_t len_text, len_bin, len_again;
    char *text = saved(&world, 0, &len_text);
    ck_assert_app(load_bytes(&from_text, text, len_text));
    char *bin = saved(&from_text, 1, &len_bin);
    ck_assert_app(load_bytes(&from_binary, bin, len_bin));
    assert_worlds_equal(&from_text, &from_binary);
    char *again = saved(&from_binary, 0, &len_again);
    ck_assert_uint_eq(len_text, len_again);
    ck_assert_mem_eq(text, again, len_text);
    free(text);
    free(bin);
    free(again);
    heat_world_free(&world);
    heat_world_free(&from_text);
    heat_world_free(&from_binary);
}
END_TEST

/* The writer's own "%.8f" must be printf's for every float it meets. */
START_TEST(temperatures_are_written_as_printf_writes_them)
{
    enum { N = 4000 };
    heat_world world;
    ck_assert_app(heat_world_alloc(&world, N, 1, 0.1f));
    srand(777);
    for (int i = 0; i < N; i++) {
        uint32_t bits = ((uint32_t)rand() << 16) ^ (uint32_t)rand();
        float t;
        memcpy(&t, &bits, 4);
        /* Mostly floats of [0, 1] across all exponents, some of anything
         * (the slow path: negative, huge, NaN). */
        world.state[i] = i % 10 == 0 ? t : fabsf(t) / (fabsf(t) + 1.0f);
        if (i % 7 == 0)
            world.state[i] = (float)i / N;
    }
    world.state[1] = -0.0f;
    world.state[2] = 1.5f;
    world.state[3] = NAN;
    size_t len;
    char *text = saved(&world, 0, &len);
    /* The temperatures are on the line after the second "-\n". */
    char *line = strstr(strstr(text, "-\n") + 2, "-\n") + 2;
    char *cursor = line;
    for (int i = 0; i < N; i++) {
        char want[80];
        snprintf(want, sizeof want, " %.8f", world.state[i]);
        size_t n = strlen(want);
        ck_assert_msg(strncmp(cursor, want, n) == 0, "cell %d (%a): wrote "
                      "'%.20s', printf writes '%s'", i, world.state[i],
                      cursor, want);
        cursor += n;
    }
    ck_assert_str_eq(cursor, "\nEnd\n");
    free(text);
    heat_world_free(&world);
}
END_TEST

START_TEST(loader_skips_any_whitespace_between_tokens)
{
    heat_world loaded, expected;
    small_world(&expected);
    ck_assert_app(load_text(&loaded,
        "\n  HPCEHeatWorldV0\r\n3\t3   0.1\r\n-  2 2 2 2 0 2 2 1 2\n\n- "
        "0 0 0 0 .5 0 0 1e0 0\tEnd"));
    assert_worlds_equal(&expected, &loaded);
    heat_world_free(&loaded);
    heat_world_free(&expected);
}
END_TEST

START_TEST(load_stops_after_end_so_worlds_can_follow)
{
    const char *two = HEADER PROPS STATE END "HPCEHeatWorldV0 3 3 0.5\n"
        "- 2 2 2 2 0 2 2 2 2 - 0 0 0 0 0.25 0 0 0 0 End\n";
    FILE *f = stream_of(two, strlen(two));
    heat_world a, b;
    ck_assert_app(heat_world_load(&a, f, "<test>"));
    /* Just after "End": the newline that ended it is still to read. */
    ck_assert_int_eq(ftell(f), (long)strlen(HEADER PROPS STATE "End"));
    ck_assert_app(heat_world_load(&b, f, "<test>"));
    ck_assert_int_eq(ftell(f), (long)strlen(two) - 1);
    ck_assert(a.state[4] == 0.5f && b.state[4] == 0.25f && b.alpha == 0.5f);
    heat_world_free(&a);
    heat_world_free(&b);
    ck_assert_app_fails(heat_world_load(&a, f, "<test>"), APP_ERR_BAD_INPUT,
                        "header");
    fclose(f);
}
END_TEST

/* A file, or a program's standard input, holds one world: after its End
 * only whitespace may follow, up to the end of the input. */
START_TEST(load_whole_refuses_anything_after_end)
{
    heat_world world;
    FILE *f = stream_of(HEADER PROPS STATE END " \n\t\n",
                        strlen(HEADER PROPS STATE END " \n\t\n"));
    ck_assert_app(heat_world_load_whole(&world, f, "<test>"));
    ck_assert_int_eq(getc(f), EOF);
    fclose(f);
    heat_world_free(&world);
    static const struct {
        const char *after;
        size_t len;
        const char *says;
    } bad[] = {
        {"x", 1, "<test>: line 12: 'x' after 'End'; a world ends there"},
        {"\n\nEnd\n", 6, "line 14: 'End' after 'End'"},
        {"HPCEHeatWorldV0 3 3 0.1", 23, "'HPCEHeatWorldV0' after 'End'"},
        {" \0", 2, "line 12: a NUL byte"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char text[512];
        size_t n = strlen(HEADER PROPS STATE END);
        memcpy(text, HEADER PROPS STATE END, n);
        memcpy(text + n, bad[i].after, bad[i].len);
        f = stream_of(text, n + bad[i].len);
        memset(&world, 0x5a, sizeof world);
        ck_assert_app_fails(heat_world_load_whole(&world, f, "<test>"),
                            APP_ERR_BAD_INPUT, bad[i].says);
        assert_world_empty(&world);
        fclose(f);
    }
    const char *path = test_write_file("heat-two-worlds.txt",
                                       HEADER PROPS STATE END "End\n");
    ck_assert_app_fails(heat_world_load_file(&world, path), APP_ERR_BAD_INPUT,
                        "heat-two-worlds.txt: line 12: 'End' after 'End'");
}
END_TEST

START_TEST(load_file_reads_a_path_and_names_missing_files)
{
    heat_world world, loaded;
    random_world(&world, 9, 8);
    size_t len;
    char *bin = saved(&world, 1, &len);
    char path[512];
    snprintf(path, sizeof path, "%s/heat-world-load.bin", test_tmpdir());
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(bin, 1, len, f), len);
    fclose(f);
    ck_assert_app(heat_world_load_file(&loaded, path));
    assert_worlds_equal(&world, &loaded);
    heat_world_free(&loaded);
    free(bin);
    heat_world_free(&world);

    snprintf(path, sizeof path, "%s/heat-no-such-world.txt", test_tmpdir());
    memset(&loaded, 0x5a, sizeof loaded);
    ck_assert_app_fails(heat_world_load_file(&loaded, path), APP_ERR_IO,
                        "no-such-world.txt: cannot open");
    assert_world_empty(&loaded);

    /* A file's errors name the file. */
    const char *bad = test_write_file("heat-bad-world.txt", "HPCEHeatWorldV2\n");
    ck_assert_app_fails(heat_world_load_file(&loaded, bad), APP_ERR_BAD_INPUT,
                        "heat-bad-world.txt: line 1: unknown header");
}
END_TEST

START_TEST(save_reports_a_failed_write)
{
    FILE *full = fopen("/dev/full", "w");
    if (!full)
        return;                     /* not Linux: nothing to test with */
    heat_world world;
    ck_assert_app(heat_world_make_standard(&world, 50, 0.1f));
    ck_assert_app_fails(heat_world_save(&world, full, 0), APP_ERR_IO,
                        "writing the heat world failed");
    clearerr(full);
    ck_assert_app_fails(heat_world_save(&world, full, 1), APP_ERR_IO,
                        "No space left");
    fclose(full);
    heat_world_free(&world);
}
END_TEST

/* A pipe's size now, through either end. */
static int pipe_size(int fd)
{
#ifdef F_GETPIPE_SZ
    return fcntl(fd, F_GETPIPE_SZ);
#else
    (void)fd;
    return -1;
#endif
}

/* Saving into a pipe and loading from one widen it to 1 MiB (Linux's
 * default pipe-max-size), so that a large world crosses in fewer turns. */
START_TEST(save_and_load_widen_a_pipe)
{
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    if (pipe_size(fds[0]) < 0) {
        close(fds[0]), close(fds[1]);
        return;                     /* not Linux: pipes have no size */
    }
    ck_assert_int_lt(pipe_size(fds[0]), 1 << 20);
    heat_world world, loaded;
    ck_assert_app(heat_world_make_standard(&world, 10, 0.1f));
    FILE *in = fdopen(fds[1], "w");
    ck_assert_ptr_nonnull(in);
    ck_assert_app(heat_world_save(&world, in, 1));
    ck_assert_int_ge(pipe_size(fds[0]), 1 << 20);
    fclose(in);
    FILE *out = fdopen(fds[0], "r");
    ck_assert_ptr_nonnull(out);
    ck_assert_app(heat_world_load_whole(&loaded, out, "<pipe>"));
    fclose(out);
    assert_worlds_equal(&world, &loaded);
    heat_world_free(&loaded);

    ck_assert_int_eq(pipe(fds), 0);
    size_t len;
    char *text = saved(&world, 0, &len);
    ck_assert_int_eq(write(fds[1], text, len), (ssize_t)len);
    close(fds[1]);
    ck_assert_int_lt(pipe_size(fds[0]), 1 << 20);
    out = fdopen(fds[0], "r");
    ck_assert_ptr_nonnull(out);
    ck_assert_app(heat_world_load_whole(&loaded, out, "<pipe>"));
    ck_assert_int_ge(pipe_size(fds[0]), 1 << 20);
    fclose(out);
    assert_worlds_equal(&world, &loaded);
    heat_world_free(&loaded);
    free(text);
    heat_world_free(&world);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Malformed text files: one test for each thing the spec rejects             */
/* ------------------------------------------------------------------------ */

START_TEST(reject_empty_input)
{
    assert_rejected("", "empty input");
    assert_rejected(" \n\t\n", "where the header should be");
}
END_TEST

START_TEST(reject_unknown_header)
{
    assert_rejected("HPCEHeatWorldV1\n3 3 0.1\n" PROPS STATE END,
                    "line 1: unknown header 'HPCEHeatWorldV1'",
                    "expected HPCEHeatWorldV0 or HPCEHeatWorldV0Binary");
    assert_rejected("hpceheatworldv0\n3 3 0.1\n" PROPS STATE END,
                    "unknown header");
    assert_rejected("HPCEHeatWorldV0Binaryish 3 3 0.1\n", "unknown header");
}
END_TEST

/* Text holds no NUL byte: one is binary junk or /dev/zero. */
START_TEST(reject_nul_bytes)
{
    static const char nul[] = "HPCEHeatWorldV0\0x\n3 3 0.1\n" PROPS STATE END;
    assert_rejected_bytes(nul, sizeof nul - 1, "line 1: a NUL byte at byte "
                          "offset 15", (char *)NULL);
    static const char nul_in_state[] = HEADER PROPS "-\n 0 0 0\n 0 0.5\0 0\n"
                                       " 0 1 0\n" END;
    assert_rejected_bytes(nul_in_state, sizeof nul_in_state - 1, "line 9: a "
                          "NUL byte at byte offset", (char *)NULL);
}
END_TEST

/* An endless word or run of whitespace would be read for ever: each is
 * refused past a bound. */
START_TEST(reject_endless_words_and_whitespace)
{
    char word[400];
    memset(word, '7', sizeof word);
    memcpy(word, "HPCEHeatWorldV0\n3 ", 18);
    assert_rejected_bytes(word, sizeof word, "line 2: a word of more than "
                          "255 characters ('7777", (char *)NULL);
    /* A world after 1 MiB of blank lines and one more space. */
    size_t blank = (1u << 20) + 1, n = blank + strlen(HEADER PROPS STATE END);
    char *spaced = malloc(n);
    ck_assert_ptr_nonnull(spaced);
    memset(spaced, '\n', blank - 1);
    spaced[blank - 1] = ' ';
    memcpy(spaced + blank, HEADER PROPS STATE END, n - blank);
    assert_rejected_bytes(spaced, n, "line 1048577: more than 1048576 bytes "
                          "of whitespace in a row from byte offset 0",
                          (char *)NULL);
    free(spaced);
}
END_TEST

START_TEST(reject_missing_size)
{
    assert_rejected("HPCEHeatWorldV0\n3\n" PROPS STATE END,
                    "line 3: expected the height, a positive integer, "
                    "found '-'");
    assert_rejected("HPCEHeatWorldV0\n", "input ends where width should be");
    assert_rejected("HPCEHeatWorldV0\n3 3\n", "input ends where alpha");
}
END_TEST

START_TEST(reject_zero_size)
{
    assert_rejected("HPCEHeatWorldV0\n0 3 0.1\n" PROPS STATE END,
                    "line 2: width 0 is not a positive integer");
    assert_rejected("HPCEHeatWorldV0\n3 0 0.1\n" PROPS STATE END,
                    "height 0 is not a positive integer");
}
END_TEST

START_TEST(reject_negative_size)
{
    assert_rejected("HPCEHeatWorldV0\n3 -3 0.1\n" PROPS STATE END,
                    "expected the height, a positive integer, found '-3'");
    assert_rejected("HPCEHeatWorldV0\n-1 3 0.1\n" PROPS STATE END,
                    "expected the width");
}
END_TEST

START_TEST(reject_sizes_whose_product_overflows)
{
    assert_rejected("HPCEHeatWorldV0\n4294967295 4294967295 0.1\n-\n",
                    "4294967295 x 4294967295 cells is too large");
    assert_rejected("HPCEHeatWorldV0Binary\n4294967295 4294967295 0.1\n-",
                    "too large");
    assert_rejected("HPCEHeatWorldV0\n4294967296 1 0.1\n-\n",
                    "width 4294967296 is not a positive integer below 2^32");
}
END_TEST

/* A header alone claims the memory: 35 bytes asking for 60000 x 60000
 * cells were two allocations of 14.4 GB before a cell was read. Beyond
 * HEAT_WORLD_MAX_CELLS it is refused at once; up to it, a short input is
 * found short, its arrays grown only as far as its cells went. */
START_TEST(reject_a_header_claiming_more_than_the_input_holds)
{
    assert_rejected("HPCEHeatWorldV0Binary\n60000 60000 0.1\n-\x02\x00",
                    "line 2: a world of 60000 x 60000 cells is too large: "
                    "at most 2147483648 cells");
    assert_rejected("HPCEHeatWorldV0\n46341 46341 0.1\n- 2 2\n",
                    "too large: at most 2147483648 cells");
    assert_rejected("HPCEHeatWorldV0Binary\n46340 46340 0.1\n-ab",
                    "truncated properties array: expected 8589582400 bytes "
                    "from byte offset 39, found 2");
    assert_rejected("HPCEHeatWorldV0\n46340 46340 0.1\n- 2 2\n",
                    "truncated properties array: found the end of input "
                    "after 2 of 2147395600 entries");
    /* The limit itself, 2^31 cells, and a row more; and a single row of
     * 2^31 cells, whose width an int would not hold. */
    assert_rejected("HPCEHeatWorldV0\n65536 32769 0.1\n- 2 2\n",
                    "a world of 65536 x 32769 cells is too large");
    assert_rejected("HPCEHeatWorldV0\n65536 32768 0.1\n- 2 2\n",
                    "after 2 of 2147483648 entries");
    assert_rejected("HPCEHeatWorldV0\n2147483649 1 0.1\n- 2 2\n",
                    "a world of 2147483649 x 1 cells is too large");
    assert_rejected("HPCEHeatWorldV0Binary\n2147483648 1 0.1\n-ab",
                    "expected 8589934592 bytes from byte offset 40, found 2");
}
END_TEST

START_TEST(reject_bad_alpha)
{
    assert_rejected("HPCEHeatWorldV0\n3 3 fast\n" PROPS STATE END,
                    "alpha 'fast' is not a finite number");
    assert_rejected("HPCEHeatWorldV0\n3 3 nan\n" PROPS STATE END, "alpha");
    assert_rejected("HPCEHeatWorldV0\n3 3 -0.1\n" PROPS STATE END, "alpha");
}
END_TEST

START_TEST(reject_missing_dash_before_properties)
{
    assert_rejected(HEADER " 2 2 2\n 2 0 2\n 2 1 2\n" STATE END,
                    "line 3: expected '-' before the properties, found '2'");
    assert_rejected(HEADER, "input ends where '-' before the properties");
}
END_TEST

START_TEST(reject_missing_dash_before_state)
{
    assert_rejected(HEADER PROPS " 0 0 0\n 0 0.5 0\n 0 1 0\n" END,
                    "line 7: expected '-' before the temperatures, found '0'");
}
END_TEST

START_TEST(reject_missing_end)
{
    assert_rejected(HEADER PROPS STATE, "input ends where 'End' should be");
    assert_rejected(HEADER PROPS STATE "end\n",
                    "line 11: expected 'End' after the state array, found "
                    "'end'");
    /* One temperature too many is found where End should be. */
    assert_rejected(HEADER PROPS STATE " 0.5\nEnd\n",
                    "expected 'End' after the state array, found '0.5'");
}
END_TEST

START_TEST(reject_unknown_flag_3)
{
    assert_rejected(HEADER "-\n 2 2 2\n 2 3 2\n 2 1 2\n" STATE END,
                    "line 5: flag value 3 at x=1, y=1 is unknown");
}
END_TEST

START_TEST(reject_unknown_flag_4)
{
    assert_rejected(HEADER "-\n 2 2 2\n 2 4 2\n 2 1 2\n" STATE END,
                    "line 5: flag value 4 at x=1, y=1 is unknown");
}
END_TEST

START_TEST(reject_unknown_flag_7)
{
    assert_rejected(HEADER "-\n 2 2 2\n 2 2 2\n 2 7 2\n" STATE END,
                    "line 6: flag value 7 at x=1, y=2 is unknown");
}
END_TEST

START_TEST(reject_unknown_huge_flag)
{
    assert_rejected(HEADER "-\n 2 2 2\n 2 99999999999999999999 2\n 2 1 2\n"
                    STATE END, "flag value 99999999999999999999 at x=1, y=1 "
                    "is unknown");
    assert_rejected(HEADER "-\n 2 2 2\n 2 4294967297 2\n 2 1 2\n" STATE END,
                    "flag value 4294967297 at x=1, y=1 is unknown");
}
END_TEST

START_TEST(reject_temperature_above_1)
{
    assert_rejected(HEADER PROPS "-\n 0 0 0\n 0 1.5 0\n 0 1 0\n" END,
                    "<test>: line 9: temperature 1.5 at x=1, y=1 is outside "
                    "[0, 1]");
    /* Beyond float: infinity, out of range like any large number. */
    assert_rejected(HEADER PROPS "-\n 0 0 0\n 0 0 0\n 0 1e39 0\n" END,
                    "temperature 1e39 at x=1, y=2 is outside [0, 1]");
}
END_TEST

START_TEST(reject_temperature_below_0)
{
    assert_rejected(HEADER PROPS "-\n 0 0 -0.25\n 0 0.5 0\n 0 1 0\n" END,
                    "line 8: temperature -0.25 at x=2, y=0 is outside [0, 1]");
}
END_TEST

/* The format's numbers are decimal (strtof would also take hexadecimal
 * floats, "inf" and a '+'), and neither alpha nor a temperature has a
 * sign, so -0 is refused as well. */
START_TEST(reject_numbers_the_format_does_not_write)
{
    static const char *const temperatures[] = {"0x1p-1", "0X.8", "+0.5",
                                               "infinity", "1e", ".", "-.",
                                               "0.5e+", "1..0", "0,5"};
    for (size_t i = 0; i < sizeof temperatures / sizeof *temperatures; i++) {
        char text[256];
        snprintf(text, sizeof text, HEADER PROPS "-\n 0 0 0\n 0 %s 0\n"
                 " 0 1 0\n" END, temperatures[i]);
        char says[128];
        snprintf(says, sizeof says, "line 9: temperature '%s' at x=1, y=1 "
                 "is not a number (decimal digits", temperatures[i]);
        assert_rejected(text, says);
    }
    assert_rejected(HEADER PROPS "-\n 0 0 0\n 0 -0 0\n 0 1 0\n" END,
                    "line 9: temperature -0 at x=1, y=1 is -0, a zero with "
                    "a sign; write 0");
    assert_rejected(HEADER PROPS "-\n 0 0 0\n 0 -0.0e5 0\n 0 1 0\n" END,
                    "is -0");
    assert_rejected("HPCEHeatWorldV0\n3 3 0x1p-3\n" PROPS STATE END,
                    "line 2: alpha '0x1p-3' is not a finite number >= 0 "
                    "without a sign");
    assert_rejected("HPCEHeatWorldV0\n3 3 -0\n" PROPS STATE END,
                    "alpha '-0' is not a finite number >= 0 without a sign");
    assert_rejected("HPCEHeatWorldV0\n3 3 +0.1\n" PROPS STATE END,
                    "alpha '+0.1'");
    /* What the rule allows. */
    heat_world world;
    ck_assert_app(load_text(&world, "HPCEHeatWorldV0\n3 3 1E-1\n" PROPS
                            "-\n 0 0 0\n 0 .5 0\n 0 5e-1 1.\n" END));
    ck_assert(world.alpha == 0.1f && world.state[4] == 0.5f &&
              world.state[7] == 0.5f && world.state[8] == 1.0f);
    heat_world_free(&world);
}
END_TEST

START_TEST(reject_temperature_nan)
{
    /* Text has only decimal numbers; NaN comes from binary alone. */
    assert_rejected(HEADER PROPS "-\n 0 0 0\n 0 nan 0\n 0 1 0\n" END,
                    "line 9: temperature 'nan' at x=1, y=1 is not a number "
                    "(decimal digits with an optional fraction and "
                    "exponent)");
    assert_rejected(HEADER PROPS "-\n 0 0 0\n 0 -NaN 0\n 0 1 0\n" END,
                    "temperature '-NaN' at x=1, y=1 is not a number");
}
END_TEST

START_TEST(reject_truncated_properties)
{
    assert_rejected(HEADER "-\n 2 2 2\n 2 0 2\n" STATE END,
                    "line 6: truncated properties array: found '-' after 6 of "
                    "9 entries");
    assert_rejected(HEADER "-\n 2 2 2\n 2",
                    "truncated properties array: found the end of input "
                    "after 4 of 9 entries");
}
END_TEST

START_TEST(reject_truncated_state)
{
    assert_rejected(HEADER PROPS "-\n 0 0 0\n 0 0.5 0\n" END,
                    "line 10: truncated state array: found 'End' after 6 of 9 "
                    "entries");
    assert_rejected(HEADER PROPS "-\n 0 0 0\n 0 0.5",
                    "truncated state array: found the end of input after 5 "
                    "of 9");
}
END_TEST

START_TEST(reject_junk_in_properties)
{
    assert_rejected(HEADER "-\n 2 2 2\n 2 zero 2\n 2 1 2\n" STATE END,
                    "line 5: property 'zero' at x=1, y=1 is not a number");
    assert_rejected(HEADER "-\n 2 2 2\n 2 0x 2\n 2 1 2\n" STATE END,
                    "property '0x' at x=1, y=1 is not a number");
    assert_rejected(HEADER "-\n 2 2 2\n 2 1.0 2\n 2 1 2\n" STATE END,
                    "property '1.0' at x=1, y=1 is not a number");
}
END_TEST

START_TEST(reject_junk_in_state)
{
    assert_rejected(HEADER PROPS "-\n 0 0 0\n 0 0.5abc 0\n 0 1 0\n" END,
                    "line 9: temperature '0.5abc' at x=1, y=1 is not a "
                    "number");
    assert_rejected(HEADER PROPS "-\n 0 0 0\n 0 \x01\x02 0\n 0 1 0\n" END,
                    "temperature '?" "?' at x=1, y=1 is not a number");
}
END_TEST

START_TEST(reject_normal_cell_on_the_border)
{
    assert_rejected(HEADER "-\n 2 2 2\n 0 0 2\n 2 1 2\n" STATE END,
                    "line 5: flag value 0 at x=0, y=1 is a normal cell on "
                    "the border, which must be insulating (2) or fixed (1)");
    /* Fixed border cells are allowed. */
    heat_world world;
    ck_assert_app(load_text(&world, HEADER "-\n 1 2 1\n 1 0 2\n 1 1 1\n"
                           STATE END));
    heat_world_free(&world);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Malformed binary files                                                     */
/* ------------------------------------------------------------------------ */

/* The small world in binary: "...\n-" ends at 31, the '-' before the
 * temperatures is at 67, they start at 68, "End\n" at 104. */
enum { BIN_PROPS = 31, BIN_DASH2 = 67, BIN_STATE = 68, BIN_END = 104,
       BIN_LEN = 108 };

static void small_binary(unsigned char out[BIN_LEN])
{
    heat_world world;
    small_world(&world);
    size_t len;
    char *bin = saved(&world, 1, &len);
    ck_assert_uint_eq(len, BIN_LEN);
    ck_assert_int_eq(bin[BIN_PROPS - 1], '-');
    ck_assert_int_eq(bin[BIN_DASH2], '-');
    ck_assert_mem_eq(bin + BIN_END, "End\n", 4);
    memcpy(out, bin, BIN_LEN);
    free(bin);
    heat_world_free(&world);
}

static void put_word(unsigned char *p, uint32_t v)
{
    for (int b = 0; b < 4; b++)
        p[b] = (unsigned char)(v >> (8 * b));
}

static void put_float(unsigned char *p, float t)
{
    uint32_t v;
    memcpy(&v, &t, 4);
    put_word(p, v);
}

START_TEST(reject_binary_truncated_properties)
{
    unsigned char bin[BIN_LEN];
    small_binary(bin);
    assert_rejected_bytes(bin, BIN_PROPS + 10,
                          "truncated properties array: expected 36 bytes "
                          "from byte offset 31, found 10", (char *)NULL);
}
END_TEST

START_TEST(reject_binary_truncated_state)
{
    unsigned char bin[BIN_LEN];
    small_binary(bin);
    assert_rejected_bytes(bin, BIN_STATE + 20,
                          "truncated state array: expected 36 bytes from "
                          "byte offset 68, found 20", (char *)NULL);
    assert_rejected_bytes(bin, BIN_DASH2, "'-' before the temperatures",
                          (char *)NULL);
}
END_TEST

START_TEST(reject_binary_unknown_flag)
{
    static const uint32_t flags[] = {3, 4, 7, 0xffffffffu};
    for (int k = 0; k < 4; k++) {
        unsigned char bin[BIN_LEN];
        small_binary(bin);
        put_word(bin + BIN_PROPS + 4 * 4, flags[k]);   /* x=1, y=1 */
        char want[96];
        snprintf(want, sizeof want, "byte offset 47: flag value %u at x=1, "
                 "y=1 is unknown", flags[k]);
        assert_rejected_bytes(bin, BIN_LEN, want, (char *)NULL);
    }
}
END_TEST

START_TEST(reject_binary_bad_temperatures)
{
    unsigned char bin[BIN_LEN];
    small_binary(bin);
    put_float(bin + BIN_STATE + 4 * 5, 1.5f);          /* x=2, y=1 */
    assert_rejected_bytes(bin, BIN_LEN, "byte offset 88: temperature 1.5 at "
                          "x=2, y=1 is outside [0, 1]", (char *)NULL);
    put_float(bin + BIN_STATE + 4 * 5, -1e-20f);
    assert_rejected_bytes(bin, BIN_LEN, "at x=2, y=1 is outside [0, 1]",
                          (char *)NULL);
    put_float(bin + BIN_STATE + 4 * 5, -0.0f);
    assert_rejected_bytes(bin, BIN_LEN, "byte offset 88: temperature -0 at "
                          "x=2, y=1 is -0, a zero with a sign", (char *)NULL);
    put_float(bin + BIN_STATE + 4 * 5, NAN);
    assert_rejected_bytes(bin, BIN_LEN, "byte offset 88: temperature nan at "
                          "x=2, y=1 is not a number (NaN)", (char *)NULL);
}
END_TEST

START_TEST(reject_binary_missing_dashes)
{
    unsigned char bin[BIN_LEN];
    small_binary(bin);
    bin[BIN_PROPS - 1] = 'x';
    assert_rejected_bytes(bin, BIN_LEN, "byte offset 30: expected '-' before "
                          "the properties, found byte 0x78", (char *)NULL);
    small_binary(bin);
    bin[BIN_DASH2] = '+';
    assert_rejected_bytes(bin, BIN_LEN, "byte offset 67: expected '-' before "
                          "the temperatures, found byte 0x2b", (char *)NULL);
}
END_TEST

START_TEST(reject_binary_missing_end)
{
    unsigned char bin[BIN_LEN];
    small_binary(bin);
    assert_rejected_bytes(bin, BIN_END, "input ends where 'End' should be",
                          (char *)NULL);
    bin[BIN_END + 2] = 'x';
    assert_rejected_bytes(bin, BIN_LEN, "expected 'End' after the state "
                          "array, found 'Enx'", (char *)NULL);
}
END_TEST

START_TEST(reject_binary_normal_cell_on_the_border)
{
    unsigned char bin[BIN_LEN];
    small_binary(bin);
    put_word(bin + BIN_PROPS + 4 * 3, HEAT_CELL_NORMAL);   /* x=0, y=1 */
    assert_rejected_bytes(bin, BIN_LEN, "byte offset 43: flag value 0 at "
                          "x=0, y=1 is a normal cell on the border",
                          (char *)NULL);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Rendering                                                                  */
/* ------------------------------------------------------------------------ */

/* A 5 x 3 world whose BMP rows need a byte of padding (15 -> 16). */
static void colour_world(heat_world *world)
{
    ck_assert_app(heat_world_alloc(world, 5, 3, 0.1f));
    for (int i = 0; i < 15; i++)
        world->state[i] = (float)i / 14.0f;
    world->properties[0] = HEAT_CELL_INSULATOR;         /* (0,0) green */
    world->state[1] = 1.0f;                             /* (1,0) red */
    world->state[2 * 5 + 4] = 0.0f;                     /* (4,2) blue */
    world->state[1 * 5 + 2] = 0.5f;                     /* (2,1) 127,0,128 */
}

START_TEST(cell_colours_follow_the_ramp)
{
    heat_world world;
    colour_world(&world);
    uint8_t rgb[3];
    heat_world_cell_colour(&world, 0, rgb);
    ck_assert(rgb[0] == 0 && rgb[1] == 255 && rgb[2] == 0);
    heat_world_cell_colour(&world, 1, rgb);
    ck_assert(rgb[0] == 255 && rgb[1] == 0 && rgb[2] == 0);
    heat_world_cell_colour(&world, 14, rgb);
    ck_assert(rgb[0] == 0 && rgb[1] == 0 && rgb[2] == 255);
    heat_world_cell_colour(&world, 7, rgb);
    ck_assert(rgb[0] == 127 && rgb[1] == 0 && rgb[2] == 128);
    world.properties[7] = HEAT_CELL_FIXED;              /* fixed: the ramp */
    heat_world_cell_colour(&world, 7, rgb);
    ck_assert(rgb[0] == 127 && rgb[2] == 128);
    heat_world_free(&world);
}
END_TEST

static uint32_t le32(const unsigned char *p)
{
    return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

START_TEST(render_bmp_writes_an_upright_24_bit_image)
{
    heat_world world;
    colour_world(&world);
    const char *dir = fresh_dir("heat-render-bmp");
    char path[600];
    snprintf(path, sizeof path, "%s/world.bmp", dir);
    ck_assert_app(heat_world_render(&world, path));
    ck_assert_int_eq(entries_in(dir), 1);       /* no temporary left */

    size_t len;
    unsigned char *bmp = (unsigned char *)test_read_file(path, &len);
    ck_assert_uint_eq(len, 54 + 16 * 3);
    ck_assert(bmp[0] == 'B' && bmp[1] == 'M');
    ck_assert_uint_eq(le32(bmp + 2), len);      /* file size */
    ck_assert_uint_eq(le32(bmp + 10), 54);      /* pixel offset */
    ck_assert_uint_eq(le32(bmp + 14), 40);      /* BITMAPINFOHEADER */
    ck_assert_uint_eq(le32(bmp + 18), 5);       /* width */
    ck_assert_uint_eq(le32(bmp + 22), 3);       /* height > 0: bottom-up */
    ck_assert_uint_eq(bmp[26] | bmp[27] << 8, 1);   /* planes */
    ck_assert_uint_eq(bmp[28] | bmp[29] << 8, 24);  /* bits per pixel */
    ck_assert_uint_eq(le32(bmp + 30), 0);       /* no compression */
    ck_assert_uint_eq(le32(bmp + 34), 16 * 3);  /* image bytes */
    for (uint32_t y = 0; y < 3; y++) {
        const unsigned char *row = bmp + 54 + (2 - y) * 16;
        ck_assert_uint_eq(row[15], 0);          /* padding */
        for (uint32_t x = 0; x < 5; x++) {
            uint8_t rgb[3];
            heat_world_cell_colour(&world, y * 5 + x, rgb);
            ck_assert_msg(row[3 * x] == rgb[2] && row[3 * x + 1] == rgb[1] &&
                          row[3 * x + 2] == rgb[0], "pixel x=%u, y=%u", x, y);
        }
    }
    /* Row 0 is the top: its first pixel, green, is in the last row. */
    const unsigned char *top = bmp + 54 + 2 * 16;
    ck_assert(top[0] == 0 && top[1] == 255 && top[2] == 0);
    ck_assert(top[3] == 0 && top[4] == 0 && top[5] == 255);    /* red, BGR */
    free(bmp);

    /* The stream form writes the same bytes. */
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    ck_assert_app(heat_world_render_stream(&world, f, "bmp"));
    fclose(f);
    bmp = (unsigned char *)test_read_file(path, &len);
    ck_assert_uint_eq(size, len);
    ck_assert_mem_eq(buf, bmp, len);
    free(bmp);
    free(buf);
    heat_world_free(&world);
}
END_TEST

START_TEST(render_png_decodes_to_the_cell_colours)
{
    heat_world world;
    colour_world(&world);
    const char *dir = fresh_dir("heat-render-png");
    char path[600];
    snprintf(path, sizeof path, "%s/World.PNG", dir);     /* any case */
    ck_assert_app(heat_world_render(&world, path));
    ck_assert_int_eq(entries_in(dir), 1);

    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    ck_assert_msg(png_image_begin_read_from_file(&image, path), "%s",
                  image.message);
    ck_assert_uint_eq(image.width, 5);
    ck_assert_uint_eq(image.height, 3);
    ck_assert_uint_eq(image.format & PNG_FORMAT_FLAG_COLOR,
                      PNG_FORMAT_FLAG_COLOR);
    image.format = PNG_FORMAT_RGB;
    unsigned char *pixels = malloc(PNG_IMAGE_SIZE(image));
    ck_assert_msg(png_image_finish_read(&image, NULL, pixels, 0, NULL), "%s",
                  image.message);
    for (uint32_t i = 0; i < 15; i++) {
        uint8_t rgb[3];
        heat_world_cell_colour(&world, i, rgb);
        ck_assert_msg(memcmp(pixels + 3 * i, rgb, 3) == 0, "pixel %u", i);
    }
    /* A few by value: green corner, red, 50% and blue, row 0 on top. */
    ck_assert(pixels[0] == 0 && pixels[1] == 255 && pixels[2] == 0);
    ck_assert(pixels[3] == 255 && pixels[4] == 0 && pixels[5] == 0);
    ck_assert(pixels[3 * 7] == 127 && pixels[3 * 7 + 2] == 128);
    ck_assert(pixels[3 * 14] == 0 && pixels[3 * 14 + 2] == 255);
    free(pixels);
    png_image_free(&image);
    heat_world_free(&world);
}
END_TEST

START_TEST(render_refuses_unknown_extensions_and_leaves_nothing)
{
    heat_world world;
    colour_world(&world);
    const char *dir = fresh_dir("heat-render-ext");
    char path[600];
    static const char *names[] = {"world.jpg", "world", "world.bmp.txt",
                                  "world.", ".png.d/x"};
    for (int i = 0; i < 5; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        ck_assert_app_fails(heat_world_render(&world, path), APP_ERR_BAD_INPUT,
                            "must end in .bmp or .png");
        ck_assert_msg(strstr(app_last_error(), path) != NULL,
                      "message lacks the path: %s", app_last_error());
    }
    ck_assert_int_eq(entries_in(dir), 0);
    ck_assert_app_fails(heat_world_render_stream(&world, stdout, "gif"),
                        APP_ERR_BAD_INPUT, "accepted are bmp and png");
    heat_world_free(&world);
}
END_TEST

START_TEST(render_into_a_missing_or_unwritable_place_leaves_nothing)
{
    heat_world world;
    colour_world(&world);
    const char *dir = fresh_dir("heat-render-fail");
    char path[600];

    snprintf(path, sizeof path, "%s/missing/world.png", dir);
    ck_assert_app_fails(heat_world_render(&world, path), APP_ERR_IO,
                        "missing does not exist");
    ck_assert_ptr_nonnull(strstr(app_last_error(), "missing/world.png"));

    /* A folder where the image should go: refused, and no temporary
     * image left. */
    snprintf(path, sizeof path, "%s/taken.bmp", dir);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    ck_assert_app_fails(heat_world_render(&world, path), APP_ERR_IO,
                        "taken.bmp: is a folder");
    snprintf(path, sizeof path, "%s/taken.png", dir);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    ck_assert_app_fails(heat_world_render(&world, path), APP_ERR_IO,
                        "taken.png");
    ck_assert_int_eq(entries_in(dir), 2);       /* the two folders only */

    /* A folder without write permission (root writes anyway). */
    if (geteuid() != 0) {
        const char *locked = fresh_dir("heat-render-locked");
        ck_assert_int_eq(chmod(locked, 0500), 0);
        snprintf(path, sizeof path, "%s/world.bmp", locked);
        ck_assert_app_fails(heat_world_render(&world, path), APP_ERR_IO,
                            "Permission denied");
        ck_assert_int_eq(entries_in(locked), 0);
        chmod(locked, 0700);
    }
    heat_world_free(&world);
}
END_TEST

START_TEST(render_stream_reports_a_failed_write)
{
    FILE *full = fopen("/dev/full", "w");
    if (!full)
        return;
    heat_world world;
    ck_assert_app(heat_world_make_standard(&world, 40, 0.1f));
    ck_assert_app_fails(heat_world_render_stream(&world, full, "bmp"),
                        APP_ERR_IO, "BMP");
    clearerr(full);
    ck_assert_app_fails(heat_world_render_stream(&world, full, "png"),
                        APP_ERR_IO, "PNG");
    fclose(full);
    heat_world_free(&world);
}
END_TEST

Suite *heat_world_suite(void)
{
    Suite *s = suite_create("heat_world");
    TCase *tc = test_case("standard");
    tcase_add_test(tc, standard_world_10_matches_the_spec_cell_by_cell);
    tcase_add_test(tc, standard_worlds_33_and_100_follow_the_rules);
    tcase_add_test(tc, standard_worlds_of_every_small_size_are_valid);
    tcase_add_test(tc, alloc_refuses_zero_and_overflowing_sizes);
    tcase_add_test(tc, copy_is_equal_and_independent);
    tcase_add_test(tc, validate_names_the_bad_cell);
    tcase_add_test(tc, bad_words_are_found_anywhere_in_a_large_world);
    suite_add_tcase(s, tc);

    tc = test_case("formats");
    tcase_add_test(tc, text_format_is_the_seeds_byte_for_byte);
    tcase_add_test(tc, binary_format_is_the_seeds_byte_for_byte);
    tcase_add_test(tc, text_round_trip_is_exact);
    tcase_add_test(tc, binary_round_trip_is_exact);
    tcase_add_test(tc, worlds_larger_than_a_first_allocation_load_whole);
    tcase_add_test(tc, text_to_binary_to_text_is_exact);
    tcase_add_test(tc, temperatures_are_written_as_printf_writes_them);
    tcase_add_test(tc, loader_skips_any_whitespace_between_tokens);
    tcase_add_test(tc, load_stops_after_end_so_worlds_can_follow);
    tcase_add_test(tc, load_whole_refuses_anything_after_end);
    tcase_add_test(tc, load_file_reads_a_path_and_names_missing_files);
    tcase_add_test(tc, save_reports_a_failed_write);
    tcase_add_test(tc, save_and_load_widen_a_pipe);
    suite_add_tcase(s, tc);

    tc = test_case("malformed text");
    tcase_add_test(tc, reject_empty_input);
    tcase_add_test(tc, reject_unknown_header);
    tcase_add_test(tc, reject_nul_bytes);
    tcase_add_test(tc, reject_endless_words_and_whitespace);
    tcase_add_test(tc, reject_missing_size);
    tcase_add_test(tc, reject_zero_size);
    tcase_add_test(tc, reject_negative_size);
    tcase_add_test(tc, reject_sizes_whose_product_overflows);
    tcase_add_test(tc, reject_a_header_claiming_more_than_the_input_holds);
    tcase_add_test(tc, reject_bad_alpha);
    tcase_add_test(tc, reject_missing_dash_before_properties);
    tcase_add_test(tc, reject_missing_dash_before_state);
    tcase_add_test(tc, reject_missing_end);
    tcase_add_test(tc, reject_unknown_flag_3);
    tcase_add_test(tc, reject_unknown_flag_4);
    tcase_add_test(tc, reject_unknown_flag_7);
    tcase_add_test(tc, reject_unknown_huge_flag);
    tcase_add_test(tc, reject_temperature_above_1);
    tcase_add_test(tc, reject_temperature_below_0);
    tcase_add_test(tc, reject_temperature_nan);
    tcase_add_test(tc, reject_numbers_the_format_does_not_write);
    tcase_add_test(tc, reject_truncated_properties);
    tcase_add_test(tc, reject_truncated_state);
    tcase_add_test(tc, reject_junk_in_properties);
    tcase_add_test(tc, reject_junk_in_state);
    tcase_add_test(tc, reject_normal_cell_on_the_border);
    suite_add_tcase(s, tc);

    tc = test_case("malformed binary");
    tcase_add_test(tc, reject_binary_truncated_properties);
    tcase_add_test(tc, reject_binary_truncated_state);
    tcase_add_test(tc, reject_binary_unknown_flag);
    tcase_add_test(tc, reject_binary_bad_temperatures);
    tcase_add_test(tc, reject_binary_missing_dashes);
    tcase_add_test(tc, reject_binary_missing_end);
    tcase_add_test(tc, reject_binary_normal_cell_on_the_border);
    suite_add_tcase(s, tc);

    tc = test_case("render");
    tcase_add_test(tc, cell_colours_follow_the_ramp);
    tcase_add_test(tc, render_bmp_writes_an_upright_24_bit_image);
    tcase_add_test(tc, render_png_decodes_to_the_cell_colours);
    tcase_add_test(tc, render_refuses_unknown_extensions_and_leaves_nothing);
    tcase_add_test(tc, render_into_a_missing_or_unwritable_place_leaves_nothing);
    tcase_add_test(tc, render_stream_reports_a_failed_write);
    suite_add_tcase(s, tc);
    return s;
}
