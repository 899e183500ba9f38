/*
 * preproc.c: the source as the device compiler's preprocessor leaves it,
 * for reading prototypes and typedefs (proto.c).
 *
 * OpenCL gives no way to see the text its compiler compiles after the
 * preprocessor, yet a header may declare a function one way for the device
 * (#ifdef __OPENCL_VERSION__) and another for the host, or spell a type
 * through a macro (#define REAL float). So clframe runs the conditionals
 * itself, with the build's -D options (and -U, which PoCL refuses but
 * others may take) and the macros the device's compiler predefines
 * (__OPENCL_VERSION__, __OPENCL_C_VERSION__, CL_VERSION_x_y,
 * __ENDIAN_LITTLE__, __IMAGE_SUPPORT__, the device's extensions and OpenCL
 * C 3.0 features, __FAST_RELAXED_MATH__), and expands macros, object-like
 * and function-like (__VA_ARGS__ too), in the text that is left: that view
 * is what clframe reads. The program is still built from the original text.
 *
 * It is not a whole C preprocessor. #include is source.c's work. Macros
 * using # or ## or a parameter list it cannot read, and calls whose
 * arguments run past their line, are left as written (inside #if, an
 * error). Macros the compiler's own headers or the compiler itself define
 * (M_PI_F, FLT_MAX, __clang__, __LINE__, FP_FAST_FMA, ...) are unknown, so
 * 0 in #if. Character constants in #if are an error; #error, #pragma and
 * unknown directives are ignored; #line is followed, for messages.
 * Everything is bounded (the enum below), so that no input can crash it,
 * hang it or make it allocate without end.
 *
 * It is text alone: what the device predefines is handed in
 * (clf_device_macros, which macros.c reads from a context), so it asks
 * OpenCL nothing and runs without a device.
 */
#include "source.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    MAX_IF_DEPTH = 64,          /* #if inside #if */
    MAX_EXPAND_DEPTH = 32,      /* a macro inside a macro's expansion */
    MAX_EXPANSIONS = 1 << 20,   /* macro expansions in one source */
    MAX_LINE = 1 << 18,         /* a line (continuations joined), and what
                                   one line or one argument expands to */
    MAX_EXPR_DEPTH = 256,       /* parentheses, operators and ?: in #if */
    MAX_PARAMS = 64,            /* of a function-like macro */
    BUCKETS = 512,
};

typedef struct macro {
    struct macro *next;         /* in its bucket */
    char *name, *body;
    size_t name_len;
    char *params;               /* names, each ending in '\0' */
    int nparams;                /* -1 for an object-like macro */
    int variadic;               /* the last parameter is __VA_ARGS__ */
    int unsupported;            /* # or ##, or an unreadable parameter list */
    int pending;                /* a version macro not yet measured */
    int expanding;              /* not expanded inside its own expansion
                                   (C11 6.10.3.4) */
} macro;

typedef struct cond {           /* an #if whose #endif is still to come */
    int outer;                  /* the text around it is compiled */
    int taken;                  /* one of its branches was */
    int seen_else;
    const char *file;           /* where it opened, for messages */
    int file_len;
    unsigned line;
} cond;

typedef struct pp {
    const clf_device_macros *device;
    macro *macros[BUCKETS];
    cond conds[MAX_IF_DEPTH];
    int nconds;
    int active;                 /* the current line is compiled */
    const char *file;           /* the current file (#line) and line */
    int file_len;
    unsigned line;
    long expansions;
    int depth;                  /* of macro expansions under way */
    int std;                    /* the build's -cl-std as 120, or 0 */
    int opencl_version;         /* __OPENCL_VERSION__, 0 until known */
    int c_version;              /* __OPENCL_C_VERSION__, 0 until known */
    int error;                  /* a clframe code once something failed */
    clf_str out;                /* the view */
} pp;

