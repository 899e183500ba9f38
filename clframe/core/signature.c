/*
 * signature.c: parameter lists and the arguments given for them, shared by
 * kernels and device functions (whose prototypes clframe reads from the
 * source, proto.c): type names in one spelling, sizes of the built-in
 * types, matching rules and the words used in error messages.
 */
#include "core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Size of a built-in scalar or vector type by name ("float3" -> 16), or 0. */
size_t clf_builtin_size(const char *type)
{
    static const struct { const char *name; size_t size; } base[] = {
        {"char", 1}, {"uchar", 1}, {"short", 2}, {"ushort", 2}, {"int", 4},
        {"uint", 4}, {"long", 8}, {"ulong", 8}, {"float", 4}, {"double", 8},
        {"half", 2}, {"bool", 1}};
    for (size_t i = 0; i < sizeof base / sizeof base[0]; i++) {
        size_t n = strlen(base[i].name);
        if (strncmp(type, base[i].name, n) != 0)
            continue;
        const char *w = type + n;
        if (*w == '\0')
            return base[i].size;
        int width = atoi(w);
        if (width == 3)
            width = 4;          /* 3-vectors are stored as 4 */
        if (width == 2 || width == 4 || width == 8 || width == 16)
            return base[i].size * (size_t)width;
    }
    return 0;
}

/* C's spellings of an integer type ("unsigned long int", "signed char",
 * "short int", "unsigned") as OpenCL C's one word ("ulong", "char",
 * "short", "uint") into out; 0 if s is not made of those words alone. */
static int integer_words(const char *s, char *out, size_t size)
{
    int is_unsigned = 0, words = 0;
    const char *base = "int";
    while (*s) {
        size_t n = strcspn(s, " ");
        if (n == 6 && !strncmp(s, "signed", 6))
            ;
        else if (n == 8 && !strncmp(s, "unsigned", 8))
            is_unsigned = 1;
        else if (n == 3 && !strncmp(s, "int", 3))
            ;
        else if ((n == 4 && !strncmp(s, "char", 4)) ||
                 (n == 5 && !strncmp(s, "short", 5)) ||
                 (n == 4 && !strncmp(s, "long", 4)))
            base = n == 5 ? "short" : s[0] == 'c' ? "char" : "long";
        else
            return 0;
        words++;
        s += n;
        s += strspn(s, " ");
    }
    if (words == 0)
        return 0;
    snprintf(out, size, "%s%s", is_unsigned ? "u" : "", base);
    return 1;
}

/* Drivers and sources spell type names in different ways; bring them to
 * one: no "struct ", no qualifiers, no '*', "unsigned long int" as
 * "ulong". */
void clf_normalize_type(const char *raw, char *out, size_t size, int *ptr)
{
    char buf[512];
    size_t n = 0;
    *ptr = strchr(raw, '*') != NULL;
    for (const char *p = raw; *p && n + 1 < sizeof buf; p++)
        if (*p != '*')
            buf[n++] = *p;
    while (n && buf[n - 1] == ' ')
        n--;
    buf[n] = '\0';
    const char *s = buf;
    for (int again = 1; again;) {
        again = 0;
        static const char *drop[] = {"struct ", "const ", "volatile ",
                                     "union ", "enum "};
        for (size_t i = 0; i < sizeof drop / sizeof drop[0]; i++)
            if (strncmp(s, drop[i], strlen(drop[i])) == 0) {
                s += strlen(drop[i]);
                again = 1;
            }
    }
    if (!integer_words(s, out, size))
        snprintf(out, size, "%s", s);
}

cl_kernel_arg_address_qualifier clf_space_of_word(const char *w)
{
    if (*w == '_' && w[1] == '_')
        w += 2;
    return !strcmp(w, "global")     ? CL_KERNEL_ARG_ADDRESS_GLOBAL
           : !strcmp(w, "local")    ? CL_KERNEL_ARG_ADDRESS_LOCAL
           : !strcmp(w, "constant") ? CL_KERNEL_ARG_ADDRESS_CONSTANT
                                    : CL_KERNEL_ARG_ADDRESS_PRIVATE;
}

const char *clf_space_word(cl_kernel_arg_address_qualifier q)
{
    switch (q) {
    case CL_KERNEL_ARG_ADDRESS_GLOBAL: return "__global ";
    case CL_KERNEL_ARG_ADDRESS_CONSTANT: return "__constant ";
    case CL_KERNEL_ARG_ADDRESS_LOCAL: return "__local ";
    default: return "";
    }
}

