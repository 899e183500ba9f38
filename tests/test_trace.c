/*
 * test_trace.c: the timeline (clframe_trace_start, CLFRAME_TRACE), read
 * back with clframe-trace's own reader. Known calls give as many kernels
 * and copies as were run, each on its queue's lane in the order it ran
 * there, with the host's waits on its thread's lane; two streams' work is
 * on two lanes; a chunked call's copies are on the copy queues' lanes; a
 * build is marked compiled, then cached in a second context; with no
 * trace open no event is asked of the driver and nothing is written;
 * under an MPI rank the file is NAME.rankN.json; bad paths and misuse are
 * errors naming what failed. Where streams overlap depends on the device
 * (PoCL may run them one after the other): clframe-trace's own test
 * (tests/trace/check) measures overlap on traces made by hand. Where
 * json-c is missing (clframe-trace is not built), traces are written but
 * not read back.
 */
#include "support.h"
#include "copy_kernels.h"
#include "tools/trace/read.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Arrays long enough that each copy takes longer than the error of a
 * device clock put on the host's (PoCL's, under a loaded machine, some
 * tens of microseconds): the order of a lane's events is then theirs. */
enum { N = 1 << 16, CALLS = 3, ENQUEUES = 2, CHUNK = N / 4 };

#ifdef CLFRAME_HAVE_JSON_C    /* clframe-trace's reader was built */

/* ---- reading a trace back ----------------------------------------------- */

static ctrace_trace read_trace(const char *path)
{
    ctrace_trace t = CTRACE_TRACE_EMPTY;
    char error[512];
    ck_assert_msg(ctrace_read_file(&t, path, error, sizeof error) == 0, "%s",
                  error);
    return t;
}

/* The tid of the lane named name, asserted to exist. */
static int64_t lane_named(const ctrace_trace *t, const char *name)
{
    for (size_t i = 0; i < t->nlanes; i++)
        if (strcmp(t->lanes[i].name, name) == 0)
            return t->lanes[i].tid;
    ck_abort_msg("no lane named \"%s\" in the trace", name);
    return -1;
}

static int by_start(const void *a, const void *b)
{
    const ctrace_event *x = *(ctrace_event *const *)a;
    const ctrace_event *y = *(ctrace_event *const *)b;
    return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* The events of lane tid of the kinds in mask (1 << CTRACE_...), in the
 * order they started, as a word a letter each: K a kernel, D a copy to the
 * device, H one to the host, W a wait, B a build. (Where one ends and the
 * next starts is not compared: a blocking copy is timed by the host's
 * clock, the others by the device's, and PoCL stamps an end late when its
 * thread is kept from running.) */
static char *lane_word(const ctrace_trace *t, int64_t tid, unsigned mask)
{
    const ctrace_event **on = malloc((t->nevents + 1) * sizeof *on);
    char *word = malloc(t->nevents + 1);
    ck_assert(on && word);
    size_t n = 0;
    for (size_t i = 0; i < t->nevents; i++)
        if (t->events[i].tid == tid && (mask & (1u << t->events[i].kind)))
            on[n++] = &t->events[i];
    qsort(on, n, sizeof *on, by_start);
    for (size_t i = 0; i < n; i++) {
        const ctrace_event *e = on[i];
        word[i] = e->kind == CTRACE_KERNEL ? 'K'
                : e->kind == CTRACE_COPY ? (e->to_host ? 'H' : 'D')
                : e->kind == CTRACE_WAIT ? 'W'
                : e->kind == CTRACE_BUILD ? 'B' : '?';
    }
    word[n] = '\0';
    free(on);
    return word;
}

/* How many events of kind are named name (NULL: any). */
static size_t count(const ctrace_trace *t, int kind, const char *name)
{
    size_t n = 0;
    for (size_t i = 0; i < t->nevents; i++)
        n += t->events[i].kind == kind &&
             (!name || strcmp(t->events[i].name, name) == 0);
    return n;
}

/* word repeated times times. */
static char *repeat(const char *word, int times)
{
    size_t len = strlen(word);
    char *s = malloc(len * (size_t)times + 1);
    ck_assert_ptr_nonnull(s);
    for (int i = 0; i < times; i++)
        memcpy(s + len * (size_t)i, word, len);
    s[len * (size_t)times] = '\0';
    return s;
}

static void assert_word(const ctrace_trace *t, int64_t tid, unsigned mask,
                        const char *want)
{
    char *got = lane_word(t, tid, mask);
    ck_assert_msg(strcmp(got, want) == 0, "lane %lld ran %s, not %s",
                  (long long)tid, got, want);
    free(got);
}

#endif /* CLFRAME_HAVE_JSON_C */

/* ---- what is run -------------------------------------------------------- */

static clctx *ctx;
static clkernel *twice;
static float in[N], out[N], io[N];

/* One context and kernel for the suite, built before any trace opens. */
static void open_context(void)
{
    ctx = clctx_new(NULL);
    ck_assert_made(ctx);
    twice = clkernel_source(ctx, copy_kernels, "twice", NULL);
    ck_assert_made(twice);
    ck_assert_cl(clkernel_global(twice, N));
}

static void close_context(void)
{
    clkernel_free(twice);
    clctx_free(ctx);
}

#define TWICE_ARGS CLARG_IN(in, N), CLARG_OUT(out, N), CLARG_INOUT(io, N), \
                   CLARG((int)N)

/* A folder of its own for a test's files. */
static const char *folder(const char *name)
{
    const char *dir = test_tmp_path("trace", name);
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    return dir;
}

static const char *file_in(const char *dir, const char *name)
{
    static char path[4][512];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, sizeof path[0], "%s/%s", dir, name);
    return p;
}

