/*
 * source.c: finding kernel sources and expanding their #include lines.
 *
 * clframe hands the OpenCL compiler one complete text instead of letting it
 * search include folders itself: it finds every file by one rule (a file on
 * disk first, then CLFRAME_KERNEL_PATH, then the sources compiled into the
 * program: clkernel_file in clframe.h), so programs work from any directory
 * while a user's own file always wins, and clframe knows every byte that went
 * into a build. #line markers keep compiler messages pointing at the file and
 * line the user wrote.
 */
#include "source.h"

#include <pthread.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_INCLUDE_DEPTH = 32, MAX_SEARCH_DIRS = 16, MAX_SOURCE_TABLES = 64 };
/* Headers without guards that include each other several times expand to
 * the product of those counts (100 x 100 x 100 includes of 4.5 KB of text
 * made 72 MB): a source may expand this many includes, far more than any
 * real one needs. */
enum { MAX_INCLUDES = 10000 };

/* ---- sources compiled into the program ----------------------------------- */

/* The tables added by clframe_add_sources; the library's own comes last. */
static const clframe_source *source_tables[MAX_SOURCE_TABLES];
static int source_table_count;
static pthread_mutex_t source_tables_lock = PTHREAD_MUTEX_INITIALIZER;

int clframe_add_sources(const clframe_source *table)
{
    if (!table)
        return clframe_fail(CLFRAME_ERR_USAGE, "clframe_add_sources: NULL "
                            "table");
    int rc = 0, known = 0;
    pthread_mutex_lock(&source_tables_lock);
    for (int i = 0; i < source_table_count; i++)
        known |= source_tables[i] == table;
    if (!known && source_table_count == MAX_SOURCE_TABLES)
        rc = clframe_fail(CLFRAME_ERR_USAGE, "clframe_add_sources: more "
                          "than %d tables", MAX_SOURCE_TABLES);
    else if (!known)
        source_tables[source_table_count++] = table;
    pthread_mutex_unlock(&source_tables_lock);
    return rc;
}

static const clframe_source *find_in_table(const clframe_source *table,
                                           const char *path)
{
    for (const clframe_source *e = table; e->path; e++)
        if (strcmp(e->path, path) == 0)
            return e;
    return NULL;
}

/* A relative path without "." and "dir/.." steps, so that an include
 * relative to an embedded file ("apps/x/kernels/../common/y.h") finds its
 * entry ("apps/x/common/y.h"). Caller frees; NULL if out of memory. */
static char *normalize_path(const char *path)
{
    char *out = malloc(strlen(path) + 2);
    if (!out)
        return NULL;
    size_t n = 0;                   /* the kept steps, each with its '/' */
    int droppable = 0;              /* kept steps that are not ".." */
    for (const char *p = path; *p; p += strspn(p, "/")) {
        size_t len = strcspn(p, "/");
        int dots = len == 2 && p[0] == '.' && p[1] == '.';
        if (dots && droppable > 0) {
            n--;
            while (n > 0 && out[n - 1] != '/')
                n--;
            droppable--;
        } else if (!(len == 1 && p[0] == '.')) {
            memcpy(out + n, p, len);
            n += len;
            out[n++] = '/';
            droppable += !dots;
        }
        p += len;
    }
    out[n ? n - 1 : 0] = '\0';
    return out;
}

/* The embedded source at path: the tables added last first, then the
 * library's own device sources. */
static const clframe_source *find_embedded(const char *path)
{
    char *name = normalize_path(path);
    if (!name)
        return NULL;
    const clframe_source *e = NULL;
    pthread_mutex_lock(&source_tables_lock);
    for (int i = source_table_count - 1; i >= 0 && !e; i--)
        e = find_in_table(source_tables[i], name);
    pthread_mutex_unlock(&source_tables_lock);
    if (!e)
        e = find_in_table(clf_library_sources, name);
    free(name);
    return e;
}

/* ---- the lookup ----------------------------------------------------------- */

