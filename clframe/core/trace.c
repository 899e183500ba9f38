/*
 * trace.c: the timeline, a file of every kernel launch, copy, build and
 * host wait in the Trace Event format that Perfetto, chrome://tracing and
 * clframe-trace read (docs/tracing.md).
 *
 * A trace is the process's: clframe_trace_start, or CLFRAME_TRACE read
 * before the first context. While it is open every context keeps an event
 * of every command, as under CLFRAME_PROFILE=1, and hands them here at its
 * collections (profile.c), the same path the profile's totals take; the
 * host's own records (waits, builds, copies timed by the clock) come
 * straight here. Each record is written at once, as one "X" event, to a
 * temporary file beside the trace's path, through a buffer: memory stays
 * bounded however long the run. clframe_trace_stop (or exit) writes the
 * lanes' names ("M" events) and renames the file into place, so that the
 * path holds a whole trace or nothing.
 *
 * The clock. ts is microseconds of CLOCK_REALTIME, so that the files of
 * several processes (MPI ranks, one file each) merge; host times are read
 * on CLOCK_MONOTONIC (clf_now_ms) and shifted by the offset between the
 * two taken when the trace opens, so that a change of the wall clock
 * during a run moves nothing. A device's profiling times are its own
 * clock's nanoseconds: each context measures its offset to the host's
 * when its first events arrive, and again a second later or more, at a
 * collection (drift). Five readings of the device's clock each bound the
 * offset between the host's readings around them: with
 * clGetDeviceAndHostTimer where the platform has a host timer (OpenCL
 * 2.1), else with a marker, whose queued time the device stamps while the
 * host is inside clEnqueueMarkerWithWaitList and whose end it stamps
 * before the host's wait for it returns. The offset is the middle of what
 * all five allow; half that range bounds its error, and is written in the
 * file.
 *
 * Lanes (tid): a host thread's is its number, from 1, in the order threads
 * first record; a device queue's is 1000 times its context's number (from
 * 1) plus 0 for the context's queue, 1 and 2 for a chunked call's copy
 * queues in and out, 2 + n for stream n. pid is the MPI rank when
 * OMPI_COMM_WORLD_RANK, PMI_RANK or SLURM_PROCID gives one, else the
 * process id.
 */
#include "core.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if !defined(CL_VERSION_2_1) || CL_TARGET_OPENCL_VERSION < 210
/* OpenCL 2.1's, which the build's target version (1.2) leaves out of the
 * header; Debian's ICD loader has it, and it is called only where the
 * platform says it has a host timer. */
extern CL_API_ENTRY cl_int CL_API_CALL
clGetDeviceAndHostTimer(cl_device_id device, cl_ulong *device_timestamp,
                        cl_ulong *host_timestamp);
#endif
#ifndef CL_PLATFORM_HOST_TIMER_RESOLUTION
#define CL_PLATFORM_HOST_TIMER_RESOLUTION 0x0905
#endif

atomic_int clf_tracing;

enum {
    LANES_PER_CONTEXT = 1000,   /* a context's lanes' ids: its number times
                                   this, plus the queue's */
    CALIBRATIONS = 5,           /* brackets taken; the narrowest is kept */
    FILE_BUFFER = 1 << 16       /* bytes buffered before a write */
};
static const double RECALIBRATE_MS = 1000;

/* A lane's name, written at the end as an "M" event. */
typedef struct lane {
    unsigned tid;
    char name[96];
} lane;

/* What the file says of a context's clock. */
typedef struct traced_context {
    unsigned no;
    char device[256];
    const char *method;         /* how its clock was measured */
    int64_t error_ns;           /* the widest half-bracket it kept */
} traced_context;

