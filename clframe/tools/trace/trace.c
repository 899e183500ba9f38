/*
 * trace.c: clframe-trace, what a trace file (clframe_trace_start,
 * CLFRAME_TRACE; docs/tracing.md) says at a glance: time per kernel and
 * per copy direction, how much of the copying was hidden under kernels
 * running on other lanes, builds, host waits, and each device lane's idle
 * time and longest gap. Several files (an MPI run's ranks) are read as
 * one, on their common clock. -o draws the lanes (timeline.c), -m writes
 * the files merged into one that Perfetto opens.
 */
#include "read.h"
#include "timeline.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out,
        "usage: clframe-trace [-o TIMELINE.png] [-m MERGED.json] [-w FROM:TO]\n"
        "                     TRACE.json...\n"
        "\n"
        "Summarizes traces written under CLFRAME_TRACE=TRACE.json (or by\n"
        "clframe_trace_start): time per kernel, per copy direction (bytes,\n"
        "GB/s), the share of copy time hidden under kernels on other lanes,\n"
        "builds, host waits, and each device lane's idle time and longest\n"
        "gap. Several files (an MPI run's TRACE.rankN.json) are read as one.\n"
        "  -o TIMELINE.png  also draw the lanes with gnuplot\n"
        "  -m MERGED.json   also write the traces merged into one file, for\n"
        "                   Perfetto (ui.perfetto.dev) or chrome://tracing\n"
        "  -w FROM:TO       only the events that start FROM to TO ms after\n"
        "                   the first (-w 1200: from 1200 ms to the end)\n"
        "Exit status: 0 done, 1 a file unread or not written, 2 bad usage.\n");
}

/* ---- lanes -------------------------------------------------------------- */

/* A lane as the summary and the picture see it. */
typedef struct lane {
    int64_t pid, tid;
    char label[160];
    int device;                 /* it ran kernels or copies */
    size_t events;
    double start, end;          /* its first start and last end (µs) */
    double busy, longest_gap, gap_at;
} lane;

static int compare_lane(const void *a, const void *b)
{
    const lane *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static size_t find_lane(const lane *lanes, size_t n, int64_t pid, int64_t tid)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        lane key = {.pid = pid, .tid = tid};
        int c = compare_lane(&lanes[mid], &key);
        if (c == 0)
            return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return n;
}

/* The length of the first n characters of s without the blanks that end
 * them. */
static size_t trimmed_length(const char *s, size_t n)
{
    while (n > 0 && s[n - 1] == ' ')
        n--;
    return n;
}

/* The distinct lanes of t's events, sorted, labelled ("rank 1: stream 2"
 * when there are several processes), and each event's lane in *of. NULL
 * when out of memory. */
static lane *make_lanes(const ctrace_trace *t, size_t *nlanes, size_t **of)
{
    lane *lanes = malloc((t->nevents + 1) * sizeof *lanes);
    *of = malloc((t->nevents + 1) * sizeof **of);
    if (!lanes || !*of) {
        free(lanes);
        free(*of);
        return NULL;
    }
    size_t n = 0;
    for (size_t i = 0; i < t->nevents; i++)
        lanes[n++] = (lane){.pid = t->events[i].pid, .tid = t->events[i].tid};
    qsort(lanes, n, sizeof *lanes, compare_lane);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (kept == 0 || compare_lane(&lanes[kept - 1], &lanes[i]) != 0)
            lanes[kept++] = lanes[i];
    int processes = kept > 0 && lanes[0].pid != lanes[kept - 1].pid;
    for (size_t i = 0; i < kept; i++) {
        lane *l = &lanes[i];
        const char *name = ctrace_lane_name(t, l->pid, l->tid);
        const char *process = ctrace_process_name(t, l->pid);
        char own[48];
        if (!name) {
            snprintf(own, sizeof own, "tid %lld", (long long)l->tid);
            name = own;
        }
        if (!processes)
            snprintf(l->label, sizeof l->label, "%s", name);
        else if (process)       /* "rank 0 (pid 42)": what is before '(' */
            snprintf(l->label, sizeof l->label, "%.*s: %s",
                     (int)trimmed_length(process, strcspn(process, "(")),
                     process, name);
        else
            snprintf(l->label, sizeof l->label, "pid %lld: %s",
                     (long long)l->pid, name);
    }
    for (size_t i = 0; i < t->nevents; i++) {
        size_t at = find_lane(lanes, kept, t->events[i].pid,
                              t->events[i].tid);
        (*of)[i] = at;
        lanes[at].device |= t->events[i].kind == CTRACE_KERNEL ||
                            t->events[i].kind == CTRACE_COPY;
    }
    *nlanes = kept;
    return lanes;
}