/* The names of the files in dir, a line each. */
static void assert_files(const char *dir, const char *want)
{
    char got[512] = "";
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s\n",
                     e->d_name);
    closedir(d);
    ck_assert_str_eq(got, want);
}

/* ---- the tests ---------------------------------------------------------- */

#ifdef CLFRAME_HAVE_JSON_C
/* Blocking calls, then enqueued ones and a finish: each call's two copies
 * in, its kernel and two copies back, in that order, on the context's
 * queue; the host waits before each blocking copy back and in the finish. */
START_TEST(calls_in_order_on_the_context_queue)
{
    const char *path = file_in(folder("calls"), "calls.json");
    ck_assert_cl(clframe_trace_start(path));
    for (int i = 0; i < CALLS; i++)
        ck_assert_cl(clkernel_call(twice, TWICE_ARGS));
    for (int i = 0; i < ENQUEUES; i++)
        ck_assert_cl(clkernel_enqueue(twice, TWICE_ARGS));
    ck_assert_cl(clctx_finish(ctx));
    ck_assert_cl(clframe_trace_stop());

    ctrace_trace t = read_trace(path);
    ck_assert_int_eq(count(&t, CTRACE_KERNEL, "twice"), CALLS + ENQUEUES);
    ck_assert_int_eq(count(&t, CTRACE_KERNEL, NULL), CALLS + ENQUEUES);
    ck_assert_int_eq(count(&t, CTRACE_COPY, NULL), 4 * (CALLS + ENQUEUES));
    int64_t queue = lane_named(&t, "queue 0 (context)");
    char *want = repeat("DDKHH", CALLS + ENQUEUES);
    assert_word(&t, queue, 1u << CTRACE_KERNEL | 1u << CTRACE_COPY, want);
    free(want);
    for (size_t i = 0; i < t.nevents; i++)
        if (t.events[i].kind == CTRACE_COPY)
            ck_assert_msg(t.events[i].bytes == N * sizeof(float),
                          "a copy of %g bytes", t.events[i].bytes);
    int64_t host = lane_named(&t, "host thread 1");
    ck_assert_int_eq(count(&t, CTRACE_WAIT,
                           "queue drained for a blocking copy"), CALLS);
    ck_assert_int_eq(count(&t, CTRACE_WAIT, "clctx_finish"), 1);
    char *waits = repeat("W", CALLS + 1);
    assert_word(&t, host, 1u << CTRACE_WAIT, waits);
    free(waits);
    ck_assert_int_eq(count(&t, CTRACE_BUILD, NULL), 0);  /* built before */
    ck_assert_msg(t.clock_error_us >= 0, "no clock error written");
    ctrace_free(&t);
}
END_TEST

