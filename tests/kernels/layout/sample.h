/*
 * sample.h: a header that the host's C compiler and the device's OpenCL C
 * compiler both read, for tests/test_layout.c: a struct holding a
 * CLF_FLOAT3 and its padding, laid out alike on both sides; a __constant
 * table; a function of one body for both, taking the struct by value; one
 * walking a __global array of it; and a host-only constructor.
 */
#ifndef CLFRAME_TEST_LAYOUT_SAMPLE_H
#define CLFRAME_TEST_LAYOUT_SAMPLE_H

#include "clframe/shared.h"

/* at is 16 bytes and 16-aligned on both sides, after a 16-byte head. */
typedef struct Sample {
    CLF_UINT tag;
    CLF_FLOAT gain;
    CLF_INT unused_[2];
    CLF_FLOAT3 at;
} Sample;

CLF_STATIC_ASSERT_SIZE(Sample, 32);
CLF_STATIC_ASSERT_OFFSET(Sample, at, 16);

static const CLF_CONSTANT CLF_FLOAT sample_tag_scale[3] = {0.5f, 1.0f, 3.0f};

/* gain, scaled by the tag's entry, times the dot product of at and point
 * (part by part: the host's float3 has no arithmetic). */
CLF_INLINE CLF_FLOAT sample_weight(Sample s, CLF_FLOAT3 point)
{
    CLF_FLOAT dot = s.at.x * point.x + s.at.y * point.y + s.at.z * point.z;
    return sample_tag_scale[s.tag % 3] * s.gain * dot;
}

/* Index of the sample of greatest weight (the last of equals), or -1 for
 * an empty array; CLF_GLOBAL puts the array in __global memory on the
 * device. */
CLF_INLINE CLF_INT sample_heaviest(const CLF_GLOBAL Sample *samples,
                                   CLF_INT count, CLF_FLOAT3 point)
{
    CLF_INT heaviest = -1;
    CLF_FLOAT most = 0.0f;
    for (CLF_INT i = 0; i < count; i++) {
        CLF_FLOAT w = sample_weight(samples[i], point);
        if (heaviest < 0 || w >= most) {
            heaviest = i;
            most = w;
        }
    }
    return heaviest;
}

#ifndef CLF_DEVICE
/* Host only: a sample with its padding zeroed. */
static inline Sample sample_make(unsigned tag, float gain, float x, float y,
                                 float z)
{
    Sample s = {.tag = tag, .gain = gain, .unused_ = {0, 0},
                .at = {.s = {x, y, z, 0.0f}}};
    return s;
}
#endif

#endif /* CLFRAME_TEST_LAYOUT_SAMPLE_H */
