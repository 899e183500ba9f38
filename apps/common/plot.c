/*
 * plot.c: gnuplot through a pipe (plot.h).
 */
#include "plot.h"
#include "error.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

int plot_csv_png(const char *csv, const char *png, int width, int height,
                 const char *fmt, ...)
{
    if (strchr(csv, '\'') || strchr(png, '\''))
        return app_fail(APP_ERR_IO, "cannot plot %s into %s: a "
                        "quote in a file name", csv, png);
    /* A gnuplot that is not there exits at once: writing to it must be
     * an error, not SIGPIPE's death of the program. */
    struct sigaction ignore = {.sa_handler = SIG_IGN}, before;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGPIPE, &ignore, &before);
    FILE *gp = popen("gnuplot 2>/dev/null", "w");
    if (!gp) {
        sigaction(SIGPIPE, &before, NULL);
        return app_fail(APP_ERR_IO, "cannot run gnuplot: %s",
                        strerror(errno));
    }
    fprintf(gp, "set terminal pngcairo size %d,%d\n"
                "set output '%s'\n"
                "set datafile separator ','\n", width, height, png);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(gp, fmt, ap);
    va_end(ap);
    int status = pclose(gp);
    sigaction(SIGPIPE, &before, NULL);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return app_fail(APP_ERR_IO, "cannot draw %s: gnuplot is "
                        "not installed (scripts/install-deps); %s has "
                        "the data", png, csv);
    if (status != 0)
        return app_fail(APP_ERR_IO, "gnuplot failed (%s %d) making "
                        "%s from %s", WIFEXITED(status) ? "exit status"
                        : "status", WIFEXITED(status) ?
                        WEXITSTATUS(status) : status, png, csv);
    return 0;
}
