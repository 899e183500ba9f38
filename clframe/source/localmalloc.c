/*
 * localmalloc.c: local_malloc(bytes) and local_free(bytes) in kernel code.
 *
 * OpenCL C allows __local arrays only at kernel scope, so helper functions
 * that need scratch get it threaded down from the kernel. Since OpenCL C has
 * no recursion and no function pointers, and sizes here are compile-time
 * constants freed last in first out, every block's place is known before
 * the build. This file parses the source with libclang (loaded at run time:
 * programs that never allocate never need it), finds each function's peak
 * of live bytes (a callee is found by its declaration, as the compiler
 * finds it: overloads share a name), checks the layout again by another
 * route, and rewrites the text: each kernel that allocates declares
 * one __local arena of its peak, each function that allocates (itself or
 * through a call) takes a pointer to its frame in it as one more parameter,
 * local_malloc becomes that pointer plus a constant offset and local_free
 * nothing. A block still live when a function returns stays taken until
 * the kernel ends (a warning names it), as the code that needs local
 * scratch first did by hand. No newline is added or removed, so build logs
 * keep their lines, and every message names the file and line the user
 * wrote (the #line markers of the expanded source are followed).
 */
#include "source.h"

#ifdef CLF_NO_LIBCLANG_HEADERS
#error "clang-c/Index.h not found: install libclang-dev (make deps does)"
#endif
#include <clang-c/Index.h>
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLF_LIBCLANG_VERSION
#define CLF_LIBCLANG_VERSION 14
#endif

enum {
    MIN_ALIGN = 16,              /* a block of a known type: a float4 */
    MAX_ALIGN = 128,             /* a double16 or long16 */
    MAX_DEPTH = 256,             /* live blocks in one function */
    MAX_NESTING = 2000,          /* statements and expressions nested */
    MAX_CHAIN = 256,             /* calls below a kernel */
    MAX_BLOCK = 1 << 30          /* larger than any device's local memory */
};

/* ---- libclang, loaded on first use -------------------------------------- */

#define CLANG_CALLS(X)                                                        \
    X(createIndex) X(disposeIndex) X(parseTranslationUnit2)                   \
    X(disposeTranslationUnit) X(getNumDiagnostics) X(getDiagnostic)           \
    X(getDiagnosticSeverity) X(formatDiagnostic)                              \
    X(defaultDiagnosticDisplayOptions) X(disposeDiagnostic)                   \
    X(getTranslationUnitCursor) X(visitChildren) X(getCursorKind)             \
    X(getCursorSpelling) X(getCString) X(disposeString) X(getCursorExtent)    \
    X(getRangeStart) X(getRangeEnd) X(getFileLocation)                        \
    X(getPresumedLocation) X(isCursorDefinition) X(getCursorReferenced)       \
    X(Cursor_Evaluate) X(EvalResult_getKind) X(EvalResult_getAsLongLong)      \
    X(EvalResult_isUnsignedInt) X(EvalResult_getAsUnsigned)                    \
    X(EvalResult_dispose) X(tokenize) X(getTokenSpelling) X(getTokenExtent)   \
    X(disposeTokens) X(getCursorType) X(Type_getSizeOf) X(getTypeSpelling)    \
    X(Cursor_getNumArguments) X(Cursor_getArgument) X(getCursorLocation)      \
    X(getPointeeType) X(Type_getAlignOf) X(equalCursors) X(isExpression)      \
    X(getDiagnosticLocation) X(getDiagnosticSpelling) X(getCanonicalType)     \
    X(getCanonicalCursor) X(getCursorUSR) X(getFile)

static struct {
#define CLANG_FIELD(f) __typeof__(clang_##f) *f;
    CLANG_CALLS(CLANG_FIELD)
    const char *error;           /* why it could not be loaded, or NULL */
} lc;

static void *open_llvm(int version)
{
    char path[64];
    snprintf(path, sizeof path, "/usr/lib/llvm-%d/lib/libclang.so.1",
             version);
    return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}

/* libclang where Debian and Ubuntu put it (libclang1-N), or the one
 * CLFRAME_LIBCLANG names. */
