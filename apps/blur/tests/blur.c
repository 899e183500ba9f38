/*
 * blur.c: the image blur (apps/blur). Every version against the C
 * reference byte for byte on random RGBA images of odd sizes (1 x 1, one
 * pixel wide or high, around the work-group and the fast version's tile),
 * at pass counts below, at, above and not a multiple of the fast
 * version's passes per launch, and 100; the rule's edges and corners
 * computed by hand; alpha kept; launches counted; and bin/blur: RGB,
 * RGBA, grey and palette files, and every kind of bad file or argument
 * refused with no output left behind.
 */
#include "common/tests/testing.h"
#include "blur/blur.h"
#include "common/image.h"

#include <png.h>
#include <stdlib.h>
#include <string.h>

static const blur_version versions[] = {BLUR_OPENMP, BLUR_SEED, BLUR_DOUBLE,
                                        BLUR_FAST};
enum { NVERSIONS = sizeof versions / sizeof versions[0] };

/* blur_run on the context test_run_context gives (a fresh one under
 * Oclgrind). */
static int run_checked(blur_image *img, unsigned passes, blur_version v,
                       app_timing *stats)
{
    if (!app_version_uses_opencl(&blur_versions, v))
        return blur_run(img, passes, v, NULL, stats);
    clctx *own = test_run_context();
    int rc = blur_run(img, passes, v, own, stats);
    clctx_free(own);
    return rc;
}

/* Blurs copies of img with v and the reference; asserts equal bytes. */
static void assert_matches_reference(const blur_image *img, unsigned passes,
                                     blur_version v)
{
    blur_image want, got;
    ck_assert_app(blur_image_copy(&want, img));
    ck_assert_app(blur_image_copy(&got, img));
    ck_assert_app(blur_run(&want, passes, BLUR_REFERENCE, NULL, NULL));
    int rc = run_checked(&got, passes, v, NULL);
    ck_assert_msg(rc == 0, "%s: %s", app_version_name(&blur_versions, v),
                  app_last_error());
    size_t n = (size_t)img->width * img->height * 4;
    if (memcmp(want.rgba, got.rgba, n) != 0) {
        size_t i = 0;
        while (want.rgba[i] == got.rgba[i])
            i++;
        ck_abort_msg("%u x %u, %s, %u passes: pixel x=%zu y=%zu channel "
                     "%zu is %u, the reference has %u", img->width,
                     img->height, app_version_name(&blur_versions, v), passes,
                     i / 4 % img->width, i / 4 / img->width, i % 4,
                     got.rgba[i], want.rgba[i]);
    }
    blur_image_free(&want);
    blur_image_free(&got);
}

static void make_random_image(blur_image *img, uint32_t w, uint32_t h,
                              uint32_t seed)
{
    ck_assert_app(blur_image_alloc(img, w, h));
    uint32_t s = seed;
    for (size_t i = 0; i < (size_t)w * h * 4; i++)
        img->rgba[i] = (uint8_t)test_random(&s);
}

/* Odd sizes: a lone pixel, one pixel wide or high, 2 x 2, around the
 * 32 x 8 work-group, and (from the 12th, past a checked run's) around the
 * fast version's 56-pixel output block (64 x 64 tiles with a halo of 4),
 * and a few tiles each way. */
static const uint32_t sizes[][2] = {
    {1, 1}, {1, 9}, {9, 1}, {2, 2}, {3, 5}, {15, 16}, {16, 15}, {17, 17},
    {37, 23}, {61, 9}, {9, 61},
    {31, 33}, {33, 31}, {56, 57}, {57, 56}, {113, 70}, {200, 130}};
/* 1 and 5 (not a multiple), then below, at and above the fast version's
 * 4 passes per launch, 9, and the seed's 100. */
static const unsigned counts[] = {1, 5, 0, 2, 3, 4, 9, 100};
enum { NSIZES = sizeof sizes / sizeof sizes[0],
       NCOUNTS = sizeof counts / sizeof counts[0] };

