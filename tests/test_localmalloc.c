/*
 * test_localmalloc.c: local_malloc and local_free in kernel code
 * (clframe/source/localmalloc.c). The arena each kernel gets, exactly, for the
 * shapes a source takes; rewritten sources built and run, their live
 * blocks filled and checked by every work-group (no overlap, aligned);
 * clfunction on a function that allocates; blocks a function returns with,
 * kept to the kernel's end with a warning; the declarations of another
 * rewriter's header, and its test kernels (tests/kernels/local_malloc/);
 * every refusal and compiler error with its file and line, through
 * includes and under CL_DEBUG; the command-line tool's options and exit
 * codes; and a build from the cache, which must not load libclang.
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

static char *read_text(const char *path)
{
    size_t size;
    return test_read_file(path, &size);
}

/* The rewrite of source, which must succeed; its report in *report, its
 * warnings in *warnings (if asked: "" for none). */
static char *rewrite_warned(const char *source, const char *options,
                            char **report, char **warnings)
{
    char *out = NULL, *error = NULL;
    int rc = clf_local_malloc_rewrite(source, "t.cl", options, 0, &out,
                                      report, warnings, &error);
    ck_assert_msg(rc == 0, "rewrite refused: %s", error ? error : "");
    free(error);
    if (warnings && !*warnings)
        *warnings = clf_strdup("");
    return out;
}

static char *rewrite(const char *source, const char *options, char **report)
{
    return rewrite_warned(source, options, report, NULL);
}

/* The arena of kernel `name` in a rewrite's report. */
static long arena_in(const char *report, const char *name)
{
    char key[128];
    snprintf(key, sizeof key, "%s: ", name);
    long bytes = -1;
    for (const char *line = report; line && *line;) {
        if (strncmp(line, key, strlen(key)) == 0)
            bytes = strtol(line + strlen(key), NULL, 10);
        const char *end = strchr(line, '\n');
        line = end ? end + 1 : NULL;
    }
    ck_assert_msg(bytes >= 0, "no line for kernel %s in %s", name,
                  report ? report : "(no report)");
    return bytes;
}

/* The arena of kernel `name` in the report of source's rewrite. */
static long arena(const char *source, const char *name)
{
    char *report = NULL;
    free(rewrite(source, NULL, &report));
    long bytes = arena_in(report, name);
    free(report);
    return bytes;
}

/* The refusal of source: its message must hold each of the texts. */
static void refused(const char *source, unsigned long long limit,
                    const char *texts[])
{
    char *out = NULL, *error = NULL;
    int rc = clf_local_malloc_rewrite(source, "t.cl", NULL, limit, &out,
                                      NULL, NULL, &error);
    ck_assert_int_eq(rc, CLFRAME_ERR_BUILD);
    ck_assert_ptr_null(out);
    ck_assert_ptr_nonnull(error);
    for (int i = 0; texts[i]; i++)
        ck_assert_msg(strstr(error, texts[i]), "\"%s\" lacks \"%s\"", error,
                      texts[i]);
    free(error);
}

/* ---- the arena of each kernel -------------------------------------------- */

START_TEST(nested_calls_add_up)
{
    const char *src =
        "void leaf(void) { __local int *a = local_malloc(64);\n"
        "  a[0] = 1; local_free(64); }\n"
        "void mid() { __local int *b = local_malloc(32); leaf();\n"
        "  local_free(32); }\n"
        "__kernel void k(__global int *g) { mid(); }\n";
    ck_assert_int_eq(arena(src, "k"), 32 + 64);
}
END_TEST

START_TEST(sequential_allocations_reuse_bytes)
{
    const char *src =
        "void f(void) { __local int *a = local_malloc(100); a[0] = 1;\n"
        "  local_free(100); }\n"
        "__kernel void k(__global int *g) {\n"
        "  f(); f();\n"
        "  __local int *b = local_malloc(48); local_free(48);\n"
        "  __local int *c = local_malloc(48); local_free(48); }\n";
    ck_assert_int_eq(arena(src, "k"), 100);
}
END_TEST

START_TEST(branches_take_the_larger)
{
    const char *src =
        "__kernel void k(__global int *g) {\n"
        "  __local int *a = local_malloc(16);\n"
        "  if (g[0]) { __local int *b = local_malloc(16); local_free(16); }\n"
        "  else { __local int *c = local_malloc(256); local_free(256); }\n"
        "  local_free(16); }\n";
    ck_assert_int_eq(arena(src, "k"), 16 + 256);
}
END_TEST

START_TEST(one_function_two_kernels)
{
    const char *src =
        "void f(void) { __local float4 *a = local_malloc(sizeof(float4) * 2);\n"
        "  local_free(sizeof(float4) * 2); }\n"
        "__kernel void small(__global int *g) { f(); }\n"
        "__kernel void large(__global int *g) {\n"
        "  __local char *x = local_malloc(1000); f(); local_free(1000); }\n"
        "__kernel void none(__global int *g) { g[0] = 1; }\n";
    ck_assert_int_eq(arena(src, "small"), 32);
    /* 1000 bytes, the next 16-byte boundary, then f's 32 */
    ck_assert_int_eq(arena(src, "large"), 1008 + 32);
    ck_assert_int_eq(arena(src, "none"), 0);
}
END_TEST

START_TEST(prototypes_and_parameter_lists)
{
    const char *src =
        "enum { WORDS = 6 };\n"
        "#define BYTES (WORDS * sizeof(int))\n"
        "int g1(void);\n"
        "int g2();\n"
        "int g3(int x);\n"
        "__kernel void k(__global int *g) { g[0] = g1() + g2() + g3(1); }\n"
        "int g1(void) { __local int *a = local_malloc(BYTES); a[0] = 1;\n"
        "  int r = a[0]; local_free(BYTES); return r; }\n"
        "int g2() { return g1(); }\n"
        "int g3(int x) { return x + g2(); }\n";
    char *report = NULL;
    char *out = rewrite(src, NULL, &report);
    ck_assert_msg(strstr(out, "int g1(__local uchar *clf_local);"), "%s", out);
    ck_assert_msg(strstr(out, "int g2(__local uchar *clf_local);"), "%s", out);
    ck_assert_msg(strstr(out, "int g3(int x, __local uchar *clf_local);"),
                  "%s", out);
    ck_assert_msg(strstr(out, "g3(1, clf_local + 0)"), "%s", out);
    ck_assert_msg(strstr(report, "k: 24 bytes"), "%s", report);
    free(report);
    free(out);
}
END_TEST

START_TEST(the_rewrite_keeps_every_line)
{
    const char *src =
        "#line 1 \"user.cl\"\n"
        "void f(int n)\n{\n  __local int *a = local_malloc(4 * 10);\n"
        "  a[n] = n;\n  local_free(40);\n}\n"
        "__kernel void k(__global int *g)\n{\n  f(g[0]);\n}\n";
    char *report = NULL;
    char *out = rewrite(src, NULL, &report);
    int lines_in = 0, lines_out = 0;
    for (const char *p = src; *p; p++)
        lines_in += *p == '\n';
    for (const char *p = out; *p; p++)
        lines_out += *p == '\n';
    ck_assert_int_eq(lines_in, lines_out);
    /* The report names the user's file and lines, through #line. */
    ck_assert_msg(strstr(report, "k -> f (called at user.cl:9) -> "
                         "local_malloc(40) at user.cl:3"), "%s", report);
    free(report);
    free(out);
}
END_TEST

/* A block still live when a function returns stays taken until the
 * kernel ends (as code that counted its scratch by hand had it): the
 * caller allocates above it, and a warning names it. f leaves its 8
 * bytes at one return, g its 32 at its end: k's c (16) at 0, f's frame at
 * 16 and its 8 kept, d (16) at 32, g's frame at 32, 64 in all (48 if
 * what they leave were not kept). A kernel's own blocks end with it. */
