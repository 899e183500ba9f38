/*
 * proto.c: reading a device function's prototype from OpenCL C source.
 *
 * clfunction needs to know, for a function that is not a kernel, its return
 * type and each parameter's address space, type and pointer-ness, so it can
 * generate a kernel that calls it. The driver tells us nothing about such
 * functions, so we read the text, as the device compiler's preprocessor
 * leaves it (preproc.c: conditionals followed, macros expanded): comments,
 * literals and preprocessor lines are blanked first, then the function's
 * name is found where a type precedes it and a body or a ';' follows its
 * parameter list. typedefs of built-in types are followed, so `real
 * f(real x)` with `typedef float real;` takes a float, and clframe/shared.h's
 * words (CLF_INLINE, CLF_INT, CLF_GLOBAL, ...) are read as what they mean on
 * the device even where the header's own macros were not seen. What
 * preproc.c cannot expand cannot be read: clfunction_proto exists for that.
 */
#include "internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_ALIASES = 64, MAX_TOKENS = 64 };

typedef struct alias {
    char name[64];
    char type[64];              /* a built-in type name */
} alias;

typedef struct aliases {
    alias a[MAX_ALIASES];
    int n;
} aliases;

static int is_ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* ---- tokens -------------------------------------------------------------- */

typedef struct token {
    char text[128];
} token;

/* clframe/shared.h's words as the device compiler sees them, so that a
 * function of a shared header (docs/sharing.md) is read without help:
 * CLF_INLINE is a specifier, CLF_GLOBAL ... CLF_PRIVATE address spaces,
 * and CLF_INT, CLF_UCHAR4, ... the types in lower case. Other words are
 * left alone. */
static void device_word(char *w)
{
    static const char *const spaces[][2] = {
        {"CLF_INLINE", "inline"},     {"CLF_GLOBAL", "__global"},
        {"CLF_LOCAL", "__local"},     {"CLF_CONSTANT", "__constant"},
        {"CLF_PRIVATE", "__private"},
    };
    if (strncmp(w, "CLF_", 4) != 0)
        return;
    for (size_t i = 0; i < sizeof spaces / sizeof *spaces; i++)
        if (strcmp(w, spaces[i][0]) == 0) {
            strcpy(w, spaces[i][1]);
            return;
        }
    char lower[32];
    size_t n = strlen(w + 4);
    if (n == 0 || n >= sizeof lower)
        return;
    for (size_t i = 0; i <= n; i++)
        lower[i] = (char)tolower((unsigned char)w[4 + i]);
    if (clf_builtin_size(lower) > 0)
        strcpy(w, lower);
}

/* Splits [p, end) into identifiers, '*' and bracketed "[...]" groups;
 * anything else is returned as a one-character token. Identifiers from
 * clframe/shared.h are read as what they stand for (device_word). */
static int tokenize(const char *p, const char *end, token *t, int max)
{
    int n = 0;
    while (p < end && n < max) {
        if (isspace((unsigned char)*p)) {
            p++;
            continue;
        }
        const char *s = p;
        if (is_ident_char(*p)) {
            while (p < end && is_ident_char(*p))
                p++;
        } else if (*p == '[') {
            while (p < end && *p != ']')
                p++;
            if (p < end)
                p++;
        } else {
            p++;
        }
        size_t len = (size_t)(p - s);
        if (len >= sizeof t[n].text)
            len = sizeof t[n].text - 1;
        memcpy(t[n].text, s, len);
        t[n].text[len] = '\0';
        device_word(t[n].text);
        n++;
    }
    return n;
}

static int one_of(const char *word, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(word, *list) == 0)
            return 1;
    return 0;
}

/* Appends word to buf, after a space unless buf is empty or word is "*";
 * cut at size, as everything here is bounded by the buffers' sizes. */
static void append_word(char *buf, size_t size, const char *word)
{
    size_t used = strlen(buf);
    if (used + 1 < size)
        snprintf(buf + used, size - used, "%s%s",
                 used && strcmp(word, "*") ? " " : "", word);
}

static const char *const builtin_words[] = {
    "unsigned", "signed", "char", "short", "int", "long", "float", "double",
    "half", "bool", "uchar", "ushort", "uint", "ulong", "void", "size_t",
    NULL};

/* ---- typedefs of built-in types ------------------------------------------ */

/* Records `typedef <built-in type> name;` so that name can be checked and
 * passed as that type. Struct typedefs keep their own name. */
