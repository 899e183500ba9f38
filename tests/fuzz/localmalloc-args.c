/* localmalloc-args.c: clframe-local-malloc's command line (lm_args_parse,
 * clframe/tools/local-malloc/args.c) on any argument vector: the bytes
 * split at each NUL into arguments after the program's name. It must
 * never crash; a refusal is LM_BAD_USAGE with a message; what it accepts
 * must be what was given: one input and at most one -o among the
 * arguments, and build options made of -I and -D words alone. */
#include "fuzz.h"
#include "tools/local-malloc/args.h"

#include <ctype.h>

enum { MAX_ARGS = 64 };

/* 1 if p is one of argv[1] to argv[argc - 1]. */
static int is_argument(const char *p, int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (p == argv[i])
            return 1;
    return 0;
}

/* 1 if options is empty or " -IDIR -DNAME..." words, white space only
 * between them. */
static int options_are_words(const char *options)
{
    for (const char *p = options ? options : ""; *p;) {
        if (*p != ' ' || p[1] != '-' || (p[2] != 'I' && p[2] != 'D') ||
            !p[3] || isspace((unsigned char)p[3]))
            return 0;
        p += 3;
        while (*p && !isspace((unsigned char)*p))
            p++;
    }
    return 1;
}

/* 1 if an argument asks for help. */
static int asks_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return 1;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char *argv[MAX_ARGS + 2] = {"clframe-local-malloc"};
    int argc = 1;
    for (size_t at = 0; at <= size && argc <= MAX_ARGS && size > 0;) {
        argv[argc++] = text + at;
        at += strlen(text + at) + 1;
    }
    argv[argc] = NULL;
    lm_args a;
    char error[512] = "";
    int rc = lm_args_parse(argc, argv, &a, error, sizeof error);
    int ok = rc == LM_GO_ON
        ? a.in && is_argument(a.in, argc, argv) &&
          (!a.out || (is_argument(a.out, argc, argv) && *a.out)) &&
          options_are_words(a.options.data)
        : rc == LM_HELP ? asks_help(argc, argv)
        : rc == LM_BAD_USAGE ? error[0] != '\0' &&
                               memchr(error, '\0', sizeof error) != NULL
        : rc == LM_NO_MEMORY;
    if (!ok)
        abort();
    lm_args_free(&a);
    free(text);
    return 0;
}
