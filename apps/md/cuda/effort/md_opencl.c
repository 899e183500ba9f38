/*
 * md_opencl.c: molecular dynamics, apps/md's particle version: N Lennard-Jones
 * particles from the app's FCC start stepped 3 + S times by velocity-Verlet,
 * each step md_kick_drift_bin, the cell list's scan (one work-group's
 * md_cell_scan, or above 16 blocks of cells md_block_sums, md_cell_scan of the
 * sums and md_block_starts), md_cell_scatter and md_force_particle, after the
 * first forces (md_bin, the scan, the scatter, the forces), as apps/md/md_cl.c
 * enqueues them, through the plain OpenCL API without clframe: one of issue
 * 25's three host programs per workload, whose lines bench/cuda/effort/count
 * compares. It runs on the first GPU, or the first device of any kind when
 * there is no GPU, prints the last S steps' kernel time (first start to last
 * end, from their profiling events) and checks, after the first 3, positions
 * within 1e-4 and velocities within 1e-3 against the app's host cell list in
 * double (the start, md_system_init, and the check, md_run's cells-host
 * version, are apps/md's helpers, shared by the three programs and not
 * counted). From the repository's root, after make:
 *
 *   cc -std=c11 -O2 -Wall -Wextra -Werror -Iclframe/kernels -Iapps -o bin/effort-md-opencl apps/md/cuda/effort/md_opencl.c build/libmd.a build/libcommon.a build/libclframe.a -lOpenCL -lpng16 -lm -fopenmp && bin/effort-md-opencl 4000 10
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "common/error.h"
#include "md/md.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define KERNEL_FILE "apps/md/kernels/md.cl"
/* md.cl includes md_force.h, which includes clframe/shared.h; the
 * work-group sizes are those md_cl.c builds the file with (its other
 * kernels need them to compile). */
#define KERNEL_OPTIONS                                                       \
    "-I apps/md/kernels -I clframe/kernels -DMD_ALLPAIRS_GROUP=64 "          \
    "-DMD_CELL_GROUP=32 -DMD_STAGE=512"
/* md_cl.c's work sizes: a particle's kernels, the one-group scan's most,
 * the cells in a block of the longer scan, which runs above 16 blocks. */
enum { GROUP = 64, SCAN_GROUP_MAX = 1024, SCAN_BLOCK = 256,
       SCAN_MAX_ONE_GROUP_BLOCKS = 16 };
static const double POS_TOL = 1e-4, VEL_TOL = 1e-3;    /* the app's */
/* The steps checked, as bench-md checks them, before the timed ones:
 * further on, float and the host's double drift apart. */
enum { CHECK_STEPS = 3 };

#define CHECK(call)                                                          \
    do {                                                                     \
        cl_int err_ = (call);                                                \
        if (err_ != CL_SUCCESS) {                                            \
            fprintf(stderr, "%s:%d: %s: OpenCL error %d\n", __FILE__,        \
                    __LINE__, #call, err_);                                  \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

/* Sets a kernel's arguments in order: each a size and a pointer. */
#define ARGS(k, ...)                                                         \
    set_args((k), (const arg[]){__VA_ARGS__},                                \
             sizeof((const arg[]){__VA_ARGS__}) / sizeof(arg))
#define A(x) {sizeof(x), &(x)}
#define LOCAL(bytes) {(bytes), NULL}

typedef struct arg {
    size_t size;
    const void *value;          /* NULL: __local memory of size bytes */
} arg;

/* The queue, the kernels of a step and the state they share. */
typedef struct md_state {
    cl_context context;
    cl_command_queue queue;
    cl_program program;
    cl_uint n;
    cl_int nc, ncells, nblocks;
    cl_float box, cells_per_length;
    size_t scan_group;
    cl_kernel kick_drift, bin, scan, block_sums, block_starts, scatter,
        force;
    cl_mem pos, vel, frc, pe, cell_of, counts, starts, cell_pos, sums,
        sums_starts;
    cl_event first, last;       /* the steps' first and last kernels */
} md_state;

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    char *text = malloc(size + 1);
    if (!text || fread(text, 1, size, f) != (size_t)size) {
        fprintf(stderr, "%s: cannot read\n", path);
        exit(1);
    }
    text[size] = '\0';
    fclose(f);
    return text;
}

/* The first GPU of any platform, else the first device of the first
 * platform that has one. */
static cl_device_id pick_device(void)
{
    cl_platform_id platforms[16];
    cl_uint count = 0;
    CHECK(clGetPlatformIDs(16, platforms, &count));
    cl_device_id device;
    for (cl_uint i = 0; i < count; i++)
        if (clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_GPU, 1, &device,
                           NULL) == CL_SUCCESS)
            return device;
    for (cl_uint i = 0; i < count; i++)
        if (clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_ALL, 1, &device,
                           NULL) == CL_SUCCESS)
            return device;
    fprintf(stderr, "no OpenCL device\n");
    exit(1);
}