static void fail(pp *pp, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Raises the first error only, with the file and line it is about. */
static void fail(pp *pp, const char *fmt, ...)
{
    if (pp->error)
        return;
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    if (pp->line)
        pp->error = clframe_fail(CLFRAME_ERR_USAGE, "%.*s:%u: %s",
                                 pp->file_len, pp->file, pp->line, why);
    else
        pp->error = clframe_fail(CLFRAME_ERR_USAGE, "%.*s: %s", pp->file_len,
                                 pp->file, why);
}

static void no_memory(pp *pp)
{
    if (!pp->error)
        pp->error = clframe_fail(CLFRAME_ERR_NO_MEMORY, "preprocessing");
}

static void set_file(pp *pp, const char *name)
{
    pp->file = name;
    pp->file_len = (int)strlen(name);
    pp->line = 0;
}

/* ---- blanking comments --------------------------------------------------- */

char *clf_blank_comments(const char *text, int code_too)
{
    size_t n = strlen(text);
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    int line_start = 1;
    for (size_t i = 0; i < n;) {
        char c = text[i];
        if (line_start && (c == ' ' || c == '\t')) {
            out[i++] = c;
            continue;
        }
        if (line_start && c == '#' && code_too) {   /* to the end of the line */
            while (i < n && text[i] != '\n') {
                int continued = text[i] == '\\' && text[i + 1] == '\n';
                out[i] = ' ';
                i++;
                if (continued)
                    out[i++] = '\n';
            }
            continue;
        }
        line_start = 0;
        if (c == '/' && text[i + 1] == '*') {
            while (i < n && !(text[i] == '*' && text[i + 1] == '/'))
                out[i] = text[i] == '\n' ? '\n' : ' ', i++;
            if (i < n)
                out[i] = out[i + 1] = ' ', i += 2;
        } else if (c == '/' && text[i + 1] == '/') {
            while (i < n && text[i] != '\n')
                out[i++] = ' ';
        } else if (c == '"' || c == '\'') {
            size_t start = i++;
            while (i < n && text[i] != c && text[i] != '\n')
                i += text[i] == '\\' && i + 1 < n ? 2 : 1;
            if (i < n && text[i] == c)
                i++;
            for (size_t k = start; k < i; k++)   /* newlines stay */
                out[k] = code_too && text[k] != '\n' ? ' ' : text[k];
        } else {
            out[i++] = c;
            if (c == '\n')
                line_start = 1;
        }
    }
    out[n] = '\0';
    return out;
}

/* ---- scanning ------------------------------------------------------------ */

static int is_ident_start(char c)
{
    return isalpha((unsigned char)c) || c == '_';
}

static const char *skip_blanks(const char *s, const char *end)
{
    while (s < end && isspace((unsigned char)*s))
        s++;
    return s;
}

static const char *skip_ident(const char *s, const char *end)
{
    if (s < end && is_ident_start(*s))
        while (s < end && (isalnum((unsigned char)*s) || *s == '_'))
            s++;
    return s;
}

static int starts_number(const char *s, const char *end)
{
    return isdigit((unsigned char)*s) ||
           (*s == '.' && s + 1 < end && isdigit((unsigned char)s[1]));
}

/* A preprocessing number: digits, letters, '.', and a sign after an
 * exponent's e or p ("1e+5f", "0x1p-3"), so its letters are no names. */
static const char *skip_number(const char *s, const char *end)
{
    const char *start = s;
    while (s < end && (isalnum((unsigned char)*s) || *s == '_' || *s == '.' ||
                       ((*s == '+' || *s == '-') && s > start &&
                        strchr("eEpP", s[-1]))))
        s++;
    return s;
}

static const char *skip_literal(const char *s, const char *end)
{
    char quote = *s++;
    while (s < end && *s != quote)
        s += *s == '\\' && s + 1 < end ? 2 : 1;
    return s < end ? s + 1 : end;
}

/* The end of the token at s: a literal, a number, a name, or one
 * character; so that nothing inside a literal or a number is taken for a
 * name. */
static const char *token_end(const char *s, const char *end)
{
    if (*s == '"' || *s == '\'')
        return skip_literal(s, end);
    if (starts_number(s, end))
        return skip_number(s, end);
    if (is_ident_start(*s))
        return skip_ident(s, end);
    return s + 1;
}

static int is_word(const char *s, size_t n, const char *word)
{
    return n == strlen(word) && memcmp(s, word, n) == 0;
}

/* Appends, and fails once out holds more than a line may expand to. */
static void put(pp *pp, clf_str *out, const char *s, size_t n)
{
    clf_str_append(out, s, n);
    if (out->len > MAX_LINE)
        fail(pp, "a line expands to more than %d characters", MAX_LINE);
}

/* ---- the macro table ----------------------------------------------------- */

static macro **slot(pp *pp, const char *name, size_t len)
{
    unsigned h = 2166136261u;                   /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)name[i]) * 16777619u;
    macro **m = &pp->macros[h % BUCKETS];
    while (*m && !((*m)->name_len == len && memcmp((*m)->name, name, len) == 0))
        m = &(*m)->next;
    return m;
}

static void undefine(pp *pp, const char *name, size_t len)
{
    macro **at = slot(pp, name, len);
    macro *m = *at;
    if (m) {
        *at = m->next;
        free(m);
    }
}

/* Reads a parameter list (between the parentheses) into names; their
 * count, or -1 when it is not a list of names with an optional "..." last. */
static int read_params(const char *s, const char *end, char *names,
                       int *variadic)
{
    int n = 0;
    for (s = skip_blanks(s, end); s < end; n++) {
        if (n == MAX_PARAMS)
            return -1;
        if (end - s >= 3 && memcmp(s, "...", 3) == 0) {
            memcpy(names, "__VA_ARGS__", sizeof "__VA_ARGS__");
            *variadic = 1;
            return skip_blanks(s + 3, end) == end ? n + 1 : -1;
        }
        const char *e = skip_ident(s, end);
        if (e == s)
            return -1;
        memcpy(names, s, (size_t)(e - s));
        names += e - s;
        *names++ = '\0';
        s = skip_blanks(e, end);
        if (s < end && (*s != ',' || (s = skip_blanks(s + 1, end)) == end))
            return -1;
    }
    return n;
}

