/*
 * timing.h: how the apps time a run of a version, all alike: the caller
 * asks for kernel time or not, and the run reports how many kernels it
 * launched and, if asked, their summed kernel time from the launches'
 * profiling events. A run reads each of its kernels' totals from clframe
 * once, as it ends, rather than after every launch, so timing makes no
 * launch wait. Plain C, so that the apps' headers hold one without
 * clframe.h; timing.c is the part that talks to clframe.
 */
#ifndef APPS_TIMING_H
#define APPS_TIMING_H

/* clframe's kernel (clframe.h). */
typedef struct clkernel clkernel;

typedef struct app_timing {
    int want_kernel_time;   /* in: time every launch by its event */
    unsigned launches;      /* out: kernels launched */
    double kernel_ms;       /* out: sum of kernel event times (if wanted) */
} app_timing;

/* Asks k to time its launches when t wants kernel time, as a run makes
 * its kernels (timing is not free on every driver, so only then). A NULL
 * k (a build that failed) is left alone. */
void app_timing_watch(const app_timing *t, clkernel *k);

/* Adds k's launches since it was made, and when t wants kernel time their
 * summed kernel time (waiting for those still running), to t: once per
 * kernel as a run ends, before freeing it. A NULL k adds nothing. */
void app_timing_add(app_timing *t, clkernel *k);

#endif /* APPS_TIMING_H */
