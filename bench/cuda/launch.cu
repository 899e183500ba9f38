/*
 * launch.cu: the CUDA half of bin/bench-cuda-launch: an empty kernel's
 * launch and wait, and NVRTC's build of a kernel file at run time
 * (launch.h). Times are the host's clock, as OpenCL's half measures its own.
 */
#include "launch.h"
#include "cuda_check.h"

#include <nvrtc.h>
#include <chrono>
#include <stdlib.h>

extern "C" __global__ void empty_kernel(void) {}

static double now_us(void)
{
    using namespace std::chrono;
    return duration<double, std::micro>(
               steady_clock::now().time_since_epoch()).count();
}

int cuda_empty_launches(int launches, double *launch_us, double *wait_us)
{
    empty_kernel<<<1, 1>>>();                   /* the first one's setup */
    CUDA_TRY(cudaDeviceSynchronize());
    double start = now_us();
    for (int i = 0; i < launches; i++)
        empty_kernel<<<1, 1>>>();
    *launch_us = (now_us() - start) / launches;
    CUDA_TRY(cudaGetLastError());
    CUDA_TRY(cudaDeviceSynchronize());
    start = now_us();
    for (int i = 0; i < launches; i++) {
        empty_kernel<<<1, 1>>>();
        CUDA_TRY(cudaStreamSynchronize(0));
    }
    *wait_us = (now_us() - start) / launches;
    CUDA_TRY(cudaGetLastError());
    return 0;
}

#define NVRTC_TRY(call)                                                      \
    do {                                                                     \
        nvrtcResult nvrtc_try_err_ = (call);                                 \
        if (nvrtc_try_err_ != NVRTC_SUCCESS) {                               \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,    \
                    nvrtcGetErrorString(nvrtc_try_err_));                    \
            return -1;                                                       \
        }                                                                    \
    } while (0)

/* The compile proper, into a cubin for the current device (owned by the
 * caller, freed with free). */
static int nvrtc_cubin(const char *source, char **cubin, size_t *size)
{
    int device = 0;
    cudaDeviceProp p;
    CUDA_TRY(cudaGetDevice(&device));
    CUDA_TRY(cudaGetDeviceProperties(&p, device));
    char arch[32];
    snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d%d", p.major,
             p.minor);
    const char *options[] = {arch, "-default-device"};
    nvrtcProgram prog;
    NVRTC_TRY(nvrtcCreateProgram(&prog, source, "twin.cu", 0, NULL, NULL));
    nvrtcResult built = nvrtcCompileProgram(prog, 2, options);
    if (built != NVRTC_SUCCESS) {
        size_t log_size = 0;
        nvrtcGetProgramLogSize(prog, &log_size);
        char *log = (char *)malloc(log_size + 1);
        if (log && nvrtcGetProgramLog(prog, log) == NVRTC_SUCCESS)
            fprintf(stderr, "NVRTC build log:\n%s\n", log);
        free(log);
        nvrtcDestroyProgram(&prog);
        NVRTC_TRY(built);
    }
    int rc = nvrtcGetCUBINSize(prog, size) == NVRTC_SUCCESS &&
                     (*cubin = (char *)malloc(*size)) &&
                     nvrtcGetCUBIN(prog, *cubin) == NVRTC_SUCCESS
                 ? 0 : -1;
    nvrtcDestroyProgram(&prog);
    if (rc)
        fprintf(stderr, "NVRTC: no cubin\n");
    return rc;
}

int cuda_nvrtc_build(const char *source, const char *name, double *ms)
{
    CUDA_TRY(cudaFree(0));              /* the context, outside the time */
    double start = now_us();
    char *cubin = NULL;
    size_t size = 0;
    if (nvrtc_cubin(source, &cubin, &size)) {
        free(cubin);
        return -1;
    }
    cudaLibrary_t library;
    cudaKernel_t kernel;
    cudaError_t loaded = cudaLibraryLoadData(&library, cubin, NULL, NULL, 0,
                                             NULL, NULL, 0);
    free(cubin);
    CUDA_TRY(loaded);
    CUDA_TRY(cudaLibraryGetKernel(&kernel, library, name));
    *ms = (now_us() - start) / 1e3;
    CUDA_TRY(cudaLibraryUnload(library));
    return 0;
}
