/*
 * md_plot.c: the benchmark's curve (md.h): particle-steps per second
 * against the number of particles, log-log, one line per version, drawn
 * by gnuplot from the CSV bench-md writes. A cell list's line is flat
 * where it scales as O(N); all pairs falls as 1/N.
 */
#define _POSIX_C_SOURCE 200809L
#include "md.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

int md_plot_rates(const char *csv, const char *png)
{
    if (strchr(csv, '\'') || strchr(png, '\''))
        return clframe_fail(CLFRAME_ERR_IO, "cannot plot %s into %s: a "
                            "quote in a file name", csv, png);
    /* A gnuplot that is not there exits at once: writing to it must be
     * an error, not SIGPIPE's death of the program. */
    struct sigaction ignore = {.sa_handler = SIG_IGN}, before;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGPIPE, &ignore, &before);
    FILE *gp = popen("gnuplot 2>/dev/null", "w");
    if (!gp) {
        sigaction(SIGPIPE, &before, NULL);
        return clframe_fail(CLFRAME_ERR_IO, "cannot run gnuplot: %s",
                            strerror(errno));
    }
    fprintf(gp,
            "set terminal pngcairo size 960,600\n"
            "set output '%s'\n"
            "set datafile separator ','\n"
            "set logscale xy\n"
            "set grid\n"
            "set key left bottom\n"
            "set xlabel 'particles N'\n"
            "set ylabel 'particle-steps per second'\n"
            "set title 'Lennard-Jones molecular dynamics: a flat line "
            "scales as O(N)'\n"
            "versions = 'reference cells-host allpairs particle cell'\n"
            /* One version's rows each: a filtered-out row would break
             * the line. */
            "plot for [v in versions] sprintf(\"< grep ',%%s,' '%s'\", v) "
            "using 1:3 with linespoints lw 2 title v\n",
            png, csv);
    int status = pclose(gp);
    sigaction(SIGPIPE, &before, NULL);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return clframe_fail(CLFRAME_ERR_IO, "gnuplot is not installed "
                            "(scripts/install-deps); plot %s yourself",
                            csv);
    if (status != 0)
        return clframe_fail(CLFRAME_ERR_IO, "gnuplot failed (%s %d) making "
                            "%s from %s; is it installed "
                            "(scripts/install-deps)?",
                            WIFEXITED(status) ? "exit status" : "status",
                            WIFEXITED(status) ? WEXITSTATUS(status) : status,
                            png, csv);
    return 0;
}
