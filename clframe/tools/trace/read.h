/*
 * read.h: a trace file as clframe-trace reads it (read.c): the Trace Event
 * JSON that clframe_trace_start and CLFRAME_TRACE write, or any other
 * program's, its complete ("X") events and its lanes' names ("M") taken,
 * the rest counted and left. Every number is checked before it is used:
 * a file that is not a trace is an error that says where, never a crash.
 */
#ifndef CLFRAME_TRACE_READ_H
#define CLFRAME_TRACE_READ_H

#include <stddef.h>
#include <stdint.h>

struct json_object;

/* What an event is, from its "cat". */
enum { CTRACE_KERNEL, CTRACE_COPY, CTRACE_BUILD, CTRACE_WAIT, CTRACE_OTHER };

typedef struct ctrace_event {
    int64_t pid, tid;           /* its lane */
    int kind;                   /* CTRACE_... */
    char *name;
    double ts, dur;             /* microseconds */
    double bytes;               /* copies: bytes moved */
    int to_host;                /* copies: 1 device to host, 0 the other way */
    int cached;                 /* builds: 1 from the cache, 0 compiled,
                                   -1 failed or not said */
} ctrace_event;

/* A lane's or a process's name (tid unused for a process). */
typedef struct ctrace_name {
    int64_t pid, tid;
    char *name;
} ctrace_name;

typedef struct ctrace_trace {
    ctrace_event *events;
    size_t nevents, events_room;
    ctrace_name *lanes, *processes;
    size_t nlanes, lanes_room, nprocesses, processes_room;
    size_t ignored;             /* events of other phases, left */
    double clock_error_us;      /* the largest bound on a device clock's
                                   offset that clframe wrote ("otherData");
                                   -1 when none was given */
} ctrace_trace;

/* An empty trace, to read files into. */
#define CTRACE_TRACE_EMPTY ((ctrace_trace){.clock_error_us = -1})

/* The largest file read, and the deepest nesting taken. */
enum { CTRACE_MAX_BYTES = 256 << 20, CTRACE_MAX_DEPTH = 32 };

/* Parses size bytes of JSON text (what names it in messages): the whole
 * document, or NULL with a message in error (error_size bytes) saying
 * what and where. Free with json_object_put. */
struct json_object *ctrace_parse(const char *text, size_t size,
                                 const char *what, char *error,
                                 size_t error_size);

/* Writes a message into error (size bytes), as printf; returns -1. */
int ctrace_fail(char *error, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A whole regular file of at most CTRACE_MAX_BYTES (a FIFO, a device, a folder
 * are refused, without waiting on them), NUL-terminated: its bytes and
 * *size, or NULL with a message in error. Caller frees. */
char *ctrace_load(const char *path, size_t *size, char *error,
                  size_t error_size);

/* The events of a trace document: its "traceEvents" array, or the
 * document itself when it is an array; NULL with a message otherwise. */
struct json_object *ctrace_events_of(struct json_object *doc,
                                     const char *what, char *error,
                                     size_t error_size);

/* Adds the events and names of the trace in text (what names it) to t:
 * 0, or -1 with a message in error (t keeps what it had). */
int ctrace_read_text(ctrace_trace *t, const char *text, size_t size,
                     const char *what, char *error, size_t error_size);
/* As ctrace_read_text, for the file at path. */
int ctrace_read_file(ctrace_trace *t, const char *path, char *error,
                     size_t error_size);
void ctrace_free(ctrace_trace *t);

/* Lane (pid, tid)'s name, or NULL when the trace does not name it; the
 * same for a process. */
const char *ctrace_lane_name(const ctrace_trace *t, int64_t pid, int64_t tid);
const char *ctrace_process_name(const ctrace_trace *t, int64_t pid);

#endif /* CLFRAME_TRACE_READ_H */
