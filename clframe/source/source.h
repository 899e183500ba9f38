/*
 * source.h: what clframe's source tools share: reading sources and their
 * includes, the preprocessor, kernel and function signatures, clfunction,
 * local_malloc, layout checks. They stand on the core (core/core.h), which
 * they call; the core never calls them.
 */
#ifndef CLFRAME_SOURCE_H
#define CLFRAME_SOURCE_H

#include "core/core.h"

/* ---- typedefs (typedefs.c) ------------------------------------------------ */

/* A source's typedefs, so that every name of a type leads to one. */
typedef struct clf_typedefs clf_typedefs;
/* Read from source (a preprocessed view, preproc.c); NULL if out of
 * memory. */
clf_typedefs *clf_typedefs_read(const char *source);
void clf_typedefs_free(clf_typedefs *td);
/* td's resolution as the core matches types with it (clf_types_match). */
clf_type_names clf_typedefs_names(const clf_typedefs *td);
/* type in canonical form: normalized (clf_normalize_type), then typedefs
 * followed (td may be NULL) to a built-in type or a struct's tag. */
void clf_typedefs_resolve(const clf_typedefs *td, const char *type,
                          char *out, size_t size);
/* The same, counting the pointer typedefs passed on the way (`typedef
 * __global float *gptr;` makes gptr a float and 1), the last one's address
 * space into *space (if given). */
int clf_typedefs_follow(const clf_typedefs *td, const char *type, char *out,
                        size_t size, cl_kernel_arg_address_qualifier *space);

/* ---- the source as the device compiler sees it (preproc.c) -------------- */

/* A copy of text with its comments turned into spaces (newlines kept, so
 * every line stays where it was); with code_too, string and character
 * literals and preprocessor lines as well. NULL if out of memory. */
char *clf_blank_comments(const char *text, int code_too);

/* *view: source (includes expanded) after the conditionals (#if, #ifdef,
 * #elif, #else, #define, #undef, with options' -D and -U and the macros
 * the device's compiler predefines), with text not compiled blanked and
 * macros expanded in the rest; its lines are the source's. For reading,
 * never for building. 0, or an error naming file and line
 * (CLFRAME_ERR_USAGE) or CLFRAME_ERR_NO_MEMORY; caller frees *view. Text
 * alone: no device is asked anything. */
int clf_preprocess(const clf_device_macros *device, const char *source,
                   const char *options, char **view);
/* The same with the macros of ctx's device (reading.c). */
int clf_preprocess_on(clctx *ctx, const char *source, const char *options,
                      char **view);
/* The source of program as the compiler sees it (a preprocessed view) and
 * its typedefs, read once and shared by its kernels; they stay the
 * program's (reading.c). 0, or the error that made the view (*view is then
 * NULL and *typedefs those of the source as written);
 * CLFRAME_ERR_NO_MEMORY leaves both NULL. */
int clf_program_reading(clctx *ctx, cl_program program, const char **view,
                        const clf_typedefs **typedefs);

/* The source tools' hooks for every build they ask for (build.c): the
 * local_malloc rewrite, build logs mapped to the user's files. */
extern const clf_build_hooks clf_source_build;

/* ---- device function prototypes (proto.c) -------------------------------- */

enum { CLF_MAX_PARAMS = 64 };

/* A device function's prototype as clframe reads it. */
typedef struct clf_proto {
    char name[128];
    char ret_decl[256];          /* the return type to declare: "struct Board" */
    char ret_type[128];          /* normalized ("Board", "float4"); "" if void */
    size_t ret_size;             /* size of a built-in return type, else 0 */
    unsigned nparams;
    clf_param params[CLF_MAX_PARAMS];
    char decl[CLF_MAX_PARAMS][256]; /* each value or element type to declare */
    char text[1024];             /* "int score(Board* b, int move)" */
} clf_proto;

/* clkernel_source for a caller that checks its structs' sizes itself
 * (clfunction's shims): no measuring build (kernel.c). */
clkernel *clf_kernel_source_unmeasured(clctx *ctx, const char *source,
                                       const char *name, const char *options);

/* Resolves the types of n parameters as a driver reported them (written
 * keeps the driver's name) through the source's typedefs. */
void clf_resolve_typedefs(const clf_typedefs *td, clf_param *params,
                          unsigned n);

/* Finds __kernel kname's prototype in source, a preprocessed view whose
 * typedefs are td: 0, CLFRAME_ERR_NOT_FOUND, or another error naming what
 * could not be read. */
