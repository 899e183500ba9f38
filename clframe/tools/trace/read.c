/*
 * read.c: reading trace files (read.h) with json-c, Debian's JSON parser.
 * The file is taken whole (a regular file of at most CTRACE_MAX_BYTES), parsed
 * strictly with a bounded depth, and each event checked as it is copied
 * out: numbers finite and within range, fields of the types the format
 * gives them. What is not a complete event or a name is counted and left.
 */
#include "read.h"
#include "core/core.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The widest times taken, in microseconds: about 3000 years either side
 * of 1970 for a start, 100 days for a duration. */
static const double MAX_TS_US = 1e17, MAX_DUR_US = 1e13;
static const double MAX_BYTES = 1e18;

int ctrace_fail(char *error, size_t size, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(error, size, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- the file ----------------------------------------------------------- */

/* The file is read as the library reads sources (clf_read_file). */
_Static_assert((long)CTRACE_MAX_BYTES == (long)CLF_READ_MAX,
               "the largest trace read");

char *ctrace_load(const char *path, size_t *size, char *error,
                  size_t error_size)
{
    char *text = clf_read_file(path, size);
    if (!text && errno == EINVAL)
        ctrace_fail(error, error_size, "%s is not a regular file", path);
    else if (!text && errno == EFBIG)
        ctrace_fail(error, error_size, "%s: more than %d MiB, the most read",
                    path, CTRACE_MAX_BYTES >> 20);
    else if (!text)
        ctrace_fail(error, error_size, "cannot read %s: %s", path,
                    strerror(errno));
    return text;
}

struct json_object *ctrace_parse(const char *text, size_t size,
                                 const char *what, char *error,
                                 size_t error_size)
{
    if (size > CTRACE_MAX_BYTES) {
        ctrace_fail(error, error_size, "%s: more than %d MiB, the most read",
                    what, CTRACE_MAX_BYTES >> 20);
        return NULL;
    }
    struct json_tokener *tok = json_tokener_new_ex(CTRACE_MAX_DEPTH);
    if (!tok) {
        ctrace_fail(error, error_size, "%s: out of memory", what);
        return NULL;
    }
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    struct json_object *doc = json_tokener_parse_ex(tok, text, (int)size);
    enum json_tokener_error why = json_tokener_get_error(tok);
    size_t end = json_tokener_get_parse_end(tok);
    int ok = 0;
    if (why == json_tokener_continue) {
        ctrace_fail(error, error_size, "%s: not JSON: %s", what,
                    size ? "it ends in the middle" : "it is empty");
    } else if (why != json_tokener_success) {
        ctrace_fail(error, error_size, "%s: not JSON: %s at byte %zu", what,
                    json_tokener_error_desc(why), end);
    } else {
        /* Strict parsing takes the blanks after the document and refuses
         * anything else there; a NUL byte may still end it early. */
        if (end < size)
            ctrace_fail(error, error_size,
                        "%s: not JSON: more after the document, "
                        "at byte %zu",
                        what, end);
        else if (!doc)
            ctrace_fail(error, error_size,
                        "%s: not a trace: the document is null", what);
        else
            ok = 1;
    }
    if (!ok && doc) {
        json_object_put(doc);
        doc = NULL;
    }
    json_tokener_free(tok);
    return doc;
}

struct json_object *ctrace_events_of(struct json_object *doc,
                                     const char *what, char *error,
                                     size_t error_size)
{
    struct json_object *events = doc;
    if (json_object_is_type(doc, json_type_object) &&
        !json_object_object_get_ex(doc, "traceEvents", &events)) {
        ctrace_fail(error, error_size,
                    "%s: not a trace: an object without "
                    "\"traceEvents\"",
                    what);
        return NULL;
    }
    if (!json_object_is_type(events, json_type_array)) {
        ctrace_fail(error, error_size, "%s: not a trace: %s is not an array",
                    what, events == doc ? "the document" : "\"traceEvents\"");
        return NULL;
    }
    return events;
}

/* ---- one event ---------------------------------------------------------- */

/* Where an event is, for messages. */
typedef struct place {
    const char *what;
    size_t index;
    char *error;
    size_t error_size;
} place;

static int bad(const place *at, const char *field, const char *why)
{
    return ctrace_fail(at->error, at->error_size, "%s: event %zu: \"%s\" %s",
                       at->what, at->index, field, why);
}

/* o's string field name into *out (NULL when absent): 0, or -1 when it is
 * there and not a string. */
static int get_string(struct json_object *o, const char *name,
                      const char **out, const place *at)
{
    struct json_object *v;
    *out = NULL;
    if (!json_object_object_get_ex(o, name, &v) || !v)
        return 0;
    if (!json_object_is_type(v, json_type_string))
        return bad(at, name, "is not a string");
    *out = json_object_get_string(v);
    return 0;
}

/* o's number field name, within [low, high], into *out (fallback when
 * absent, unless required): 0 or -1. */
static int get_number(struct json_object *o, const char *name, double low,
                      double high, int required, double fallback, double *out,
                      const place *at)
{
    struct json_object *v;
    *out = fallback;
    if (!json_object_object_get_ex(o, name, &v) || !v)
        return required ? bad(at, name, "is missing") : 0;
    if (!json_object_is_type(v, json_type_double) &&
        !json_object_is_type(v, json_type_int))
        return bad(at, name, "is not a number");
    double d = json_object_get_double(v);
    if (!isfinite(d) || d < low || d > high)
        return bad(at, name, "is out of range");
    *out = d;
    return 0;
}

/* o's integer field name (pid, tid; 0 when absent) into *out: 0 or -1. */
static int get_id(struct json_object *o, const char *name, int64_t *out,
                  const place *at)
{
    struct json_object *v;
    *out = 0;
    if (!json_object_object_get_ex(o, name, &v) || !v)
        return 0;
    if (!json_object_is_type(v, json_type_int))
        return bad(at, name, "is not an integer");
    *out = json_object_get_int64(v);
    if (*out == INT64_MAX || *out == INT64_MIN)   /* json-c's clamp */
        return bad(at, name, "is out of range");
    return 0;
}

static int grow(void **array, size_t *room, size_t n, size_t size)
{
    if (n < *room)
        return 0;
    size_t more = *room ? 2 * *room : 64;
    void *grown = realloc(*array, more * size);
    if (!grown)
        return -1;
    *array = grown;
    *room = more;
    return 0;
}

static char *copy_of(const char *s)
{
    s = s ? s : "";
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    return c ? memcpy(c, s, n) : NULL;
}

static int kind_of(const char *cat)
{
    static const char *const kinds[] = {[CTRACE_KERNEL] = "kernel",
                                        [CTRACE_COPY] = "copy",
                                        [CTRACE_BUILD] = "build",
                                        [CTRACE_WAIT] = "wait"};
    for (int k = 0; cat && k < CTRACE_OTHER; k++)
        if (strcmp(cat, kinds[k]) == 0)
            return k;
    return CTRACE_OTHER;
}

/* A complete event's args: a copy's bytes and direction, a build's how. */
static int read_args(struct json_object *o, ctrace_event *e, const place *at)
{
    struct json_object *args;
    if (!json_object_object_get_ex(o, "args", &args) || !args)
        return e->kind == CTRACE_COPY ? bad(at, "args", "is missing (a copy's "
                                        "bytes and direction)") : 0;
    if (!json_object_is_type(args, json_type_object))
        return bad(at, "args", "is not an object");
    if (e->kind == CTRACE_COPY) {
        const char *direction;
        if (get_number(args, "bytes", 0, MAX_BYTES, 1, 0, &e->bytes, at) ||
            get_string(args, "direction", &direction, at))
            return -1;
        if (!direction || (strcmp(direction, "to device") &&
                           strcmp(direction, "to host")))
            return bad(at, "direction", "is not \"to device\" or \"to "
                       "host\"");
        e->to_host = strcmp(direction, "to host") == 0;
    } else if (e->kind == CTRACE_BUILD) {
        const char *how;
        if (get_string(args, "how", &how, at))
            return -1;
        e->cached = !how ? -1 : !strcmp(how, "cached") ? 1
                  : !strcmp(how, "compiled") ? 0 : -1;
    }
    return 0;
}

/* A "thread_name" or "process_name" event's name, added to t. */
static int read_name(ctrace_trace *t, struct json_object *o, int process,
                     const place *at)
{
    ctrace_name n = {0};
    struct json_object *args;
    const char *name = NULL;
    if (get_id(o, "pid", &n.pid, at) || get_id(o, "tid", &n.tid, at))
        return -1;
    if (json_object_object_get_ex(o, "args", &args) &&
        json_object_is_type(args, json_type_object) &&
        get_string(args, "name", &name, at))
        return -1;
    if (!name)
        return 0;
    ctrace_name **list = process ? &t->processes : &t->lanes;
    size_t *count = process ? &t->nprocesses : &t->nlanes;
    size_t *room = process ? &t->processes_room : &t->lanes_room;
    if (grow((void **)list, room, *count, sizeof **list) ||
        !(n.name = copy_of(name)))
        return ctrace_fail(at->error, at->error_size, "%s: out of memory",
                           at->what);
    (*list)[(*count)++] = n;
    return 0;
}

/* Event o (at) added to t when it is a complete event or a name. */
static int read_event(ctrace_trace *t, struct json_object *o, const place *at)
{
    const char *ph, *name, *cat;
    if (!json_object_is_type(o, json_type_object))
        return ctrace_fail(at->error, at->error_size,
                           "%s: event %zu is not an "
                           "object",
                           at->what, at->index);
    if (get_string(o, "ph", &ph, at) || get_string(o, "name", &name, at) ||
        get_string(o, "cat", &cat, at))
        return -1;
    if (ph && !strcmp(ph, "M") && name &&
        (!strcmp(name, "thread_name") || !strcmp(name, "process_name")))
        return read_name(t, o, !strcmp(name, "process_name"), at);
    if (!ph || strcmp(ph, "X")) {
        t->ignored++;
        return 0;
    }
    ctrace_event e = {.kind = kind_of(cat), .cached = -1};
    if (get_id(o, "pid", &e.pid, at) || get_id(o, "tid", &e.tid, at) ||
        get_number(o, "ts", -MAX_TS_US, MAX_TS_US, 1, 0, &e.ts, at) ||
        get_number(o, "dur", 0, MAX_DUR_US, 1, 0, &e.dur, at) ||
        read_args(o, &e, at))
        return -1;
    if (grow((void **)&t->events, &t->events_room, t->nevents,
             sizeof *t->events) || !(e.name = copy_of(name)))
        return ctrace_fail(at->error, at->error_size, "%s: out of memory",
                           at->what);
    t->events[t->nevents++] = e;
    return 0;
}

/* ---- whole traces ------------------------------------------------------- */

/* Frees t's entries from the given counts on: what a failed read added. */
static void truncate_to(ctrace_trace *t, size_t events, size_t lanes,
                        size_t processes, size_t ignored)
{
    while (t->nevents > events)
        free(t->events[--t->nevents].name);
    while (t->nlanes > lanes)
        free(t->lanes[--t->nlanes].name);
    while (t->nprocesses > processes)
        free(t->processes[--t->nprocesses].name);
    t->ignored = ignored;
}

/* The largest "clock error us" of the contexts in doc's otherData, as
 * clframe writes it, into t; what is missing or malformed is left. */
static void read_clock_error(ctrace_trace *t, struct json_object *doc)
{
    struct json_object *other, *contexts;
    if (!json_object_is_type(doc, json_type_object) ||
        !json_object_object_get_ex(doc, "otherData", &other) ||
        !json_object_is_type(other, json_type_object) ||
        !json_object_object_get_ex(other, "contexts", &contexts) ||
        !json_object_is_type(contexts, json_type_array))
        return;
    size_t n = json_object_array_length(contexts);
    for (size_t i = 0; i < n; i++) {
        struct json_object *c = json_object_array_get_idx(contexts, i), *e;
        if (json_object_is_type(c, json_type_object) &&
            json_object_object_get_ex(c, "clock error us", &e) &&
            (json_object_is_type(e, json_type_double) ||
             json_object_is_type(e, json_type_int))) {
            double us = json_object_get_double(e);
            if (isfinite(us) && us >= 0 && us < MAX_DUR_US &&
                us > t->clock_error_us)
                t->clock_error_us = us;
        }
    }
}

int ctrace_read_text(ctrace_trace *t, const char *text, size_t size,
                     const char *what, char *error, size_t error_size)
{
    struct json_object *doc = ctrace_parse(text, size, what, error, error_size);
    if (!doc)
        return -1;
    struct json_object *events = ctrace_events_of(doc, what, error, error_size);
    size_t before[4] = {t->nevents, t->nlanes, t->nprocesses, t->ignored};
    int rc = events ? 0 : -1;
    size_t n = events ? json_object_array_length(events) : 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        place at = {what, i, error, error_size};
        rc = read_event(t, json_object_array_get_idx(events, i), &at);
    }
    if (rc)
        truncate_to(t, before[0], before[1], before[2], before[3]);
    else
        read_clock_error(t, doc);
    json_object_put(doc);
    return rc;
}

int ctrace_read_file(ctrace_trace *t, const char *path, char *error,
                     size_t error_size)
{
    size_t size;
    char *text = ctrace_load(path, &size, error, error_size);
    if (!text)
        return -1;
    int rc = ctrace_read_text(t, text, size, path, error, error_size);
    free(text);
    return rc;
}

void ctrace_free(ctrace_trace *t)
{
    truncate_to(t, 0, 0, 0, 0);
    free(t->events);
    free(t->lanes);
    free(t->processes);
    *t = CTRACE_TRACE_EMPTY;
}

static const char *find_name(const ctrace_name *list, size_t n, int64_t pid,
                             int64_t tid, int match_tid)
{
    for (size_t i = n; i-- > 0;)        /* the last given wins */
        if (list[i].pid == pid && (!match_tid || list[i].tid == tid))
            return list[i].name;
    return NULL;
}

const char *ctrace_lane_name(const ctrace_trace *t, int64_t pid, int64_t tid)
{
    return find_name(t->lanes, t->nlanes, pid, tid, 1);
}

const char *ctrace_process_name(const ctrace_trace *t, int64_t pid)
{
    return find_name(t->processes, t->nprocesses, pid, 0, 0);
}
