/*
 * md_plot.c: the benchmark's curve (md.h): particle-steps per second
 * against the number of particles, log-log, one line per version, drawn
 * by gnuplot from the CSV bench-md writes. A cell list's line is flat
 * where it scales as O(N); all pairs falls as 1/N.
 */
#include "md.h"

#include "common/plot.h"

int md_plot_rates(const char *csv, const char *png)
{
    static const plot_chart chart = {960, 600,
        "Lennard-Jones molecular dynamics: a flat line scales as O(N)",
        "set logscale xy\n"
        "set grid\n"
        "set key left bottom\n"
        "set xlabel 'particles N'\n"
        "set ylabel 'particle-steps per second'\n"
        "versions = 'reference cells-host allpairs particle cell'\n"
        /* A version's line through its own rows alone: the others' are
         * NaN, which as missing data leaves the line unbroken. */
        "set datafile missing NaN\n"
        "plot for [v in versions] $data "
        "using 1:(strcol(2) eq v ? $3 : NaN) "
        "with linespoints lw 2 title v\n"};
    return plot_csv_png(csv, png, &chart);
}
