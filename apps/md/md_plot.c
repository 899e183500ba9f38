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
    return plot_csv_png(csv, png, 960, 600,
        "set logscale xy\n"
        "set grid\n"
        "set key left bottom\n"
        "set xlabel 'particles N'\n"
        "set ylabel 'particle-steps per second'\n"
        "set title 'Lennard-Jones molecular dynamics: a flat line "
        "scales as O(N)'\n"
        "versions = 'reference cells-host allpairs particle cell'\n"
        /* One version's rows each: a filtered-out row would break the
         * line. */
        "plot for [v in versions] sprintf(\"< grep ',%%s,' '%s'\", v) "
        "using 1:3 with linespoints lw 2 title v\n",
        csv);
}