/* ---- intervals ---------------------------------------------------------- */

typedef struct span {
    double a, b;
} span;

static int compare_span(const void *x, const void *y)
{
    const span *p = x, *q = y;
    return p->a < q->a ? -1 : p->a > q->a;
}

/* Sorts s and merges it into disjoint spans, in place: their count. */
static size_t merge_spans(span *s, size_t n)
{
    qsort(s, n, sizeof *s, compare_span);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && s[i].a <= s[m - 1].b) {
            if (s[i].b > s[m - 1].b)
                s[m - 1].b = s[i].b;
        } else {
            s[m++] = s[i];
        }
    }
    return m;
}

/* How much of [a, b] the m disjoint sorted spans u cover. */
static double covered(const span *u, size_t m, double a, double b)
{
    size_t lo = 0, hi = m;              /* the first span ending after a */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (u[mid].b <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    double sum = 0;
    for (size_t i = lo; i < m && u[i].a < b; i++) {
        double x = u[i].a > a ? u[i].a : a, y = u[i].b < b ? u[i].b : b;
        if (y > x)
            sum += y - x;
    }
    return sum;
}

/* The copy time of t (µs) that kernels on other lanes of the same process
 * ran under: for each lane with copies, the union of the kernels of the
 * other lanes, against each of its copies. -1 when out of memory. */
static double hidden_copy_time(const ctrace_trace *t, const size_t *of,
                               const lane *lanes, size_t nlanes)
{
    span *u = malloc((t->nevents + 1) * sizeof *u);
    if (!u)
        return -1;
    double hidden = 0;
    for (size_t l = 0; l < nlanes; l++) {
        int copies = 0;
        for (size_t i = 0; i < t->nevents && !copies; i++)
            copies = of[i] == l && t->events[i].kind == CTRACE_COPY;
        if (!copies)
            continue;
        size_t m = 0;
        for (size_t i = 0; i < t->nevents; i++) {
            const ctrace_event *e = &t->events[i];
            if (e->kind == CTRACE_KERNEL && e->pid == lanes[l].pid &&
                of[i] != l)
                u[m++] = (span){e->ts, e->ts + e->dur};
        }
        m = merge_spans(u, m);
        for (size_t i = 0; i < t->nevents; i++) {
            const ctrace_event *e = &t->events[i];
            if (of[i] == l && e->kind == CTRACE_COPY)
                hidden += covered(u, m, e->ts, e->ts + e->dur);
        }
    }
    free(u);
    return hidden;
}

/* Each lane's span, busy time and longest gap between its events. */
static int measure_lanes(const ctrace_trace *t, const size_t *of, lane *lanes,
                         size_t nlanes)
{
    span *s = malloc((t->nevents + 1) * sizeof *s);
    if (!s)
        return -1;
    for (size_t l = 0; l < nlanes; l++) {
        size_t n = 0;
        for (size_t i = 0; i < t->nevents; i++)
            if (of[i] == l)
                s[n++] = (span){t->events[i].ts,
                                t->events[i].ts + t->events[i].dur};
        lanes[l].events = n;
        size_t m = merge_spans(s, n);
        lanes[l].start = s[0].a;
        lanes[l].end = s[m - 1].b;
        for (size_t i = 0; i < m; i++) {
            lanes[l].busy += s[i].b - s[i].a;
            if (i && s[i].a - s[i - 1].b > lanes[l].longest_gap) {
                lanes[l].longest_gap = s[i].a - s[i - 1].b;
                lanes[l].gap_at = s[i - 1].b;
            }
        }
    }
    free(s);
    return 0;
}

/* ---- the summary -------------------------------------------------------- */

typedef struct kernel_total {
    const char *name;
    size_t calls;
    double total, max;
} kernel_total;

static int compare_kernel(const void *a, const void *b)
{
    const kernel_total *x = a, *y = b;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int print_kernels(const ctrace_trace *t)
{
    kernel_total *k = malloc((t->nevents + 1) * sizeof *k);
    if (!k)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const ctrace_event *e = &t->events[i];
        if (e->kind != CTRACE_KERNEL)
            continue;
        size_t j = 0;
        while (j < n && strcmp(k[j].name, e->name))
            j++;
        if (j == n)
            k[n++] = (kernel_total){.name = e->name};
        k[j].calls++;
        k[j].total += e->dur;
        if (e->dur > k[j].max)
            k[j].max = e->dur;
    }
    qsort(k, n, sizeof *k, compare_kernel);
    printf("\n  %-34s %8s %12s %10s %10s\n", "kernel", "calls", "total ms",
           "mean ms", "max ms");
    for (size_t j = 0; j < n; j++)
        printf("  %-34.34s %8zu %12.3f %10.4f %10.4f\n", k[j].name,
               k[j].calls, k[j].total / 1e3,
               k[j].total / 1e3 / (double)k[j].calls, k[j].max / 1e3);
    if (n == 0)
        printf("  (none)\n");
    free(k);
    return 0;
}

static void print_copies(const ctrace_trace *t, double hidden)
{
    double bytes[2] = {0, 0}, time[2] = {0, 0};
    size_t copies[2] = {0, 0};
    for (size_t i = 0; i < t->nevents; i++) {
        const ctrace_event *e = &t->events[i];
        if (e->kind == CTRACE_COPY) {
            copies[e->to_host]++;
            bytes[e->to_host] += e->bytes;
            time[e->to_host] += e->dur;
        }
    }
    static const char *const way[2] = {"to device", "to host"};
    printf("\n  %-34s %8s %14s %10s %8s\n", "copy", "copies", "bytes", "ms",
           "GB/s");
    for (int d = 0; d < 2; d++)
        printf("  %-34s %8zu %14.0f %10.3f %8.2f\n", way[d], copies[d],
               bytes[d], time[d] / 1e3,
               time[d] > 0 ? bytes[d] / (time[d] * 1e3) : 0.0);
    double all = time[0] + time[1];
    printf("  hidden under kernels on other lanes: %.3f ms of %.3f ms "
           "(%.1f%%)\n", hidden / 1e3, all / 1e3,
           all > 0 ? 100 * hidden / all : 0.0);
}

static void print_builds_and_waits(const ctrace_trace *t)
{
    size_t n[3] = {0, 0, 0}, waits = 0;
    double ms[3] = {0, 0, 0}, waited = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const ctrace_event *e = &t->events[i];
        if (e->kind == CTRACE_BUILD) {
            int how = e->cached == 1 ? 1 : e->cached == 0 ? 0 : 2;
            n[how]++;
            ms[how] += e->dur / 1e3;
        } else if (e->kind == CTRACE_WAIT) {
            waits++;
            waited += e->dur / 1e3;
        }
    }
    static const char *const how[3] = {"compiled", "from the cache",
                                       "failed or not said"};
    printf("\n  %-34s %8s %12s\n", "build", "builds", "ms");
    for (int h = 0; h < 3; h++)
        if (h < 2 || n[h])
            printf("  %-34s %8zu %12.3f\n", how[h], n[h], ms[h]);
    printf("\n  %-34s %8s %12s\n", "host waits", "waits", "ms");
    printf("  %-34s %8zu %12.3f\n", "all threads", waits, waited);
}

