/*
 * raytracer_scene.c: the raytracer's scenes (apps/raytracer/scene.c
 * and generate.c): the text format read into the structs the device sees,
 * every malformed line refused with its line number and what was expected
 * (and the scene left empty), saving and loading again bit for bit, the
 * generated test scene by its documented rule, and the shipped scenes.
 */
#include "common/tests/testing.h"

#include "raytracer/raytracer.h"

#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCENES "apps/raytracer/scenes/"

/* The example of README "Scene files". */
static const char example[] =
    "# comment: '#' to the end of the line, anywhere; blank lines ignored\n"
    "camera     position 0 4 -12  look_at 0 1 0  up 0 1 0  fov 60\n"
    "background 0.05 0.05 0.1\n"
    "ambient    0.1\n"
    "depth      4\n"
    "material   ground  colour 0.8 0.8 0.8  reflect 0.2  specular 0  "
    "shininess 1\n"
    "material   red     colour 1 0.2 0.2  specular 0.5  shininess 40\n"
    "light      position 5 10 -5  colour 1 1 1\n"
    "sphere     centre 0 1 0  radius 1  material red\n"
    "plane      normal 0 1 0  offset 0  material ground\n";

static const char *const shipped[] = {"simple.txt", "mirrors.txt",
                                      "shadows.txt", "spheres1000.txt"};

/* ------------------------------------------------------------------------ */
/* Helpers                                                                    */
/* ------------------------------------------------------------------------ */

static int parse(rt_scene *s, const char *text)
{
    return rt_scene_parse(s, text, "t.txt");
}

static void assert_vec3(const float *v, float x, float y, float z)
{
    ck_assert_msg(v[0] == x && v[1] == y && v[2] == z,
                  "(%.9g, %.9g, %.9g) is not (%.9g, %.9g, %.9g)", v[0], v[1],
                  v[2], x, y, z);
}

/* The scene rt_scene_init makes: defaults, no arrays. */
static void assert_empty(const rt_scene *s)
{
    assert_vec3(s->camera.position, 0, 1, -5);
    assert_vec3(s->camera.look_at, 0, 0, 0);
    assert_vec3(s->camera.up, 0, 1, 0);
    ck_assert(s->camera.fov_degrees == 60.0f);
    assert_vec3(s->background, 0, 0, 0);
    ck_assert(s->ambient == 0.1f);
    ck_assert_int_eq(s->max_depth, 3);
    ck_assert_ptr_null(s->materials);
    ck_assert_ptr_null(s->material_names);
    ck_assert_ptr_null(s->spheres);
    ck_assert_ptr_null(s->sphere_material);
    ck_assert_ptr_null(s->planes);
    ck_assert_ptr_null(s->lights);
    ck_assert_uint_eq(s->n_materials + s->n_spheres + s->n_planes +
                      s->n_lights, 0);
}

/* n elements of a and b hold the same bytes (NULL arrays when n is 0). */
static int same(const void *a, const void *b, size_t n, size_t size)
{
    return n == 0 || memcmp(a, b, n * size) == 0;
}

/* a and b are the same scene, bit for bit. */
static void assert_same_scene(const rt_scene *a, const rt_scene *b)
{
    ck_assert(memcmp(&a->camera, &b->camera, sizeof a->camera) == 0);
    ck_assert(memcmp(a->background, b->background, sizeof a->background) == 0);
    ck_assert(memcmp(&a->ambient, &b->ambient, sizeof a->ambient) == 0);
    ck_assert_int_eq(a->max_depth, b->max_depth);
    ck_assert_uint_eq(a->n_materials, b->n_materials);
    ck_assert_uint_eq(a->n_spheres, b->n_spheres);
    ck_assert_uint_eq(a->n_planes, b->n_planes);
    ck_assert_uint_eq(a->n_lights, b->n_lights);
    ck_assert(same(a->materials, b->materials, a->n_materials,
                   sizeof *a->materials));
    ck_assert(same(a->material_names, b->material_names, a->n_materials,
                   sizeof *a->material_names));
    ck_assert(same(a->spheres, b->spheres, a->n_spheres, sizeof *a->spheres));
    ck_assert(same(a->sphere_material, b->sphere_material, a->n_spheres,
                   sizeof *a->sphere_material));
    ck_assert(same(a->planes, b->planes, a->n_planes, sizeof *a->planes));
    ck_assert(same(a->lights, b->lights, a->n_lights, sizeof *a->lights));
}

/* What rt_scene_save writes (caller frees). */
static char *saved(const rt_scene *s)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    ck_assert_app(rt_scene_save(s, f));
    fclose(f);
    return text;
}

/* Saves s, loads the text again, and checks the scene and that saving
 * that gives the same text. */
static void assert_round_trip(const rt_scene *s)
{
    char *text = saved(s);
    rt_scene back;
    ck_assert_app(rt_scene_parse(&back, text, "saved"));
    assert_same_scene(s, &back);
    char *again = saved(&back);
    ck_assert_str_eq(text, again);
    rt_scene_free(&back);
    free(text);
    free(again);
}

/* Loading text must fail with APP_ERR_BAD_INPUT and a message that
 * starts "t.txt:LINE: " and contains every text (NULL-terminated); the
 * scene, garbage before, must be left empty. */
static void assert_rejected_at(const char *text, int line, ...)
{
    rt_scene s;
    memset(&s, 0x5a, sizeof s);
    char where[32];
    snprintf(where, sizeof where, "t.txt:%d: ", line);
    ck_assert_app_fails(parse(&s, text), APP_ERR_BAD_INPUT, where);
    ck_assert_msg(strncmp(app_last_error(), where, strlen(where)) == 0,
                  "message does not start with \"%s\": %s", where,
                  app_last_error());
    va_list ap;
    va_start(ap, line);
    for (const char *t; (t = va_arg(ap, const char *)) != NULL;)
        ck_assert_msg(strstr(app_last_error(), t) != NULL,
                      "message lacks \"%s\": %s", t, app_last_error());
    va_end(ap);
    assert_empty(&s);
}

#define assert_rejected(text, line, ...) \
    assert_rejected_at((text), (line), __VA_ARGS__, (const char *)NULL)