/* The sizes per run (support.h): the first how many of the lists above,
 * and of the interior tiles' pass counts; the flat image's. */
static const struct {
    int images, counts, interior_passes;
    uint32_t flat_w, flat_h;
    unsigned flat_passes;
} run_sizes[] = {
    [TEST_FULL]    = {NSIZES, NCOUNTS, 5, 75, 66, 100},
    [TEST_CHECKED] = {11, 2, 1, 13, 11, 5},
};

START_TEST(random_images_match_reference)
{
    const uint32_t *n = sizes[_i];
    blur_image img;
    make_random_image(&img, n[0], n[1], 4321 + _i);
    for (int v = 0; v < NVERSIONS; v++)
        for (int c = 0; c < RUN_SIZE(counts); c++) {
            assert_matches_reference(&img, counts[c], versions[v]);
        }
    blur_image_free(&img);
}
END_TEST

/* The fast version's tiles that the image's border does not cross take
 * a path of their own (packed arithmetic): 120 x 118 has one, the tile
 * whose output block starts at (56, 56). With the fast version alone. */
START_TEST(fast_interior_tiles_match_reference)
{
    blur_image img;
    make_random_image(&img, 120, 118, 97);
    static const unsigned passes[] = {5, 1, 3, 4, 9};
    for (int c = 0; c < RUN_SIZE(interior_passes); c++)
        assert_matches_reference(&img, passes[c], BLUR_FAST);
    blur_image_free(&img);
}
END_TEST

START_TEST(fast_passes_per_launch_is_four)
{
    /* The counts above were chosen around it. */
    ck_assert_uint_eq(blur_fast_passes_per_launch(), 4);
}
END_TEST

/* Checks one pass over a w x h image whose R and B are `in`, G is 7 and
 * alpha 100 + i, by every version and the reference, against `want`. */
static void assert_one_pass(uint32_t w, uint32_t h, const uint8_t *in,
                            const uint8_t *want)
{
    blur_image img;
    ck_assert_app(blur_image_alloc(&img, w, h));
    for (uint32_t i = 0; i < w * h; i++) {
        uint8_t *p = img.rgba + 4 * i;
        p[0] = p[2] = in[i];
        p[1] = 7;
        p[3] = (uint8_t)(100 + i);
    }
    for (int v = 0; v < BLUR_VERSION_COUNT; v++) {
        blur_image got;
        ck_assert_app(blur_image_copy(&got, &img));
        ck_assert_app(run_checked(&got, 1, (blur_version)v, NULL));
        for (uint32_t i = 0; i < w * h; i++) {
            const uint8_t *p = got.rgba + 4 * i;
            ck_assert_msg(p[0] == want[i] && p[2] == want[i] && p[1] == 7 &&
                          p[3] == 100 + i, "%s, %u x %u, pixel x=%u y=%u: "
                          "%u %u %u %u, want %u 7 %u %u",
                          app_version_name(&blur_versions, v), w, h, i % w, i / w, p[0],
                          p[1], p[2], p[3], want[i], want[i], 100 + i);
        }
        blur_image_free(&got);
    }
    blur_image_free(&img);
}

START_TEST(edges_and_corners_follow_the_rule)
{
    /* 3 x 3: corners average 2 neighbours, edges 3, the centre 4, each
     * (sum + count / 2) / count: halves round up (61 / 2 -> 31), thirds
     * down (130 / 3 -> 43, 211 / 3 -> 70). */
    static const uint8_t in3[] = {10, 20, 30,
                                  41, 50, 60,
                                  70, 80, 91};
    static const uint8_t want3[] = {31, 30, 40,     /* 61/2 90/3 80/2 */
                                    43, 50, 57,     /* 130/3 201/4 171/3 */
                                    61, 70, 70};    /* 121/2 211/3 140/2 */
    assert_one_pass(3, 3, in3, want3);
    /* One pixel wide: the ends have one neighbour, the middle two. */
    static const uint8_t in13[] = {10, 20, 31};
    static const uint8_t want13[] = {20, 21, 20};   /* 20 41/2 20 */
    assert_one_pass(1, 3, in13, want13);
    assert_one_pass(3, 1, in13, want13);
    /* Two pixels: each takes the other's value. */
    static const uint8_t in2[] = {5, 250};
    static const uint8_t want2[] = {250, 5};
    assert_one_pass(2, 1, in2, want2);
    assert_one_pass(1, 2, in2, want2);
    /* A lone pixel has no neighbours and keeps its value. */
    static const uint8_t in1[] = {77};
    assert_one_pass(1, 1, in1, in1);
}
END_TEST

