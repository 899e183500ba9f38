/*
 * function.c: calling a device function that is not a kernel, from the host.
 *
 * OpenCL can only launch kernels, so clframe writes one (a shim) per
 * function, from its prototype (proto.c), and appends it to the function's
 * own source:
 *
 *   - a value parameter is a kernel parameter of the same type;
 *   - a __global or __constant pointer is the argument's buffer;
 *   - a private pointer gets a private array filled from the argument's
 *     buffer and copied back after the call (its length is fixed in the
 *     generated text, so a longer argument rebuilds the shim);
 *   - a __local pointer gets __local memory filled before the call and stored
 *     after it, by the whole work-group;
 *   - the return value goes to a result buffer, from work-item 0 or from all;
 *   - a per-work-item argument (CLARG_EACH) is a buffer of one element per
 *     work-item, indexed by the work-item's flattened local id: the value
 *     itself for a value parameter, a private copy of the element for a
 *     private pointer, the element's address for a __global or __constant
 *     one (a __local one, shared by the group, takes none).
 *
 * The same program holds a second kernel that reports sizeof() of every type
 * passed by pointer or by value, as the device compiled it: a host array of
 * structs laid out differently is then an error, not corrupted data.
 */
#include "source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A private copy bigger than this belongs in __global memory. */
enum { PRIVATE_COPY_MAX_BYTES = 65536 };

struct clfunction {
    clctx *ctx;
    char *source;                /* the function's source, includes expanded */
    char *view;                  /* as its preprocessor leaves it, to read
                                    (preproc.c); NULL if that failed */
    char *origin;                /* where it came from, for messages */
    char *options;
    clf_proto proto;
    clf_typedefs *typedefs;      /* of the view (or the source) */
    char *missing;               /* why the prototype cannot be used, or NULL */
    int missing_code;            /* and the error code that said so */
    unsigned group_dims;         /* 1 to 3 */
    size_t group[3];             /* the work-group's sizes, 1 beyond dims */
    int all_results;
    size_t capacity[CLF_MAX_PARAMS]; /* private copies' lengths in the shim */
    unsigned char each[CLF_MAX_PARAMS]; /* per-work-item in the shim */
    char *shim;                  /* the generated kernels' text */
    clkernel *kernel;            /* the shim, built */
    size_t device_size[CLF_MAX_PARAMS + 1]; /* [0] return, [1 + i] params */
};

/* ---- creation -------------------------------------------------------------- */

/* The prototype could not be read or used (not found, made by a macro, a
 * form clframe cannot pass, a preprocessing error): the function is still
 * made, so that clfunction_proto can supply it, and calls fail with why
 * until then. 0 or CLFRAME_ERR_NO_MEMORY. */
static int keep_missing(clfunction *f, int code)
{
    const char *why = clframe_last_error();
    clf_str s = {0};
    clf_str_printf(&s, "%s%s", why, strstr(why, "clfunction_proto") ? ""
                   : " (clfunction_proto can supply the prototype)");
    if (s.failed) {
        free(s.data);
        return clframe_fail(CLFRAME_ERR_NO_MEMORY, "clfunction %s",
                            f->proto.name);
    }
    f->missing = s.data;
    f->missing_code = code;
    char name[sizeof f->proto.name];    /* nothing half read is kept */
    memcpy(name, f->proto.name, sizeof name);
    memset(&f->proto, 0, sizeof f->proto);
    memcpy(f->proto.name, name, sizeof name);
    if (f->ctx->debug)                  /* a misspelling shows at once */
        fprintf(stderr, "clframe: %s\n", f->missing);
    return 0;
}

