/*
 * scene.c: the raytracer's scene outside of rendering: defaults, freeing,
 * and the text format of README "Scene files", read with a message that
 * names the file, the line and what was expected for every bad line, and
 * written back so that reading it again gives the same scene bit for bit.
 *
 * A statement never spans lines, so reading goes a line at a time: the
 * line is read into a buffer (a NUL byte or a line longer than LINE_CHARS
 * is an error: no scene has one, a binary file does), cut into tokens in
 * place, and handed to its statement's parser; an input without a
 * statement is refused. The statements made of key-value pairs share one
 * table-driven key parser, so every one of them reports unknown,
 * repeated, missing and malformed keys the same way.
 * Material names are found through a small hash table, so a scene with
 * many materials and spheres loads in linear time.
 *
 * Numbers are read with strtof and written with printf in the "C" locale
 * whatever the program chose: GTK sets the user's locale, in which the
 * decimal point may be a comma.
 */
#include "raytracer.h"
#include "common/parse.h"
#include "common/error.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum {
    LINE_CHARS = 4096,            /* longest line, without its '\n' */
    MAX_OBJECTS = 1 << 24,        /* most spheres (and materials, planes,
                                     lights); generate.c has the same */
    SHOWN_CHARS = 40              /* longest token quoted in a message */
};

/* ------------------------------------------------------------------------ */
/* Defaults and freeing                                                       */
/* ------------------------------------------------------------------------ */

void rt_scene_init(rt_scene *scene)
{
    memset(scene, 0, sizeof *scene);
    scene->camera = (rt_view){
        .position = {0.0f, 1.0f, -5.0f},
        .look_at = {0.0f, 0.0f, 0.0f},
        .up = {0.0f, 1.0f, 0.0f},
        .fov_degrees = 60.0f,
    };
    scene->ambient = 0.1f;
    scene->max_depth = 3;
}

/* Leaves the scene as rt_scene_init does, so freeing twice is harmless. */
void rt_scene_free(rt_scene *scene)
{
    if (!scene)
        return;
    free(scene->materials);
    free(scene->material_names);
    free(scene->spheres);
    free(scene->sphere_material);
    free(scene->planes);
    free(scene->lights);
    rt_scene_init(scene);
}

/* ------------------------------------------------------------------------ */
/* Numbers in the "C" locale                                                  */
/* ------------------------------------------------------------------------ */

typedef struct c_numbers {
    locale_t c, previous;
} c_numbers;

/* Switches this thread (only) to the "C" locale's numbers; if that is
 * impossible the current locale stays, which is "C" unless the program
 * changed it. */
static void c_numbers_begin(c_numbers *cn)
{
    cn->c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    cn->previous = cn->c ? uselocale(cn->c) : (locale_t)0;
}

static void c_numbers_end(c_numbers *cn)
{
    if (cn->c) {
        uselocale(cn->previous);
        freelocale(cn->c);
    }
}

/* ------------------------------------------------------------------------ */
/* Material names                                                             */
/* ------------------------------------------------------------------------ */

