/*
 * device.cu: the CUDA device, opened and described for every twin program
 * (device.h), and an experiment's switch: CUDA_TWIN_PREFER=shared or l1
 * sets the device's preferred split of each multiprocessor's memory
 * between shared memory and L1 for every kernel (cudaDeviceSetCacheConfig),
 * where CUDA otherwise chooses per kernel; unset, nothing changes.
 */
#include "device.h"
#include "cuda_check.h"

#include <stdlib.h>
#include <string.h>

static int apply_preference(void)
{
    const char *p = getenv("CUDA_TWIN_PREFER");
    if (!p)
        return 0;
    if (strcmp(p, "shared") && strcmp(p, "l1")) {
        fprintf(stderr, "CUDA_TWIN_PREFER=%s: expected shared or l1\n", p);
        return -1;
    }
    CUDA_TRY(cudaDeviceSetCacheConfig(strcmp(p, "shared")
                                          ? cudaFuncCachePreferL1
                                          : cudaFuncCachePreferShared));
    return 0;
}

int cuda_open(char *text, size_t size)
{
    int device = 0, driver = 0, count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        snprintf(text, size, "none (%s)", err != cudaSuccess
                 ? cudaGetErrorString(err) : "cudaGetDeviceCount found none");
        (void)cudaGetLastError();       /* clears it */
        return 0;
    }
    cudaDeviceProp p;
    CUDA_TRY(cudaGetDevice(&device));
    CUDA_TRY(cudaGetDeviceProperties(&p, device));
    CUDA_TRY(cudaDriverGetVersion(&driver));
    const char *prefer = getenv("CUDA_TWIN_PREFER");
    snprintf(text, size, "%s (compute %d.%d, CUDA driver %d.%d)%s%s", p.name,
             p.major, p.minor, driver / 1000, driver % 1000 / 10,
             prefer ? ", CUDA_TWIN_PREFER=" : "", prefer ? prefer : "");
    return apply_preference() ? -1 : 1;
}
