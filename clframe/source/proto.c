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
 * parameter list. typedefs are followed (typedefs.c), so `real f(real x)`
 * with `typedef float real;` takes a float, and clframe/shared.h's
 * words (CLF_INLINE, CLF_INT, CLF_GLOBAL, ...) are read as what they mean on
 * the device even where the header's own macros were not seen. What
 * preproc.c cannot expand cannot be read: clfunction_proto exists for that.
 * Kernels are read the same way, so that their calls are checked against
 * the source on every platform, whatever the driver reports (kernel.c).
 */
#include "source.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_TOKENS = 64 };

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

/* ---- parameters ---------------------------------------------------------- */

/* An image parameter's access qualifier, or 0 if w is none. */
static cl_kernel_arg_access_qualifier access_word(const char *w)
{
    if (*w == '_' && w[1] == '_')
        w += 2;
    return !strcmp(w, "read_only")    ? CL_KERNEL_ARG_ACCESS_READ_ONLY
           : !strcmp(w, "write_only") ? CL_KERNEL_ARG_ACCESS_WRITE_ONLY
           : !strcmp(w, "read_write") ? CL_KERNEL_ARG_ACCESS_READ_WRITE
                                      : 0;
}

/* From the "__attribute__" token at t[i]: the index of the last token of
 * its parenthesized arguments. */
static int past_attribute(const token *t, int n, int i)
{
    int depth = 0;
    for (i++; i < n; i++) {
        depth += !strcmp(t[i].text, "(") - !strcmp(t[i].text, ")");
        if (depth == 0)
            break;
    }
    return i;
}

/* How many of a parameter's words are its type: all but the last, which
 * names it, unless that last is part of the type (`unsigned int`, an
 * unnamed `struct Pair`). */
static int param_type_words(const char *const *word, int words)
{
    if (words == 2 && (!strcmp(word[0], "struct") ||
                       !strcmp(word[0], "union") || !strcmp(word[0], "enum")))
        return 2;
    if (words >= 2 && !(one_of(word[words - 1], builtin_words) &&
                        one_of(word[words - 2], builtin_words) &&
                        strcmp(word[words - 2], "struct")))
        return words - 1;
    return words;
}

