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
#include "internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_INCLUDE_DEPTH = 32, MAX_SEARCH_DIRS = 16, MAX_SOURCE_TABLES = 64 };

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

/* path in each folder of CLFRAME_KERNEL_PATH, in order; NULL if in none. */
static char *find_on_kernel_path(const char *path, char **where)
{
    const char *kp = getenv("CLFRAME_KERNEL_PATH");
    if (!kp || !*kp)
        return NULL;
    char *dirs = clf_strdup(kp), *save = NULL, *text = NULL;
    for (char *dir = dirs ? strtok_r(dirs, ":", &save) : NULL; dir && !text;
         dir = strtok_r(NULL, ":", &save)) {
        char *full = join_path(dir, path);
        if (full && (text = clf_read_file(full, NULL)))
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
 * nowhere. */
static char *find_source(const char *path, char **where, int *embedded)
{
    *embedded = 0;
    *where = NULL;
    char *text = clf_read_file(path, NULL);
    if (text) {
        *where = clf_strdup(path);
    } else if (!names_a_file_only(path) &&
               !(text = find_on_kernel_path(path, where))) {
        const clframe_source *e = find_embedded(path);
        if (e && (text = malloc(e->length + 1))) {
            memcpy(text, e->text, e->length);
            text[e->length] = '\0';
            *where = clf_strdup(e->path);
            *embedded = 1;
        }
    }
    if (text && !*where) {          /* out of memory for the name */
        free(text);
        text = NULL;
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

/* Expansion state: the -I list and the files that asked for #pragma once. */
typedef struct expander {
    char *dirs[MAX_SEARCH_DIRS];
    int ndirs;
    char *once[256];
    int nonce;
    clf_str out;
    int error;                   /* a clframe code once something failed */
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

static void expand(expander *x, const char *text, const char *name, int depth);

/* Resolves and expands one include: "name" from the including file's
 * folder first, then like <name> from the search folders. Leaves the line
 * for the compiler to report when the file is nowhere, so the error shows
 * in its context (and clfunction's message names it: proto.c). */
static void expand_include(expander *x, const char *inc, int angle,
                           const char *from, int depth, const char *line,
                           size_t len)
{
    char *where = NULL, *text = NULL;
    int embedded;
    char *dir = angle ? NULL : dir_of(from);
    char *first = dir ? join_path(dir, inc) : NULL;
    if (first)
        text = find_source(first, &where, &embedded);
    free(first);
    free(dir);
    for (int i = 0; !text && i < x->ndirs; i++) {
        char *candidate = x->dirs[i] ? join_path(x->dirs[i], inc) : NULL;
        if (candidate)
            text = find_source(candidate, &where, &embedded);
        free(candidate);
    }
    if (!text) {
        clf_str_append(&x->out, line, len);
        clf_str_append(&x->out, "\n", 1);
        return;
    }
    if (!seen_once(x, where))
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
            expand_include(x, inc, close == '>', name, depth, p, len);
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
    char *text = find_source(path, &where, embedded);
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

/* Walks the expanded text to its line `line`, following the #line markers
 * expand() wrote, to find the file and line it came from. */
static int locate(const char *text, unsigned line, char *file, size_t size,
                  unsigned *file_line)
{
    unsigned here = 1;                  /* line in the expanded text */
    unsigned mapped = 1;                /* its line in *file */
    snprintf(file, size, "?");
    for (const char *p = text; *p && here < line; here++) {
        size_t len = strcspn(p, "\n");
        unsigned l;
        int name_at = 0;
        if (sscanf(p, "#line %u \"%n", &l, &name_at) == 1 && name_at > 0) {
            const char *q = memchr(p + name_at, '"', len - (size_t)name_at);
            size_t n = q ? (size_t)(q - p - name_at) : 0;
            if (n >= size)
                n = size - 1;
            memcpy(file, p + name_at, n);
            file[n] = '\0';
            mapped = l;
        } else {
            mapped++;
        }
        p += len;
        if (*p == '\n')
            p++;
    }
    *file_line = mapped;
    return here == line;
}

char *clf_source_map_log(const char *log, const char *expanded)
{
    clf_str out = {0};
    for (const char *p = log; *p;) {
        size_t len = strcspn(p, "\n");
        /* "<kernel>:12:" (NVIDIA) or "input.cl:12:" (Oclgrind): both
         * ignore #line, so the number is a line of the expanded text. */
        const char *close = p[0] == '<' ? memchr(p, '>', len)
                            : strncmp(p, "input.cl:", 9) == 0 ? p + 7 : NULL;
        unsigned line = 0;
        int used = 0;
        char file[512];
        unsigned file_line;
        if (close && close[1] == ':' &&
            sscanf(close + 2, "%u%n", &line, &used) == 1 &&
            close[2 + used] == ':' &&
            locate(expanded, line, file, sizeof file, &file_line)) {
            clf_str_printf(&out, "%s:%u", file, file_line);
            clf_str_append(&out, close + 2 + used, len - (size_t)(close + 2 + used - p));
        } else {
            clf_str_append(&out, p, len);
        }
        p += len;
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