static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    int open;                   /* a trace is being written */
    int fd;                     /* to the temporary file, through buf */
    char buf[FILE_BUFFER];
    size_t used;                /* bytes of buf not written yet */
    int write_error;            /* the first write's errno, or 0 */
    char *path, *temp;
    unsigned session;           /* bumped by each start */
    long pid, rank;             /* rank: -1 when none */
    int64_t realtime_offset_ns; /* CLOCK_REALTIME - CLOCK_MONOTONIC */
    uint64_t events;
    unsigned threads, contexts;
    lane *lanes;
    size_t nlanes, lanes_room;
    traced_context *traced;
    size_t ntraced, traced_room;
    int out_of_memory;          /* a lane or context went unnamed */
} trace;
static int env_started;         /* CLFRAME_TRACE read and honoured */
static _Thread_local unsigned thread_lane, thread_session;

/* ---- clocks ------------------------------------------------------------- */

static int64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* CLOCK_REALTIME - CLOCK_MONOTONIC, read between two monotonic readings. */
static int64_t realtime_offset(void)
{
    int64_t m0 = clock_ns(CLOCK_MONOTONIC);
    int64_t r = clock_ns(CLOCK_REALTIME);
    int64_t m1 = clock_ns(CLOCK_MONOTONIC);
    return r - (m0 + (m1 - m0) / 2);
}

/* A clf_now_ms time on the trace's clock, in ns. */
static int64_t host_ns(double ms)
{
    return llround(ms * 1e6) + trace.realtime_offset_ns;
}

static int has_host_timer(const clctx *ctx)
{
    cl_ulong resolution = 0;
    return clGetPlatformInfo(ctx->platform, CL_PLATFORM_HOST_TIMER_RESOLUTION,
                             sizeof resolution, &resolution,
                             NULL) == CL_SUCCESS && resolution > 0;
}

/* What one reading tells of the offset (host ns - device ns) of ctx's
 * device clock: it lies in [*low, *high]. With the host timer, the
 * device's time was read between the host's readings before and after
 * the call; with a marker, the device stamped its queued time during the
 * enqueue and its end before the wait for it returned. 0, or -1 when the
 * clock could not be read. */
static int read_device_clock(clctx *ctx, int timer, int64_t *low,
                             int64_t *high)
{
    int64_t t0 = clock_ns(CLOCK_MONOTONIC);
    if (timer) {
        cl_ulong device = 0, host;
        cl_int err = clGetDeviceAndHostTimer(ctx->device, &device, &host);
        int64_t t1 = clock_ns(CLOCK_MONOTONIC);
        *low = t0 - (int64_t)device;
        *high = t1 - (int64_t)device;
        return err == CL_SUCCESS && device ? 0 : -1;
    }
    cl_event mark;
    if (clEnqueueMarkerWithWaitList(ctx->queue, 0, NULL, &mark) != CL_SUCCESS)
        return -1;
    int64_t t1 = clock_ns(CLOCK_MONOTONIC);
    cl_int err = clWaitForEvents(1, &mark);
    int64_t t2 = clock_ns(CLOCK_MONOTONIC);
    cl_ulong queued = 0, end = 0;
    if (err == CL_SUCCESS)
        err = clGetEventProfilingInfo(mark, CL_PROFILING_COMMAND_QUEUED,
                                      sizeof queued, &queued, NULL);
    if (err == CL_SUCCESS)
        err = clGetEventProfilingInfo(mark, CL_PROFILING_COMMAND_END,
                                      sizeof end, &end, NULL);
    clReleaseEvent(mark);
    if (err != CL_SUCCESS || end == 0)
        return -1;
    *low = t0 - (int64_t)(queued ? queued : end);
    *high = t2 - (int64_t)end;
    if (queued && t1 - (int64_t)queued < *high)
        *high = t1 - (int64_t)queued;
    return 0;
}

/* Measures ctx's device clock against the trace's: the offset that every
 * one of CALIBRATIONS readings allows, the middle of the narrowest range
 * they leave together. Called without the lock (the context is the
 * caller's); *method and *error_ns (half that range) say how and how
 * well. Readings that contradict each other (a device whose stamps are
 * not one clock) leave the middle of the narrowest one, with the spread. */