/* A material line to put before objects that use "m". */
#define M "material m colour 1 1 1\n"

/* ------------------------------------------------------------------------ */
/* Reading                                                                    */
/* ------------------------------------------------------------------------ */

START_TEST(init_gives_the_documented_defaults)
{
    rt_scene s;
    memset(&s, 0x5a, sizeof s);
    rt_scene_init(&s);
    assert_empty(&s);
    rt_scene_free(&s);
    assert_empty(&s);
    rt_scene_free(&s);                      /* twice is harmless */
    rt_scene_free(NULL);
}
END_TEST

/* A scene holds at least one statement: an input of blank lines and
 * comments alone is refused, a single setting is a scene. */
START_TEST(empty_and_comment_only_input_are_refused)
{
    const char *texts[] = {"", "\n\n", "# nothing\n   \t # here\r\n",
                           "# no newline at the end"};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        rt_scene s;
        memset(&s, 0x5a, sizeof s);
        ck_assert_app_fails(parse(&s, texts[i]), APP_ERR_BAD_INPUT,
                            "t.txt: no statement (expected at least one of "
                            "camera, background");
        assert_empty(&s);
    }
    rt_scene s;
    ck_assert_app_fails(rt_scene_parse(&s, NULL, NULL), APP_ERR_BAD_INPUT,
                        "<scene>: no statement");
    assert_empty(&s);
    ck_assert_app_fails(rt_scene_load_file(&s, "/dev/null"),
                        APP_ERR_BAD_INPUT, "/dev/null: no statement");
    assert_empty(&s);
    ck_assert_app(parse(&s, "# only the sky\nbackground 0.5 0.7 0.9\n"));
    rt_scene_free(&s);
}
END_TEST

START_TEST(the_readme_example_gives_every_field)
{
    rt_scene s;
    ck_assert_app(parse(&s, example));
    assert_vec3(s.camera.position, 0, 4, -12);
    assert_vec3(s.camera.look_at, 0, 1, 0);
    assert_vec3(s.camera.up, 0, 1, 0);
    ck_assert(s.camera.fov_degrees == 60.0f);
    assert_vec3(s.background, 0.05f, 0.05f, 0.1f);
    ck_assert(s.ambient == 0.1f);
    ck_assert_int_eq(s.max_depth, 4);

    ck_assert_uint_eq(s.n_materials, 2);
    ck_assert_str_eq(s.material_names[0], "ground");
    ck_assert_str_eq(s.material_names[1], "red");
    const rt_material *g = &s.materials[0], *r = &s.materials[1];
    assert_vec3(g->colour.s, 0.8f, 0.8f, 0.8f);
    ck_assert(g->colour.s[3] == 0 && g->pad_ == 0);
    ck_assert(g->reflectivity == 0.2f && g->specular == 0 &&
              g->shininess == 1);
    assert_vec3(r->colour.s, 1, 0.2f, 0.2f);
    ck_assert(r->reflectivity == 0 && r->specular == 0.5f &&
              r->shininess == 40);

    ck_assert_uint_eq(s.n_lights, 1);
    assert_vec3(s.lights[0].position.s, 5, 10, -5);
    assert_vec3(s.lights[0].colour.s, 1, 1, 1);
    ck_assert(s.lights[0].position.s[3] == 0 && s.lights[0].colour.s[3] == 0);

    ck_assert_uint_eq(s.n_spheres, 1);
    assert_vec3(s.spheres[0].s, 0, 1, 0);
    ck_assert(s.spheres[0].s[3] == 1);
    ck_assert_int_eq(s.sphere_material[0], 1);

    ck_assert_uint_eq(s.n_planes, 1);
    assert_vec3(s.planes[0].normal_offset.s, 0, 1, 0);
    ck_assert(s.planes[0].normal_offset.s[3] == 0);
    ck_assert_int_eq(s.planes[0].material, 0);
    ck_assert_int_eq(s.planes[0].pad_[0] | s.planes[0].pad_[1] |
                     s.planes[0].pad_[2], 0);
    rt_scene_free(&s);
    assert_empty(&s);
}
END_TEST

START_TEST(keys_in_any_order_synonyms_comments_and_whitespace)
{
    const char *text =
        "\r\n"
        "  material\tm  shininess 5 color 0.5 0.25 1  # trailing comment\r\n"
        "light colour 2 3 0.5 position 1 2 3#comment touching a value\n"
        "sphere material m radius 2 center -1 -2 -3\n"
        "\t\v\f\n"
        "plane material m offset -2 normal 1 0 0\n"
        "camera fov 30 up 0 0 1 look_at 1 1 1 position 0 0 0\n"
        "depth 16\n"
        "ambient 1e-1\n";
    rt_scene s;
    ck_assert_app(parse(&s, text));
    assert_vec3(s.materials[0].colour.s, 0.5f, 0.25f, 1);
    ck_assert(s.materials[0].shininess == 5);
    assert_vec3(s.lights[0].position.s, 1, 2, 3);
    assert_vec3(s.lights[0].colour.s, 2, 3, 0.5f);  /* may exceed 1 */
    assert_vec3(s.spheres[0].s, -1, -2, -3);
    ck_assert(s.spheres[0].s[3] == 2);
    assert_vec3(s.planes[0].normal_offset.s, 1, 0, 0);
    ck_assert(s.planes[0].normal_offset.s[3] == -2);
    assert_vec3(s.camera.position, 0, 0, 0);
    assert_vec3(s.camera.look_at, 1, 1, 1);
    assert_vec3(s.camera.up, 0, 0, 1);
    ck_assert(s.camera.fov_degrees == 30);
    ck_assert_int_eq(s.max_depth, RT_MAX_DEPTH);
    ck_assert(s.ambient == 0.1f);
    rt_scene_free(&s);
}
END_TEST