static char *join_path(const char *dir, const char *name)
{
    clf_str s = {0};
    clf_str_printf(&s, "%s%s%s", dir, dir[0] ? "/" : "", name);
    if (s.failed) {
        free(s.data);
        return NULL;
    }
    return s.data;
}

/* A path that names a file on disk and nothing else: absolute, or
 * starting with ./ or ../. */
static int names_a_file_only(const char *path)
{
    return path[0] == '/' || strncmp(path, "./", 2) == 0 ||
           strncmp(path, "../", 3) == 0;
}

/* errno after clf_read_file failed on a file that is there but cannot be a
 * source (not a regular file, too large, unreadable); 0 when it is simply
 * not there, so the search goes on. */
static int unusable(int err)
{
    return err == ENOENT || err == ENOTDIR || err == ENAMETOOLONG ? 0 : err;
}

/* Why a source could not be used, for messages. */
static const char *unusable_why(int err)
{
    return err == EINVAL ? "not a regular file"
           : err == EFBIG ? "larger than clframe reads (256 MiB)"
           : err == EACCES ? "not readable"
           : err == ENOMEM ? "more than memory holds"
                           : "unreadable";
}

/* path in each folder of CLFRAME_KERNEL_PATH, in order; NULL if in none,
 * or with *err set (and *where naming it) at one that cannot be used. */
static char *find_on_kernel_path(const char *path, char **where, int *err)
{
    const char *kp = getenv("CLFRAME_KERNEL_PATH");
    if (!kp || !*kp)
        return NULL;
    char *dirs = clf_strdup(kp), *save = NULL, *text = NULL;
    for (char *dir = dirs ? strtok_r(dirs, ":", &save) : NULL;
         dir && !text && !*err; dir = strtok_r(NULL, ":", &save)) {
        char *full = join_path(dir, path);
        if (full && ((text = clf_read_file(full, NULL)) ||
                     (*err = unusable(errno))))
            *where = full;
        else
            free(full);
    }
    free(dirs);
    return text;
}

/* Looks path up as clkernel_file describes: on disk as given, in each
 * CLFRAME_KERNEL_PATH folder, among the embedded sources. Returns the text
 * and sets *where (both malloc'd) and *embedded, or NULL when found
 * nowhere, or NULL with *err (see unusable) and *where naming the file
 * that is there but cannot be read. */
static char *find_source(const char *path, char **where, int *embedded,
                         int *err)
{
    *embedded = 0;
    *where = NULL;
    *err = 0;
    char *text = clf_read_file(path, NULL);
    if (text || (*err = unusable(errno))) {
        *where = clf_strdup(path);
    } else if (!names_a_file_only(path) &&
               !(text = find_on_kernel_path(path, where, err)) && !*err) {
        const clframe_source *e = find_embedded(path);
        if (e && (text = malloc(e->length + 1))) {
            memcpy(text, e->text, e->length);
            text[e->length] = '\0';
            *where = clf_strdup(e->path);
            *embedded = 1;
        }
    }
    if ((text || *err) && !*where) {    /* out of memory for the name */
        free(text);
        text = NULL;
        *err = ENOMEM;
    }
    return text;
}

/* Where an #include looks after the including file's folder: the -I
 * folders named in build options ("-I dir" or "-Idir"), then kernels/,
 * then "" (the name as written, which finds the library's own device
 * sources: "clframe/shared.h", "lib/mwc64x.h"). */
static int include_dirs(const char *options, char *dirs[MAX_SEARCH_DIRS])
{
    int n = 0;
    const char *p = options ? options : "";
    while ((p = strstr(p, "-I")) && n < MAX_SEARCH_DIRS - 2) {
        if (p != options && p[-1] != ' ' && p[-1] != '\t') {
            p += 2;
            continue;
        }
        p += 2;
        while (*p == ' ' || *p == '\t')
            p++;
        size_t len = strcspn(p, " \t");
        if (len == 0)
            continue;
        dirs[n] = malloc(len + 1);
        if (!dirs[n])
            break;
        memcpy(dirs[n], p, len);
        dirs[n][len] = '\0';
        n++;
        p += len;
    }
    dirs[n++] = clf_strdup("kernels");
    dirs[n++] = clf_strdup("");
    return n;
}

