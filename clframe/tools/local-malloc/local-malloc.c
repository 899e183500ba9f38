/*
 * local-malloc.c: clframe-local-malloc, the rewrite clframe makes of a
 * source that calls local_malloc and local_free (clframe/localmalloc.c),
 * for people who build their kernels elsewhere. Includes are expanded as
 * clkernel_file expands them, so the output builds on its own, and its
 * #line markers keep the compiler's messages on the user's files, as they
 * keep the rewrite's own errors and warnings.
 */
#include "internal.h"

#include <errno.h>
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

static int bad_usage(const char *fmt, const char *what)
{
    fprintf(stderr, "clframe-local-malloc: ");
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\n");
    usage(stderr);
    return 2;
}

/* -I and -D as build options, one word each (a value cannot hold blanks,
 * as in clkernel_file's options). */
static int add_option(clf_str *options, const char *flag, const char *value)
{
    if (!value || !*value)
        return -1;
    if (strpbrk(value, " \t\n"))
        return -1;
    clf_str_printf(options, " %s%s", flag, value);
    return 0;
}

int main(int argc, char **argv)
{
    clf_str options = {0};
    const char *in = NULL, *out = NULL;
    int report = 0;
    unsigned long long limit = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--report") == 0)
            report = 1;
        else if (strcmp(a, "-I") == 0 || strcmp(a, "-D") == 0) {
            if (add_option(&options, a, next))
                return bad_usage("%s needs a value without blanks", a);
            i++;
        } else if (strncmp(a, "-I", 2) == 0 || strncmp(a, "-D", 2) == 0) {
            char flag[3] = {a[0], a[1], '\0'};
            if (add_option(&options, flag, a + 2))
                return bad_usage("%s needs a value without blanks", flag);
        } else if (strcmp(a, "-o") == 0) {
            if (!next || !*next)
                return bad_usage("%s needs a file", a);
            out = argv[++i];
        } else if (strcmp(a, "--local-mem") == 0) {
            char *end;
            errno = 0;
            limit = next ? strtoull(next, &end, 10) : 0;
            if (!next || end == next || *end || errno || limit == 0 ||
                next[0] == '-')
                return bad_usage("--local-mem needs a positive number of "
                                 "bytes, not \"%s\"", next ? next : "");
            i++;
        } else if (a[0] == '-' && a[1])
            return bad_usage("unknown option %s", a);
        else if (in)
            return bad_usage("one input file only (%s is the second)", a);
        else
            in = a;
    }
    if (!in)
        return bad_usage("%s", "no input file");
    if (options.failed) {
        fprintf(stderr, "clframe-local-malloc: out of memory\n");
        return 1;
    }

    char *resolved = NULL, *text = NULL, *result = NULL, *lines = NULL;
    char *warnings = NULL, *error = NULL;
    int status = 1;
    int embedded;
    text = clf_source_load(in, options.data, &resolved, &embedded);
    if (!text)
        fprintf(stderr, "clframe-local-malloc: %s\n", clframe_last_error());
    else if (clf_local_malloc_rewrite(text, in, options.data, limit, &result,
                                      report ? &lines : NULL, &warnings,
                                      &error))
        fprintf(stderr, "clframe-local-malloc: %s\n", error);
    else {
        for (const char *w = warnings; w && *w;) {
            size_t n = strcspn(w, "\n");
            fprintf(stderr, "clframe-local-malloc: %.*s\n", (int)n, w);
            w += n + (w[n] == '\n');
        }
        clf_span span = {result, strlen(result)};
        if (out ? clf_write_atomic(out, &span, 1) != 0
                : fwrite(result, 1, span.len, stdout) != span.len ||
                      fflush(stdout) != 0)
            fprintf(stderr, "clframe-local-malloc: cannot write %s: %s\n",
                    out ? out : "standard output", strerror(errno));
        else
            status = 0;
        if (status == 0 && lines)
            fputs(lines, out ? stdout : stderr);
    }
    free(options.data);
    free(resolved);
    free(text);
    free(result);
    free(lines);
    free(warnings);
    free(error);
    return status;
}
