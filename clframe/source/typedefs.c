/*
 * typedefs.c: the typedefs of an OpenCL C source, so that a type is known by
 * any of its names. `typedef float real; typedef real real_arg;` makes
 * real_arg a float however deep the chain; `typedef struct pair_s {...} Duo;`
 * makes Duo, pair_s and "struct pair_s" one type; `typedef __global float
 * *gptr;` makes a gptr parameter a __global float pointer. Parameters and
 * the names a caller gives (CLARG_TYPED("real", ...)) are both brought to
 * one canonical name: a built-in type, or a struct's (union's, enum's) tag,
 * or the typedef name of a struct that has no tag.
 *
 * The source is read as text after comments, literals and preprocessor
 * lines are blanked (a preprocessed view, preproc.c), at file scope only: a
 * function's own typedefs are not its kernels' parameters'. Array and
 * function typedefs are not followed: such a name stays itself.
 */
#include "source.h"

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
    char target[NAME_MAX_];     /* the type it names, normalized; for a
                                   pointer typedef, what it points to */
    int pointer;                /* a pointer typedef, */
    cl_kernel_arg_address_qualifier space; /* to this space, or PRIVATE */
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

static void add(clf_typedefs *t, const char *name, const char *target,
                int pointer, cl_kernel_arg_address_qualifier space)
{
    if (!name[0] || !target[0] || (!pointer && strcmp(name, target) == 0) ||
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
    e->pointer = pointer;
    e->space = space;
}

/* The words `const`, `volatile` and the like, which do not change which
 * type a typedef names. */
static int qualifier(const char *w)
{
    static const char *const words[] = {"const", "volatile", "restrict",
                                        "__restrict", "__restrict__", NULL};
    for (const char *const *q = words; *q; q++)
        if (strcmp(w, *q) == 0)
            return 1;
    return 0;
}

/* The type that `words` name (n of them): a struct's tag ("struct tag"),
 * a built-in type in one word, or one name; "" if not understood. */
static void base_type(char words[][NAME_MAX_], int n, int aggregate,
                      char *out, size_t size)
{
    out[0] = '\0';
    if (aggregate) {                /* struct tag; struct (no tag): none */
        if (n == 2)
            snprintf(out, size, "%s", words[1]);
        return;
    }
    char joined[NAME_MAX_ * 8 + 8];
    size_t used = 0;
    for (int i = 0; i < n; i++) {       /* 8 words of NAME_MAX_ at most */
        size_t len = strnlen(words[i], NAME_MAX_ - 1);
        if (used)
            joined[used++] = ' ';
        memcpy(joined + used, words[i], len);
        used += len;
    }
    joined[used] = '\0';
    int ptr;
    clf_normalize_type(joined, out, size, &ptr);
    if (n > 1 && !clf_builtin_size(out) && strcmp(out, "void"))
        out[0] = '\0';             /* "unsigned foo": not understood */
}

/* Reads the typedef whose text starts at p (just past the word typedef)
 * and ends at the ';' at depth 0: its base type, then one or more
 * declarators (`name`, `*name`), each a typedef of its own. Returns where
 * reading stopped. */
static const char *read_one(clf_typedefs *t, const char *p)
{
    char words[8][NAME_MAX_];
    int n = 0, body = 0;
    cl_kernel_arg_address_qualifier space = CL_KERNEL_ARG_ADDRESS_PRIVATE;
    p = skip_space(p);
    /* The base type: words up to the first declarator's name, which is
     * the last word before a ',' or ';' (or follows a '*'). */
    while (*p && *p != ';' && *p != ',' && *p != '*') {
        if (*p == '{') {                /* struct/union/enum { ... } */
            p = skip_space(past_braces(p));
            body = 1;
            continue;
        }
        if (!is_ident_char(*p))
            return p;                   /* arrays, functions, attributes */
        char w[NAME_MAX_];
        take_ident(&p, w, sizeof w);
        if (qualifier(w))
            continue;
        if (clf_space_of_word(w) != CL_KERNEL_ARG_ADDRESS_PRIVATE) {
            space = clf_space_of_word(w);
            continue;
        }
        if (n == 8)
            return p;                   /* not a typedef read here */
        snprintf(words[n++], sizeof words[0], "%s", w);
    }
    int aggregate = n && (!strcmp(words[0], "struct") ||
                          !strcmp(words[0], "union") ||
                          !strcmp(words[0], "enum"));
    /* Without a '*', the last word was the first declarator's name. */
    char first[NAME_MAX_] = "";
    if (*p != '*') {
        if (n < 2)
            return p;
        snprintf(first, sizeof first, "%s", words[--n]);
    }
    if (aggregate && n == 1 && !body)
        return p;                       /* "struct" alone */
    char base[NAME_MAX_];
    base_type(words, n, aggregate, base, sizeof base);
    if (first[0])
        add(t, first, base, 0, CL_KERNEL_ARG_ADDRESS_PRIVATE);
    /* The other declarators: `, name` or `*name`, up to the ';'. */
    while (*p && *p != ';') {
        int pointer = 0;
        if (*p == ',')
            p = skip_space(p + 1);
        while (*p == '*' || is_ident_char(*p)) {
            if (*p == '*') {
                pointer++;
                p = skip_space(p + 1);
                continue;
            }
            char w[NAME_MAX_];
            take_ident(&p, w, sizeof w);
            if (qualifier(w))
                continue;
            /* One level of pointer is a parameter's type; more is not
             * something the host can pass, so the name stays itself. */
            if (pointer <= 1 && base[0])
                add(t, w, base, pointer,
                    pointer ? space : CL_KERNEL_ARG_ADDRESS_PRIVATE);
            break;
        }
        if (*p != ',' && *p != ';')
            return p;                   /* arrays, functions */
    }
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
    int depth = 0;                      /* file scope only */
    for (const char *p = clean; *p;) {
        if (*p == '{' || *p == '}') {
            depth += *p == '{' ? 1 : depth > 0 ? -1 : 0;
            p++;
        } else if (depth == 0 && !strncmp(p, "typedef", 7) &&
                   (p == clean || !is_ident_char(p[-1])) &&
                   !is_ident_char(p[7])) {
            p = read_one(t, p + 7);
        } else {
            p++;
        }
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

static const entry *lookup(const clf_typedefs *t, const char *name)
{
    /* The last definition wins, as in a source read top to bottom (a
     * typedef may be repeated, identically, since C11). */
    for (int i = t->n - 1; i >= 0; i--)
        if (strcmp(t->e[i].name, name) == 0)
            return &t->e[i];
    return NULL;
}

int clf_typedefs_follow(const clf_typedefs *t, const char *type, char *out,
                        size_t size, cl_kernel_arg_address_qualifier *space)
{
    char name[NAME_MAX_];
    int ptr, pointers = 0;
    clf_normalize_type(type, name, sizeof name, &ptr);
    for (int hop = 0; t && hop < MAX_CHAIN; hop++) {
        const entry *e = lookup(t, name);
        if (!e)
            break;
        if (e->pointer) {
            pointers++;
            if (space)
                *space = e->space;
        }
        snprintf(name, sizeof name, "%s", e->target);
    }
    snprintf(out, size, "%s", name);
    return pointers;
}

void clf_typedefs_resolve(const clf_typedefs *t, const char *type, char *out,
                          size_t size)
{
    clf_typedefs_follow(t, type, out, size, NULL);
}

/* clf_typedefs_resolve as a clf_type_names wants it. */
static void resolve_names(const void *names, const char *type, char *out,
                          size_t size)
{
    clf_typedefs_resolve(names, type, out, size);
}

clf_type_names clf_typedefs_names(const clf_typedefs *td)
{
    return (clf_type_names){.resolve = resolve_names, .names = td};
}