static void print_lanes(const lane *lanes, size_t nlanes, double origin)
{
    printf("\n  %-34s %8s %10s %10s %7s %22s\n", "device lane", "events",
           "busy ms", "idle ms", "idle %", "longest gap ms (at ms)");
    size_t shown = 0;
    for (size_t l = 0; l < nlanes; l++) {
        const lane *d = &lanes[l];
        if (!d->device)
            continue;
        double span = d->end - d->start, idle = span - d->busy;
        char gap[48];
        snprintf(gap, sizeof gap, "%.3f (%.3f)", d->longest_gap / 1e3,
                 (d->gap_at - origin) / 1e3);
        printf("  %-34.34s %8zu %10.3f %10.3f %7.1f %22s\n", d->label,
               d->events, d->busy / 1e3, idle / 1e3,
               span > 0 ? 100 * idle / span : 0.0, gap);
        shown++;
    }
    if (!shown)
        printf("  (none)\n");
}

/* ---- the picture -------------------------------------------------------- */

/* The picture's rows from the top: each process's device lanes, then its
 * host threads. labels gets each row's label, and of (each event's lane)
 * becomes each event's row. */
static int rows_in_order(const lane *lanes, size_t nlanes,
                         const char **labels, size_t *of, size_t nevents)
{
    size_t *row = malloc((nlanes + 1) * sizeof *row), r = 0;
    if (!row)
        return -1;
    for (size_t l = 0; l < nlanes;) {
        size_t end = l;                 /* [l, end): one process's lanes */
        while (end < nlanes && lanes[end].pid == lanes[l].pid)
            end++;
        for (int device = 1; device >= 0; device--)
            for (size_t i = l; i < end; i++)
                if (lanes[i].device == device) {
                    labels[r] = lanes[i].label;
                    row[i] = r++;
                }
        l = end;
    }
    for (size_t i = 0; i < nevents; i++)
        of[i] = row[of[i]];
    free(row);
    return 0;
}

