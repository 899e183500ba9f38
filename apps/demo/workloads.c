/*
 * workloads.c: the demo's rows in order, named after their apps: the table
 * bin/clframe-demo prints on small inputs and bin/bench-defaults times on
 * larger ones. Adding a row is naming its function here (and counting it
 * in DEMO_WORKLOADS, which the compiler holds to this list).
 */
#include "demo.h"

const demo_workload demo_workloads[] = {
    {"vadd", demo_vadd, 0},
    {"heat", demo_heat, 1},
    {"raytracer", demo_raytracer, 1},
    {"matmul", demo_matmul, 1},
    {"laplace", demo_laplace, 1},
    {"blur", demo_blur, 1},
    {"kalah", demo_kalah, 1},
    {"societies", demo_societies, 1},
    {"md", demo_md, 1},
};