static int parse_param(const char *fname, unsigned index, const char *s,
                       const char *end, const clf_typedefs *td, clf_param *p,
                       char *decl, size_t decl_size)
{
    static const char *const skip[] = {"volatile", "restrict", "__restrict",
                                       "__restrict__", "__private", "private",
                                       NULL};
    token t[MAX_TOKENS];
    int n = tokenize(s, end, t, MAX_TOKENS);
    memset(p, 0, sizeof *p);
    p->space = CL_KERNEL_ARG_ADDRESS_PRIVATE;
    p->access = CL_KERNEL_ARG_ACCESS_NONE;
    int words = 0, stars = 0, is_const = 0;
    const char *word[MAX_TOKENS];
    for (int i = 0; i < n; i++) {
        const char *w = t[i].text;
        if (!strcmp(w, "__attribute__") || !strcmp(w, "__attribute")) {
            i = past_attribute(t, n, i);
        } else if (strcmp(w, "*") == 0 || w[0] == '[') {
            stars++;
        } else if (clf_space_of_word(w) != CL_KERNEL_ARG_ADDRESS_PRIVATE) {
            p->space = clf_space_of_word(w);
        } else if (!strcmp(w, "const")) {
            is_const |= stars == 0;     /* `float *const p`: p is const */
        } else if (access_word(w)) {
            p->access = access_word(w);
        } else if (one_of(w, skip)) {
            continue;
        } else if (is_ident_char(w[0])) {
            word[words++] = w;
        } else {
            return clframe_fail(CLFRAME_ERR_USAGE, "%s: parameter %u: cannot read "
                            "\"%.*s\" (a function pointer, or a macro clframe "
                            "could not expand?)", fname, index + 1,
                            (int)(end - s), s);
        }
    }
    /* The type's name, and what a pointer typedef makes of it (`typedef
     * __global float *gptr;`: a gptr parameter is a __global float*). */
    int type_words = param_type_words(word, words);
    if (type_words == 0)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s: parameter %u has no type",
                        fname, index + 1);
    decl[0] = '\0';
    for (int i = 0; i < type_words; i++)
        append_word(decl, decl_size, word[i]);
    int ptr;
    clf_normalize_type(decl, p->written, sizeof p->written, &ptr);
    cl_kernel_arg_address_qualifier typedef_space = p->space;
    int via = clf_typedefs_follow(td, p->written, p->type, sizeof p->type,
                                  &typedef_space);
    if (via) {
        stars += via;
        if (p->space == CL_KERNEL_ARG_ADDRESS_PRIVATE)
            p->space = typedef_space;
        /* its sizeof, as the device compiles it: what it points to */
        snprintf(decl, decl_size, "*(%s)0", p->written);
    }
    if (stars > 1)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s: parameter %u: pointers to "
                        "pointers cannot be passed from the host", fname,
                        index + 1);
    p->pointer = stars == 1;
    p->is_const = is_const && p->pointer;   /* what the pointer points to */
    if (type_words < words)
        snprintf(p->name, sizeof p->name, "%s", word[words - 1]);
    else
        snprintf(p->name, sizeof p->name, "arg%u", index + 1);
    if (clf_builtin_size(p->type))          /* declared as what it is */
        snprintf(decl, decl_size, "%s", p->type);
    if (clf_is_image_type(p->type)) {          /* an image or a sampler */
        if (p->pointer || p->space == CL_KERNEL_ARG_ADDRESS_LOCAL)
            return clframe_fail(CLFRAME_ERR_USAGE, "%s: parameter %u (%s): "
                                "an image or sampler is passed by value",
                                fname, index + 1, p->name);
        if (strcmp(p->type, "sampler_t") != 0) {    /* images are __global */
            p->space = CL_KERNEL_ARG_ADDRESS_GLOBAL;
            if (p->access == CL_KERNEL_ARG_ACCESS_NONE)
                p->access = CL_KERNEL_ARG_ACCESS_READ_ONLY;
        }
        return 0;
    }
    if (p->access != CL_KERNEL_ARG_ACCESS_NONE)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s: parameter %u (%s): an "
                            "access qualifier on a %s, not an image", fname,
                            index + 1, p->name, p->type);
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
                        const clf_typedefs *td, clf_proto *out)
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
            int rc = parse_param(fname, i, s, p, td, &out->params[i],
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
 * `x = f(a)` or `return f(a)`). A macro call left as written before the
 * declaration (`MAKE(tripled)` without its ';', a macro preproc.c could not
 * expand) ends there: the return type is what follows it. */
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
            i = past_attribute(t, n, i);
            continue;
        }
        if (!strcmp(w, "__kernel") || !strcmp(w, "kernel")) {
            *is_kernel = 1;
            continue;
        }
        if (one_of(w, specifiers) || !strcmp(w, "const"))
            continue;
        if (!strcmp(w, "(") && i > 0 && is_ident_char(t[i - 1].text[0]) &&
            !one_of(t[i - 1].text, statements)) {
            int depth = 0;
            for (; i < n; i++) {
                depth += !strcmp(t[i].text, "(") - !strcmp(t[i].text, ")");
                if (depth == 0)
                    break;
            }
            out[0] = '\0';
            words = 0;
            continue;
        }
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

/* Reads the prototype at name (whose '(' is open) from clean text, of a
 * kernel or not as want_kernel says, and only a definition's if
 * definition. 1 when it is one, 0 when this occurrence is not a prototype
 * asked for, or an error code. */
static int read_at(const char *clean, const char *name_at, const char *open,
                   const char *fname, int want_kernel, int definition,
                   const clf_typedefs *td, clf_proto *out)
{
    const char *close = matching_paren(open);
    if (!close)
        return 0;
    const char *after = close + 1;
    while (isspace((unsigned char)*after))
        after++;
    if (*after != '{' && *after != ';')
        return 0;
    if (definition && *after != '{')
        return 0;
    const char *start = name_at;
    while (start > clean && start[-1] != ';' && start[-1] != '}' &&
           start[-1] != '{')
        start--;
    char ret[256];
    int is_kernel;
    if (!return_type(start, name_at, ret, sizeof ret, &is_kernel))
        return 0;
    if (is_kernel && !want_kernel)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s is a __kernel: call it with "
                        "clkernel_file / clkernel_call", fname);
    if (want_kernel && !is_kernel)
        return 0;
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", fname);
    int ptr;
    clf_normalize_type(ret, out->ret_type, sizeof out->ret_type, &ptr);
    if (ptr)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s returns a pointer, which means "
                        "nothing on the host: return a value", fname);
    char written[sizeof out->ret_type];
    snprintf(written, sizeof written, "%s", out->ret_type);
    clf_typedefs_resolve(td, written, out->ret_type, sizeof out->ret_type);
    snprintf(out->ret_decl, sizeof out->ret_decl, "%s",
             strcmp(out->ret_type, ret) && clf_builtin_size(out->ret_type)
                 ? out->ret_type : ret);
    if (strcmp(out->ret_type, "void") == 0)
        out->ret_type[0] = '\0';
    out->ret_size = clf_builtin_size(out->ret_type);
    int rc = parse_params(fname, open, close, td, out);
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

