/*
 * sharing.c: the example header of docs/sharing.md
 * (docs/examples/sharing_example.h), built as its readers would use it,
 * for tests/docs/check: the host compiles it, a kernel that calls both its
 * functions builds on the device, and its struct has one layout on both
 * sides. Run from the project's root.
 */
#include "clframe.h"
#include "docs/examples/sharing_example.h"

#include <stdio.h>

static const char *const KERNEL =
    "#include \"docs/examples/sharing_example.h\"\n"
    "__kernel void best_of(__global const ClfParticle *ps, int n,\n"
    "                      float3 target, __global float *score,\n"
    "                      __global int *best) {\n"
    "    *score = clf_example_score(ps[0], target);\n"
    "    *best = clf_example_best(ps, n, target);\n"
    "}\n";

int main(void)
{
    ClfParticle p[2] = {clf_example_particle(1.0f, 2.0f, 3.0f, 1.0f, 1),
                        clf_example_particle(0.0f, 0.0f, 0.0f, 2.0f, 0)};
    cl_float3 target = {.s = {0.0f, 0.0f, 0.0f, 0.0f}};
    float score = -1.0f;
    cl_int best = -2;
    clkernel *k = clkernel_source(NULL, KERNEL, "best_of", NULL);
    if (!k || CLFRAME_CHECK_LAYOUT(NULL, "docs/examples/sharing_example.h",
                                   ClfParticle, pos, mass, kind, pad_) ||
        clkernel_global(k, 1) ||
        clkernel_call(k, CLARG_TYPED("ClfParticle", p, 2, CLARG_TO_DEVICE),
                      CLARG((cl_int)2), CLARG(target), CLARG_OUT(&score, 1),
                      CLARG_OUT(&best, 1))) {
        fprintf(stderr, "docs: docs/examples/sharing_example.h: %s\n",
                clframe_last_error());
        clkernel_free(k);
        return 1;
    }
    clkernel_free(k);
    if (score != clf_example_score(p[0], target) ||
        best != clf_example_best(p, 2, target)) {
        fprintf(stderr, "docs: docs/examples/sharing_example.h: the device "
                "gave score %g and best %d, the host %g and %d\n", score,
                (int)best, clf_example_score(p[0], target),
                (int)clf_example_best(p, 2, target));
        return 1;
    }
    return 0;
}
