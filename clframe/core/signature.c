/*
 * signature.c: parameter lists, and the arguments given for them checked
 * against them, for kernels and device functions alike (whose prototypes
 * clframe reads from the source, proto.c): type names in one spelling,
 * sizes of the built-in types, matching rules, the words used in error
 * messages, and a kernel call's every argument checked before anything
 * reaches the device (kind, address space, element type, struct size; an
 * image2d_t takes a 2-D image, a read_only image one copied in, a buffer a
 * whole number of the parameter's elements, every object one of the
 * kernel's context), so that a wrong argument is a message naming kernel,
 * position, parameter and both types rather than a wrong answer.
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

/* ---- OpenCL objects as arguments ---------------------------------------- */

/* The OpenCL image type of a parameter type ("image2d_t"), or 0. */
static cl_mem_object_type image_object(const char *type)
{
    static const struct { const char *name; cl_mem_object_type t; } kinds[] = {
        {"image1d_t", CL_MEM_OBJECT_IMAGE1D},
        {"image1d_buffer_t", CL_MEM_OBJECT_IMAGE1D_BUFFER},
        {"image1d_array_t", CL_MEM_OBJECT_IMAGE1D_ARRAY},
        {"image2d_t", CL_MEM_OBJECT_IMAGE2D},
        {"image2d_array_t", CL_MEM_OBJECT_IMAGE2D_ARRAY},
        {"image3d_t", CL_MEM_OBJECT_IMAGE3D}};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (strcmp(type, kinds[i].name) == 0)
            return kinds[i].t;
    return 0;
}

static const char *object_name(cl_mem_object_type t)
{
    switch (t) {
    case CL_MEM_OBJECT_BUFFER: return "a buffer";
    case CL_MEM_OBJECT_IMAGE1D: return "a 1-D image";
    case CL_MEM_OBJECT_IMAGE1D_BUFFER: return "a 1-D buffer image";
    case CL_MEM_OBJECT_IMAGE1D_ARRAY: return "a 1-D image array";
    case CL_MEM_OBJECT_IMAGE2D: return "a 2-D image";
    case CL_MEM_OBJECT_IMAGE2D_ARRAY: return "a 2-D image array";
    case CL_MEM_OBJECT_IMAGE3D: return "a 3-D image";
    default: return "an unknown object";
    }
}

/* A memory object's type and context, or an error naming who and i when
 * it is not one (NULL, freed). */
static int mem_info(const char *who, unsigned i, cl_mem mem,
                    cl_mem_object_type *type, cl_context *context)
{
    if (!mem ||
        clGetMemObjectInfo(mem, CL_MEM_TYPE, sizeof *type, type, NULL) !=
            CL_SUCCESS ||
        clGetMemObjectInfo(mem, CL_MEM_CONTEXT, sizeof *context, context,
                           NULL) != CL_SUCCESS)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s: argument %u is not a "
                            "valid memory object (NULL or released)", who,
                            i + 1);
    return 0;
}

static int other_context(const char *who, unsigned i, const clctx *ctx)
{
    return clframe_fail(CLFRAME_ERR_USAGE, "%s: argument %u belongs to "
                        "another OpenCL context than the kernel's (on %s)",
                        who, i + 1, ctx->device_name);
}

static int check_existing_buffer(const clctx *ctx, const char *who, unsigned i,
                                const clf_param *p, const clarg *a)
{
    cl_mem mem;
    memcpy(&mem, a->value, sizeof mem);
    cl_mem_object_type type;
    cl_context context;
    int rc = mem_info(who, i, mem, &type, &context);
    if (rc)
        return rc;
    if (type != CL_MEM_OBJECT_BUFFER)
        return clframe_fail(CLFRAME_ERR_ARG_TYPE, "%s: argument %u (%s) is "
                            "%s, but the parameter is a pointer: pass a "
                            "buffer", who, i + 1, p->name, object_name(type));
    if (context != ctx->context)
        return other_context(who, i, ctx);
    size_t bytes = 0, elem = p->struct_size ? p->struct_size
                                            : clf_builtin_size(p->type);
    clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof bytes, &bytes, NULL);
    if (elem && bytes % elem)
        return clframe_fail(CLFRAME_ERR_ARG_TYPE, "%s: argument %u (%s): a "
                            "buffer of %zu bytes is not a whole number of %s "
                            "(%zu bytes each)", who, i + 1, p->name, bytes,
                            p->written[0] ? p->written : p->type, elem);
    return 0;
}