static void calibrate(clctx *ctx, int64_t realtime_offset_ns,
                      const char **method, int64_t *error_ns)
{
    int timer = has_host_timer(ctx), read = 0;
    int64_t low = INT64_MIN, high = INT64_MAX, narrowest = INT64_MAX;
    int64_t narrowest_mid = 0;
    for (int i = 0; i < CALIBRATIONS; i++) {
        int64_t lo, hi;
        if (read_device_clock(ctx, timer, &lo, &hi)) {
            if (!timer)
                break;
            timer = 0;                  /* the marker, then */
            i = -1;
            low = INT64_MIN;
            high = INT64_MAX;
            narrowest = INT64_MAX;
            continue;
        }
        read++;
        low = lo > low ? lo : low;
        high = hi < high ? hi : high;
        if (hi - lo < narrowest) {
            narrowest = hi - lo;
            narrowest_mid = lo + (hi - lo) / 2;
        }
    }
    int64_t offset = 0;
    *error_ns = -1;
    if (read && low <= high) {
        offset = low + (high - low) / 2;
        *error_ns = (high - low) / 2;
    } else if (read) {
        offset = narrowest_mid;
        *error_ns = narrowest / 2 + (low - high);
    }
    *method = !read ? "none (device times as the host's)"
              : timer ? "clGetDeviceAndHostTimer"
                      : "marker (queued and end times)";
    ctx->trace_offset_ns = offset + realtime_offset_ns;
    ctx->trace_calibrated_ms = clf_now_ms();
}

/* ---- the file ----------------------------------------------------------- */

/* The file is written through a buffer of the trace's own, not stdio's:
 * a child process (fork) gets a copy of it but never writes it (stdio
 * would flush its copy at the child's exit, into the parent's file). */

static void flush_out(void)
{
    for (size_t at = 0; at < trace.used && !trace.write_error;) {
        ssize_t n = write(trace.fd, trace.buf + at, trace.used - at);
        if (n > 0)
            at += (size_t)n;
        else if (errno != EINTR)
            trace.write_error = errno;
    }
    trace.used = 0;
}

static void put(const char *text, size_t n)
{
    while (n > 0) {
        if (trace.used == sizeof trace.buf)
            flush_out();
        size_t room = sizeof trace.buf - trace.used;
        size_t part = n < room ? n : room;
        memcpy(trace.buf + trace.used, text, part);
        trace.used += part;
        text += part;
        n -= part;
    }
}

static void put_text(const char *text)
{
    put(text, strlen(text));
}

/* printf's output, of a line's length at most (numbers, short words). */
static void put_format(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
static void put_format(const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    put(line, n < 0 ? 0 : (size_t)n < sizeof line ? (size_t)n
                                                  : sizeof line - 1);
}

/* s as a JSON string. */
static void put_string(const char *s)
{
    put("\"", 1);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\')
            put_format("\\%c", *c);
        else if (*c < 0x20 || *c == 0x7f)
            put_format("\\u%04x", *c);
        else
            put((const char *)c, 1);
    }
    put("\"", 1);
}

/* ns as microseconds with three decimals, exactly. */
static void put_us(int64_t ns)
{
    put_format("%s%" PRId64 ".%03d", ns < 0 ? "-" : "",
               (ns < 0 ? -ns : ns) / 1000, (int)((ns < 0 ? -ns : ns) % 1000));
}

/* Starts an "X" event: the caller writes its args (or nothing) and ends it
 * with end_event. */
static void begin_event(const char *name, const char *cat, unsigned tid,
                        int64_t start_ns, int64_t end_ns)
{
    put_text(trace.events++ ? ",\n{\"name\":" : "{\"name\":");
    put_string(name);
    put_format(",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%ld,\"tid\":%u,\"ts\":",
               cat, trace.pid, tid);
    put_us(start_ns);
    put_text(",\"dur\":");
    put_us(end_ns > start_ns ? end_ns - start_ns : 0);
}

static void end_event(void)
{
    put("}", 1);
}

/* Grows *array (of *room elements of size) to hold one more than n:
 * 0, or -1 out of memory. */