/* Work enqueued on two streams is on two lanes, each in its order, with
 * a wait for each stream; the streams are freed before their events are
 * read (at the finish), and still name their lanes. */
START_TEST(streams_on_lanes_of_their_own)
{
    const char *path = file_in(folder("streams"), "streams.json");
    clstream *s[2] = {clstream_new(ctx), clstream_new(ctx)};
    ck_assert(s[0] && s[1]);
    static float in2[N], out2[N], io2[N];
    ck_assert_cl(clframe_trace_start(path));
    ck_assert_cl(clkernel_enqueue_on(twice, s[0], TWICE_ARGS));
    ck_assert_cl(clkernel_enqueue_on(twice, s[1], CLARG_IN(in2, N),
                                     CLARG_OUT(out2, N), CLARG_INOUT(io2, N),
                                     CLARG((int)N)));
    ck_assert_cl(clstream_wait(s[0]));
    ck_assert_cl(clstream_wait(s[1]));
    clstream_free(s[0]);
    clstream_free(s[1]);
    ck_assert_cl(clctx_finish(ctx));
    ck_assert_cl(clframe_trace_stop());

    ctrace_trace t = read_trace(path);
    ck_assert_int_eq(count(&t, CTRACE_KERNEL, "twice"), 2);
    int lanes = 0;
    for (size_t i = 0; i < t.nlanes; i++) {
        if (strncmp(t.lanes[i].name, "stream ", 7) != 0)
            continue;
        lanes++;
        assert_word(&t, t.lanes[i].tid, 1u << CTRACE_KERNEL | 1u << CTRACE_COPY,
                    "DDKHH");
    }
    ck_assert_int_eq(lanes, 2);
    size_t waits = 0;
    for (size_t i = 0; i < t.nevents; i++)
        waits += t.events[i].kind == CTRACE_WAIT &&
                 strncmp(t.events[i].name, "clstream_wait(stream ", 21) == 0;
    ck_assert_int_eq(waits, 2);
    ctrace_free(&t);
}
END_TEST

/* A chunked call: its chunks' copies on the copy queues' lanes, in
 * before out, its kernels on the context's queue. */
START_TEST(chunked_copies_on_the_copy_queues)
{
    const char *path = file_in(folder("chunked"), "chunked.json");
    ck_assert_cl(clframe_trace_start(path));
    ck_assert_cl(clkernel_call_chunked(twice, N, CHUNK,
                                       CLARG_IN_CHUNKS(in, N),
                                       CLARG_OUT_CHUNKS(out, N),
                                       CLARG_INOUT_CHUNKS(io, N),
                                       CLARG((int)N)));
    ck_assert_cl(clframe_trace_stop());

    ctrace_trace t = read_trace(path);
    enum { CHUNKS = N / CHUNK };
    unsigned work = 1u << CTRACE_KERNEL | 1u << CTRACE_COPY;
    char *ins = repeat("D", 2 * CHUNKS), *outs = repeat("H", 2 * CHUNKS);
    char *kernels = repeat("K", CHUNKS);
    assert_word(&t, lane_named(&t, "copy queue in"), work, ins);
    assert_word(&t, lane_named(&t, "copy queue out"), work, outs);
    assert_word(&t, lane_named(&t, "queue 0 (context)"), work, kernels);
    free(ins);
    free(outs);
    free(kernels);
    ck_assert_int_eq(count(&t, CTRACE_WAIT, "clkernel_call_chunked(twice)"), 1);
    ctrace_free(&t);
}
END_TEST

/* A source compiled in one context is loaded from clframe's cache in the
 * next: the builds say so; making the kernel again in a context that has
 * the program builds nothing. */