int clf_is_image_type(const char *type)
{
    size_t n = strlen(type);
    return (strncmp(type, "image", 5) == 0 && n > 7 &&
            strcmp(type + n - 2, "_t") == 0) ||
           strcmp(type, "sampler_t") == 0;
}

static const char *access_word(cl_kernel_arg_access_qualifier a)
{
    switch (a) {
    case CL_KERNEL_ARG_ACCESS_READ_ONLY: return "read_only ";
    case CL_KERNEL_ARG_ACCESS_WRITE_ONLY: return "write_only ";
    case CL_KERNEL_ARG_ACCESS_READ_WRITE: return "read_write ";
    default: return "";
    }
}

/* "__global const float*", "Duo" as the source wrote it, "float" for a
 * typedef of float, "read_only image2d_t". */
void clf_describe_param(const clf_param *p, char *buf, size_t size)
{
    if (clf_is_image_type(p->type)) {
        snprintf(buf, size, "%s%s", access_word(p->access), p->type);
        return;
    }
    const char *shown = clf_builtin_size(p->type) || !p->written[0]
                            ? p->type : p->written;
    snprintf(buf, size, "%s%s%s%s", clf_space_word(p->space),
             p->is_const ? "const " : "", shown, p->pointer ? "*" : "");
}

void clf_describe_arg(const clarg *a, char *buf, size_t size)
{
    const char *t = a->type ? a->type : "an unnamed type";
    switch (a->kind) {
    case CLARG_KIND_SCALAR:
        snprintf(buf, size, "a value of type %s (%s)", t,
                 a->host ? "CLARG_VALUE" : "CLARG");
        break;
    case CLARG_KIND_BUFFER:
        snprintf(buf, size, "%s array of %s", a->flags & CLARG_EACH ?
                 "a per-work-item" : "an", t);
        break;
    case CLARG_KIND_LOCAL:
        snprintf(buf, size, "__local scratch (CLARG_LOCAL)");
        break;
    case CLARG_KIND_MEM:
        snprintf(buf, size, "a buffer (CLARG_BUFFER)");
        break;
    case CLARG_KIND_IMAGE:
        snprintf(buf, size, "an image (%s)", a->host ? "CLARG_IMAGE2D or 3D"
                                                     : "CLARG_IMAGE");
        break;
    case CLARG_KIND_SAMPLER:
        snprintf(buf, size, "a sampler (CLARG_SAMPLER)");
        break;
    default:
        snprintf(buf, size, "an empty clarg");
    }
}

/* Element or value types agree: the same type once the given name is
 * resolved as the parameter's was (typedef chains, "struct Pair" as "Pair",
 * a struct's typedef name as its tag), or float3 given a float4 (the host
 * has no distinct 3-vector type), or any type for void*. */
int clf_types_match(const clf_param *p, const char *given,
                    const clf_type_names *names)
{
    if (strcmp(p->type, given) == 0 || (p->pointer && strcmp(p->type, "void") == 0))
        return 1;
    char plain[128];
    int pointer;
    clf_normalize_type(given, plain, sizeof plain, &pointer);
    if (pointer)
        return 0;
    char resolved[128];
    if (names && names->resolve)
        names->resolve(names->names, plain, resolved, sizeof resolved);
    else
        clf_normalize_type(plain, resolved, sizeof resolved, &pointer);
    given = resolved;
    if (strcmp(p->type, given) == 0)
        return 1;
    size_t n = strlen(p->type);
    return n > 1 && p->type[n - 1] == '3' && strncmp(p->type, given, n - 1) == 0 &&
           strcmp(given + n - 1, "4") == 0;
}

int clf_arg_mismatch(const char *what, const char *name, const char *wants,
                     unsigned i, const clf_param *p, const clarg *a,
                     const char *advice)
{
    char want[700], got[700];
    clf_describe_param(p, want, sizeof want);
    clf_describe_arg(a, got, sizeof got);
    return clframe_fail(CLFRAME_ERR_ARG_TYPE, "%s(%s): argument %u (%s): %s %s, "
                    "got %s%s%s", what, name, i + 1, p->name, wants, want, got,
                    advice ? "; " : "", advice ? advice : "");
}