/* The names of the functions clean text defines whose prototypes can be
 * read ("a, b, c"), into out: for the message that a name was not found,
 * so that a misspelling shows and no name listed is one said missing. */
static void list_functions(const char *clean, const clf_typedefs *td,
                           char *out, size_t size)
{
    size_t used = 0;
    int depth = 0;
    out[0] = '\0';
    clf_proto *scratch = malloc(sizeof *scratch);
    for (const char *p = clean; scratch && *p; p++) {
        depth += *p == '{' ? 1 : *p == '}' ? -1 : 0;
        if (depth != 0 || !is_ident_char(*p) || isdigit((unsigned char)*p) ||
            (p > clean && is_ident_char(p[-1])))
            continue;
        const char *end = p;
        while (is_ident_char(*end))
            end++;
        const char *open = end;
        while (isspace((unsigned char)*open))
            open++;
        char name[sizeof scratch->name];
        size_t len = (size_t)(end - p);
        if (*open != '(' || len >= sizeof name ||
            *past_closing(open, '(', ')') != '{' || used + len + 3 >= size)
            continue;                   /* a call, a declaration, or full */
        memcpy(name, p, len);
        name[len] = '\0';
        if (read_at(clean, p, open, name, 0, 1, td, scratch) == 1)
            used += (size_t)snprintf(out + used, size - used, "%s%s",
                                     used ? ", " : "", name);
    }
    free(scratch);
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

/* Finds fname's prototype in clean text, its definition first (whose
 * parameter names are the ones used), else a declaration: 1 found, 0
 * not, or an error. */
static int find_in(const char *clean, const char *fname, int want_kernel,
                   const clf_typedefs *td, clf_proto *out)
{
    size_t len = strlen(fname);
    for (int definitions = 1; definitions >= 0; definitions--)
        for (const char *p = clean; (p = strstr(p, fname)); p += len) {
            if ((p > clean && is_ident_char(p[-1])) || is_ident_char(p[len]))
                continue;
            const char *open = p + len;
            while (isspace((unsigned char)*open))
                open++;
            if (*open != '(')
                continue;
            int rc = read_at(clean, p, open, fname, want_kernel,
                             definitions, td, out);
            if (rc)
                return rc;
        }
    return 0;
}

void clf_resolve_typedefs(const clf_typedefs *td, clf_param *params,
                          unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        clf_param *p = &params[i];
        snprintf(p->written, sizeof p->written, "%s", p->type);
        clf_typedefs_resolve(td, p->written, p->type, sizeof p->type);
        p->size = p->pointer ? 0 : clf_builtin_size(p->type);
    }
}

int clf_proto_find_kernel(const char *source, const clf_typedefs *td,
                          const char *kname, clf_proto *out)
{
    char *clean = clf_blank_comments(source, 1);
    if (!clean)
        return clframe_fail(CLFRAME_ERR_NO_MEMORY, "reading kernel %s", kname);
    int rc = find_in(clean, kname, 1, td, out);
    free(clean);
    if (rc == 0)
        return clframe_fail(CLFRAME_ERR_NOT_FOUND, "no prototype of __kernel "
                            "%s found in the source (made by a macro?)",
                            kname);
    return rc == 1 ? 0 : rc;
}

int clf_proto_find(const char *source, const clf_typedefs *td,
                   const char *fname, clf_proto *out)
{
    return clf_proto_parse(source, td, NULL, fname, out);
}

int clf_proto_parse(const char *source, const clf_typedefs *td,
                    const char *prototype, const char *fname, clf_proto *out)
{
    char *clean = clf_blank_comments(source, 1);
    char *clean_proto = NULL;
    clf_typedefs *read = td ? NULL : clf_typedefs_read(source);
    int rc;
    if (!td)
        td = read;
    if (!clean || !td) {
        rc = clframe_fail(CLFRAME_ERR_NO_MEMORY, "reading %s", fname);
        goto done;
    }
    if (prototype) {
        clf_str s = {0};
        clf_str_printf(&s, "%s;", prototype);
        clean_proto = s.data;
        if (!clean_proto) {
            rc = clframe_fail(CLFRAME_ERR_NO_MEMORY, "reading %s", fname);
            goto done;
        }
    }
    rc = find_in(prototype ? clean_proto : clean, fname, 0, td, out);
    if (rc == 0 && prototype) {
        rc = clframe_fail(CLFRAME_ERR_NOT_FOUND, "\"%s\" is not a prototype "
                          "of %s", prototype, fname);
    } else if (rc == 0) {
        char names[1024], headers[1024];
        list_functions(clean, td, names, sizeof names);
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
    clf_typedefs_free(read);
    return rc;
}
