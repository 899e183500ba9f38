/*
 * test_preproc.c: prototypes and typedefs read from the source as the
 * device compiler's preprocessor leaves it (clframe/source/preproc.c): #if,
 * #ifdef, #elif, #else, #define, #undef, the build's -D and -U, the
 * device's own macros, macros in a prototype; the reader and the compiler
 * agree on every predefined macro; every error names its file and line and
 * still makes the function, for clfunction_proto; hostile sources end in
 * a message, never a crash or a hang; the preprocessor itself is text
 * alone, run here on a made-up device without OpenCL.
 */
#include "support.h"
#include "internal.h"           /* clf_preprocess, text alone */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A clfunction that must be made, whatever its source. */
static clfunction *made(const char *source, const char *name,
                        const char *options)
{
    clfunction *f = clfunction_source(NULL, source, name, options);
    ck_assert_msg(f != NULL, "%s: %s", name, clframe_last_error());
    return f;
}

static int device_has(const char *extension)
{
    char list[8192] = "";
    clGetDeviceInfo(clctx_device(NULL), CL_DEVICE_EXTENSIONS, sizeof list - 1,
                    list, NULL);
    return strstr(list, extension) != NULL;
}

/* ---- what the device compiles is what is read ---------------------------- */

/* A header read by both compilers: only the device's declaration counts,
 * whether it comes first or not. */
START_TEST(device_and_host_declarations)
{
    test_write_file("preproc/twice.h",
        "#ifdef __OPENCL_VERSION__\nint twice(int x);\n#else\n"
        "long twice(long x);\n#endif\n"
        "#ifndef __OPENCL_VERSION__\nlong thrice(long x); /* the host's */\n"
        "#else\nint thrice(int x);\n#endif\n");
    const char *path = test_write_file("preproc/twice.cl",
        "#include \"twice.h\"\n"
        "int twice(int x) { return 2 * x; }\n"
        "int thrice(int x) { return 3 * x; }\n"
        "#if __OPENCL_VERSION__ < 120\n"
        "int pick(int a, int b) { return a + b; }\n"
        "#else\n"
        "int pick(int a) { return 100 + a; }\n"
        "#endif\n");
    char copy[512];
    snprintf(copy, sizeof copy, "%s", path);
    static const struct {
        const char *name, *prototype;
        int arg, result;
    } calls[] = {
        {"twice", "int twice(int x)", 21, 42},
        {"thrice", "int thrice(int x)", 5, 15},
        {"pick", "int pick(int a)", 5, 105},
    };
    for (size_t i = 0; i < sizeof calls / sizeof *calls; i++) {
        clfunction *f = clfunction_file(NULL, copy, calls[i].name, NULL);
        ck_assert_made(f);
        ck_assert_str_eq(clfunction_prototype(f), calls[i].prototype);
        int r = 0;
        ck_assert_cl(clfunction_call(f, &r, CLARG(calls[i].arg)));
        ck_assert_int_eq(r, calls[i].result);
        clfunction_free(f);
    }
}
END_TEST

/* The device's extensions are defined, a made-up one is not. */
START_TEST(extensions_are_the_devices)
{
    const char *src =
        "#ifdef cl_khr_fp64\n"
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
        "#endif\n"
        "#if defined(cl_clframe_made_up)\n"
        "int half_of(int a, int b) { return a + b; }\n"
        "#elif defined(cl_khr_fp64)\n"
        "double half_of(double x) { return x / 2; }\n"
        "#else\n"
        "float half_of(float x) { return x / 2; }\n"
        "#endif\n";
    clfunction *f = made(src, "half_of", NULL);
    if (device_has("cl_khr_fp64")) {
        ck_assert_str_eq(clfunction_prototype(f), "double half_of(double x)");
        double r = 0;
        ck_assert_cl(clfunction_call(f, &r, CLARG(5.0)));
        ck_assert(r == 2.5);
    } else {
        ck_assert_str_eq(clfunction_prototype(f), "float half_of(float x)");
        float r = 0;
        ck_assert_cl(clfunction_call(f, &r, CLARG(5.0f)));
        ck_assert(r == 2.5f);
    }
    clfunction_free(f);
}
END_TEST

/* -D NAME, -DNAME=VALUE, -D NAME=VALUE and -U, as the build gets them
 * (PoCL refuses -U, which OpenCL does not name: those are only read). */