/* # or ## outside literals: stringizing and pasting, not done here. */
static int has_hash(const char *s, const char *end)
{
    while (s < end) {
        if (*s == '"' || *s == '\'')
            s = skip_literal(s, end);
        else if (*s++ == '#')
            return 1;
    }
    return 0;
}

/* Records "NAME body" or "NAME(params) body": a #define's text, an option
 * -DNAME=body made into one, or a predefined macro. */
static void define(pp *pp, const char *s, const char *end)
{
    const char *name = skip_blanks(s, end);
    s = skip_ident(name, end);
    if (s == name) {
        fail(pp, "#define without a macro name");
        return;
    }
    const char *list = s, *list_end = s;      /* '(' right after the name */
    if (s < end && *s == '(' &&
        !(list_end = memchr(s, ')', (size_t)(end - s)))) {
        fail(pp, "#define %.*s(: no ')' ends its parameters", (int)(s - name),
             name);
        return;
    }
    const char *body = skip_blanks(list_end > list ? list_end + 1 : s, end);
    while (end > body && isspace((unsigned char)end[-1]))
        end--;
    size_t name_len = (size_t)(s - name), body_len = (size_t)(end - body);
    size_t list_len = (size_t)(list_end - list);
    macro *m = malloc(sizeof *m + name_len + body_len + list_len +
                      sizeof "__VA_ARGS__" + 2);
    if (!m) {
        no_memory(pp);
        return;
    }
    *m = (macro){.name = (char *)(m + 1), .name_len = name_len, .nparams = -1};
    memcpy(m->name, name, name_len);
    m->name[name_len] = '\0';
    m->body = m->name + name_len + 1;
    memcpy(m->body, body, body_len);
    m->body[body_len] = '\0';
    m->params = m->body + body_len + 1;
    if (list_end > list) {
        m->nparams = read_params(list + 1, list_end, m->params, &m->variadic);
        m->unsupported = m->nparams < 0;
        if (m->nparams < 0)
            m->nparams = 0;
    }
    m->unsupported |= has_hash(body, end);
    undefine(pp, name, name_len);
    macro **bucket = slot(pp, name, name_len);  /* the empty end of it */
    *bucket = m;
}

static void predefine(pp *pp, const char *name, int value)
{
    char text[256];
    int n = snprintf(text, sizeof text, "%s %d", name, value);
    if (n > 0 && (size_t)n < sizeof text)
        define(pp, text, text + n);
}

/* ---- what the device's compiler predefines ------------------------------- */

/* Each word of a space-separated list (extensions) defined as 1, unless
 * it is defined already (an option's -D wins; a macro being expanded is
 * never replaced). */
static void define_words(pp *pp, const char *list)
{
    for (const char *p = list; *p;) {
        p += strspn(p, " ");
        size_t n = strcspn(p, " ");
        char text[256];
        if (n > 0 && n < 200 && !*slot(pp, p, n)) {
            snprintf(text, sizeof text, "%.*s 1", (int)n, p);
            define(pp, text, text + n + 2);
        }
        p += n;
    }
}

/* The two version macros' values, and the features that come with 3.0. */
static void know_versions(pp *pp)
{
    const clf_device_macros *d = pp->device;
    if (d->versions) {
        d->versions(d->arg, pp->std, &pp->opencl_version, &pp->c_version);
    } else {
        pp->opencl_version = d->opencl_version;
        pp->c_version = pp->std ? pp->std : d->c_version;
    }
    macro *m = *slot(pp, "__OPENCL_VERSION__", 18);
    if (m && m->pending)
        predefine(pp, "__OPENCL_VERSION__", pp->opencl_version);
    m = *slot(pp, "__OPENCL_C_VERSION__", 20);
    if (m && m->pending)
        predefine(pp, "__OPENCL_C_VERSION__", pp->c_version);
    if (pp->c_version >= 300 && d->features)   /* the device's, from 3.0 */
        define_words(pp, d->features);
}

/* A version macro defined, its value measured only if a source asks. */
static void predefine_pending(pp *pp, const char *name)
{
    predefine(pp, name, 0);
    macro *m = *slot(pp, name, strlen(name));
    if (m)
        m->pending = 1;
}

static void define_device(pp *pp)
{
    predefine_pending(pp, "__OPENCL_VERSION__");
    predefine_pending(pp, "__OPENCL_C_VERSION__");
    static const char *const versions[] = {"1_0", "1_1", "1_2", "2_0", "3_0"};
    static const int values[] = {100, 110, 120, 200, 300};
    for (int i = 0; i < 5; i++) {
        char name[32];
        snprintf(name, sizeof name, "CL_VERSION_%s", versions[i]);
        predefine(pp, name, values[i]);
    }
    if (pp->device->little_endian)
        predefine(pp, "__ENDIAN_LITTLE__", 1);
    if (pp->device->images)
        predefine(pp, "__IMAGE_SUPPORT__", 1);
    if (pp->device->extensions)
        define_words(pp, pp->device->extensions);
}