int clf_proto_find_kernel(const char *source, const clf_typedefs *td,
                          const char *kname, clf_proto *out);
/* Finds fname's prototype in source, which is a preprocessed view
 * (clf_preprocess) as is clf_proto_parse's, whose typedefs are td (NULL:
 * read here); 0 or an error naming what failed. */
int clf_proto_find(const char *source, const clf_typedefs *td,
                   const char *fname, clf_proto *out);
/* Reads a prototype given as text ("int f(Board *b)"), with source's
 * typedefs (td, or NULL) known. */
int clf_proto_parse(const char *source, const clf_typedefs *td,
                    const char *prototype, const char *fname, clf_proto *out);

/* ---- sources (source.c) -------------------------------------------------- */

/* clframe's own device sources ("clframe/shared.h", "lib/mwc64x.h"),
 * compiled in from clframe/kernels (build/gen/clframe/sources.c). */
extern const clframe_source clf_library_sources[];

/* The text of the file at path, found as clkernel_file describes, with every
 * #include "..." expanded and #line markers so logs point at the real file.
 * options supplies -I folders. *resolved (if not NULL) gets where the file
 * was found and *embedded whether it is a source compiled into the program.
 * Caller frees both strings. NULL on error. */
char *clf_source_load(const char *path, const char *options, char **resolved,
                      int *embedded);
/* The same expansion for a source given as a string. */
char *clf_source_expand(const char *text, const char *origin,
                        const char *options);

/* What clkernel_file/_source and clfunction_file/_source share: checks
 * that text (a path when from_file, else a source) and name are given and
 * returns the expanded source with *origin naming it for messages
 * ("kernels/x.cl", "source of vadd", or a path with a note that the copy
 * compiled into the program was used, which debug also prints). Caller
 * frees both; NULL (with the error raised) on failure. */
char *clf_source_open(const char *caller, int from_file, const char *text,
                      const char *name, const char *options, int debug,
                      char **origin);

/* If line (len characters) is `#include "name"` or `#include <name>`,
 * copies name into buf and returns its closing character, else 0. */
int clf_source_include_name(const char *line, size_t len, char *buf,
                            size_t size);

/* A build log with "<kernel>:N:" locations (compilers that ignore #line,
 * like NVIDIA's) turned into "file:line:" of the expanded source's origin.
 * Caller frees; NULL if out of memory. */
char *clf_source_map_log(const char *log, const char *expanded);

/* ---- local_malloc and local_free (localmalloc.c) -------------------------- */

/* 1 if source's code (not its comments) names local_malloc or local_free:
 * only such a source is rewritten, so others never load libclang. */
int clf_local_malloc_used(const char *source);

/* source with its local_malloc and local_free calls rewritten, as the file
 * comment says, into *out (same lines; name is the file named where no
 * #line says otherwise: every message names the file and line of the
 * #line markers). options: the build's (-D, -U, -I and -cl-std are read).
 * local_limit: the device's local memory, 0 for no check. *report, if
 * asked: a line per kernel, its arena's bytes and the chain of calls that
 * reaches its peak. *warnings, if asked: a line per warning (a block left
 * live when a function returns), or NULL for none. 0, or a code with
 * *error saying what and where: CLFRAME_ERR_BUILD for a source refused,
 * CLFRAME_ERR_NOT_FOUND when libclang is missing. The caller frees *out,
 * *report, *warnings and *error. */
int clf_local_malloc_rewrite(const char *source, const char *name,
                             const char *options,
                             unsigned long long local_limit, char **out,
                             char **report, char **warnings, char **error);
/* The same in this process, where clf_local_malloc_rewrite runs it in a
 * child: for the fuzzer, which sees the coverage of its own process only. */
int clf_local_malloc_in_process(const char *source, const char *name,
                                const char *options,
                                unsigned long long local_limit, char **out,
                                char **report, char **warnings, char **error);
/* The child's answer, len bytes of buf: its code and its texts, each as
 * its length (a size_t) and bytes, NULL for an empty one (report and
 * warnings may be NULL: not wanted). 0 for a whole answer: 0 with no
 * error, or CLFRAME_ERR_BUILD or CLFRAME_ERR_NOT_FOUND with one and no
 * other text, and nothing after it. Else -1, with every text NULL. */
int clf_local_malloc_answer(const char *buf, size_t len, int *code,
                            char **out, char **report, char **warnings,
                            char **error);

#endif /* CLFRAME_SOURCE_H */