static void collect_aliases(const char *clean, aliases *al)
{
    for (const char *p = clean; (p = strstr(p, "typedef")) && al->n < MAX_ALIASES;
         p += 7) {
        if ((p > clean && is_ident_char(p[-1])) || is_ident_char(p[7]))
            continue;
        const char *end = strchr(p, ';');
        if (!end)
            return;
        token t[8];
        int n = tokenize(p + 7, end, t, 8);
        if (n < 2 || n == 8)
            continue;
        char joined[128] = "";
        int builtin = 1;
        for (int i = 0; i < n - 1 && builtin; i++) {
            builtin = one_of(t[i].text, builtin_words) ||
                      clf_builtin_size(t[i].text) > 0;
            append_word(joined, sizeof joined, t[i].text);
        }
        if (!builtin || !is_ident_char(t[n - 1].text[0]))
            continue;
        alias *a = &al->a[al->n];
        int ptr;
        clf_normalize_type(joined, a->type, sizeof a->type, &ptr);
        if (ptr || clf_builtin_size(a->type) == 0)
            continue;
        snprintf(a->name, sizeof a->name, "%s", t[n - 1].text);
        al->n++;
    }
}

static const char *resolve_alias(const aliases *al, const char *type)
{
    for (int i = 0; al && i < al->n; i++)
        if (strcmp(al->a[i].name, type) == 0)
            return al->a[i].type;
    return type;
}

/* ---- parameters ---------------------------------------------------------- */

static int parse_param(const char *fname, unsigned index, const char *s,
                       const char *end, const aliases *al, clf_param *p,
                       char *decl, size_t decl_size)
{
    static const char *const skip[] = {"const", "volatile", "restrict",
                                       "__restrict", "__private", "private",
                                       NULL};
    token t[MAX_TOKENS];
    int n = tokenize(s, end, t, MAX_TOKENS);
    memset(p, 0, sizeof *p);
    p->space = CL_KERNEL_ARG_ADDRESS_PRIVATE;
    int words = 0, stars = 0;
    const char *word[MAX_TOKENS];
    for (int i = 0; i < n; i++) {
        const char *w = t[i].text;
        if (strcmp(w, "*") == 0 || w[0] == '[') {
            stars++;
        } else if (!strcmp(w, "__global") || !strcmp(w, "global")) {
            p->space = CL_KERNEL_ARG_ADDRESS_GLOBAL;
        } else if (!strcmp(w, "__local") || !strcmp(w, "local")) {
            p->space = CL_KERNEL_ARG_ADDRESS_LOCAL;
        } else if (!strcmp(w, "__constant") || !strcmp(w, "constant")) {
            p->space = CL_KERNEL_ARG_ADDRESS_CONSTANT;
        } else if (!strcmp(w, "const")) {
            p->is_const = 1;
        } else if (one_of(w, skip)) {
            continue;
        } else if (is_ident_char(w[0])) {
            word[words++] = w;
        } else {
            return clframe_fail(CLFRAME_ERR_USAGE, "%s: parameter %u: cannot read "
                            "\"%.*s\" (function pointers and the like are not "
                            "supported; use clfunction_proto)", fname,
                            index + 1, (int)(end - s), s);
        }
    }
    if (stars > 1)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s: parameter %u: pointers to "
                        "pointers cannot be passed from the host", fname,
                        index + 1);
    p->pointer = stars == 1;
    /* The last word names the parameter unless it is part of the type. */
    int type_words = words;
    if (words >= 2 && !(one_of(word[words - 1], builtin_words) &&
                        one_of(word[words - 2], builtin_words) &&
                        strcmp(word[words - 2], "struct")))
        type_words = words - 1;
    if (words >= 2 && (!strcmp(word[0], "struct") || !strcmp(word[0], "union")) &&
        words == 2)
        type_words = 2;
    if (type_words == 0)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s: parameter %u has no type",
                        fname, index + 1);
    if (type_words < words)
        snprintf(p->name, sizeof p->name, "%s", word[words - 1]);
    else
        snprintf(p->name, sizeof p->name, "arg%u", index + 1);
    decl[0] = '\0';
    for (int i = 0; i < type_words; i++)
        append_word(decl, decl_size, word[i]);
    int ptr;
    clf_normalize_type(decl, p->type, sizeof p->type, &ptr);
    const char *resolved = resolve_alias(al, p->type);
    if (resolved != p->type) {
        snprintf(p->type, sizeof p->type, "%s", resolved);
        snprintf(decl, decl_size, "%s", resolved);
    }
    if (p->pointer && strcmp(p->type, "void") == 0 &&
        p->space != CL_KERNEL_ARG_ADDRESS_GLOBAL &&
        p->space != CL_KERNEL_ARG_ADDRESS_CONSTANT)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s: parameter %u (%s) is a void "
                        "pointer outside __global memory: clframe cannot know "
                        "what to copy", fname, index + 1, p->name);
    if (!p->pointer && p->space != CL_KERNEL_ARG_ADDRESS_PRIVATE)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s: parameter %u (%s) has an "
                        "address space but is not a pointer", fname, index + 1,
                        p->name);
    p->size = p->pointer ? 0 : clf_builtin_size(p->type);
    return 0;
}