START_TEST(blocks_left_live_stay_until_the_kernel_ends)
{
    const char *src =
        "int f(int n) { __local int *a = local_malloc(8);\n"
        "  if (n) return 1;\n"
        "  local_free(8); return 0; }\n"
        "void g(void) { __local float4 *b = local_malloc(32); }\n"
        "__kernel void k(__global int *x, int n) {\n"
        "  __local int *c = local_malloc(16); x[0] = f(n);\n"
        "  __local int *d = local_malloc(16); local_free(16);\n"
        "  g(); }\n";
    char *report = NULL, *warnings = NULL;
    free(rewrite_warned(src, NULL, &report, &warnings));
    ck_assert_int_eq(arena_in(report, "k"), 64);
    ck_assert_msg(strstr(warnings, "t.cl:2: warning: f returns with "
                         "local_malloc(8) at t.cl:1 still live: it stays "
                         "allocated until the kernel ends"), "%s", warnings);
    ck_assert_msg(strstr(warnings, "t.cl:4: warning: g ends with "
                         "local_malloc(32) at t.cl:4 still live"), "%s",
                  warnings);
    ck_assert_msg(!strstr(warnings, "warning: k "), "%s", warnings);
    free(report);
    free(warnings);
    /* A label after a return is reached by a goto: what its code returns
     * with is kept too (b above a: 24 bytes, not 16). */
    free(rewrite_warned("__local int *f(int n) {\n"
                        "  if (n) goto L;\n"
                        "  return 0;\n"
                        "L:\n"
                        "  return local_malloc(8);\n"
                        "}\n"
                        "__kernel void k(__global int *g) {\n"
                        "  __local int *a = f(g[0]);\n"
                        "  __local int *b = local_malloc(8);\n"
                        "  local_free(8); }\n", NULL, &report, &warnings));
    ck_assert_int_eq(arena_in(report, "k"), 24);
    ck_assert_msg(strstr(warnings, "t.cl:5: warning: f returns with "
                         "local_malloc(8) at t.cl:5"), "%s", warnings);
    free(report);
    free(warnings);
    /* Balanced code has none. */
    free(rewrite_warned("void h(void) { __local int *a = local_malloc(8);\n"
                        "  local_free(8); }\n"
                        "__kernel void k(__global int *x) { h(); }\n", NULL,
                        NULL, &warnings));
    ck_assert_str_eq(warnings, "");
    free(warnings);
}
END_TEST

/* A return ends its path: a branch, loop or case that frees and returns
 * does not leave the code after it with fewer blocks. */
START_TEST(an_early_return_ends_its_path)
{
    const char *src =
        "int f(int n) {\n"
        "  __local int *a = local_malloc(64);\n"
        "  if (n < 0) { local_free(64); return 1; }\n"
        "  for (int i = 0; i < n; i++) {\n"
        "    __local int *b = local_malloc(16);\n"
        "    if (i == 3) { local_free(16); local_free(64); return 2; }\n"
        "    local_free(16); }\n"
        "  switch (n) {\n"
        "  case 1: local_free(64); return 3;\n"
        "  case 2: break; }\n"
        "  if (n == 5) { local_free(64); return 4; } else a[0] = 1;\n"
        "  local_free(64);\n"
        "  return 0; }\n"
        "__kernel void k(__global int *g) { g[0] = f(g[1]); }\n";
    char *report = NULL, *warnings = NULL;
    free(rewrite_warned(src, NULL, &report, &warnings));
    ck_assert_int_eq(arena_in(report, "k"), 64 + 16);
    ck_assert_str_eq(warnings, "");
    free(report);
    free(warnings);
}
END_TEST

/* A source may declare local_malloc and local_free itself, with any return
 * type and one integer parameter, as another rewriter's header does. */
START_TEST(the_sources_own_declarations_are_accepted)
{
    const char *decls[] = {
        "__local void *local_malloc(size_t bytes);\n"
        "void local_free(size_t bytes);\n",
        "__local float *local_malloc(uint bytes);\n"
        "int local_free(ulong bytes);\n",
        "__local void *local_free(size_t);\n",
    };
    for (int i = 0; i < 3; i++) {
        clf_str src = {0};
        clf_str_printf(&src, "%s__kernel void k(__global int *g) {\n"
                       "  __local int *a = local_malloc(48);\n"
                       "  local_free(48); }\n", decls[i]);
        ck_assert(!src.failed);
        char *report = NULL;
        char *out = rewrite(src.data, NULL, &report);
        ck_assert_int_eq(arena_in(report, "k"), 48);
        ck_assert_msg(strstr(out, decls[i]), "declarations kept: %s", out);
        free(report);
        free(out);
        free(src.data);
    }
}
END_TEST

/* The kernels of another rewriter's tests, written again in
 * tests/kernels/local_malloc/, with their header's declarations (under
 * __LOCAL_MALLOC_ANALYSIS__) and without: test0's blocks of 40 and 60
 * bytes take 100 (blocks of unknown type are aligned for an array that
 * fills them: 8 and 4 bytes), test2's two functions each keep 20 until the
 * kernel ends, 40 in all, and each is named in a warning. */
START_TEST(the_seeds_kernels_go_through)
{
    const char *options[] = {NULL, "-D__LOCAL_MALLOC_ANALYSIS__"};
    for (int i = 0; i < 2; i++) {
        int embedded;
        char *text = clf_source_load("tests/kernels/local_malloc/"
                                     "seed_test0.cl", options[i], NULL,
                                     &embedded);
        ck_assert_msg(text != NULL, "%s", clframe_last_error());
        char *report = NULL, *warnings = NULL;
        free(rewrite_warned(text, options[i], &report, &warnings));
        ck_assert_int_eq(arena_in(report, "entry"), 100);
        ck_assert_str_eq(warnings, "");
        free(report);
        free(warnings);
        free(text);
        text = clf_source_load("tests/kernels/local_malloc/seed_test2.cl",
                               options[i], NULL, &embedded);
        ck_assert_msg(text != NULL, "%s", clframe_last_error());
        free(rewrite_warned(text, options[i], &report, &warnings));
        ck_assert_int_eq(arena_in(report, "entry"), 40);
        ck_assert_msg(strstr(warnings, "seed_test2.cl:12: warning: keeps_one "
                             "ends with local_malloc(20) at tests/kernels/"
                             "local_malloc/seed_test2.cl:11 still live"),
                      "%s", warnings);
        ck_assert_msg(strstr(warnings, "seed_test2.cl:17: warning: "
                             "keeps_another ends with local_malloc(20)"),
                      "%s", warnings);
        free(report);
        free(warnings);
        free(text);
    }
}
END_TEST

/* ---- rewritten sources run -------------------------------------------------- */

/* Every work-group fills each live block with its own pattern, then checks
 * them all after a barrier: blocks that overlapped would clash. Blocks are
 * checked aligned too. Sizes are odd on purpose (padding between blocks). */
static const char *blocks_source =
    "#define TAG(t, b) ((uint)(t) * 1000u + (b) * 100u)\n"
    "void fill(__local uint *p, uint n, uint tag) {\n"
    "  for (uint i = get_local_id(0); i < n; i += get_local_size(0))\n"
    "    p[i] = tag + i; }\n"
    "int check(__local uint *p, uint n, uint tag, uint align) {\n"
    "  int bad = (uint)((size_t)p % align) != 0;\n"
    "  for (uint i = 0; i < n; i++) bad |= p[i] != tag + i;\n"
    "  return bad; }\n"
    "int leaf(uint t) {\n"
    "  __local uint *a = local_malloc(5 * sizeof(uint));\n"
    "  __local long16 *w = local_malloc(2 * sizeof(long16));\n"
    "  __local uint *b = (__local uint *)w;\n"
    "  __local void *v = local_malloc(40);\n"
    "  __local uint *d = v;\n"
    "  fill(a, 5, TAG(t, 1)); fill(b, 64, TAG(t, 2)); fill(d, 10, TAG(t, 4));\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  int bad = check(a, 5, TAG(t, 1), 16) | check(b, 64, TAG(t, 2), 128)\n"
    "            | check(d, 10, TAG(t, 4), 8);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  local_free(40);\n"
    "  local_free(2 * sizeof(long16));\n"
    "  local_free(5 * sizeof(uint));\n"
    "  return bad; }\n"
    "int middle(uint t) {\n"
    "  __local uint *m = local_malloc(3 * sizeof(float4));\n"
    "  fill(m, 12, TAG(t, 3));\n"
    "  int bad = leaf(t + 1);\n"
    "  bad |= leaf(t + 2);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  bad |= check(m, 12, TAG(t, 3), 16) << 1;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  local_free(3 * sizeof(float4));\n"
    "  return bad; }\n"
    "__kernel void blocks(__global int *bad) {\n"
    "  __local uchar *c = local_malloc(3);\n"
    "  uint t = 10 * get_group_id(0);\n"
    "  if (get_local_id(0) == 0) c[2] = (uchar)t;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  int b = middle(t);\n"
    "  b |= (c[2] != (uchar)t) << 2;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  local_free(3);\n"
    "  bad[get_global_id(0)] = b; }\n";