/* The macro called name, or NULL. The versions are measured when first
 * needed: for a version macro's value (want_value), or to know whether an
 * __opencl_c_ feature is defined. */
static macro *lookup(pp *pp, const char *name, size_t len, int want_value)
{
    macro *m = *slot(pp, name, len);
    int feature = len > 11 && memcmp(name, "__opencl_c_", 11) == 0;
    if ((m && m->pending && want_value) || (!m && feature && !pp->c_version)) {
        know_versions(pp);
        m = *slot(pp, name, len);
    }
    return m;
}

/* ---- build options ------------------------------------------------------- */

/* -cl-std=CL1.2 as 120; 0 when the options do not say. */
static int std_version(const char *options)
{
    const char *p = options ? strstr(options, "-cl-std=CL") : NULL;
    int major, minor;
    if (p && sscanf(p + 10, "%d.%d", &major, &minor) == 2 && major >= 1 &&
        major <= 9 && minor >= 0 && minor <= 9)
        return major * 100 + minor * 10;
    return 0;
}

/* -D NAME, -DNAME=VALUE, -U NAME, ... in order, as the compiler reads them. */
static void apply_options(pp *pp, const char *options)
{
    set_file(pp, "the build options");
    for (const char *p = options ? options : ""; *p && !pp->error;) {
        p += strspn(p, " \t");
        const char *word = p;
        size_t len = strcspn(p, " \t");
        p += len;
        if (is_word(word, len, "-cl-fast-relaxed-math") &&
            (!pp->device->fast_math || pp->device->fast_math(pp->device->arg)))
            predefine(pp, "__FAST_RELAXED_MATH__", 1);
        if (len < 2 || word[0] != '-' || (word[1] != 'D' && word[1] != 'U'))
            continue;
        const char *arg = word + 2;
        size_t n = len - 2;
        if (n == 0) {                           /* "-D NAME" */
            arg = p + strspn(p, " \t");
            n = strcspn(arg, " \t");
            p = arg + n;
        }
        const char *name_end = skip_ident(arg, arg + n);
        if (name_end == arg) {
            fail(pp, "%.2s without a macro name", word);
        } else if (word[1] == 'U') {
            undefine(pp, arg, (size_t)(name_end - arg));
        } else {
            clf_str text = {0};         /* "NAME=VALUE" as "NAME VALUE" */
            const char *eq = memchr(arg, '=', n);
            clf_str_printf(&text, "%.*s %.*s", eq ? (int)(eq - arg) : (int)n,
                           arg, eq ? (int)(arg + n - eq - 1) : 1,
                           eq ? eq + 1 : "1");
            if (text.failed)
                no_memory(pp);
            else
                define(pp, text.data, text.data + text.len);
            free(text.data);
        }
    }
}

/* ---- expanding macros ---------------------------------------------------- */

typedef struct span {
    const char *s, *e;
} span;

static void expand(pp *pp, const char *s, const char *end, clf_str *out,
                   int in_if);

/* The arguments of the call whose '(' is at open, into a; their count, with
 * *close at the ')', or -1 when the call does not end before end or has
 * more than MAX_PARAMS. From argument number rest on, commas do not split
 * (__VA_ARGS__). */
static int split_args(const char *open, const char *end, int rest, span *a,
                      const char **close)
{
    int n = 0, depth = 0;
    const char *start = open + 1;
    for (const char *p = start; p < end && n < MAX_PARAMS;) {
        if (*p == '"' || *p == '\'') {
            p = skip_literal(p, end);
            continue;
        }
        if (*p == '(') {
            depth++;
        } else if (*p == ')' && depth-- == 0) {
            a[n++] = (span){start, p};
            *close = p;
            return n;
        } else if (*p == ',' && depth == 0 && n != rest) {
            a[n++] = (span){start, p};
            start = p + 1;
        }
        p++;
    }
    return -1;
}

static int param_index(const macro *m, const char *name, size_t len)
{
    const char *p = m->params;
    for (int i = 0; i < m->nparams; i++, p += strlen(p) + 1)
        if (is_word(name, len, p))
            return i;
    return -1;
}

/* m's body with each parameter replaced by its argument, itself expanded
 * first (C11 6.10.3.1), into out. */
static void substitute(pp *pp, const macro *m, const span *a, clf_str *out,
                       int in_if)
{
    const char *b = m->body, *end = b + strlen(b);
    while (b < end && !pp->error) {
        const char *t = b;
        b = token_end(b, end);
        int i = is_ident_start(*t) ? param_index(m, t, (size_t)(b - t)) : -1;
        if (i >= 0)
            expand(pp, a[i].s, a[i].e, out, in_if);
        else
            put(pp, out, t, (size_t)(b - t));
    }
}

/* Expands the call of function-like m whose name ends at s into out;
 * where the text goes on, or NULL to leave the name as written (not a
 * call, or one not expanded here: then in #if an error). */