static void free_dirs(char **dirs, int n)
{
    for (int i = 0; i < n; i++)
        free(dirs[i]);
}

/* Expansion state: the -I list, the files that asked for #pragma once and
 * the include guards already defined. */
typedef struct expander {
    char *dirs[MAX_SEARCH_DIRS];
    int ndirs;
    char *once[256];
    int nonce;
    char *guards[256];
    int nguards;
    clf_str out;
    int error;                   /* a clframe code once something failed */
    unsigned includes;           /* expanded so far */
} expander;

static int seen_once(const expander *x, const char *where)
{
    for (int i = 0; i < x->nonce; i++)
        if (strcmp(x->once[i], where) == 0)
            return 1;
    return 0;
}

int clf_source_include_name(const char *line, size_t len, char *buf,
                            size_t size)
{
    const char *p = line, *end = line + len;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p == end || *p != '#')
        return 0;
    p++;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if ((size_t)(end - p) < 7 || strncmp(p, "include", 7) != 0)
        return 0;
    p += 7;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p == end || (*p != '"' && *p != '<'))
        return 0;
    char close = *p == '"' ? '"' : '>';
    const char *q = memchr(p + 1, close, (size_t)(end - p - 1));
    if (!q || (size_t)(q - p - 1) >= size || q == p + 1)
        return 0;
    memcpy(buf, p + 1, (size_t)(q - p - 1));
    buf[q - p - 1] = '\0';
    return close;
}

/* Tracks whether the end of a line is inside a block comment. */
static int comment_after(const char *line, size_t len, int in_comment)
{
    for (size_t i = 0; i < len; i++) {
        if (in_comment) {
            if (line[i] == '*' && i + 1 < len && line[i + 1] == '/') {
                in_comment = 0;
                i++;
            }
        } else if (line[i] == '/' && i + 1 < len) {
            if (line[i + 1] == '/')
                break;
            if (line[i + 1] == '*') {
                in_comment = 1;
                i++;
            }
        }
    }
    return in_comment;
}

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : 0;
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, path, n);
        d[n] = '\0';
    }
    return d;
}

/* The directive of the line from p to end: its word ("ifndef") in *word,
 * *word_len, and its first token ("X") in *arg, *arg_len. 0 for a line
 * that is not a directive. */
static int directive_at(const char *p, const char *end, const char **word,
                        size_t *word_len, const char **arg, size_t *arg_len)
{
    p += strspn(p, " \t");
    if (p >= end || *p != '#')
        return 0;
    p += 1 + strspn(p + 1, " \t");
    for (*word = p; p < end && *p >= 'a' && *p <= 'z'; p++)
        ;
    *word_len = (size_t)(p - *word);
    p += strspn(p, " \t");
    for (*arg = p; p < end && !strchr(" \t\r", *p); p++)
        ;
    *arg_len = (size_t)(p - *arg);
    return 1;
}

static int is(const char *word, size_t len, const char *name)
{
    return len == strlen(name) && strncmp(word, name, len) == 0;
}

/* The guard macro of a header written the classic way, "#ifndef X" and
 * "#define X" first, its "#endif" last (comments aside), into name; 0 for
 * any other header. A compiler skips such a header when X is defined; so
 * does the expander, or headers that include each other twice would make
 * a text that doubles with every level. */
