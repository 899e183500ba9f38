/*
 * sharing_example.h: the worked example of docs/sharing.md, one
 * header that both the host's C compiler and the device's OpenCL C compiler
 * read: a struct laid out alike on both sides, a constant table, functions
 * with one body for both, and a host-only helper. tests/test_layout.c checks
 * the layout and calls the functions from C and from a kernel.
 */
#ifndef CLFRAME_SHARING_EXAMPLE_H
#define CLFRAME_SHARING_EXAMPLE_H

#include "clframe/shared.h"

/* pos is a CLF_FLOAT3: 16 bytes and 16-aligned on both sides, so mass is at
 * offset 16 everywhere. The pad makes the 8 bytes the compiler would add to
 * reach a multiple of 16 visible (and zeroed by the host constructor). */
typedef struct ClfParticle {
    CLF_FLOAT3 pos;
    CLF_FLOAT mass;
    CLF_INT kind;
    CLF_INT pad_[2];
} ClfParticle;

CLF_STATIC_ASSERT_SIZE(ClfParticle, 32);
CLF_STATIC_ASSERT_OFFSET(ClfParticle, mass, 16);

/* Program-scope data must live in __constant memory on the device. */
static const CLF_CONSTANT CLF_FLOAT clf_example_kind_weight[4] = {
    1.0f, 2.0f, 0.5f, 4.0f};

/* Weighted squared distance of p from target. By value, so it works on a
 * particle from any address space; component by component, because the
 * host's vector types have no arithmetic. */
CLF_INLINE CLF_FLOAT clf_example_score(ClfParticle p, CLF_FLOAT3 target)
{
    CLF_FLOAT dx = p.pos.x - target.x;
    CLF_FLOAT dy = p.pos.y - target.y;
    CLF_FLOAT dz = p.pos.z - target.z;
    return clf_example_kind_weight[p.kind & 3] * p.mass *
           (dx * dx + dy * dy + dz * dz);
}

/* Index of the particle with the lowest score (the first of equals), or -1
 * for none. CLF_GLOBAL: on the device the array is in __global memory. */
CLF_INLINE CLF_INT clf_example_best(const CLF_GLOBAL ClfParticle *ps,
                                    CLF_INT n, CLF_FLOAT3 target)
{
    CLF_INT best = -1;
    CLF_FLOAT best_score = 0.0f;
    for (CLF_INT i = 0; i < n; i++) {
        CLF_FLOAT s = clf_example_score(ps[i], target);
        if (best < 0 || s < best_score) {
            best = i;
            best_score = s;
        }
    }
    return best;
}

#ifndef CLF_DEVICE
/* Host only (the device has no use for it): a particle with its padding
 * zeroed, so every byte sent to the device is defined. */
static inline ClfParticle clf_example_particle(float x, float y, float z,
                                               float mass, int kind)
{
    ClfParticle p = {.pos = {.s = {x, y, z, 0.0f}}, .mass = mass,
                     .kind = kind, .pad_ = {0, 0}};
    return p;
}
#endif

#endif /* CLFRAME_SHARING_EXAMPLE_H */
