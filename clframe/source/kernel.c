/*
 * kernel.c: clkernel_file and clkernel_source, a __kernel made from its
 * source.
 *
 * At creation the kernel's signature is read from its source as the
 * compiler sees it (proto.c, on every platform), and checked against the
 * driver's own report where the program has one (-cl-kernel-arg-info), into
 * a small table of parameters, which the core's launch.c checks every call
 * against; the sizes of its struct parameters are measured by a probe.
 */
#include "source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A kernel's signature as it is read, into the table handed to the core
 * (clf_kernel_set_params). */
typedef struct signature_reading {
    clctx *ctx;
    cl_program program;
    cl_kernel kernel;
    const char *name;
    unsigned nparams;
    clf_param *params;
    char *signature;
    const clf_typedefs *typedefs; /* its source's, its program's (reading.c) */
    int cross_check;             /* the driver's report against the source's
                                    reading: 1 agreed, -1 differed, 0 none */
    /* Struct parameters: each one's type as the source (or the driver)
     * spells it, for measuring their sizes (read_struct_sizes). */
    char **struct_decl;
} signature_reading;

/* ---- signature ----------------------------------------------------------- */

/* Keeps what sizeof of parameter i's struct type takes: the source's
 * declaration, or the driver's spelling ("struct Pair*" as "struct Pair",
 * when pointer). 0 or -1 when out of memory. */
static int keep_struct_decl(signature_reading *k, unsigned i, const char *raw,
                            int pointer)
{
    if (!k->struct_decl &&
        !(k->struct_decl = calloc(k->nparams, sizeof *k->struct_decl)))
        return -1;
    size_t n = pointer ? strcspn(raw, "*") : strlen(raw);
    while (n && raw[n - 1] == ' ')
        n--;
    if (!(k->struct_decl[i] = malloc(n + 1)))
        return -1;
    memcpy(k->struct_decl[i], raw, n);
    k->struct_decl[i][n] = '\0';
    return 0;
}

/* Parameters whose size clframe measures: structs (and unions, enums)
 * that the host hands over, by value or in an array; not __local ones. */
static int measured(const clf_param *p)
{
    return !clf_builtin_size(p->type) && strcmp(p->type, "void") != 0 &&
           !clf_is_image_type(p->type) &&
           p->space != CL_KERNEL_ARG_ADDRESS_LOCAL;
}

/* Parameter i as the driver reports it, with its type's spelling in raw.
 * 1 when the driver has nothing to say, else 0 or an error. */
static int driver_param(signature_reading *k, cl_uint i, clf_param *p, char *raw,
                        size_t raw_size)
{
    size_t size = 0;
    cl_kernel_arg_type_qualifier tq = 0;
    memset(p, 0, sizeof *p);
    if (clGetKernelArgInfo(k->kernel, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER,
                           sizeof p->space, &p->space, NULL) != CL_SUCCESS ||
        clGetKernelArgInfo(k->kernel, i, CL_KERNEL_ARG_TYPE_NAME, 0, NULL,
                           &size) != CL_SUCCESS)
        return 1;
    if (size >= raw_size || size >= sizeof p->type)
        return clframe_fail(CLFRAME_ERR_USAGE, "kernel %s: the type of "
                            "parameter %u has a %zu-character name; clframe "
                            "reads names up to %zu", k->name, i + 1, size,
                            sizeof p->type - 1);
    raw[0] = '\0';
    clGetKernelArgInfo(k->kernel, i, CL_KERNEL_ARG_TYPE_NAME, raw_size, raw,
                       NULL);
    clGetKernelArgInfo(k->kernel, i, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof tq,
                       &tq, NULL);
    clGetKernelArgInfo(k->kernel, i, CL_KERNEL_ARG_ACCESS_QUALIFIER,
                       sizeof p->access, &p->access, NULL);
    clGetKernelArgInfo(k->kernel, i, CL_KERNEL_ARG_NAME, sizeof p->name - 1,
                       p->name, NULL);
    clf_normalize_type(raw, p->type, sizeof p->type, &p->pointer);
    /* Drivers call __constant pointers const; the source may not. */
    p->is_const = (tq & CL_KERNEL_ARG_TYPE_CONST) != 0 &&
                  p->space != CL_KERNEL_ARG_ADDRESS_CONSTANT;
    if (!clf_is_image_type(p->type))
        p->access = CL_KERNEL_ARG_ACCESS_NONE;
    return 0;
}

/* The driver's report of every parameter, into *out (typedefs resolved),
 * with each type's spelling in *raws (n of 512 bytes): 0; 1 when the
 * program has none; or an error. */
