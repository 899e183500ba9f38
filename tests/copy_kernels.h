/*
 * copy_kernels.h: the kernels of the pinned-memory and stream suites
 * (test_pinned.c, test_stream.c), one source so that a run compiles one
 * program for both: under valgrind PoCL compiles a program slowly.
 */
#ifndef COPY_KERNELS_H
#define COPY_KERNELS_H

/* twice: out = 2 * in and io += in + 1, so every direction shows;
 * blend: out = 2 * in + bias[i % 7], io += in, a split array each way
 * and a whole one that every chunk reads; rows: out = in + row, by rows;
 * slow: x iterated `rounds` times, long enough to be in flight;
 * slow_pair: the same into a pinned array and an index into another;
 * jacobi: one Jacobi step of a rod with fixed ends, for double buffering. */
static const char *const copy_kernels =
    "__kernel void twice(__global const float *in, __global float *out,\n"
    "                    __global float *io, int n)\n"
    "{\n"
    "    int i = get_global_id(0);\n"
    "    if (i < n) { out[i] = 2 * in[i]; io[i] += in[i] + 1; }\n"
    "}\n"
    "__kernel void blend(__global const float *in, __global float *out,\n"
    "                    __global float *io, __global const float *bias,\n"
    "                    int n)\n"
    "{\n"
    "    int i = get_global_id(0);\n"
    "    if (i < n) { out[i] = 2 * in[i] + bias[i % 7]; io[i] += in[i]; }\n"
    "}\n"
    "__kernel void rows(__global const float *in, __global float *out,\n"
    "                   __global const float *row, int w)\n"
    "{\n"
    "    int x = get_global_id(0), y = get_global_id(1);\n"
    "    out[y * w + x] = in[y * w + x] + row[x];\n"
    "}\n"
    "__kernel void slow(__global float *x, int rounds)\n"
    "{\n"
    "    int i = get_global_id(0);\n"
    "    float v = x[i];\n"
    "    for (int r = 0; r < rounds; r++) v = v * 0.5f + 1.0f;\n"
    "    x[i] = v;\n"
    "}\n"
    "__kernel void slow_pair(__global float *pinned, __global float *out,\n"
    "                        int n, int rounds)\n"
    "{\n"
    "    int i = get_global_id(0);\n"
    "    float x = i;\n"
    "    for (int r = 0; r < rounds; r++) x = x * 0.5f + 1.0f;\n"
    "    if (i < n) { pinned[i] = x; out[i] = i; }\n"
    "}\n"
    "__kernel void jacobi(__global const float *in, __global float *out,\n"
    "                     int n)\n"
    "{\n"
    "    int i = get_global_id(0);\n"
    "    if (i < n)\n"
    "        out[i] = i == 0 || i == n - 1 ? in[i]\n"
    "                                      : 0.5f * (in[i - 1] + in[i + 1]);\n"
    "}\n";

#endif /* COPY_KERNELS_H */