START_TEST(alpha_is_kept_and_a_flat_image_stays_flat)
{
    uint32_t w = RUN_SIZE(flat_w), h = RUN_SIZE(flat_h);
    unsigned passes = RUN_SIZE(flat_passes);
    blur_image img;
    make_random_image(&img, w, h, 99);
    for (int v = 0; v < BLUR_VERSION_COUNT; v++) {
        blur_image got;
        ck_assert_app(blur_image_copy(&got, &img));
        ck_assert_app(run_checked(&got, passes, (blur_version)v, NULL));
        for (size_t i = 3; i < (size_t)w * h * 4; i += 4)
            ck_assert_msg(got.rgba[i] == img.rgba[i], "%s: alpha of pixel "
                          "%zu is %u, was %u", app_version_name(&blur_versions, v), i / 4,
                          got.rgba[i], img.rgba[i]);
        blur_image_free(&got);
    }
    /* Every pixel equal: each average is that value. */
    for (size_t i = 0; i < (size_t)w * h * 4; i++)
        img.rgba[i] = i % 4 == 3 ? 200 : (uint8_t)(60 + i % 4);
    for (int v = 0; v < BLUR_VERSION_COUNT; v++) {
        blur_image got;
        ck_assert_app(blur_image_copy(&got, &img));
        ck_assert_app(run_checked(&got, passes, (blur_version)v, NULL));
        ck_assert_msg(memcmp(got.rgba, img.rgba, (size_t)w * h * 4) == 0,
                      "%s changed a flat image", app_version_name(&blur_versions, v));
        blur_image_free(&got);
    }
    blur_image_free(&img);
}
END_TEST

START_TEST(stats_count_launches)
{
    blur_image img;
    make_random_image(&img, 20, 20, 5);
    app_timing s = {.want_kernel_time = 1};
    ck_assert_app(run_checked(&img, 10, BLUR_SEED, &s));
    ck_assert_uint_eq(s.launches, 20);   /* blur + copy each */
    ck_assert_app(run_checked(&img, 10, BLUR_DOUBLE, &s));
    ck_assert_uint_eq(s.launches, 10);
    ck_assert_app(run_checked(&img, 10, BLUR_FAST, &s));
    ck_assert_uint_eq(s.launches, 3);    /* 4 + 4 + 2 */
    ck_assert_msg(s.kernel_ms > 0, "kernel time %g",
                  s.kernel_ms);
    ck_assert_app(run_checked(&img, 0, BLUR_FAST, &s));
    ck_assert_uint_eq(s.launches, 0);
    blur_image_free(&img);
}
END_TEST

START_TEST(bad_images_and_names_are_refused)
{
    blur_image img;
    ck_assert_app_fails(blur_image_alloc(&img, 0, 5), APP_ERR_BAD_INPUT,
                        "1 to");
    ck_assert_app_fails(blur_image_alloc(&img, 1u << 15, 1u << 14),
                        APP_ERR_BAD_INPUT, "1 to");
    ck_assert_app_fails(blur_run(NULL, 1, BLUR_FAST, NULL, NULL),
                        APP_ERR_USAGE, "no image");
    ck_assert_app(blur_image_alloc(&img, 4, 4));
    ck_assert_app_fails(blur_run(&img, 1, BLUR_VERSION_COUNT, NULL, NULL),
                        APP_ERR_BAD_INPUT, "no version");
    blur_image_free(&img);
    for (int v = 0; v < BLUR_VERSION_COUNT; v++)
        ck_assert_int_eq(app_version_parse(&blur_versions, app_version_name(&blur_versions, v)), v);
    ck_assert_int_eq(app_version_parse(&blur_versions, "v7"), -1);
    ck_assert_int_eq(app_version_parse(&blur_versions, NULL), -1);
}
END_TEST

