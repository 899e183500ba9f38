/* selector.c: the device selector (clf_apply_selector, the reading of a
 * CLFRAME_DEVICE value) on any text, over a made-up list of a CPU and two
 * GPUs on two platforms and over an empty list; OpenCL is not called, so
 * no device is needed. A choice must be one of the list, and the index
 * (the byte after a NUL, else 0) must go round the devices matched: index
 * and index + matched choose the same one. */
#include "fuzz.h"
#include "internal.h"

static const clf_candidate devices[] = {
    {.pi = 0, .di = 0, .type = CL_DEVICE_TYPE_CPU,
     .name = "cpu-haswell-AMD EPYC 7B13",
     .platform_name = "Portable Computing Language"},
    {.pi = 1, .di = 0, .type = CL_DEVICE_TYPE_GPU,
     .name = "NVIDIA H100 80GB HBM3", .platform_name = "NVIDIA CUDA"},
    {.pi = 1, .di = 1, .type = CL_DEVICE_TYPE_GPU,
     .name = "NVIDIA H200", .platform_name = "NVIDIA CUDA"},
};
enum { N_DEVICES = sizeof devices / sizeof *devices };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *rest;
    char *sel = fuzz_text(data, size, &rest);
    if (!sel)
        return 0;
    unsigned nth = (unsigned char)rest[0];
    int matched, again;
    int i = clf_apply_selector(devices, N_DEVICES, sel, "fuzz", nth, &matched);
    if (i >= N_DEVICES ||
        (i >= 0 && (matched < 1 || matched > N_DEVICES ||
                    clf_apply_selector(devices, N_DEVICES, sel, "fuzz",
                                       nth + (unsigned)matched, &again) != i)) ||
        clf_apply_selector(devices, 0, sel, "fuzz", nth, &matched) >= 0)
        abort();
    free(sel);
    return 0;
}
