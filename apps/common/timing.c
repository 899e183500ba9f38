/*
 * timing.c: a run's launches and kernel time (timing.h), from the totals
 * clframe keeps for each kernel.
 */
#include "timing.h"

#include "clframe.h"

void app_timing_watch(const app_timing *t, clkernel *k)
{
    if (k && t->want_kernel_time)
        clkernel_set_timing(k, 1);
}

void app_timing_add(app_timing *t, clkernel *k)
{
    if (!k)
        return;
    t->launches += (unsigned)clkernel_runs(k);
    if (t->want_kernel_time)
        t->kernel_ms += clkernel_total_ms(k);
}
