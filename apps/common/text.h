/*
 * text.h: lines of text read with bounds, for the apps' line-based inputs
 * (configurations, a player's moves). A line longer than
 * the caller's buffer is refused whole, never split in two (fgets would
 * hand its tail over as the next line); a NUL byte (binary data,
 * /dev/zero) is an error naming its line and byte offset; and neither an
 * endless line nor, given a limit, an endless input is read for ever.
 */
#ifndef APPS_TEXT_H
#define APPS_TEXT_H

#include <stdio.h>

/* A stream read line by line, and where in it we are for messages. */
typedef struct text_reader {
    FILE *f;
    const char *name;             /* the file or stream, for messages */
    unsigned long long limit;     /* the most bytes to read; 0: no limit */
    unsigned long line;           /* the number of the line last read */
    unsigned long long offset;    /* the bytes read so far */
} text_reader;

/* What text_read_line found, when not an error. */
enum {
    TEXT_END = 0,       /* the end of the input: nothing was left */
    TEXT_LINE = 1,      /* a line, in the caller's buffer */
    TEXT_TOO_LONG = 2   /* a line longer than the buffer, read and dropped */
};

/* The most bytes of one line read: a longer one is taken for endless. */
#define TEXT_LINE_MAX (1 << 20)

/* Reads the next line of r into line (size bytes, at least 1), without
 * its "\n" (a "\r" before it stays: callers trim). Returns TEXT_LINE;
 * TEXT_END; or TEXT_TOO_LONG with "NAME:LINE: the line is longer than N
 * characters" in app_last_error(), the whole line having been read, so
 * that the next call reads the next one. Or a negative code with a
 * message: for a NUL byte, a line longer than TEXT_LINE_MAX, or more than
 * r->limit bytes in all, APP_ERR_BAD_INPUT; for a failed read,
 * APP_ERR_IO. */
int text_read_line(text_reader *r, char *line, size_t size);

#endif /* APPS_TEXT_H */