static int check_sampler(const clctx *ctx, const char *who, unsigned i,
                         const clarg *a)
{
    cl_sampler s;
    memcpy(&s, a->value, sizeof s);
    cl_context context;
    if (!s || clGetSamplerInfo(s, CL_SAMPLER_CONTEXT, sizeof context, &context,
                               NULL) != CL_SUCCESS)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s: argument %u is not a "
                            "valid sampler (NULL or released)", who, i + 1);
    return context == ctx->context ? 0 : other_context(who, i, ctx);
}

/* The copies a host array's image needs for the parameter's access. */
static int check_access(const char *who, unsigned i, const clf_param *p,
                        const clarg *a)
{
    unsigned in = a->flags & CLARG_TO_DEVICE, out = a->flags & CLARG_FROM_DEVICE;
    if (a->flags & ~(unsigned)(CLARG_TO_DEVICE | CLARG_FROM_DEVICE))
        return clframe_fail(CLFRAME_ERR_USAGE, "%s: argument %u (%s): an "
                            "image takes CLARG_TO_DEVICE and CLARG_FROM_DEVICE "
                            "only", who, i + 1, p->name);
    if (p->access == CL_KERNEL_ARG_ACCESS_READ_ONLY && (!in || out))
        return clframe_fail(CLFRAME_ERR_USAGE, "%s: argument %u (%s) is a "
                            "read_only image: copy it in (CLARG_TO_DEVICE) "
                            "and nothing back", who, i + 1, p->name);
    if (p->access == CL_KERNEL_ARG_ACCESS_WRITE_ONLY && !out)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s: argument %u (%s) is a "
                            "write_only image: it must come back "
                            "(CLARG_FROM_DEVICE)", who, i + 1, p->name);
    if (!in && !out)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s: argument %u (%s): an "
                            "image made from a host array is copied in, out "
                            "or both", who, i + 1, p->name);
    return 0;
}

static int check_image(const clctx *ctx, const char *who, unsigned i,
                       const clf_param *p, const clarg *a,
                       const clf_image_desc *d)
{
    cl_mem_object_type want = image_object(p->type), got;
    if (d->existing) {
        cl_context context;
        int rc = mem_info(who, i, d->mem, &got, &context);
        if (rc)
            return rc;
        if (context != ctx->context)
            return other_context(who, i, ctx);
    } else {
        got = d->dims == 2 ? CL_MEM_OBJECT_IMAGE2D
              : d->dims == 3 ? CL_MEM_OBJECT_IMAGE3D : 0;
        if (!got)
            return clframe_fail(CLFRAME_ERR_USAGE, "%s: argument %u (%s): "
                                "images from host arrays have 2 or 3 "
                                "dimensions", who, i + 1, p->name);
    }
    if (got != want)
        return clframe_fail(CLFRAME_ERR_ARG_TYPE, "%s: argument %u (%s): the "
                            "kernel expects %s (%s), got %s", who, i + 1,
                            p->name, object_name(want), p->type,
                            object_name(got));
    if (d->existing)
        return 0;
    if (!a->elem_size)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s: argument %u (%s): image "
                            "format 0x%x, 0x%x is not one clframe knows the "
                            "pixel size of", who, i + 1, p->name,
                            d->format.image_channel_order,
                            d->format.image_channel_data_type);
    size_t bytes = a->elem_size;
    for (cl_uint k = 0; k < d->dims; k++) {
        if (d->size[k] == 0 || bytes > (size_t)-1 / d->size[k])
            return clframe_fail(CLFRAME_ERR_BAD_SIZE, "%s: argument %u (%s): "
                                "an image of size %zu in dimension %u", who,
                                i + 1, p->name, d->size[k], k);
        bytes *= d->size[k];
    }
    if (!a->host)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s: argument %u (%s): a NULL "
                            "host array for an image", who, i + 1, p->name);
    return check_access(who, i, p, a);
}

/* ---- a call checked against its kernel ----------------------------------- */

static int mismatch(const clf_call *c, unsigned i, const clarg *a,
                    const char *advice)
{
    return clf_arg_mismatch(c->who, c->name, "the kernel expects", i,
                            &c->params[i], a, advice);
}

/* A struct whose host size is not the device's: the kernel would read
 * garbage, and drivers do not check the sizes they are given. */