START_TEST(optional_keys_take_their_defaults)
{
    const char *text = "material m colour 0 0 0\n"
                       "light position 1 2 3\n"
                       "plane normal 0 1 0 material m\n"
                       "camera fov 90\n";
    rt_scene s;
    ck_assert_app(parse(&s, text));
    const rt_material *m = &s.materials[0];
    ck_assert(m->reflectivity == 0 && m->specular == 0 && m->shininess == 32);
    assert_vec3(s.lights[0].colour.s, 1, 1, 1);
    ck_assert(s.planes[0].normal_offset.s[3] == 0);
    assert_vec3(s.camera.position, 0, 1, -5);     /* the others' defaults */
    assert_vec3(s.camera.look_at, 0, 0, 0);
    assert_vec3(s.camera.up, 0, 1, 0);
    ck_assert(s.camera.fov_degrees == 90);
    rt_scene_free(&s);
}
END_TEST

START_TEST(plane_normals_are_normalized_with_their_offsets)
{
    const char *text = M "plane normal 0 2 0 offset 4 material m\n"
                         "plane normal 3 0 -4 offset 10 material m\n"
                         "plane normal 0 0 1e-30 offset 1 material m\n";
    rt_scene s;
    ck_assert_app(parse(&s, text));
    assert_vec3(s.planes[0].normal_offset.s, 0, 1, 0);
    ck_assert(s.planes[0].normal_offset.s[3] == 2);
    assert_vec3(s.planes[1].normal_offset.s, 0.6f, 0, -0.8f);
    ck_assert(s.planes[1].normal_offset.s[3] == 2);
    assert_vec3(s.planes[2].normal_offset.s, 0, 0, 1);
    ck_assert(s.planes[2].normal_offset.s[3] == 1e30f);
    assert_round_trip(&s);                  /* normalizing again is a no-op */
    rt_scene_free(&s);
}
END_TEST

START_TEST(numbers_are_whole_tokens_in_any_float_syntax)
{
    const char *text = M "sphere centre -0 1e-3 +2.5 radius 0x1p-2 "
                         "material m\n"
                         "sphere centre 1e-45 -3.4e38 .5 radius 5. "
                         "material m\n";
    rt_scene s;
    ck_assert_app(parse(&s, text));
    assert_vec3(s.spheres[0].s, 0, 1e-3f, 2.5f);
    ck_assert(signbit(s.spheres[0].s[0]));
    ck_assert(s.spheres[0].s[3] == 0.25f);
    assert_vec3(s.spheres[1].s, 1e-45f, -3.4e38f, 0.5f);
    ck_assert(s.spheres[1].s[3] == 5);
    rt_scene_free(&s);
}
END_TEST

/* Enough of everything that every array grows several times. */
START_TEST(arrays_grow_to_hold_many_objects)
{
    enum { MATERIALS = 300, SPHERES = 5000, PLANES = 40, LIGHTS = 70 };
    size_t room = 100 * (MATERIALS + SPHERES + PLANES + LIGHTS);
    char *text = malloc(room), *p = text;
    for (int i = 0; i < MATERIALS; i++)
        p += sprintf(p, "material m%d colour %g 0 1 shininess %d\n", i,
                     i / 1000.0, i + 1);
    for (int i = 0; i < SPHERES; i++)
        p += sprintf(p, "sphere centre %d 0 0 radius 1 material m%d\n", i,
                     i % MATERIALS);
    for (int i = 0; i < PLANES; i++)
        p += sprintf(p, "plane normal 0 1 0 offset %d material m%d\n", i,
                     MATERIALS - 1 - i);
    for (int i = 0; i < LIGHTS; i++)
        p += sprintf(p, "light position 0 %d 0\n", i);
    ck_assert_uint_lt((size_t)(p - text), room);

    rt_scene s;
    ck_assert_app(parse(&s, text));
    ck_assert_uint_eq(s.n_materials, MATERIALS);
    ck_assert_uint_eq(s.n_spheres, SPHERES);
    ck_assert_uint_eq(s.n_planes, PLANES);
    ck_assert_uint_eq(s.n_lights, LIGHTS);
    for (int i = 0; i < MATERIALS; i++) {
        char name[16];
        snprintf(name, sizeof name, "m%d", i);
        ck_assert_str_eq(s.material_names[i], name);
        ck_assert(s.materials[i].shininess == i + 1);
    }
    for (int i = 0; i < SPHERES; i++) {
        ck_assert(s.spheres[i].s[0] == i);
        ck_assert_int_eq(s.sphere_material[i], i % MATERIALS);
    }
    for (int i = 0; i < PLANES; i++) {
        ck_assert(s.planes[i].normal_offset.s[3] == i);
        ck_assert_int_eq(s.planes[i].material, MATERIALS - 1 - i);
    }
    for (int i = 0; i < LIGHTS; i++)
        ck_assert(s.lights[i].position.s[1] == i);
    rt_scene_free(&s);
    free(text);
}
END_TEST

START_TEST(names_may_be_up_to_31_characters_of_the_allowed_set)
{
    const char *text =
        "material _Az09_-xxxxxxxxxxxxxxxxxxxxxxxx colour 1 1 1\n"
        "material a-b colour 1 1 1\n"
        "sphere centre 0 0 0 radius 1 material a-b\n"
        "sphere centre 0 0 0 radius 1 material "
        "_Az09_-xxxxxxxxxxxxxxxxxxxxxxxx\n";
    rt_scene s;
    ck_assert_app(parse(&s, text));
    ck_assert_uint_eq(strlen(s.material_names[0]), RT_NAME_MAX - 1);
    ck_assert_int_eq(s.sphere_material[0], 1);
    ck_assert_int_eq(s.sphere_material[1], 0);
    rt_scene_free(&s);
}
END_TEST

START_TEST(a_line_of_4096_characters_is_read)
{
    char *text = malloc(4096 + 2);
    memset(text, ' ', 4096);
    memcpy(text, "ambient 0.5", 11);
    text[4095] = '#';
    strcpy(text + 4096, "\n");
    rt_scene s;
    ck_assert_app(parse(&s, text));
    ck_assert(s.ambient == 0.5f);
    rt_scene_free(&s);
    free(text);
}
END_TEST