/* Splits the text between the parentheses at top-level commas. */
static int parse_params(const char *fname, const char *open, const char *close,
                        const aliases *al, clf_proto *out)
{
    const char *s = open + 1;
    token t[2];
    int words = tokenize(s, close, t, 2);
    if (words == 0 || (words == 1 && strcmp(t[0].text, "void") == 0))
        return 0;
    int depth = 0;
    for (const char *p = s; p <= close; p++) {
        if (*p == '(' || *p == '[')
            depth++;
        else if ((*p == ')' || *p == ']') && p != close)
            depth--;
        if ((*p == ',' && depth == 0) || p == close) {
            if (out->nparams == CLF_MAX_PARAMS)
                return clframe_fail(CLFRAME_ERR_USAGE, "%s: more than %d "
                                "parameters", fname, CLF_MAX_PARAMS);
            unsigned i = out->nparams;
            int rc = parse_param(fname, i, s, p, al, &out->params[i],
                                 out->decl[i], sizeof out->decl[i]);
            if (rc)
                return rc;
            out->nparams++;
            s = p + 1;
        }
    }
    return 0;
}

/* ---- return type and the whole prototype --------------------------------- */

/* Removes specifiers and __attribute__((...)) from the text before the name,
 * leaving the return type; 0 if what is left cannot be one (a call such as
 * `x = f(a)` or `return f(a)`). */
static int return_type(const char *s, const char *end, char *out, size_t size,
                       int *is_kernel)
{
    static const char *const specifiers[] = {"static", "inline", "__inline",
                                             "extern", "__extern", NULL};
    static const char *const statements[] = {"return", "else", "case", "do",
                                             "goto", "sizeof", "if", "while",
                                             "for", "switch", NULL};
    token t[MAX_TOKENS];
    int n = tokenize(s, end, t, MAX_TOKENS);
    out[0] = '\0';
    *is_kernel = 0;
    int words = 0;
    for (int i = 0; i < n; i++) {
        const char *w = t[i].text;
        if (!strcmp(w, "__attribute__") || !strcmp(w, "__attribute")) {
            int depth = 0;
            for (i++; i < n; i++) {
                depth += !strcmp(t[i].text, "(") - !strcmp(t[i].text, ")");
                if (depth == 0)
                    break;
            }
            continue;
        }
        if (!strcmp(w, "__kernel") || !strcmp(w, "kernel")) {
            *is_kernel = 1;
            continue;
        }
        if (one_of(w, specifiers) || !strcmp(w, "const"))
            continue;
        if (one_of(w, statements) || (!is_ident_char(w[0]) && strcmp(w, "*")))
            return 0;
        append_word(out, size, w);
        words += is_ident_char(w[0]);
    }
    return words > 0;
}

static const char *matching_paren(const char *open)
{
    int depth = 0;
    for (const char *p = open; *p; p++) {
        depth += (*p == '(') - (*p == ')');
        if (depth == 0)
            return p;
    }
    return NULL;
}

static void make_text(clf_proto *pr)
{
    int n = snprintf(pr->text, sizeof pr->text, "%s %s(",
                     pr->ret_type[0] ? pr->ret_decl : "void", pr->name);
    for (unsigned i = 0; i < pr->nparams && n > 0 && (size_t)n < sizeof pr->text;
         i++) {
        char d[700];
        clf_describe_param(&pr->params[i], d, sizeof d);
        n += snprintf(pr->text + n, sizeof pr->text - (size_t)n, "%s%s %s",
                      i ? ", " : "", d, pr->params[i].name);
    }
    if (n > 0 && (size_t)n < sizeof pr->text)
        snprintf(pr->text + n, sizeof pr->text - (size_t)n, ")");
}

