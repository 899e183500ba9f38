/*
 * plot.c: gnuplot through a pipe (plot.h). gnuplot writes the chart where
 * save_begin says (common/save.h), so the PNG is put in place as every
 * app's files are, only once gnuplot has succeeded.
 */
#include "plot.h"
#include "error.h"
#include "save.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

/* Runs gnuplot writing the chart into out, the commands from fmt and ap;
 * 0 or APP_ERR_IO. */
static int run_gnuplot(const char *csv, const char *png, const char *out,
                       int width, int height, const char *fmt, va_list ap)
{
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
                "set datafile separator ','\n", width, height, out);
    vfprintf(gp, fmt, ap);
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

int plot_csv_png(const char *csv, const char *png, int width, int height,
                 const char *fmt, ...)
{
    if (strchr(csv, '\'') || strchr(png, '\''))
        return app_fail(APP_ERR_IO, "cannot plot %s into %s: a "
                        "quote in a file name", csv, png);
    save_target out;
    int rc = save_begin(&out, png);
    if (rc != 0)
        return rc;
    /* The link's target, and so the temporary, may have a quote. */
    if (strchr(save_file_being_written(&out), '\''))
        rc = app_fail(APP_ERR_IO, "cannot plot into %s: a quote in the "
                      "name of the file it links to", png);
    va_list ap;
    va_start(ap, fmt);
    if (rc == 0)
        rc = run_gnuplot(csv, png, save_file_being_written(&out), width,
                         height, fmt, ap);
    va_end(ap);
    int end = save_end(&out, rc == 0);
    return rc ? rc : end;
}