static const char *expand_call(pp *pp, macro *m, const char *s,
                               const char *end, clf_str *out, int in_if)
{
    const char *open = skip_blanks(s, end), *close = NULL;
    if (open == end || *open != '(')
        return NULL;                            /* the name alone */
    span a[MAX_PARAMS + 1];
    int n = split_args(open, end, m->variadic ? m->nparams - 1 : -1, a, &close);
    if (n == 1 && m->nparams == 0 && skip_blanks(a[0].s, a[0].e) == a[0].e)
        n = 0;                                  /* F() */
    if (n >= 0 && m->variadic && n == m->nparams - 1)
        a[n++] = (span){close, close};          /* no variable arguments */
    const char *why = m->unsupported ? "uses # or ## or has a parameter list "
                                       "that clframe does not read"
                      : n < 0 ? "is called with arguments that do not end on "
                                "its line"
                      : n != m->nparams ? "is called with a wrong number of "
                                          "arguments" : NULL;
    if (why) {
        if (in_if)
            fail(pp, "#if: the macro %s %s: clframe cannot evaluate it",
                 m->name, why);
        return NULL;
    }
    clf_str body = {0};
    substitute(pp, m, a, &body, in_if);
    m->expanding = 1;
    if (body.data)
        expand(pp, body.data, body.data + body.len, out, in_if);
    m->expanding = 0;
    if (body.failed)
        no_memory(pp);
    free(body.data);
    return close + 1;
}

/* Expands the macro m whose name ends at s into out; see expand_call. */
static const char *expand_macro(pp *pp, macro *m, const char *s,
                                const char *end, clf_str *out, int in_if)
{
    if (pp->depth == MAX_EXPAND_DEPTH) {
        fail(pp, "macros expand inside each other more than %d deep",
             MAX_EXPAND_DEPTH);
        return NULL;
    }
    if (++pp->expansions > MAX_EXPANSIONS) {
        fail(pp, "more than %d macro expansions", MAX_EXPANSIONS);
        return NULL;
    }
    pp->depth++;
    if (m->nparams < 0) {
        m->expanding = 1;
        expand(pp, m->body, m->body + strlen(m->body), out, in_if);
        m->expanding = 0;
    } else {
        s = expand_call(pp, m, s, end, out, in_if);
    }
    pp->depth--;
    return s;
}

/* Appends [s, end) to out with its macros expanded; a macro is not
 * expanded again inside its own expansion, so `#define A A` is A. */
static void expand(pp *pp, const char *s, const char *end, clf_str *out,
                   int in_if)
{
    while (s < end && !pp->error) {
        const char *t = s;
        s = token_end(s, end);
        macro *m = is_ident_start(*t) ? lookup(pp, t, (size_t)(s - t), 1)
                                      : NULL;
        const char *past = m && !m->expanding
                               ? expand_macro(pp, m, s, end, out, in_if) : NULL;
        if (past)
            s = past;
        else
            put(pp, out, t, (size_t)(s - t));
    }
    if (out->failed)
        no_memory(pp);
}

/* ---- #if expressions ----------------------------------------------------- */

/* A value of an #if expression: C evaluates them in intmax_t or uintmax_t. */
typedef struct value {
    int64_t v;
    int is_unsigned;
} value;

typedef struct expr {
    pp *pp;
    const char *p, *end;
    int depth;
} expr;

static value ternary(expr *e, int eval);

static const char *next(expr *e)
{
    return e->p = skip_blanks(e->p, e->end);
}

static value number(expr *e)
{
    const char *s = e->p, *end = skip_number(s, e->end);
    e->p = end;
    int hex = s + 1 < end && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    unsigned base = hex ? 16 : s[0] == '0' ? 8 : 10;
    const char *d = hex ? s + 2 : s;
    uint64_t v = 0;
    int digits = 0;
    for (; d < end && isxdigit((unsigned char)*d); d++, digits++) {
        unsigned digit = isdigit((unsigned char)*d)
                           ? (unsigned)(*d - '0')
                           : (unsigned)(tolower((unsigned char)*d) - 'a') + 10;
        if (digit >= base)
            break;
        if (v > (UINT64_MAX - digit) / base) {
            fail(e->pp, "#if: the integer %.*s is too large", (int)(end - s),
                 s);
            return (value){0, 0};
        }
        v = v * base + digit;
    }
    int u = 0, l = 0;
    for (; d < end; d++) {
        if ((*d == 'u' || *d == 'U') && !u)
            u = 1;
        else if ((*d == 'l' || *d == 'L') && l < 2)
            l++;
        else
            break;
    }
    if (d < end || digits == 0)
        fail(e->pp, "#if: \"%.*s\" is not an integer", (int)(end - s), s);
    return (value){(int64_t)v, u || v > INT64_MAX};
}

/* Counts one more level of nesting; 1 (and an error) past the limit. */
static int too_deep(expr *e)
{
    if (++e->depth <= MAX_EXPR_DEPTH)
        return 0;
    fail(e->pp, "#if: the expression is nested more than %d deep",
         MAX_EXPR_DEPTH);
    return 1;
}