/* ---- the program --------------------------------------------------------- */

static const char *tmp(const char *name)
{
    return test_tmp_path("blur", name);
}

/* Writes a w x h PNG of libpng colour type `type` at depth 8 from random
 * bytes (channels per pixel); palette images use 4 colours. */
static const char *write_png(const char *name, uint32_t w, uint32_t h,
                             int type, int channels)
{
    uint8_t *pixels = malloc((size_t)w * h * channels);
    ck_assert_ptr_nonnull(pixels);
    uint32_t s = w * 31 + h;
    for (size_t i = 0; i < (size_t)w * h * channels; i++)
        pixels[i] = (uint8_t)(type == PNG_COLOR_TYPE_PALETTE
                              ? test_random(&s) % 4 : test_random(&s));
    const char *path = test_write_png(tmp(name), w, h, type, pixels,
                                      channels);
    free(pixels);
    return path;
}

/* The colour type byte of a PNG file's IHDR. */
static int png_colour_type(const char *path)
{
    size_t n;
    char *data = test_read_file(path, &n);
    ck_assert_uint_ge(n, 26);
    int type = (uint8_t)data[25];
    free(data);
    return type;
}

/* Runs bin/blur on `in` and checks its output against the library's
 * reference on the same file, and its colour type: RGB or RGBA. */
static void assert_program_blurs(const char *in, unsigned passes,
                                 const char *version, int want_type)
{
    const char *out = tmp("out.png");
    remove(out);
    ck_assert_int_eq(test_run("%s %s %s --passes %u --version %s "
                              "2>/dev/null", test_program("blur"), in, out,
                              passes, version), 0);
    blur_image want, got;
    ck_assert_app(blur_image_load(&want, in));
    ck_assert_app(blur_run(&want, passes, BLUR_REFERENCE, NULL, NULL));
    ck_assert_app(blur_image_load(&got, out));
    ck_assert(got.width == want.width && got.height == want.height);
    ck_assert_int_eq(got.has_alpha, want.has_alpha);
    ck_assert_msg(memcmp(got.rgba, want.rgba,
                         (size_t)got.width * got.height * 4) == 0,
                  "%s from %s differs from the reference", out, in);
    ck_assert_int_eq(png_colour_type(out), want_type);
    blur_image_free(&want);
    blur_image_free(&got);
}

START_TEST(program_keeps_the_input_format)
{
    /* tmp()'s buffers are reused, so the paths are kept here. */
    char rgb[512], rgba[512], grey[512], grey_alpha[512], palette[512];
    snprintf(rgb, sizeof rgb, "%s",
             write_png("rgb.png", 23, 17, PNG_COLOR_TYPE_RGB, 3));
    snprintf(rgba, sizeof rgba, "%s",
             write_png("rgba.png", 23, 17, PNG_COLOR_TYPE_RGBA, 4));
    snprintf(grey, sizeof grey, "%s",
             write_png("grey.png", 9, 12, PNG_COLOR_TYPE_GRAY, 1));
    snprintf(grey_alpha, sizeof grey_alpha, "%s",
             write_png("ga.png", 9, 12, PNG_COLOR_TYPE_GRAY_ALPHA, 2));
    snprintf(palette, sizeof palette, "%s",
             write_png("pal.png", 14, 5, PNG_COLOR_TYPE_PALETTE, 1));
    assert_program_blurs(rgb, 3, "fast", PNG_COLOR_TYPE_RGB);
    assert_program_blurs(rgba, 5, "double", PNG_COLOR_TYPE_RGBA);
    assert_program_blurs(rgba, 2, "seed", PNG_COLOR_TYPE_RGBA);
    assert_program_blurs(rgb, 4, "openmp", PNG_COLOR_TYPE_RGB);
    assert_program_blurs(grey, 2, "reference", PNG_COLOR_TYPE_RGB);
    assert_program_blurs(grey_alpha, 2, "fast", PNG_COLOR_TYPE_RGBA);
    assert_program_blurs(palette, 1, "fast", PNG_COLOR_TYPE_RGB);
    assert_program_blurs(rgba, 0, "fast", PNG_COLOR_TYPE_RGBA);
    /* Alpha comes out as it went in. */
    blur_image in, out;
    ck_assert_app(blur_image_load(&in, rgba));
    ck_assert_int_eq(test_run("%s %s %s --passes 7 2>/dev/null",
                              test_program("blur"), rgba, tmp("a.png")), 0);
    ck_assert_app(blur_image_load(&out, tmp("a.png")));
    for (size_t i = 3; i < (size_t)in.width * in.height * 4; i += 4)
        ck_assert_uint_eq(out.rgba[i], in.rgba[i]);
    blur_image_free(&in);
    blur_image_free(&out);
}
END_TEST

