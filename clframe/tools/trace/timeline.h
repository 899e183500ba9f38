/*
 * timeline.h: clframe-trace's picture (timeline.c): a trace's lanes drawn
 * by gnuplot into a PNG, one row a lane, one bar an event, coloured by
 * kind; and the atomic write of its output files.
 */
#ifndef CLFRAME_TRACE_TIMELINE_H
#define CLFRAME_TRACE_TIMELINE_H

#include "read.h"

#include <stddef.h>

/* Draws t's events into png: event i on row row[i] of nrows, labelled
 * labels[row] (any text: only letters, digits and a few marks are drawn),
 * times in ms from origin (µs). gnuplot is run with its commands and data
 * on its standard input and the PNG read from its standard output, so no
 * name of a file is in its commands. 0, or -1 with a message in error
 * (gnuplot missing or failing, the PNG not written). */
int tl_draw(const ctrace_trace *t, const size_t *row, const char *const *labels,
            size_t nrows, double origin, const char *png, char *error,
            size_t error_size);

/* Writes size bytes to path through a file beside it, renamed into place:
 * path holds the old file or the whole new one. 0, or -1 with a message. */
int tl_write_file(const char *path, const void *data, size_t size,
                  char *error, size_t error_size);

#endif /* CLFRAME_TRACE_TIMELINE_H */