static cl_program build_program(cl_context context, cl_device_id device,
                                const char *path)
{
    char *source = read_file(path);
    cl_int err;
    cl_program program = clCreateProgramWithSource(
        context, 1, (const char **)&source, NULL, &err);
    CHECK(err);
    free(source);
    if (clBuildProgram(program, 1, &device, KERNEL_OPTIONS, NULL, NULL) !=
        CL_SUCCESS) {
        size_t size;
        CHECK(clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0,
                                    NULL, &size));
        char *log = malloc(size);
        CHECK(clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG,
                                    size, log, NULL));
        fprintf(stderr, "%s: build failed:\n%s\n", path, log);
        exit(1);
    }
    return program;
}

static cl_kernel kernel(cl_program program, const char *name)
{
    cl_int err;
    cl_kernel k = clCreateKernel(program, name, &err);
    CHECK(err);
    return k;
}

static void build_kernels(md_state *r, cl_device_id device)
{
    r->program = build_program(r->context, device, KERNEL_FILE);
    r->kick_drift = kernel(r->program, "md_kick_drift_bin");
    r->bin = kernel(r->program, "md_bin");
    r->scan = kernel(r->program, "md_cell_scan");
    r->block_sums = kernel(r->program, "md_block_sums");
    r->block_starts = kernel(r->program, "md_block_starts");
    r->scatter = kernel(r->program, "md_cell_scatter");
    r->force = kernel(r->program, "md_force_particle");
    /* The scan is one group, as large as the kernel may have (a power of
     * two, at most SCAN_GROUP_MAX). */
    size_t most;
    CHECK(clGetKernelWorkGroupInfo(r->scan, device, CL_KERNEL_WORK_GROUP_SIZE,
                                   sizeof most, &most, NULL));
    for (r->scan_group = 1; r->scan_group * 2 <= most &&
                            r->scan_group * 2 <= SCAN_GROUP_MAX;)
        r->scan_group *= 2;
}

/* A device buffer of `bytes`, filled with zeros (the counts must start at
 * zero). */
static cl_mem zeros(md_state *r, size_t bytes)
{
    cl_int err;
    cl_mem m = clCreateBuffer(r->context, CL_MEM_READ_WRITE, bytes, NULL,
                              &err);
    CHECK(err);
    cl_int zero = 0;
    CHECK(clEnqueueFillBuffer(r->queue, m, &zero, sizeof zero, 0, bytes, 0,
                              NULL, NULL));
    return m;
}

/* x in float, still inside [0, box): rounding may reach box. */
static cl_float inside(double x, cl_float box)
{
    cl_float f = (cl_float)x;
    return f >= box || !(f >= 0.0f) ? 0.0f : f;
}

/* The start in float on the device, through host in turn. */
static void upload(md_state *r, const md_system *s, cl_float4 *host)
{
    size_t bytes = r->n * sizeof *host;
    for (size_t i = 0; i < r->n; i++)
        host[i] = (cl_float4){{inside(s->pos[3 * i], r->box),
                               inside(s->pos[3 * i + 1], r->box),
                               inside(s->pos[3 * i + 2], r->box), 0.0f}};
    CHECK(clEnqueueWriteBuffer(r->queue, r->pos, CL_TRUE, 0, bytes, host, 0,
                               NULL, NULL));
    for (size_t i = 0; i < r->n; i++)
        host[i] = (cl_float4){{(cl_float)s->vel[3 * i],
                               (cl_float)s->vel[3 * i + 1],
                               (cl_float)s->vel[3 * i + 2], 0.0f}};
    CHECK(clEnqueueWriteBuffer(r->queue, r->vel, CL_TRUE, 0, bytes, host, 0,
                               NULL, NULL));
}