static int driver_params(signature_reading *k, clf_param **out, char (**raws)[512])
{
    *out = NULL;
    *raws = NULL;
    if (!clf_program_arg_info(k->ctx, k->program))
        return 1;
    clf_param *p = calloc(k->nparams ? k->nparams : 1, sizeof *p);
    char (*raw)[512] = calloc(k->nparams ? k->nparams : 1, sizeof *raw);
    int rc = p && raw ? 0 : clframe_fail(CLFRAME_ERR_NO_MEMORY, "kernel %s",
                                         k->name);
    for (unsigned i = 0; rc == 0 && i < k->nparams; i++)
        rc = driver_param(k, i, &p[i], raw[i], sizeof raw[i]);
    if (rc) {
        free(p);
        free(raw);
        return rc;
    }
    clf_resolve_typedefs(k->typedefs, p, k->nparams);
    *out = p;
    *raws = raw;
    return 0;
}

/* Kernel k's prototype from its source, or NULL with *why saying why it
 * could not be read (a copy; NULL too when out of memory). */
static clf_proto *source_params(signature_reading *k, char **why)
{
    const char *view;
    *why = NULL;
    int rc = clf_program_reading(k->ctx, k->program, &view, &k->typedefs);
    clf_proto *pr = rc ? NULL : malloc(sizeof *pr);
    if (!rc && !pr)
        rc = clframe_fail(CLFRAME_ERR_NO_MEMORY, "kernel %s", k->name);
    if (!rc)
        rc = clf_proto_find_kernel(view, k->typedefs, k->name, pr);
    if (!rc && pr->nparams != k->nparams)
        rc = clframe_fail(CLFRAME_ERR_USAGE, "the prototype found has %u "
                          "parameters, the compiled kernel %u", pr->nparams,
                          k->nparams);
    if (rc) {
        free(pr);
        *why = clf_strdup(clframe_last_error());
        return NULL;
    }
    return pr;
}

/* 0 if the source's reading of parameter i and the driver's agree on what
 * a call must pass (names may differ: PoCL renames some). */
static int same_param(const clf_param *s, const clf_param *d)
{
    return s->space == d->space && s->pointer == d->pointer &&
           s->access == d->access && strcmp(s->type, d->type) == 0;
}

static int read_params(signature_reading *k)
{
    cl_uint n = 0;
    cl_int err = clGetKernelInfo(k->kernel, CL_KERNEL_NUM_ARGS, sizeof n, &n,
                                 NULL);
    if (err != CL_SUCCESS)
        return clf_fail_cl(err, "clGetKernelInfo", "reading the parameters "
                           "of kernel %s", k->name);
    k->nparams = n;
    if (!(k->params = calloc(n ? n : 1, sizeof *k->params)))
        return clframe_fail(CLFRAME_ERR_NO_MEMORY, "kernel %s", k->name);
    char *why;
    clf_proto *src = source_params(k, &why);
    if (!src && !why)
        return clframe_fail(CLFRAME_ERR_NO_MEMORY, "kernel %s", k->name);
    clf_param *drv;
    char (*raw)[512];
    int rc = driver_params(k, &drv, &raw);
    if (rc < 0) {
        free(src);
        free(why);
        return rc;
    }
    rc = 0;
    int use_driver = !src;
    k->cross_check = src && drv ? 1 : 0;
    for (unsigned i = 0; src && drv && i < n; i++)
        if (!same_param(&src->params[i], &drv[i])) {
            k->cross_check = -1;
            use_driver = 1;
            if (!k->ctx->debug)
                continue;
            char a[300], b[300];
            clf_describe_param(&src->params[i], a, sizeof a);
            clf_describe_param(&drv[i], b, sizeof b);
            fprintf(stderr, "clframe: kernel %s: parameter %u reads as %s in "
                    "the source, %s by the driver: the driver's is used\n",
                    k->name, i + 1, a, b);
        }
    if (!src && !drv) {
        rc = clframe_fail(CLFRAME_ERR_USAGE, "kernel %s: its parameters "
                          "could not be read from the source (%s), and %s "
                          "reports none for it (its program built without "
                          "-cl-kernel-arg-info), so its calls could not be "
                          "checked", k->name, why, k->ctx->device_name);
    } else if (!src && k->ctx->debug) {
        fprintf(stderr, "clframe: kernel %s: the driver's signature is used: "
                "%s\n", k->name, why);
    }
    for (unsigned i = 0; rc == 0 && i < n; i++) {
        clf_param *p = &k->params[i];
        *p = use_driver ? drv[i] : src->params[i];
        if (src)                        /* the names the user wrote */
            snprintf(p->name, sizeof p->name, "%s", src->params[i].name);
        p->size = p->pointer ? 0 : clf_builtin_size(p->type);
        p->object = !clf_is_image_type(p->type) ? CLARG_KIND_NONE
                    : strcmp(p->type, "sampler_t") == 0 ? CLARG_KIND_SAMPLER
                                                         : CLARG_KIND_IMAGE;
        if (measured(p) &&
            keep_struct_decl(k, i, use_driver ? raw[i] : src->decl[i],
                             use_driver))
            rc = clframe_fail(CLFRAME_ERR_NO_MEMORY, "kernel %s", k->name);
    }
    free(src);
    free(why);
    free(drv);
    free(raw);
    return rc;
}