/* Reads the prototype at name (whose '(' is open) from clean text. 1 when
 * it is one, 0 when this occurrence is not a prototype, or an error code. */
static int read_at(const char *clean, const char *name_at, const char *open,
                   const char *fname, const aliases *al, clf_proto *out)
{
    const char *close = matching_paren(open);
    if (!close)
        return 0;
    const char *after = close + 1;
    while (isspace((unsigned char)*after))
        after++;
    if (*after != '{' && *after != ';')
        return 0;
    const char *start = name_at;
    while (start > clean && start[-1] != ';' && start[-1] != '}' &&
           start[-1] != '{')
        start--;
    char ret[256];
    int is_kernel;
    if (!return_type(start, name_at, ret, sizeof ret, &is_kernel))
        return 0;
    if (is_kernel)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s is a __kernel: call it with "
                        "clkernel_file / clkernel_call", fname);
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", fname);
    int ptr;
    clf_normalize_type(ret, out->ret_type, sizeof out->ret_type, &ptr);
    if (ptr)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s returns a pointer, which means "
                        "nothing on the host: return a value", fname);
    const char *resolved = resolve_alias(al, out->ret_type);
    if (resolved != out->ret_type)
        snprintf(out->ret_type, sizeof out->ret_type, "%s", resolved);
    snprintf(out->ret_decl, sizeof out->ret_decl, "%s",
             strcmp(out->ret_type, ret) && clf_builtin_size(out->ret_type)
                 ? out->ret_type : ret);
    if (strcmp(out->ret_type, "void") == 0)
        out->ret_type[0] = '\0';
    out->ret_size = clf_builtin_size(out->ret_type);
    int rc = parse_params(fname, open, close, al, out);
    if (rc)
        return rc;
    make_text(out);
    return 1;
}

/* From the `open` at q: past its matching `close` and the spaces after it
 * (the text's end if it has none). */
static const char *past_closing(const char *q, char open, char close)
{
    for (int depth = 0; *q; q++) {
        depth += *q == open ? 1 : *q == close ? -1 : 0;
        if (depth == 0)
            break;
    }
    if (*q)
        q++;
    while (isspace((unsigned char)*q))
        q++;
    return q;
}

/* The names of the functions clean text defines ("a, b, c"), into out:
 * for the message that a name was not found, so that a misspelling shows. */
static void list_functions(const char *clean, char *out, size_t size)
{
    size_t used = 0;
    int depth = 0;
    out[0] = '\0';
    for (const char *p = clean; *p; p++) {
        depth += *p == '{' ? 1 : *p == '}' ? -1 : 0;
        if (depth != 0 || !is_ident_char(*p) || isdigit((unsigned char)*p) ||
            (p > clean && is_ident_char(p[-1])))
            continue;
        const char *end = p;
        while (is_ident_char(*end))
            end++;
        const char *q = end;
        while (isspace((unsigned char)*q))
            q++;
        if (*q != '(')
            continue;
        q = past_closing(q, '(', ')');
        if (*q != '{' || used + (size_t)(end - p) + 3 >= size)
            continue;                           /* a declaration, or full */
        used += (size_t)snprintf(out + used, size - used, "%s%.*s",
                                 used ? ", " : "", (int)(end - p), p);
    }
}

/* The headers of source's #include lines ("<a.h>, \"b.h\""), into out: in
 * expanded text (source.c) those are the ones that were not found. */
static void list_unread_headers(const char *source, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (const char *p = source; *p;) {
        size_t len = strcspn(p, "\n");
        char name[512];
        int close = clf_source_include_name(p, len, name, sizeof name);
        if (close && used + strlen(name) + 5 < size)
            used += (size_t)snprintf(out + used, size - used, "%s%c%s%c",
                                     used ? ", " : "", close == '>' ? '<' : '"',
                                     name, close);
        p += len;
        if (*p == '\n')
            p++;
    }
}

/* Finds fname's prototype in clean text: 1 found, 0 not, or an error. */
static int find_in(const char *clean, const char *fname, const aliases *al,
                   clf_proto *out)
{
    size_t len = strlen(fname);
    for (const char *p = clean; (p = strstr(p, fname)); p += len) {
        if ((p > clean && is_ident_char(p[-1])) || is_ident_char(p[len]))
            continue;
        const char *open = p + len;
        while (isspace((unsigned char)*open))
            open++;
        if (*open != '(')
            continue;
        int rc = read_at(clean, p, open, fname, al, out);
        if (rc)
            return rc;
    }
    return 0;
}