static int make_room(void **array, size_t *room, size_t n, size_t size)
{
    if (n < *room)
        return 0;
    size_t more = *room ? 2 * *room : 16;
    void *grown = realloc(*array, more * size);
    if (!grown)
        return -1;
    *array = grown;
    *room = more;
    return 0;
}

/* Names lane tid, the first time it is seen. */
static void name_lane(unsigned tid, const char *name)
{
    for (size_t i = 0; i < trace.nlanes; i++)
        if (trace.lanes[i].tid == tid)
            return;
    if (make_room((void **)&trace.lanes, &trace.lanes_room, trace.nlanes,
                  sizeof *trace.lanes)) {
        trace.out_of_memory = 1;
        return;
    }
    lane *l = &trace.lanes[trace.nlanes++];
    l->tid = tid;
    snprintf(l->name, sizeof l->name, "%s", name);
}

/* The calling thread's lane. */
static unsigned host_lane(void)
{
    if (thread_session != trace.session) {
        thread_session = trace.session;
        thread_lane = ++trace.threads;
        char name[32];
        snprintf(name, sizeof name, "host thread %u", thread_lane);
        name_lane(thread_lane, name);
    }
    return thread_lane;
}

/* ctx's number in the open trace, given at its first record. */
static unsigned context_no(clctx *ctx)
{
    if (ctx->trace_session != trace.session) {
        ctx->trace_session = trace.session;
        ctx->trace_no = ++trace.contexts;
        ctx->trace_calibrated_ms = 0;   /* not measured in this trace */
    }
    return ctx->trace_no;
}

/* queue's lane: a queue of ctx's, named the first time. */
static unsigned device_lane(clctx *ctx, cl_command_queue queue)
{
    unsigned no = context_no(ctx), at = LANES_PER_CONTEXT - 1;
    char what[48] = "another queue";
    if (queue == ctx->queue) {
        at = 0;
        snprintf(what, sizeof what, "queue 0 (context)");
    } else if (queue && queue == ctx->copy_queue[0]) {
        at = 1;
        snprintf(what, sizeof what, "copy queue in");
    } else if (queue && queue == ctx->copy_queue[1]) {
        at = 2;
        snprintf(what, sizeof what, "copy queue out");
    } else {
        for (clstream *s = ctx->streams; s; s = s->next)
            if (s->queue == queue) {
                at = 3 + (s->id - 1) % (LANES_PER_CONTEXT - 4);
                snprintf(what, sizeof what, "stream %u", s->id);
                break;
            }
    }
    unsigned tid = no * LANES_PER_CONTEXT + at;
    char name[64];
    if (no == 1)
        snprintf(name, sizeof name, "%s", what);
    else
        snprintf(name, sizeof name, "ctx %u %s", no, what);
    name_lane(tid, name);
    return tid;
}

/* Notes how ctx's clock was measured, for the file's end. */
static void note_calibration(clctx *ctx, const char *method, int64_t error_ns)
{
    traced_context *t = NULL;
    for (size_t i = 0; i < trace.ntraced; i++)
        if (trace.traced[i].no == ctx->trace_no)
            t = &trace.traced[i];
    if (!t) {
        if (make_room((void **)&trace.traced, &trace.traced_room,
                      trace.ntraced, sizeof *trace.traced)) {
            trace.out_of_memory = 1;
            return;
        }
        t = &trace.traced[trace.ntraced++];
        *t = (traced_context){.no = ctx->trace_no, .error_ns = error_ns};
        snprintf(t->device, sizeof t->device, "%s", ctx->device_name);
    }
    t->method = method;
    if (error_ns > t->error_ns)
        t->error_ns = error_ns;
}

/* The lanes' names, the process's, and what the clocks are: the file's
 * end, after the last event. */