static void set_args(cl_kernel k, const arg *args, size_t count)
{
    for (size_t i = 0; i < count; i++)
        CHECK(clSetKernelArg(k, (cl_uint)i, args[i].size, args[i].value));
}

/* Enqueues k over `items` work-items in groups of `group`; its event in
 * *event if not NULL. */
static void run(md_state *r, cl_kernel k, size_t items, size_t group,
                cl_event *event)
{
    size_t global = (items + group - 1) / group * group;
    CHECK(clEnqueueNDRangeKernel(r->queue, k, 1, NULL, &global, &group, 0,
                                 NULL, event));
}

/* Counts are in: the cells' starts, then the particles sorted into
 * cell_pos (which leaves the counts at zero again). */
static void sort_into_cells(md_state *r)
{
    size_t scan_bytes = r->scan_group * sizeof(cl_int);
    size_t block_bytes = SCAN_BLOCK * sizeof(cl_int);
    if (r->nblocks <= SCAN_MAX_ONE_GROUP_BLOCKS) {
        ARGS(r->scan, A(r->counts), A(r->starts), A(r->ncells),
             LOCAL(scan_bytes));
        run(r, r->scan, r->scan_group, r->scan_group, NULL);
    } else {
        ARGS(r->block_sums, A(r->counts), A(r->ncells), A(r->sums),
             LOCAL(block_bytes));
        run(r, r->block_sums, r->ncells, SCAN_BLOCK, NULL);
        ARGS(r->scan, A(r->sums), A(r->sums_starts), A(r->nblocks),
             LOCAL(scan_bytes));
        run(r, r->scan, r->scan_group, r->scan_group, NULL);
        ARGS(r->block_starts, A(r->counts), A(r->ncells), A(r->sums_starts),
             A(r->starts), LOCAL(block_bytes));
        run(r, r->block_starts, r->ncells, SCAN_BLOCK, NULL);
    }
    ARGS(r->scatter, A(r->pos), A(r->n), A(r->cell_of), A(r->starts),
         A(r->counts), A(r->cell_pos));
    run(r, r->scatter, r->n, GROUP, NULL);
}

/* The forces, energies and a kick of the velocities by half_dt f; the
 * kernel's event in *event if not NULL. */
static void forces(md_state *r, cl_float half_dt, cl_event *event)
{
    ARGS(r->force, A(r->cell_pos), A(r->cell_of), A(r->starts), A(r->n),
         A(r->nc), A(r->box), A(r->vel), A(r->frc), A(r->pe), A(half_dt));
    run(r, r->force, r->n, GROUP, event);
}

/* The first forces, with no kick. */
static void first_forces(md_state *r)
{
    ARGS(r->bin, A(r->pos), A(r->n), A(r->cells_per_length), A(r->nc),
         A(r->cell_of), A(r->counts));
    run(r, r->bin, r->n, GROUP, NULL);
    sort_into_cells(r);
    forces(r, 0.0f, NULL);
}

/* A step; the first and the last keep their first and last kernels'
 * events for the time. */
static void step(md_state *r, int first, int last)
{
    cl_float dt = (cl_float)MD_DT;
    ARGS(r->kick_drift, A(r->pos), A(r->vel), A(r->frc), A(r->n), A(dt),
         A(r->box), A(r->cells_per_length), A(r->nc), A(r->cell_of),
         A(r->counts));
    run(r, r->kick_drift, r->n, GROUP, first ? &r->first : NULL);
    sort_into_cells(r);
    forces(r, 0.5f * dt, last ? &r->last : NULL);
}

/* Nanoseconds of one of an event's profiling times. */
static cl_ulong event_time(cl_event e, cl_profiling_info what)
{
    cl_ulong t;
    CHECK(clGetEventProfilingInfo(e, what, sizeof t, &t, NULL));
    return t;
}

/* The device's state, read back through host, within the tolerances of
 * the host's. */
static int agrees(md_state *r, const md_system *want, cl_float4 *host)
{
    cl_mem arrays[2] = {r->pos, r->vel};
    const double *wanted[2] = {want->pos, want->vel};
    const double tolerance[2] = {POS_TOL, VEL_TOL};
    for (int a = 0; a < 2; a++) {
        CHECK(clEnqueueReadBuffer(r->queue, arrays[a], CL_TRUE, 0,
                                  r->n * sizeof *host, host, 0, NULL, NULL));
        for (size_t i = 0; i < r->n; i++)
            for (int k = 0; k < 3; k++) {
                double d = host[i].s[k] - wanted[a][3 * i + k];
                if (a == 0)     /* a particle may wrap on one side only */
                    d = md_min_image(d, want->box);
                if (!(fabs(d) <= tolerance[a]))
                    return 0;
            }
    }
    return 1;
}

