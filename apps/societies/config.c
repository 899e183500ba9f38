/*
 * config.c: the Societies configuration: defaults, key = value text with
 * errors that name the line, the ranges every value must lie in, and the
 * build definitions for kernels.
 */
#include "societies.h"
#include "common/parse.h"
#include "common/error.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void societies_config_default(societies_config *c)
{
    memset(c, 0, sizeof *c);
    c->agents = 1000;
    c->resources = 16;
    c->days = 10;
    c->minutes_per_day = 600;
    c->max_experience = 100;
    c->menu_size = 4;
    c->trades_per_pairing = 4;
    c->idle_penalty = 1;
    c->epsilon = 0.05f;
    c->min_effort = 1.0f;
    c->max_effort = 10.0f;
    c->seed = 1;
    for (int r = 0; r < SOCIETIES_MAX_RESOURCES; r++) {
        c->utility_level[r] = 1.0f;
        c->utility_root[r] = 2.0f;
    }
}

/* The whole-number keys, their fields and ranges. */
typedef struct int_key {
    const char *name;
    size_t offset;
    unsigned long lo, hi;
} int_key;

#define INT_KEY(field, lo, hi) \
    {#field, offsetof(societies_config, field), lo, hi}
static const int_key int_keys[] = {
    INT_KEY(agents, 1, SOCIETIES_MAX_AGENTS),
    INT_KEY(resources, 1, SOCIETIES_MAX_RESOURCES),
    INT_KEY(days, 0, 1000000),
    INT_KEY(minutes_per_day, 1, 1000000),
    INT_KEY(max_experience, 1, 1000000000),
    INT_KEY(menu_size, 1, SOCIETIES_MAX_MENU),
    INT_KEY(trades_per_pairing, 0, 1000000),
    INT_KEY(idle_penalty, 0, 1000000000),
};

/* A list of 1 or up to SOCIETIES_MAX_RESOURCES numbers into out; their
 * count, or -1 if a word is not a finite number. */
static int parse_list(char *text, float *out)
{
    int n = 0;
    for (char *word = strtok(text, " \t"); word; word = strtok(NULL, " \t")) {
        if (n == SOCIETIES_MAX_RESOURCES || !parse_float(word, &out[n]))
            return -1;
        n++;
    }
    return n;
}

/* "NAME:LINE: ..." as a bad-input error. */
#define BAD(name, line, fmt, ...)                                           \
    app_fail_at(APP_ERR_BAD_INPUT, (name), (unsigned long)(line), fmt,      \
                __VA_ARGS__)

/* One "key = value" line (trimmed, not blank, not a comment). */
static int apply(char *line, const char *name, int number,
                 societies_config *c, int counts[2], int list_line[2])
{
    char *eq = strchr(line, '=');
    if (!eq)
        return BAD(name, number, "\"%.60s\" is not key = value", line);
    char *key = line, *value = eq + 1;
    char *end = eq;
    while (end > key && isspace((unsigned char)end[-1]))
        end--;
    *end = '\0';
    while (isspace((unsigned char)*value))
        value++;
    if (!*key || !*value)
        return BAD(name, number, "%.60s: a key and a value are needed",
                   *key ? key : "(no key)");
    for (size_t i = 0; i < sizeof int_keys / sizeof *int_keys; i++) {
        const int_key *k = &int_keys[i];
        if (strcmp(key, k->name) != 0)
            continue;
        unsigned long v;
        if (!parse_uint(value, k->lo, k->hi, &v)) {
            return BAD(name, number, "%s = %.60s: a whole number from %lu "
                       "to %lu is needed", key, value, k->lo, k->hi);
        }
        *(CLF_INT *)((char *)c + k->offset) = (CLF_INT)v;
        return 0;
    }
    if (strcmp(key, "seed") == 0) {
        unsigned long v;
        if (!parse_uint(value, 0, (unsigned long)-1, &v))
            return BAD(name, number, "seed = %.60s: a whole number is "
                       "needed", value);
        c->seed = v;
        return 0;
    }
    float *floats[] = {&c->epsilon, &c->min_effort, &c->max_effort};
    const char *float_names[] = {"epsilon", "min_effort", "max_effort"};
    for (int i = 0; i < 3; i++)
        if (strcmp(key, float_names[i]) == 0) {
            if (!parse_float(value, floats[i]))
                return BAD(name, number, "%s = %.60s: a number is needed",
                           key, value);
            return 0;
        }
    int which = strcmp(key, "utility_level") == 0 ? 0
              : strcmp(key, "utility_root") == 0 ? 1 : -1;
    if (which < 0)
        return BAD(name, number, "unknown key \"%.60s\" (the keys are in "
                   "apps/societies/societies.h)", key);
    float list[SOCIETIES_MAX_RESOURCES];
    int n = parse_list(value, list);
    if (n < 1)
        return BAD(name, number, "%s: finite numbers are needed, at most %d",
                   key, SOCIETIES_MAX_RESOURCES);
    float *field = which ? c->utility_root : c->utility_level;
    for (int r = 0; r < SOCIETIES_MAX_RESOURCES; r++)
        field[r] = list[n == 1 ? 0 : r < n ? r : n - 1];
    counts[which] = n;
    list_line[which] = number;
    return 0;
}

int societies_config_parse(const char *text, const char *name,
                           societies_config *c)
{
    if (!text || !c)
        return app_fail(APP_ERR_USAGE, "societies_config_parse: "
                        "NULL");
    name = name ? name : "configuration";
    int counts[2] = {1, 1}, list_line[2] = {0, 0}, number = 0;
    const char *p = text;
    while (*p) {
        number++;
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char line[4096];
        if (len >= sizeof line)
            return BAD(name, number, "the line is longer than %zu "
                       "characters", sizeof line - 1);
        memcpy(line, p, len);
        line[len] = '\0';
        p += len + (nl != NULL);
        char *s = line, *e = line + len;
        while (isspace((unsigned char)*s))
            s++;
        while (e > s && isspace((unsigned char)e[-1]))
            *--e = '\0';
        if (!*s || *s == '#')
            continue;
        int rc = apply(s, name, number, c, counts, list_line);
        if (rc)
            return rc;
    }
    static const char *const lists[2] = {"utility_level", "utility_root"};
    for (int w = 0; w < 2; w++)
        if (counts[w] > 1 && counts[w] != c->resources)
            return BAD(name, list_line[w], "%s lists %d values for %d "
                       "resources (give one for all, or one each)", lists[w],
                       counts[w], c->resources);
    int rc = societies_config_check(c, 0);
    if (rc) {
        char why[512];          /* the message is rewritten below */
        snprintf(why, sizeof why, "%s", app_last_error());
        return app_fail(rc, "%s: %s", name, why);
    }
    return 0;
}

int societies_config_read(const char *path, societies_config *c)
{
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (!f)
        return app_fail(APP_ERR_IO, "%s: cannot read it: %s",
                        path ? path : "(no path)", strerror(errno));
    char *text = NULL;
    size_t size = 0, cap = 0, got;
    char chunk[4096];
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (size + got + 1 > cap) {
            cap = 2 * (size + got + 1);
            char *more = realloc(text, cap);
            if (!more) {
                free(text);
                fclose(f);
                return app_fail(APP_ERR_NO_MEMORY, "%s: no memory",
                                path);
            }
            text = more;
        }
        memcpy(text + size, chunk, got);
        size += got;
    }
    int failed = ferror(f);
    fclose(f);
    if (failed) {
        free(text);
        return app_fail(APP_ERR_IO, "%s: reading failed", path);
    }
    if (memchr(text ? text : "", '\0', size)) {
        free(text);
        return app_fail(APP_ERR_BAD_INPUT, "%s: not a text file (a "
                        "NUL byte)", path);
    }
    if (text)
        text[size] = '\0';
    int rc = societies_config_parse(text ? text : "", path, c);
    free(text);
    return rc;
}