START_TEST(live_blocks_never_overlap_and_are_aligned)
{
    /* Each block aligned for its pointer's type, at least 16, or, for a
     * void pointer (v, 40 bytes), for an array of any one type that fills
     * it (8: ten floats, five float2s): leaf: a (20 bytes) at 0, w (two
     * long16) at 128, v at 384, 424 in all, from a frame aligned to 128;
     * middle: m (48) at 0, leaf's frame at 128; blocks: c (3) at 0,
     * middle's frame at 128. */
    ck_assert_int_eq(arena(blocks_source, "blocks"), 128 + 128 + 424);
    enum { GROUPS = 5, GROUP = 8, N = GROUPS * GROUP };
    clctx *ctx = test_run_context();
    clkernel *k = clkernel_source(ctx, blocks_source, "blocks", NULL);
    ck_assert_msg(k != NULL, "%s", clframe_last_error());
    int bad[N];
    memset(bad, 0x7f, sizeof bad);
    clkernel_global(k, N);
    clkernel_local(k, GROUP);
    ck_assert_int_eq(clkernel_call(k, CLARG_OUT(bad, N)), 0);
    for (int i = 0; i < N; i++)
        ck_assert_msg(bad[i] == 0, "work-item %d: %d", i, bad[i]);
    clkernel_free(k);
    clctx_free(ctx);
}
END_TEST

/* Guard words around the arena: the rewritten source's arena is declared
 * again, GUARD_BEFORE bytes below it and GUARD_AFTER above it, all words
 * of 0x5a5a5a5a set by the kernel first and checked by every work-item
 * last (GUARDS_SET and GUARDS_BAD, empty for the rewrite's own parse, as
 * -DGUARDED is given to the device's build only). Each function fills its
 * block whole with its own pattern and checks it after the calls it
 * makes: a block placed over another, or past the arena's end, shows. */
enum { GUARD_BEFORE = 128, GUARD_AFTER = 8192 };
static const char *guard_code =
    "#ifdef GUARDED\n"
    "#define GUARDS_SET guards_set(clf_guards, clf_words)\n"
    "#define GUARDS_BAD guards_bad(clf_guards, clf_words)\n"
    "#else\n"
    "#define GUARDS_SET\n"
    "#define GUARDS_BAD 0\n"
    "#endif\n"
    "#define BEFORE (128 / 4)\n"
    "#define AFTER (8192 / 4)\n"
    "void guards_set(__local uint *g, uint words) {\n"
    "  for (uint i = get_local_id(0); i < BEFORE + words + AFTER;\n"
    "       i += get_local_size(0))\n"
    "    if (i < BEFORE || i >= BEFORE + words) g[i] = 0x5a5a5a5au;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE); }\n"
    "int guards_bad(__local uint *g, uint words) {\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  int bad = 0;\n"
    "  for (uint i = 0; i < BEFORE + words + AFTER; i++)\n"
    "    bad |= (i < BEFORE || i >= BEFORE + words) && g[i] != 0x5a5a5a5au;\n"
    "  return bad; }\n"
    "void fill(__local uint *p, uint n, uint tag) {\n"
    "  for (uint i = get_local_id(0); i < n; i += get_local_size(0))\n"
    "    p[i] = tag + i;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE); }\n"
    "int check(__local uint *p, uint n, uint tag) {\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  int bad = 0;\n"
    "  for (uint i = 0; i < n; i++) bad |= p[i] != tag + i;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  return bad; }\n";

/* The rewrite of guard_code and body, its arena guarded: the declaration
 * `__local uchar clf_local[N] ...;` becomes a larger array of words and
 * a pointer into it, on the same line. */
static char *guarded(const char *body, long *arena)
{
    clf_str src = {0};
    clf_str_printf(&src, "%s%s", guard_code, body);
    ck_assert(!src.failed);
    char *report = NULL;
    char *out = rewrite(src.data, NULL, &report);
    free(src.data);
    const char *decl = strstr(out, "__local uchar clf_local[");
    ck_assert_msg(decl && !strstr(decl + 1, "__local uchar clf_local["),
                  "one arena: %s", out);
    *arena = strtol(decl + strlen("__local uchar clf_local["), NULL, 10);
    ck_assert_int_eq(*arena, arena_in(report, "k"));
    free(report);
    const char *end = strchr(decl, ';');
    ck_assert_ptr_nonnull(end);
    clf_str g = {0};
    long words = (*arena + 3) / 4;
    clf_str_printf(&g, "%.*s__local uint clf_guards[%ld] __attribute__(("
                   "aligned(128))); __local uchar *clf_local = (__local uchar"
                   " *)(clf_guards + %d); const uint clf_words = %ld;%s",
                   (int)(decl - out), out,
                   (GUARD_BEFORE + GUARD_AFTER) / 4 + words, GUARD_BEFORE / 4,
                   words, end + 1);
    ck_assert(!g.failed);
    free(out);
    return g.data;
}

/* Runs kernel k of guard_code and body, rewritten and guarded, over two
 * groups of 8: each work-item writes what its checks found, 0 for none. */
static void run_guarded(const char *body, long expected_arena)
{
    long arena;
    char *text = guarded(body, &arena);
    ck_assert_int_eq(arena, expected_arena);
    clctx *ctx = test_run_context();
    clkernel *k = clkernel_source(ctx, text, "k", "-DGUARDED");
    ck_assert_msg(k != NULL, "%s\n%s", clframe_last_error(), text);
    enum { N = 16 };
    int bad[N];
    memset(bad, 0x7f, sizeof bad);
    ck_assert_cl(clkernel_global(k, N));
    ck_assert_cl(clkernel_local(k, 8));
    ck_assert_cl(clkernel_call(k, CLARG_OUT(bad, N)));
    for (int i = 0; i < N; i++)
        ck_assert_msg(bad[i] == 0, "work-item %d: %d", i, bad[i]);
    clkernel_free(k);
    clctx_free(ctx);
    free(text);
}

/* Overloads share a name, not a frame: g(float) takes 16 bytes, g(int)
 * 4096, each called with the kernel's 64 live, so the arena is 64 +
 * 4096. (Told apart by name, both calls went to the first g: an arena of
 * 80, with g(int) writing 4016 bytes past it.) */
START_TEST(overloads_get_each_their_own_frame)
{
    run_guarded(
        "__attribute__((overloadable)) int g(float x) {\n"
        "  __local uint *p = local_malloc(16);\n"
        "  fill(p, 4, 1000);\n"
        "  int bad = check(p, 4, 1000);\n"
        "  local_free(16);\n"
        "  return bad; }\n"
        "__attribute__((overloadable)) int g(int x) {\n"
        "  __local uint *p = local_malloc(4096);\n"
        "  fill(p, 1024, 2000);\n"
        "  int bad = check(p, 1024, 2000);\n"
        "  local_free(4096);\n"
        "  return bad; }\n"
        "__kernel void k(__global int *bad) {\n"
        "  __local uint own[64];\n"
        "  GUARDS_SET;\n"
        "  fill(own, 64, 7000);\n"
        "  __local uint *a = local_malloc(64);\n"
        "  fill(a, 16, 3000);\n"
        "  int b = g(1.0f) | g(1) << 1;\n"
        "  b |= check(a, 16, 3000) << 2 | check(own, 64, 7000) << 3;\n"
        "  local_free(64);\n"
        "  bad[get_global_id(0)] = b | GUARDS_BAD << 4; }\n", 64 + 4096);
}
END_TEST

/* Names longer than 255 characters are told apart in full: N (255 n's)
 * takes 16 bytes, Nx 4096. (Were they cut at 255, the call of Nx would go
 * to N: an arena of 16.) */