static int layout_mismatch(const clf_call *c, unsigned i, const clarg *a)
{
    const clf_param *p = &c->params[i];
    return clframe_fail(CLFRAME_ERR_ARG_TYPE, "%s(%s): argument %u "
                        "(%s): %s is %zu bytes on %s but %zu on the host: host "
                        "and device layouts differ", c->who, c->name, i + 1,
                        p->name, p->written[0] ? p->written : p->type,
                        p->struct_size, c->ctx->device_name, a->elem_size);
}

/* An OpenCL object given (CLARG_BUFFER, CLARG_IMAGE..., CLARG_SAMPLER),
 * or a parameter that takes one (an image or a sampler). */
static int check_object(const clf_call *c, unsigned i, const clarg *a)
{
    const clf_param *p = &c->params[i];
    char whom[200];
    snprintf(whom, sizeof whom, "%s(%s)", c->who, c->name);
    if (p->object == CLARG_KIND_SAMPLER)
        return a->kind != CLARG_KIND_SAMPLER
                   ? mismatch(c, i, a, "pass CLARG_SAMPLER(s)")
                   : check_sampler(c->ctx, whom, i, a);
    if (p->object == CLARG_KIND_IMAGE)
        return a->kind != CLARG_KIND_IMAGE
                   ? mismatch(c, i, a, "pass CLARG_IMAGE2D(p, w, h, "
                              "order, type, flags), CLARG_IMAGE3D or "
                              "CLARG_IMAGE(mem)")
                   : check_image(c->ctx, whom, i, p, a, c->plan[i].image);
    if (a->kind == CLARG_KIND_MEM &&
        (p->space == CL_KERNEL_ARG_ADDRESS_GLOBAL ||
         p->space == CL_KERNEL_ARG_ADDRESS_CONSTANT))
        return check_existing_buffer(c->ctx, whom, i, p, a);
    return mismatch(c, i, a, NULL);
}

/* An array argument's own state: its flags, its host array, its size, its
 * persistent buffer. */
static int check_array(const clf_call *c, unsigned i, const clarg *a)
{
    const char *who = c->who, *name = c->name;
    const clctx *ctx = c->ctx;
    const clf_arg_plan *plan = &c->plan[i];
    if (a->flags & ~(unsigned)(CLARG_TO_DEVICE | CLARG_FROM_DEVICE |
                               CLARG_CHUNKED))
        return clframe_fail(CLFRAME_ERR_USAGE, "%s(%s): argument "
                        "%u has unknown copy flags 0x%x", who, name, i + 1,
                        a->flags);
    if (!a->host && a->flags && a->count)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s(%s): argument "
                        "%u is a NULL host array with copy flags", who, name,
                        i + 1);
    if (plan->bytes == (size_t)-1)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s(%s): argument "
                        "%u: %zu elements overflow size_t", who, name, i + 1,
                        a->count);
    if (plan->released)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s(%s): argument "
                        "%u: its device buffer was released (by "
                        "clarg_release on it or on a copy)", who, name, i + 1);
    /* Drivers differ: PoCL refuses the buffer, NVIDIA's makes it and
     * fails the launch. */
    if (!a->buffer && ctx->max_alloc && plan->bytes > ctx->max_alloc)
        return clframe_fail(CLFRAME_ERR_BAD_SIZE, "%s(%s): argument %u: "
                            "an array of %zu bytes is more than %s "
                            "allocates at once (%llu)", who, name,
                            i + 1, plan->bytes, ctx->device_name,
                            (unsigned long long)ctx->max_alloc);
    if (a->buffer && a->buffer->ctx != ctx)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s(%s): argument "
                        "%u is persistent on another context", who, name,
                        i + 1);
    return 0;
}

