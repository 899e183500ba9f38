/*
 * profile.c: kernel and transfer times read from profiling events.
 *
 * A timed launch or copy keeps its event on the context (clf_keep_event);
 * the events are read together at the next collection (a finish, a
 * blocking call, clctx_free), into the totals of the kernel's name (the
 * CLFRAME_PROFILE=1 table clctx_free prints), of the clkernel launched
 * (clkernel_total_ms, clkernel_last_ms) and of the context, and, while a
 * trace is open, into the timeline (trace.c).
 */
#include "core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- profiling records --------------------------------------------------- */

clf_kernel_profile *clf_kernel_profile_for(clctx *ctx, const char *name)
{
    for (size_t i = 0; i < ctx->nkprof; i++)
        if (strncmp(ctx->kprof[i].name, name, sizeof ctx->kprof[i].name - 1) == 0)
            return &ctx->kprof[i];
    /* Kernels hold pointers into this array, so it never moves: a fixed
     * capacity, generous for any program; past it, kernels go unprofiled. */
    enum { MAX_PROFILED_KERNELS = 256 };
    if (!ctx->kprof)
        ctx->kprof = calloc(MAX_PROFILED_KERNELS, sizeof *ctx->kprof);
    if (!ctx->kprof || ctx->nkprof == MAX_PROFILED_KERNELS)
        return NULL;
    clf_kernel_profile *k = &ctx->kprof[ctx->nkprof++];
    snprintf(k->name, sizeof k->name, "%s", name);
    k->last_ms = -1;
    return k;
}

/* A kernel event read: its time, when the driver gave one, added. */
static void add_kernel_time(clf_kernel_profile *totals, double ms)
{
    if (!totals)
        return;
    totals->unread--;
    if (ms < 0)
        return;
    totals->calls++;
    totals->total_ms += ms;
    totals->last_ms = ms;
    if (ms > totals->max_ms)
        totals->max_ms = ms;
}

/* A finished event read: its device times and queue into p, its time
 * into the totals; then it is released (p->event NULL). */
static void read_event(clctx *ctx, clf_pending_event *p)
{
    if (clGetEventProfilingInfo(p->event, CL_PROFILING_COMMAND_START,
                                sizeof p->start_ns, &p->start_ns,
                                NULL) != CL_SUCCESS ||
        clGetEventProfilingInfo(p->event, CL_PROFILING_COMMAND_END,
                                sizeof p->end_ns, &p->end_ns,
                                NULL) != CL_SUCCESS ||
        p->end_ns < p->start_ns)
        p->start_ns = p->end_ns = 0;
    clGetEventInfo(p->event, CL_EVENT_COMMAND_QUEUE, sizeof p->queue,
                   &p->queue, NULL);
    double ms = p->start_ns ? (double)(p->end_ns - p->start_ns) * 1e-6 : -1;
    if (p->what == CLF_EV_KERNEL) {
        add_kernel_time(p->kernel, ms);
        add_kernel_time(p->launch, ms);
        if (ms >= 0)
            ctx->kernel_ms += ms;
    } else if (ms >= 0) {
        int d = p->what == CLF_EV_WRITE ? 0 : 1;
        ctx->transfer_ms[d] += ms;
        ctx->transfer_bytes[d] += p->bytes;
    }
    clf_release_event(ctx, p->event);
    p->event = NULL;
}

/* A copy the host timed by its clock, into the totals. */
static void add_clock_copy(clctx *ctx, const clf_pending_event *p)
{
    if (p->what != CLF_EV_WRITE && p->what != CLF_EV_READ)
        return;
    int d = p->what == CLF_EV_WRITE ? 0 : 1;
    ctx->transfer_ms[d] += p->end_ms - p->start_ms;
    ctx->transfer_bytes[d] += p->bytes;
}

/* Waits for every pending event and reads it (read_event); the records
 * stay in ctx->pending, for the trace, until the caller empties it. */
static void read_pending(clctx *ctx)
{
    for (size_t i = 0; i < ctx->npending; i++)
        clWaitForEvents(1, &ctx->pending[i].event);
    for (size_t i = 0; i < ctx->npending; i++)
        read_event(ctx, &ctx->pending[i]);
}

/* Past this many pending events, they are read (and written to the trace)
 * at the next hand-over, so that a long loop of enqueues keeps few. */
