/*
 * local-malloc.c: clframe-local-malloc, the rewrite clframe makes of a
 * source that calls local_malloc and local_free (clframe/source/localmalloc.c),
 * for people who build their kernels elsewhere. Includes are expanded as
 * clkernel_file expands them, so the output builds on its own, and its
 * #line markers keep the compiler's messages on the user's files, as they
 * keep the rewrite's own errors and warnings.
 */
#include "args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out,
        "usage: clframe-local-malloc [-I DIR] [-D NAME[=VALUE]] [-o OUT.cl]\n"
        "                            [--report] [--local-mem BYTES] IN.cl\n"
        "\n"
        "Rewrites IN.cl's local_malloc(bytes) and local_free(bytes) calls into\n"
        "one __local arena per kernel, sized at its peak, and writes the\n"
        "result (includes expanded) to OUT.cl or standard output.\n"
        "  -I DIR, -D NAME[=VALUE]  as for the device compiler\n"
        "  --report                 print each kernel's arena and the chain\n"
        "                           of calls that reaches its peak\n"
        "  --local-mem BYTES        refuse a kernel that needs more local\n"
        "                           memory than this\n"
        "Warnings (a block still live when a function returns: it stays\n"
        "allocated until the kernel ends) go to standard error.\n"
        "Exit status: 0 done, 1 source refused or unreadable, 2 bad usage.\n");
}

/* Writes result to out: 0, or 1 after the message. Without out, to
 * standard output, which main checks at the end. */
static int write_result(const char *out, const char *result)
{
    size_t len = strlen(result);
    if (!out) {
        fwrite(result, 1, len, stdout);
        return 0;
    }
    clframe_save *s;
    if (clframe_save_begin(out, &s) == 0) {
        fwrite(result, 1, len, clframe_save_stream(s));
        if (clframe_save_end(s, 1) == 0)
            return 0;
    }
    fprintf(stderr, "clframe-local-malloc: %s\n", clframe_last_error());
    return 1;
}

/* The rewrite of the source the arguments name, written out: 0, or 1
 * after the messages. */
static int rewrite(const lm_args *a)
{
    char *resolved = NULL, *text = NULL, *result = NULL, *lines = NULL;
    char *warnings = NULL, *error = NULL;
    int status = 1;
    int embedded;
    text = clf_source_load(a->in, a->options.data, &resolved, &embedded);
    if (!text)
        fprintf(stderr, "clframe-local-malloc: %s\n", clframe_last_error());
    else if (clf_local_malloc_rewrite(text, a->in, a->options.data,
                                      a->limit, &result,
                                      a->report ? &lines : NULL, &warnings,
                                      &error))
        fprintf(stderr, "clframe-local-malloc: %s\n", error);
    else {
        for (const char *w = warnings; w && *w;) {
            size_t n = strcspn(w, "\n");
            fprintf(stderr, "clframe-local-malloc: %.*s\n", (int)n, w);
            w += n + (w[n] == '\n');
        }
        status = write_result(a->out, result);
        if (status == 0 && lines)
            fputs(lines, a->out ? stdout : stderr);
    }
    free(resolved);
    free(text);
    free(result);
    free(lines);
    free(warnings);
    free(error);
    return status;
}

int main(int argc, char **argv)
{
    lm_args a;
    char error[512];
    int status = lm_args_parse(argc, argv, &a, error, sizeof error);
    if (status == LM_HELP) {
        usage(stdout);
        status = 0;
    } else if (status == LM_BAD_USAGE) {
        fprintf(stderr, "clframe-local-malloc: %s\n", error);
        usage(stderr);
    } else if (status == LM_NO_MEMORY)
        fprintf(stderr, "clframe-local-malloc: out of memory\n");
    else
        status = rewrite(&a);
    lm_args_free(&a);
    /* Whatever went to standard output (the result, the report, the
     * usage) must have reached it. */
    if (clframe_save_close_stdout() != 0) {
        fprintf(stderr, "clframe-local-malloc: %s\n", clframe_last_error());
        status = status ? status : 1;
    }
    return status;
}