static int include_guard(const char *text, char *name, size_t size)
{
    char *clean = clf_blank_comments(text, 0);
    int lines = 0, depth = 0, guarded = clean != NULL;
    for (const char *p = clean; guarded && p && *p;) {
        const char *end = p + strcspn(p, "\n"), *word = p, *arg = p;
        size_t word_len = 0, arg_len = 0;
        int d = directive_at(p, end, &word, &word_len, &arg, &arg_len);
        if (p + strspn(p, " \t\r\f\v") < end) {     /* not a blank line */
            lines++;
            if (lines == 1)
                guarded = d && is(word, word_len, "ifndef") && arg_len &&
                          arg_len < size;
            if (lines == 1 && guarded) {
                memcpy(name, arg, arg_len);
                name[arg_len] = '\0';
            }
            if (lines == 2)
                guarded = d && is(word, word_len, "define") &&
                          is(arg, arg_len, name);
            if (lines > 1 && depth == 0)
                guarded = 0;            /* text after the closing #endif */
            if (d && word_len >= 2 && strncmp(word, "if", 2) == 0)
                depth++;
            if (d && is(word, word_len, "endif"))
                depth--;
        }
        p = *end ? end + 1 : end;
    }
    free(clean);
    return guarded && lines > 2 && depth == 0;
}

/* 1 if name is the guard of a header expanded before; else remembers it. */
static int guarded_before(expander *x, const char *name)
{
    for (int i = 0; i < x->nguards; i++)
        if (strcmp(x->guards[i], name) == 0)
            return 1;
    if (x->nguards < 256 && (x->guards[x->nguards] = clf_strdup(name)))
        x->nguards++;
    return 0;
}

static void expand(expander *x, const char *text, const char *name, int depth);

/* Resolves and expands one include: "name" from the including file's
 * folder first, then like <name> from the search folders. Leaves the line
 * for the compiler to report when the file is nowhere, so the error shows
 * in its context (and clfunction's message names it: proto.c). */
static void expand_include(expander *x, const char *inc, int angle,
                           const char *from, unsigned lineno, int depth,
                           const char *line, size_t len)
{
    char *where = NULL, *text = NULL;
    int embedded, err = 0;
    char *dir = angle ? NULL : dir_of(from);
    char *first = dir ? join_path(dir, inc) : NULL;
    if (first)
        text = find_source(first, &where, &embedded, &err);
    free(first);
    free(dir);
    for (int i = 0; !text && !err && i < x->ndirs; i++) {
        char *candidate = x->dirs[i] ? join_path(x->dirs[i], inc) : NULL;
        if (candidate)
            text = find_source(candidate, &where, &embedded, &err);
        free(candidate);
    }
    if (err) {
        x->error = clframe_fail(CLFRAME_ERR_IO, "%s:%u: #include %c%s%c: %s "
                                "is %s", from, lineno, angle ? '<' : '"', inc,
                                angle ? '>' : '"', where ? where : inc,
                                unusable_why(err));
        free(where);
        return;
    }
    if (!text) {
        clf_str_append(&x->out, line, len);
        clf_str_append(&x->out, "\n", 1);
        return;
    }
    char guard[256];
    if (++x->includes > MAX_INCLUDES) {
        x->error = clframe_fail(CLFRAME_ERR_USAGE, "%s:%u: more than %d "
                                "#include lines expanded (headers without "
                                "guards that include each other?)", from,
                                lineno, MAX_INCLUDES);
        free(text);
        free(where);
        return;
    }
    if (!seen_once(x, where) &&
        !(include_guard(text, guard, sizeof guard) && guarded_before(x, guard)))
        expand(x, text, where, depth + 1);
    free(text);
    free(where);
}