static clfunction *function_new(clctx *ctx, char *source, const char *origin,
                                const char *fname, const char *options)
{
    clfunction *f = calloc(1, sizeof *f);
    if (!f || !(f->origin = clf_strdup(origin)) ||
        !(f->options = clf_strdup(options ? options : ""))) {
        clframe_fail(CLFRAME_ERR_NO_MEMORY, "clfunction %s", fname);
        free(source);
        clfunction_free(f);
        return NULL;
    }
    f->ctx = ctx;
    f->source = source;
    f->group_dims = 1;                  /* one work-item */
    f->group[0] = f->group[1] = f->group[2] = 1;
    snprintf(f->proto.name, sizeof f->proto.name, "%s", fname);
    int rc = clf_preprocess_on(ctx, source, f->options, &f->view);
    if (rc != CLFRAME_ERR_NO_MEMORY &&
        !(f->typedefs = clf_typedefs_read(f->view ? f->view : source)))
        rc = clframe_fail(CLFRAME_ERR_NO_MEMORY, "clfunction %s", fname);
    if (rc == 0)
        rc = clf_proto_find(f->view, f->typedefs, fname, &f->proto);
    if (rc && rc != CLFRAME_ERR_NO_MEMORY)
        rc = keep_missing(f, rc);
    if (rc) {
        clfunction_free(f);
        return NULL;
    }
    return f;
}

static clfunction *function_from(clctx *ctx, const char *caller,
                                 int from_file, const char *text,
                                 const char *fname, const char *options)
{
    char *origin;
    if (!clf_is_identifier(fname)) {
        clframe_fail(CLFRAME_ERR_USAGE, "%s: \"%s\" is not a function name",
                     caller, fname ? fname : "(null)");
        return NULL;
    }
    if (!(ctx = clf_ctx(ctx)))
        return NULL;
    char *expanded = clf_source_open(caller, from_file, text, fname, options,
                                     ctx->debug, &origin);
    if (!expanded)
        return NULL;
    clfunction *f = function_new(ctx, expanded, origin, fname, options);
    free(origin);
    return f;
}

clfunction *clfunction_file(clctx *ctx, const char *path, const char *fname,
                            const char *options)
{
    return function_from(ctx, "clfunction_file", 1, path, fname, options);
}

clfunction *clfunction_source(clctx *ctx, const char *source,
                              const char *fname, const char *options)
{
    return function_from(ctx, "clfunction_source", 0, source, fname, options);
}

static void drop_shim(clfunction *f)
{
    clkernel_free(f->kernel);
    f->kernel = NULL;
    free(f->shim);
    f->shim = NULL;
}

void clfunction_free(clfunction *f)
{
    if (!f)
        return;
    drop_shim(f);
    free(f->missing);
    clf_typedefs_free(f->typedefs);
    free(f->source);
    free(f->view);
    free(f->origin);
    free(f->options);
    free(f);
}

int clfunction_proto(clfunction *f, const char *prototype)
{
    if (!f || !prototype)
        return clframe_fail(CLFRAME_ERR_USAGE, "clfunction_proto: NULL argument");
    clf_proto parsed;
    int rc = clf_proto_parse(f->view ? f->view : f->source, f->typedefs,
                             prototype, f->proto.name, &parsed);
    if (rc)
        return rc;
    f->proto = parsed;
    free(f->missing);
    f->missing = NULL;
    memset(f->capacity, 0, sizeof f->capacity);
    drop_shim(f);
    return 0;
}

/* 0 if a group of these sizes can run on f's device, else the error.
 * Checked when set rather than left to the shim's launch, so that the
 * message names the function and no call allocates results for a group
 * that cannot run. 0, which once meant "one work-item", is refused like any
 * other size the device cannot run: more likely a size computed wrong. */
static int check_group(const clfunction *f, unsigned dims, const size_t *sizes)
{
    if (dims < 1 || dims > 3)
        return clframe_fail(CLFRAME_ERR_BAD_SIZE, "clfunction_group(%s): %u "
                            "sizes given, 1 to 3 expected", f->proto.name,
                            dims);
    if (!sizes)
        return clframe_fail(CLFRAME_ERR_USAGE, "clfunction_group(%s): NULL "
                            "sizes", f->proto.name);
    char who[200];
    snprintf(who, sizeof who, "clfunction_group(%s)", f->proto.name);
    return clf_check_group(f->ctx, who, "size", dims, sizes,
                           f->ctx->max_group);
}

int clfunction_set_group(clfunction *f, unsigned dims, const size_t *sizes)
{
    if (!f)
        return clframe_fail(CLFRAME_ERR_USAGE, "clfunction_group: NULL function");
    int rc = check_group(f, dims, sizes);
    if (rc)
        return rc;
    f->group_dims = dims;
    f->group[1] = f->group[2] = 1;
    memcpy(f->group, sizes, dims * sizeof *sizes);
    return 0;
}