START_TEST(builds_compiled_then_cached)
{
    static const char *const vars[] = {"XDG_CACHE_HOME", "CLFRAME_CACHE",
                                       "CL_DEBUG"};
    char *saved[3];
    for (int i = 0; i < 3; i++) {
        const char *v = getenv(vars[i]);
        saved[i] = v ? strdup(v) : NULL;
    }
    setenv("XDG_CACHE_HOME", folder("cache"), 1);    /* the cache on, */
    unsetenv("CLFRAME_CACHE");                       /* empty */
    unsetenv("CL_DEBUG");
    const char *path = file_in(folder("builds"), "builds.json");
    ck_assert_cl(clframe_trace_start(path));
    for (int i = 0; i < 2; i++) {
        clctx *c = clctx_new(NULL);
        ck_assert_made(c);
        clkernel *k = clkernel_source(c, copy_kernels, "twice", NULL);
        clkernel *again = clkernel_source(c, copy_kernels, "twice", NULL);
        ck_assert(k && again);
        clkernel_free(k);
        clkernel_free(again);
        clctx_free(c);
    }
    ck_assert_cl(clframe_trace_stop());
    for (int i = 0; i < 3; i++) {
        if (saved[i])
            setenv(vars[i], saved[i], 1);
        else
            unsetenv(vars[i]);
        free(saved[i]);
    }

    ctrace_trace t = read_trace(path);
    int builds = 0, cached[2] = {-2, -2};
    for (size_t i = 0; i < t.nevents; i++) {
        const ctrace_event *e = &t.events[i];
        if (e->kind == CTRACE_BUILD && strstr(e->name, "twice")) {
            ck_assert_int_lt(builds, 2);
            cached[builds++] = e->cached;
        }
    }
    ck_assert_int_eq(builds, 2);
    ck_assert_msg(cached[0] == 0 && cached[1] == 1, "the builds were %d and "
                  "%d (0 compiled, 1 cached)", cached[0], cached[1]);
    ctrace_free(&t);
}
END_TEST
#endif /* CLFRAME_HAVE_JSON_C */

/* With no trace open, a launch asks the driver for no event; while one
 * is, it does (an event is a live object until read). After the trace
 * stops, work adds nothing to its file or its folder. */
START_TEST(tracing_off_times_nothing_and_writes_nothing)
{
    long live = clctx_get_stats(ctx).live_objects;
    ck_assert_cl(clkernel_enqueue(twice, TWICE_ARGS));
    ck_assert_int_eq(clctx_get_stats(ctx).live_objects, live);
    ck_assert_cl(clctx_finish(ctx));

    const char *dir = folder("off");
    const char *path = file_in(dir, "off.json");
    ck_assert_cl(clframe_trace_start(path));
    ck_assert_cl(clkernel_enqueue(twice, TWICE_ARGS));
    ck_assert_int_gt(clctx_get_stats(ctx).live_objects, live);
    ck_assert_cl(clctx_finish(ctx));
    ck_assert_cl(clframe_trace_stop());
    ck_assert_int_eq(clctx_get_stats(ctx).live_objects, live);
    size_t size;
    char *before = test_read_file(path, &size);
    ck_assert_cl(clkernel_call(twice, TWICE_ARGS));
    ck_assert_cl(clctx_finish(ctx));
    test_assert_file_holds(path, before);
    assert_files(dir, "off.json\n");
    free(before);
}
END_TEST

/* Under a launcher's rank the file is NAME.rankN.json (path.rankN for
 * another name) and its pid is the rank. */
START_TEST(a_rank_names_its_file)
{
    const char *dir = folder("rank");
    setenv("OMPI_COMM_WORLD_RANK", "3", 1);
    int started = clframe_trace_start(file_in(dir, "r.json"));
    if (started == 0) {
        ck_assert_cl(clkernel_call(twice, TWICE_ARGS));
        started = clframe_trace_stop();
    }
    if (started == 0)
        started = clframe_trace_start(file_in(dir, "plain"));
    if (started == 0)
        started = clframe_trace_stop();
    unsetenv("OMPI_COMM_WORLD_RANK");
    ck_assert_cl(started);
    assert_files(dir, "plain.rank3\nr.rank3.json\n");
#ifdef CLFRAME_HAVE_JSON_C
    ctrace_trace t = read_trace(file_in(dir, "r.rank3.json"));
    ck_assert_int_gt(t.nevents, 0);
    for (size_t i = 0; i < t.nevents; i++)
        ck_assert_int_eq(t.events[i].pid, 3);
    ck_assert_ptr_nonnull(ctrace_process_name(&t, 3));
    ck_assert_msg(strncmp(ctrace_process_name(&t, 3), "rank 3 (pid ", 12) == 0,
                  "process named %s", ctrace_process_name(&t, 3));
    ctrace_free(&t);
#endif
}
END_TEST

