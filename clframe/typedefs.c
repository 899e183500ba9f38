/*
 * typedefs.c: the typedefs of an OpenCL C source, so that a type is known by
 * any of its names. `typedef float real; typedef real real_arg;` makes
 * real_arg a float however deep the chain; `typedef struct pair_s {...} Duo;`
 * makes Duo, pair_s and "struct pair_s" one type. Parameters and the names a
 * caller gives (CLARG_TYPED("real", ...)) are both brought to one canonical
 * name: a built-in type, or a struct's (union's, enum's) tag, or the typedef
 * name of a struct that has no tag.
 *
 * The source is read as text after comments, literals and preprocessor
 * lines are blanked (a preprocessed view, preproc.c). Pointer, array and
 * function typedefs are not followed: such a name stays itself.
 */
#include "internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    MAX_TYPEDEFS = 4096,        /* a source's typedefs read, at most */
    MAX_CHAIN = 64,             /* a name's typedef of a typedef of ... */
    NAME_MAX_ = 128
};

typedef struct entry {
    char name[NAME_MAX_];
    char target[NAME_MAX_];     /* the type it names, normalized */
} entry;

struct clf_typedefs {
    entry *e;
    int n, cap;
};

static int is_ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

static const char *skip_space(const char *p)
{
    while (isspace((unsigned char)*p))
        p++;
    return p;
}

/* Copies the identifier at *p into out (empty if none, cut at size), moves
 * *p past it and the spaces after it. */
static void take_ident(const char **p, char *out, size_t size)
{
    size_t len = 0;
    while (is_ident_char(**p)) {
        if (len + 1 < size)
            out[len++] = **p;
        (*p)++;
    }
    out[len] = '\0';
    *p = skip_space(*p);
}

/* From the '{' at q: just past its matching '}', or the text's end. */
static const char *past_braces(const char *q)
{
    for (int depth = 0; *q; q++) {
        depth += *q == '{' ? 1 : *q == '}' ? -1 : 0;
        if (depth == 0)
            return q + 1;
    }
    return q;
}

static void add(clf_typedefs *t, const char *name, const char *target)
{
    if (!name[0] || !target[0] || strcmp(name, target) == 0 ||
        t->n == MAX_TYPEDEFS)
        return;
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 32;
        entry *e = realloc(t->e, (size_t)cap * sizeof *e);
        if (!e)
            return;             /* the rest stay unknown: names as written */
        t->e = e;
        t->cap = cap;
    }
    entry *e = &t->e[t->n++];
    snprintf(e->name, sizeof e->name, "%s", name);
    snprintf(e->target, sizeof e->target, "%s", target);
}

/* The words `const`, `volatile` and the like, which do not change which
 * type a typedef names. */
static int qualifier(const char *w)
{
    static const char *const words[] = {"const", "volatile", "restrict",
                                        "__restrict", NULL};
    for (const char *const *q = words; *q; q++)
        if (strcmp(w, *q) == 0)
            return 1;
    return 0;
}

/* Reads the typedef whose text starts at p (just past the word typedef)
 * and ends at the ';' at depth 0; returns where reading stopped. */
static const char *read_one(clf_typedefs *t, const char *p)
{
    char words[8][NAME_MAX_];
    int n = 0, pointer = 0, tagged_body = 0;
    char tag[NAME_MAX_] = "";
    p = skip_space(p);
    while (*p && *p != ';') {
        if (*p == '{') {                /* struct/union/enum { ... } */
            p = skip_space(past_braces(p));
            tagged_body = 1;
            continue;
        }
        if (is_ident_char(*p)) {
            char w[NAME_MAX_];
            take_ident(&p, w, sizeof w);
            if (qualifier(w))
                continue;
            if (n == 8)
                return p;               /* not a typedef read here */
            snprintf(words[n++], sizeof words[0], "%s", w);
            continue;
        }
        if (*p == '*')
            pointer = 1;
        else
            return p;                   /* arrays, functions, lists */
        p = skip_space(p + 1);
    }
    if (pointer || n < 2)
        return p;
    const char *name = words[n - 1];
    int aggregate = !strcmp(words[0], "struct") || !strcmp(words[0], "union") ||
                    !strcmp(words[0], "enum");
    if (aggregate) {
        /* typedef struct tag {...} name;  typedef struct tag name;
         * typedef struct {...} name; (the name is the type's own) */
        if (n == 3)
            snprintf(tag, sizeof tag, "%s", words[1]);
        else if (n != 2 || !tagged_body)
            return p;
        add(t, name, tag);
        return p;
    }
    /* typedef <words> name: a built-in type, or one name (a typedef or a
     * struct's typedef name) */
    char joined[NAME_MAX_ * 2] = "";
    for (int i = 0; i < n - 1; i++) {
        size_t used = strlen(joined);
        snprintf(joined + used, sizeof joined - used, "%s%s", used ? " " : "",
                 words[i]);
    }
    char target[NAME_MAX_];
    int ptr;
    clf_normalize_type(joined, target, sizeof target, &ptr);
    if (n - 1 > 1 && !clf_builtin_size(target) && strcmp(target, "void"))
        return p;                       /* "unsigned foo": not understood */
    add(t, name, target);
    return p;
}

clf_typedefs *clf_typedefs_read(const char *source)
{
    clf_typedefs *t = calloc(1, sizeof *t);
    char *clean = clf_blank_comments(source, 1);
    if (!t || !clean) {
        free(t);
        free(clean);
        return NULL;
    }
    for (const char *p = clean; (p = strstr(p, "typedef"));) {
        if ((p > clean && is_ident_char(p[-1])) || is_ident_char(p[7])) {
            p += 7;
            continue;
        }
        p = read_one(t, p + 7);
    }
    free(clean);
    return t;
}

void clf_typedefs_free(clf_typedefs *t)
{
    if (t) {
        free(t->e);
        free(t);
    }
}

static const char *lookup(const clf_typedefs *t, const char *name)
{
    /* The last definition wins, as in a source read top to bottom (a
     * typedef may be repeated, identically, since C11). */
    for (int i = t->n - 1; i >= 0; i--)
        if (strcmp(t->e[i].name, name) == 0)
            return t->e[i].target;
    return NULL;
}

void clf_typedefs_resolve(const clf_typedefs *t, const char *type, char *out,
                          size_t size)
{
    char name[NAME_MAX_];
    int ptr;
    clf_normalize_type(type, name, sizeof name, &ptr);
    for (int hop = 0; t && hop < MAX_CHAIN; hop++) {
        const char *target = lookup(t, name);
        if (!target)
            break;
        snprintf(name, sizeof name, "%s", target);
    }
    snprintf(out, size, "%s", name);
}
