/*
 * make_world.c: `make_world [n=10] [alpha=0.1] [binary=0]` writes the
 * spec's standard n x n test world to standard output, in text or (with
 * binary = 1) binary format, as the seed's program of the same name does.
 */
#include "common/parse.h"
#include "heat/world.h"
#include "common/error.h"
#include "common/program.h"

#include <stdio.h>
#include <string.h>

static const app_program program = {"make_world",
    "usage: make_world [n=10] [alpha=0.1] [binary=0]\n"
    "Writes the standard n x n heat world (an insulated slalom track, hot\n"
    "along the top, with a cold point near the bottom) to standard output.\n"
    "  n       cells across and down, an integer from 3 to 46340\n"
    "  alpha   the diffusion constant, a finite number > 0\n"
    "  binary  0 for the text format, 1 for the binary one\n",
    NULL};

int main(int argc, char **argv)
{
    int status = app_start(&program, app_asks_help(argc, argv));
    if (status >= 0)
        return status;
    if (argc > 4)
        return app_message(&program, 1, "too many arguments (at most n, "
                           "alpha and binary); see make_world --help");
    unsigned long n = 10, binary = 0;
    float alpha = 0.1f;
    /* 46340^2 is the largest square within HEAT_WORLD_MAX_CELLS (2^31),
     * the largest world a file holds. */
    if (argc > 1 && !parse_uint(argv[1], 3, 46340, &n))
        return app_message(&program, 1, "n '%s' is not an integer from 3 "
                           "to 46340", argv[1]);
    if (argc > 2 && (!parse_float(argv[2], &alpha) || !(alpha > 0)))
        return app_message(&program, 1, "alpha '%s' is not a finite "
                           "number > 0", argv[2]);
    if (argc > 3 && !parse_uint(argv[3], 0, 1, &binary))
        return app_message(&program, 1, "binary '%s' is not 0 (text) or 1 "
                           "(binary)", argv[3]);

    heat_world world;
    if (heat_world_make_standard(&world, (uint32_t)n, alpha) != 0)
        return app_failed(&program);
    int rc = heat_world_save(&world, stdout, (int)binary);
    heat_world_free(&world);
    if (rc != 0)
        return app_message(&program, 1, "standard output: %s",
                           app_last_error());
    return 0;
}
