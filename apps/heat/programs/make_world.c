/*
 * make_world.c: `make_world [n=10] [alpha=0.1] [binary=0]` writes the
 * spec's standard n x n test world to standard output, in text or (with
 * binary = 1) binary format, as the seed's program of the same name does.
 */
#include "common/parse.h"
#include "heat/world.h"
#include "common/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char usage[] =
    "usage: make_world [n=10] [alpha=0.1] [binary=0]\n"
    "Writes the standard n x n heat world (an insulated slalom track, hot\n"
    "along the top, with a cold point near the bottom) to standard output.\n"
    "  n       cells across and down, an integer from 3 to 65535\n"
    "  alpha   the diffusion constant, a finite number > 0\n"
    "  binary  0 for the text format, 1 for the binary one\n";

/* Prints "make_world: <message>" on stderr; returns the exit status 1. */
static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("make_world: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 1;
}

int main(int argc, char **argv)
{
    app_follow_clframe_errors();
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(usage, stdout);
            return 0;
        }
    if (argc > 4)
        return fail("too many arguments (at most n, alpha and binary); "
                    "see make_world --help");
    unsigned long n = 10, binary = 0;
    float alpha = 0.1f;
    if (argc > 1 && !parse_uint(argv[1], 3, 65535, &n))
        return fail("n '%s' is not an integer from 3 to 65535", argv[1]);
    if (argc > 2 && (!parse_float(argv[2], &alpha) || !(alpha > 0)))
        return fail("alpha '%s' is not a finite number > 0", argv[2]);
    if (argc > 3 && !parse_uint(argv[3], 0, 1, &binary))
        return fail("binary '%s' is not 0 (text) or 1 (binary)", argv[3]);

    heat_world world;
    if (heat_world_make_standard(&world, (uint32_t)n, alpha) != 0)
        return fail("%s", app_last_error());
    int rc = heat_world_save(&world, stdout, (int)binary);
    heat_world_free(&world);
    if (rc != 0)
        return fail("standard output: %s", app_last_error());
    return 0;
}