static void expand(expander *x, const char *text, const char *name, int depth)
{
    if (depth > MAX_INCLUDE_DEPTH) {
        x->error = clframe_fail(CLFRAME_ERR_USAGE, "%s: #include nested more than "
                            "%d deep (an include cycle?)", name,
                            MAX_INCLUDE_DEPTH);
        return;
    }
    if (strstr(text, "#pragma once") && x->nonce < 256)
        x->once[x->nonce++] = clf_strdup(name);
    clf_str_printf(&x->out, "#line 1 \"%s\"\n", name);
    int in_comment = 0;
    unsigned lineno = 1;
    for (const char *p = text; *p && !x->error; lineno++) {
        size_t len = strcspn(p, "\n");
        char inc[512];
        int close = in_comment
                        ? 0 : clf_source_include_name(p, len, inc, sizeof inc);
        if (close) {
            expand_include(x, inc, close == '>', name, lineno, depth, p, len);
            clf_str_printf(&x->out, "#line %u \"%s\"\n", lineno + 1, name);
        } else {
            clf_str_append(&x->out, p, len);
            clf_str_append(&x->out, "\n", 1);
        }
        in_comment = comment_after(p, len, in_comment);
        p += len;
        if (*p == '\n')
            p++;
    }
}

char *clf_source_expand(const char *text, const char *origin,
                        const char *options)
{
    expander x = {0};
    x.ndirs = include_dirs(options, x.dirs);
    expand(&x, text, origin, 0);
    free_dirs(x.dirs, x.ndirs);
    free_dirs(x.once, x.nonce);
    free_dirs(x.guards, x.nguards);
    if (x.out.failed && !x.error)
        x.error = clframe_fail(CLFRAME_ERR_NO_MEMORY, "expanding %s", origin);
    if (x.error) {
        free(x.out.data);
        return NULL;
    }
    return x.out.data;
}

char *clf_source_load(const char *path, const char *options, char **resolved,
                      int *embedded)
{
    char *where = NULL;
    int err;
    char *text = find_source(path, &where, embedded, &err);
    if (err) {
        clframe_fail(CLFRAME_ERR_IO, "kernel source \"%s\" is %s",
                     where ? where : path, unusable_why(err));
        free(where);
        return NULL;
    }
    if (!text && names_a_file_only(path)) {
        clframe_fail(CLFRAME_ERR_NOT_FOUND, "kernel source \"%s\" not found "
                     "(a path starting with /, ./ or ../ names a file on disk "
                     "only)", path);
        return NULL;
    }
    if (!text) {
        const char *kp = getenv("CLFRAME_KERNEL_PATH");
        clframe_fail(CLFRAME_ERR_NOT_FOUND, "kernel source \"%s\" not found: "
                     "not in the current directory, not in "
                     "CLFRAME_KERNEL_PATH (%s), not among the sources compiled "
                     "into the program", path, kp && *kp ? kp : "unset");
        return NULL;
    }
    char *expanded = clf_source_expand(text, where, options);
    free(text);
    if (expanded && resolved)
        *resolved = where;
    else
        free(where);
    return expanded;
}

/* The decimal number at s, before end, in *value: the count of its
 * digits, 0 when there is none or it does not fit. Unlike sscanf's %u it
 * skips no blank and no newline, so a line is never read past its end. */
static size_t read_number(const char *s, const char *end, unsigned *value)
{
    size_t n = 0;
    unsigned long v = 0;
    for (; s + n < end && s[n] >= '0' && s[n] <= '9'; n++)
        if ((v = v * 10 + (unsigned long)(s[n] - '0')) > UINT_MAX)
            return 0;
    *value = (unsigned)v;
    return n;
}

/* A line `#line N "file"` or `#line N` from p to end: N in *number, the
 * name, if any (up to size - 1 bytes), in file. 0 for any other line. */
static int line_marker(const char *p, const char *end, unsigned *number,
                       char *file, size_t size)
{
    size_t digits;
    if (end - p < 6 || memcmp(p, "#line ", 6) != 0 ||
        !(digits = read_number(p + 6, end, number)))
        return 0;
    const char *name = p + 6 + digits;
    if (name + strspn(name, " \t\r") >= end)
        return 1;                       /* the number alone */
    if (end - name < 2 || memcmp(name, " \"", 2) != 0)
        return 0;
    name += 2;
    const char *quote = memchr(name, '"', (size_t)(end - name));
    size_t n = quote ? (size_t)(quote - name) : 0;
    if (n >= size)
        n = size - 1;
    memcpy(file, name, n);
    file[n] = '\0';
    return 1;
}