int clfunction_group_results(clfunction *f, int all)
{
    if (!f)
        return clframe_fail(CLFRAME_ERR_USAGE, "clfunction_group_results: NULL "
                        "function");
    f->all_results = all != 0;
    return 0;
}

/* The work-items of the group, one when none was asked for. */
static size_t group_items(const clfunction *f)
{
    return f->group[0] * f->group[1] * f->group[2];
}

const char *clfunction_prototype(clfunction *f)
{
    return f ? f->proto.text : "";
}

/* ---- generating the shim ------------------------------------------------------ */

static int is_private_pointer(const clf_param *p)
{
    return p->pointer && p->space == CL_KERNEL_ARG_ADDRESS_PRIVATE;
}

static int is_local_pointer(const clf_param *p)
{
    return p->pointer && p->space == CL_KERNEL_ARG_ADDRESS_LOCAL;
}

/* Parameter i's kernel parameters: its value or buffer, and what copying
 * needs (lengths, __local room). A per-work-item argument (CLARG_EACH) is
 * always a buffer, of one element per work-item. Parameter names are
 * clframe's own, so no user name can clash. */
static void shim_param(const clfunction *f, unsigned i, clf_str *s)
{
    const clf_param *p = &f->proto.params[i];
    const char *decl = f->proto.decl[i], *c = p->is_const ? "const " : "";
    if (!p->pointer && f->each[i])
        clf_str_printf(s, ",\n    __global const %s *clf_a%u", decl, i);
    else if (!p->pointer)
        clf_str_printf(s, ",\n    %s clf_a%u", decl, i);
    else if (p->space == CL_KERNEL_ARG_ADDRESS_CONSTANT)
        clf_str_printf(s, ",\n    __constant %s *clf_a%u", decl, i);
    else if (p->space == CL_KERNEL_ARG_ADDRESS_GLOBAL)
        clf_str_printf(s, ",\n    __global %s%s *clf_a%u", c, decl, i);
    else if (f->each[i])
        clf_str_printf(s, ",\n    __global %s *clf_a%u", decl, i);
    else
        clf_str_printf(s, ",\n    __global %s *clf_a%u, int clf_n%u", decl, i,
                       i);
    if (is_local_pointer(p))
        clf_str_printf(s, ", __local %s *clf_l%u", decl, i);
}

/* The kernel's parameter list: the result buffer, clf_all, then each
 * function parameter's. */
static void shim_params(const clfunction *f, clf_str *s)
{
    const clf_proto *pr = &f->proto;
    clf_str_printf(s, "__kernel void clf_shim_%s(", pr->name);
    if (pr->ret_type[0])
        clf_str_printf(s, "__global %s *clf_ret, ", pr->ret_decl);
    clf_str_printf(s, "int clf_all");
    for (unsigned i = 0; i < pr->nparams; i++)
        shim_param(f, i, s);
    clf_str_printf(s, ")\n");
}

/* Before the call: parameter i's private copy (a work-item's own element
 * for a per-work-item argument) or its share of the __local copy. */
static void shim_copy_in(const clfunction *f, unsigned i, clf_str *s)
{
    const clf_param *p = &f->proto.params[i];
    const char *decl = f->proto.decl[i];
    if (is_private_pointer(p) && f->each[i])
        clf_str_printf(s, "    %s clf_p%u = clf_a%u[clf_lid];\n", decl, i, i);
    else if (is_private_pointer(p))
        clf_str_printf(s, "    %s clf_p%u[%zu];\n    for (int k = 0; k < "
                       "clf_n%u; k++)\n        clf_p%u[k] = clf_a%u[k];\n",
                       decl, i, f->capacity[i], i, i, i);
    else if (is_local_pointer(p))
        clf_str_printf(s, "    for (size_t k = clf_lid; k < (size_t)clf_n%u;"
                       " k += clf_lsize)\n        clf_l%u[k] = clf_a%u[k];\n",
                       i, i, i);
}