START_TEST(long_names_are_told_apart)
{
    char name[256];
    memset(name, 'n', 255);
    name[255] = '\0';
    clf_str body = {0};
    clf_str_printf(&body,
        "int %s(void) {\n"
        "  __local uint *p = local_malloc(16);\n"
        "  fill(p, 4, 1000);\n"
        "  int bad = check(p, 4, 1000);\n"
        "  local_free(16);\n"
        "  return bad; }\n"
        "int %sx(void) {\n"
        "  __local uint *p = local_malloc(4096);\n"
        "  fill(p, 1024, 2000);\n"
        "  int bad = check(p, 1024, 2000);\n"
        "  local_free(4096);\n"
        "  return bad; }\n"
        "__kernel void k(__global int *bad) {\n"
        "  GUARDS_SET;\n"
        "  int b = %sx() | %s() << 1;\n"
        "  bad[get_global_id(0)] = b | GUARDS_BAD << 4; }\n",
        name, name, name, name);
    ck_assert(!body.failed);
    run_guarded(body.data, 4096);
    free(body.data);
}
END_TEST

/* The guards catch what they guard: an arena declared 16 bytes short
 * (the rewrite's output altered) is written past. */
START_TEST(the_guards_see_a_block_past_the_arena)
{
    long arena;
    char *text = guarded("__kernel void k(__global int *bad) {\n"
                         "  GUARDS_SET;\n"
                         "  __local uint *p = local_malloc(64);\n"
                         "  fill(p, 16, 100);\n"
                         "  local_free(64);\n"
                         "  bad[get_global_id(0)] = GUARDS_BAD; }\n", &arena);
    ck_assert_int_eq(arena, 64);
    char *at = strstr(text, "const uint clf_words = 16;");
    ck_assert_ptr_nonnull(at);
    at[strlen("const uint clf_words = ") + 1] = '2';     /* 16 -> 12 */
    clkernel *k = clkernel_source(NULL, text, "k", "-DGUARDED");
    ck_assert_msg(k != NULL, "%s", clframe_last_error());
    int bad[8] = {0};
    ck_assert_cl(clkernel_global(k, 8));
    ck_assert_cl(clkernel_call(k, CLARG_OUT(bad, 8)));
    for (int i = 0; i < 8; i++)
        ck_assert_int_eq(bad[i], 1);
    clkernel_free(k);
    free(text);
}
END_TEST

START_TEST(clfunction_calls_a_function_that_allocates)
{
    clfunction *f = clfunction_source(NULL,
        "int twice(int x) {\n"
        "  __local int *t = local_malloc(sizeof(int));\n"
        "  t[0] = x; barrier(CLK_LOCAL_MEM_FENCE);\n"
        "  int r = 2 * t[0];\n"
        "  barrier(CLK_LOCAL_MEM_FENCE);\n"
        "  local_free(sizeof(int));\n"
        "  return r; }\n", "twice", NULL);
    ck_assert_msg(f != NULL, "%s", clframe_last_error());
    int r = 0;
    ck_assert_int_eq(clfunction_call(f, &r, CLARG(21)), 0);
    ck_assert_int_eq(r, 42);
    clfunction_free(f);
}
END_TEST

/* A function that returns a block it made (kept until the kernel ends,
 * with a warning, printed under CL_DEBUG): two calls give two blocks that
 * both hold their values to the end; had the second call's block been
 * placed over the first one, a check would see the other's values. */
START_TEST(a_block_a_function_returns_stays_its_own)
{
    static const char *src =
        "__local int *filled(int tag) {\n"
        "  __local int *p = local_malloc(6 * sizeof(int));\n"
        "  for (int i = get_local_id(0); i < 6; i += get_local_size(0))\n"
        "    p[i] = tag + i;\n"
        "  barrier(CLK_LOCAL_MEM_FENCE);\n"
        "  return p; }\n"
        "__kernel void two(__global int *bad) {\n"
        "  __local int *a = filled(100);\n"
        "  __local int *b = filled(200);\n"
        "  int wrong = 0;\n"
        "  for (int i = 0; i < 6; i++)\n"
        "    wrong += (a[i] != 100 + i) + (b[i] != 200 + i);\n"
        "  bad[get_global_id(0)] = wrong; }\n";
    setenv("CL_DEBUG", "1", 1);
    clctx *ctx = clctx_new(NULL);
    unsetenv("CL_DEBUG");
    ck_assert_msg(ctx != NULL, "%s", clframe_last_error());
    capture_stderr_begin();
    clkernel *k = clkernel_source(ctx, src, "two", NULL);
    char *said = capture_stderr_end();
    ck_assert_msg(k != NULL, "%s", clframe_last_error());
    ck_assert_msg(strstr(said, "clframe: local_malloc rewrite of source of "
                         "two") &&
                  strstr(said, "source of two:6: warning: filled returns "
                         "with local_malloc(24) at source of two:2 still "
                         "live"), "debug output: %s", said);
    free(said);
    enum { N = 16 };
    int bad[N];
    memset(bad, 0x7f, sizeof bad);
    ck_assert_cl(clkernel_global(k, N));
    ck_assert_cl(clkernel_local(k, 4));
    ck_assert_cl(clkernel_call(k, CLARG_OUT(bad, N)));
    for (int i = 0; i < N; i++)
        ck_assert_msg(bad[i] == 0, "work-item %d: %d", i, bad[i]);
    clkernel_free(k);
    clctx_free(ctx);
}
END_TEST

/* The seed's test0, with its header's declarations, builds and runs. */
START_TEST(the_seeds_test0_builds_with_its_declarations)
{
    clctx *ctx = test_run_context();
    clkernel *k = clkernel_file(ctx, "tests/kernels/local_malloc/"
                                "seed_test0.cl", "entry",
                                "-D__LOCAL_MALLOC_ANALYSIS__");
    ck_assert_msg(k != NULL, "%s", clframe_last_error());
    ck_assert_cl(clkernel_global(k, 8));
    ck_assert_cl(clkernel_call(k));
    clkernel_free(k);
    clctx_free(ctx);
}
END_TEST

/* A compiler error found while rewriting names the file and line the user
 * wrote, in a header it includes too (the expanded source's #line markers
 * followed), and CL_DEBUG prints it as it prints build logs. */
START_TEST(rewrite_errors_name_the_users_file_and_line)
{
    test_write_file("lm/lm_sizes.h", "#define SIZE 16\n/* two */\n"
                    "/* three */\n");
    const char *broken = test_write_file("lm/lm_broken.cl",
        "/* a kernel with a mistake on line 7 */\n"
        "#include \"lm_sizes.h\"\n"
        "__kernel void k(__global int *g)\n"
        "{\n"
        "    __local int *a = local_malloc(SIZE);\n"
        "    a[0] = 1;\n"
        "    g[0] = a[0] + undeclared_name;\n"
        "    local_free(SIZE);\n"
        "}\n");
    char path[512];
    snprintf(path, sizeof path, "%s", broken);
    setenv("CL_DEBUG", "1", 1);
    clctx *ctx = clctx_new(NULL);
    unsetenv("CL_DEBUG");
    ck_assert_msg(ctx != NULL, "%s", clframe_last_error());
    capture_stderr_begin();
    clkernel *k = clkernel_file(ctx, path, "k", NULL);
    char *said = capture_stderr_end();
    ck_assert_ptr_null(k);
    ck_assert_error_has("lm_broken.cl:7:19: error: use of undeclared "
                        "identifier 'undeclared_name'");
    ck_assert_msg(!strstr(clframe_last_error(), "input.cl"), "%s",
                  clframe_last_error());
    ck_assert_msg(strstr(said, "clframe: local_malloc rewrite of ") &&
                  strstr(said, "lm_broken.cl:7:19: error: use of "
                         "undeclared identifier"), "debug output: %s", said);
    free(said);
    clctx_free(ctx);

    test_write_file("lm/lm_bad.h",
        "/* a header with a mistake on line 3 */\n"
        "int twice(int x)\n"
        "{ return 2 * x + not_declared; }\n");
    const char *includer = test_write_file("lm/lm_includer.cl",
        "#include \"lm_bad.h\"\n"
        "__kernel void k(__global int *g)\n"
        "{\n"
        "    __local int *a = local_malloc(16);\n"
        "    g[0] = twice(a[0]);\n"
        "    local_free(16);\n"
        "}\n");
    ck_assert_ptr_null(clkernel_file(NULL, includer, "k", NULL));
    ck_assert_error_has("lm/lm_bad.h:3:18: error: use of undeclared "
                        "identifier 'not_declared'");
}
END_TEST