static int make_signature(signature_reading *k)
{
    clf_str s = {0};
    clf_str_printf(&s, "%s(", k->name);
    for (unsigned i = 0; i < k->nparams; i++) {
        char d[600];
        clf_describe_param(&k->params[i], d, sizeof d);
        clf_str_printf(&s, "%s%s %s", i ? ", " : "", d, k->params[i].name);
    }
    clf_str_printf(&s, ")");
    if (s.failed) {
        free(s.data);
        return clframe_fail(CLFRAME_ERR_NO_MEMORY, "kernel %s", k->name);
    }
    k->signature = s.data;
    return 0;
}


/* ---- creation ------------------------------------------------------------ */

/* Measures the device's sizeof of each struct parameter's type with a
 * probe added to the kernel's own source: one more build, when the kernel
 * is made rather than at its first call, so that a first call costs what
 * the others do. If that build fails, the sizes stay unchecked (said under
 * CL_DEBUG): the kernel works as before. */
static void read_struct_sizes(signature_reading *k, const char *source,
                              const char *options)
{
    clf_str s = {0};
    clf_str_printf(&s, "%s\n__kernel void clf_struct_sizes_(__global ulong "
                   "*clf_out)\n{\n", source);
    for (unsigned i = 0; i < k->nparams; i++)
        if (k->struct_decl[i])
            clf_str_printf(&s, "    clf_out[%u] = sizeof(%s);\n", i,
                           k->struct_decl[i]);
    clf_str_printf(&s, "}\n");
    cl_ulong *sizes = calloc(k->nparams, sizeof *sizes);
    int rc = s.failed || !sizes
                 ? clframe_fail(CLFRAME_ERR_NO_MEMORY, "kernel %s", k->name)
                 : clf_probe(k->ctx, s.data, k->name, "clf_struct_sizes_",
                             options, &clf_source_build, sizes, k->nparams);
    for (unsigned i = 0; rc == 0 && i < k->nparams; i++)
        if (k->struct_decl[i])
            k->params[i].struct_size = (size_t)sizes[i];
    if (rc && k->ctx->debug)
        fprintf(stderr, "clframe: %s: the sizes of its struct parameters "
                "could not be measured, so they are not checked: %s\n",
                k->name, clframe_last_error());
    free(sizes);
    free(s.data);
}

/* Frees what a reading made, but the table handed to the core. */
static void reading_free(signature_reading *k)
{
    for (unsigned i = 0; k->struct_decl && i < k->nparams; i++)
        free(k->struct_decl[i]);
    free(k->struct_decl);
}

static clkernel *kernel_from_text(clctx *ctx, const char *text,
                                  const char *origin, const char *name,
                                  const char *options, int measure)
{
    cl_program program = clf_program_get(ctx, text, origin, options,
                                         &clf_source_build);
    if (!program)
        return NULL;
    clkernel *made = clf_kernel_new(ctx, program, name, origin);
    if (!made)
        return NULL;
    signature_reading k = {.ctx = ctx, .program = program,
                           .kernel = clkernel_raw(made),
                           .name = clkernel_name(made)};
    if (read_params(&k) || make_signature(&k)) {
        reading_free(&k);
        free(k.params);
        free(k.signature);
        clkernel_free(made);
        return NULL;
    }
    if (k.struct_decl && measure)
        read_struct_sizes(&k, text, options);
    clf_kernel_set_params(made, &(clf_param_table){
        .nparams = k.nparams, .params = k.params, .signature = k.signature,
        .names = clf_typedefs_names(k.typedefs),
        .cross_check = k.cross_check});
    reading_free(&k);
    return made;
}

static clkernel *kernel_from(clctx *ctx, const char *caller, int from_file,
                             const char *text, const char *name,
                             const char *options, int measure)
{
    char *origin;
    if (!(ctx = clf_ctx(ctx)))
        return NULL;
    char *expanded = clf_source_open(caller, from_file, text, name, options,
                                     ctx->debug, &origin);
    if (!expanded)
        return NULL;
    clkernel *k = kernel_from_text(ctx, expanded, origin, name, options,
                                   measure);
    free(expanded);
    free(origin);
    return k;
}

clkernel *clkernel_file(clctx *ctx, const char *path, const char *name,
                        const char *options)
{
    return kernel_from(ctx, "clkernel_file", 1, path, name, options, 1);
}

clkernel *clkernel_source(clctx *ctx, const char *source, const char *name,
                          const char *options)
{
    return kernel_from(ctx, "clkernel_source", 0, source, name, options, 1);
}

clkernel *clf_kernel_source_unmeasured(clctx *ctx, const char *source,
                                       const char *name, const char *options)
{
    return kernel_from(ctx, "clkernel_source", 0, source, name, options, 0);
}