/* What the function is given for parameter i. */
static void shim_call_arg(const clfunction *f, unsigned i, clf_str *s)
{
    const clf_param *p = &f->proto.params[i];
    const char *sep = i ? ", " : "";
    if (f->each[i] && !p->pointer)
        clf_str_printf(s, "%sclf_a%u[clf_lid]", sep, i);
    else if (f->each[i] && is_private_pointer(p))
        clf_str_printf(s, "%s&clf_p%u", sep, i);
    else if (f->each[i])                /* __global or __constant */
        clf_str_printf(s, "%sclf_a%u + clf_lid", sep, i);
    else
        clf_str_printf(s, "%sclf_%c%u", sep, is_private_pointer(p) ? 'p'
                       : is_local_pointer(p) ? 'l' : 'a', i);
}

/* After the call: parameter i's private copy stored back (work-item 0's,
 * or each work-item's own element) or its share of the __local copy. */
static void shim_copy_out(const clfunction *f, unsigned i, clf_str *s)
{
    const clf_param *p = &f->proto.params[i];
    if (p->is_const)
        return;
    if (is_private_pointer(p) && f->each[i])
        clf_str_printf(s, "    clf_a%u[clf_lid] = clf_p%u;\n", i, i);
    else if (is_private_pointer(p))
        clf_str_printf(s, "    if (clf_lid == 0)\n        for (int k = 0; "
                       "k < clf_n%u; k++)\n            clf_a%u[k] = clf_p%u[k];"
                       "\n", i, i, i);
    else if (is_local_pointer(p))
        clf_str_printf(s, "    for (size_t k = clf_lid; k < (size_t)clf_n%u;"
                       " k += clf_lsize)\n        clf_a%u[k] = clf_l%u[k];\n",
                       i, i, i);
}

/* Copies in, calls, copies out. Every work-item of the group runs this; the
 * __local copies are shared, so each work-item moves a stride of them and
 * barriers separate the phases. A work-item's number is its flattened local
 * id, x fastest, and the stride the group's size, so that the same text
 * serves groups of 1 to 3 dimensions (unused ones have size 1, id 0). */
static void shim_body(const clfunction *f, clf_str *s)
{
    const clf_proto *pr = &f->proto;
    clf_str_printf(s, "{\n    size_t clf_lid = get_local_id(0) + "
                   "get_local_size(0) * (get_local_id(1) +\n"
                   "                   get_local_size(1) * get_local_id(2));\n"
                   "    size_t clf_lsize = get_local_size(0) * "
                   "get_local_size(1) * get_local_size(2);\n");
    for (unsigned i = 0; i < pr->nparams; i++)
        shim_copy_in(f, i, s);
    clf_str_printf(s, "    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);\n");
    clf_str_printf(s, "    %s%s%s(", pr->ret_type[0] ? pr->ret_decl : "",
                   pr->ret_type[0] ? " clf_r = " : "", pr->name);
    for (unsigned i = 0; i < pr->nparams; i++)
        shim_call_arg(f, i, s);
    clf_str_printf(s, ");\n    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);\n");
    if (pr->ret_type[0])
        clf_str_printf(s, "    if (clf_all)\n        clf_ret[clf_lid] = clf_r;\n"
                       "    else if (clf_lid == 0)\n        clf_ret[0] = clf_r;\n");
    for (unsigned i = 0; i < pr->nparams; i++)
        shim_copy_out(f, i, s);
    clf_str_printf(s, "}\n");
}

/* The sizes kernel: sizeof each type the host hands over, as compiled
 * (0 for none: a void function, a void pointer). */
static void sizes_kernel(const clfunction *f, clf_str *s)
{
    const clf_proto *pr = &f->proto;
    clf_str_printf(s, "\n__kernel void clf_sizes_%s(__global ulong *clf_out)\n"
                   "{\n", pr->name);
    if (pr->ret_type[0])
        clf_str_printf(s, "    clf_out[0] = sizeof(%s);\n", pr->ret_decl);
    else
        clf_str_printf(s, "    clf_out[0] = 0;\n");
    for (unsigned i = 0; i < pr->nparams; i++) {
        if (strcmp(pr->params[i].type, "void") == 0)
            clf_str_printf(s, "    clf_out[%u] = 0;\n", i + 1);
        else
            clf_str_printf(s, "    clf_out[%u] = sizeof(%s);\n", i + 1,
                           pr->decl[i]);
    }
    clf_str_printf(s, "}\n");
}