START_TEST(misuse_and_bad_paths_are_errors)
{
    ck_assert_fails(clframe_trace_start(NULL), CLFRAME_ERR_USAGE, "no file");
    ck_assert_fails(clframe_trace_start(""), CLFRAME_ERR_USAGE, "no file");
    ck_assert_fails(clframe_trace_stop(), CLFRAME_ERR_USAGE, "no trace");
    const char *missing = test_tmp_path("trace", "no-such-folder/t.json");
    ck_assert_fails(clframe_trace_start(missing), CLFRAME_ERR_IO, missing);
    const char *dir = folder("twice");
    const char *first = file_in(dir, "first.json");
    ck_assert_cl(clframe_trace_start(first));
    ck_assert_fails(clframe_trace_start(file_in(dir, "second.json")),
                    CLFRAME_ERR_USAGE, first);
    ck_assert_cl(clframe_trace_stop());
    assert_files(dir, "first.json\n");
}
END_TEST

/* CLFRAME_TRACE: a path that cannot be written stops the context, naming
 * it; one that can starts the trace at the next context, once a process. */
START_TEST(the_environment_variable)
{
    const char *missing = test_tmp_path("trace", "no-such-folder/env.json");
    setenv("CLFRAME_TRACE", missing, 1);
    clctx *c = clctx_new(NULL);
    ck_assert_ptr_null(c);
    ck_assert_error_has("CLFRAME_TRACE");
    ck_assert_error_has(missing);
    const char *path = file_in(folder("env"), "env.json");
    setenv("CLFRAME_TRACE", path, 1);
    c = clctx_new(NULL);
    unsetenv("CLFRAME_TRACE");
    ck_assert_made(c);
    clkernel *k = clkernel_source(c, copy_kernels, "twice", NULL);
    ck_assert_made(k);
    ck_assert_cl(clkernel_global(k, N));
    ck_assert_cl(clkernel_call(k, TWICE_ARGS));
    clkernel_free(k);
    clctx_free(c);
    ck_assert_cl(clframe_trace_stop());
    size_t size;
    free(test_read_file(path, &size));
    ck_assert_int_gt(size, 0);
#ifdef CLFRAME_HAVE_JSON_C
    ctrace_trace t = read_trace(path);
    ck_assert_int_eq(count(&t, CTRACE_KERNEL, "twice"), 1);
    ck_assert_int_eq(count(&t, CTRACE_BUILD, NULL) >= 1, 1);
    ctrace_free(&t);
#endif
}
END_TEST

Suite *trace_suite(void)
{
    Suite *s = suite_create("trace");
    TCase *tc = test_case("trace");
    tcase_add_checked_fixture(tc, open_context, close_context);
#ifdef CLFRAME_HAVE_JSON_C
    tcase_add_test(tc, calls_in_order_on_the_context_queue);
    tcase_add_test(tc, streams_on_lanes_of_their_own);
    tcase_add_test(tc, chunked_copies_on_the_copy_queues);
    tcase_add_test(tc, builds_compiled_then_cached);
#else
    fprintf(stderr, "trace: json-c is not installed: the traces written "
            "are not read back\n");
#endif
    tcase_add_test(tc, tracing_off_times_nothing_and_writes_nothing);
    tcase_add_test(tc, a_rank_names_its_file);
    tcase_add_test(tc, misuse_and_bad_paths_are_errors);
    tcase_add_test(tc, the_environment_variable);
    /* Streams, chunks and buffers reused on one context: Oclgrind's
     * shadow memory takes what they write in parts for uninitialized
     * (scripts/check-oclgrind), so they run in its pass without that
     * check; bounds and races are still checked there. */
    tcase_set_tags(tc, "partial-writes");
    suite_add_tcase(s, tc);
    return s;
}
