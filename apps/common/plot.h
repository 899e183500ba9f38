/*
 * plot.h: PNG charts of CSV files, drawn by gnuplot, for the programs and
 * benchmarks that make one (bin/societies --plot, bin/bench-md). gnuplot
 * is a separate program: a machine without it (the GPU machine) gets a
 * clear error, never SIGPIPE's death of the caller.
 */
#ifndef CLFRAME_COMMON_PLOT_H
#define CLFRAME_COMMON_PLOT_H

/* Runs gnuplot with a width x height PNG terminal writing png (as
 * common/save.h writes every file: put in place once gnuplot succeeded)
 * and CSV input (comma-separated), then the commands made from fmt and its
 * arguments (which name the CSV file). Paths with a quote are refused, as
 * gnuplot's strings are quoted. 0, or APP_ERR_IO with a message that
 * names png and csv and says when gnuplot is not installed. */
int plot_csv_png(const char *csv, const char *png, int width, int height,
                 const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

#endif /* CLFRAME_COMMON_PLOT_H */