/* Writes `size` bytes of data as tmp(name). */
static const char *write_bytes(const char *name, const char *data,
                               size_t size)
{
    const char *path = tmp(name);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, size, f), size);
    fclose(f);
    return path;
}

/* bin/blur on a bad input: exit 1, a message naming it, the output
 * (which holds "keep") untouched and no other file beside it. */
static void assert_refused(const char *in, const char *what)
{
    const char *out = write_bytes("kept.png", "keep", 4), *err = tmp("err");
    int status = test_run("%s %s %s --passes 2 2> %s", test_program("blur"),
                          in, out, err);
    ck_assert_msg(status == 1, "%s: exit status %d, expected 1", what,
                  status);
    size_t n;
    char *text = test_read_file(err, &n);
    ck_assert_msg(strstr(text, in), "%s: the message does not name %s: %s",
                  what, in, text);
    free(text);
    char *left = test_read_file(out, &n);
    ck_assert_msg(n == 4 && !memcmp(left, "keep", 4), "%s: %s was "
                  "overwritten", what, out);
    free(left);
    const char *fresh = tmp("fresh.png");
    remove(fresh);
    ck_assert_int_eq(test_run("%s %s %s --passes 2 2>/dev/null",
                              test_program("blur"), in, fresh), 1);
    ck_assert_msg(test_run("test -e %s", fresh) != 0, "%s left %s", what,
                  fresh);
    /* No temporary left in the folder either. */
    ck_assert_msg(test_run("ls -a %s | grep -q 'blur-fresh.png.'",
                           test_tmpdir()) != 0, "%s left a temporary", what);
}

START_TEST(program_refuses_bad_files)
{
    const char *good = write_png("good.png", 20, 20, PNG_COLOR_TYPE_RGB, 3);
    size_t n;
    char *data = test_read_file(good, &n);
    assert_refused(tmp("missing.png"), "a missing file");
    assert_refused(write_bytes("empty.png", "", 0), "an empty file");
    assert_refused(write_bytes("text.png", "hello, world\n", 13),
                   "a text file");
    /* Cut inside the signature, the header, the image data, and just
     * before the end chunk. */
    const size_t cuts[] = {4, 8, 20, 40, n / 2, n - 20, n - 12, n - 1};
    for (size_t c = 0; c < sizeof cuts / sizeof *cuts; c++) {
        char name[32], what[48];
        snprintf(name, sizeof name, "cut%zu.png", cuts[c]);
        snprintf(what, sizeof what, "a PNG cut at %zu of %zu bytes", cuts[c],
                 n);
        assert_refused(write_bytes(name, data, cuts[c]), what);
    }
    /* A byte changed in the header's width, then one in the image data:
     * each chunk's CRC no longer matches. */
    char *idat = NULL;
    for (size_t i = 0; i + 4 <= n && !idat; i++)
        if (!memcmp(data + i, "IDAT", 4))
            idat = data + i;
    ck_assert_ptr_nonnull(idat);
    data[18] ^= 0x01;
    assert_refused(write_bytes("bad-header.png", data, n), "a bad header");
    data[18] ^= 0x01;
    idat[4 + 10] ^= 0x40;
    assert_refused(write_bytes("bad-data.png", data, n), "bad image data");
    free(data);
}
END_TEST

