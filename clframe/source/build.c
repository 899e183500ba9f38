/*
 * build.c: what the source tools add to a program's build, handed to the
 * core's program.c as hooks (clf_source_build), which knows nothing of
 * source text itself: a source that calls local_malloc rewritten before it
 * is compiled, and the build log's locations mapped back to the user's
 * files.
 */
#include "source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A source that calls local_malloc, rewritten for the device's local
 * memory (localmalloc.c) into *rewritten; any other left as it is (NULL).
 * 0, or -1 with *log saying why. Its messages name the user's files and
 * lines (the #line markers of the expanded source); under CL_DEBUG they are
 * printed, warnings included, as build logs are. Only sources that miss the
 * cache come here, so a cached build never starts libclang. */
static int rewrite_local_malloc(clctx *ctx, const char *source,
                                const char *origin, const char *options,
                                char **rewritten, char **log)
{
    if (!clf_local_malloc_used(source))
        return 0;
    char *error = NULL, *warnings = NULL;
    double start = clf_now_ms();
    int rc = clf_local_malloc_rewrite(source, origin, options,
                                      ctx->local_mem, rewritten, NULL,
                                      ctx->debug ? &warnings : NULL, &error);
    ctx->local_malloc_ms += clf_now_ms() - start;
    ctx->local_malloc_rewrites++;
    const char *said = rc == 0 ? warnings : error ? error : "out of memory";
    if (ctx->debug && said) {
        size_t n = strlen(said);
        fprintf(stderr, "clframe: local_malloc rewrite of %s (%s):\n%s%s",
                origin, options, said, n && said[n - 1] == '\n' ? "" : "\n");
    }
    free(warnings);
    if (rc == 0)
        return 0;
    clf_str s = {0};
    clf_str_printf(&s, "local_malloc: %s", error ? error : "out of memory");
    free(error);
    *log = s.data;
    return -1;
}

const clf_build_hooks clf_source_build = {
    .prepare = rewrite_local_malloc,
    .map_log = clf_source_map_log,
};
