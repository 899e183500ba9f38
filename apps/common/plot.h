/*
 * plot.h: PNG charts of CSV files, drawn by gnuplot, for the programs and
 * benchmarks that make one. No file
 * name ever goes into gnuplot's commands: the CSV is given inline, as the
 * datablock $data, and gnuplot writes the PNG to its standard output, a
 * pipe that this process reads; the PNG is checked whole before save.h
 * writes it. gnuplot is a separate program: a machine without it (the
 * GPU machine) gets a clear error.
 */
#ifndef CLFRAME_COMMON_PLOT_H
#define CLFRAME_COMMON_PLOT_H

#include <stddef.h>

/* One chart. */
typedef struct plot_chart {
    int width, height;          /* the PNG's size in pixels */
    const char *title;          /* any text: quoted, control characters
                                   as blanks, no markup */
    const char *commands;       /* gnuplot commands that draw from the
                                   datablock $data (the CSV's lines,
                                   comma-separated, each after a blank) */
} plot_chart;

/* The longest CSV line taken, in bytes: gnuplot reads a datablock's lines
 * in pieces of 1023 bytes, and a piece of a longer one could end it. */
enum { PLOT_MAX_LINE = 1000 };

/* The whole of gnuplot's input for chart, drawing the size bytes of csv:
 * the PNG terminal writing to standard output, the title, the datablock
 * $data holding each CSV line after a blank (so that none can be taken for
 * its end, "EOD"), then chart->commands. 0 with it in *script (caller
 * frees; NUL-terminated) and its length in *length; or APP_ERR_BAD_INPUT
 * naming what (the CSV, for messages alone) and the line, for a line
 * longer than PLOT_MAX_LINE or a NUL byte; APP_ERR_USAGE for a size not
 * positive; APP_ERR_NO_MEMORY. */
int plot_script(const plot_chart *chart, const char *csv, size_t size,
                const char *what, char **script, size_t *length);

/* 1 if the size bytes at png are a whole PNG: its signature, then chunks
 * whose lengths fit, up to an IEND that ends the bytes; else 0. */
int plot_png_is_whole(const unsigned char *png, size_t size);

/* Draws chart from the CSV file csv into png (written as common/save.h
 * writes every file, once gnuplot has succeeded and its PNG is whole: a
 * failure leaves an old chart as it was). 0, or APP_ERR_IO (APP_ERR_
 * BAD_INPUT for the CSV) with a message that names png and says when
 * gnuplot is not installed. */
int plot_csv_png(const char *csv, const char *png, const plot_chart *chart);

#endif /* CLFRAME_COMMON_PLOT_H */
