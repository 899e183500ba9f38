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

double clf_event_ms(cl_event ev)
{
    cl_ulong start = 0, end = 0;
    if (clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof start,
                                &start, NULL) != CL_SUCCESS ||
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end, &end,
                                NULL) != CL_SUCCESS)
        return -1;
    return (double)(end - start) * 1e-6;
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

static void record_event(clctx *ctx, const clf_pending_event *p)
{
    double ms = clf_event_ms(p->event);
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
}

/* Takes over the caller's reference to ev (already counted as live). */
void clf_keep_event(clctx *ctx, cl_event ev, int what, size_t bytes,
                    clf_kernel_profile *kernel, clf_kernel_profile *launch)
{
    enum { MAX_PENDING = 4096 };
    if (ctx->npending == MAX_PENDING)
        clf_collect_events(ctx);
    if (!ctx->pending)
        ctx->pending = malloc(MAX_PENDING * sizeof *ctx->pending);
    if (!ctx->pending) {
        clf_release_event(ctx, ev);
        return;
    }
    ctx->pending[ctx->npending++] =
        (clf_pending_event){.event = ev, .what = what, .bytes = bytes,
                            .kernel = kernel, .launch = launch};
    if (kernel)
        kernel->unread++;
    if (launch)
        launch->unread++;
}

void clf_keep_events(clctx *ctx, const clf_pending_event *events, size_t n,
                     int collect)
{
    for (size_t i = 0; i < n; i++)
        clf_keep_event(ctx, events[i].event, events[i].what, events[i].bytes,
                       events[i].kernel, events[i].launch);
    if (collect)
        clf_collect_events(ctx);
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
    for (size_t i = 0; i < ctx->npending; i++)
        clWaitForEvents(1, &ctx->pending[i].event);
    if (clf_trace_on())
        clf_trace_events(ctx, ctx->pending, ctx->npending);
    for (size_t i = 0; i < ctx->npending; i++) {
        record_event(ctx, &ctx->pending[i]);
        clf_release_event(ctx, ctx->pending[i].event);
    }
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