/* ---- merging ------------------------------------------------------------ */

/* The events of every file in one document, written to out. */
static int merge(char **files, int nfiles, const char *out)
{
    char error[512];
    struct json_object *all = json_object_new_array();
    struct json_object *doc = json_object_new_object();
    int rc = all && doc ? 0 : -1;
    if (rc)
        snprintf(error, sizeof error, "%s: out of memory", out);
    for (int f = 0; f < nfiles && rc == 0; f++) {
        size_t size;
        char *text = ctrace_load(files[f], &size, error, sizeof error);
        struct json_object *one =
            text ? ctrace_parse(text, size, files[f], error, sizeof error)
                 : NULL;
        struct json_object *events =
            one ? ctrace_events_of(one, files[f], error, sizeof error) : NULL;
        rc = events ? 0 : -1;
        size_t n = events ? json_object_array_length(events) : 0;
        for (size_t i = 0; i < n && rc == 0; i++) {
            struct json_object *e = json_object_array_get_idx(events, i);
            rc = json_object_array_add(all, json_object_get(e));
            if (rc)
                snprintf(error, sizeof error, "%s: out of memory", out);
        }
        json_object_put(one);
        free(text);
    }
    if (rc == 0) {
        json_object_object_add(doc, "traceEvents", all);
        all = NULL;
        json_object_object_add(doc, "displayTimeUnit",
                               json_object_new_string("ms"));
        size_t len;
        const char *text = json_object_to_json_string_length(
            doc, JSON_C_TO_STRING_PLAIN, &len);
        rc = text ? tl_write_file(out, text, len, error, sizeof error) : -1;
        if (!text)
            snprintf(error, sizeof error, "%s: out of memory", out);
    }
    json_object_put(all);
    json_object_put(doc);
    if (rc)
        fprintf(stderr, "clframe-trace: %s\n", error);
    return rc;
}

/* ---- a window ----------------------------------------------------------- */

/* -w FROM:TO into *from and *to (ms; empty: the trace's start or end):
 * 0, or -1 when it is not two numbers in order. */
static int parse_window(const char *text, double *from, double *to)
{
    const char *colon = strchr(text, ':');
    if (!colon)
        return -1;
    char *end;
    *from = -HUGE_VAL;
    *to = HUGE_VAL;
    if (colon > text) {
        *from = strtod(text, &end);
        if (end != colon || !isfinite(*from))
            return -1;
    }
    if (colon[1]) {
        *to = strtod(colon + 1, &end);
        if (*end || !isfinite(*to))
            return -1;
    }
    return *from <= *to ? 0 : -1;
}

/* Drops t's events that start before from or after to ms from origin. */
static void keep_window(ctrace_trace *t, double origin, double from,
                        double to)
{
    size_t kept = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        double at = (t->events[i].ts - origin) / 1e3;
        if (at >= from && at <= to)
            t->events[kept++] = t->events[i];
        else
            free(t->events[i].name);
    }
    t->nevents = kept;
}