int societies_config_check(const societies_config *c, size_t max_resources)
{
    if (!c)
        return app_fail(APP_ERR_USAGE, "societies_config_check: "
                        "NULL");
    size_t most = max_resources && max_resources < SOCIETIES_MAX_RESOURCES
                      ? max_resources : SOCIETIES_MAX_RESOURCES;
    const char *why = NULL;
    if (c->agents < 1 || c->agents > SOCIETIES_MAX_AGENTS)
        why = "agents must be 1 to 4194304 (2^22: a random stream each, "
              "societies.h)";
    else if (c->resources < 1 || (size_t)c->resources > most)
        why = "resources must be 1 to the device's work-group size (and at "
              "most 256)";
    else if (c->days < 0 || c->minutes_per_day < 1)
        why = "days must be 0 or more and minutes_per_day at least 1";
    else if (c->max_experience < 1 || c->idle_penalty < 0)
        why = "max_experience must be at least 1, idle_penalty 0 or more";
    else if (c->menu_size < 1 || c->menu_size > c->resources ||
             c->menu_size > SOCIETIES_MAX_MENU)
        why = "menu_size must be 1 to resources, and at most 16 (the device "
              "keeps menu_size^2 offers in local memory)";
    else if (c->trades_per_pairing < 0)
        why = "trades_per_pairing must be 0 or more";
    else if (!(c->epsilon >= 0.0f && c->epsilon < 1.0f))
        why = "epsilon must be at least 0 and below 1";
    else if (!(c->min_effort > 0.0f && c->max_effort >= c->min_effort))
        why = "min_effort must be above 0 and max_effort at least min_effort";
    for (int r = 0; !why && r < c->resources; r++)
        if (!(c->utility_level[r] > 0.0f))
            why = "every utility_level must be above 0";
        else if (!(c->utility_root[r] >= 1.0f))
            why = "every utility_root must be at least 1";
    if (!why)
        return 0;
    return app_fail(APP_ERR_BAD_INPUT, "configuration: %s", why);
}

int societies_config_defines(const societies_config *c, char *buf,
                             size_t size)
{
    int n = snprintf(buf, size,
                     "-DSOCIETIES_RESOURCES=%d -DSOCIETIES_MINUTES_PER_DAY=%d "
                     "-DSOCIETIES_MAX_EXPERIENCE=%d -DSOCIETIES_MENU_SIZE=%d "
                     "-DSOCIETIES_TRADES_PER_PAIRING=%d "
                     "-DSOCIETIES_IDLE_PENALTY=%d -DSOCIETIES_EPSILON=%#.9gf "
                     "-DSOCIETIES_MIN_EFFORT=%#.9gf "
                     "-DSOCIETIES_MAX_EFFORT=%#.9gf",
                     c->resources, c->minutes_per_day, c->max_experience,
                     c->menu_size, c->trades_per_pairing, c->idle_penalty,
                     (double)c->epsilon, (double)c->min_effort,
                     (double)c->max_effort);
    if (n < 0 || (size_t)n >= size)
        return app_fail(APP_ERR_USAGE, "societies_config_defines: "
                        "%d characters do not fit in %zu", n, size);
    return 0;
}