static value unary(expr *e, int eval)
{
    value v = {0, 0};
    if (too_deep(e))
        return v;
    const char *p = next(e);
    if (p == e->end) {
        fail(e->pp, "#if: an operand is missing");
    } else if (*p == '(') {
        e->p++;
        v = ternary(e, eval);
        if (next(e) < e->end && *e->p == ')')
            e->p++;
        else
            fail(e->pp, "#if: a ')' is missing");
    } else if (*p && strchr("!~-+", *p)) {
        e->p++;
        v = unary(e, eval);
        if (*p == '!')
            v = (value){!v.v, 0};
        else if (*p == '~')
            v.v = (int64_t)~(uint64_t)v.v;
        else if (*p == '-')
            v.v = (int64_t)(0 - (uint64_t)v.v);
    } else if (starts_number(p, e->end)) {
        v = number(e);
    } else if (is_ident_start(*p)) {            /* what no macro replaced */
        e->p = skip_ident(p, e->end);
        v.v = is_word(p, (size_t)(e->p - p), "true");
    } else {
        fail(e->pp, "#if: unexpected '%c'%s", *p, *p == '\'' ? " (character "
             "constants are not read)" : "");
    }
    e->depth--;
    return v;
}

static const struct {
    const char *op;
    int prec;
} binary_ops[] = {
    {"||", 1}, {"&&", 2}, {"==", 6}, {"!=", 6}, {"<=", 7}, {">=", 7},
    {"<<", 8}, {">>", 8}, {"|", 3}, {"^", 4}, {"&", 5}, {"<", 7},
    {">", 7}, {"+", 9}, {"-", 9}, {"*", 10}, {"/", 10}, {"%", 10},
};

static int binary_op_at(expr *e)
{
    const char *p = next(e);
    size_t left = (size_t)(e->end - p);
    for (int i = 0; i < (int)(sizeof binary_ops / sizeof *binary_ops); i++) {
        size_t n = strlen(binary_ops[i].op);
        if (n <= left && memcmp(p, binary_ops[i].op, n) == 0)
            return i;
    }
    return -1;
}

/* l op r as C computes it in #if: unsigned when either is; wrapping
 * instead of overflowing; shifts past 63 give 0 (or -1); x / 0 an error
 * where it is evaluated. */
static value apply(expr *e, char op, char op2, value l, value r, int eval)
{
    int u = l.is_unsigned || r.is_unsigned;
    uint64_t a = (uint64_t)l.v, b = (uint64_t)r.v;
    int cmp = u ? (a > b) - (a < b) : (l.v > r.v) - (l.v < r.v);
    int shift_out = (!r.is_unsigned && r.v < 0) || b > 63;
    switch (op) {
    case '*': return (value){(int64_t)(a * b), u};
    case '+': return (value){(int64_t)(a + b), u};
    case '-': return (value){(int64_t)(a - b), u};
    case '/':
    case '%':
        if (b == 0) {
            if (eval)
                fail(e->pp, "#if: division by zero");
            return (value){0, u};
        }
        if (u)
            return (value){(int64_t)(op == '/' ? a / b : a % b), 1};
        if (l.v == INT64_MIN && r.v == -1)      /* overflows: wraps */
            return (value){op == '/' ? INT64_MIN : 0, 0};
        return (value){op == '/' ? l.v / r.v : l.v % r.v, 0};
    case '<':
        if (op2 == '<')
            return (value){shift_out ? 0 : (int64_t)(a << b), l.is_unsigned};
        return (value){op2 == '=' ? cmp <= 0 : cmp < 0, 0};
    case '>':
        if (op2 == '>') {
            if (shift_out)
                return (value){!l.is_unsigned && l.v < 0 ? -1 : 0,
                               l.is_unsigned};
            return (value){l.is_unsigned ? (int64_t)(a >> b) : l.v >> b,
                           l.is_unsigned};
        }
        return (value){op2 == '=' ? cmp >= 0 : cmp > 0, 0};
    case '=': return (value){cmp == 0, 0};
    case '!': return (value){cmp != 0, 0};
    case '&': return (value){(int64_t)(a & b), u};
    case '^': return (value){(int64_t)(a ^ b), u};
    default: return (value){(int64_t)(a | b), u};
    }
}

/* Operators of precedence min and above, left to right; && and || do not
 * evaluate (so do not fail on) what they skip. */
static value binary(expr *e, int min, int eval)
{
    value l = unary(e, eval);
    for (int i; !e->pp->error && (i = binary_op_at(e)) >= 0 &&
                binary_ops[i].prec >= min;) {
        const char *op = binary_ops[i].op;
        e->p += strlen(op);
        int prec = binary_ops[i].prec;
        if (prec <= 2) {
            int skip = prec == 2 ? !l.v : l.v != 0;
            value r = binary(e, prec + 1, eval && !skip);
            l = (value){prec == 2 ? l.v && r.v : l.v || r.v, 0};
        } else {
            value r = binary(e, prec + 1, eval);
            l = apply(e, op[0], op[1], l, r, eval);
        }
    }
    return l;
}