START_TEST(a_refusal_fails_the_build_with_its_line)
{
    clkernel *k = clkernel_source(NULL,
        "__kernel void k(__global int *g, int n) {\n"
        "  __local int *a = local_malloc(n);\n"
        "  local_free(4); }\n", "k", NULL);
    ck_assert_ptr_null(k);
    ck_assert_error_has("does not compile");
    ck_assert_error_has("local_malloc: source of k:2: the size of "
                        "local_malloc is not a compile-time constant: `n`");
}
END_TEST

/* ---- refusals ---------------------------------------------------------------- */

START_TEST(refuses_sizes_not_constant)
{
    refused("__kernel void k(int n) { __local int *a = local_malloc(n * 4);\n"
            "local_free(4); }\n",
            0, (const char *[]){"t.cl:1:", "not a compile-time constant",
                                "`n * 4`", NULL});
}
END_TEST

/* Sizes out of range, named as the source wrote them: an unsigned one
 * past 2^63 is not a negative number of bytes. */
START_TEST(refuses_sizes_out_of_range)
{
    refused("__kernel void k(void) {\n"
            "  __local int *a = local_malloc(0xfffffffffffffff8UL);\n"
            "  local_free(8); }\n",
            0, (const char *[]){"t.cl:2:", "is 18446744073709551608 bytes",
                                NULL});
    refused("__kernel void k(void) {\n"
            "  __local int *a = local_malloc(-8);\n  local_free(8); }\n",
            0, (const char *[]){"t.cl:2:",    /* -8 as the size_t it becomes */
                                "is 18446744073709551608 bytes: `-8`", NULL});
    refused("__kernel void k(void) {\n"
            "  __local int *a = local_malloc(0u);\n  local_free(8); }\n",
            0, (const char *[]){"t.cl:2:", "is 0 bytes", NULL});
}
END_TEST

START_TEST(refuses_recursion)
{
    refused("void g(int n);\n"
            "void f(int n) { __local int *a = local_malloc(4); g(n);\n"
            "  local_free(4); }\n"
            "void g(int n) { if (n) f(n - 1); }\n"
            "__kernel void k(int n) { f(n); }\n",
            0, (const char *[]){"t.cl:4:", "recursion", "g calls f", NULL});
}
END_TEST

START_TEST(refuses_frees_that_do_not_match)
{
    refused("__kernel void k(int n) { local_free(8); }\n", 0,
            (const char *[]){"t.cl:1:", "local_free(8) with nothing "
                             "allocated in k", NULL});
    refused("__kernel void k(int n) { __local int *a = local_malloc(8);\n"
            "  __local int *b = local_malloc(16);\n"
            "  local_free(8); local_free(16); }\n", 0,
            (const char *[]){"t.cl:3:", "local_free(8) does not match the "
                             "most recent allocation, local_malloc(16) at "
                             "t.cl:2", NULL});
}
END_TEST

START_TEST(refuses_loops_that_keep_blocks)
{
    refused("__kernel void k(int n) {\n"
            "  for (int i = 0; i < n; i++) {\n"
            "    __local int *a = local_malloc(8); }\n}\n", 0,
            (const char *[]){"t.cl:3:", "inside a loop is not freed in the "
                             "same iteration", NULL});
    refused("__kernel void k(int n) {\n"
            "  while (n--) { __local int *a = local_malloc(8);\n"
            "    if (n == 3) break;\n    local_free(8); }\n}\n", 0,
            (const char *[]){"t.cl:3:", "break with local_malloc blocks "
                             "live", NULL});
    refused("__kernel void k(__global int *g) {\n"
            "  __local int *p = local_malloc(8);\n"
            "  while (g[0]) { local_free(8); }\n}\n", 0,
            (const char *[]){"t.cl:3: local_malloc(8) at t.cl:2 freed "
                             "inside a loop: it was made before it", NULL});
    refused("void keeps(void) { __local int *a = local_malloc(8); }\n"
            "__kernel void k(int n) {\n"
            "  for (int i = 0; i < n; i++) keeps(); }\n", 0,
            (const char *[]){"t.cl:3: keeps, called inside a loop, leaves 8 "
                             "bytes live each time", NULL});
}
END_TEST

/* A block a function returns with stays until the kernel ends: its caller
 * cannot free it. */
START_TEST(refuses_frees_of_blocks_left_live)
{
    refused("void keeps(void) { __local int *a = local_malloc(8); }\n"
            "__kernel void k(int n) { keeps();\n"
            "  local_free(8); }\n", 0,
            (const char *[]){"t.cl:3: local_free(8) after the 8 bytes keeps "
                             "left live (called at t.cl:2)", NULL});
}
END_TEST

/* A declaration of the source's own must take one size, and a definition
 * would be dead code beside the rewrite. */
START_TEST(refuses_declarations_that_do_not_fit)
{
    static const char *kernel =
        "__kernel void k(__global int *g) { __local int *a = "
        "local_malloc(8); local_free(8); }\n";
    char src[512];
    snprintf(src, sizeof src, "void local_free(size_t a, int b);\n%s",
             kernel);
    refused(src, 0, (const char *[]){"t.cl:1: local_free is declared with "
                                     "other than one parameter", NULL});
    snprintf(src, sizeof src, "\n__local void *local_malloc(float n);\n%s",
             kernel);
    refused(src, 0, (const char *[]){"t.cl:2: local_malloc is declared "
                                     "with a parameter that is not an "
                                     "integer", NULL});
    snprintf(src, sizeof src, "void local_free(size_t n) { }\n%s", kernel);
    refused(src, 0, (const char *[]){"t.cl:1: local_free is defined here",
                                     NULL});
    /* Defined by a macro: as defined here (once taken over silently). */
    snprintf(src, sizeof src, "#define DEFINE(name) __local void *name("
             "size_t n) { return 0; }\nDEFINE(local_malloc)\n%s", kernel);
    refused(src, 0, (const char *[]){"t.cl:2: local_malloc is defined here",
                                     NULL});
}
END_TEST

START_TEST(refuses_branches_and_conditions_that_differ)
{
    refused("__kernel void k(int n) {\n"
            "  if (n) { __local int *a = local_malloc(8); }\n"
            "  local_free(8); }\n", 0,
            (const char *[]){"t.cl:2:", "branches of this if leave "
                             "different", NULL});
    refused("__kernel void k(__global int *g, int n) {\n"
            "  __local int *a = n ? local_malloc(8) : 0; }\n", 0,
            (const char *[]){"t.cl:2:", "conditional expression", NULL});
}
END_TEST

START_TEST(refuses_calls_through_macros)
{
    refused("#define SCRATCH(n) local_malloc(n)\n"
            "__kernel void k(int n) { __local int *a = SCRATCH(8);\n"
            "  local_free(8); }\n", 0,
            (const char *[]){"t.cl:2:", "through a macro", "`SCRATCH(8)`",
                             NULL});
    refused("void f(int x) { __local int *a = local_malloc(8);\n"
            "  local_free(8); }\n"
            "#define CALL(x) f(x)\n"
            "__kernel void k(int n) { CALL(n); }\n", 0,
            (const char *[]){"t.cl:4:", "a call of f through a macro", NULL});
    /* A function a macro writes, local_malloc in its body. */
    refused("#define DEFINE(name) void name(void) { \\\n"
            "  __local int *a = local_malloc(16); local_free(16); }\n"
            "\n"
            "DEFINE(h)\n"
            "__kernel void k(__global int *g) { h(); }\n", 0,
            (const char *[]){"t.cl:4: a call of local_malloc through a macro",
                             NULL});
}
END_TEST

/* A macro that uses its argument twice makes a call written there twice,
 * at one place of the text: a call of f at the same offset both times is
 * one edit; two blocks cannot both be written there, and are refused
 * with the macro's line. (Both once read past the source's end.) */
START_TEST(macros_that_use_an_argument_twice)
{
    static const char *src =
        "#define TWICE(x) (x) + (x)\n"
        "int f(void) { __local int *a = local_malloc(16); local_free(16);\n"
        "  return 1; }\n"
        "__kernel void k(__global int *g) {\n"
        "  __local int *b = local_malloc(32);\n"
        "  g[0] = TWICE(f());\n"
        "  local_free(32); }\n";
    char *report = NULL;
    char *out = rewrite(src, NULL, &report);
    ck_assert_msg(strstr(out, "g[0] = TWICE(f(clf_local + 32));"), "%s", out);
    ck_assert_int_eq(arena_in(report, "k"), 48);
    free(report);
    free(out);
    refused("#define TWICE(x) (x) + (x)\n"
            "__kernel void k(__global ulong *g) {\n"
            "  g[0] = TWICE((ulong)local_malloc(16));\n"
            "  local_free(16); local_free(16); }\n", 0,
            (const char *[]){"t.cl:3: `local_malloc(16)` is written once but "
                             "used more than once by a macro", NULL});
}
END_TEST

