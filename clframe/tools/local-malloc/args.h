/*
 * args.h: clframe-local-malloc's command line, read apart from its main so
 * that a fuzzing harness (tests/fuzz/localmalloc-args.c) can give it any
 * argument vector.
 */
#ifndef CLFRAME_TOOLS_LOCAL_MALLOC_ARGS_H
#define CLFRAME_TOOLS_LOCAL_MALLOC_ARGS_H

#include "internal.h"

#include <stddef.h>

/* What the command line asks for. */
typedef struct lm_args {
    const char *in;               /* the source (an element of argv) */
    const char *out;              /* -o's file, or NULL: standard output */
    int report;                   /* --report */
    unsigned long long limit;     /* --local-mem, 0 when not given */
    clf_str options;              /* " -IDIR -DNAME=VALUE": build options */
} lm_args;

/* The exit statuses the arguments can lead to. */
enum { LM_GO_ON = 0, LM_HELP = -1, LM_BAD_USAGE = 2, LM_NO_MEMORY = 1 };

/* Reads argv[1] to argv[argc - 1] into *a: LM_GO_ON, LM_HELP (-h, --help),
 * LM_BAD_USAGE with a message for the user in error (size bytes, never
 * empty), or LM_NO_MEMORY. Free *a with lm_args_free whatever it
 * returned. */
int lm_args_parse(int argc, char **argv, lm_args *a, char *error,
                  size_t size);

void lm_args_free(lm_args *a);

#endif /* CLFRAME_TOOLS_LOCAL_MALLOC_ARGS_H */