static void write_end(void)
{
    char process[64];
    if (trace.rank >= 0)
        snprintf(process, sizeof process, "rank %ld (pid %ld)", trace.rank,
                 (long)getpid());
    else
        snprintf(process, sizeof process, "pid %ld", trace.pid);
    put_text(trace.events++ ? ",\n{\"name\":\"process_name\""
                            : "{\"name\":\"process_name\"");
    put_format(",\"ph\":\"M\",\"pid\":%ld,\"args\":{\"name\":", trace.pid);
    put_string(process);
    put_text("}}");
    for (size_t i = 0; i < trace.nlanes; i++) {
        const lane *l = &trace.lanes[i];
        put_format(",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%ld,"
                   "\"tid\":%u,\"args\":{\"name\":", trace.pid, l->tid);
        put_string(l->name);
        put_format("}},\n{\"name\":\"thread_sort_index\",\"ph\":\"M\","
                   "\"pid\":%ld,\"tid\":%u,\"args\":{\"sort_index\":%u}}",
                   trace.pid, l->tid,
                   l->tid < LANES_PER_CONTEXT ? 1000000 + l->tid : l->tid);
    }
    put_text("\n],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":{\"clock\":"
             "\"CLOCK_REALTIME, microseconds\",\"contexts\":[");
    for (size_t i = 0; i < trace.ntraced; i++) {
        const traced_context *t = &trace.traced[i];
        put_format("%s{\"context\":%u,\"device\":", i ? "," : "", t->no);
        put_string(t->device);
        put_text(",\"clock\":");
        put_string(t->method);
        put_text(",\"clock error us\":");
        if (t->error_ns < 0)
            put_text("null");
        else
            put_us(t->error_ns);
        put("}", 1);
    }
    put_text(trace.out_of_memory ? "],\"note\":\"out of memory: some lanes "
                                   "are not named\"}}\n" : "]}}\n");
}

/* Frees the open trace's state (the lock held). */
static void close_trace(void)
{
    free(trace.path);
    free(trace.temp);
    free(trace.lanes);
    free(trace.traced);
    trace.path = trace.temp = NULL;
    trace.lanes = NULL;
    trace.traced = NULL;
    trace.nlanes = trace.lanes_room = trace.ntraced = trace.traced_room = 0;
    trace.open = 0;
    trace.fd = -1;
}

/* ---- starting and stopping ---------------------------------------------- */

/* The MPI rank the launcher gave this process, or -1. */
static long process_rank(void)
{
    static const char *const names[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK",
                                        "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const char *v = getenv(names[i]);
        char *end;
        if (!v || !*v)
            continue;
        errno = 0;
        long rank = strtol(v, &end, 10);
        if (!*end && !errno && rank >= 0)
            return rank;
    }
    return -1;
}

/* path, or under a rank its NAME.rankN.json (NAME.json) or path.rankN. */
static char *file_path(const char *path, long rank)
{
    clf_str s = {0};
    size_t n = strlen(path);
    if (rank < 0)
        clf_str_printf(&s, "%s", path);
    else if (n > 5 && strcmp(path + n - 5, ".json") == 0)
        clf_str_printf(&s, "%.*s.rank%ld.json", (int)(n - 5), path, rank);
    else
        clf_str_printf(&s, "%s.rank%ld", path, rank);
    if (s.failed) {
        free(s.data);
        return NULL;
    }
    return s.data;
}

static void stop_at_exit(void)
{
    if (trace.open && clframe_trace_stop())
        fprintf(stderr, "clframe: %s\n", clframe_last_error());
}

/* A child process (fork) has a copy of the trace that is not its own: it
 * records nothing and writes nothing, not even at its exit. Without the
 * lock, which a thread of the parent may have held. */
static void forget_in_child(void)
{
    atomic_store(&clf_tracing, 0);
    if (trace.open)
        close(trace.fd);
    trace.open = 0;
    trace.fd = -1;
    trace.used = 0;
}

/* Opens the trace (the lock held); who names the caller in messages. */
static int open_trace(const char *path, const char *who)
{
    if (trace.open)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s: a trace is already being "
                            "written to %s (clframe_trace_stop ends it)",
                            who, trace.path);
    long rank = process_rank();
    trace.path = file_path(path, rank);
    /* Beside it, so that the rename is atomic; made as the file itself
     * would be (the umask's mode, unlike mkstemp's 0600). */
    clf_str temp = {0};
    clf_str_printf(&temp, "%s.%ld.%u.tmp", trace.path ? trace.path : "",
                   (long)getpid(), trace.session);
    trace.temp = temp.data;
    if (!trace.path || temp.failed) {
        close_trace();
        return clframe_fail(CLFRAME_ERR_NO_MEMORY, "%s: out of memory", who);
    }
    trace.fd = open(trace.temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
                    O_NOFOLLOW, 0666);
    if (trace.fd < 0) {
        int rc = clframe_fail(CLFRAME_ERR_IO, "%s: cannot write the trace "
                              "%s: %s", who, trace.path, strerror(errno));
        close_trace();
        return rc;
    }
    trace.open = 1;
    trace.used = 0;
    trace.write_error = 0;
    put_text("{\"traceEvents\":[\n");
    trace.session++;
    trace.rank = rank;
    trace.pid = rank >= 0 ? rank : (long)getpid();
    trace.realtime_offset_ns = realtime_offset();
    trace.events = trace.threads = trace.contexts = 0;
    trace.out_of_memory = 0;
    static int registered;
    if (!registered && atexit(stop_at_exit) == 0 &&
        pthread_atfork(NULL, NULL, forget_in_child) == 0)
        registered = 1;
    atomic_store(&clf_tracing, 1);
    return 0;
}