static void load_libclang(void)
{
    static char why[512];
    void *lib = NULL;
    const char *env = getenv("CLFRAME_LIBCLANG");
    /* libclang finds its resource folder (the OpenCL builtins' headers)
     * from where it was loaded: LLVM's own folder, so that is where it is
     * looked for, the version built against first. */
    if (env && *env)
        lib = dlopen(env, RTLD_NOW | RTLD_LOCAL);
    else {
        lib = open_llvm(CLF_LIBCLANG_VERSION);
        for (int v = 21; !lib && v >= 11; v--)
            lib = open_llvm(v);
    }
    if (!lib) {
        snprintf(why, sizeof why, "libclang could not be loaded (%s); "
                 "local_malloc needs it: install libclang-dev (Debian and "
                 "Ubuntu)", env && *env ? dlerror() : "no /usr/lib/llvm-N/"
                 "lib/libclang.so.1");
        lc.error = why;
        return;
    }
#define CLANG_LOAD(f)                                                         \
    if (!(lc.f = (__typeof__(clang_##f) *)dlsym(lib, "clang_" #f))) {         \
        snprintf(why, sizeof why, "libclang lacks clang_" #f);                \
        lc.error = why;                                                       \
        return;                                                               \
    }
    CLANG_CALLS(CLANG_LOAD)
}

static int clang_ready(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, load_libclang);
    return lc.error == NULL;
}

/* ---- the job ------------------------------------------------------------ */

typedef struct fn {
    char *name;
    CXCursor def;                /* the definition */
    CXCursor canonical;          /* its first declaration: calls name it */
    char *usr;                   /* libclang's unique name, for the check */
    int kernel;
    int state;                   /* 0 not analysed, 1 under way, 2 done */
    size_t peak;                 /* bytes from the frame's start */
    size_t align;                /* what the frame's start is aligned to */
    size_t own_local;            /* a kernel's own __local variables */
    CXCursor peak_at;            /* the block or call that reaches the peak */
    struct fn *peak_callee;      /* that call's function, or NULL */
    size_t peak_bytes;           /* that block's size */
    size_t left;                 /* bytes from the frame's start still taken
                                    when it returns: blocks left live */
    int checked;                 /* its layout checked (check_layout) */
} fn;

typedef struct edit {
    unsigned start, end;         /* bytes of the source replaced */
    CXCursor at;                 /* what made it, for a refusal */
    char text[96];
} edit;

/* A block, or a call's frame, as the walk of function `in` placed it:
 * from byte `at` of its frame, above the blocks live there, which end at
 * `below`; a block's bytes. made_at: the local_malloc call, or the call. */
typedef struct placement {
    const struct fn *in;
    size_t at, below, bytes;
    CXCursor made_at;
    int is_call;
} placement;

typedef struct job {
    const char *source;
    size_t len;
    CXTranslationUnit tu;
    CXFile main;                 /* the source's file in tu */
    fn *fns;
    int nfns;
    edit *edits;
    int nedits, cap;
    placement *placed;
    int nplaced, placed_cap;
    clf_str error;               /* the first refusal */
    clf_str warnings;            /* one line each */
    int nwarnings;
    int failed;
    int chain;                   /* functions being analysed, one in another */
} job;

/* "file:line" of a place as the user wrote it (#line followed). */
static void where_at(CXSourceLocation at, char *buf, size_t size)
{
    CXString file;
    unsigned line, col;
    lc.getPresumedLocation(at, &file, &line, &col);
    snprintf(buf, size, "%s:%u", lc.getCString(file), line);
    lc.disposeString(file);
}

static void where(CXCursor c, char *buf, size_t size)
{
    where_at(lc.getCursorLocation(c), buf, size);
}

/* Byte offsets of a cursor's extent in the parsed text. */
static void span(CXCursor c, unsigned *start, unsigned *end)
{
    CXSourceRange r = lc.getCursorExtent(c);
    lc.getFileLocation(lc.getRangeStart(r), NULL, NULL, NULL, start);
    lc.getFileLocation(lc.getRangeEnd(r), NULL, NULL, NULL, end);
}

static int refuse(job *j, CXCursor at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int refuse(job *j, CXCursor at, const char *fmt, ...)
{
    if (j->failed)
        return -1;
    char place[300];
    where(at, place, sizeof place);
    char message[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    clf_str_printf(&j->error, "%s: %s", place, message);
    j->failed = 1;
    return -1;
}

enum { MAX_WARNINGS = 20 };

static void warn(job *j, CXSourceLocation at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void warn(job *j, CXSourceLocation at, const char *fmt, ...)
{
    if (++j->nwarnings > MAX_WARNINGS) {
        if (j->nwarnings == MAX_WARNINGS + 1)
            clf_str_printf(&j->warnings, "(more warnings not shown)\n");
        return;
    }
    char place[300];
    where_at(at, place, sizeof place);
    char message[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    clf_str_printf(&j->warnings, "%s: warning: %s\n", place, message);
}

/* The source text of a cursor, cut to fit buf. */
static const char *text_of(job *j, CXCursor c, char *buf, size_t size)
{
    unsigned s, e;
    span(c, &s, &e);
    size_t n = e > s && e <= j->len ? e - s : 0;
    if (n >= size)
        n = size - 1;
    memcpy(buf, j->source + s, n);
    buf[n] = '\0';
    return buf;
}

/* Room for one more of n items of size bytes in *array (cap of them): 0,
 * or -1 with the rewrite failed (a lost edit would be a wrong program). */
static int grow(job *j, void **array, int n, int *cap, size_t size)
{
    if (n < *cap)
        return 0;
    int more = *cap ? 2 * *cap : 32;
    void *grown = realloc(*array, size * (size_t)more);
    if (!grown) {
        if (!j->failed)
            clf_str_printf(&j->error, "out of memory");
        j->failed = 1;
        return -1;
    }
    *array = grown;
    *cap = more;
    return 0;
}

static int add_edit(job *j, CXCursor at, unsigned start, unsigned end,
                    const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int add_edit(job *j, CXCursor at, unsigned start, unsigned end,
                    const char *fmt, ...)
{
    if (grow(j, (void **)&j->edits, j->nedits, &j->cap, sizeof *j->edits))
        return -1;
    edit *e = &j->edits[j->nedits++];
    e->start = start;
    e->end = end;
    e->at = at;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->text, sizeof e->text, fmt, ap);
    va_end(ap);
    return 0;
}

/* The function of the source that decl (a call's referenced cursor)
 * declares, or NULL: functions are told apart by their declarations, as
 * the compiler tells them apart (overloads share a name). */
static fn *fn_of(job *j, CXCursor decl)
{
    if (lc.getCursorKind(decl) != CXCursor_FunctionDecl)
        return NULL;
    CXCursor canonical = lc.getCanonicalCursor(decl);
    for (int i = 0; i < j->nfns; i++)
        if (lc.equalCursors(j->fns[i].canonical, canonical))
            return &j->fns[i];
    return NULL;
}

/* DECLARES_MALLOC or DECLARES_FREE when c declares local_malloc or
 * local_free (a function of that name: the source may declare it, never
 * define it), else 0. */
enum { DECLARES_MALLOC = 1, DECLARES_FREE = 2 };
static int reserved(CXCursor c)
{
    if (lc.getCursorKind(c) != CXCursor_FunctionDecl)
        return 0;
    CXString s = lc.getCursorSpelling(c);
    const char *name = lc.getCString(s);
    int which = strcmp(name, "local_malloc") == 0 ? DECLARES_MALLOC
              : strcmp(name, "local_free") == 0 ? DECLARES_FREE : 0;
    lc.disposeString(s);
    return which;
}

/* 1 if c is written in the source, not in a header or clframe's
 * declarations: directly or by a macro expanded there. (One file, one
 * handle: clang_File_isEqual takes every file held in memory, the source
 * and the declarations, for the same.) */
static int in_source(job *j, CXCursor c)
{
    CXFile file;
    lc.getFileLocation(lc.getCursorLocation(c), &file, NULL, NULL, NULL);
    return file && file == j->main;
}

/* ---- walking a function's body ------------------------------------------ */

typedef struct cursors {
    CXCursor *c;
    unsigned n, cap;
} cursors;

static enum CXChildVisitResult collect(CXCursor c, CXCursor parent,
                                       CXClientData data)
{
    (void)parent;
    cursors *list = data;
    if (list->n == list->cap) {
        unsigned cap = list->cap ? 2 * list->cap : 8;
        CXCursor *grown = realloc(list->c, sizeof *grown * cap);
        if (!grown)
            return CXChildVisit_Break;
        list->c = grown;
        list->cap = cap;
    }
    list->c[list->n++] = c;
    return CXChildVisit_Continue;
}

static cursors children(CXCursor c)
{
    cursors list = {0};
    lc.visitChildren(c, collect, &list);
    return list;
}

/* The blocks live at a point of a function, from its frame's start. A
 * block a callee left live (kept: that callee) is the bytes of its frame
 * still taken after the call, made_at the call; it stays to the end. */
typedef struct blocks {
    int n;
    size_t offset[MAX_DEPTH], bytes[MAX_DEPTH];
    CXCursor made_at[MAX_DEPTH];
    struct fn *kept[MAX_DEPTH];
} blocks;

/* The state of one function's walk: the blocks live now, and the depths
 * where the enclosing loops and switches began, with the blocks live
 * there. dead: after a return, until a path that did not return joins. */
typedef struct walk {
    job *j;
    fn *f;
    blocks live;
    int loop[64], breakable[64];  /* depth at entry; breakable: + switches */
    blocks *entry[64];           /* the blocks at each breakable's entry */
    int nloops, nbreakables;
    int dead;
    int conditional;             /* inside ?:, && or || operands */
    int unevaluated;             /* inside sizeof, alignof or vec_step */
    int nesting;                 /* walk_cursor calls under way */
    CXCursor hinted;             /* a local_malloc call whose pointer type */
    size_t hint;                 /* says its alignment (note_target) */
} walk;

static size_t top(const walk *w)
{
    const blocks *b = &w->live;
    return b->n ? b->offset[b->n - 1] + b->bytes[b->n - 1] : 0;
}

static size_t align_up(size_t n, size_t a)
{
    return (n + a - 1) / a * a;
}

/* A block whose type is not known (see note_target) is aligned for an
 * array of any one type that fills it: an OpenCL type's size is a
 * multiple of its alignment, so such an array's is a power of two that
 * divides n. The largest, up to MAX_ALIGN. (40 bytes, ten floats or five
 * float2s, take 8; blocks of 40 and 60 bytes live at once take 100.) */
static size_t block_align(size_t n)
{
    size_t a = 1;
    while (a < MAX_ALIGN && n % (a * 2) == 0)
        a *= 2;
    return a;
}

/* Places a block (callee NULL) or a call's frame at byte at of w's frame,
 * bytes long, aligned to align: the function's peak and alignment grow to
 * hold it, and check_layout sees it. */
static int place(walk *w, CXCursor at_cursor, size_t at, size_t bytes,
                 fn *callee, size_t align)
{
    job *j = w->j;
    if (grow(j, (void **)&j->placed, j->nplaced, &j->placed_cap,
             sizeof *j->placed))
        return -1;
    j->placed[j->nplaced++] = (placement){w->f, at, top(w), bytes,
                                          at_cursor, callee != NULL};
    if (align > w->f->align)
        w->f->align = align;
    if (at + bytes > w->f->peak) {
        w->f->peak = at + bytes;
        w->f->peak_at = at_cursor;
        w->f->peak_callee = callee;
        w->f->peak_bytes = callee ? 0 : bytes;
    }
    return 0;
}

static int analyse(job *j, fn *f);
static int walk_cursor(walk *w, CXCursor c);
static int walk_kind(walk *w, CXCursor c);

static int walk_children(walk *w, CXCursor c)
{
    cursors list = children(c);
    int rc = 0;
    for (unsigned i = 0; i < list.n && rc == 0; i++)
        rc = walk_cursor(w, list.c[i]);
    free(list.c);
    return rc;
}

/* A constant size argument, or a refusal naming the expression. */
static int size_arg(walk *w, CXCursor call, const char *what, size_t *bytes)
{
    char text[200];
    if (lc.Cursor_getNumArguments(call) != 1)
        return refuse(w->j, call, "%s takes one argument: `%s`", what,
                      text_of(w->j, call, text, sizeof text));
    CXCursor arg = lc.Cursor_getArgument(call, 0);
    CXEvalResult r = lc.Cursor_Evaluate(arg);
    int constant = r && lc.EvalResult_getKind(r) == CXEval_Int;
    /* An unsigned value read as signed would be negative: 2^64 - 8 is
     * not "-8 bytes". */
    int is_unsigned = constant && lc.EvalResult_isUnsignedInt(r);
    unsigned long long u = is_unsigned ? lc.EvalResult_getAsUnsigned(r) : 0;
    long long v = constant && !is_unsigned ? lc.EvalResult_getAsLongLong(r)
                                           : 0;
    if (r)
        lc.EvalResult_dispose(r);
    if (!constant)
        return refuse(w->j, arg, "the size of %s is not a compile-time "
                      "constant: `%s`", what,
                      text_of(w->j, arg, text, sizeof text));
    if (is_unsigned ? u == 0 || u > MAX_BLOCK : v <= 0 || v > MAX_BLOCK) {
        char size[32];
        if (is_unsigned)
            snprintf(size, sizeof size, "%llu", u);
        else
            snprintf(size, sizeof size, "%lld", v);
        return refuse(w->j, arg, "the size of %s is %s bytes: `%s`", what,
                      size, text_of(w->j, arg, text, sizeof text));
    }
    *bytes = is_unsigned ? (size_t)u : (size_t)v;
    return 0;
}

/* The call's text must start with the name it calls and end with its
 * parenthesis: otherwise a macro wrote it, and it cannot be rewritten. */
static int written_out(walk *w, CXCursor call, const char *name,
                       unsigned *start, unsigned *end)
{
    span(call, start, end);
    size_t n = strlen(name);
    if (*end > w->j->len || *end < *start + n + 2 ||
        strncmp(w->j->source + *start, name, n) != 0 ||
        w->j->source[*end - 1] != ')') {
        char text[200];
        return refuse(w->j, call, "a call of %s through a macro cannot be "
                      "rewritten: `%s`", name,
                      text_of(w->j, call, text, sizeof text));
    }
    return 0;
}

static int walk_malloc(walk *w, CXCursor call)
{
    size_t bytes;
    unsigned start, end;
    if (size_arg(w, call, "local_malloc", &bytes) ||
        written_out(w, call, "local_malloc", &start, &end))
        return -1;
    if (w->live.n == MAX_DEPTH)
        return refuse(w->j, call, "more than %d blocks live at once",
                      MAX_DEPTH);
    size_t align = block_align(bytes);
    if (w->hint && lc.equalCursors(call, w->hinted))
        align = w->hint < MIN_ALIGN ? MIN_ALIGN
              : w->hint > MAX_ALIGN ? MAX_ALIGN : w->hint;
    size_t at = align_up(top(w), align);
    if (place(w, call, at, bytes, NULL, align))
        return -1;
    w->live.offset[w->live.n] = at;
    w->live.bytes[w->live.n] = bytes;
    w->live.kept[w->live.n] = NULL;
    w->live.made_at[w->live.n++] = call;
    return add_edit(w->j, call, start, end,
                    "((__local void *)(clf_local + %zu))", at);
}

/* "local_malloc(8) at a.cl:3", or "the 8 bytes f left live (called at
 * a.cl:9)": block i of the blocks live. */
static const char *block_name(const blocks *b, int i, char *buf, size_t size)
{
    char made[300];
    where(b->made_at[i], made, sizeof made);
    if (b->kept[i])
        snprintf(buf, size, "the %zu bytes %s left live (called at %s)",
                 b->bytes[i], b->kept[i]->name, made);
    else
        snprintf(buf, size, "local_malloc(%zu) at %s", b->bytes[i], made);
    return buf;
}

static int walk_free(walk *w, CXCursor call)
{
    size_t bytes;
    unsigned start, end;
    char name[400];
    if (size_arg(w, call, "local_free", &bytes) ||
        written_out(w, call, "local_free", &start, &end))
        return -1;
    if (w->live.n == 0)
        return refuse(w->j, call, "local_free(%zu) with nothing allocated"
                      " in %s", bytes, w->f->name);
    if (w->live.kept[w->live.n - 1])
        return refuse(w->j, call, "local_free(%zu) after %s: a block a "
                      "function returns with stays until the kernel ends",
                      bytes, block_name(&w->live, w->live.n - 1, name,
                                        sizeof name));
    if (w->live.bytes[w->live.n - 1] != bytes)
        return refuse(w->j, call, "local_free(%zu) does not match the most "
                      "recent allocation, %s", bytes,
                      block_name(&w->live, w->live.n - 1, name,
                                 sizeof name));
    w->live.n--;
    return add_edit(w->j, call, start, end, "((void)0)");
}

/* A call: of local_malloc or local_free, of a function of the source
 * that allocates (given its frame, above the blocks live), or of another
 * (a builtin, or a function without local_malloc below it). */
static int walk_call(walk *w, CXCursor call)
{
    unsigned nargs = (unsigned)lc.Cursor_getNumArguments(call);
    for (unsigned i = 0; i < nargs; i++)
        if (walk_cursor(w, lc.Cursor_getArgument(call, i)))
            return -1;
    CXCursor decl = lc.getCursorReferenced(call);
    int ours = reserved(decl);
    fn *callee = ours ? NULL : fn_of(w->j, decl);
    if (!ours && !callee)
        return 0;                /* a builtin or a function defined elsewhere */
    const char *name = ours == DECLARES_MALLOC ? "local_malloc"
                     : ours == DECLARES_FREE ? "local_free" : callee->name;
    if (callee) {
        if (callee->state == 1)
            return refuse(w->j, call, "%s calls %s, which calls back: "
                          "recursion, so its local_malloc needs have no bound",
                          w->f->name, name);
        if (analyse(w->j, callee))
            return -1;
        if (callee->peak == 0)
            return 0;
        if (callee->kernel)
            return refuse(w->j, call, "%s calls kernel %s, which allocates",
                          w->f->name, name);
    }
    if (w->unevaluated)
        return refuse(w->j, call, "%s in the operand of sizeof, alignof or "
                      "vec_step, which is not evaluated: it would allocate "
                      "nothing", name);
    if (w->conditional)
        return refuse(w->j, call, "%s in a conditional expression (?:, && or"
                      " ||): its allocation would depend on the branch", name);
    if (ours == DECLARES_MALLOC)
        return walk_malloc(w, call);
    if (ours == DECLARES_FREE)
        return walk_free(w, call);
    unsigned start, end;
    if (written_out(w, call, name, &start, &end))
        return -1;
    size_t base = align_up(top(w), callee->align);
    if (place(w, call, base, callee->peak, callee, callee->align))
        return -1;
    if (callee->left) {          /* what it left live stays, to the end */
        if (w->live.n == MAX_DEPTH)
            return refuse(w->j, call, "more than %d blocks live at once",
                          MAX_DEPTH);
        w->live.offset[w->live.n] = base;
        w->live.bytes[w->live.n] = callee->left;
        w->live.kept[w->live.n] = callee;
        w->live.made_at[w->live.n++] = call;
    }
    return add_edit(w->j, call, end - 1, end - 1, "%sclf_local + %zu",
                    nargs ? ", " : "", base);
}

/* A binary expression's operator: libclang's C API names none, so the
 * text after the left side's extent is read. */
static const char *operator_of(walk *w, CXCursor left)
{
    unsigned s, e;
    span(left, &s, &e);
    const char *p = w->j->source + (e < w->j->len ? e : w->j->len);
    return p + strspn(p, " \t\r\n");
}

static int is_logical(walk *w, CXCursor left)
{
    const char *p = operator_of(w, left);
    return (p[0] == '&' && p[1] == '&') || (p[0] == '|' && p[1] == '|');
}

static int is_assignment(walk *w, CXCursor left)
{
    const char *p = operator_of(w, left);
    return p[0] == '=' && p[1] != '=';
}

static int same_blocks(const blocks *a, const blocks *b)
{
    if (a->n != b->n)
        return 0;
    for (int i = 0; i < a->n; i++)
        if (a->bytes[i] != b->bytes[i] || a->offset[i] != b->offset[i])
            return 0;
    return 1;
}

/* An exit of w's function (a return, or the end of its body) that the
 * walk reaches: what is live there stays taken after it returns, so its
 * caller allocates above it (until the kernel ends, as a program that
 * counted its scratch by hand did). A warning names the blocks it made. */
static void leave(walk *w, CXSourceLocation at, const char *how)
{
    if (w->dead)
        return;
    if (top(w) > w->f->left)
        w->f->left = top(w);
    int own = 0, last = 0;
    for (int i = 0; i < w->live.n; i++)
        if (!w->live.kept[i]) {
            own++;
            last = i;
        }
    char name[400];
    if (own && !w->f->kernel)
        warn(w->j, at, "%s %s with %s still live%s: %s allocated until the "
             "kernel ends", w->f->name, how,
             block_name(&w->live, last, name, sizeof name),
             own > 1 ? " (and more before it)" : "",
             own > 1 ? "they stay" : "it stays");
}

/* Both branches start from the blocks live before the if and must end
 * with the same ones: after it, the code cannot tell which branch ran. A
 * branch that returned does not go on: the other one does. */
static int walk_if(walk *w, CXCursor c)
{
    cursors list = children(c);
    blocks *before = NULL, *then = NULL;
    int rc = 0;
    if (list.n < 2)
        rc = walk_children(w, c);
    else if (!(before = malloc(sizeof *before)) ||
             !(then = malloc(sizeof *then)))
        rc = refuse(w->j, c, "out of memory");
    else {
        rc = walk_cursor(w, list.c[0]);
        *before = w->live;
        int dead_before = w->dead, then_dead = 0;
        if (rc == 0)
            rc = walk_cursor(w, list.c[1]);
        if (rc == 0) {
            *then = w->live;
            then_dead = w->dead;
            w->live = *before;
            w->dead = dead_before;
            if (list.n >= 3)
                rc = walk_cursor(w, list.c[2]);
        }
        if (rc == 0 && w->dead && !then_dead) {
            w->live = *then;     /* only the then branch goes on */
            w->dead = 0;
        } else if (rc == 0 && then_dead)
            ;                    /* only the else branch, if any */
        else if (rc == 0 && !same_blocks(&w->live, then))
            rc = refuse(w->j, c, "the branches of this if leave different"
                        " local_malloc blocks live (%d and %d blocks): "
                        "free them in the branch that made them",
                        then->n, w->live.n);
    }
    free(before);
    free(then);
    free(list.c);
    return rc;
}

/* A loop's body, or a switch's cases, must end with the blocks live at
 * its entry, unless it returned: after it, those blocks are live again. */
static int walk_loop(walk *w, CXCursor c, int is_switch)
{
    if (w->nbreakables == 64)
        return refuse(w->j, c, "more than 64 nested loops and switches");
    blocks *at_entry = malloc(sizeof *at_entry);
    if (!at_entry)
        return refuse(w->j, c, "out of memory");
    *at_entry = w->live;
    int entry = w->live.n, dead = w->dead;
    if (!is_switch)
        w->loop[w->nloops++] = entry;
    w->entry[w->nbreakables] = at_entry;
    w->breakable[w->nbreakables++] = entry;
    int rc = walk_children(w, c);
    if (!is_switch)
        w->nloops--;
    w->nbreakables--;
    char name[400];
    if (rc == 0 && w->dead) {
        w->live = *at_entry;
        w->dead = dead;
    } else if (rc == 0 && w->live.n < entry)
        rc = refuse(w->j, c, "%s freed inside a %s: it was made before it",
                    block_name(at_entry, w->live.n, name, sizeof name),
                    is_switch ? "switch" : "loop");
    else if (rc == 0 && w->live.n != entry && w->live.kept[w->live.n - 1])
        rc = refuse(w->j, w->live.made_at[w->live.n - 1], "%s, called "
                    "inside a %s, leaves %zu bytes live each time: a block "
                    "a function returns with stays until the kernel ends",
                    w->live.kept[w->live.n - 1]->name,
                    is_switch ? "switch" : "loop",
                    w->live.bytes[w->live.n - 1]);
    else if (rc == 0 && w->live.n != entry)
        rc = refuse(w->j, w->live.made_at[w->live.n - 1], "local_malloc "
                    "inside a %s is not freed in the same %s",
                    is_switch ? "switch" : "loop",
                    is_switch ? "case" : "iteration");
    free(at_entry);
    return rc;
}

static int walk_cursor(walk *w, CXCursor c)
{
    /* Each level is a C call here: a bound keeps hostile sources (a sum of
     * 100000 terms is as deep) from exhausting the stack. */
    if (w->nesting >= MAX_NESTING)
        return refuse(w->j, c, "statements or expressions nested more than "
                      "%d deep", MAX_NESTING);
    w->nesting++;
    int rc = walk_kind(w, c);
    w->nesting--;
    return rc;
}

/* The expression under implicit conversions and parentheses. */
static CXCursor bare(CXCursor c)
{
    for (int i = 0; i < 16; i++) {
        enum CXCursorKind k = lc.getCursorKind(c);
        if (k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr)
            break;
        cursors list = children(c);
        int one = list.n == 1;
        if (one)
            c = list.c[0];
        free(list.c);
        if (!one)
            break;
    }
    return c;
}

/* When value is a local_malloc call that becomes a pointer of type t (an
 * initializer, an assignment, a cast), the block holds what t points to:
 * it gets that type's alignment (at least MIN_ALIGN), not block_align's
 * guess from its size. Noted for walk_malloc. */
static void note_target(walk *w, CXType t, CXCursor value)
{
    if (t.kind != CXType_Pointer)
        return;
    CXCursor call = bare(value);
    if (lc.getCursorKind(call) != CXCursor_CallExpr ||
        reserved(lc.getCursorReferenced(call)) != DECLARES_MALLOC)
        return;
    long long align = lc.Type_getAlignOf(lc.getPointeeType(t));
    if (align > 0) {
        w->hinted = call;
        w->hint = (size_t)align;
    }
}

/* The last child of c when it is an expression: an initializer, or what a
 * cast converts. */
static int last_expression(CXCursor c, CXCursor *out)
{
    cursors list = children(c);
    int found = list.n && lc.isExpression(lc.getCursorKind(list.c[list.n - 1]));
    if (found)
        *out = list.c[list.n - 1];
    free(list.c);
    return found;
}

static int walk_kind(walk *w, CXCursor c)
{
    enum CXCursorKind kind = lc.getCursorKind(c);
    switch (kind) {
    case CXCursor_CallExpr:
        return walk_call(w, c);
    case CXCursor_IfStmt:
        return walk_if(w, c);
    case CXCursor_ForStmt:
    case CXCursor_WhileStmt:
    case CXCursor_DoStmt:
        return walk_loop(w, c, 0);
    case CXCursor_SwitchStmt:
        return walk_loop(w, c, 1);
    case CXCursor_CaseStmt:
    case CXCursor_DefaultStmt:
        if (w->nbreakables && w->dead) {    /* the case before returned */
            w->live = *w->entry[w->nbreakables - 1];
            w->dead = 0;
        }
        if (w->nbreakables && w->live.n != w->breakable[w->nbreakables - 1])
            return refuse(w->j, c, "a case label with local_malloc blocks of "
                          "the case before still live");
        return walk_children(w, c);
    case CXCursor_BreakStmt:
        if (!w->dead && w->nbreakables &&
            w->live.n != w->breakable[w->nbreakables - 1])
            return refuse(w->j, c, "break with local_malloc blocks live");
        return 0;
    case CXCursor_ContinueStmt:
        if (!w->dead && w->nloops && w->live.n != w->loop[w->nloops - 1])
            return refuse(w->j, c, "continue with local_malloc blocks live");
        return 0;
    case CXCursor_GotoStmt:
        if (!w->dead && w->live.n)
            return refuse(w->j, c, "goto with local_malloc blocks live");
        return 0;
    case CXCursor_LabelStmt:
        /* A goto reaches it with no block live (it is refused otherwise):
         * after a return, the code goes on from here with none, and its
         * returns count. Reached from above too, it keeps the blocks live
         * there, which can only place later blocks higher. */
        if (w->dead) {
            w->live.n = 0;
            w->dead = 0;
        }
        return walk_children(w, c);
    case CXCursor_ReturnStmt:
        if (walk_children(w, c))
            return -1;
        leave(w, lc.getCursorLocation(c), "returns");
        w->dead = 1;
        return 0;
    case CXCursor_ConditionalOperator: {
        cursors list = children(c);
        int rc = list.n ? walk_cursor(w, list.c[0]) : 0;
        w->conditional++;
        for (unsigned i = 1; i < list.n && rc == 0; i++)
            rc = walk_cursor(w, list.c[i]);
        w->conditional--;
        free(list.c);
        return rc;
    }
    case CXCursor_BinaryOperator: {
        cursors list = children(c);
        int rc = list.n ? walk_cursor(w, list.c[0]) : 0;
        int logical = list.n == 2 && is_logical(w, list.c[0]);
        if (list.n == 2 && is_assignment(w, list.c[0]))
            note_target(w, lc.getCursorType(list.c[0]), list.c[1]);
        w->conditional += logical;
        if (rc == 0 && list.n == 2)
            rc = walk_cursor(w, list.c[1]);
        w->conditional -= logical;
        free(list.c);
        return rc;
    }
    case CXCursor_DeclRefExpr:
        if (reserved(lc.getCursorReferenced(c)))
            return refuse(w->j, c, "local_malloc and local_free can only be "
                          "called");
        return 0;
    case CXCursor_UnaryExpr: {   /* sizeof, alignof, vec_step */
        w->unevaluated++;
        int rc = walk_children(w, c);
        w->unevaluated--;
        return rc;
    }
    case CXCursor_CStyleCastExpr: {
        CXCursor value;
        if (last_expression(c, &value))
            note_target(w, lc.getCursorType(c), value);
        return walk_children(w, c);
    }
    case CXCursor_VarDecl: {
        CXCursor value;
        if (last_expression(c, &value))
            note_target(w, lc.getCursorType(c), value);
        if (w->f->kernel) {
            CXType t = lc.getCursorType(c);
            CXString s = lc.getTypeSpelling(t);
            long long size = lc.Type_getSizeOf(t);
            if (strstr(lc.getCString(s), "__local") && size > 0)
                w->f->own_local += (size_t)size;
            lc.disposeString(s);
        }
        return walk_children(w, c);
    }
    default:
        return walk_children(w, c);
    }
}

/* The body of f, once: its peak and alignment, and the edits of its
 * allocations and calls. */
static int analyse(job *j, fn *f)
{
    if (f->state == 2)
        return 0;
    if (j->chain >= MAX_CHAIN)
        return refuse(j, f->def, "calls nested more than %d deep below a "
                      "kernel", MAX_CHAIN);
    j->chain++;
    f->state = 1;
    f->align = 1;
    walk *w = calloc(1, sizeof *w);
    if (!w)
        return refuse(j, f->def, "out of memory");
    w->j = j;
    w->f = f;
    int rc = walk_children(w, f->def);
    if (rc == 0)
        leave(w, lc.getRangeEnd(lc.getCursorExtent(f->def)), "ends");
    free(w);
    f->state = 2;
    j->chain--;
    return rc;
}

/* ---- the functions of the source ---------------------------------------- */

static int token_is(job *j, CXToken t, const char *text)
{
    CXString s = lc.getTokenSpelling(j->tu, t);
    int same = strcmp(lc.getCString(s), text) == 0;
    lc.disposeString(s);
    return same;
}

/* A kernel: `kernel` or `__kernel` among the words before its name. */
static int is_kernel(job *j, CXCursor c, const char *name)
{
    CXToken *tokens;
    unsigned n;
    lc.tokenize(j->tu, lc.getCursorExtent(c), &tokens, &n);
    int kernel = 0;
    for (unsigned i = 0; i < n && !kernel && !token_is(j, tokens[i], name);
         i++)
        kernel = token_is(j, tokens[i], "__kernel") ||
                 token_is(j, tokens[i], "kernel");
    lc.disposeTokens(j->tu, tokens, n);
    return kernel;
}

static enum CXChildVisitResult list_fn(CXCursor c, CXCursor parent,
                                       CXClientData data)
{
    (void)parent;
    job *j = data;
    if (lc.getCursorKind(c) != CXCursor_FunctionDecl ||
        !lc.isCursorDefinition(c) || !in_source(j, c))
        return CXChildVisit_Continue;
    fn *grown = realloc(j->fns, sizeof *grown * (size_t)(j->nfns + 1));
    if (!grown) {
        j->failed = 1;
        return CXChildVisit_Break;
    }
    j->fns = grown;
    fn *f = &j->fns[j->nfns++];
    memset(f, 0, sizeof *f);
    CXString s = lc.getCursorSpelling(c);
    f->name = clf_strdup(lc.getCString(s));
    lc.disposeString(s);
    s = lc.getCursorUSR(c);
    f->usr = clf_strdup(lc.getCString(s));
    lc.disposeString(s);
    f->def = c;
    f->canonical = lc.getCanonicalCursor(c);
    f->kernel = f->name && is_kernel(j, c, f->name);
    if (!f->name || !f->usr)
        j->failed = 1;
    return j->failed ? CXChildVisit_Break : CXChildVisit_Continue;
}

/* Gives a declaration of f (a prototype or the definition) the frame
 * parameter: after the last parameter, in place of `void`, or alone. */
static int add_parameter(job *j, CXCursor decl, const fn *f)
{
    CXToken *tokens;
    unsigned n, open = 0, close = 0;
    lc.tokenize(j->tu, lc.getCursorExtent(decl), &tokens, &n);
    for (unsigned i = 0; i + 1 < n && !open; i++)
        if (token_is(j, tokens[i], f->name) && token_is(j, tokens[i + 1], "("))
            open = i + 1;
    for (unsigned i = open, nesting = 0; open && i < n && !close; i++) {
        nesting += token_is(j, tokens[i], "(");
        nesting -= token_is(j, tokens[i], ")");
        if (nesting == 0)
            close = i;
    }
    /* A declaration a macro writes is tokenized from the macro's text:
     * what is found there must be in the declaration's own. */
    unsigned from, to, open_at = 0;
    span(decl, &from, &to);
    if (close)
        lc.getFileLocation(lc.getRangeStart(lc.getTokenExtent(j->tu,
                           tokens[open])), NULL, NULL, NULL, &open_at);
    int rc;
    if (!close || open_at < from || open_at >= to)
        rc = refuse(j, decl, "the parameters of %s are written by a macro: "
                    "they cannot be given the local_malloc frame", f->name);
    else if (close == open + 2 && token_is(j, tokens[open + 1], "void")) {
        unsigned start, end;
        CXSourceRange r = lc.getTokenExtent(j->tu, tokens[open + 1]);
        lc.getFileLocation(lc.getRangeStart(r), NULL, NULL, NULL, &start);
        lc.getFileLocation(lc.getRangeEnd(r), NULL, NULL, NULL, &end);
        rc = add_edit(j, decl, start, end, "__local uchar *clf_local");
    } else {
        unsigned at;
        CXSourceRange r = lc.getTokenExtent(j->tu, tokens[close]);
        lc.getFileLocation(lc.getRangeStart(r), NULL, NULL, NULL, &at);
        rc = add_edit(j, decl, at, at, "%s__local uchar *clf_local",
                      close == open + 1 ? "" : ", ");
    }
    lc.disposeTokens(j->tu, tokens, n);
    return rc;
}

static enum CXChildVisitResult edit_prototypes(CXCursor c, CXCursor parent,
                                               CXClientData data)
{
    (void)parent;
    job *j = data;
    if (j->failed || !in_source(j, c))
        return CXChildVisit_Continue;
    fn *f = fn_of(j, c);
    if (f && f->peak && !f->kernel && add_parameter(j, c, f))
        j->failed = 1;
    return CXChildVisit_Continue;
}

/* Declares a kernel's arena just inside its body's brace. */
static int add_arena(job *j, const fn *f)
{
    cursors list = children(f->def);
    unsigned start = 0, end = 0;
    for (unsigned i = 0; i < list.n; i++)
        if (lc.getCursorKind(list.c[i]) == CXCursor_CompoundStmt)
            span(list.c[i], &start, &end);
    free(list.c);
    if (end == 0 || j->source[start] != '{')
        return refuse(j, f->def, "the body of kernel %s is written by a "
                      "macro: its local_malloc arena cannot be added",
                      f->name);
    return add_edit(j, f->def, start + 1, start + 1,
                    " __local uchar clf_local[%zu] "
                    "__attribute__((aligned(%zu)));", f->peak, f->align);
}

/* "k (a.cl:3) -> f (a.cl:9) -> local_malloc(64) at a.cl:12" */
static void chain(const fn *f, clf_str *out)
{
    char place[300];
    clf_str_printf(out, "%s", f->name);
    for (int hops = 0; f && f->peak && hops < 64; hops++) {
        where(f->peak_at, place, sizeof place);
        if (!f->peak_callee) {
            clf_str_printf(out, " -> local_malloc(%zu) at %s", f->peak_bytes,
                           place);
            return;
        }
        clf_str_printf(out, " -> %s (called at %s)", f->peak_callee->name,
                       place);
        f = f->peak_callee;
    }
}

/* By place; an insertion before a replacement that starts where it is. */
static int by_place(const void *a, const void *b)
{
    const edit *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

/* Sorts the edits, each copy of one dropped. A macro that uses its
 * argument twice makes each call written there twice, at one place of
 * the text: the same edit twice is one (the same offset each time), but
 * two that differ, or overlap, cannot both be written, and are refused. */
static int settle_edits(job *j)
{
    if (j->nedits)
        qsort(j->edits, (size_t)j->nedits, sizeof *j->edits, by_place);
    int kept = 0;
    for (int i = 0; i < j->nedits; i++) {
        const edit *e = &j->edits[i], *last = kept ? &j->edits[kept - 1]
                                                   : NULL;
        int same_place = last && e->start == last->start &&
                         e->end == last->end;
        if (same_place && strcmp(e->text, last->text) == 0)
            continue;
        char text[200];
        if (same_place || (last && e->start < last->end) || e->end > j->len)
            return refuse(j, e->at, "`%s` is written once but used more than"
                          " once by a macro, and each use needs another "
                          "rewrite: write it outside the macro",
                          text_of(j, e->at, text, sizeof text));
        j->edits[kept++] = *e;
    }
    j->nedits = kept;
    return 0;
}

/* The source with the edits made (settled: in order, none overlapping);
 * NULL if out of memory. */
static char *apply_edits(job *j)
{
    clf_str out = {0};
    unsigned at = 0;
    for (int i = 0; i < j->nedits; i++) {
        edit *e = &j->edits[i];
        clf_str_append(&out, j->source + at, e->start - at);
        clf_str_append(&out, e->text, strlen(e->text));
        at = e->end;
    }
    clf_str_append(&out, j->source + at, j->len - at);
    if (out.failed) {
        free(out.data);
        return NULL;
    }
    return out.data;
}

/* ---- the layout, checked again ------------------------------------------ */

/* The walk placed each block and call above the blocks live where it
 * was, and grew each function's peak to hold it. This goes over those
 * placements again, each callee found by its USR, not by the cursors the
 * walk compared: no block or frame starts below the blocks live at it, and
 * each function's peak (a kernel's arena) is the largest end of a block or
 * of a callee's frame on any path of calls below it. A difference is
 * clframe's own error, said as such (in the fuzzing build, an abort). */
static int layout_error(job *j, CXCursor at, const fn *f, const char *what)
{
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    fprintf(stderr, "local_malloc's layout check failed in %s: %s\n",
            f->name, what);
    abort();                     /* the fuzzer's finding */
#endif
    return refuse(j, at, "local_malloc's layout check failed in %s (%s): "
                  "clframe's own error, please report it", f->name, what);
}

static fn *fn_by_usr(job *j, CXCursor call)
{
    CXString s = lc.getCursorUSR(lc.getCursorReferenced(call));
    fn *found = NULL;
    for (int i = 0; i < j->nfns && !found; i++)
        if (strcmp(j->fns[i].usr, lc.getCString(s)) == 0)
            found = &j->fns[i];
    lc.disposeString(s);
    return found;
}

static int check_layout(job *j, fn *f)
{
    if (f->checked)
        return 0;
    f->checked = 1;              /* the walk refused recursion */
    size_t peak = 0;
    char what[160];
    for (int i = 0; i < j->nplaced; i++) {
        const placement *p = &j->placed[i];
        if (p->in != f)
            continue;
        size_t end = p->at + p->bytes;
        if (p->is_call) {
            fn *callee = fn_by_usr(j, p->made_at);
            if (!callee)
                return layout_error(j, p->made_at, f, "a call of a function"
                                    " it does not find");
            if (check_layout(j, callee))
                return -1;
            end = p->at + callee->peak;
        }
        if (p->at < p->below) {
            snprintf(what, sizeof what, "placed at %zu, below the blocks "
                     "live, which end at %zu", p->at, p->below);
            return layout_error(j, p->made_at, f, what);
        }
        if (end > peak)
            peak = end;
    }
    snprintf(what, sizeof what, "a peak of %zu bytes, where its blocks and "
             "calls reach %zu", f->peak, peak);
    return peak == f->peak ? 0 : layout_error(j, f->def, f, what);
}

/* ---- parsing ------------------------------------------------------------ */

/* The declarations libclang parses the source with, as a file that exists
 * only in its memory (an absolute path, so that -include finds it). A
 * source may declare local_malloc and local_free itself, with any return
 * type (a header written for another rewriter declares local_free as
 * returning a pointer): each is left out for a source that does. */
#define DECLARATIONS "/clframe-local-malloc/declarations.h"
#define OWN_MALLOC "CLF_SOURCE_DECLARES_LOCAL_MALLOC"
#define OWN_FREE "CLF_SOURCE_DECLARES_LOCAL_FREE"
static const char declarations[] =
    "#ifndef " OWN_MALLOC "\n"
    "__local void *local_malloc(size_t bytes);\n"
    "#endif\n"
    "#ifndef " OWN_FREE "\n"
    "void local_free(size_t bytes);\n"
    "#endif\n";

/* The build options libclang needs: -D, -U, -I (with their values) and
 * -cl-std; the rest (-cl-fast-relaxed-math, ...) do not change the text.
 * own: DECLARES_* for the declarations the source makes itself. */
static int parse_args(const char *options, int own, char *words,
                      const char **argv, int max)
{
    int argc = 0, has_std = 0, take_next = 0;
    argv[argc++] = "-xcl";
    argv[argc++] = "--target=spir64";
    argv[argc++] = "-include";
    argv[argc++] = DECLARATIONS;
    if (own & DECLARES_MALLOC)
        argv[argc++] = "-D" OWN_MALLOC;
    if (own & DECLARES_FREE)
        argv[argc++] = "-D" OWN_FREE;
    strcpy(words, options ? options : "");
    char *save = NULL;
    for (char *w = strtok_r(words, " \t\n", &save); w && argc < max - 1;
         w = strtok_r(NULL, " \t\n", &save)) {
        int flag = strncmp(w, "-D", 2) == 0 || strncmp(w, "-U", 2) == 0 ||
                   strncmp(w, "-I", 2) == 0;
        if (take_next || flag || strncmp(w, "-cl-std=", 8) == 0)
            argv[argc++] = w;
        has_std |= strncmp(w, "-cl-std=", 8) == 0;
        take_next = flag && w[2] == '\0';
    }
    if (!has_std)
        argv[argc++] = "-cl-std=CL1.2";
    return argc;
}

/* DECLARES_MALLOC for local_malloc and DECLARES_FREE for local_free, when
 * c declares it in the source (not in DECLARATIONS; written by a macro
 * there too); else 0. */
static int declares(job *j, CXCursor c)
{
    return in_source(j, c) ? reserved(c) : 0;
}

typedef struct own {
    job *j;
    int declares;                /* DECLARES_* */
} own;

static enum CXChildVisitResult own_declarations(CXCursor c, CXCursor parent,
                                                CXClientData data)
{
    (void)parent;
    own *o = data;
    o->declares |= declares(o->j, c);
    return CXChildVisit_Continue;
}

/* A source's own declaration of local_malloc or local_free: any return
 * type, one parameter of an integer type (a size_t), and no body (the
 * rewrite replaces its calls). */
static enum CXChildVisitResult check_declaration(CXCursor c, CXCursor parent,
                                                 CXClientData data)
{
    (void)parent;
    job *j = data;
    int which = declares(j, c);
    if (!which || j->failed)
        return CXChildVisit_Continue;
    const char *name = which == DECLARES_MALLOC ? "local_malloc"
                                                : "local_free";
    int n = lc.Cursor_getNumArguments(c);
    enum CXTypeKind kind = CXType_Invalid;
    if (n == 1)
        kind = lc.getCanonicalType(lc.getCursorType(
                   lc.Cursor_getArgument(c, 0))).kind;
    char text[200];
    if (lc.isCursorDefinition(c))
        refuse(j, c, "%s is defined here: clframe's rewrite replaces its "
               "calls, so the source may declare it but not define it",
               name);
    else if (n != 1 || kind < CXType_Char_U || kind > CXType_Int128)
        refuse(j, c, "%s is declared with %s: it takes one size, a size_t "
               "(`%s`)", name, n == 1 ? "a parameter that is not an integer"
               : "other than one parameter", text_of(j, c, text, sizeof text));
    return CXChildVisit_Continue;
}

/* "file:line:col: error: text", the place as the user wrote it: the
 * #line markers of the expanded source followed, as the device compiler
 * does (libclang's own formatting names the text it was given). */
static void add_diagnostic(job *j, CXDiagnostic d, int first)
{
    CXString file, text = lc.getDiagnosticSpelling(d);
    unsigned line = 0, col = 0;
    lc.getPresumedLocation(lc.getDiagnosticLocation(d), &file, &line, &col);
    const char *name = lc.getCString(file);
    const char *kind = lc.getDiagnosticSeverity(d) == CXDiagnostic_Fatal
                           ? "fatal error" : "error";
    if (name && *name)
        clf_str_printf(&j->error, "%s%s:%u:%u: %s: %s", first ? "" : "\n",
                       name, line, col, kind, lc.getCString(text));
    else
        clf_str_printf(&j->error, "%s%s: %s", first ? "" : "\n", kind,
                       lc.getCString(text));
    lc.disposeString(file);
    lc.disposeString(text);
}

/* Parses the source into j->tu, with the declarations of DECLARATIONS
 * that own does not leave out; its errors (the first five) in j->error. */
static int parse_with(job *j, const char *name, const char *options,
                      int own, CXIndex index)
{
    char *words = malloc(strlen(options ? options : "") + 1);
    const char *argv[256];
    if (!words) {
        clf_str_printf(&j->error, "out of memory");
        return -1;
    }
    int argc = parse_args(options, own, words, argv, 256);
    struct CXUnsavedFile files[2] = {
        {name, j->source, (unsigned long)j->len},
        {DECLARATIONS, declarations, sizeof declarations - 1},
    };
    enum CXErrorCode err = lc.parseTranslationUnit2(
        index, name, argv, argc, files, 2, CXTranslationUnit_None,
        &j->tu);
    free(words);
    if (err == CXError_Success)
        j->main = lc.getFile(j->tu, name);
    if (err != CXError_Success) {
        j->tu = NULL;
        clf_str_printf(&j->error, "libclang could not parse the source "
                       "(error %d)", (int)err);
        return -1;
    }
    unsigned n = lc.getNumDiagnostics(j->tu), shown = 0;
    for (unsigned i = 0; i < n; i++) {
        CXDiagnostic d = lc.getDiagnostic(j->tu, i);
        if (lc.getDiagnosticSeverity(d) >= CXDiagnostic_Error && shown < 5)
            add_diagnostic(j, d, shown++ == 0);
        lc.disposeDiagnostic(d);
    }
    if (shown && strstr(j->error.data ? j->error.data : "",
                         "opencl-c-base.h' file not found"))
        clf_str_printf(&j->error, "\n(libclang lacks its OpenCL headers: "
                       "install libclang-common-N-dev for its version N)");
    return shown ? -1 : 0;
}

/* Parses the source into j->tu. A source that declares local_malloc or
 * local_free otherwise than DECLARATIONS does fails the first parse
 * ("conflicting types"): it is parsed again without that declaration.
 * A declaration that does not fit is the error, before what the compiler
 * says of the calls it makes wrong. */
static int parse(job *j, const char *name, const char *options,
                 CXIndex index)
{
    int rc = parse_with(j, name, options, 0, index);
    own o = {j, 0};
    if (rc && j->tu)
        lc.visitChildren(lc.getTranslationUnitCursor(j->tu),
                         own_declarations, &o);
    if (o.declares) {
        lc.disposeTranslationUnit(j->tu);
        j->tu = NULL;
        free(j->error.data);
        memset(&j->error, 0, sizeof j->error);
        rc = parse_with(j, name, options, o.declares, index);
    }
    if (!j->tu)
        return -1;
    clf_str said = j->error;
    memset(&j->error, 0, sizeof j->error);
    lc.visitChildren(lc.getTranslationUnitCursor(j->tu), check_declaration,
                     j);
    if (j->failed)
        free(said.data);
    else
        j->error = said;
    return rc || j->failed ? -1 : 0;
}

/* ---- the rewrite -------------------------------------------------------- */

int clf_local_malloc_used(const char *source)
{
    char *code = clf_blank_comments(source, 0);
    const char *text = code ? code : source;
    int used = 0;
    for (const char *p = text; !used && (p = strstr(p, "local_")); p++) {
        int starts = p == text ||
                     !(p[-1] == '_' || isalnum((unsigned char)p[-1]));
        used = starts && (strncmp(p, "local_malloc", 12) == 0 ||
                          strncmp(p, "local_free", 10) == 0);
    }
    free(code);
    return used;
}

int clf_local_malloc_in_process(const char *source, const char *name,
                                const char *options,
                                unsigned long long local_limit, char **out,
                                char **report, char **warnings, char **error)
{
    *out = NULL;
    if (report)
        *report = NULL;
    if (warnings)
        *warnings = NULL;
    *error = NULL;
    if (!clang_ready()) {
        *error = clf_strdup(lc.error);
        return CLFRAME_ERR_NOT_FOUND;
    }
    job j = {.source = source, .len = strlen(source)};
    CXIndex index = lc.createIndex(0, 0);
    int rc = parse(&j, name, options, index);
    if (rc == 0) {
        lc.visitChildren(lc.getTranslationUnitCursor(j.tu), list_fn, &j);
        for (int i = 0; i < j.nfns && !j.failed; i++)
            analyse(&j, &j.fns[i]);
        for (int i = 0; i < j.nfns && !j.failed; i++)
            check_layout(&j, &j.fns[i]);
        if (!j.failed)
            lc.visitChildren(lc.getTranslationUnitCursor(j.tu),
                             edit_prototypes, &j);
        clf_str rep = {0};
        for (int i = 0; i < j.nfns && !j.failed; i++) {
            fn *f = &j.fns[i];
            if (!f->kernel)
                continue;
            clf_str path = {0};
            chain(f, &path);
            if (f->peak)
                add_arena(&j, f);
            if (local_limit && f->peak &&
                f->peak + f->own_local > local_limit)
                refuse(&j, f->def, "kernel %s needs %zu bytes of local memory"
                       " (%zu from local_malloc, %zu of its own), more than "
                       "the device's %llu: %s", f->name,
                       f->peak + f->own_local, f->peak, f->own_local,
                       local_limit, path.data ? path.data : f->name);
            clf_str_printf(&rep, "%s: %zu bytes%s%s\n", f->name, f->peak,
                           f->peak ? ": " : "", f->peak ? path.data : "");
            free(path.data);
        }
        if (!j.failed)
            settle_edits(&j);
        rc = j.failed ? -1 : 0;
        if (rc == 0 && !(*out = apply_edits(&j)))
            rc = -1;
        if (rc == 0 && report)
            *report = rep.data;
        else
            free(rep.data);
    }
    if (rc != 0)
        *error = j.error.data ? j.error.data : clf_strdup("out of memory");
    else
        free(j.error.data);
    if (rc == 0 && warnings)
        *warnings = j.warnings.data;
    else
        free(j.warnings.data);
    for (int i = 0; i < j.nfns; i++) {
        free(j.fns[i].name);
        free(j.fns[i].usr);
    }
    free(j.fns);
    free(j.edits);
    free(j.placed);
    if (j.tu)
        lc.disposeTranslationUnit(j.tu);
    lc.disposeIndex(index);
    return rc == 0 ? 0 : CLFRAME_ERR_BUILD;
}

/* ---- in a process of its own -------------------------------------------- */

/* libclang runs in a child process: a source that crashes it (a sum of
 * 50000 terms overflows its parser's stack) ends in a message, not in the
 * user's program, and its hundred megabytes of state leave with the child.
 * The child sends the code and the four texts (out, report, warnings,
 * error) down a pipe, each as its length and bytes; the parent reads them
 * to the end. */

static int send_text(int fd, const char *text)
{
    size_t n = text ? strlen(text) : 0;
    const char *p = (const char *)&n;
    for (int part = 0; part < 2; part++) {
        size_t left = part ? n : sizeof n;
        while (left) {
            ssize_t w = write(fd, p, left);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                return -1;
            p += w;
            left -= (size_t)w;
        }
        p = text;
    }
    return 0;
}

/* The next text of buf (len bytes, *at the read position): a copy, or
 * NULL for an empty one; -1 if buf ends before it. */
static int take_text(const char *buf, size_t len, size_t *at, char **text)
{
    size_t n;
    *text = NULL;
    if (len - *at < sizeof n)
        return -1;
    memcpy(&n, buf + *at, sizeof n);
    *at += sizeof n;
    if (n > len - *at)
        return -1;
    if (n && !(*text = malloc(n + 1)))
        return -1;
    if (n) {
        memcpy(*text, buf + *at, n);
        (*text)[n] = '\0';
    }
    *at += n;
    return 0;
}

int clf_local_malloc_answer(const char *buf, size_t len, int *code,
                            char **out, char **report, char **warnings,
                            char **error)
{
    char *texts[5] = {NULL};
    size_t at = 0;
    int whole = 1;
    for (int i = 0; i < 5 && whole; i++)
        whole = take_text(buf, len, &at, &texts[i]) == 0;
    /* The code clf_local_malloc_in_process returned in the child: 0 with
     * no error, or a failure with an error and nothing else; then nothing
     * after the texts. */
    char *end;
    long v = strtol(texts[0] ? texts[0] : "", &end, 10);
    int known = texts[0] && *end == '\0' &&
                (v == 0 || v == CLFRAME_ERR_BUILD ||
                 v == CLFRAME_ERR_NOT_FOUND);
    *code = known ? (int)v : CLFRAME_ERR_BUILD;
    whole = whole && known && at == len &&
            (v == 0 ? !texts[4]
                    : texts[4] && !texts[1] && !texts[2] && !texts[3]);
    char **into[5] = {NULL, out, report, warnings, error};
    for (int i = 0; i < 5; i++) {
        if (whole && into[i])
            *into[i] = texts[i];
        else
            free(texts[i]);
        if (!whole && into[i])
            *into[i] = NULL;
    }
    return whole ? 0 : -1;
}

int clf_local_malloc_rewrite(const char *source, const char *name,
                             const char *options,
                             unsigned long long local_limit, char **out,
                             char **report, char **warnings, char **error)
{
    *out = NULL;
    if (report)
        *report = NULL;
    if (warnings)
        *warnings = NULL;
    *error = NULL;
    int fds[2];
    if (pipe(fds) != 0) {
        *error = clf_strdup("cannot make a pipe for libclang's process");
        return CLFRAME_ERR_NO_MEMORY;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        char *o = NULL, *r = NULL, *wa = NULL, *e = NULL;
        int rc = clf_local_malloc_in_process(source, name, options,
                                             local_limit, &o,
                                             report ? &r : NULL,
                                             warnings ? &wa : NULL, &e);
        char code[16];
        snprintf(code, sizeof code, "%d", rc);
        int bad = send_text(fds[1], code) || send_text(fds[1], o) ||
                  send_text(fds[1], r) || send_text(fds[1], wa) ||
                  send_text(fds[1], e);
        _exit(bad ? 3 : 0);      /* no atexit handler: they are the parent's */
    }
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        *error = clf_strdup("cannot start a process for libclang");
        return CLFRAME_ERR_NO_MEMORY;
    }
    clf_str got = {0};
    char chunk[65536];
    for (;;) {
        ssize_t n = read(fds[0], chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        clf_str_append(&got, chunk, (size_t)n);
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    /* A whole answer counts whatever the exit status (under valgrind or a
     * sanitizer the child's exit reports on its own memory). */
    int rc;
    if (got.failed || clf_local_malloc_answer(got.data, got.len, &rc, out,
                                              report, warnings, error)) {
        clf_str why = {0};
        if (WIFSIGNALED(status))
            clf_str_printf(&why, "libclang stopped on signal %d (%s) while "
                           "reading the source", WTERMSIG(status),
                           strsignal(WTERMSIG(status)));
        else
            clf_str_printf(&why, "libclang's process ended (status %d) "
                           "without an answer while reading the source",
                           WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        *error = why.data;
        rc = CLFRAME_ERR_BUILD;
    }
    if (rc == 0 && !*out) {       /* an empty source rewrites to itself */
        *out = clf_strdup(source);
        rc = *out ? 0 : CLFRAME_ERR_NO_MEMORY;
    }
    if (rc != 0 && report) {
        free(*report);
        *report = NULL;
    }
    if (rc != 0 && warnings) {
        free(*warnings);
        *warnings = NULL;
    }
    free(got.data);
    return rc;
}
