/*
 * program.c: building OpenCL programs, once per (source, options) and
 * context, so that several kernels from one file share one build, and a
 * kernel made again from the same source (a solver called in a loop) finds
 * its program still built: the last PROGRAMS_KEPT programs that no kernel
 * uses stay built until the context is freed.
 *
 * Every build adds -cl-kernel-arg-info (argument checking needs the kernel's
 * own signature) and, under CL_DEBUG, -g -cl-opt-disable (OpenCL's spelling of
 * -O0); a failed build's error message carries the compiler's log. The
 * source is handed to the compiler as it is: what the source tools do around
 * a compile (the local_malloc rewrite, the log's locations mapped back to
 * the user's files) comes in as hooks from the caller (clf_build_hooks).
 *
 * Before compiling, each build looks in the on-disk binary cache (cache.c)
 * under the exact options it is about to use, and a program compiled here is
 * stored there under the options that built it, so the retry without
 * -cl-kernel-arg-info below is cached as what it is.
 */
#include "core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A build costs from milliseconds to seconds (PoCL preprocesses and hashes
 * the whole source even when its own cache has the binary); a kept program
 * holds only its binaries. */
enum { PROGRAMS_KEPT = 16 };

struct clf_program {
    cl_program program;
    char *source;
    char *options;               /* the user's plus clframe's additions */
    int arg_info;                /* built with -cl-kernel-arg-info */
    int refs;                    /* kernels using it; 0: kept for reuse */
    clf_program *next;           /* most recently used first */
    clf_program_extra extra;     /* the layer above's, freed with it */
};

static char *build_log(clctx *ctx, cl_program program)
{
    size_t size = 0;
    clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, 0, NULL,
                          &size);
    char *log = malloc(size + 1);
    if (!log)
        return NULL;
    log[0] = '\0';
    clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, size,
                          log, NULL);
    log[size] = '\0';
    return log;
}

static int blank(const char *s)
{
    for (; s && *s; s++)
        if (*s != ' ' && *s != '\n' && *s != '\r' && *s != '\t')
            return 0;
    return 1;
}

static char *full_options(clctx *ctx, const char *options, int arg_info)
{
    clf_str s = {0};
    /* Oclgrind rejects -g (it keeps the source for its reports anyway).
     * It always gets -cl-opt-disable: Oclgrind 21.10's uninitialized-value
     * check crashes on the vector shuffles with undefined lanes that the
     * optimizer makes of float3 arithmetic (a ray tracer's vector code), and
     * unoptimized code is the closer to the source it reports on. */
    clf_str_printf(&s, "%s%s%s", options ? options : "",
                   arg_info && !ctx->no_arg_info ? " -cl-kernel-arg-info" : "",
                   ctx->on_oclgrind ? " -cl-opt-disable"
                   : ctx->debug ? " -g -cl-opt-disable" : "");
    if (s.failed) {
        free(s.data);
        return NULL;
    }
    return s.data;
}

/* One compile of source with options: the program, or NULL with *err set.
 * *log gets the build log, its locations mapped to the user's files. */
static cl_program compile_source(clctx *ctx, const char *source,
                                 const char *origin, const char *options,
                                 const clf_build_hooks *hooks, cl_int *err,
                                 char **log)
{
    *log = NULL;
    cl_program program = clCreateProgramWithSource(ctx->context, 1, &source,
                                                   NULL, err);
    if (*err != CL_SUCCESS)
        return NULL;
    clf_track(ctx, 1);
    ctx->stats.compiles++;
    *err = clBuildProgram(program, 1, &ctx->device, options, NULL, NULL);
    char *raw_log = build_log(ctx, program);
    if (raw_log && hooks && hooks->map_log) {
        *log = hooks->map_log(raw_log, source);
        free(raw_log);
    } else {
        *log = raw_log;
    }
    if (ctx->debug && !blank(*log))
        fprintf(stderr, "clframe: build log of %s (%s):\n%s\n", origin,
                options, *log);
    if (*err != CL_SUCCESS) {
        clReleaseProgram(program);
        clf_track(ctx, -1);
        return NULL;
    }
    return program;
}

/* The program for source with options: from the binary cache if it is
 * there, else (prepared by the hooks: local_malloc rewritten) compiled and
 * then cached. As compile_source otherwise. */
static cl_program compile(clctx *ctx, const char *source, const char *origin,
                          const char *options, const clf_build_hooks *hooks,
                          cl_int *err, char **log)
{
    *log = NULL;
    double start = clf_now_ms();
    cl_program program = clf_cache_load(ctx, source, options);
    if (program) {
        *err = CL_SUCCESS;
        if (clf_trace_on())
            clf_trace_build(ctx, origin, "cached", start, clf_now_ms());
        return program;
    }
    char *rewritten = NULL;
    if (hooks && hooks->prepare &&
        hooks->prepare(ctx, source, origin, options, &rewritten, log)) {
        *err = CL_BUILD_PROGRAM_FAILURE;
        return NULL;
    }
    program = compile_source(ctx, rewritten ? rewritten : source, origin,
                             options, hooks, err, log);
    free(rewritten);
    if (program) {
        ctx->stats.cache_misses++;
        clf_cache_store(ctx, program, source, options);
    }
    if (clf_trace_on())
        clf_trace_build(ctx, origin, program ? "compiled" : "failed", start,
                        clf_now_ms());
    return program;
}