int clframe_trace_start(const char *path)
{
    if (!path || !*path)
        return clframe_fail(CLFRAME_ERR_USAGE, "clframe_trace_start: no file "
                            "named");
    pthread_mutex_lock(&trace_lock);
    int rc = open_trace(path, "clframe_trace_start");
    pthread_mutex_unlock(&trace_lock);
    return rc;
}

int clf_trace_from_env(void)
{
    const char *path = getenv("CLFRAME_TRACE");
    if (!path || !*path)
        return 0;
    pthread_mutex_lock(&trace_lock);
    int rc = 0;
    if (!env_started) {
        rc = open_trace(path, "CLFRAME_TRACE");
        env_started = rc == 0;
    }
    pthread_mutex_unlock(&trace_lock);
    return rc;
}

int clframe_trace_stop(void)
{
    pthread_mutex_lock(&trace_lock);
    if (!trace.open) {
        pthread_mutex_unlock(&trace_lock);
        return clframe_fail(CLFRAME_ERR_USAGE, "clframe_trace_stop: no trace "
                            "is open");
    }
    atomic_store(&clf_tracing, 0);
    write_end();
    flush_out();
    int why = trace.write_error;
    if (close(trace.fd) != 0 && !why)
        why = errno;
    int bad = why != 0;
    if (!bad && rename(trace.temp, trace.path) != 0) {
        why = errno;
        bad = 1;
    }
    int rc = 0;
    if (bad) {
        unlink(trace.temp);
        rc = clframe_fail(CLFRAME_ERR_IO, "clframe_trace_stop: cannot write "
                          "the trace %s: %s", trace.path, strerror(why));
    }
    close_trace();
    pthread_mutex_unlock(&trace_lock);
    return rc;
}

/* ---- records ------------------------------------------------------------ */

/* Measures ctx's clock when it has not been in this trace, or a while
 * ago; the lock is not held (it waits on the device). */
static void calibrate_if_due(clctx *ctx)
{
    pthread_mutex_lock(&trace_lock);
    int open = trace.open;
    int due = open && (ctx->trace_session != trace.session ||
                       ctx->trace_calibrated_ms == 0 ||
                       clf_now_ms() - ctx->trace_calibrated_ms >=
                           RECALIBRATE_MS);
    if (open)
        context_no(ctx);
    int64_t offset = trace.realtime_offset_ns;
    pthread_mutex_unlock(&trace_lock);
    if (!due)
        return;
    const char *method;
    int64_t error_ns;
    calibrate(ctx, offset, &method, &error_ns);
    pthread_mutex_lock(&trace_lock);
    if (trace.open && ctx->trace_session == trace.session)
        note_calibration(ctx, method, error_ns);
    pthread_mutex_unlock(&trace_lock);
}