enum { MAX_PENDING = 4096 };

/* Adds a record with an event to the pending ones; if there is no room
 * for it, its command goes untimed. */
static void add_pending(clctx *ctx, const clf_pending_event *record)
{
    if (ctx->npending == ctx->cappending) {
        size_t room = ctx->cappending ? 2 * ctx->cappending : 256;
        clf_pending_event *more = realloc(ctx->pending, room * sizeof *more);
        if (!more) {
            clf_release_event(ctx, record->event);
            return;
        }
        ctx->pending = more;
        ctx->cappending = room;
    }
    ctx->pending[ctx->npending++] = *record;
    if (record->kernel)
        record->kernel->unread++;
    if (record->launch)
        record->launch->unread++;
}

/* Takes over the caller's reference to ev (already counted as live). */
void clf_keep_event(clctx *ctx, cl_event ev, int what, size_t bytes,
                    clf_kernel_profile *kernel, clf_kernel_profile *launch)
{
    add_pending(ctx, &(clf_pending_event){.event = ev, .what = what,
                                          .bytes = bytes, .kernel = kernel,
                                          .launch = launch});
    if (ctx->npending >= MAX_PENDING)
        clf_collect_events(ctx);
}

void clf_keep_events(clctx *ctx, const clf_pending_event *records, size_t n,
                     int collect)
{
    for (size_t i = 0; i < n; i++)
        if (records[i].by_clock)
            add_clock_copy(ctx, &records[i]);
        else
            add_pending(ctx, &records[i]);
    size_t read = 0;
    if (collect || ctx->npending >= MAX_PENDING) {
        read_pending(ctx);
        read = ctx->npending;
    }
    if (clf_trace_on()) {       /* the call's events among the ones read */
        clf_trace_records(ctx, ctx->pending, read);
        clf_trace_records(ctx, records, n);
    }
    if (read)
        ctx->npending = 0;
}

void clf_forget_profile(clctx *ctx, const clf_kernel_profile *totals)
{
    for (size_t i = 0; i < ctx->npending; i++) {
        if (ctx->pending[i].kernel == totals)
            ctx->pending[i].kernel = NULL;
        if (ctx->pending[i].launch == totals)
            ctx->pending[i].launch = NULL;
    }
}

void clf_collect_events(clctx *ctx)
{
    if (ctx->npending == 0)
        return;
    read_pending(ctx);
    if (clf_trace_on())
        clf_trace_records(ctx, ctx->pending, ctx->npending);
    ctx->npending = 0;
}

void clf_print_profile(clctx *ctx)
{
    clf_collect_events(ctx);
    fprintf(stderr, "\nclframe profile: %s\n", ctx->device_name);
    fprintf(stderr, "  %-32s %8s %12s %10s %10s\n", "kernel", "calls",
            "total ms", "mean ms", "max ms");
    for (size_t i = 0; i < ctx->nkprof; i++) {
        clf_kernel_profile *k = &ctx->kprof[i];
        fprintf(stderr, "  %-32s %8llu %12.3f %10.4f %10.4f\n", k->name,
                (unsigned long long)k->calls, k->total_ms,
                k->calls ? k->total_ms / (double)k->calls : 0.0, k->max_ms);
    }
    static const char *dir[2] = {"host -> device", "device -> host"};
    fprintf(stderr, "  %-32s %8s %12s %10s %10s\n", "transfer", "copies",
            "bytes", "ms", "GB/s");
    for (int d = 0; d < 2; d++) {
        double ms = ctx->transfer_ms[d];
        uint64_t copies = d == 0 ? ctx->stats.writes : ctx->stats.reads;
        fprintf(stderr, "  %-32s %8llu %12llu %10.3f %10.2f\n", dir[d],
                (unsigned long long)copies,
                (unsigned long long)ctx->transfer_bytes[d], ms,
                ms > 0 ? (double)ctx->transfer_bytes[d] / (ms * 1e6) : 0.0);
    }
}

/* Counted off the live objects here, as clf_track would, so that reading
 * events asks nothing of memory.c, which hands them over. */
void clf_release_event(clctx *ctx, cl_event ev)
{
    if (ev) {
        clReleaseEvent(ev);
        ctx->stats.live_objects--;
    }
}
