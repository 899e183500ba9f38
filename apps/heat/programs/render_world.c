/*
 * render_world.c: `render_world [out.bmp|out.png|-]` reads a heat world on
 * standard input and draws it: insulators green, other cells a blue (cold)
 * to red (hot) ramp. As in the seed, the default "-" writes a BMP to
 * standard output.
 */
#include "heat/world.h"
#include "common/error.h"
#include "common/program.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const app_program program = {"render_world",
    "usage: render_world [out.bmp|out.png|-]\n"
    "Reads a heat world (text or binary) on standard input and draws it:\n"
    "insulators green, other cells from blue (0) to red (1), row 0 at the\n"
    "top. The format follows the file name's extension; \"-\" (the default)\n"
    "writes a BMP to standard output.\n"
    "  e.g. make_world 100 | render_world world.png\n",
    NULL};

int main(int argc, char **argv)
{
    int status = app_start(&program, app_asks_help(argc, argv));
    if (status >= 0)
        return status;
    if (argc > 2)
        return app_message(&program, 1, "too many arguments (at most one "
                           "output file); see render_world --help");
    const char *out = argc > 1 ? argv[1] : "-";
    int to_stdout = strcmp(out, "-") == 0;
    /* Checked before reading, so that a mistake is not found only after a
     * large world has been read. */
    if (to_stdout && isatty(STDOUT_FILENO))
        return app_message(&program, 1, "standard output is a terminal; "
                           "give an output file (out.bmp or out.png) or "
                           "redirect it");

    heat_world world;
    if (heat_world_load_whole(&world, stdin, "<stdin>") != 0)
        return app_failed(&program);
    int rc = to_stdout ? heat_world_render_stream(&world, stdout, "bmp")
                       : heat_world_render(&world, out);
    heat_world_free(&world);
    if (rc != 0)
        return app_failed(&program);
    return 0;
}