/* The reader skips ancillary chunks unread, all but tRNS, which makes a
 * palette image's pixels transparent: a 2 x 1 palette image with a text
 * chunk and a tRNS chunk making colour 1 transparent. */
START_TEST(png_reader_keeps_trns_and_skips_text)
{
    const char *path = tmp("trns.png");
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL,
                                              NULL, NULL);
    png_infop info = png_create_info_struct(png);
    ck_assert(png && info);
    png_init_io(png, f);
    png_set_IHDR(png, info, 2, 1, 8, PNG_COLOR_TYPE_PALETTE,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_color palette[2] = {{10, 20, 30}, {40, 50, 60}};
    png_byte alpha[2] = {255, 0};
    png_text text = {PNG_TEXT_COMPRESSION_NONE, "Comment", "skipped", 7,
                     0, NULL, NULL};
    png_set_PLTE(png, info, palette, 2);
    png_set_tRNS(png, info, alpha, 2, NULL);
    png_set_text(png, info, &text, 1);
    png_write_info(png, info);
    png_write_row(png, (png_const_bytep)"\0\1");
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    fclose(f);
    uint32_t w, h;
    uint8_t *rgba;
    int has_alpha;
    ck_assert_app(image_png_load_alpha(path, &w, &h, &rgba, &has_alpha));
    static const uint8_t expected[8] = {10, 20, 30, 255, 40, 50, 60, 0};
    ck_assert(w == 2 && h == 1 && has_alpha);
    ck_assert_mem_eq(rgba, expected, 8);
    free(rgba);
}
END_TEST

/* A 1 x 1 PNG whose tEXt chunk claims 1.6 GB and holds 9 bytes (the
 * IHDR chunk's CRC is right, so libpng reads on). libpng 1.6 allocated
 * and zeroed the whole claim before finding the file short: 1.5 GB
 * resident and over a second, for a 50-byte file. */
static const char claims_a_huge_chunk[] = {
    '\x89', 'P', 'N', 'G', '\r', '\n', '\x1a', '\n',
    0, 0, 0, 13, 'I', 'H', 'D', 'R', 0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0,
    '\x90', '\x77', '\x53', '\xde',
    '\x5f', '\x5e', '\x10', '\x00', 't', 'E', 'X', 't',   /* 1600000000 */
    'C', 'o', 'm', 'm', 'e', 'n', 't', 0, 'x',
};

START_TEST(program_refuses_a_huge_chunk_in_little_memory)
{
    const char *in = write_bytes("huge-chunk.png", claims_a_huge_chunk,
                                 sizeof claims_a_huge_chunk);
    const char *out = tmp("huge-chunk-out.png"), *err = tmp("err");
    remove(out);
    /* The baseline: the same run on a small good file. */
    const char *good = write_png("huge-chunk-good.png", 4, 4,
                                 PNG_COLOR_TYPE_RGB, 3);
    const char *argv[] = {test_program("blur"), good, out, "--passes", "1",
                          "--version", "reference", NULL};
    test_exit base = test_spawn(argv, NULL, err, 60, 0);
    ck_assert_int_eq(base.status, 0);
    remove(out);
    argv[1] = in;
    test_exit e = test_spawn(argv, NULL, err, 60, 0);
    ck_assert_msg(!e.timed_out && e.status == 1, "exit status %d%s",
                  e.status, e.timed_out ? " (killed: too slow)" : "");
    ck_assert_msg(e.max_rss_kib < base.max_rss_kib + 64 * 1024, "blur took "
                  "%ld KiB for a %zu-byte file, %ld for a good one",
                  e.max_rss_kib, sizeof claims_a_huge_chunk,
                  base.max_rss_kib);
    size_t n;
    char *text = test_read_file(err, &n);
    ck_assert_msg(strstr(text, in), "said: %s", text);
    free(text);
    ck_assert_msg(test_run("test -e %s", out) != 0, "left %s", out);
}
END_TEST

