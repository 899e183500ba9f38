/*
 * args.c: clframe-local-malloc's command line (args.h): -I and -D, joined
 * (-Idir) or apart (-I dir), -o, --report, --local-mem and one input.
 * Every refusal says which argument and why.
 */
#include "args.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* LM_BAD_USAGE, with the message made from fmt in error. */
static int refuse(char *error, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int refuse(char *error, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(error, size, fmt, ap);
    va_end(ap);
    return LM_BAD_USAGE;
}

/* -I and -D as build options, one word each (a value cannot hold blanks,
 * as in clkernel_file's options, nor any other white space, which a
 * compiler would take for a blank between two options). */
static int add_option(clf_str *options, const char *flag, const char *value)
{
    if (!value || !*value || strpbrk(value, " \t\n\v\f\r"))
        return -1;
    clf_str_printf(options, " %s%s", flag, value);
    return 0;
}

/* --local-mem's value: a positive decimal number of bytes, or 0. */
static unsigned long long byte_count(const char *text)
{
    if (!text || text[0] < '0' || text[0] > '9')
        return 0;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(text, &end, 10);
    return *end || errno ? 0 : n;
}

int lm_args_parse(int argc, char **argv, lm_args *a, char *error,
                  size_t size)
{
    *a = (lm_args){0};
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)
            return LM_HELP;
        else if (strcmp(arg, "--report") == 0)
            a->report = 1;
        else if (strcmp(arg, "-I") == 0 || strcmp(arg, "-D") == 0) {
            if (add_option(&a->options, arg, next))
                return refuse(error, size, "%s needs a value without "
                              "blanks", arg);
            i++;
        } else if (strncmp(arg, "-I", 2) == 0 || strncmp(arg, "-D", 2) == 0) {
            char flag[3] = {arg[0], arg[1], '\0'};
            if (add_option(&a->options, flag, arg + 2))
                return refuse(error, size, "%s needs a value without "
                              "blanks", flag);
        } else if (strcmp(arg, "-o") == 0) {
            if (!next || !*next)
                return refuse(error, size, "-o needs a file");
            a->out = argv[++i];
        } else if (strcmp(arg, "--local-mem") == 0) {
            if (!(a->limit = byte_count(next)))
                return refuse(error, size, "--local-mem needs a positive "
                              "number of bytes, not \"%s\"",
                              next ? next : "");
            i++;
        } else if (arg[0] == '-' && arg[1])
            return refuse(error, size, "unknown option %s", arg);
        else if (a->in)
            return refuse(error, size, "one input file only (%s is the "
                          "second)", arg);
        else
            a->in = arg;
    }
    if (!a->in)
        return refuse(error, size, "no input file");
    return a->options.failed ? LM_NO_MEMORY : LM_GO_ON;
}

void lm_args_free(lm_args *a)
{
    free(a->options.data);
    *a = (lm_args){0};
}