/* The arena goes in at the body's first byte, where a call may start. */
START_TEST(a_call_at_the_bodys_first_byte)
{
    char *out = rewrite("__kernel void k(__global int *g) {local_malloc(16);"
                        " local_free(16); }\n", NULL, NULL);
    ck_assert_str_eq(out, "__kernel void k(__global int *g) { __local uchar "
                     "clf_local[16] __attribute__((aligned(16)));((__local "
                     "void *)(clf_local + 0)); ((void)0); }\n");
    free(out);
}
END_TEST

/* sizeof's operand (alignof's, vec_step's) is not evaluated: an
 * allocation there would take bytes that nothing frees. */
START_TEST(refuses_allocations_that_are_not_evaluated)
{
    refused("__kernel void k(__global int *g) {\n"
            "  g[0] = sizeof(local_malloc(16));\n"
            "  __local int *a = local_malloc(8); local_free(8); }\n", 0,
            (const char *[]){"t.cl:2: local_malloc in the operand of sizeof,"
                             " alignof or vec_step, which is not evaluated",
                             NULL});
    refused("__local int *f(void) { return local_malloc(8); }\n"
            "__kernel void k(__global int *g) {\n"
            "  g[0] = vec_step(*f()); }\n", 0,
            (const char *[]){"t.cl:3: f in the operand of sizeof", NULL});
}
END_TEST

/* Only the functions local_malloc and local_free are clframe's: a
 * variable of that name, or a macro of it that calls another function, is
 * the source's own, left as it is. */
START_TEST(a_variable_of_the_name_is_the_sources_own)
{
    static const char *src =
        "__kernel void k(__global int *g) {\n"
        "  __local int *a = local_malloc(8); local_free(8);\n"
        "  { int local_free = 3; g[0] = local_free; } }\n";
    char *out = rewrite(src, NULL, NULL);
    ck_assert_msg(strstr(out, "{ int local_free = 3; g[0] = local_free; }"),
                  "%s", out);
    free(out);
    static const char *own_macro =
        "#define local_malloc(n) my_alloc(n)\n"
        "__local void *my_alloc(size_t n);\n"
        "__kernel void k(__global int *g) {\n"
        "  __local int *a = local_malloc(16); a[0] = 1; }\n";
    out = rewrite(own_macro, NULL, NULL);
    ck_assert_str_eq(out, own_macro);
    free(out);
}
END_TEST

START_TEST(refuses_arenas_larger_than_the_device)
{
    refused("void f(void) { __local float *a = local_malloc(4096);\n"
            "  local_free(4096); }\n"
            "__kernel void k(__global int *g) { __local int own[64];\n"
            "  own[0] = 0; f(); }\n",
            4096, (const char *[]){"t.cl:3:", "kernel k needs 4352 bytes of "
                                   "local memory (4096 from local_malloc, "
                                   "256 of its own), more than the "
                                   "device's 4096: k -> f (called at t.cl:4)"
                                   " -> local_malloc(4096) at t.cl:1", NULL});
}
END_TEST

START_TEST(refuses_sources_that_do_not_parse)
{
    refused("__kernel void k(int n) { __local int *a = local_malloc(8)\n"
            "  local_free(8); }\n", 0,
            (const char *[]){"t.cl:1:", "error:", NULL});
}
END_TEST

/* A sum of 60000 terms overflows libclang 14's parser: the rewrite, in a
 * process of its own, says so and this one goes on. (libclang 16 parses
 * it; the walk then refuses its depth.) */
START_TEST(a_source_that_crashes_libclang_is_an_error)
{
    clf_str s = {0};
    clf_str_printf(&s, "__kernel void k(__global int *g) {\n"
                   "  __local int *a = local_malloc(4);\n  g[0] = g[0]");
    for (int i = 0; i < 60000; i++)
        clf_str_printf(&s, "+g[%d]", i % 7);
    clf_str_printf(&s, ";\n  local_free(4);\n}\n");
    ck_assert(!s.failed);
    char *out = NULL, *error = NULL;
    ck_assert_int_eq(clf_local_malloc_rewrite(s.data, "t.cl", NULL, 0, &out,
                                              NULL, NULL, &error),
                     CLFRAME_ERR_BUILD);
    ck_assert_msg(error && (strstr(error, "libclang") ||
                            strstr(error, "t.cl:3: statements or expressions "
                                   "nested more than")), "%s", error);
    free(error);
    free(s.data);
}
END_TEST

/* What the rewrite's child sends: each text as its length and bytes. */
static void answer_text(clf_str *buf, const char *text)
{
    size_t n = text ? strlen(text) : 0;
    clf_str_append(buf, (const char *)&n, sizeof n);
    clf_str_append(buf, text ? text : "", n);
}

static int read_answer(const char *code, const char *out, const char *error,
                       const char *after, char **got_out, char **got_error)
{
    clf_str buf = {0};
    answer_text(&buf, code);
    answer_text(&buf, out);
    answer_text(&buf, "k: 16 bytes\n");
    answer_text(&buf, NULL);
    answer_text(&buf, error);
    clf_str_append(&buf, after, strlen(after));
    ck_assert(!buf.failed);
    int got = 0;
    char *report = NULL;
    int rc = clf_local_malloc_answer(buf.data, buf.len, &got, got_out,
                                     &report, NULL, got_error);
    ck_assert_int_eq(rc == 0, report != NULL);
    free(report);
    free(buf.data);
    return rc == 0 ? got : 1;
}

/* The parent takes the child's answer whole or not at all: a known code,
 * an error exactly with a failure, nothing after it, none of it cut. */
START_TEST(the_childs_answer_is_read_whole_or_not_at_all)
{
    char *out = NULL, *error = NULL;
    ck_assert_int_eq(read_answer("0", "kernel text", NULL, "", &out, &error),
                     0);
    ck_assert_str_eq(out, "kernel text");
    ck_assert_ptr_null(error);
    free(out);
    const char *bad[][3] = {
        {"0", "kernel text", "an error with success"},
        {"7", NULL, "an unknown code"},
        {"-9005x", NULL, "a code with more after it"},
        {"", NULL, "no code"},
    };
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(read_answer(bad[i][0], bad[i][1], bad[i][2], "",
                                     &out, &error), 1);
        ck_assert_ptr_null(out);
        ck_assert_ptr_null(error);
    }
    ck_assert_int_eq(read_answer("0", "text", NULL, "x", &out, &error), 1);
    /* A failure with its error, and no answer in any part of it. */
    clf_str buf = {0};
    answer_text(&buf, "-9005");
    answer_text(&buf, NULL);
    answer_text(&buf, NULL);
    answer_text(&buf, NULL);
    answer_text(&buf, "t.cl:1: refused");
    ck_assert(!buf.failed);
    for (size_t len = 0; len <= buf.len; len++) {
        int code = 0;
        int rc = clf_local_malloc_answer(buf.data, len, &code, &out, NULL,
                                         NULL, &error);
        ck_assert_int_eq(rc, len == buf.len ? 0 : -1);
        ck_assert_int_eq(error != NULL, len == buf.len);
        ck_assert_ptr_null(out);
        if (rc == 0) {
            ck_assert_int_eq(code, CLFRAME_ERR_BUILD);
            ck_assert_str_eq(error, "t.cl:1: refused");
        }
        free(error);
    }
    free(buf.data);
}
END_TEST

START_TEST(sources_without_local_malloc_are_left_alone)
{
    ck_assert(!clf_local_malloc_used("__kernel void k(void) {}\n"));
    ck_assert(!clf_local_malloc_used("/* local_malloc(4) */ // local_free\n"
                                     "int my_local_malloc(int x);\n"));
    ck_assert(clf_local_malloc_used("void f(void) { local_free(4); }"));
    ck_assert(clf_local_malloc_used("x = local_malloc (4);"));
}
END_TEST

