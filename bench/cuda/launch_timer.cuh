/*
 * launch_timer.cuh: each launch's own time, from its start to its end, as
 * OpenCL's profiling events give it, summed per bucket (a phase of a step,
 * or one bucket for all): the twins' yardstick. A launch sits between the
 * two events of a pair from a pool of LAUNCH_TIMER_PAIRS; when every pair
 * waits to be read, the batch is read (the GPU is at most that far behind
 * the host, so reading seldom waits). Zeroed, a timer is empty; every
 * function returns 0, or -1 after printing what failed (CUDA_TRY).
 */
#ifndef BENCH_CUDA_LAUNCH_TIMER_CUH
#define BENCH_CUDA_LAUNCH_TIMER_CUH

#include "cuda_check.h"

enum { LAUNCH_TIMER_PAIRS = 256, LAUNCH_TIMER_BUCKETS = 4 };

typedef struct launch_timer {
    cudaStream_t stream;                /* the launches' */
    cudaEvent_t start[LAUNCH_TIMER_PAIRS], stop[LAUNCH_TIMER_PAIRS];
    int bucket[LAUNCH_TIMER_PAIRS];     /* each recorded pair's */
    int made, recorded;                 /* pairs created, pairs unread */
    double ms[LAUNCH_TIMER_BUCKETS];    /* the read pairs' sums */
} launch_timer;

/* The pool, for launches on `stream`. */
static inline int launch_timer_make(launch_timer *t, cudaStream_t stream)
{
    t->stream = stream;
    for (; t->made < LAUNCH_TIMER_PAIRS; t->made++) {
        CUDA_TRY(cudaEventCreate(&t->start[t->made]));
        cudaError_t err = cudaEventCreate(&t->stop[t->made]);
        if (err != cudaSuccess)
            cudaEventDestroy(t->start[t->made]);
        CUDA_TRY(err);
    }
    return 0;
}

/* Adds every recorded pair's time to its bucket. */
static inline int launch_timer_read(launch_timer *t)
{
    for (int k = 0; k < t->recorded; k++) {
        double ms;
        if (cuda_elapsed_ms(t->start[k], t->stop[k], &ms))
            return -1;
        t->ms[t->bucket[k]] += ms;
    }
    t->recorded = 0;
    return 0;
}

/* Before a launch that counts to `bucket`. */
static inline int launch_timer_start(launch_timer *t, int bucket)
{
    if (t->recorded == LAUNCH_TIMER_PAIRS && launch_timer_read(t))
        return -1;
    t->bucket[t->recorded] = bucket;
    CUDA_TRY(cudaEventRecord(t->start[t->recorded], t->stream));
    return 0;
}

/* After the launch: whether it was made at all, then its end. */
static inline int launch_timer_stop(launch_timer *t)
{
    CUDA_TRY(cudaGetLastError());
    CUDA_TRY(cudaEventRecord(t->stop[t->recorded++], t->stream));
    return 0;
}

/* Empties the sums (after reading what is pending: its pairs are free). */
static inline int launch_timer_reset(launch_timer *t)
{
    if (launch_timer_read(t))
        return -1;
    for (int b = 0; b < LAUNCH_TIMER_BUCKETS; b++)
        t->ms[b] = 0.0;
    return 0;
}

static inline void launch_timer_free(launch_timer *t)
{
    for (int k = 0; k < t->made; k++) {
        cudaEventDestroy(t->start[k]);
        cudaEventDestroy(t->stop[k]);
    }
    t->made = 0;
}

#endif