static int is_name_start(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static int is_name_char(char c)
{
    return is_name_start(c) || (c >= '0' && c <= '9') || c == '-';
}

/* Whether text is a material name: [A-Za-z_][A-Za-z0-9_-]*, shorter than
 * RT_NAME_MAX. Looks at no more than RT_NAME_MAX bytes, so a saved
 * scene's unterminated name is refused rather than overrun. */
static int is_name(const char *text)
{
    if (!is_name_start(text[0]))
        return 0;
    for (size_t i = 1; i < RT_NAME_MAX; i++) {
        if (text[i] == '\0')
            return 1;
        if (!is_name_char(text[i]))
            return 0;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The parser's state and messages                                            */
/* ------------------------------------------------------------------------ */

/* Where lines come from: a stream, or a string when f is NULL. */
typedef struct source {
    FILE *f;
    const char *text;
} source;

typedef struct parser {
    rt_scene *scene;
    const char *name;             /* of the input, for messages */
    unsigned long line;           /* of the line being parsed, from 1 */
    const char *statement;        /* its keyword, for messages; or NULL */
    char buf[LINE_CHARS + 1];
    char *tokens[LINE_CHARS / 2 + 1];
    size_t n_tokens;
    unsigned long statements;     /* read so far */
    /* Lines of the statements allowed once (0: not seen yet). */
    unsigned long camera_line, background_line, ambient_line, depth_line;
    /* Allocated lengths of the scene's arrays. */
    uint32_t material_room, sphere_room, plane_room, light_room;
    unsigned long *material_line; /* where each material was defined */
    uint32_t *slots;              /* hash table: material index + 1, or 0 */
    uint32_t n_slots;             /* a power of two, or 0 */
} parser;

/* A token as a message quotes it: control bytes as '?', and cut with
 * "..." when long. Four buffers used in turn, so one message can quote
 * several tokens. */
static const char *shown(const char *token)
{
    static _Thread_local char bufs[4][SHOWN_CHARS + 4];
    static _Thread_local unsigned next;
    char *out = bufs[next++ % 4];
    size_t i = 0;
    for (; token[i] != '\0' && i < SHOWN_CHARS; i++) {
        unsigned char c = (unsigned char)token[i];
        out[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    strcpy(out + i, token[i] != '\0' ? "..." : "");
    return out;
}

/* Fails with code and "NAME:LINE: STATEMENT: message". */
static int failv(const parser *p, int code, const char *fmt, va_list ap)
{
    char message[512];
    vsnprintf(message, sizeof message, fmt, ap);
    if (p->statement)
        return app_fail_at(code, p->name, p->line, "%s: %s", p->statement,
                           message);
    return app_fail_at(code, p->name, p->line, "%s", message);
}

/* A malformed line (APP_ERR_BAD_INPUT). */
static int bad(const parser *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int bad(const parser *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = failv(p, APP_ERR_BAD_INPUT, fmt, ap);
    va_end(ap);
    return rc;
}

static int no_memory(const parser *p, const char *what)
{
    return app_fail_at(APP_ERR_NO_MEMORY, p->name, p->line, "out of memory "
                       "for more %s", what);
}

/* ------------------------------------------------------------------------ */
/* Growing the scene's arrays                                                 */
/* ------------------------------------------------------------------------ */

/* The next allocated length for an array that is full at count: double it
 * (amortized constant time per element), at most MAX_OBJECTS. */
static uint32_t next_room(uint32_t count)
{
    uint32_t room = count < 8 ? 8 : 2 * count;
    return room > MAX_OBJECTS ? MAX_OBJECTS : room;
}

/* array resized to n elements of size bytes; NULL (array kept) if not. */
static void *resized(void *array, uint32_t n, size_t size)
{
    return realloc(array, (size_t)n * size);
}

/* Refuses one more object in a list of count that is full already; what
 * is the list's plural name. */
static int check_room(const parser *p, uint32_t count, const char *what)
{
    if (count >= MAX_OBJECTS)
        return bad(p, "more than %d %s (2^24), the most a scene may hold",
                   MAX_OBJECTS, what);
    return 0;
}

/* Each grow_ function makes room for one more object of its kind,
 * growing the parallel arrays together; a failed realloc leaves the old
 * array in the scene, where rt_scene_free finds it. */
static int grow_materials(parser *p)
{
    rt_scene *s = p->scene;
    int rc = check_room(p, s->n_materials, "materials");
    if (rc != 0 || s->n_materials < p->material_room)
        return rc;
    uint32_t room = next_room(s->n_materials);
    void *m = resized(s->materials, room, sizeof *s->materials);
    if (m)
        s->materials = m;
    void *names = resized(s->material_names, room, sizeof *s->material_names);
    if (names)
        s->material_names = names;
    void *lines = resized(p->material_line, room, sizeof *p->material_line);
    if (lines)
        p->material_line = lines;
    if (!m || !names || !lines)
        return no_memory(p, "materials");
    p->material_room = room;
    return 0;
}

static int grow_spheres(parser *p)
{
    rt_scene *s = p->scene;
    int rc = check_room(p, s->n_spheres, "spheres");
    if (rc != 0 || s->n_spheres < p->sphere_room)
        return rc;
    uint32_t room = next_room(s->n_spheres);
    void *spheres = resized(s->spheres, room, sizeof *s->spheres);
    if (spheres)
        s->spheres = spheres;
    void *material = resized(s->sphere_material, room,
                             sizeof *s->sphere_material);
    if (material)
        s->sphere_material = material;
    if (!spheres || !material)
        return no_memory(p, "spheres");
    p->sphere_room = room;
    return 0;
}

static int grow_planes(parser *p)
{
    rt_scene *s = p->scene;
    int rc = check_room(p, s->n_planes, "planes");
    if (rc != 0 || s->n_planes < p->plane_room)
        return rc;
    uint32_t room = next_room(s->n_planes);
    void *planes = resized(s->planes, room, sizeof *s->planes);
    if (!planes)
        return no_memory(p, "planes");
    s->planes = planes;
    p->plane_room = room;
    return 0;
}

static int grow_lights(parser *p)
{
    rt_scene *s = p->scene;
    int rc = check_room(p, s->n_lights, "lights");
    if (rc != 0 || s->n_lights < p->light_room)
        return rc;
    uint32_t room = next_room(s->n_lights);
    void *lights = resized(s->lights, room, sizeof *s->lights);
    if (!lights)
        return no_memory(p, "lights");
    s->lights = lights;
    p->light_room = room;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The material name table                                                    */
/* ------------------------------------------------------------------------ */

static uint32_t name_hash(const char *name)
{
    uint32_t h = 2166136261u;              /* FNV-1a */
    for (; *name; name++)
        h = (h ^ (unsigned char)*name) * 16777619u;
    return h;
}

/* The slot holding name, or the empty slot where it would go. */
static uint32_t *name_slot(const parser *p, const char *name)
{
    uint32_t mask = p->n_slots - 1;
    uint32_t i = name_hash(name) & mask;
    while (p->slots[i] != 0 &&
           strcmp(p->scene->material_names[p->slots[i] - 1], name) != 0)
        i = (i + 1) & mask;
    return &p->slots[i];
}

/* The index of material name, or -1. */
static int32_t material_index(const parser *p, const char *name)
{
    if (p->n_slots == 0)
        return -1;
    return (int32_t)*name_slot(p, name) - 1;
}

/* Enters the scene's newest material in the table, which is kept at most
 * half full so that probes stay short. */
static int add_material_name(parser *p)
{
    uint32_t count = p->scene->n_materials;
    if (2 * (uint64_t)count > p->n_slots) {
        uint32_t n = p->n_slots ? 2 * p->n_slots : 16;
        uint32_t *slots = calloc(n, sizeof *slots);
        if (!slots)
            return no_memory(p, "material names");
        free(p->slots);
        p->slots = slots;
        p->n_slots = n;
        for (uint32_t i = 0; i + 1 < count; i++)
            *name_slot(p, p->scene->material_names[i]) = i + 1;
    }
    *name_slot(p, p->scene->material_names[count - 1]) = count;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Key-value pairs                                                            */
/* ------------------------------------------------------------------------ */

typedef enum value_kind {
    VALUE_VEC3,                   /* three numbers */
    VALUE_NUMBER,                 /* one number */
    VALUE_MATERIAL                /* a defined material's name */
} value_kind;

typedef struct key_spec {
    const char *key;
    const char *synonym;          /* also accepted, or NULL */
    value_kind kind;
    int required;
} key_spec;

enum { MAX_KEYS = 4 };
#define N_KEYS(specs) ((int)(sizeof specs / sizeof *specs))

/* What a statement's pairs gave, by the index of the key in its spec. */
typedef struct key_values {
    const char *given[MAX_KEYS];  /* the key as written; NULL if absent */
    float v[MAX_KEYS][3];
    const char *token[MAX_KEYS][3]; /* the values as written */
    int32_t material[MAX_KEYS];
} key_values;

static int find_key(const key_spec *specs, int n, const char *word)
{
    for (int k = 0; k < n; k++)
        if (strcmp(word, specs[k].key) == 0 ||
            (specs[k].synonym && strcmp(word, specs[k].synonym) == 0))
            return k;
    return -1;
}

/* "a, b or c": the keys of specs, for messages. */
static const char *key_list(const key_spec *specs, int n)
{
    static _Thread_local char list[128];
    list[0] = '\0';
    for (int k = 0; k < n; k++) {
        const char *sep = k == 0 ? "" : k == n - 1 ? " or " : ", ";
        size_t len = strlen(list);
        snprintf(list + len, sizeof list - len, "%s%s", sep, specs[k].key);
    }
    return list;
}

static const char *value_what(value_kind kind)
{
    return kind == VALUE_VEC3     ? "3 numbers"
           : kind == VALUE_NUMBER ? "a number"
                                  : "a material name";
}

/* Reads the values of key k (written as word) from args[*i]. */
static int parse_value(parser *p, const key_spec *spec, const char *word,
                       char **args, size_t n_args, size_t *i,
                       key_values *kv, int k)
{
    int count = spec->kind == VALUE_VEC3 ? 3 : 1;
    for (int j = 0; j < count; j++) {
        if (*i == n_args)
            return bad(p, "expected %s after '%s', found the end of the line",
                       value_what(spec->kind), word);
        const char *token = args[(*i)++];
        kv->token[k][j] = token;
        if (spec->kind == VALUE_MATERIAL) {
            kv->material[k] = material_index(p, token);
            if (kv->material[k] < 0)
                return bad(p, "unknown material '%s'; define it with a "
                           "'material' line before its use", shown(token));
        } else if (!parse_float(token, &kv->v[k][j])) {
            return bad(p, "expected %s after '%s', found '%s'",
                       value_what(spec->kind), word, shown(token));
        }
    }
    return 0;
}

/* Parses args as key-value pairs of the keys in specs: each key at most
 * once, values well formed, required keys present. */
static int parse_keys(parser *p, const key_spec *specs, int n_specs,
                      char **args, size_t n_args, key_values *kv)
{
    memset(kv, 0, sizeof *kv);
    for (size_t i = 0; i < n_args;) {
        const char *word = args[i++];
        int k = find_key(specs, n_specs, word);
        if (k < 0)
            return bad(p, "expected a key (%s), found '%s'",
                       key_list(specs, n_specs), shown(word));
        if (kv->given[k])
            return bad(p, "'%s' given twice", specs[k].key);
        kv->given[k] = word;
        int rc = parse_value(p, &specs[k], word, args, n_args, &i, kv, k);
        if (rc != 0)
            return rc;
    }
    for (int k = 0; k < n_specs; k++)
        if (specs[k].required && !kv->given[k])
            return bad(p, "missing '%s'", specs[k].key);
    return 0;
}

/* Checks that key k's values (if given) are >= lo and, when hi >= lo, <=
 * hi; range is how messages say it. */
static int check_range(const parser *p, const key_values *kv, int k,
                       const char *key, float lo, float hi, const char *range)
{
    if (!kv->given[k])
        return 0;
    for (int j = 0; j < 3 && kv->token[k][j]; j++) {
        float v = kv->v[k][j];
        if (v < lo || (hi >= lo && v > hi))
            return bad(p, "%s must be %s, found '%s'", key, range,
                       shown(kv->token[k][j]));
    }
    return 0;
}

/* Copies key k's three values into out when given. */
static void take_vec3(const key_values *kv, int k, float out[3])
{
    if (kv->given[k])
        memcpy(out, kv->v[k], 3 * sizeof(float));
}

/* ------------------------------------------------------------------------ */
/* Statements                                                                 */
/* ------------------------------------------------------------------------ */

/* Refuses a second statement of a kind allowed once; records the first. */
static int once(const parser *p, unsigned long *seen)
{
    if (*seen)
        return bad(p, "given twice (first on line %lu); a scene has at "
                   "most one", *seen);
    *seen = p->line;
    return 0;
}

/* Reads exactly n numbers >= 0 from args, which must hold nothing else. */
static int parse_numbers(const parser *p, char **args, size_t n_args,
                         int n, const char *what, float *out)
{
    for (int j = 0; j < n; j++) {
        if ((size_t)j == n_args)
            return bad(p, "expected %s, found the end of the line", what);
        if (!parse_float(args[j], &out[j]))
            return bad(p, "expected %s, found '%s'", what, shown(args[j]));
        if (out[j] < 0.0f)
            return bad(p, "expected %s, found '%s' (negative)", what,
                       shown(args[j]));
    }
    if (n_args > (size_t)n)
        return bad(p, "expected the end of the line after %s, found '%s'",
                   what, shown(args[n]));
    return 0;
}

/* The sine of the angle between a and b, in double; 0 if either is 0. */
static double sine_between(const float a[3], const float b[3])
{
    double ax = a[0], ay = a[1], az = a[2], bx = b[0], by = b[1], bz = b[2];
    double cx = ay * bz - az * by, cy = az * bx - ax * bz,
           cz = ax * by - ay * bx;
    double la = sqrt(ax * ax + ay * ay + az * az);
    double lb = sqrt(bx * bx + by * by + bz * bz);
    if (la == 0 || lb == 0)
        return 0;
    return sqrt(cx * cx + cy * cy + cz * cz) / (la * lb);
}

static const key_spec camera_keys[] = {
    {"position", NULL, VALUE_VEC3, 0},
    {"look_at", NULL, VALUE_VEC3, 0},
    {"up", NULL, VALUE_VEC3, 0},
    {"fov", NULL, VALUE_NUMBER, 0},
};

/* Keys left out keep rt_scene_init's defaults. up must be at least 1e-6
 * (sine) away from the view direction, so the camera has a basis. */
static int parse_camera(parser *p, char **args, size_t n_args)
{
    key_values kv;
    int rc = once(p, &p->camera_line);
    if (rc == 0)
        rc = parse_keys(p, camera_keys, N_KEYS(camera_keys), args, n_args,
                        &kv);
    if (rc != 0)
        return rc;
    rt_view view = p->scene->camera;
    take_vec3(&kv, 0, view.position);
    take_vec3(&kv, 1, view.look_at);
    take_vec3(&kv, 2, view.up);
    if (kv.given[3])
        view.fov_degrees = kv.v[3][0];
    if (!(view.fov_degrees > 0.0f && view.fov_degrees < 180.0f))
        return bad(p, "fov must be in (0, 180) degrees, found '%s'",
                   shown(kv.token[3][0]));
    float dir[3];
    for (int j = 0; j < 3; j++)
        dir[j] = (float)((double)view.look_at[j] - view.position[j]);
    if (dir[0] == 0 && dir[1] == 0 && dir[2] == 0)
        return bad(p, "position and look_at must differ, found both at "
                   "%g %g %g", view.position[0], view.position[1],
                   view.position[2]);
    if (!(sine_between(dir, view.up) >= 1e-6))
        return bad(p, "up must not be zero or parallel to the view "
                   "direction (look_at - position), found %g %g %g",
                   view.up[0], view.up[1], view.up[2]);
    p->scene->camera = view;
    return 0;
}

static int parse_background(parser *p, char **args, size_t n_args)
{
    int rc = once(p, &p->background_line);
    if (rc == 0)
        rc = parse_numbers(p, args, n_args, 3,
                           "3 numbers >= 0 (red, green, blue)",
                           p->scene->background);
    return rc;
}

static int parse_ambient(parser *p, char **args, size_t n_args)
{
    int rc = once(p, &p->ambient_line);
    if (rc == 0)
        rc = parse_numbers(p, args, n_args, 1, "a number >= 0",
                           &p->scene->ambient);
    return rc;
}

static int parse_depth(parser *p, char **args, size_t n_args)
{
    int rc = once(p, &p->depth_line);
    if (rc != 0)
        return rc;
    unsigned long depth;
    if (n_args == 0)
        return bad(p, "expected an integer 0 to %d, found the end of the "
                   "line", RT_MAX_DEPTH);
    if (!parse_uint(args[0], 0, RT_MAX_DEPTH, &depth))
        return bad(p, "expected an integer 0 to %d, found '%s'",
                   RT_MAX_DEPTH, shown(args[0]));
    if (n_args > 1)
        return bad(p, "expected the end of the line after the depth, found "
                   "'%s'", shown(args[1]));
    p->scene->max_depth = (int)depth;
    return 0;
}

static const key_spec material_keys[] = {
    {"colour", "color", VALUE_VEC3, 1},
    {"reflect", NULL, VALUE_NUMBER, 0},
    {"specular", NULL, VALUE_NUMBER, 0},
    {"shininess", NULL, VALUE_NUMBER, 0},
};

/* Checks a new material's name: well formed, not a key (a forgotten name
 * would otherwise make "colour" the name and "1" an unknown key), new. */
static int check_material_name(const parser *p, char **args, size_t n_args)
{
    if (n_args == 0)
        return bad(p, "expected a name after 'material', found the end of "
                   "the line");
    const char *name = args[0];
    if (find_key(material_keys, N_KEYS(material_keys), name) >= 0)
        return bad(p, "expected a name after 'material', found the key "
                   "'%s'", name);
    if (!is_name(name))
        return bad(p, "expected a name ([A-Za-z_][A-Za-z0-9_-]*, at most %d "
                   "characters) after 'material', found '%s'",
                   RT_NAME_MAX - 1, shown(name));
    int32_t i = material_index(p, name);
    if (i >= 0)
        return bad(p, "'%s' is already defined on line %lu", name,
                   p->material_line[i]);
    return 0;
}

static int parse_material(parser *p, char **args, size_t n_args)
{
    key_values kv;
    int rc = check_material_name(p, args, n_args);
    if (rc == 0)
        rc = parse_keys(p, material_keys, N_KEYS(material_keys), args + 1,
                        n_args - 1, &kv);
    if (rc == 0)
        rc = check_range(p, &kv, 0, "colour", 0.0f, 1.0f,
                         "3 numbers in [0, 1]");
    if (rc == 0)
        rc = check_range(p, &kv, 1, "reflect", 0.0f, 1.0f, "in [0, 1]");
    if (rc == 0)
        rc = check_range(p, &kv, 2, "specular", 0.0f, -1.0f, ">= 0");
    if (rc == 0)
        rc = check_range(p, &kv, 3, "shininess", 1.0f, 0.0f, ">= 1");
    if (rc == 0)
        rc = grow_materials(p);
    if (rc != 0)
        return rc;
    rt_scene *s = p->scene;
    uint32_t i = s->n_materials++;
    s->materials[i] = (rt_material){
        .colour = {{kv.v[0][0], kv.v[0][1], kv.v[0][2], 0.0f}},
        .reflectivity = kv.given[1] ? kv.v[1][0] : 0.0f,
        .specular = kv.given[2] ? kv.v[2][0] : 0.0f,
        .shininess = kv.given[3] ? kv.v[3][0] : 32.0f,
    };
    memset(s->material_names[i], 0, RT_NAME_MAX);
    strcpy(s->material_names[i], args[0]);
    p->material_line[i] = p->line;
    return add_material_name(p);
}

static const key_spec light_keys[] = {
    {"position", NULL, VALUE_VEC3, 1},
    {"colour", "color", VALUE_VEC3, 0},
};

static int parse_light(parser *p, char **args, size_t n_args)
{
    key_values kv;
    int rc = parse_keys(p, light_keys, N_KEYS(light_keys), args, n_args,
                        &kv);
    if (rc == 0)
        rc = check_range(p, &kv, 1, "colour", 0.0f, -1.0f, "3 numbers >= 0");
    if (rc == 0)
        rc = grow_lights(p);
    if (rc != 0)
        return rc;
    float colour[3] = {1.0f, 1.0f, 1.0f};
    take_vec3(&kv, 1, colour);
    p->scene->lights[p->scene->n_lights++] = (rt_light){
        .position = {{kv.v[0][0], kv.v[0][1], kv.v[0][2], 0.0f}},
        .colour = {{colour[0], colour[1], colour[2], 0.0f}},
    };
    return 0;
}

static const key_spec sphere_keys[] = {
    {"centre", "center", VALUE_VEC3, 1},
    {"radius", NULL, VALUE_NUMBER, 1},
    {"material", NULL, VALUE_MATERIAL, 1},
};

static int parse_sphere(parser *p, char **args, size_t n_args)
{
    key_values kv;
    int rc = parse_keys(p, sphere_keys, N_KEYS(sphere_keys), args, n_args,
                        &kv);
    if (rc != 0)
        return rc;
    if (!(kv.v[1][0] > 0.0f))
        return bad(p, "radius must be > 0, found '%s'", shown(kv.token[1][0]));
    rc = grow_spheres(p);
    if (rc != 0)
        return rc;
    rt_scene *s = p->scene;
    s->spheres[s->n_spheres] =
        (cl_float4){{kv.v[0][0], kv.v[0][1], kv.v[0][2], kv.v[1][0]}};
    s->sphere_material[s->n_spheres++] = kv.material[2];
    return 0;
}

static const key_spec plane_keys[] = {
    {"normal", NULL, VALUE_VEC3, 1},
    {"offset", NULL, VALUE_NUMBER, 0},
    {"material", NULL, VALUE_MATERIAL, 1},
};

/* Divides normal and offset by the normal's length. A normal whose
 * squared length is already 1 within 1e-6 (as every normalized float
 * vector's is) is kept as written, so that saving a scene and loading it
 * again changes no bit. */
static int normalize_plane(const parser *p, float n[3], float *offset)
{
    double len2 = (double)n[0] * n[0] + (double)n[1] * n[1] +
                  (double)n[2] * n[2];
    if (len2 == 0)
        return bad(p, "normal must not be zero");
    if (fabs(len2 - 1.0) <= 1e-6)
        return 0;
    double len = sqrt(len2);
    float scaled = (float)(*offset / len);
    if (!isfinite(scaled))
        return bad(p, "offset divided by the normal's length is too large "
                   "for a float");
    for (int j = 0; j < 3; j++)
        n[j] = (float)(n[j] / len);
    *offset = scaled;
    return 0;
}

static int parse_plane(parser *p, char **args, size_t n_args)
{
    key_values kv;
    int rc = parse_keys(p, plane_keys, N_KEYS(plane_keys), args, n_args,
                        &kv);
    if (rc != 0)
        return rc;
    float n[3] = {kv.v[0][0], kv.v[0][1], kv.v[0][2]};
    float offset = kv.given[1] ? kv.v[1][0] : 0.0f;
    rc = normalize_plane(p, n, &offset);
    if (rc == 0)
        rc = grow_planes(p);
    if (rc != 0)
        return rc;
    p->scene->planes[p->scene->n_planes++] = (rt_plane){
        .normal_offset = {{n[0], n[1], n[2], offset}},
        .material = kv.material[2],
    };
    return 0;
}

typedef struct statement {
    const char *keyword;
    int (*parse)(parser *p, char **args, size_t n_args);
} statement;

static const statement statements[] = {
    {"camera", parse_camera},     {"background", parse_background},
    {"ambient", parse_ambient},   {"depth", parse_depth},
    {"material", parse_material}, {"light", parse_light},
    {"sphere", parse_sphere},     {"plane", parse_plane},
};

/* Parses the line's tokens (there is at least one). */
static int parse_statement(parser *p)
{
    p->statement = NULL;
    for (size_t i = 0; i < sizeof statements / sizeof *statements; i++) {
        if (strcmp(p->tokens[0], statements[i].keyword) == 0) {
            p->statement = statements[i].keyword;
            int rc = statements[i].parse(p, p->tokens + 1, p->n_tokens - 1);
            p->statement = NULL;
            return rc;
        }
    }
    return bad(p, "unknown statement '%s' (expected camera, background, "
               "ambient, depth, material, light, sphere or plane)",
               shown(p->tokens[0]));
}

/* ------------------------------------------------------------------------ */
/* Lines and tokens                                                           */
/* ------------------------------------------------------------------------ */

static int source_getc(source *src)
{
    if (src->f)
        return getc_unlocked(src->f);
    if (*src->text == '\0')
        return EOF;
    return (unsigned char)*src->text++;
}

/* Reads the next line into p->buf without its '\n'. Returns 1 for a line,
 * 0 at the end of the input, or a negative code. */
static int read_line(parser *p, source *src)
{
    size_t len = 0;
    int c;
    p->line++;
    while ((c = source_getc(src)) != EOF && c != '\n') {
        if (c == '\0')
            return bad(p, "expected text, found a NUL byte at column %zu "
                       "(is this a binary file?)", len + 1);
        if (len == LINE_CHARS)
            return bad(p, "line longer than %d characters", LINE_CHARS);
        p->buf[len++] = (char)c;
    }
    if (c == EOF && src->f && ferror(src->f))
        return app_fail_at(APP_ERR_IO, p->name, p->line, "reading failed: %s",
                           strerror(errno));
    p->buf[len] = '\0';
    return c != EOF || len > 0;
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Cuts p->buf into whitespace-separated tokens, in place, up to a '#'. */
static void split_tokens(parser *p)
{
    char *s = p->buf;
    p->n_tokens = 0;
    for (;;) {
        while (is_blank(*s))
            s++;
        if (*s == '\0' || *s == '#')
            return;
        p->tokens[p->n_tokens++] = s;
        while (*s != '\0' && *s != '#' && !is_blank(*s))
            s++;
        if (*s == '#') {
            *s = '\0';
            return;
        }
        if (*s != '\0')
            *s++ = '\0';
    }
}

/* ------------------------------------------------------------------------ */
/* Loading                                                                    */
/* ------------------------------------------------------------------------ */

/* scene is an output: whatever it held is not freed. On an error it is
 * left empty, as rt_scene_init makes it. */
static int load(rt_scene *scene, source *src, const char *name)
{
    rt_scene_init(scene);
    parser *p = calloc(1, sizeof *p);
    if (!p)
        return app_fail(APP_ERR_NO_MEMORY, "%s: out of memory for "
                        "the scene parser", name);
    p->scene = scene;
    p->name = name;
    c_numbers cn;
    c_numbers_begin(&cn);
    int rc;
    while ((rc = read_line(p, src)) > 0) {
        split_tokens(p);
        if (p->n_tokens == 0)
            continue;
        p->statements++;
        if ((rc = parse_statement(p)) != 0)
            break;
    }
    /* Every statement may be left out, but not all of them: an empty
     * input is a wrong file or one cut short (/dev/null, a failed
     * download), not a scene anyone meant. */
    if (rc == 0 && p->statements == 0)
        rc = app_fail(APP_ERR_BAD_INPUT, "%s: no statement (expected at "
                      "least one of camera, background, ambient, depth, "
                      "material, light, sphere or plane): an empty scene "
                      "file?", name);
    c_numbers_end(&cn);
    free(p->material_line);
    free(p->slots);
    free(p);
    if (rc != 0)
        rt_scene_free(scene);
    return rc;
}

int rt_scene_load(rt_scene *scene, FILE *f, const char *name)
{
    if (!name)
        name = "<scene>";
    if (!f) {
        rt_scene_init(scene);
        return app_fail(APP_ERR_USAGE, "rt_scene_load: no stream "
                        "for %s", name);
    }
    source src = {f, NULL};
    flockfile(f);
    int rc = load(scene, &src, name);
    funlockfile(f);
    return rc;
}

int rt_scene_parse(rt_scene *scene, const char *text, const char *name)
{
    source src = {NULL, text ? text : ""};
    return load(scene, &src, name ? name : "<scene>");
}

int rt_scene_load_file(rt_scene *scene, const char *path)
{
    if (!path) {
        rt_scene_init(scene);
        return app_fail(APP_ERR_USAGE, "rt_scene_load_file: no path");
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        rt_scene_init(scene);
        return app_fail(APP_ERR_IO, "cannot open scene file %s: %s",
                        path, strerror(errno));
    }
    int rc = rt_scene_load(scene, f, path);
    fclose(f);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Saving                                                                     */
/* ------------------------------------------------------------------------ */

/* v with the fewest digits that read back as v: "%.7g" when that is
 * exact (as for every number a person typed, 0.6 rather than
 * 0.600000024), else "%.9g", which always is. */
static const char *number(char buf[24], float v)
{
    float back;
    snprintf(buf, 24, "%.7g", (double)v);
    if (parse_float(buf, &back) && memcmp(&back, &v, sizeof v) == 0)
        return buf;
    snprintf(buf, 24, "%.9g", (double)v);
    return buf;
}

/* A statement being written: the keyword in a column of 10, then items
 * two spaces apart, as in README's examples. */
typedef struct line_out {
    FILE *f;
    int items;
} line_out;

static line_out begin_line(FILE *f, const char *keyword)
{
    fprintf(f, "%-10s", keyword);
    return (line_out){f, 0};
}

static void put_word(line_out *o, const char *word)
{
    fprintf(o->f, "%s%s", o->items++ ? "  " : " ", word);
}

static void put_number(line_out *o, const char *key, float v)
{
    char a[24];
    fprintf(o->f, "%s%s %s", o->items++ ? "  " : " ", key, number(a, v));
}

static void put_vec3(line_out *o, const char *key, const float *v)
{
    char a[24], b[24], c[24];
    fprintf(o->f, "%s%s %s %s %s", o->items++ ? "  " : " ", key,
            number(a, v[0]), number(b, v[1]), number(c, v[2]));
}

/* What a saved scene must satisfy to be read back: material names that
 * the format allows and material indices in range. */
static int check_savable(const rt_scene *s)
{
    for (uint32_t i = 0; i < s->n_materials; i++)
        if (!is_name(s->material_names[i]))
            return app_fail(APP_ERR_BAD_INPUT, "rt_scene_save: "
                            "material %u's name is not a valid name "
                            "([A-Za-z_][A-Za-z0-9_-]*, at most %d "
                            "characters)", i, RT_NAME_MAX - 1);
    for (uint32_t i = 0; i < s->n_spheres; i++)
        if (s->sphere_material[i] < 0 ||
            (uint32_t)s->sphere_material[i] >= s->n_materials)
            return app_fail(APP_ERR_BAD_INPUT, "rt_scene_save: "
                            "sphere %u has material %d of %u", i,
                            s->sphere_material[i], s->n_materials);
    for (uint32_t i = 0; i < s->n_planes; i++)
        if (s->planes[i].material < 0 ||
            (uint32_t)s->planes[i].material >= s->n_materials)
            return app_fail(APP_ERR_BAD_INPUT, "rt_scene_save: "
                            "plane %u has material %d of %u", i,
                            s->planes[i].material, s->n_materials);
    return 0;
}

static void write_settings(const rt_scene *s, FILE *f)
{
    line_out o = begin_line(f, "camera");
    put_vec3(&o, "position", s->camera.position);
    put_vec3(&o, "look_at", s->camera.look_at);
    put_vec3(&o, "up", s->camera.up);
    put_number(&o, "fov", s->camera.fov_degrees);
    char r[24], g[24], b[24];
    fprintf(f, "\nbackground %s %s %s\n", number(r, s->background[0]),
            number(g, s->background[1]), number(b, s->background[2]));
    fprintf(f, "ambient    %s\ndepth      %d\n\n", number(r, s->ambient),
            s->max_depth);
}

static void write_materials(const rt_scene *s, FILE *f)
{
    for (uint32_t i = 0; i < s->n_materials; i++) {
        const rt_material *m = &s->materials[i];
        line_out o = begin_line(f, "material");
        put_word(&o, s->material_names[i]);
        put_vec3(&o, "colour", m->colour.s);
        put_number(&o, "reflect", m->reflectivity);
        put_number(&o, "specular", m->specular);
        put_number(&o, "shininess", m->shininess);
        fputc('\n', f);
    }
}

static void write_lights_and_planes(const rt_scene *s, FILE *f)
{
    for (uint32_t i = 0; i < s->n_lights; i++) {
        line_out o = begin_line(f, "light");
        put_vec3(&o, "position", s->lights[i].position.s);
        put_vec3(&o, "colour", s->lights[i].colour.s);
        fputc('\n', f);
    }
    for (uint32_t i = 0; i < s->n_planes; i++) {
        const rt_plane *pl = &s->planes[i];
        line_out o = begin_line(f, "plane");
        put_vec3(&o, "normal", pl->normal_offset.s);
        put_number(&o, "offset", pl->normal_offset.s[3]);
        put_word(&o, "material");
        fprintf(f, " %s\n", s->material_names[pl->material]);
    }
}

static void write_spheres(const rt_scene *s, FILE *f)
{
    for (uint32_t i = 0; i < s->n_spheres; i++) {
        line_out o = begin_line(f, "sphere");
        put_vec3(&o, "centre", s->spheres[i].s);
        put_number(&o, "radius", s->spheres[i].s[3]);
        put_word(&o, "material");
        fprintf(f, " %s\n", s->material_names[s->sphere_material[i]]);
    }
}

/* Groups of statements a blank line apart; materials first, since the
 * objects name them. */
int rt_scene_save(const rt_scene *scene, FILE *f)
{
    if (!scene || !f)
        return app_fail(APP_ERR_USAGE, "rt_scene_save: no %s",
                        scene ? "stream" : "scene");
    int rc = check_savable(scene);
    if (rc != 0)
        return rc;
    c_numbers cn;
    c_numbers_begin(&cn);
    write_settings(scene, f);
    write_materials(scene, f);
    if (scene->n_materials > 0)
        fputc('\n', f);
    write_lights_and_planes(scene, f);
    if (scene->n_lights + scene->n_planes > 0 && scene->n_spheres > 0)
        fputc('\n', f);
    write_spheres(scene, f);
    c_numbers_end(&cn);
    if (fflush(f) != 0 || ferror(f))
        return app_fail(APP_ERR_IO, "writing the scene failed: %s",
                        strerror(errno));
    return 0;
}