START_TEST(program_refuses_bad_arguments)
{
    const char *in = write_png("args.png", 6, 5, PNG_COLOR_TYPE_RGB, 3);
    const char *out = tmp("args-out.png"), *err = tmp("err");
    char args[20][160];
    static const struct {
        const char *format;
        const char *message;
    } cases[] = {
        {"", "name the input and the output"},
        {"%s", "name the input and the output"},
        {"%s %s", "give --passes N"},
        {"%s %s --passes -1", "not a count"},
        {"%s %s --passes x", "not a count"},
        {"%s %s --passes 2 --version v9", "expected reference"},
        {"%s %s --passes 2 --frobnicate 1", "unknown option"},
        {"%s %s extra.png --passes 2", "only IN.png and OUT.png"},
        {"%s %s --passes", "a value is missing"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        remove(out);
        snprintf(args[i], sizeof args[i], cases[i].format, in, out);
        int status = test_run("%s %s 2> %s", test_program("blur"), args[i],
                              err);
        ck_assert_msg(status == 2, "\"%s\": exit status %d, expected 2",
                      args[i], status);
        size_t n;
        char *text = test_read_file(err, &n);
        ck_assert_msg(strstr(text, cases[i].message), "\"%s\" said: %s",
                      args[i], text);
        free(text);
        ck_assert_msg(test_run("test -e %s", out) != 0, "\"%s\" left %s",
                      args[i], out);
    }
    /* A device that is not there is a failure, not a crash. */
    ck_assert_int_eq(test_run("%s %s %s --passes 1 --device no-such-device "
                              "2> %s", test_program("blur"), in, out, err),
                     1);
    ck_assert_msg(test_run("test -e %s", out) != 0, "--device left %s", out);
    ck_assert_int_eq(test_run("%s --help > %s", test_program("blur"), err),
                     0);
}
END_TEST

/* What the program writes to standard output is its result: lost there
 * ("> /dev/full"), it is a failure with a message, not exit status 0. */
START_TEST(the_program_fails_when_its_output_is_lost)
{
    static const char *const blur_args[] = {
        "--help",
        NULL};
    test_assert_lost_output_fails("blur", blur_args);
}
END_TEST

Suite *blur_suite(void)
{
    Suite *s = suite_create("blur");
    TCase *tc = test_case("against the reference");
    tcase_add_loop_test(tc, random_images_match_reference, 0,
                        RUN_SIZE(images));
    tcase_add_test(tc, fast_interior_tiles_match_reference);
    tcase_add_test(tc, fast_passes_per_launch_is_four);
    tcase_add_test(tc, edges_and_corners_follow_the_rule);
    tcase_add_test(tc, alpha_is_kept_and_a_flat_image_stays_flat);
    tcase_add_test(tc, stats_count_launches);
    tcase_add_test(tc, bad_images_and_names_are_refused);
    suite_add_tcase(s, tc);
    /* Child processes would reopen Oclgrind's log: not under it. */
    TCase *programs = test_case("program");
    tcase_set_tags(programs, "no-oclgrind");
    tcase_add_test(programs, program_keeps_the_input_format);
    tcase_add_test(programs, program_refuses_bad_files);
    tcase_add_test(programs, png_reader_keeps_trns_and_skips_text);
    tcase_add_test(programs, program_refuses_a_huge_chunk_in_little_memory);
    tcase_add_test(programs, program_refuses_bad_arguments);
    tcase_add_test(programs, the_program_fails_when_its_output_is_lost);
    suite_add_tcase(s, programs);
    return s;
}
