/*
 * config.c: the Societies configuration: defaults, key = value text (a
 * comment after '#', each key once) with errors that name the line, read
 * from a file with bounds (common/text.h), the ranges every value must
 * lie in, and the build definitions for kernels.
 */
#include "societies.h"
#include "common/parse.h"
#include "common/error.h"
#include "common/text.h"

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

/* What a key's value is. */
typedef enum key_kind { KEY_INT, KEY_SEED, KEY_FLOAT, KEY_LIST } key_kind;

/* A key, its value's kind, its field and (KEY_INT) the value's range. */
typedef struct config_key {
    const char *name;
    key_kind kind;
    size_t offset;
    unsigned long lo, hi;
} config_key;

#define INT_KEY(field, lo, hi) \
    {#field, KEY_INT, offsetof(societies_config, field), lo, hi}
#define KEY(field, kind) {#field, kind, offsetof(societies_config, field), 0, 0}
static const config_key keys[] = {
    INT_KEY(agents, 1, SOCIETIES_MAX_AGENTS),
    INT_KEY(resources, 1, SOCIETIES_MAX_RESOURCES),
    INT_KEY(days, 0, 1000000),
    INT_KEY(minutes_per_day, 1, 1000000),
    INT_KEY(max_experience, 1, 1000000000),
    INT_KEY(menu_size, 1, SOCIETIES_MAX_MENU),
    INT_KEY(trades_per_pairing, 0, 1000000),
    INT_KEY(idle_penalty, 0, 1000000000),
    KEY(seed, KEY_SEED),
    KEY(epsilon, KEY_FLOAT),
    KEY(min_effort, KEY_FLOAT),
    KEY(max_effort, KEY_FLOAT),
    KEY(utility_level, KEY_LIST),
    KEY(utility_root, KEY_LIST),
};
enum { KEY_COUNT = sizeof keys / sizeof *keys };

/* A configuration being read, a line at a time. */
typedef struct config_parser {
    societies_config *c;
    const char *name;               /* what messages call the text */
    unsigned long set_on[KEY_COUNT];/* the line that set each key; 0: none */
    int listed[KEY_COUNT];          /* KEY_LIST: how many values it gave */
} config_parser;

/* The longest line, its end included. */
enum { LINE_MAX_BYTES = 4096 };

/* The numbers of a list, the first SOCIETIES_MAX_RESOURCES into out: how
 * many words it has (more than out holds, too, so that a message can say
 * how many), or -1 with *bad the first word that is not a finite number. */
static long parse_list(char *text, float *out, const char **bad)
{
    long n = 0;
    float ignored;
    for (char *word = strtok(text, " \t"); word; word = strtok(NULL, " \t")) {
        if (!parse_float(word, n < SOCIETIES_MAX_RESOURCES ? &out[n]
                                                           : &ignored)) {
            *bad = word;
            return -1;
        }
        n++;
    }
    return n;
}

/* "NAME:LINE: ..." as a bad-input error. */
#define BAD(name, line, fmt, ...)                                           \
    app_fail_at(APP_ERR_BAD_INPUT, (name), (unsigned long)(line), fmt,      \
                __VA_ARGS__)

/* Stores key k's value, from line `number`. */
static int set_value(config_parser *p, const config_key *k, char *value,
                     unsigned long number)
{
    char *field = (char *)p->c + k->offset;
    unsigned long v;
    switch (k->kind) {
    case KEY_INT:
        if (!parse_uint(value, k->lo, k->hi, &v))
            return BAD(p->name, number, "%s = %.60s: a whole number from "
                       "%lu to %lu is needed", k->name, value, k->lo, k->hi);
        *(CLF_INT *)field = (CLF_INT)v;
        return 0;
    case KEY_SEED:
        if (!parse_uint(value, 0, (unsigned long)-1, &v))
            return BAD(p->name, number, "%s = %.60s: a whole number is "
                       "needed", k->name, value);
        *(CLF_ULONG *)field = v;
        return 0;
    case KEY_FLOAT:
        if (!parse_float(value, (float *)field))
            return BAD(p->name, number, "%s = %.60s: a number is needed",
                       k->name, value);
        return 0;
    case KEY_LIST: {
        float list[SOCIETIES_MAX_RESOURCES];
        const char *bad = "";
        long n = parse_list(value, list, &bad);
        if (n < 0)
            return BAD(p->name, number, "%s: '%.60s' is not a finite number",
                       k->name, bad);
        if (n < 1 || n > SOCIETIES_MAX_RESOURCES)
            return BAD(p->name, number, "%s lists %ld values; give one for "
                       "all, or one per resource (at most %d)", k->name, n,
                       SOCIETIES_MAX_RESOURCES);
        for (int r = 0; r < SOCIETIES_MAX_RESOURCES; r++)
            ((float *)field)[r] = list[n == 1 ? 0 : r < n ? r : n - 1];
        p->listed[k - keys] = (int)n;
        return 0;
    }
    }
    return app_fail(APP_ERR_USAGE, "societies config: key kind %d",
                    (int)k->kind);
}

/* One "key = value" line (trimmed, not blank, no comment). A key may be
 * given once: a second value would silently replace the first, so it is
 * refused. */
static int apply(config_parser *p, char *line, unsigned long number)
{
    char *eq = strchr(line, '=');
    if (!eq)
        return BAD(p->name, number, "\"%.60s\" is not key = value", line);
    char *key = line, *value = eq + 1;
    char *end = eq;
    while (end > key && isspace((unsigned char)end[-1]))
        end--;
    *end = '\0';
    while (isspace((unsigned char)*value))
        value++;
    if (!*key || !*value)
        return BAD(p->name, number, "%.60s: a key and a value are needed",
                   *key ? key : "(no key)");
    const config_key *k = keys;
    while (k < keys + KEY_COUNT && strcmp(key, k->name) != 0)
        k++;
    if (k == keys + KEY_COUNT)
        return BAD(p->name, number, "unknown key \"%.60s\" (the keys are in "
                   "apps/societies/societies.h)", key);
    if (p->set_on[k - keys])
        return BAD(p->name, number, "%s is given again: line %lu gave it "
                   "already (a key may be given once)", k->name,
                   p->set_on[k - keys]);
    int rc = set_value(p, k, value, number);
    if (rc == 0)
        p->set_on[k - keys] = number;
    return rc;
}

/* One line of the text, as it came: a comment runs from '#' to the end of
 * the line, after a value too; what is left is trimmed, and a blank line
 * skipped. */
static int parse_line(config_parser *p, char *line, unsigned long number)
{
    line[strcspn(line, "#")] = '\0';
    char *s = line, *e = line + strlen(line);
    while (isspace((unsigned char)*s))
        s++;
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return *s ? apply(p, s, number) : 0;
}

/* After the last line: the lists' lengths, then every range. */
static int parse_end(config_parser *p)
{
    for (const config_key *k = keys; k < keys + KEY_COUNT; k++)
        if (k->kind == KEY_LIST && p->listed[k - keys] > 1 &&
            p->listed[k - keys] != p->c->resources)
            return BAD(p->name, p->set_on[k - keys], "%s lists %d values "
                       "for %d resources (give one for all, or one each)",
                       k->name, p->listed[k - keys], p->c->resources);
    int rc = societies_config_check(p->c, 0);
    if (rc) {
        char why[512];          /* the message is rewritten below */
        snprintf(why, sizeof why, "%s", app_last_error());
        return app_fail(rc, "%s: %s", p->name, why);
    }
    return 0;
}

int societies_config_parse(const char *text, const char *name,
                           societies_config *c)
{
    if (!text || !c)
        return app_fail(APP_ERR_USAGE, "societies_config_parse: "
                        "NULL");
    config_parser p = {c, name ? name : "configuration", {0}, {0}};
    unsigned long number = 0;
    for (const char *at = text; *at;) {
        number++;
        size_t len = strcspn(at, "\n");
        char line[LINE_MAX_BYTES];
        if (len >= sizeof line)
            return BAD(p.name, number, "the line is longer than %zu "
                       "characters", sizeof line - 1);
        memcpy(line, at, len);
        line[len] = '\0';
        at += len + (at[len] == '\n');
        int rc = parse_line(&p, line, number);
        if (rc)
            return rc;
    }
    return parse_end(&p);
}

int societies_config_read(const char *path, societies_config *c)
{
    if (!c)
        return app_fail(APP_ERR_USAGE, "societies_config_read: NULL");
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (!f)
        return app_fail(APP_ERR_IO, "%s: cannot read it: %s",
                        path ? path : "(no path)", strerror(errno));
    config_parser p = {c, path, {0}, {0}};
    text_reader lines = {f, path, SOCIETIES_CONFIG_MAX_BYTES, 0, 0};
    char line[LINE_MAX_BYTES];
    int got;
    while ((got = text_read_line(&lines, line, sizeof line)) == TEXT_LINE) {
        int rc = parse_line(&p, line, lines.line);
        if (rc) {
            fclose(f);
            return rc;
        }
    }
    fclose(f);
    if (got == TEXT_TOO_LONG)       /* its message is set */
        return APP_ERR_BAD_INPUT;
    return got < 0 ? got : parse_end(&p);
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