static void release(md_state *r)
{
    cl_mem buffers[] = {r->pos, r->vel, r->frc, r->pe, r->cell_of,
                        r->counts, r->starts, r->cell_pos, r->sums,
                        r->sums_starts};
    for (size_t i = 0; i < sizeof buffers / sizeof *buffers; i++)
        clReleaseMemObject(buffers[i]);
    cl_kernel kernels[] = {r->kick_drift, r->bin, r->scan, r->block_sums,
                           r->block_starts, r->scatter, r->force};
    for (size_t i = 0; i < sizeof kernels / sizeof *kernels; i++)
        clReleaseKernel(kernels[i]);
    if (r->first) {
        clReleaseEvent(r->first);
        clReleaseEvent(r->last);
    }
    clReleaseProgram(r->program);
    clReleaseCommandQueue(r->queue);
    clReleaseContext(r->context);
}

int main(int argc, char **argv)
{
    cl_uint n = argc > 1 ? (cl_uint)atoi(argv[1]) : 4000;
    int steps = argc > 2 ? atoi(argv[2]) : 10;
    md_system start, truth;
    /* The host's steps first: md_run refuses what the app refuses (fewer
     * than 3 cells a side, too many particles). */
    if (steps < 0 || md_system_init(&start, n, 1) ||
        md_system_copy(&truth, &start) ||
        md_run(&truth, CHECK_STEPS, MD_CELLS_HOST, NULL, NULL, NULL, NULL)) {
        fprintf(stderr, "usage: md_opencl [particles steps] (%s)\n",
                app_last_error());
        return 2;
    }
    cl_float4 *host = malloc(n * sizeof *host);
    if (!host) {
        fprintf(stderr, "no memory for %u particles\n", n);
        return 1;
    }

    md_state r = {.n = n, .box = (cl_float)start.box};
    r.nc = md_cells_per_side(start.box);
    r.ncells = r.nc * r.nc * r.nc;
    r.nblocks = (r.ncells + SCAN_BLOCK - 1) / SCAN_BLOCK;
    r.cells_per_length = (cl_float)(r.nc / start.box);
    cl_int err;
    cl_device_id device = pick_device();
    r.context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    CHECK(err);
    r.queue = clCreateCommandQueue(r.context, device,
                                   CL_QUEUE_PROFILING_ENABLE, &err);
    CHECK(err);
    build_kernels(&r, device);
    size_t n4 = n * sizeof(cl_float4), ni = n * sizeof(cl_int);
    r.pos = zeros(&r, n4);
    r.vel = zeros(&r, n4);
    r.frc = zeros(&r, n4);
    r.cell_pos = zeros(&r, n4);
    r.pe = zeros(&r, n * sizeof(cl_float));
    r.cell_of = zeros(&r, ni);
    r.counts = zeros(&r, r.ncells * sizeof(cl_int));
    r.starts = zeros(&r, (r.ncells + 1) * sizeof(cl_int));
    r.sums = zeros(&r, r.nblocks * sizeof(cl_int));
    r.sums_starts = zeros(&r, (r.nblocks + 1) * sizeof(cl_int));
    upload(&r, &start, host);

    first_forces(&r);
    for (int t = 0; t < CHECK_STEPS; t++)
        step(&r, 0, 0);
    int ok = agrees(&r, &truth, host);
    for (int t = 0; t < steps; t++)
        step(&r, t == 0, t == steps - 1);
    CHECK(clFinish(r.queue));
    double ms = 0;
    if (steps > 0)
        ms = (event_time(r.last, CL_PROFILING_COMMAND_END) -
              event_time(r.first, CL_PROFILING_COMMAND_START)) * 1e-6;
    printf("md particle, %u particles, %d steps after %d checked: %.3f "
           "ms, %s\n", n, steps, CHECK_STEPS, ms,
           ok ? "checked" : "WRONG");

    release(&r);
    free(host);
    md_system_free(&start);
    md_system_free(&truth);
    return ok ? 0 : 1;
}