/* A copy's args: its bytes, direction and speed. */
static void put_copy_args(int what, size_t bytes, int64_t ns, const char *by)
{
    put_format(",\"args\":{\"bytes\":%zu,\"direction\":\"%s\","
               "\"GB/s\":%.3f,\"timed by\":\"%s\"}", bytes,
               what == CLF_EV_WRITE ? "to device" : "to host",
               ns > 0 ? (double)bytes / (double)ns : 0.0, by);
}

static const char *copy_name(int what)
{
    return what == CLF_EV_WRITE ? "copy to device" : "copy to host";
}

/* A record read from its event: kernel or copy, at its device times. */
static void put_device_record(clctx *ctx, const clf_pending_event *p)
{
    unsigned tid = device_lane(ctx, p->queue);
    int64_t t0 = (int64_t)p->start_ns + ctx->trace_offset_ns;
    int64_t t1 = (int64_t)p->end_ns + ctx->trace_offset_ns;
    if (p->what == CLF_EV_KERNEL) {
        const char *name = p->kernel ? p->kernel->name
                           : p->launch && p->launch->name[0]
                               ? p->launch->name : "kernel";
        begin_event(name, "kernel", tid, t0, t1);
    } else {
        begin_event(copy_name(p->what), "copy", tid, t0, t1);
        put_copy_args(p->what, p->bytes, t1 - t0, "event");
    }
    end_event();
}

/* A record the host timed: a wait, or a blocking copy and the wait for its
 * queue before it. */
static void put_clock_record(clctx *ctx, const clf_pending_event *p)
{
    int64_t t0 = host_ns(p->start_ms), t1 = host_ns(p->end_ms);
    if (p->what == CLF_EV_WAIT) {
        begin_event(p->label, "wait", host_lane(), t0, t1);
        end_event();
        return;
    }
    if (p->waited_from_ms > 0) {
        begin_event("queue drained for a blocking copy", "wait", host_lane(),
                    host_ns(p->waited_from_ms), t0);
        end_event();
    }
    begin_event(copy_name(p->what), "copy", device_lane(ctx, p->queue), t0,
                t1);
    put_copy_args(p->what, p->bytes, t1 - t0, "clock");
    end_event();
}

void clf_trace_records(clctx *ctx, const clf_pending_event *records, size_t n)
{
    if (n == 0)
        return;
    calibrate_if_due(ctx);
    pthread_mutex_lock(&trace_lock);
    for (size_t i = 0; trace.open && i < n; i++) {
        const clf_pending_event *p = &records[i];
        if (p->by_clock)
            put_clock_record(ctx, p);
        else if (p->start_ns != 0 && p->end_ns >= p->start_ns)
            put_device_record(ctx, p);  /* else failed, or no times */
    }
    pthread_mutex_unlock(&trace_lock);
}

void clf_trace_wait(const char *what, double start_ms, double end_ms)
{
    pthread_mutex_lock(&trace_lock);
    if (trace.open) {
        begin_event(what, "wait", host_lane(), host_ns(start_ms),
                    host_ns(end_ms));
        end_event();
    }
    pthread_mutex_unlock(&trace_lock);
}

void clf_trace_build(clctx *ctx, const char *origin, const char *how,
                     double start_ms, double end_ms)
{
    pthread_mutex_lock(&trace_lock);
    if (trace.open) {
        char name[160];
        snprintf(name, sizeof name, "build %s", origin);
        begin_event(name, "build", host_lane(), host_ns(start_ms),
                    host_ns(end_ms));
        put_text(",\"args\":{\"source\":");
        put_string(origin);
        put_format(",\"how\":\"%s\",\"context\":%u}", how, context_no(ctx));
        end_event();
    }
    pthread_mutex_unlock(&trace_lock);
}

