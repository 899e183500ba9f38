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
enum { TR_KERNEL, TR_COPY, TR_BUILD, TR_WAIT, TR_OTHER };

typedef struct tr_event {
    int64_t pid, tid;           /* its lane */
    int kind;                   /* TR_... */
    char *name;
    double ts, dur;             /* microseconds */
    double bytes;               /* copies: bytes moved */
    int to_host;                /* copies: 1 device to host, 0 the other way */
    int cached;                 /* builds: 1 from the cache, 0 compiled,
                                   -1 failed or not said */
} tr_event;

/* A lane's or a process's name (tid unused for a process). */
typedef struct tr_name {
    int64_t pid, tid;
    char *name;
} tr_name;

typedef struct tr_trace {
    tr_event *events;
    size_t nevents, events_room;
    tr_name *lanes, *processes;
    size_t nlanes, lanes_room, nprocesses, processes_room;
    size_t ignored;             /* events of other phases, left */
} tr_trace;

/* The largest file read, and the deepest nesting taken. */
enum { TR_MAX_BYTES = 256 << 20, TR_MAX_DEPTH = 32 };

/* Parses size bytes of JSON text (what names it in messages): the whole
 * document, or NULL with a message in error (error_size bytes) saying
 * what and where. Free with json_object_put. */
struct json_object *tr_parse(const char *text, size_t size, const char *what,
                             char *error, size_t error_size);

/* A whole regular file of at most TR_MAX_BYTES (a FIFO, a device, a folder
 * are refused, without waiting on them), NUL-terminated: its bytes and
 * *size, or NULL with a message in error. Caller frees. */
char *tr_load(const char *path, size_t *size, char *error, size_t error_size);

/* The events of a trace document: its "traceEvents" array, or the
 * document itself when it is an array; NULL with a message otherwise. */
struct json_object *tr_events_of(struct json_object *doc, const char *what,
                                 char *error, size_t error_size);

/* Adds the events and names of the trace in text (what names it) to t:
 * 0, or -1 with a message in error (t keeps what it had). */
int tr_read_text(tr_trace *t, const char *text, size_t size, const char *what,
                 char *error, size_t error_size);
/* As tr_read_text, for the file at path. */
int tr_read_file(tr_trace *t, const char *path, char *error,
                 size_t error_size);
void tr_free(tr_trace *t);

/* Lane (pid, tid)'s name, or NULL when the trace does not name it; the
 * same for a process. */
const char *tr_lane_name(const tr_trace *t, int64_t pid, int64_t tid);
const char *tr_process_name(const tr_trace *t, int64_t pid);

#endif /* CLFRAME_TRACE_READ_H */