/* ---- the command-line tool ------------------------------------------------ */

START_TEST(the_tool_rewrites_reports_and_refuses)
{
    const char *tool = test_program("clframe-local-malloc");
    test_write_file("lm/inc/size.h", "#define BYTES (N * 4)\n");
    const char *in = test_write_file("lm/in.cl",
        "#include \"size.h\"\n"
        "void f(void) { __local int *a = local_malloc(BYTES);\n"
        "  local_free(BYTES); }\n"
        "__kernel void k(__global int *g) { f(); }\n");
    char in_path[512], dir[512];
    snprintf(in_path, sizeof in_path, "%s", in);
    snprintf(dir, sizeof dir, "%s/lm/inc", test_tmpdir());
    const char *out = test_tmp_path("lm", "out.cl");
    const char *report = test_tmp_path("lm", "report.txt");
    ck_assert_int_eq(test_run("%s -I %s -DN=10 -o %s --report %s > %s 2>&1",
                              tool, dir, out, in_path, report), 0);
    char *text = read_text(report);
    ck_assert_msg(strstr(text, "k: 40 bytes: k -> f (called at "), "%s",
                  text);
    free(text);
    text = read_text(out);
    ck_assert_msg(strstr(text, "__local uchar clf_local[40]"), "%s", text);
    ck_assert_msg(strstr(text, "#define BYTES (N * 4)"), "includes "
                  "expanded: %s", text);
    free(text);
    /* Standard output when no -o; -D changes the sizes. */
    ck_assert_int_eq(test_run("%s -I%s -D N=100 %s > %s 2>&1", tool, dir,
                              in_path, report), 0);
    text = read_text(report);
    ck_assert_msg(strstr(text, "clf_local[400]"), "%s", text);
    free(text);
    /* 1: refused (the device's limit), unreadable, not a file. */
    ck_assert_int_eq(test_run("%s -I %s -DN=100 --local-mem 256 %s > %s "
                              "2>&1", tool, dir, in_path, report), 1);
    text = read_text(report);
    ck_assert_msg(strstr(text, "more than the device's 256"), "%s", text);
    free(text);
    ck_assert_int_eq(test_run("%s /no/such.cl 2>/dev/null", tool), 1);
    ck_assert_int_eq(test_run("%s /dev/zero > %s 2>&1", tool, report), 1);
    text = read_text(report);
    ck_assert_msg(strstr(text, "/dev/zero"), "%s", text);
    free(text);
    char fifo[600];                 /* no writer: refused, not waited on */
    snprintf(fifo, sizeof fifo, "%s/pipe.cl", dir);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    ck_assert_int_eq(test_run("%s %s > %s 2>&1", tool, fifo, report), 1);
    text = read_text(report);
    ck_assert_msg(strstr(text, "pipe.cl"), "%s", text);
    free(text);
    /* 2: bad usage. */
    ck_assert_int_eq(test_run("%s 2>/dev/null", tool), 2);
    ck_assert_int_eq(test_run("%s --frobnicate %s 2>/dev/null", tool,
                              in_path), 2);
    ck_assert_int_eq(test_run("%s --local-mem lots %s 2>/dev/null", tool,
                              in_path), 2);
    ck_assert_int_eq(test_run("%s -o 2>/dev/null", tool), 2);
    ck_assert_int_eq(test_run("%s a.cl b.cl 2>/dev/null", tool), 2);
    ck_assert_int_eq(test_run("%s --help > /dev/null", tool), 0);
}
END_TEST

/* -o is written as every output a user names (clframe_save_*): a link
 * stays a link and its file gets the output, a FIFO and a device are
 * written in place and never replaced (a FIFO became a regular file, and
 * as root -o /dev/null replaced the device), a file the user may not
 * write is refused; and a result lost on standard output is a failure. */
START_TEST(the_tool_writes_its_output_as_every_output)
{
    const char *tool = test_program("clframe-local-malloc");
    const char *in = test_tmp_path("lm", "plain.cl");
    FILE *f = fopen(in, "w");
    ck_assert_ptr_nonnull(f);
    fputs("__kernel void plain(__global int *g) { g[0] = 1; }\n", f);
    fclose(f);
    char dir[512], target[600], link[600], fifo[600], node[600];
    snprintf(dir, sizeof dir, "%s", test_tmp_path("lm", "outputs"));
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    snprintf(target, sizeof target, "%s/target.cl", dir);
    snprintf(link, sizeof link, "%s/link.cl", dir);
    ck_assert_int_eq(symlink("target.cl", link), 0);
    ck_assert_int_eq(test_run("%s -o %s %s", tool, link, in), 0);
    struct stat st;
    ck_assert_int_eq(lstat(link, &st), 0);
    ck_assert_msg(S_ISLNK(st.st_mode), "the link became a file");
    char *text = read_text(target);
    ck_assert_msg(strstr(text, "__kernel void plain"), "%s", text);
    free(text);

    snprintf(fifo, sizeof fifo, "%s/pipe.cl", dir);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    int reader = open(fifo, O_RDONLY | O_NONBLOCK);
    ck_assert_int_ge(reader, 0);
    ck_assert_int_eq(test_run("%s -o %s %s", tool, fifo, in), 0);
    char got[4096] = "";
    ck_assert_int_gt(read(reader, got, sizeof got - 1), 0);
    close(reader);
    ck_assert_msg(strstr(got, "__kernel void plain"), "%s", got);
    ck_assert_int_eq(lstat(fifo, &st), 0);
    ck_assert_msg(S_ISFIFO(st.st_mode), "the FIFO was replaced");

    /* A device node of the tool's own (root alone may make one): /dev/null
     * itself was replaced by the old writer. */
    snprintf(node, sizeof node, "%s/null", dir);
    if (mknod(node, S_IFCHR | 0666, makedev(1, 3)) == 0) {
        ck_assert_int_eq(test_run("%s -o %s %s", tool, node, in), 0);
        ck_assert_int_eq(lstat(node, &st), 0);
        ck_assert_msg(S_ISCHR(st.st_mode), "the device was replaced");
    }

    /* Standard output full: the result is lost, and the tool says so. */
    const char *said = test_tmp_path("lm", "full.txt");
    ck_assert_int_eq(test_run("%s %s > /dev/full 2> %s", tool, in, said), 1);
    text = read_text(said);
    ck_assert_msg(strstr(text, "clframe-local-malloc: standard output: "
                               "writing failed: No space left"), "%s", text);
    free(text);
}
END_TEST

/* The tool's errors, refusals and warnings name the file and line the
 * user wrote, in included headers too. */
START_TEST(the_tool_names_the_users_file_and_line)
{
    const char *tool = test_program("clframe-local-malloc");
    const char *said = test_tmp_path("lm", "tool-said.txt");
    test_write_file("lm/tl/sizes.h", "#define SIZE 16\n/* two */\n"
                    "/* three */\n");
    const char *in = test_write_file("lm/tl/broken.cl",
        "/* a kernel with a mistake on line 7 */\n"
        "#include \"sizes.h\"\n"
        "__kernel void k(__global int *g)\n"
        "{\n"
        "    __local int *a = local_malloc(SIZE);\n"
        "    a[0] = 1;\n"
        "    g[0] = a[0] + undeclared_name;\n"
        "    local_free(SIZE);\n"
        "}\n");
    ck_assert_int_eq(test_run("%s %s > /dev/null 2> %s", tool, in, said), 1);
    char *text = read_text(said);
    ck_assert_msg(strstr(text, "lm/tl/broken.cl:7:19: error: use of "
                         "undeclared identifier 'undeclared_name'"), "%s",
                  text);
    free(text);
    /* A compiler error, a refusal and a warning in a header. */
    const char *headers[][3] = {
        {"/* a header with a mistake on line 3 */\n"
         "int helper(int x)\n"
         "{ return 2 * x + not_declared; }\n",
         "lm/tl/helper.h:3:18: error: use of undeclared identifier "
         "'not_declared'", ""},
        {"/* a size that is not constant, on line 4 */\n"
         "int helper(int x)\n"
         "{\n"
         "    __local int *t = local_malloc(x);\n"
         "    local_free(4);\n"
         "    return 0;\n"
         "}\n",
         "lm/tl/helper.h:4: the size of local_malloc is not a compile-time "
         "constant: `x`", ""},
        {"/* a block left live, made on line 4 */\n"
         "int helper(int x)\n"
         "{\n"
         "    __local int *t = local_malloc(8);\n"
         "    return x;\n"
         "}\n",
         "lm/tl/helper.h:5: warning: helper returns with local_malloc(8) at ",
         "lm/tl/helper.h:4 still live: it stays allocated until the kernel "
         "ends"},
    };
    in = test_write_file("lm/tl/includer.cl",
        "#include \"helper.h\"\n"
        "__kernel void k(__global int *g)\n"
        "{\n"
        "    g[0] = helper(g[1]);\n"
        "}\n");
    char in_path[512];
    snprintf(in_path, sizeof in_path, "%s", in);
    for (int i = 0; i < 3; i++) {
        test_write_file("lm/tl/helper.h", headers[i][0]);
        ck_assert_int_eq(test_run("%s %s > /dev/null 2> %s", tool, in_path,
                                  said), i == 2 ? 0 : 1);
        text = read_text(said);
        ck_assert_msg(strstr(text, headers[i][1]), "%s", text);
        ck_assert_msg(strstr(text, headers[i][2]), "%s", text);
        ck_assert_msg(!strstr(text, "includer.cl:"), "%s", text);
        free(text);
    }
}
END_TEST

