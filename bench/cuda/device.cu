/*
 * device.cu: the CUDA device's description (device.h).
 */
#include "device.h"
#include "cuda_check.h"

int cuda_describe(char *buf, size_t size)
{
    int device = 0, driver = 0;
    cudaDeviceProp p;
    CUDA_TRY(cudaGetDevice(&device));
    CUDA_TRY(cudaGetDeviceProperties(&p, device));
    CUDA_TRY(cudaDriverGetVersion(&driver));
    snprintf(buf, size, "%s (compute %d.%d, CUDA driver %d.%d)", p.name,
             p.major, p.minor, driver / 1000, driver % 1000 / 10);
    return 0;
}