static cl_program build(clctx *ctx, const char *source, const char *origin,
                        const char *user_options, const clf_build_hooks *hooks,
                        int *arg_info)
{
    *arg_info = 1;
    char *options = full_options(ctx, user_options, 1);
    if (!options) {
        clframe_fail(CLFRAME_ERR_NO_MEMORY, "building %s", origin);
        return NULL;
    }
    cl_int err;
    char *log;
    cl_program program = compile(ctx, source, origin, options, hooks, &err,
                                 &log);
    if (!program && err == CL_BUILD_PROGRAM_FAILURE && ctx->on_nvidia) {
        /* NVIDIA's OpenCL 3.0 driver (seen on an H200) writes PTX that its
         * own assembler rejects for a kernel without parameters when
         * -cl-kernel-arg-info is on. A program that builds without it has
         * its kernels' signatures read from the source alone (kernel.c),
         * with no driver's report to check them against. Elsewhere a
         * failed build is the source's fault: compiling it again would only
         * double the wait for the same log. */
        char *plain = full_options(ctx, user_options, 0), *plain_log = NULL;
        cl_int plain_err;
        if (plain)
            program = compile(ctx, source, origin, plain, hooks, &plain_err,
                              &plain_log);
        if (program)
            *arg_info = 0;
        if (program && ctx->debug)
            fprintf(stderr, "clframe: %s builds only without "
                    "-cl-kernel-arg-info on %s: its kernels' signatures come "
                    "from the source alone\n", origin, ctx->device_name);
        free(plain);
        free(plain_log);
    }
    if (!program) {
        if (err == CL_BUILD_PROGRAM_FAILURE)
            clframe_fail(CLFRAME_ERR_BUILD, "%s does not compile on %s "
                     "(options: %s). Build log:\n%s", origin,
                     ctx->device_name, options, log ? log : "(none)");
        else
            clf_fail_cl(err, "building", "%s with options \"%s\"%s%s",
                        origin, options, blank(log) ? "" : ". Build log:\n",
                        log ? log : "");
    }
    free(log);
    free(options);
    return program;
}

/* Moves the node at *pp to the front of the list: the most recently used. */
static void to_front(clctx *ctx, clf_program **pp)
{
    clf_program *p = *pp;
    *pp = p->next;
    p->next = ctx->programs;
    ctx->programs = p;
}

cl_program clf_program_get(clctx *ctx, const char *source, const char *origin,
                           const char *options, const clf_build_hooks *hooks)
{
    char *opts = full_options(ctx, options, 1);
    if (!opts) {
        clframe_fail(CLFRAME_ERR_NO_MEMORY, "building %s", origin);
        return NULL;
    }
    for (clf_program **pp = &ctx->programs; *pp; pp = &(*pp)->next) {
        clf_program *p = *pp;
        if (strcmp(p->options, opts) == 0 && strcmp(p->source, source) == 0) {
            free(opts);
            if (p->refs++ == 0)
                clf_track(ctx, 1);          /* kept, now in use again */
            to_front(ctx, pp);
            return p->program;
        }
    }
    clf_program *p = calloc(1, sizeof *p);
    char *src = clf_strdup(source);
    int arg_info = 0;
    cl_program program = p && src ? build(ctx, source, origin, options,
                                          hooks, &arg_info) : NULL;
    if (!program) {
        if (!p || !src)
            clframe_fail(CLFRAME_ERR_NO_MEMORY, "building %s", origin);
        free(p);
        free(src);
        free(opts);
        return NULL;
    }
    *p = (clf_program){.program = program, .source = src, .options = opts,
                       .arg_info = arg_info && !ctx->no_arg_info, .refs = 1,
                       .next = ctx->programs};
    ctx->programs = p;
    return program;
}

/* Releases the program of node p, which the caller has unlinked. A kept
 * program was already untracked when its last kernel let it go. */
static void free_node(clctx *ctx, clf_program *p)
{
    clReleaseProgram(p->program);
    if (p->refs > 0)
        clf_track(ctx, -1);
    free(p->source);
    free(p->options);
    if (p->extra.free)
        p->extra.free(p->extra.data);
    free(p);
}

/* Frees the least recently used kept programs beyond PROGRAMS_KEPT. */
static void drop_unused(clctx *ctx)
{
    int kept = 0;
    for (clf_program **pp = &ctx->programs; *pp;) {
        clf_program *p = *pp;
        if (p->refs == 0 && ++kept > PROGRAMS_KEPT) {
            *pp = p->next;
            free_node(ctx, p);
        } else {
            pp = &p->next;
        }
    }
}

void clf_program_put(clctx *ctx, cl_program program)
{
    for (clf_program **pp = &ctx->programs; *pp; pp = &(*pp)->next) {
        clf_program *p = *pp;
        if (p->program != program)
            continue;
        if (--p->refs == 0) {
            /* Kept, not counted among the live objects: it is the
             * context's, and goes with it. */
            clf_track(ctx, -1);
            to_front(ctx, pp);
            drop_unused(ctx);
        }
        return;
    }
}

void clf_program_free_all(clctx *ctx)
{
    while (ctx->programs) {
        clf_program *p = ctx->programs;
        ctx->programs = p->next;
        free_node(ctx, p);
    }
}

static clf_program *node_of(clctx *ctx, cl_program program)
{
    for (clf_program *p = ctx->programs; p; p = p->next)
        if (p->program == program)
            return p;
    return NULL;
}

int clf_program_arg_info(clctx *ctx, cl_program program)
{
    clf_program *p = node_of(ctx, program);
    return p && p->arg_info;
}

clf_program_extra *clf_program_extra_of(clctx *ctx, cl_program program,
                                        const char **source,
                                        const char **options)
{
    clf_program *p = node_of(ctx, program);
    if (!p)
        return NULL;
    *source = p->source;
    *options = p->options;
    return &p->extra;
}