static value ternary(expr *e, int eval)
{
    value v = {0, 0};
    if (too_deep(e))
        return v;
    v = binary(e, 1, eval);
    if (!e->pp->error && next(e) < e->end && *e->p == '?') {
        e->p++;
        value a = ternary(e, eval && v.v);
        if (next(e) == e->end || *e->p != ':') {
            fail(e->pp, "#if: '?' without ':'");
        } else {
            e->p++;
            value b = ternary(e, eval && !v.v);
            v = v.v ? a : b;
            v.is_unsigned = a.is_unsigned || b.is_unsigned;
        }
    }
    e->depth--;
    return v;
}

/* `defined NAME` and `defined(NAME)` as 1 or 0, before macros are
 * expanded (which would replace NAME). */
static void replace_defined(pp *pp, const char *s, const char *end,
                            clf_str *out)
{
    while (s < end && !pp->error) {
        const char *t = s;
        s = token_end(s, end);
        if (!is_word(t, (size_t)(s - t), "defined")) {
            clf_str_append(out, t, (size_t)(s - t));
            continue;
        }
        const char *name = skip_blanks(s, end);
        int paren = name < end && *name == '(';
        if (paren)
            name = skip_blanks(name + 1, end);
        s = skip_ident(name, end);
        size_t len = (size_t)(s - name);
        if (paren)
            s = skip_blanks(s, end);
        if (len == 0 || (paren && (s == end || *s++ != ')'))) {
            fail(pp, "#if: \"defined\" without a macro name%s",
                 paren ? " and ')'" : "");
            return;
        }
        clf_str_append(out, lookup(pp, name, len, 0) ? " 1 " : " 0 ", 3);
    }
}

/* The value of an #if or #elif expression; 0 after an error. */
static int evaluate(pp *pp, const char *s, const char *end)
{
    clf_str defined = {0}, expanded = {0};
    replace_defined(pp, s, end, &defined);
    if (defined.data)
        expand(pp, defined.data, defined.data + defined.len, &expanded, 1);
    expr e = {pp, expanded.data ? expanded.data : "", NULL, 0};
    e.end = e.p + expanded.len;
    value v = {0, 0};
    if (defined.failed)
        no_memory(pp);
    else if (!pp->error)
        v = ternary(&e, 1);
    if (!pp->error && next(&e) < e.end)
        fail(pp, "#if: unexpected \"%.*s\" after the expression",
             (int)(e.end - e.p > 20 ? 20 : e.end - e.p), e.p);
    free(defined.data);
    free(expanded.data);
    return !pp->error && v.v != 0;
}

/* ---- directives ---------------------------------------------------------- */

enum { IF, IFDEF, IFNDEF };

static int condition(pp *pp, int kind, const char *p, const char *end)
{
    if (kind == IF)
        return evaluate(pp, p, end);
    const char *name_end = skip_ident(p, end);
    if (name_end == p) {
        fail(pp, "#%s without a macro name",
             kind == IFDEF ? "ifdef" : "ifndef");
        return 0;
    }
    int defined = lookup(pp, p, (size_t)(name_end - p), 0) != NULL;
    return kind == IFDEF ? defined : !defined;
}

static void open_if(pp *pp, int kind, const char *p, const char *end)
{
    if (pp->nconds == MAX_IF_DEPTH) {
        fail(pp, "#if nested more than %d deep", MAX_IF_DEPTH);
        return;
    }
    cond *c = &pp->conds[pp->nconds++];
    *c = (cond){.outer = pp->active, .file = pp->file,
                .file_len = pp->file_len, .line = pp->line};
    pp->active = c->taken = pp->active && condition(pp, kind, p, end);
}

/* #elif (else_ 0) and #else (else_ 1). */
static void next_branch(pp *pp, int else_, const char *p, const char *end)
{
    const char *name = else_ ? "#else" : "#elif";
    cond *c = pp->nconds ? &pp->conds[pp->nconds - 1] : NULL;
    if (!c || c->seen_else) {
        fail(pp, "%s %s", name, c ? "after #else" : "without #if");
        return;
    }
    c->seen_else |= else_;
    pp->active = c->outer && !c->taken && (else_ || evaluate(pp, p, end));
    c->taken |= pp->active;
}

/* #line N "file": where the next line comes from, for messages. */
static void line_marker(pp *pp, const char *p, const char *end)
{
    unsigned n = 0;
    const char *digits = p;
    while (p < end && isdigit((unsigned char)*p) && n < 100000000)
        n = n * 10 + (unsigned)(*p++ - '0');
    if (p == digits)
        return;                 /* the compiler will say what is wrong */
    p = skip_blanks(p, end);
    const char *close = p < end && *p == '"'
                            ? memchr(p + 1, '"', (size_t)(end - p - 1)) : NULL;
    if (close) {
        pp->file = p + 1;
        pp->file_len = (int)(close - p - 1);
    }
    pp->line = n - 1;
}

/* One directive: [s, end) is the line after its '#', in the text that
 * lives as long as the run (for #line's file name). */