static int check_arg(const clf_call *c, unsigned i, const clarg *a)
{
    if (a->kind == CLARG_KIND_LOCAL && a->count == 0)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s(%s): argument %u (%s): "
                            "CLARG_LOCAL(0) is not a valid size", c->who,
                            c->name, i + 1, c->params[i].name);
    if (a->kind == CLARG_KIND_NONE)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s(%s): argument %u is "
                        "an empty clarg (zeroed, or CLARG of a non-OpenCL "
                        "type)", c->who, c->name, i + 1);
    if (a->flags & CLARG_EACH)          /* a kernel indexes its arrays itself */
        return clframe_fail(CLFRAME_ERR_USAGE, "%s(%s): argument %u "
                        "is per-work-item (CLARG_EACH), which only "
                        "clfunction_call knows: pass the array with CLARG_IN, "
                        "CLARG_OUT or CLARG_INOUT", c->who, c->name, i + 1);
    int rc = a->kind == CLARG_KIND_BUFFER ? check_array(c, i, a) : 0;
    if (rc)
        return rc;
    const clf_param *p = &c->params[i];
    if (p->object || a->kind >= CLARG_KIND_MEM)
        return check_object(c, i, a);
    switch (p->space) {
    case CL_KERNEL_ARG_ADDRESS_GLOBAL:
    case CL_KERNEL_ARG_ADDRESS_CONSTANT:
        if (a->kind != CLARG_KIND_BUFFER)
            return mismatch(c, i, a, "pass an array with CLARG_IN, CLARG_OUT, "
                            "CLARG_INOUT or CLARG_TYPED");
        if (!a->type)
            return mismatch(c, i, a, "name the element type with "
                            "CLARG_TYPED(\"Type\", p, n, flags)");
        if (!clf_types_match(p, a->type, c->names))
            return mismatch(c, i, a, NULL);
        if (p->struct_size && p->struct_size != a->elem_size)
            return layout_mismatch(c, i, a);
        return 0;
    case CL_KERNEL_ARG_ADDRESS_LOCAL:
        if (a->kind != CLARG_KIND_LOCAL)
            return mismatch(c, i, a, "pass CLARG_LOCAL(bytes)");
        return 0;
    default:
        if (a->kind != CLARG_KIND_SCALAR)
            return mismatch(c, i, a, p->pointer ? NULL : "pass a value with "
                            "CLARG(x) or CLARG_VALUE(\"Type\", &x)");
        if (a->type && !clf_types_match(p, a->type, c->names))
            return mismatch(c, i, a, NULL);
        if (p->size && p->size != a->elem_size)
            return mismatch(c, i, a, "the sizes differ");
        if (p->struct_size && p->struct_size != a->elem_size)
            return layout_mismatch(c, i, a);
        return 0;
    }
}

/* What a chunked call asks of its kernel's sizes and its split arrays. */
static int check_chunks(const clf_call *c)
{
    unsigned d = c->dims - 1;
    if (c->items == 0 || c->items > c->global[d])
        return clframe_fail(CLFRAME_ERR_BAD_SIZE, "clkernel_call_chunked(%s): "
                            "%zu work-items own data: 1 to the global size "
                            "%zu in dimension %u", c->name, c->items,
                            c->global[d], d);
    if (c->local && c->chunk % c->local[d])
        return clframe_fail(CLFRAME_ERR_BAD_SIZE, "clkernel_call_chunked(%s): "
                            "a chunk of %zu work-items is not a multiple of "
                            "the local size %zu in dimension %u", c->name,
                            c->chunk, c->local[d], d);
    for (unsigned i = 0; i < c->nargs; i++)
        if (c->args[i].kind == CLARG_KIND_BUFFER &&
            (c->args[i].flags & CLARG_CHUNKED) && c->args[i].count % c->items)
            return clframe_fail(CLFRAME_ERR_BAD_SIZE, "clkernel_call_chunked"
                                "(%s): argument %u, split in chunks, has %zu "
                                "elements, which %zu work-items cannot own "
                                "in equal parts", c->name, i + 1,
                                c->args[i].count, c->items);
    return 0;
}

int clf_check_call(const clf_call *c)
{
    if (c->nargs != c->nparams)
        return clframe_fail(CLFRAME_ERR_ARG_COUNT, "%s(%s): %u "
                        "argument%s given, the kernel takes %u: %s", c->who,
                        c->name, c->nargs, c->nargs == 1 ? "" : "s",
                        c->nparams, c->signature);
    cl_ulong local_bytes = 0;
    for (unsigned i = 0; i < c->nargs; i++) {
        const clarg *a = &c->args[i];
        int rc = check_arg(c, i, a);
        if (rc)
            return rc;
        if (a->kind == CLARG_KIND_LOCAL)            /* saturating */
            local_bytes += a->count < CL_ULONG_MAX - local_bytes
                               ? a->count : CL_ULONG_MAX - local_bytes;
    }
    /* Checked here because some drivers crash rather than fail (PoCL 3.1
     * asserts) when __local arguments outgrow the device's local memory. */
    if (local_bytes > c->ctx->local_mem)
        return clframe_fail(CLFRAME_ERR_BAD_SIZE, "%s(%s): CLARG_LOCAL "
                        "arguments ask for %llu bytes of __local memory; %s "
                        "has %llu", c->who, c->name,
                        (unsigned long long)local_bytes, c->ctx->device_name,
                        (unsigned long long)c->ctx->local_mem);
    return c->chunk ? check_chunks(c) : 0;
}