static char *generate_shim(const clfunction *f)
{
    clf_str s = {0};
    clf_str_printf(&s, "\n/* Generated by clframe: a kernel that calls\n * %s\n"
                   " * (from %s) so that the host can. */\n", f->proto.text,
                   f->origin);
    shim_params(f, &s);
    shim_body(f, &s);
    sizes_kernel(f, &s);
    if (s.failed) {
        free(s.data);
        return NULL;
    }
    return s.data;
}

/* With CLFRAME_DUMP_SHIMS=dir, the whole program a shim is built from goes
 * to dir/<function>.cl, for reading or for building by hand. */
static void dump_shim(const clfunction *f, const char *program)
{
    const char *dir = getenv("CLFRAME_DUMP_SHIMS");
    if (!dir || !*dir)
        return;
    if (clf_make_dirs(dir, 0777) != 0) {
        fprintf(stderr, "clframe: cannot make %s: %s\n", dir, strerror(errno));
        return;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.cl", dir, f->proto.name);
    FILE *out = fopen(path, "w");
    if (!out) {
        fprintf(stderr, "clframe: cannot write %s: %s\n", path, strerror(errno));
        return;
    }
    fputs(program, out);
    fclose(out);
}

/* Reads the device's sizes once per build, through the sizes kernel. */
static int read_device_sizes(clfunction *f, const char *program)
{
    char name[200];
    snprintf(name, sizeof name, "clf_sizes_%s", f->proto.name);
    cl_ulong sizes[CLF_MAX_PARAMS + 1] = {0};
    int rc = clf_probe(f->ctx, program, f->origin, name, f->options,
                       &clf_source_build, sizes, f->proto.nparams + 1);
    for (unsigned i = 0; rc == 0 && i <= f->proto.nparams; i++)
        f->device_size[i] = (size_t)sizes[i];
    return rc;
}

/* Builds the shim (again, when a private array outgrew its copy). */
static int build_shim(clfunction *f)
{
    drop_shim(f);
    f->shim = generate_shim(f);
    clf_str program = {0};
    if (f->shim)
        clf_str_printf(&program, "%s\n%s", f->source, f->shim);
    if (!f->shim || program.failed) {
        free(program.data);
        return clframe_fail(CLFRAME_ERR_NO_MEMORY, "clfunction %s", f->proto.name);
    }
    dump_shim(f, program.data);
    char name[200];
    snprintf(name, sizeof name, "clf_shim_%s", f->proto.name);
    /* Its own sizes kernel measures them (read_device_sizes). */
    f->kernel = clf_kernel_source_unmeasured(f->ctx, program.data, name,
                                             f->options);
    int rc = f->kernel ? read_device_sizes(f, program.data) : CLFRAME_ERR_BUILD;
    free(program.data);
    return rc;
}

const char *clfunction_shim_source(clfunction *f)
{
    if (!f)
        return NULL;
    if (f->missing) {
        clframe_fail(f->missing_code, "%s", f->missing);
        return NULL;
    }
    if (!f->kernel && build_shim(f))
        return NULL;
    return f->shim;
}

/* ---- checking a call --------------------------------------------------------- */

/* The argument's type fits parameter p's, as the function's source names
 * its types. */
static int type_matches(const clfunction *f, const clf_param *p,
                        const char *given)
{
    clf_type_names names = clf_typedefs_names(f->typedefs);
    return clf_types_match(p, given, &names);
}

static int mismatch(const clfunction *f, unsigned i, const clarg *a,
                    const char *advice)
{
    return clf_arg_mismatch("clfunction_call", f->proto.name,
                            "the function takes", i, &f->proto.params[i], a,
                            advice);
}

/* A per-work-item argument (CLARG_EACH): an array of the parameter's type
 * with one element per work-item, for a parameter that can take one. */
static int check_each(const clfunction *f, unsigned i, const clarg *a)
{
    const clf_param *p = &f->proto.params[i];
    const char *name = f->proto.name;
    if (a->kind != CLARG_KIND_BUFFER)
        return mismatch(f, i, a, "a per-work-item argument is an array: "
                        "CLARG_EACH_IN, CLARG_EACH_OUT or CLARG_EACH_INOUT");
    if (is_local_pointer(p))
        return clframe_fail(CLFRAME_ERR_USAGE, "clfunction_call(%s): argument "
                            "%u (%s): a __local parameter is shared by the "
                            "work-group, so it takes no per-work-item "
                            "argument: pass the whole array with CLARG_IN, "
                            "CLARG_OUT or CLARG_INOUT", name, i + 1, p->name);
    if (!p->pointer && (a->flags & CLARG_FROM_DEVICE))
        return clframe_fail(CLFRAME_ERR_USAGE, "clfunction_call(%s): argument "
                            "%u (%s) is passed by value, so nothing comes back "
                            "from it: use CLARG_EACH_IN, or make it a pointer",
                            name, i + 1, p->name);
    if (p->pointer && strcmp(p->type, "void") == 0)
        return clframe_fail(CLFRAME_ERR_USAGE, "clfunction_call(%s): argument "
                            "%u (%s) is a void pointer, whose elements have no "
                            "size: a per-work-item argument needs the element "
                            "type", name, i + 1, p->name);
    if (!a->type)
        return mismatch(f, i, a, "name the element type with "
                        "CLARG_TYPED(\"Type\", p, n, CLARG_EACH | ...)");
    if (!type_matches(f, p, a->type) || (p->size && p->size != a->elem_size))
        return mismatch(f, i, a, NULL);
    if (a->count != group_items(f))
        return clframe_fail(CLFRAME_ERR_BAD_SIZE, "clfunction_call(%s): argument "
                            "%u (%s): a per-work-item array of %zu element%s, "
                            "but the group has %zu work-item%s", name, i + 1,
                            p->name, a->count, a->count == 1 ? "" : "s",
                            group_items(f), group_items(f) == 1 ? "" : "s");
    return 0;
}

static int check_arg(const clfunction *f, unsigned i, const clarg *a)
{
    const clf_param *p = &f->proto.params[i];
    if (a->kind == CLARG_KIND_NONE || a->kind == CLARG_KIND_LOCAL)
        return clframe_fail(CLFRAME_ERR_USAGE, "clfunction_call(%s): argument %u "
                        "(%s) must be a value or an array (clframe makes any "
                        "__local copy itself)", f->proto.name, i + 1, p->name);
    if (a->flags & CLARG_EACH)
        return check_each(f, i, a);
    if (!p->pointer) {
        if (a->kind != CLARG_KIND_SCALAR)
            return mismatch(f, i, a, "pass a value with CLARG(x) or "
                            "CLARG_VALUE(\"Type\", &x), or one per "
                            "work-item with CLARG_EACH_IN(p, n)");
        if ((a->type && !type_matches(f, p, a->type)) ||
            (p->size && p->size != a->elem_size))
            return mismatch(f, i, a, NULL);
        return 0;
    }
    if (a->kind != CLARG_KIND_BUFFER)
        return mismatch(f, i, a, "pass an array with CLARG_IN, CLARG_OUT, "
                        "CLARG_INOUT or CLARG_TYPED (one element for a "
                        "pointer to one struct)");
    if (!a->type)
        return mismatch(f, i, a, "name the element type with "
                        "CLARG_TYPED(\"Type\", p, n, flags)");
    if (!type_matches(f, p, a->type))
        return mismatch(f, i, a, NULL);
    if (is_private_pointer(p) &&
        a->count * a->elem_size > PRIVATE_COPY_MAX_BYTES)
        return clframe_fail(CLFRAME_ERR_BAD_SIZE, "clfunction_call(%s): argument "
                        "%u (%s): a private copy of %zu bytes is more than "
                        "clframe allows (%d): make the parameter __global",
                        f->proto.name, i + 1, p->name, a->count * a->elem_size,
                        PRIVATE_COPY_MAX_BYTES);
    return 0;
}

/* ret, before anything is built: where the return value can go. NULL
 * drops it; otherwise *ret must have a size (not a void pointer), the
 * function must return something, an OpenCL type named must be the one
 * returned and a built-in type's size must be ret_size. A struct's size is
 * the device's, known after the build (check_sizes). */
/* ret_type is known when ret points to an OpenCL scalar or vector; the
 * returned type's own name needs no closer look. */
static int ret_type_differs(const clfunction *f, const char *ret_type)
{
    const clf_proto *pr = &f->proto;
    if (!ret_type || !ret_type[0] || strcmp(ret_type, pr->ret_type) == 0)
        return 0;
    clf_param returned = {.pointer = 1};
    snprintf(returned.type, sizeof returned.type, "%s", pr->ret_type);
    return !type_matches(f, &returned, ret_type);
}

static int check_ret(const clfunction *f, const void *ret, const char *ret_type,
                     size_t ret_size)
{
    const clf_proto *pr = &f->proto;
    if (!ret)
        return 0;
    if (!pr->ret_type[0])
        return clframe_fail(CLFRAME_ERR_ARG_TYPE, "clfunction_call(%s): the "
                        "function returns nothing: pass NULL as ret",
                        pr->name);
    if (ret_size == 0)
        return clframe_fail(CLFRAME_ERR_USAGE, "clfunction_call(%s): ret is a "
                        "void pointer, so the size of what it points to is "
                        "unknown: pass a pointer to the return type, %s (or "
                        "NULL to drop the value)", pr->name, pr->ret_type);
    if (ret_type_differs(f, ret_type)) {
        char size[40] = "";
        if (pr->ret_size)
            snprintf(size, sizeof size, " (%zu bytes)", pr->ret_size);
        return clframe_fail(CLFRAME_ERR_ARG_TYPE, "clfunction_call(%s): the "
                        "function returns %s%s, but ret points to %s (%zu "
                        "bytes)", pr->name, pr->ret_type, size, ret_type,
                        ret_size);
    }
    if (pr->ret_size && ret_size != pr->ret_size)
        return clframe_fail(CLFRAME_ERR_ARG_TYPE, "clfunction_call(%s): ret "
                        "points to %zu bytes, but the function returns %s, "
                        "%zu bytes", pr->name, ret_size, pr->ret_type,
                        pr->ret_size);
    return 0;
}

static int check_call(const clfunction *f, const void *ret,
                      const char *ret_type, size_t ret_size, unsigned nargs,
                      const clarg *args)
{
    const clf_proto *pr = &f->proto;
    if (nargs != pr->nparams)
        return clframe_fail(CLFRAME_ERR_ARG_COUNT, "clfunction_call(%s): %u "
                        "argument%s given, the function takes %u: %s",
                        pr->name, nargs, nargs == 1 ? "" : "s", pr->nparams,
                        pr->text);
    int rc = check_ret(f, ret, ret_type, ret_size);
    for (unsigned i = 0; rc == 0 && i < nargs; i++)
        rc = check_arg(f, i, &args[i]);
    return rc;
}

/* After a build: ret and every struct or array the host passes must have
 * the size the device gave its type. */
static int check_sizes(const clfunction *f, const void *ret, size_t ret_size,
                       unsigned nargs, const clarg *args)
{
    if (ret && ret_size != f->device_size[0])
        return clframe_fail(CLFRAME_ERR_ARG_TYPE, "clfunction_call(%s): ret "
                        "points to %zu bytes, but the function returns %s, "
                        "%zu bytes on %s", f->proto.name, ret_size,
                        f->proto.ret_type, f->device_size[0],
                        f->ctx->device_name);
    for (unsigned i = 0; i < nargs; i++) {
        const clf_param *p = &f->proto.params[i];
        size_t dev = f->device_size[i + 1];
        if (dev && args[i].elem_size != dev && strcmp(p->type, "void") != 0)
            return clframe_fail(CLFRAME_ERR_ARG_TYPE, "clfunction_call(%s): "
                            "argument %u (%s): %s is %zu bytes on %s but %zu "
                            "on the host: host and device layouts differ",
                            f->proto.name, i + 1, p->name, p->type, dev,
                            f->ctx->device_name, args[i].elem_size);
    }
    return 0;
}

/* ---- calling ------------------------------------------------------------------- */

/* Makes sure the built shim takes this call's arguments: per-work-item
 * ones where they are given, and room for every private copy. */
static int ensure_shim(clfunction *f, unsigned nargs, const clarg *args)
{
    int rebuild = !f->kernel;
    for (unsigned i = 0; i < nargs; i++) {
        unsigned char each = (args[i].flags & CLARG_EACH) != 0;
        size_t need = args[i].count ? args[i].count : 1;
        if (each != f->each[i]) {
            f->each[i] = each;
            rebuild = 1;
        }
        if (is_private_pointer(&f->proto.params[i]) && !each &&
            need > f->capacity[i]) {
            f->capacity[i] = need;
            rebuild = 1;
        }
    }
    return rebuild ? build_shim(f) : 0;
}

/* The shim's arguments: result, clf_all, then each parameter's own with the
 * lengths and __local room the generated code expects. A per-work-item
 * array goes as a plain array, which the shim indexes itself. */
static unsigned shim_args(const clfunction *f, void *result, size_t results,
                          unsigned nargs, const clarg *args, clarg *out)
{
    const clf_proto *pr = &f->proto;
    unsigned n = 0;
    if (pr->ret_type[0])
        out[n++] = clarg_array(pr->ret_type, f->device_size[0], result,
                               results, CLARG_FROM_DEVICE);
    out[n++] = CLARG((cl_int)f->all_results);
    for (unsigned i = 0; i < nargs; i++) {
        const clf_param *p = &pr->params[i];
        out[n] = args[i];
        out[n++].flags &= ~(unsigned)CLARG_EACH;    /* the shim's own array */
        if (f->each[i])
            continue;
        if (is_private_pointer(p) || is_local_pointer(p))
            out[n++] = CLARG((cl_int)args[i].count);
        size_t bytes = args[i].count * args[i].elem_size;
        if (is_local_pointer(p))
            out[n++] = CLARG_LOCAL(bytes ? bytes : 1);
    }
    return n;
}

int clfunction_call_args(clfunction *f, void *ret, const char *ret_type,
                         size_t ret_size, unsigned nargs, const clarg *args)
{
    if (!f)
        return clframe_fail(CLFRAME_ERR_USAGE, "clfunction_call: NULL function "
                        "(did clfunction_file or clfunction_source fail?)");
    if (nargs && !args)
        return clframe_fail(CLFRAME_ERR_USAGE, "clfunction_call(%s): NULL "
                        "argument list", f->proto.name);
    if (f->missing)
        return clframe_fail(f->missing_code, "%s", f->missing);
    int rc = check_call(f, ret, ret_type, ret_size, nargs, args);
    if (rc == 0)
        rc = ensure_shim(f, nargs, args);
    if (rc == 0)
        rc = check_sizes(f, ret, ret_size, nargs, args);
    if (rc)
        return rc;

    /* On the stack unless many: the return value(s) and the shim's args. */
    size_t results = f->all_results ? group_items(f) : 1;
    size_t result_bytes = results * (f->device_size[0] ? f->device_size[0] : 1);
    size_t nkargs = 3 * (size_t)nargs + 2;
    _Alignas(16) unsigned char small_result[256];
    clarg small_kargs[32];
    void *result = NULL;
    if (f->proto.ret_type[0])
        result = result_bytes <= sizeof small_result
                     ? memset(small_result, 0, result_bytes)
                     : calloc(1, result_bytes);
    clarg *kargs = nkargs <= 32 ? small_kargs : malloc(sizeof *kargs * nkargs);
    if ((f->proto.ret_type[0] && !result) || !kargs) {
        if (result != small_result)
            free(result);
        if (kargs != small_kargs)
            free(kargs);
        return clframe_fail(CLFRAME_ERR_NO_MEMORY, "clfunction_call(%s)",
                        f->proto.name);
    }
    unsigned n = shim_args(f, result, results, nargs, args, kargs);
    rc = clkernel_set_global(f->kernel, f->group_dims, f->group);
    if (rc == 0)        /* one work-group: the local size is the global */
        rc = clkernel_set_local(f->kernel, f->group_dims, f->group);
    if (rc == 0)
        rc = clkernel_call_args(f->kernel, n, kargs);
    if (rc == 0 && ret && result)
        memcpy(ret, result, results * f->device_size[0]);
    if (kargs != small_kargs)
        free(kargs);
    if (result != small_result)
        free(result);
    return rc;
}