static void directive(pp *pp, const char *s, const char *end)
{
    const char *word = skip_blanks(s, end), *p = skip_ident(word, end);
    size_t n = (size_t)(p - word);
    if (is_word(word, n, "line")) {     /* source.c's markers: even in
                                           text not compiled */
        line_marker(pp, skip_blanks(p, end), end);
        return;
    }
    clf_str joined = {0};                       /* continuations as spaces */
    for (const char *q = p; q < end;) {
        const char *cut = q;
        while (cut + 1 < end && !(cut[0] == '\\' && cut[1] == '\n'))
            cut++;
        if (cut + 1 >= end)
            cut = end;
        clf_str_append(&joined, q, (size_t)(cut - q));
        if (cut < end)
            clf_str_append(&joined, "  ", 2);
        q = cut < end ? cut + 2 : end;
    }
    if (joined.failed) {
        no_memory(pp);
        free(joined.data);
        return;
    }
    const char *a = joined.data ? joined.data : "", *e = a + joined.len;
    a = skip_blanks(a, e);
    if (is_word(word, n, "if"))
        open_if(pp, IF, a, e);
    else if (is_word(word, n, "ifdef"))
        open_if(pp, IFDEF, a, e);
    else if (is_word(word, n, "ifndef"))
        open_if(pp, IFNDEF, a, e);
    else if (is_word(word, n, "elif"))
        next_branch(pp, 0, a, e);
    else if (is_word(word, n, "else"))
        next_branch(pp, 1, a, e);
    else if (is_word(word, n, "endif") && pp->nconds == 0)
        fail(pp, "#endif without #if");
    else if (is_word(word, n, "endif"))
        pp->active = pp->conds[--pp->nconds].outer;
    else if (pp->active && is_word(word, n, "define"))
        define(pp, a, e);
    else if (pp->active && is_word(word, n, "undef"))
        undefine(pp, a, (size_t)(skip_ident(a, e) - a));
    free(joined.data);
}

/* The length of the logical line at p (a backslash before a newline
 * continues it), without its last newline; *inner counts the others. */
static size_t logical_line(const char *p, unsigned *inner)
{
    size_t n = 0;
    *inner = 0;
    for (;;) {
        n += strcspn(p + n, "\n");
        if (!p[n] || n == 0 || p[n - 1] != '\\')
            return n;
        (*inner)++;
        n++;
    }
}

static void one_line(pp *pp, const char *line, size_t len, unsigned inner)
{
    const char *end = line + len, *p = skip_blanks(line, end);
    int was_active = pp->active;
    if (p < end && *p == '#')
        directive(pp, p + 1, end);
    if (p < end && *p == '#' && was_active) {
        clf_str_append(&pp->out, line, len);    /* proto.c reads #include */
    } else if (!was_active || (p < end && *p == '#')) {
        for (unsigned i = 0; i < inner; i++)    /* blank, lines kept */
            clf_str_append(&pp->out, "\n", 1);
    } else {
        clf_str text = {0};
        expand(pp, line, end, &text, 0);
        if (text.data)
            clf_str_append(&pp->out, text.data, text.len);
        free(text.data);
    }
}

static void run(pp *pp, const char *text)
{
    for (const char *p = text; *p && !pp->error;) {
        unsigned inner;
        size_t len = logical_line(p, &inner);
        pp->line++;
        if (len > MAX_LINE)
            fail(pp, "a line of more than %d characters", MAX_LINE);
        else
            one_line(pp, p, len, inner);
        pp->line += inner;
        p += len;
        if (*p == '\n') {
            clf_str_append(&pp->out, "\n", 1);
            p++;
        }
    }
    if (!pp->error && pp->nconds) {
        cond *c = &pp->conds[pp->nconds - 1];
        pp->file = c->file;
        pp->file_len = c->file_len;
        pp->line = c->line;
        fail(pp, "unterminated #if: no #endif before the end of the source");
    }
}

int clf_preprocess(const clf_device_macros *device, const char *source,
                   const char *options, char **view)
{
    *view = NULL;
    pp *pp = calloc(1, sizeof *pp);
    char *text = clf_blank_comments(source, 0);
    int rc;
    if (!pp || !text) {
        rc = clframe_fail(CLFRAME_ERR_NO_MEMORY, "preprocessing");
    } else {
        pp->device = device;
        pp->active = 1;
        set_file(pp, "the device's macros");
        pp->std = std_version(options);
        define_device(pp);
        apply_options(pp, options);
        set_file(pp, "the source");
        run(pp, text);
        if (pp->out.failed)
            no_memory(pp);
        if (!pp->error &&
            !(*view = pp->out.data ? pp->out.data : clf_strdup("")))
            no_memory(pp);
        if (*view)
            pp->out.data = NULL;
        rc = pp->error;
    }
    for (int i = 0; pp && i < BUCKETS; i++)
        for (macro *m = pp->macros[i], *after; m; m = after) {
            after = m->next;
            free(m);
        }
    if (pp)
        free(pp->out.data);
    free(pp);
    free(text);
    return rc;
}
