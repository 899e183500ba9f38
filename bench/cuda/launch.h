/*
 * launch.h: the CUDA half of bin/bench-cuda-launch (launch.c): an empty
 * kernel's launch, and building a kernel file at run time with NVRTC.
 */
#ifndef BENCH_CUDA_LAUNCH_H
#define BENCH_CUDA_LAUNCH_H

#ifdef __cplusplus
extern "C" {
#endif


/* An empty kernel launched <<<1, 1>>> `launches` times in a row: the host
 * microseconds per launch, the wait for the last one not counted
 * (*launch_us), and then each launch followed by a wait for it
 * (*wait_us). */
int cuda_empty_launches(int launches, double *launch_us, double *wait_us);

/* Compiles `source` with NVRTC for this device to a cubin, loads it and
 * finds kernel `name` (an extern "C" name): the milliseconds of it all. */
int cuda_nvrtc_build(const char *source, const char *name, double *ms);

#ifdef __cplusplus
}
#endif

#endif