START_TEST(options_define_and_undefine)
{
    const char *src =
        "#ifndef WIDE\n"
        "int w(int x) { return x; }\n"
        "#elif N > 2\n"
        "long w(long x, long y) { return x + y; }\n"
        "#else\n"
        "long w(long x) { return 10 * x; }\n"
        "#endif\n";
    static const struct {
        const char *options, *prototype;
        long result;                    /* of w(4) or w(4, 5); 0: no call */
    } cases[] = {
        {NULL, "int w(int x)", 4},
        {"-DWIDE=1", "long w(long x)", 40},
        {"-D WIDE", "long w(long x)", 40},
        {"-D WIDE -DN=3", "long w(long x, long y)", 9},
        {"-DWIDE -D N=2", "long w(long x)", 40},
        {"-DWIDE -DN=3 -UWIDE", "int w(int x)", 0},
        {"-DWIDE -DN=3 -U N", "long w(long x)", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        clfunction *f = made(src, "w", cases[i].options);
        ck_assert_msg(strcmp(clfunction_prototype(f), cases[i].prototype) == 0,
                      "%s: read \"%s\"", cases[i].options,
                      clfunction_prototype(f));
        if (!cases[i].result)
            goto next;
        if (strstr(cases[i].prototype, "int w")) {
            int r = 0;
            ck_assert_cl(clfunction_call(f, &r, CLARG(4)));
            ck_assert_int_eq(r, cases[i].result);
        } else {
            cl_long r = 0;
            if (strstr(cases[i].prototype, "y)"))
                ck_assert_cl(clfunction_call(f, &r, CLARG((cl_long)4),
                                             CLARG((cl_long)5)));
            else
                ck_assert_cl(clfunction_call(f, &r, CLARG((cl_long)4)));
            ck_assert_int_eq(r, cases[i].result);
        }
    next:
        clfunction_free(f);
    }
}
END_TEST

/* #undef, #elif inside #elif, and macros in the prototype's own text:
 * object-like ones and simple function-like ones. */
START_TEST(undef_nesting_and_macros_in_prototypes)
{
    const char *src =
        "#define REAL float\n"
        "REAL twice(REAL x) { return 2 * x; }\n"
        "#undef REAL\n"
        "#ifdef REAL\n"
        "int gone(int a, int b) { return a + b; }\n"
        "#else\n"
        "int gone(int a) { return a; }\n"
        "#endif\n"
        "#define LEVEL 2\n"
        "#if LEVEL == 1\n"
        "int nested(int a, int b, int c) { return a; }\n"
        "#elif LEVEL == 2\n"
        "#  if defined LEVEL && !defined(REAL)\n"
        "int nested(int a) { return a + 2; }\n"
        "#  else\n"
        "int nested(int a, int b) { return a; }\n"
        "#  endif\n"
        "#else\n"
        "int nested(void) { return 0; }\n"
        "#endif\n"
        "#define DECLARE(name, T) T name(T v)\n"
        "DECLARE(square, int) { return v * v; }\n";
    clfunction *f = made(src, "twice", NULL);
    ck_assert_str_eq(clfunction_prototype(f), "float twice(float x)");
    float x = 0;
    ck_assert_cl(clfunction_call(f, &x, CLARG(2.5f)));
    ck_assert(x == 5.0f);
    clfunction_free(f);

    f = made(src, "gone", NULL);
    ck_assert_str_eq(clfunction_prototype(f), "int gone(int a)");
    clfunction_free(f);

    f = made(src, "nested", NULL);
    ck_assert_str_eq(clfunction_prototype(f), "int nested(int a)");
    int r = 0;
    ck_assert_cl(clfunction_call(f, &r, CLARG(40)));
    ck_assert_int_eq(r, 42);
    clfunction_free(f);

    f = made(src, "square", NULL);
    ck_assert_str_eq(clfunction_prototype(f), "int square(int v)");
    ck_assert_cl(clfunction_call(f, &r, CLARG(7)));
    ck_assert_int_eq(r, 49);
    clfunction_free(f);
}
END_TEST

/* A kernel's typedef chosen by #if is the one its parameters take. */
START_TEST(kernel_typedefs_follow_the_conditions)
{
    const char *src =
        "#ifdef USE_DOUBLE\n"
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
        "typedef double real;\n"
        "#else\n"
        "typedef float real;\n"
        "#endif\n"
        "__kernel void scale(__global real *x, real s, int n)\n"
        "{\n"
        "    int i = get_global_id(0);\n"
        "    if (i < n) x[i] *= s;\n"
        "}\n";
    clkernel *k = clkernel_source(NULL, src, "scale", NULL);
    ck_assert_made(k);
    float x[4] = {1, 2, 3, 4};
    clkernel_global(k, 4);
    ck_assert_cl(clkernel_call(k, CLARG_INOUT(x, 4), CLARG(2.0f), CLARG(4)));
    ck_assert(x[3] == 8.0f);
    clkernel_free(k);
    if (!device_has("cl_khr_fp64"))
        return;
    k = clkernel_source(NULL, src, "scale", "-DUSE_DOUBLE");
    ck_assert_made(k);
    double d[4] = {1, 2, 3, 4};
    clkernel_global(k, 4);
    ck_assert_cl(clkernel_call(k, CLARG_INOUT(d, 4), CLARG(2.0), CLARG(4)));
    ck_assert(d[3] == 8.0);
    clkernel_free(k);
}
END_TEST

/* ---- the reader and the compiler agree ----------------------------------- */

/* Each condition is evaluated twice: by the device's compiler, in the body
 * of probe (bit i of its result), and by clframe's reader, which chooses
 * parameter i's type (int when true, float when false). */
static const char *const conditions[] = {
    "defined(__OPENCL_VERSION__) && __OPENCL_VERSION__ >= 110",
    "__OPENCL_VERSION__ >= 120",
    "__OPENCL_VERSION__ >= 200",
    "__OPENCL_VERSION__ >= 300",
    "__OPENCL_C_VERSION__ >= 110",
    "__OPENCL_C_VERSION__ >= 120",
    "__OPENCL_C_VERSION__ >= 200",
    "__OPENCL_C_VERSION__ >= 300",
    "CL_VERSION_1_0 == 100 && CL_VERSION_1_1 == 110 && CL_VERSION_1_2 == 120",
    "CL_VERSION_2_0 == 200 && CL_VERSION_3_0 == 300",
    "defined __ENDIAN_LITTLE__",
    "defined(__IMAGE_SUPPORT__)",
    "defined(cl_khr_fp64)",
    "defined(cl_khr_global_int32_base_atomics)",
    "defined(cl_clframe_made_up)",
    "defined(__opencl_c_fp64)",
    "defined(__opencl_c_images)",
    "defined(__FAST_RELAXED_MATH__)",
    "defined(WIDE) && WIDE == 2",
    "true && !false",
    "-1 > 0u",
    "10 / 3 == 3 && -7 % 3 == -1 && -7 / 2 == -3",
    "(1 ? 2 : 3) == 2 && (0 ? 1 : 0u - 1) > 0",
    "~0 == -1 && (1 << 4) == 16 && (-16 >> 2) == -4",
    "0 && 1 / 0",
    "017 == 15 && 0x1F == 31 && 10UL == 10 && 5ll == 5",
    "UNDEFINED_NAME == 0 && !UNDEFINED_NAME",
};
enum { NCONDITIONS = sizeof conditions / sizeof *conditions };

static char *probe_source(void)
{
    static char text[16384];
    int n = snprintf(text, sizeof text, "int probe(\n");
    for (int i = 0; i < NCONDITIONS; i++)
        n += snprintf(text + n, sizeof text - (size_t)n,
                      "#if %s\n    int p%d,\n#else\n    float p%d,\n#endif\n",
                      conditions[i], i, i);
    n += snprintf(text + n, sizeof text - (size_t)n,
                  "    int last)\n{\n    int m = 0;\n");
    for (int i = 0; i < NCONDITIONS; i++)
        n += snprintf(text + n, sizeof text - (size_t)n,
                      "#if %s\n    m |= 1 << %d;\n#endif\n", conditions[i], i);
    snprintf(text + n, sizeof text - (size_t)n,
             "    return m + 0 * last;\n}\n");
    return text;
}

static void check_agreement(const char *options)
{
    clfunction *f = made(probe_source(), "probe", options);
    const char *proto = clfunction_prototype(f);
    int read = 0;
    clarg args[NCONDITIONS + 1];
    for (int i = 0; i < NCONDITIONS; i++) {
        char word[32];
        snprintf(word, sizeof word, "int p%d,", i);
        int yes = strstr(proto, word) != NULL;
        read |= yes << i;
        args[i] = yes ? CLARG((cl_int)0) : CLARG(0.0f);
    }
    args[NCONDITIONS] = CLARG((cl_int)0);
    int compiled = -1;
    ck_assert_cl(clfunction_call_args(f, &compiled, "int", sizeof compiled,
                                      NCONDITIONS + 1, args));
    for (int i = 0; i < NCONDITIONS; i++)
        ck_assert_msg(((read ^ compiled) >> i & 1) == 0, "options \"%s\": "
                      "#if %s is %d on the device, %d for clframe's reader",
                      options ? options : "", conditions[i],
                      compiled >> i & 1, read >> i & 1);
    clfunction_free(f);
}

START_TEST(the_reader_agrees_with_the_compiler)
{
    check_agreement(NULL);
    check_agreement("-cl-std=CL1.2 -DWIDE=2");
    check_agreement("-cl-fast-relaxed-math -DWIDE=3");
    char version[256] = "";
    clGetDeviceInfo(clctx_device(NULL), CL_DEVICE_VERSION, sizeof version - 1,
                    version, NULL);
    if (strncmp(version, "OpenCL 3", 8) == 0)
        check_agreement("-cl-std=CL3.0");
}
END_TEST

/* ---- errors -------------------------------------------------------------- */

/* The function is made, and its calls fail with a message containing why
 * and pointing to clfunction_proto; or, why NULL, its prototype is read. */
static void check_reading(const char *source, const char *options,
                          const char *why)
{
    clfunction *f = made(source, "f", options);
    if (why) {
        int rc = clfunction_call(f, NULL);
        ck_assert_msg(rc != 0 && strstr(clframe_last_error(), why) &&
                      strstr(clframe_last_error(), "clfunction_proto"),
                      "%.60s: wanted \"%s\", got %d: %s", source, why, rc,
                      clframe_last_error());
    } else {
        ck_assert_msg(strcmp(clfunction_prototype(f), "int f(int x)") == 0,
                      "%.60s: read \"%s\": %s", source,
                      clfunction_prototype(f), clframe_last_error());
    }
    clfunction_free(f);
}

START_TEST(errors_name_file_and_line)
{
    static const struct {
        const char *source, *why;
    } cases[] = {
        {"int f(int x) { return x; }\n#if 1\nint g(int y) { return y; }\n",
         "source of f:2: unterminated #if"},
        {"int f(int x) { return x; }\n#else\n",
         "source of f:2: #else without #if"},
        {"int f(int x) { return x; }\n#endif\n",
         "source of f:2: #endif without #if"},
        {"#if 1\n#else\n#elif 1\n#endif\n", "source of f:3: #elif after #else"},
        {"#if 1\n#else\n#else\n#endif\n", "source of f:3: #else after #else"},
        {"/* one */\n#if 1 / (2 - 2)\nint f(int x) { return x; }\n#endif\n",
         "source of f:2: #if: division by zero"},
        {"#if 0\n#elif 5 % 0\n#endif\n",
         "source of f:2: #if: division by zero"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        check_reading(cases[i].source, NULL, cases[i].why);

    char deep[1024] = "";
    for (int i = 0; i < 65; i++)
        strcat(deep, "#if 1\n");
    check_reading(deep, NULL, "source of f:65: #if nested more than 64 deep");

    /* In a header: its own name and line. */
    test_write_file("preproc/open.h", "int h(int x);\n\n#ifdef H_DONE\n");
    const char *path = test_write_file("preproc/open.cl",
                                       "#include \"open.h\"\n"
                                       "int f(int x) { return x; }\n");
    clfunction *f = clfunction_file(NULL, path, "f", NULL);
    ck_assert_made(f);
    ck_assert_fails(clfunction_call(f, NULL), CLFRAME_ERR_USAGE,
                    "preproc/open.h:3: unterminated #if");
    clfunction_free(f);
}
END_TEST

/* What clframe cannot read, clfunction_proto supplies, and then it runs. */
START_TEST(unreadable_prototypes_are_given_by_hand)
{
    clfunction *f = made("#define PARAM(n) int p##n\n"
                         "int f(PARAM(x), int y)\n{ return y + 1; }\n", "f",
                         NULL);
    int r = 0;
    ck_assert_fails(clfunction_call(f, &r, CLARG(1), CLARG(2)),
                    CLFRAME_ERR_USAGE, "parameter 1: cannot read");
    ck_assert_ptr_nonnull(strstr(clframe_last_error(), "clfunction_proto"));
    ck_assert_cl(clfunction_proto(f, "int f(int x, int y)"));
    ck_assert_cl(clfunction_call(f, &r, CLARG(1), CLARG(2)));
    ck_assert_int_eq(r, 3);
    clfunction_free(f);

    /* Pasting in #if is beyond the reader, not the compiler. */
    f = made("#define CAT(a, b) a##b\n#define V12 1\n#if CAT(V, 12)\n"
             "int f(int x) { return x + 1; }\n#endif\n", "f", NULL);
    ck_assert_fails(clfunction_call(f, &r, CLARG(1)), CLFRAME_ERR_USAGE,
                    "source of f:3: #if: the macro CAT uses # or ##");
    ck_assert_ptr_nonnull(strstr(clframe_last_error(),
                                 "clfunction_proto can supply the prototype"));
    ck_assert_cl(clfunction_proto(f, "int f(int x)"));
    ck_assert_cl(clfunction_call(f, &r, CLARG(1)));
    ck_assert_int_eq(r, 2);
    clfunction_free(f);

    /* A pasting macro's line without its ';' hides only what it pastes:
     * the next function is read, and no function the message lists is
     * one it says is missing. */
    const char *pasted = "#define MAKE(name) float name##_f(float x) "
                         "{ return 3 * x; }\n"
                         "MAKE(tripled)\n"
                         "float fill(float x) { return x + 1; }\n";
    f = made(pasted, "fill", NULL);
    ck_assert_str_eq(clfunction_prototype(f), "float fill(float x)");
    float got = 0;
    ck_assert_cl(clfunction_call(f, &got, CLARG(2.0f)));
    ck_assert(got == 3.0f);
    clfunction_free(f);
    f = made(pasted, "tripled_f", NULL);
    ck_assert_fails(clfunction_call(f, &got, CLARG(2.0f)),
                    CLFRAME_ERR_NOT_FOUND, "no prototype of tripled_f found "
                    "in the source (its functions: fill;");
    ck_assert_cl(clfunction_proto(f, "float tripled_f(float x)"));
    ck_assert_cl(clfunction_call(f, &got, CLARG(2.0f)));
    ck_assert(got == 6.0f);
    clfunction_free(f);

    /* Headers in text not compiled are not listed as unread. */
    f = made("#ifndef __OPENCL_VERSION__\n#include <stdio.h>\n#endif\n"
             "#include <nothere.h>\nfloat g(float x) { return x; }\n", "h",
             NULL);
    ck_assert_fails(clfunction_call(f, NULL), CLFRAME_ERR_NOT_FOUND,
                    "(its functions: g; headers not found, so not read: "
                    "<nothere.h>;");
    clfunction_free(f);
}
END_TEST

/* ---- hostile sources ----------------------------------------------------- */

static char *repeated(const char *head, const char *part, int times,
                      const char *tail)
{
    size_t n = strlen(head) + strlen(part) * (size_t)times + strlen(tail) + 1;
    char *s = malloc(n);
    ck_assert_ptr_nonnull(s);
    strcpy(s, head);
    char *p = s + strlen(s);
    for (int i = 0; i < times; i++, p += strlen(part))
        memcpy(p, part, strlen(part));
    strcpy(p, tail);
    return s;
}

START_TEST(hostile_sources_end_in_a_message)
{
    static const struct {
        const char *source, *options, *why;     /* why NULL: int f(int x) */
    } cases[] = {
        {"#define A A\nint f(int x) { return A; }\n", NULL, NULL},
        {"#define A B\n#define B A\n#if A\nint f(int a, int b);\n#else\n"
         "int f(int x);\n#endif\n", NULL, NULL},
        {"#define F(x) F(x) F(x)\nint y = F(F(F(1)));\nint f(int x);\n", NULL,
         NULL},
        {"#define F(a b) a\nint y = F(1);\nint f(int x);\n", NULL, NULL},
        {"#define F(x) x\n#if F(1\n#endif\n", NULL, "do not end on its line"},
        {"#define F(x) x\n#if F(1, 2)\n#endif\n", NULL,
         "wrong number of arguments"},
        {"#define F(\n", NULL, "no ')' ends its parameters"},
        {"#if\n#endif\n", NULL, "#if: an operand is missing"},
        {"#if 1 +\n#endif\n", NULL, "#if: an operand is missing"},
        {"#ifdef\n#endif\n", NULL, "#ifdef without a macro name"},
        {"#define\n", NULL, "#define without a macro name"},
        {"#if 99999999999999999999\n#endif\n", NULL, "is too large"},
        {"#if 0x\n#endif\n", NULL, "\"0x\" is not an integer"},
        {"#if 1.5\n#endif\n", NULL, "\"1.5\" is not an integer"},
        {"#if 1 ? 2\n#endif\n", NULL, "'?' without ':'"},
        {"#if (1\n#endif\n", NULL, "a ')' is missing"},
        {"#if 1 2\n#endif\n", NULL, "unexpected \"2\" after the expression"},
        {"#if 'a'\n#endif\n", NULL, "character constants are not read"},
        {"#if defined(\n#endif\n", NULL, "\"defined\" without a macro name"},
        {"#define X defined(Y)\n#if X\n#endif\n", NULL, "#if:"},
        {"int f(int x);\n", "-D", "the build options: -D without a macro name"},
        {"int f(int x);\n", "-U=1", "-U without a macro name"},
        {"#line\n#line 99999999999999999999 \"x\n#if\n", NULL, "#if:"},
        {"#if (-9223372036854775807 - 1) / -1 < 0 && "
         "(-9223372036854775807 - 1) % -1 == 0 && (1 << 64) == 0 && "
         "(1 >> -1) == 0 && (-1 << 3) == -8 && -(-9223372036854775807 - 1) < 0"
         " && (-1 >> 99) == -1\nint f(int x);\n#else\nint f(int a, int b);\n"
         "#endif\n", NULL, NULL},
        {"/* never closed\nint f(int x);\n", NULL, "no prototype of f"},
        {"#if 0\n#if 1 / 0\n#elif (\n#else\n#endif\n#endif\nint f(int x);\n",
         NULL, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        check_reading(cases[i].source, cases[i].options, cases[i].why);

    char *s = repeated("", "#if 1\n", 10000, "int f(int x);\n");
    check_reading(s, NULL, "#if nested more than 64 deep");
    free(s);
    s = repeated("#if ", "(", 10000, "1");
    char *t = repeated(s, ")", 10000, "\nint f(int x);\n#endif\n");
    check_reading(t, NULL, "#if: the expression is nested more than 256 deep");
    free(s);
    free(t);
    s = repeated("#if ", "- ", 10000, "1\n#endif\n");
    check_reading(s, NULL, "nested more than 256 deep");
    free(s);
    s = repeated("#if ", "1 + ", 100000, "1\n#endif\n");
    check_reading(s, NULL, "a line of more than 262144 characters");
    free(s);
    /* 2^20 copies of x, if nothing stopped it. */
    char doubling[4096] = "#define B0 x\n";
    for (int i = 1; i <= 20; i++)
        snprintf(doubling + strlen(doubling), 64, "#define B%d B%d B%d\n", i,
                 i - 1, i - 1);
    strcat(doubling, "B20\nint f(int x);\n");
    check_reading(doubling, NULL, "a line expands to more than 262144");
    char chain[4096] = "";
    for (int i = 0; i < 100; i++)
        snprintf(chain + strlen(chain), 64, "#define A%d A%d\n", i, i + 1);
    strcat(chain, "A0 int f(int x);\n");
    check_reading(chain, NULL, "macros expand inside each other more than 32");
}
END_TEST

/* ---- text alone ------------------------------------------------------------ */

/* The view of source for a made-up device's macros; the caller frees it. */
static char *view_of(const clf_device_macros *device, const char *source,
                     const char *options)
{
    char *view = NULL;
    int rc = clf_preprocess(device, source, options, &view);
    ck_assert_msg(rc == 0, "%s", clframe_last_error());
    ck_assert_ptr_nonnull(view);
    return view;
}

/* The preprocessor asks OpenCL nothing: a device described by hand (no
 * context is made) decides every predefined macro, and the build's
 * -cl-std is the C version when the device's versions are given. */
START_TEST(the_device_is_handed_in)
{
    const char *source =
        "#if defined(__ENDIAN_LITTLE__) && defined(cl_made_up_ext)\n"
        "int little;\n#endif\n"
        "#ifdef __IMAGE_SUPPORT__\nint images;\n#endif\n"
        "#if __OPENCL_C_VERSION__ >= 300 && defined(__opencl_c_made_up)\n"
        "int three;\n#elif __OPENCL_C_VERSION__ == 120\nint one_two;\n"
        "#endif\n";
    char extensions[] = "cl_khr_fp64 cl_made_up_ext";
    char features[] = "__opencl_c_made_up";
    clf_device_macros device = {.little_endian = 1, .extensions = extensions,
                                .features = features, .opencl_version = 300,
                                .c_version = 300};
    char *view = view_of(&device, source, NULL);
    ck_assert_ptr_nonnull(strstr(view, "int little;"));
    ck_assert_ptr_null(strstr(view, "int images;"));
    ck_assert_ptr_nonnull(strstr(view, "int three;"));
    free(view);
    view = view_of(&device, source, "-cl-std=CL1.2");
    ck_assert_ptr_nonnull(strstr(view, "int one_two;"));
    ck_assert_ptr_null(strstr(view, "int three;"));
    free(view);
    clf_device_macros plain = {.images = 1, .opencl_version = 120,
                               .c_version = 120};
    view = view_of(&plain, source, NULL);
    ck_assert_ptr_null(strstr(view, "int little;"));
    ck_assert_ptr_nonnull(strstr(view, "int images;"));
    ck_assert_ptr_nonnull(strstr(view, "int one_two;"));
    free(view);
}
END_TEST

static int fast_math_undefined(void *arg)
{
    (*(int *)arg)++;
    return 0;
}

/* -cl-fast-relaxed-math defines __FAST_RELAXED_MATH__ as the device's
 * compiler does: asked of the device once the options have it (Oclgrind's
 * compiler does not define it), as the specification says if not asked. */
START_TEST(fast_math_macro_is_the_devices)
{
    const char *source = "#ifdef __FAST_RELAXED_MATH__\nint fast;\n#endif\n";
    int asked = 0;
    clf_device_macros device = {.opencl_version = 120, .c_version = 120,
                                .fast_math = fast_math_undefined,
                                .arg = &asked};
    char *view = view_of(&device, source, "-cl-fast-relaxed-math");
    ck_assert_ptr_null(strstr(view, "int fast;"));
    ck_assert_int_eq(asked, 1);
    free(view);
    view = view_of(&device, source, "-DX=1");
    ck_assert_int_eq(asked, 1);
    free(view);
    clf_device_macros plain = {.opencl_version = 120, .c_version = 120};
    view = view_of(&plain, source, "-cl-fast-relaxed-math");
    ck_assert_ptr_nonnull(strstr(view, "int fast;"));
    free(view);
}
END_TEST

Suite *preproc_suite(void)
{
    Suite *s = suite_create("preproc");
    TCase *reading = test_case("reading");
    tcase_add_test(reading, device_and_host_declarations);
    tcase_add_test(reading, extensions_are_the_devices);
    tcase_add_test(reading, options_define_and_undefine);
    tcase_add_test(reading, undef_nesting_and_macros_in_prototypes);
    tcase_add_test(reading, kernel_typedefs_follow_the_conditions);
    tcase_add_test(reading, the_reader_agrees_with_the_compiler);
    suite_add_tcase(s, reading);
    TCase *errors = test_case("errors");
    tcase_add_test(errors, errors_name_file_and_line);
    tcase_add_test(errors, unreadable_prototypes_are_given_by_hand);
    tcase_add_test(errors, hostile_sources_end_in_a_message);
    suite_add_tcase(s, errors);
    TCase *text = test_case("text");
    tcase_add_test(text, the_device_is_handed_in);
    tcase_add_test(text, fast_math_macro_is_the_devices);
    suite_add_tcase(s, text);
    return s;
}