START_TEST(without_libclang_the_message_names_the_package)
{
    const char *in = test_write_file("lm/alone.cl",
        "__kernel void k(__global int *g) { __local int *a = "
        "local_malloc(4); local_free(4); }\n");
    const char *report = test_tmp_path("lm", "nolib.txt");
    ck_assert_int_eq(test_run("CLFRAME_LIBCLANG=/no/libclang.so.1 %s %s > %s"
                              " 2>&1", test_program("clframe-local-malloc"),
                              in, report), 1);
    char *text = read_text(report);
    ck_assert_msg(strstr(text, "install libclang-dev"), "%s", text);
    free(text);
}
END_TEST

/* ---- the program cache -------------------------------------------------------- */

static const char *cached_source =
    "__kernel void k(__global int *g) {\n"
    "  __local int *a = local_malloc(2 * sizeof(int));\n"
    "  a[get_local_id(0) % 2] = 7; barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  g[get_global_id(0)] = a[0] + a[1];\n"
    "  local_free(2 * sizeof(int)); }\n";

/* In a process of its own: builds and runs the kernel, then exits with
 * 1 + the rewrites made, and 10 more if libclang is in the process (it
 * never should be: it runs in a child of the rewrite's own). */
static int build_and_report(void)
{
    clctx *ctx = clctx_new(NULL);
    clkernel *k = ctx ? clkernel_source(ctx, cached_source, "k", NULL) : NULL;
    int g[4] = {0};
    if (!k || clkernel_global(k, 4) || clkernel_local(k, 2) ||
        clkernel_call(k, CLARG_OUT(g, 4)) || g[3] != 14)
        return 100;
    int status = 1 + (int)ctx->local_malloc_rewrites;
    /* libclang-14.so.14.0.6, not PoCL's libclang-cpp.so.14 */
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[4096];
    int loaded = 0;
    while (maps && fgets(line, sizeof line, maps))
        for (const char *p = line; (p = strstr(p, "libclang-")); p++)
            loaded |= p[9] >= '0' && p[9] <= '9';
    if (maps)
        fclose(maps);
    status += loaded ? 10 : 0;
    clkernel_free(k);
    clctx_free(ctx);
    return status;
}

START_TEST(a_cached_build_does_not_load_libclang)
{
    if (test_run_apart("localmalloc", "cache"))
        return;
    /* No device has been opened in this process: each build runs in a
     * fork of it, the first filling an empty cache, the second reading it. */
    char home[512];
    snprintf(home, sizeof home, "%s/lm-cache-XXXXXX", test_tmpdir());
    ck_assert_ptr_nonnull(mkdtemp(home));
    setenv("XDG_CACHE_HOME", home, 1);
    unsetenv("CLFRAME_CACHE");
    unsetenv("CL_DEBUG");
    for (int run = 0; run < 2; run++) {
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0)
            _exit(build_and_report());
        int status;
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        ck_assert(WIFEXITED(status));
        /* first: rewritten once; then, from the cache, not at all. */
        ck_assert_int_eq(WEXITSTATUS(status), run == 0 ? 1 + 1 : 1);
    }
}
END_TEST

/* The rewrite alone (the arena, refusals and tool cases) runs no kernel,
 * and valgrind's run leaves it out ("no-valgrind", its CK_EXCLUDE_TAGS in
 * the Makefile): libclang would parse under valgrind in every rewrite's
 * child for minutes. The ASan/UBSan run and Oclgrind's check its memory. */
Suite *localmalloc_suite(void)
{
    Suite *s = suite_create("localmalloc");
    TCase *tc = test_case("run");
    tcase_add_test(tc, live_blocks_never_overlap_and_are_aligned);
    tcase_add_test(tc, overloads_get_each_their_own_frame);
    tcase_add_test(tc, long_names_are_told_apart);
    tcase_add_test(tc, the_guards_see_a_block_past_the_arena);
    tcase_add_test(tc, clfunction_calls_a_function_that_allocates);
    tcase_add_test(tc, a_refusal_fails_the_build_with_its_line);
    tcase_add_test(tc, a_block_a_function_returns_stays_its_own);
    tcase_add_test(tc, the_seeds_test0_builds_with_its_declarations);
    tcase_add_test(tc, rewrite_errors_name_the_users_file_and_line);
    suite_add_tcase(s, tc);
    tc = test_case("cache");
    tcase_add_test(tc, a_cached_build_does_not_load_libclang);
    suite_add_tcase(s, tc);
    tc = test_case("arena");
    tcase_set_tags(tc, "no-valgrind");
    tcase_add_test(tc, nested_calls_add_up);
    tcase_add_test(tc, sequential_allocations_reuse_bytes);
    tcase_add_test(tc, branches_take_the_larger);
    tcase_add_test(tc, one_function_two_kernels);
    tcase_add_test(tc, prototypes_and_parameter_lists);
    tcase_add_test(tc, the_rewrite_keeps_every_line);
    tcase_add_test(tc, blocks_left_live_stay_until_the_kernel_ends);
    tcase_add_test(tc, an_early_return_ends_its_path);
    tcase_add_test(tc, the_sources_own_declarations_are_accepted);
    tcase_add_test(tc, the_seeds_kernels_go_through);
    suite_add_tcase(s, tc);
    tc = test_case("refusals");
    tcase_set_tags(tc, "no-valgrind");
    tcase_add_test(tc, refuses_sizes_not_constant);
    tcase_add_test(tc, refuses_sizes_out_of_range);
    tcase_add_test(tc, refuses_recursion);
    tcase_add_test(tc, refuses_frees_that_do_not_match);
    tcase_add_test(tc, refuses_frees_of_blocks_left_live);
    tcase_add_test(tc, refuses_declarations_that_do_not_fit);
    tcase_add_test(tc, refuses_loops_that_keep_blocks);
    tcase_add_test(tc, refuses_branches_and_conditions_that_differ);
    tcase_add_test(tc, refuses_calls_through_macros);
    tcase_add_test(tc, macros_that_use_an_argument_twice);
    tcase_add_test(tc, a_call_at_the_bodys_first_byte);
    tcase_add_test(tc, refuses_allocations_that_are_not_evaluated);
    tcase_add_test(tc, a_variable_of_the_name_is_the_sources_own);
    tcase_add_test(tc, refuses_arenas_larger_than_the_device);
    tcase_add_test(tc, refuses_sources_that_do_not_parse);
    tcase_add_test(tc, a_source_that_crashes_libclang_is_an_error);
    tcase_add_test(tc, sources_without_local_malloc_are_left_alone);
    tcase_add_test(tc, the_childs_answer_is_read_whole_or_not_at_all);
    suite_add_tcase(s, tc);
    tc = test_case("tool");
    tcase_set_tags(tc, "no-valgrind");
    tcase_add_test(tc, the_tool_rewrites_reports_and_refuses);
    tcase_add_test(tc, the_tool_writes_its_output_as_every_output);
    tcase_add_test(tc, the_tool_names_the_users_file_and_line);
    tcase_add_test(tc, without_libclang_the_message_names_the_package);
    suite_add_tcase(s, tc);
    return s;
}
