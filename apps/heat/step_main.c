/*
 * step_main.c: the command line every step_world program shares,
 *
 *     PROGRAM [dt=0.1] [steps=1] [binary=0]  < world  > stepped world
 *
 * as in the seed. The world is read whole, stepped, and only then written,
 * so a bad world or a failed device run never produces partial output.
 */
#include "heat.h"
#include "common/parse.h"
#include "common/error.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

static int usage(const char *program, FILE *to)
{
    fprintf(to, "usage: %s [dt=0.1] [steps=1] [binary=0] < world > world\n"
            "Reads a heat world (text or binary) on stdin, advances it by "
            "`steps` steps of\nsize dt and writes it to stdout, in binary if "
            "the third argument is 1.\n", program);
    return to == stdout ? 0 : 2;
}

int heat_step_main(int argc, char **argv, heat_version v)
{
    app_follow_clframe_errors();
    const char *program = heat_version_program(v);
    float dt = 0.1f;
    unsigned long steps = 1, binary = 0;
    if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
        return usage(program, stdout);
    if (argc > 4)
        return usage(program, stderr);
    if (argc > 1 && !parse_float(argv[1], &dt)) {
        fprintf(stderr, "%s: dt \"%s\" is not a number\n", program, argv[1]);
        return 2;
    }
    if (argc > 2 && !parse_uint(argv[2], 0, UINT_MAX, &steps)) {
        fprintf(stderr, "%s: steps \"%s\" is not a count (0, 1, 2, ...)\n",
                program, argv[2]);
        return 2;
    }
    if (argc > 3 && !parse_uint(argv[3], 0, 1, &binary)) {
        fprintf(stderr, "%s: binary \"%s\" must be 0 or 1\n", program,
                argv[3]);
        return 2;
    }

    heat_world world;
    int rc = heat_world_load(&world, stdin, "<stdin>");
    if (rc == 0)
        rc = heat_step(&world, dt, (unsigned)steps, v, NULL, NULL);
    if (rc == 0)
        rc = heat_world_save(&world, stdout, (int)binary);
    if (rc == 0 && fflush(stdout) != 0)
        rc = app_fail(APP_ERR_IO, "writing to stdout: %s",
                      strerror(errno));
    heat_world_free(&world);
    if (rc) {
        fprintf(stderr, "%s: %s\n", program, app_last_error());
        return 1;
    }
    return 0;
}