/* ---- the program -------------------------------------------------------- */

int main(int argc, char **argv)
{
    const char *png = NULL, *merged = NULL, *window = NULL;
    char **files = calloc((size_t)argc + 1, sizeof *files);
    int nfiles = 0;
    if (!files)
        return 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            free(files);
            return 0;
        }
        if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "-m") ||
             !strcmp(argv[i], "-w")) && i + 1 < argc && argv[i + 1][0]) {
            *(argv[i][1] == 'o' ? &png : argv[i][1] == 'm' ? &merged
                                                          : &window) =
                argv[i + 1];
            i++;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "clframe-trace: %s: unknown option, or no file "
                    "after it\n", argv[i]);
            usage(stderr);
            free(files);
            return 2;
        } else {
            files[nfiles++] = argv[i];
        }
    }
    double from = 0, to = 0;
    if (window && parse_window(window, &from, &to)) {
        fprintf(stderr, "clframe-trace: -w %s: not FROM:TO, two numbers of "
                "ms in order (either may be left out)\n", window);
        free(files);
        return 2;
    }
    if (nfiles == 0) {
        usage(stderr);
        free(files);
        return 2;
    }
    ctrace_trace t = CTRACE_TRACE_EMPTY;
    char error[512];
    int rc = 0;
    for (int f = 0; f < nfiles && rc == 0; f++)
        if (ctrace_read_file(&t, files[f], error, sizeof error)) {
            fprintf(stderr, "clframe-trace: %s\n", error);
            rc = 1;
        }
    /* Times are from the first event of all, windowed or not. */
    double origin = 0, start = 0, end = 0;
    for (size_t i = 0; i < t.nevents; i++)
        if (i == 0 || t.events[i].ts < origin)
            origin = t.events[i].ts;
    if (window)
        keep_window(&t, origin, from, to);
    for (size_t i = 0; i < t.nevents; i++) {
        const ctrace_event *e = &t.events[i];
        if (i == 0 || e->ts < start)
            start = e->ts;
        if (i == 0 || e->ts + e->dur > end)
            end = e->ts + e->dur;
    }
    size_t nlanes = 0, *of = NULL;
    lane *lanes = rc ? NULL : make_lanes(&t, &nlanes, &of);
    double hidden = lanes ? hidden_copy_time(&t, of, lanes, nlanes) : -1;
    if (rc == 0 && (!lanes || hidden < 0 || measure_lanes(&t, of, lanes,
                                                          nlanes))) {
        fprintf(stderr, "clframe-trace: out of memory\n");
        rc = 1;
    }
    if (rc == 0) {
        printf("clframe-trace: %zu events on %zu lanes over %.3f ms, from "
               "%d file%s\n", t.nevents, nlanes,
               (end - start) / 1e3, nfiles, nfiles == 1 ? "" : "s");
        if (window)
            printf("window: the events starting %s ms after the first\n",
                   window);
        if (t.clock_error_us >= 0)
            printf("device clocks put on the host's within %.3f us\n",
                   t.clock_error_us);
        if (print_kernels(&t))
            rc = 1;
        print_copies(&t, hidden);
        print_builds_and_waits(&t);
        print_lanes(lanes, nlanes, origin);
    }
    if (rc == 0 && png) {
        const char **labels = malloc((nlanes + 1) * sizeof *labels);
        if (!labels || t.nevents == 0 ||
            rows_in_order(lanes, nlanes, labels, of, t.nevents)) {
            fprintf(stderr, "clframe-trace: %s\n", t.nevents == 0
                    ? "no events to draw" : "out of memory");
            rc = 1;
        } else {
            if (tl_draw(&t, of, labels, nlanes, origin, png, error,
                        sizeof error)) {
                fprintf(stderr, "clframe-trace: %s\n", error);
                rc = 1;
            }
        }
        free(labels);
    }
    if (rc == 0 && merged && merge(files, nfiles, merged))
        rc = 1;
    free(lanes);
    free(of);
    ctrace_free(&t);
    free(files);
    return rc;
}
