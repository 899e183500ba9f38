/*
 * heat.h: stepping a heat world, by every version of the seed's tutorial
 * and beyond: the plain C reference, its OpenMP twin, and the OpenCL
 * versions v3 (naive), v4 (double-buffered), v5 (packed properties), v6
 * (several steps per launch in local-memory tiles) and v7 (several steps
 * per launch, a work-item a block, for CPU devices). Every version performs
 * the same float operations in the same order as the reference for every
 * cell, so their outputs are equal byte for byte (the kernels are built with
 * FP contraction off and correctly rounded division; see apps/heat/kernels/).
 */
#ifndef HEAT_H
#define HEAT_H

#include "world.h"
#include "common/timing.h"
#include "common/versions.h"

/* clframe's context (clframe.h), which the OpenCL versions run on. */
typedef struct clctx clctx;

typedef enum heat_version {
    HEAT_REFERENCE = 0,     /* plain C, one thread: the reference */
    HEAT_OPENMP,            /* the reference with rows split by OpenMP */
    HEAT_V3_NAIVE,          /* a kernel per step, state to and from the host */
    HEAT_V4_DOUBLE_BUFFERED,/* persistent buffers, state read back once */
    HEAT_V5_PACKED,         /* v4 + neighbours' insulator bits in one word */
    HEAT_V6_TILED,          /* v5 + several steps per launch in local tiles */
    HEAT_V7_BLOCKED,        /* several steps per launch, a work-item a block:
                               for CPU devices */
    HEAT_VERSION_COUNT
} heat_version;

/* Their names, "reference", "openmp", "v3", "v4", "v5", "v6" and "v7", each
 * with the program that runs it as its alias ("step_world",
 * "step_world_v3_opencl", ...), which run on a device, and the defaults:
 * v6 on a GPU, v7 on a CPU device (common/versions.h). */
extern const app_versions heat_versions;

/* Advances world by `steps` steps of size dt with version v. ctx is the
 * OpenCL context for the OpenCL versions (NULL: clframe's default) and is
 * ignored by the others; timing may be NULL. 0 or a negative code. */
int heat_step(heat_world *world, float dt, unsigned steps, heat_version v,
              clctx *ctx, app_timing *timing);

/* Whether dt is a step heat_step takes for a world of diffusion constant
 * alpha: finite, with alpha*dt in [0, 4) (at 4 and beyond a cell gives
 * more heat than it has). 0, or APP_ERR_BAD_INPUT with a message naming
 * dt, alpha and their product. Every stepper checks with it, heat_step
 * and the MPI one (apps/mpi) alike. */
int heat_check_dt(float alpha, float dt);

/* The coefficients of one step: outer = alpha*dt, inner = 1 - outer/4. */
void heat_coefficients(float alpha, float dt, float *inner, float *outer);

/* The reference and OpenMP steppers (heat_ref.c), also used directly by
 * tests and the benchmark. world->state may be replaced by another array
 * of the same size. 0, or APP_ERR_NO_MEMORY. */
int heat_step_reference(heat_world *world, float dt, unsigned steps);
int heat_step_openmp(heat_world *world, float dt, unsigned steps);
/* Threads heat_step_openmp uses (1 when built without OpenMP). */
int heat_openmp_threads(void);

/* The OpenCL versions (heat_cl.c). */
int heat_step_opencl(heat_world *world, float dt, unsigned steps,
                     heat_version v, clctx *ctx, app_timing *timing);

/* v6 as a stencil (common/stencil.h) over world, for code that steps a
 * world in parts (apps/mpi): its state buffers start as world->state and
 * its launches step rows of tiles. world must outlive it. 0 or a code;
 * heat_v6_close frees it (not world; NULL is a no-op). */
typedef struct app_stencil app_stencil;
int heat_v6_open(app_stencil **s, heat_world *world, float dt, clctx *ctx,
                 app_timing *timing);
void heat_v6_close(app_stencil *s);

/* Each cell's flags with its neighbours' insulator bits packed in, as v5
 * and v6 read them: bit 0 fixed, bit 1 insulator, bits 2-5 set when the
 * neighbour above, below, left, right is an insulator (normal cells only). */
enum {
    HEAT_PACKED_ABOVE = 0x4,
    HEAT_PACKED_BELOW = 0x8,
    HEAT_PACKED_LEFT  = 0x10,
    HEAT_PACKED_RIGHT = 0x20
};
uint32_t heat_packed_flags(const heat_world *world, uint32_t x, uint32_t y);

/* The main of every step_world program: `PROGRAM [dt=0.1] [steps=1]
 * [binary=0]` reads a world on stdin and writes the stepped world to stdout.
 * Returns the exit status. */
int heat_step_main(int argc, char **argv, heat_version v);

/* Its parts (step_main.c), for a stepper with a main of its own
 * (apps/mpi): the usage for program `name`; the arguments, parsed after
 * app_start (-1 to go on, else the exit status, the message printed); and
 * the world written to stdout (0 or a code). */
typedef struct heat_step_args {
    float dt;
    unsigned steps;
    int binary;
} heat_step_args;
typedef struct app_program app_program;
void heat_step_usage(char *usage, size_t size, const char *name);
int heat_step_parse(const app_program *program, int argc, char **argv,
                    heat_step_args *args);
int heat_step_save(const heat_world *world, int binary);

#endif /* HEAT_H */