/* Copies the identifier at *p into out (empty if none), moves *p past it
 * and the spaces after it. */
static void take_ident(const char **p, char *out, size_t size)
{
    size_t len = 0;
    while (is_ident_char(**p)) {
        if (len + 1 < size)
            out[len++] = **p;
        (*p)++;
    }
    out[len] = '\0';
    while (isspace((unsigned char)**p))
        (*p)++;
}

/* For `typedef struct tag {...} name;` and `typedef struct tag name;` in
 * clean text, gives each parameter of either name the other. */
static void pair_struct_names(const char *clean, clf_param *params,
                              unsigned n)
{
    for (const char *p = clean; (p = strstr(p, "typedef")); p += 7) {
        if ((p > clean && is_ident_char(p[-1])) || is_ident_char(p[7]))
            continue;
        const char *q = p + 7;
        char word[128], tag[128], name[128];
        while (isspace((unsigned char)*q))
            q++;
        take_ident(&q, word, sizeof word);
        if (strcmp(word, "struct") != 0)
            continue;
        take_ident(&q, tag, sizeof tag);
        if (*q == '{')
            q = past_closing(q, '{', '}');
        take_ident(&q, name, sizeof name);
        if (*q != ';' || !tag[0] || !name[0] || strcmp(tag, name) == 0)
            continue;
        for (unsigned i = 0; i < n; i++) {
            const char *other = strcmp(params[i].type, tag) == 0    ? name
                              : strcmp(params[i].type, name) == 0 ? tag
                                                                  : NULL;
            if (other)
                snprintf(params[i].other_name, sizeof params[i].other_name,
                         "%s", other);
        }
    }
}

int clf_resolve_typedefs(const char *source, clf_param *params, unsigned n)
{
    char *clean = clf_blank_comments(source, 1);
    aliases *al = calloc(1, sizeof *al);
    if (!clean || !al) {
        free(clean);
        free(al);
        return clframe_fail(CLFRAME_ERR_NO_MEMORY, "reading typedefs");
    }
    collect_aliases(clean, al);
    pair_struct_names(clean, params, n);
    for (unsigned i = 0; i < n; i++) {
        clf_param *p = &params[i];
        const char *type = resolve_alias(al, p->type);
        if (type == p->type)
            continue;
        snprintf(p->type, sizeof p->type, "%s", type);
        p->size = p->pointer ? 0 : clf_builtin_size(p->type);
    }
    free(clean);
    free(al);
    return 0;
}

int clf_proto_find(const char *source, const char *fname, clf_proto *out)
{
    return clf_proto_parse(source, NULL, fname, out);
}

int clf_proto_parse(const char *source, const char *prototype,
                    const char *fname, clf_proto *out)
{
    char *clean = clf_blank_comments(source, 1);
    char *clean_proto = NULL;
    aliases *al = calloc(1, sizeof *al);
    int rc;
    if (!clean || !al) {
        rc = clframe_fail(CLFRAME_ERR_NO_MEMORY, "reading %s", fname);
        goto done;
    }
    collect_aliases(clean, al);
    if (prototype) {
        clf_str s = {0};
        clf_str_printf(&s, "%s;", prototype);
        clean_proto = s.data;
        if (!clean_proto) {
            rc = clframe_fail(CLFRAME_ERR_NO_MEMORY, "reading %s", fname);
            goto done;
        }
    }
    rc = find_in(prototype ? clean_proto : clean, fname, al, out);
    if (rc == 0 && prototype) {
        rc = clframe_fail(CLFRAME_ERR_NOT_FOUND, "\"%s\" is not a prototype "
                          "of %s", prototype, fname);
    } else if (rc == 0) {
        char names[1024], headers[1024];
        list_functions(clean, names, sizeof names);
        list_unread_headers(source, headers, sizeof headers);
        rc = clframe_fail(CLFRAME_ERR_NOT_FOUND, "no prototype of %s found in "
                          "the source (its functions: %s;%s%s%s is %s made by "
                          "a macro? then give it with clfunction_proto)",
                          fname, names[0] ? names : "none",
                          headers[0] ? " headers not found, so not read: " : "",
                          headers, headers[0] ? ";" : "", fname);
    } else if (rc == 1)
        rc = 0;
done:
    free(clean);
    free(clean_proto);
    free(al);
    return rc;
}