/* Walks the expanded text to its line `line`, following the #line markers
 * expand() wrote, to find the file and line it came from. */
static int locate(const char *text, unsigned line, char *file, size_t size,
                  unsigned *file_line)
{
    unsigned here = 1;                  /* line in the expanded text */
    unsigned mapped = 1;                /* its line in *file */
    snprintf(file, size, "?");
    for (const char *p = text; *p && here < line; here++) {
        const char *end = p + strcspn(p, "\n");
        unsigned number;
        if (line_marker(p, end, &number, file, size))
            mapped = number;
        else
            mapped++;
        p = *end ? end + 1 : end;
    }
    *file_line = mapped;
    return here == line;
}

/* Where a log line from p to end names a line of the expanded text:
 * "<kernel>:12:" (NVIDIA) or "input.cl:12:" (Oclgrind), both of which
 * ignore #line. Returns that line and sets *rest just past the number's
 * colon; 0 for any other line. */
static unsigned log_line_number(const char *p, const char *end,
                                const char **rest)
{
    const char *after;
    if (end - p >= 9 && memcmp(p, "input.cl:", 9) == 0)
        after = p + 9;
    else if (p < end && *p == '<' && (after = memchr(p, '>', (size_t)(end - p))) &&
             end - after >= 2 && after[1] == ':')
        after += 2;
    else
        return 0;
    unsigned line;
    size_t digits = read_number(after, end, &line);
    if (!digits || after + digits >= end || after[digits] != ':')
        return 0;
    *rest = after + digits;
    return line;
}

char *clf_source_map_log(const char *log, const char *expanded)
{
    clf_str out = {0};
    for (const char *p = log; *p;) {
        const char *end = p + strcspn(p, "\n"), *rest;
        unsigned line = log_line_number(p, end, &rest);
        char file[512];
        unsigned file_line;
        if (line && locate(expanded, line, file, sizeof file, &file_line)) {
            clf_str_printf(&out, "%s:%u", file, file_line);
            clf_str_append(&out, rest, (size_t)(end - rest));
        } else {
            clf_str_append(&out, p, (size_t)(end - p));
        }
        p = end;
        if (*p == '\n') {
            clf_str_append(&out, "\n", 1);
            p++;
        }
    }
    if (out.failed) {
        free(out.data);
        return NULL;
    }
    return out.data ? out.data : clf_strdup("");
}

char *clf_source_open(const char *caller, int from_file, const char *text,
                      const char *name, const char *options, int debug,
                      char **origin)
{
    *origin = NULL;
    if (!text || !name) {
        clframe_fail(CLFRAME_ERR_USAGE, "%s: the %s and the name must not be "
                     "NULL", caller, from_file ? "path" : "source");
        return NULL;
    }
    if (from_file) {
        int embedded = 0;
        char *where = NULL;
        char *expanded = clf_source_load(text, options, &where, &embedded);
        if (!expanded)
            return NULL;
        clf_str named = {0};
        clf_str_printf(&named, "%s%s", where, embedded ? " (the copy compiled "
                       "into the program: no such file here)" : "");
        free(where);
        if (named.failed) {
            free(expanded);
            free(named.data);
            clframe_fail(CLFRAME_ERR_NO_MEMORY, "%s(%s)", caller, name);
            return NULL;
        }
        if (embedded && debug)
            fprintf(stderr, "clframe: %s: %s\n", caller, named.data);
        *origin = named.data;
        return expanded;
    }
    clf_str where = {0};
    clf_str_printf(&where, "source of %s", name);
    char *expanded = where.failed ? NULL
                                  : clf_source_expand(text, where.data, options);
    if (!expanded) {
        if (where.failed)
            clframe_fail(CLFRAME_ERR_NO_MEMORY, "%s(%s)", caller, name);
        free(where.data);
        return NULL;
    }
    *origin = where.data;
    return expanded;
}