START_TEST(streams_and_files_read_like_strings)
{
    rt_scene a, b, c;
    ck_assert_app(parse(&a, example));
    const char *path = test_write_file("scene/example.txt", example);
    ck_assert_app(rt_scene_load_file(&b, path));
    assert_same_scene(&a, &b);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_app(rt_scene_load(&c, f, NULL));
    fclose(f);
    assert_same_scene(&a, &c);
    rt_scene_free(&a);
    rt_scene_free(&b);
    rt_scene_free(&c);
}
END_TEST

/* In a locale whose decimal point is a comma (as GTK sets from the
 * user's), numbers are still read and written with '.'. Skipped where no
 * such locale is installed. */
START_TEST(numbers_ignore_the_locale)
{
    const char *names[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8",
                           "fr_FR.utf8"};
    locale_t comma = (locale_t)0;
    for (size_t i = 0; i < 4 && !comma; i++)
        comma = newlocale(LC_NUMERIC_MASK, names[i], (locale_t)0);
    if (!comma)
        return;
    locale_t previous = uselocale(comma);
    rt_scene s;
    int rc = parse(&s, "ambient 0.25\nbackground 0.5 1 1\n");
    char *text = rc == 0 ? saved(&s) : NULL;
    uselocale(previous);
    freelocale(comma);
    ck_assert_app(rc);
    ck_assert(s.ambient == 0.25f);
    ck_assert_ptr_nonnull(strstr(text, "ambient    0.25\n"));
    free(text);
    rt_scene_free(&s);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Malformed input                                                            */
/* ------------------------------------------------------------------------ */

START_TEST(unknown_statements_are_refused)
{
    assert_rejected("# a comment\nsphre centre 0 0 0\n", 2,
                    "unknown statement 'sphre' (expected camera, "
                    "background, ambient, depth, material, light, sphere "
                    "or plane)");
    assert_rejected("Sphere centre 0 0 0\n", 1, "unknown statement 'Sphere'");
    assert_rejected("\n\n\n0.5\n", 4, "unknown statement '0.5'");
    /* Control bytes are shown as '?', long tokens cut. */
    assert_rejected("sph\x01re\n", 1, "unknown statement 'sph?re'");
    assert_rejected("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                    "xx 1\n", 1,
                    "unknown statement 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                    "xxx...'");
}
END_TEST

START_TEST(settings_may_be_given_once)
{
    assert_rejected("camera fov 40\n\ncamera fov 50\n", 3,
                    "camera: given twice (first on line 1)");
    assert_rejected("background 0 0 0\nbackground 1 1 1\n", 2,
                    "background: given twice (first on line 1)");
    assert_rejected("ambient 0\n# x\nambient 1\n", 3,
                    "ambient: given twice (first on line 1)");
    assert_rejected("\ndepth 1\ndepth 2\n", 3,
                    "depth: given twice (first on line 2)");
}
END_TEST

START_TEST(bad_cameras_are_refused)
{
    assert_rejected("camera fov 0\n", 1,
                    "camera: fov must be in (0, 180) degrees, found '0'");
    assert_rejected("camera fov 180\n", 1, "fov must be in (0, 180) degrees, "
                    "found '180'");
    assert_rejected("camera fov -5\n", 1, "found '-5'");
    assert_rejected("camera position 1 2 3 look_at 1 2 3\n", 1,
                    "camera: position and look_at must differ");
    assert_rejected("camera position 0 5 0\n", 1,
                    "camera: up must not be zero or parallel to the view "
                    "direction");
    assert_rejected("camera position 0 0 0 look_at 0 0 1 up 0 0 -2\n", 1,
                    "up must not be zero or parallel");
    assert_rejected("camera up 0 0 0\n", 1, "up must not be zero or parallel");
    assert_rejected("camera fov 40 fov 50\n", 1, "camera: 'fov' given twice");
    assert_rejected("camera zoom 2\n", 1, "camera: expected a key "
                    "(position, look_at, up or fov), found 'zoom'");
    assert_rejected("camera position 1 2\n", 1, "camera: expected 3 numbers "
                    "after 'position', found the end of the line");
    assert_rejected("camera position 1 2 x\n", 1, "camera: expected 3 numbers "
                    "after 'position', found 'x'");
    assert_rejected("camera fov\n", 1, "camera: expected a number after "
                    "'fov', found the end of the line");
}
END_TEST

START_TEST(bad_backgrounds_and_ambients_are_refused)
{
    assert_rejected("background 0.1 0.2\n", 1, "background: expected 3 "
                    "numbers >= 0 (red, green, blue), found the end of the "
                    "line");
    assert_rejected("background\n", 1, "found the end of the line");
    assert_rejected("background 0.1 0.2 abc\n", 1, "background: expected 3 "
                    "numbers >= 0 (red, green, blue), found 'abc'");
    assert_rejected("background 0.1 0.2 0.3 0.4\n", 1, "background: expected "
                    "the end of the line after 3 numbers >= 0 (red, green, "
                    "blue), found '0.4'");
    assert_rejected("background 0.1 -0.2 0.3\n", 1, "found '-0.2' "
                    "(negative)");
    assert_rejected("ambient\n", 1, "ambient: expected a number >= 0, found "
                    "the end of the line");
    assert_rejected("ambient -1\n", 1, "ambient: expected a number >= 0, "
                    "found '-1' (negative)");
    assert_rejected("ambient 1,5\n", 1, "found '1,5'");
    assert_rejected("ambient 0.1 0.2\n", 1, "ambient: expected the end of the "
                    "line after a number >= 0, found '0.2'");
}
END_TEST

START_TEST(bad_depths_are_refused)
{
    assert_rejected("depth\n", 1, "depth: expected an integer 0 to 16, found "
                    "the end of the line");
    assert_rejected("depth 3.5\n", 1, "depth: expected an integer 0 to 16, "
                    "found '3.5'");
    assert_rejected("depth 17\n", 1, "found '17'");
    assert_rejected("depth -1\n", 1, "found '-1'");
    assert_rejected("depth 99999999999999999999\n", 1,
                    "found '99999999999999999999'");
    assert_rejected("depth 3 4\n", 1, "depth: expected the end of the line "
                    "after the depth, found '4'");
}
END_TEST

START_TEST(bad_material_names_are_refused)
{
    assert_rejected("material\n", 1, "material: expected a name after "
                    "'material', found the end of the line");
    assert_rejected("material 1abc colour 1 1 1\n", 1, "material: expected a "
                    "name ([A-Za-z_][A-Za-z0-9_-]*, at most 31 characters) "
                    "after 'material', found '1abc'");
    assert_rejected("material a.b colour 1 1 1\n", 1, "found 'a.b'");
    assert_rejected("material xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx colour 1 1 1\n",
                    1, "at most 31 characters");
    assert_rejected("material colour 1 1 1\n", 1, "material: expected a name "
                    "after 'material', found the key 'colour'");
    assert_rejected("material a colour 1 1 1\n# x\nmaterial a colour 0 0 0\n",
                    3, "material: 'a' is already defined on line 1");
}
END_TEST

START_TEST(bad_material_keys_are_refused)
{
    assert_rejected("material a reflect 0.5\n", 1,
                    "material: missing 'colour'");
    assert_rejected("material a colour 1.5 0 0\n", 1, "material: colour "
                    "must be 3 numbers in [0, 1], found '1.5'");
    assert_rejected("material a colour 0 0 -0.1\n", 1, "colour must be 3 "
                    "numbers in [0, 1], found '-0.1'");
    assert_rejected("material a colour 1 1 1 reflect 1.1\n", 1, "material: "
                    "reflect must be in [0, 1], found '1.1'");
    assert_rejected("material a colour 1 1 1 reflect -0.1\n", 1,
                    "reflect must be in [0, 1], found '-0.1'");
    assert_rejected("material a colour 1 1 1 specular -1\n", 1, "material: "
                    "specular must be >= 0, found '-1'");
    assert_rejected("material a colour 1 1 1 shininess 0.5\n", 1, "material: "
                    "shininess must be >= 1, found '0.5'");
    assert_rejected("material a colour 1 1 1 gloss 3\n", 1, "material: "
                    "expected a key (colour, reflect, specular or "
                    "shininess), found 'gloss'");
    assert_rejected("material a colour 1 1 1 color 1 1 1\n", 1, "material: "
                    "'colour' given twice");
    assert_rejected("material a colour 1 1 1 reflect\n", 1, "material: "
                    "expected a number after 'reflect', found the end of the "
                    "line");
}
END_TEST

START_TEST(bad_lights_are_refused)
{
    assert_rejected("light colour 1 1 1\n", 1, "light: missing 'position'");
    assert_rejected("light position 0 0 0 colour -1 0 0\n", 1, "light: "
                    "colour must be 3 numbers >= 0, found '-1'");
    assert_rejected("light position 0 0 0 0\n", 1, "light: expected a key "
                    "(position or colour), found '0'");
    assert_rejected("light position 0 0 0 position 1 1 1\n", 1, "light: "
                    "'position' given twice");
}
END_TEST

START_TEST(bad_spheres_are_refused)
{
    assert_rejected("material red colour 1 0 0\n"
                    "sphere centre 0 1 0 radius abc material red\n", 2,
                    "sphere: expected a number after 'radius', found 'abc'");
    assert_rejected(M "sphere centre 0 1 0 material m\n", 2,
                    "sphere: missing 'radius'");
    assert_rejected(M "sphere radius 1 material m\n", 2,
                    "sphere: missing 'centre'");
    assert_rejected(M "sphere centre 0 0 0 radius 1\n", 2,
                    "sphere: missing 'material'");
    assert_rejected(M "sphere centre 0 0 0 radius 0 material m\n", 2,
                    "sphere: radius must be > 0, found '0'");
    assert_rejected(M "sphere centre 0 0 0 radius -1 material m\n", 2,
                    "radius must be > 0, found '-1'");
    assert_rejected(M "sphere centre 0 0 0 radius 1 material x\n", 2,
                    "sphere: unknown material 'x'; define it with a "
                    "'material' line before its use");
    assert_rejected("sphere centre 0 0 0 radius 1 material m\n" M, 1,
                    "unknown material 'm'");
    assert_rejected(M "sphere centre 0 0 0 radius 1 material\n", 2,
                    "sphere: expected a material name after 'material', "
                    "found the end of the line");
    assert_rejected(M "sphere centre 0 1 0 5 radius 1 material m\n", 2,
                    "sphere: expected a key (centre, radius or material), "
                    "found '5'");
    assert_rejected(M "sphere centre 0 1 0 radius 1 material m extra\n", 2,
                    "expected a key (centre, radius or material), found "
                    "'extra'");
    assert_rejected(M "sphere centre 0 0 0 center 1 1 1 radius 1 material m\n",
                    2, "sphere: 'centre' given twice");
}
END_TEST

START_TEST(malformed_numbers_are_refused)
{
    const char *numbers[] = {"1.5x", "nan", "NAN", "inf", "-inf", "infinity",
                             "1e39", "-1e39", "0x", "1..2", "--1", "1e",
                             "one", "+", "."};
    for (size_t i = 0; i < sizeof numbers / sizeof *numbers; i++) {
        char text[128], found[32];
        snprintf(text, sizeof text, M "sphere centre 0 %s 0 radius 1 "
                 "material m\n", numbers[i]);
        snprintf(found, sizeof found, "found '%s'", numbers[i]);
        assert_rejected(text, 2, "sphere: expected 3 numbers after 'centre'",
                        found);
    }
}
END_TEST

START_TEST(bad_planes_are_refused)
{
    assert_rejected(M "plane normal 0 0 0 material m\n", 2,
                    "plane: normal must not be zero");
    assert_rejected(M "plane normal 0 1 0\n", 2, "plane: missing 'material'");
    assert_rejected(M "plane offset 1 material m\n", 2,
                    "plane: missing 'normal'");
    assert_rejected(M "plane normal 1e-30 0 0 offset 1e30 material m\n", 2,
                    "plane: offset divided by the normal's length is too "
                    "large for a float");
    assert_rejected(M "plane normal 0 1 0 offset material m\n", 2,
                    "plane: expected a number after 'offset', found "
                    "'material'");
    assert_rejected(M "plane normal 0 1 0 material q\n", 2,
                    "plane: unknown material 'q'");
}
END_TEST

START_TEST(long_lines_and_nul_bytes_are_refused)
{
    char *text = malloc(4097 + 32);
    strcpy(text, "ambient 1\n");
    memset(text + 10, ' ', 4097);
    strcpy(text + 10 + 4097, "\n");
    assert_rejected(text, 2, "line longer than 4096 characters");
    free(text);

    static const char data[] = "ambient 1\n# a\0b\n";
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    fwrite(data, 1, sizeof data - 1, f);
    rewind(f);
    rt_scene s;
    ck_assert_app_fails(rt_scene_load(&s, f, "bin.dat"), APP_ERR_BAD_INPUT,
                        "bin.dat:2: expected text, found a NUL byte at "
                        "column 4");
    fclose(f);
    assert_empty(&s);
}
END_TEST

START_TEST(unreadable_files_are_named_with_the_reason)
{
    rt_scene s;
    memset(&s, 0x5a, sizeof s);
    char path[256];
    snprintf(path, sizeof path, "%s/no-such-scene.txt", test_tmpdir());
    ck_assert_app_fails(rt_scene_load_file(&s, path), APP_ERR_IO, path);
    ck_assert_ptr_nonnull(strstr(app_last_error(),
                                 "No such file or directory"));
    assert_empty(&s);

    memset(&s, 0x5a, sizeof s);
    ck_assert_app_fails(rt_scene_load_file(&s, test_tmpdir()), APP_ERR_IO,
                        "reading failed: Is a directory");
    ck_assert_ptr_nonnull(strstr(app_last_error(), test_tmpdir()));
    assert_empty(&s);

    memset(&s, 0x5a, sizeof s);
    ck_assert_app_fails(rt_scene_load(&s, NULL, "x"), APP_ERR_USAGE, "x");
    assert_empty(&s);
    memset(&s, 0x5a, sizeof s);
    ck_assert_app_fails(rt_scene_load_file(&s, NULL), APP_ERR_USAGE,
                        "no path");
    assert_empty(&s);
}
END_TEST

/* A failure after many objects were read frees them all (the leak
 * checkers of make test see to the rest). */
START_TEST(a_late_error_leaves_the_scene_empty)
{
    size_t room = 60 * 3000;
    char *text = malloc(room), *p = text;
    p += sprintf(p, "%s", example);
    for (int i = 0; i < 2000; i++)
        p += sprintf(p, "sphere centre %d 0 0 radius 1 material red\n", i);
    sprintf(p, "light position 0 0 0 colour 1 1\n");
    assert_rejected(text, 2011, "light: expected 3 numbers after 'colour', "
                    "found the end of the line");
    free(text);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Saving                                                                     */
/* ------------------------------------------------------------------------ */

START_TEST(saving_and_loading_gives_the_same_scene)
{
    rt_scene s;
    ck_assert_app(parse(&s, example));
    assert_round_trip(&s);
    rt_scene_free(&s);
    rt_scene_init(&s);                      /* and the empty scene */
    assert_round_trip(&s);
    ck_assert_app(rt_scene_generate(&s, 1000));
    assert_round_trip(&s);
    rt_scene_free(&s);
}
END_TEST

/* Floats of every kind: random bit patterns (finite ones) for positions,
 * random values in range for the rest, and awkward ones. */
START_TEST(every_float_survives_a_round_trip)
{
    static const char *awkward[] = {"0.1", "1e-45", "-0", "3.40282347e38",
                                    "1.17549435e-38", "16777217", "0.3"};
    uint32_t seed = 7;
    size_t room = 200 * 1100, n = 0;
    char *text = malloc(room);
    n += (size_t)sprintf(text, "material m colour 0.1 0.2 0.3\n");
    for (int i = 0; i < 1000; i++) {
        float v[3];
        for (int j = 0; j < 3; j++) {
            uint32_t bits;
            do {
                uint32_t high = test_random(&seed);
                bits = high << 8 ^ test_random(&seed);
            } while (((bits >> 23) & 0xff) == 0xff);        /* not inf/NaN */
            memcpy(&v[j], &bits, sizeof bits);
        }
        float r = (float)(test_random(&seed) + 1) * 0x1p-20f;
        n += (size_t)snprintf(text + n, room - n, "sphere centre %.9g %.9g "
                              "%.9g radius %.9g material m\n", v[0], v[1],
                              v[2], r);
        n += (size_t)snprintf(text + n, room - n, "light position %s %.9g "
                              "1\n", awkward[i % 7], v[0]);
    }
    rt_scene s;
    ck_assert_app(parse(&s, text));
    assert_round_trip(&s);
    rt_scene_free(&s);
    free(text);
}
END_TEST

START_TEST(what_is_saved_reads_as_the_format_shows)
{
    rt_scene s;
    ck_assert_app(parse(&s, example));
    char *text = saved(&s);
    ck_assert_str_eq(text,
        "camera     position 0 4 -12  look_at 0 1 0  up 0 1 0  fov 60\n"
        "background 0.05 0.05 0.1\n"
        "ambient    0.1\n"
        "depth      4\n"
        "\n"
        "material   ground  colour 0.8 0.8 0.8  reflect 0.2  specular 0  "
        "shininess 1\n"
        "material   red  colour 1 0.2 0.2  reflect 0  specular 0.5  "
        "shininess 40\n"
        "\n"
        "light      position 5 10 -5  colour 1 1 1\n"
        "plane      normal 0 1 0  offset 0  material ground\n"
        "\n"
        "sphere     centre 0 1 0  radius 1  material red\n");
    free(text);
    rt_scene_free(&s);
}
END_TEST

START_TEST(saving_refuses_what_cannot_be_read_back)
{
    rt_scene s;
    ck_assert_app(parse(&s, example));
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    s.sphere_material[0] = 2;
    ck_assert_app_fails(rt_scene_save(&s, f), APP_ERR_BAD_INPUT,
                        "sphere 0 has material 2 of 2");
    s.sphere_material[0] = 1;
    s.planes[0].material = -1;
    ck_assert_app_fails(rt_scene_save(&s, f), APP_ERR_BAD_INPUT,
                        "plane 0 has material -1 of 2");
    s.planes[0].material = 0;
    strcpy(s.material_names[1], "a b");
    ck_assert_app_fails(rt_scene_save(&s, f), APP_ERR_BAD_INPUT,
                        "material 1's name is not a valid name");
    memset(s.material_names[1], 'x', RT_NAME_MAX);    /* unterminated */
    ck_assert_app_fails(rt_scene_save(&s, f), APP_ERR_BAD_INPUT,
                        "material 1's name");
    ck_assert_app_fails(rt_scene_save(&s, NULL), APP_ERR_USAGE, "no stream");
    ck_assert_app_fails(rt_scene_save(NULL, f), APP_ERR_USAGE, "no scene");
    fclose(f);
    rt_scene_free(&s);
}
END_TEST

START_TEST(a_failed_write_is_reported)
{
    FILE *f = fopen("/dev/full", "w");
    if (!f)
        return;                             /* not on this system */
    rt_scene s;
    ck_assert_app(rt_scene_generate(&s, 100));
    ck_assert_app_fails(rt_scene_save(&s, f), APP_ERR_IO,
                        "writing the scene failed: No space left on device");
    fclose(f);
    rt_scene_free(&s);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* The generated scene                                                        */
/* ------------------------------------------------------------------------ */

/* The README's rule, written out again independently of generate.c. */
static uint32_t rule_x;

static float rule_u(void)
{
    rule_x = 1664525u * rule_x + 1013904223u;
    return (float)(rule_x >> 8) / 16777216.0f;
}

static void assert_follows_the_rule(const rt_scene *s, uint32_t n)
{
    uint32_t g = (uint32_t)ceil(sqrt((double)n));
    float e = 2.5f * (float)g;
    ck_assert_uint_eq(s->n_spheres, n);
    ck_assert_uint_eq(s->n_materials, 9);
    ck_assert_str_eq(s->material_names[0], "ground");
    ck_assert_uint_eq(s->n_planes, 1);
    assert_vec3(s->planes[0].normal_offset.s, 0, 1, 0);
    ck_assert(s->planes[0].normal_offset.s[3] == 0);
    ck_assert_int_eq(s->planes[0].material, 0);
    ck_assert_uint_eq(s->n_lights, 1);
    assert_vec3(s->lights[0].position.s, 0.3f * e, 0.8f * e + 10, -0.4f * e);
    assert_vec3(s->lights[0].colour.s, 1, 1, 1);
    assert_vec3(s->camera.position, 0, 0.35f * e + 2, -0.75f * e - 4);
    assert_vec3(s->camera.look_at, 0, 0, 0.1f * e);
    assert_vec3(s->camera.up, 0, 1, 0);
    ck_assert(s->camera.fov_degrees == 50);
    assert_vec3(s->background, 0.55f, 0.7f, 0.9f);
    ck_assert(s->ambient == 0.15f);
    ck_assert_int_eq(s->max_depth, 3);

    rule_x = 1;
    for (uint32_t i = 0; i < n; i++) {
        float r = 0.35f + 0.5f * rule_u();
        float cx = ((float)(i % g) - (float)(g - 1) / 2) * 2.5f;
        float cz = ((float)(i / g) - (float)(g - 1) / 2) * 2.5f;
        float x = cx + (rule_u() - 0.5f) * (2.5f - 2 * r);
        float z = cz + (rule_u() - 0.5f) * (2.5f - 2 * r);
        int k = (int)floorf(8 * rule_u());
        const cl_float4 *sp = &s->spheres[i];
        ck_assert_msg(sp->s[0] == x && sp->s[1] == r && sp->s[2] == z &&
                      sp->s[3] == r, "sphere %u is (%.9g %.9g %.9g) r %.9g, "
                      "the rule says (%.9g %.9g %.9g) r %.9g", i, sp->s[0],
                      sp->s[1], sp->s[2], sp->s[3], x, r, z, r);
        ck_assert_int_eq(s->sphere_material[i], 1 + k);
        /* On the ground, inside its cell, inside the field (to within
         * the rounding of adding the jitter). */
        const float slop = 1e-5f;
        ck_assert(sp->s[1] == sp->s[3] && r >= 0.35f && r < 0.85f);
        ck_assert(fabsf(sp->s[0] - cx) + r <= 1.25f + slop);
        ck_assert(fabsf(sp->s[2] - cz) + r <= 1.25f + slop);
        ck_assert(fabsf(sp->s[0]) + r <= e / 2 + slop);
        ck_assert(fabsf(sp->s[2]) + r <= e / 2 + slop);
    }
}

START_TEST(the_generated_scene_follows_the_rule)
{
    static const uint32_t sizes[] = {1, 2, 10, 1000};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        rt_scene a, b;
        ck_assert_app(rt_scene_generate(&a, sizes[i]));
        assert_follows_the_rule(&a, sizes[i]);
        ck_assert_app(rt_scene_generate(&b, sizes[i]));
        assert_same_scene(&a, &b);
        rt_scene_free(&a);
        rt_scene_free(&b);
    }
}
END_TEST

START_TEST(the_generated_scene_uses_every_material)
{
    rt_scene s;
    ck_assert_app(rt_scene_generate(&s, 1000));
    int used[9] = {0};
    for (uint32_t i = 0; i < s.n_spheres; i++) {
        ck_assert(s.sphere_material[i] >= 1 && s.sphere_material[i] <= 8);
        used[s.sphere_material[i]]++;
    }
    for (int m = 1; m <= 8; m++)
        ck_assert_msg(used[m] > 50, "material %d: %d spheres", m, used[m]);
    ck_assert(s.materials[7].reflectivity == 0.8f);     /* mirror */
    ck_assert(s.materials[8].reflectivity == 0.5f);     /* gold */
    ck_assert(s.materials[0].reflectivity == 0.25f);    /* ground */
    rt_scene_free(&s);
}
END_TEST

START_TEST(generating_refuses_no_spheres_and_too_many)
{
    rt_scene s;
    memset(&s, 0x5a, sizeof s);
    ck_assert_app_fails(rt_scene_generate(&s, 0), APP_ERR_BAD_INPUT,
                        "generated scene of 0 spheres: it must have 1 to "
                        "16777216");
    assert_empty(&s);
    ck_assert_app_fails(rt_scene_generate(&s, (1u << 24) + 1),
                        APP_ERR_BAD_INPUT, "of 16777217 spheres");
    assert_empty(&s);
}
END_TEST

/* spheres1000.txt is rt_scene_save's output for the generated scene,
 * after its leading comment lines: regenerate it when the rule changes. */
START_TEST(the_shipped_test_scene_is_the_generated_one)
{
    rt_scene generated, loaded;
    ck_assert_app(rt_scene_generate(&generated, 1000));
    ck_assert_app(rt_scene_load_file(&loaded, SCENES "spheres1000.txt"));
    assert_same_scene(&generated, &loaded);

    size_t size;
    char *file = test_read_file(SCENES "spheres1000.txt", &size);
    ck_assert_ptr_nonnull(strstr(file, "--generate 1000 --save"));
    const char *body = file;
    while (*body == '#')
        body = strchr(body, '\n') + 1;
    char *text = saved(&generated);
    ck_assert_msg(strcmp(body, text) == 0, "spheres1000.txt differs from "
                  "what rt_scene_save writes for rt_scene_generate(1000)");
    free(text);
    free(file);
    rt_scene_free(&generated);
    rt_scene_free(&loaded);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* The shipped scenes                                                         */
/* ------------------------------------------------------------------------ */

START_TEST(the_shipped_scenes_load_and_round_trip)
{
    for (size_t i = 0; i < sizeof shipped / sizeof *shipped; i++) {
        char path[256];
        snprintf(path, sizeof path, SCENES "%s", shipped[i]);
        rt_scene s;
        ck_assert_app(rt_scene_load_file(&s, path));
        ck_assert_uint_gt(s.n_spheres, 0);
        ck_assert_uint_gt(s.n_planes, 0);
        ck_assert_uint_gt(s.n_lights, 0);
        assert_round_trip(&s);
        rt_scene_free(&s);
    }
}
END_TEST

/* The small scenes show what their comments promise. */
START_TEST(the_small_scenes_show_reflections_and_shadows)
{
    rt_scene s;
    ck_assert_app(rt_scene_load_file(&s, SCENES "mirrors.txt"));
    int mirrors = 0;
    for (uint32_t i = 0; i < s.n_spheres; i++)
        mirrors += s.materials[s.sphere_material[i]].reflectivity >= 0.8f;
    ck_assert_int_ge(mirrors, 2);
    ck_assert(s.materials[s.planes[0].material].reflectivity > 0);
    ck_assert_uint_eq(s.n_lights, 2);
    ck_assert_int_ge(s.max_depth, 4);
    rt_scene_free(&s);

    ck_assert_app(rt_scene_load_file(&s, SCENES "shadows.txt"));
    ck_assert_uint_eq(s.n_lights, 2);
    ck_assert(memcmp(&s.lights[0].colour, &s.lights[1].colour,
                     sizeof s.lights[0].colour) != 0);
    rt_scene_free(&s);
}
END_TEST

Suite *raytracer_scene_suite(void)
{
    Suite *s = suite_create("raytracer_scene");
    TCase *tc = test_case("read");
    tcase_add_test(tc, init_gives_the_documented_defaults);
    tcase_add_test(tc, empty_and_comment_only_input_are_refused);
    tcase_add_test(tc, the_readme_example_gives_every_field);
    tcase_add_test(tc, keys_in_any_order_synonyms_comments_and_whitespace);
    tcase_add_test(tc, optional_keys_take_their_defaults);
    tcase_add_test(tc, plane_normals_are_normalized_with_their_offsets);
    tcase_add_test(tc, numbers_are_whole_tokens_in_any_float_syntax);
    tcase_add_test(tc, arrays_grow_to_hold_many_objects);
    tcase_add_test(tc, names_may_be_up_to_31_characters_of_the_allowed_set);
    tcase_add_test(tc, a_line_of_4096_characters_is_read);
    tcase_add_test(tc, streams_and_files_read_like_strings);
    tcase_add_test(tc, numbers_ignore_the_locale);
    suite_add_tcase(s, tc);

    tc = test_case("errors");
    tcase_add_test(tc, unknown_statements_are_refused);
    tcase_add_test(tc, settings_may_be_given_once);
    tcase_add_test(tc, bad_cameras_are_refused);
    tcase_add_test(tc, bad_backgrounds_and_ambients_are_refused);
    tcase_add_test(tc, bad_depths_are_refused);
    tcase_add_test(tc, bad_material_names_are_refused);
    tcase_add_test(tc, bad_material_keys_are_refused);
    tcase_add_test(tc, bad_lights_are_refused);
    tcase_add_test(tc, bad_spheres_are_refused);
    tcase_add_test(tc, malformed_numbers_are_refused);
    tcase_add_test(tc, bad_planes_are_refused);
    tcase_add_test(tc, long_lines_and_nul_bytes_are_refused);
    tcase_add_test(tc, unreadable_files_are_named_with_the_reason);
    tcase_add_test(tc, a_late_error_leaves_the_scene_empty);
    suite_add_tcase(s, tc);

    tc = test_case("save");
    tcase_add_test(tc, saving_and_loading_gives_the_same_scene);
    tcase_add_test(tc, every_float_survives_a_round_trip);
    tcase_add_test(tc, what_is_saved_reads_as_the_format_shows);
    tcase_add_test(tc, saving_refuses_what_cannot_be_read_back);
    tcase_add_test(tc, a_failed_write_is_reported);
    suite_add_tcase(s, tc);

    tc = test_case("generate");
    tcase_add_test(tc, the_generated_scene_follows_the_rule);
    tcase_add_test(tc, the_generated_scene_uses_every_material);
    tcase_add_test(tc, generating_refuses_no_spheres_and_too_many);
    tcase_add_test(tc, the_shipped_test_scene_is_the_generated_one);
    tcase_add_test(tc, the_shipped_scenes_load_and_round_trip);
    tcase_add_test(tc, the_small_scenes_show_reflections_and_shadows);
    suite_add_tcase(s, tc);
    return s;
}
