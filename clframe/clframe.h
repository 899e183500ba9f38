/**
 * @file
 * clframe.h: the whole public interface of clframe, a thin C layer over OpenCL
 * that makes calling a kernel look like calling a function:
 *
 *     clkernel *k = clkernel_file(NULL, "kernels/demo/vadd.cl", "vadd", NULL);
 *     clkernel_global(k, n);
 *     clkernel_call(k, CLARG_IN(a, n), CLARG_IN(b, n), CLARG_OUT(c, n), CLARG(n));
 *
 * Eleven sections, each a group of the reference that `make docs` builds in
 * build/docs/html:
 * - the version of clframe;
 * - errors: their codes and messages, and a handler that sees each;
 * - clctx: the device, its context and queue, with their limits, settings,
 *   counters, buffer pool and timing;
 * - a timeline of every launch, copy, build and wait (CLFRAME_TRACE);
 * - pinned host memory, which the device reaches at full speed;
 * - clarg: one argument of a call, a small value built by macros;
 * - clstream: more in-order queues, for copies that overlap kernels;
 * - clkernel: a __kernel ready to call;
 * - clfunction: a device function that is not a kernel, called from the host;
 * - the host and device layouts of the structs they share, checked;
 * - files written whole.
 *
 * Every function that can fail returns NULL or a negative code and leaves a
 * message in clframe_last_error(); nothing here aborts. The header is C11
 * and C++11: a twelfth section, at the end, makes the same calls
 * templates in C++.
 *
 * Ownership in one line: what a *_new / *_file / *_source function returns is
 * the caller's to free with the matching *_free; the default context and all
 * strings returned by accessors belong to clframe.
 */
#ifndef CLFRAME_H
#define CLFRAME_H

/** The OpenCL version whose API the OpenCL headers declare: 1.2, unless the
 * program chose one before including this header. */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/** @defgroup version Version
 * @{ */
/* ------------------------------------------------------------------------ */

/** @name The version of this header
 * @{ */
/** MAJOR.MINOR.PATCH, the one CHANGELOG.md, clframe.pc and
 * clframe-info --version give. MAJOR rises when the API or the ABI changes
 * (and with it the shared library's SONAME); a PATCH step changes neither.
 * The build reads the version from these three numbers, and
 * make test-install checks the rest. */
#define CLFRAME_VERSION_MAJOR 1
#define CLFRAME_VERSION_MINOR 0
#define CLFRAME_VERSION_PATCH 0
/** @} */

/** @cond */
#define CLFRAME_VERSION_TEXT_(n) #n
#define CLFRAME_VERSION_TEXT(n) CLFRAME_VERSION_TEXT_(n)
/** @endcond */
/** "1.0.0": the three numbers as a string literal. */
#define CLFRAME_VERSION_STRING CLFRAME_VERSION_TEXT(CLFRAME_VERSION_MAJOR) \
    "." CLFRAME_VERSION_TEXT(CLFRAME_VERSION_MINOR) \
    "." CLFRAME_VERSION_TEXT(CLFRAME_VERSION_PATCH)

/** The version of the library the program runs with, CLFRAME_VERSION_STRING
 * as the library was built: it differs from the header's when a program
 * built against one version loads the shared library of another. The
 * string is static. */
const char *clframe_version(void);

/** @} */

/* ------------------------------------------------------------------------ */
/** @defgroup errors Errors
 * @{ */
/* ------------------------------------------------------------------------ */

/** clframe's own error codes, below every OpenCL and extension code. */
enum {
    CLFRAME_ERR_NO_PLATFORM    = -9001, /**< no OpenCL platform installed */
    CLFRAME_ERR_NO_DEVICE      = -9002, /**< no device matches the selector */
    CLFRAME_ERR_BAD_SELECTOR   = -9003, /**< CLFRAME_DEVICE / HPCE_* unreadable */
    CLFRAME_ERR_NOT_FOUND      = -9004, /**< kernel file, include or kernel name */
    CLFRAME_ERR_BUILD          = -9005, /**< program did not compile: see log */
    CLFRAME_ERR_ARG_COUNT      = -9006, /**< wrong number of arguments */
    CLFRAME_ERR_ARG_TYPE       = -9007, /**< argument does not match parameter */
    CLFRAME_ERR_NO_GLOBAL_SIZE = -9008, /**< clkernel_global was never called */
    CLFRAME_ERR_BAD_SIZE       = -9009, /**< work sizes the device cannot run */
    CLFRAME_ERR_USAGE          = -9010, /**< NULL object, bad flags, ... */
    CLFRAME_ERR_NO_MEMORY      = -9011, /**< host allocation failed */
    CLFRAME_ERR_IO             = -9012  /**< a file could not be read */
};

/** Name of any OpenCL 1.0-3.0 error code, common extension code, or clframe
 * code ("CL_INVALID_KERNEL_ARGS", "CLFRAME_ERR_BUILD"); "CL_SUCCESS" for 0;
 * "unknown error" otherwise. The string is static. */
const char *clframe_error_name(int code);

/** The message of the most recent error in this thread: what failed, where
 * (kernel, argument, file and line) and why; "" before the first. Successful
 * calls leave it alone, so read it right after a call that failed. The
 * string is overwritten only by the next error in the same thread. */
const char *clframe_last_error(void);

/** Raises an error the way clframe does: sets clframe_last_error() from a
 * printf format, calls the handler, and returns code, so that a failure is
 * `return clframe_fail(CLFRAME_ERR_USAGE, "...", ...)`. Code built on
 * clframe (a helper around a kernel) may raise clframe's codes with it. */
int clframe_fail(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/** @name The error handler
 * @{ */
/** Called with every error as it is raised (after clframe_last_error is set).
 * Returns the previous handler; NULL (the default) means "just return". Tests
 * and small programs can install one that prints and exits. */
typedef void (*clframe_error_handler)(int code, const char *message);
clframe_error_handler clframe_set_error_handler(clframe_error_handler handler);
/** @} */

/** @} */

/* ------------------------------------------------------------------------ */
/** @defgroup contexts clctx: platform, device, context, profiling queue
 * @{ */
/* ------------------------------------------------------------------------ */

/** Platform, device, context and one in-order profiling queue. */
typedef struct clctx clctx;

/** The process-wide context, created on first use with clctx_new(NULL) and
 * freed at exit. NULL if no device could be opened (see clframe_last_error).
 * Every function taking a clctx * accepts NULL to mean this one. */
clctx *clctx_default(void);

/** A new context. selector chooses the device: "gpu", "cpu", "P:D" (platform
 * and device indices as clframe-info lists them), a bare number N (the N-th
 * device, from 0, of every platform's in that order, as clframe-info
 * numbers them; one past the last is an error listing them) or a
 * case-insensitive substring of the device name (one holding more than
 * digits: "RTX 4090", not "4090"). NULL means: CLFRAME_DEVICE if set, else
 * HPCE_SELECT_PLATFORM / HPCE_SELECT_DEVICE if set, else the CPU when CL_DEBUG
 * is on, else the first GPU on any platform, else the first CPU device. So
 * CL_DEBUG picks the CPU only when nothing else chooses: a selector or
 * CLFRAME_DEVICE=gpu keeps the GPU, in debug mode. CL_DEBUG=1 also builds
 * kernels with "-g -cl-opt-disable", prints every build log, finishes the
 * queue after every enqueue and prints one line naming the device and the
 * mode when the context is made, on whichever device. Free with
 * clctx_free. */
clctx *clctx_new(const char *selector);

/** As clctx_new, on the index-th (modulo their count) of the devices that the
 * rule in force matches: "gpu" and the default go round every GPU, "cpu"
 * and the CPU fallback every CPU device, a name every device containing it;
 * "P:D", N and HPCE_SELECT_* name one device, which every index shares. For
 * MPI, pass the node-local rank (from MPI_Comm_split_type with
 * MPI_COMM_TYPE_SHARED, or Open MPI's OMPI_COMM_WORLD_LOCAL_RANK) so that
 * ranks spread over the node's devices; clctx_describe says which one. */
clctx *clctx_new_nth(const char *selector, unsigned index);

/** Waits for outstanding work, prints the CLFRAME_PROFILE table if profiling,
 * releases the OpenCL objects. Free a context's kernels and persistent
 * arguments first. NULL is a no-op; freeing the default context early is
 * allowed (the next clctx_default() opens a new one). */
void clctx_free(clctx *ctx);

/** @name Raw handles
 * @{ */
/** Raw handles, to mix clframe with plain OpenCL. Owned by the context. */
cl_platform_id   clctx_platform(clctx *ctx);
cl_device_id     clctx_device(clctx *ctx);
cl_context       clctx_context(clctx *ctx);
cl_command_queue clctx_queue(clctx *ctx);
/** @} */

/** "NVIDIA H200 (NVIDIA CUDA, OpenCL 3.0 CUDA ...), platform 0 device 0:
 * the first GPU" -- which device and why it was chosen. Owned by ctx. */
const char *clctx_describe(clctx *ctx);
const char *clctx_device_name(clctx *ctx);    /**< its CL_DEVICE_NAME */
cl_device_type clctx_device_type(clctx *ctx); /**< CL_DEVICE_TYPE_GPU, ... */
int clctx_debug(clctx *ctx);                  /**< 1 when CL_DEBUG is on */

/** @name The device's limits
 * @{ */
/** The device's limits that choose work-group and tile shapes, read once
 * when the context opened: CL_DEVICE_MAX_WORK_GROUP_SIZE and
 * CL_DEVICE_LOCAL_MEM_SIZE in bytes. */
size_t clctx_max_work_group_size(clctx *ctx);
cl_ulong clctx_local_mem_size(clctx *ctx);
/** @} */

/** "-cl-fp32-correctly-rounded-divide-sqrt" if the device can round float
 * division and sqrt correctly, else "": the build option for kernels whose
 * results must equal a C reference's bit for bit (OpenCL allows 2.5 and 3
 * ulp by default, and NVIDIA's driver uses that latitude). */
const char *clctx_exact_fp_option(clctx *ctx);

/** @name Per-device settings
 * @{ */
/** Per-device settings: a short value (one line of text) that a program
 * measured once for ctx's device, such as a tuned tile, kept beside the
 * program cache and keyed like its entries by the device, driver and
 * platform versions and the setting's name. clctx_setting_get copies the
 * value into value (size bytes with its '\0') and returns 1, or returns 0
 * when there is none (never stored, another device or driver, a damaged
 * file, too long for size, CLFRAME_CACHE=0). clctx_setting_put stores it
 * atomically: 0, or a code with a message. */
int clctx_setting_get(clctx *ctx, const char *name, char *value, size_t size);
int clctx_setting_put(clctx *ctx, const char *name, const char *value);
/** @} */

/** @name The program cache on disk
 * @{ */
/** Compiled programs are kept in $XDG_CACHE_HOME/clframe (else
 * ~/.cache/clframe), at most CLFRAME_CACHE_MAX bytes of them (read when a
 * context is made; 256 MiB unless it says), the least recently used
 * removed first when a new one would pass it. clframe_cache_get_usage
 * says where the folder is and what it holds (clframe-info --cache prints
 * it); clframe_cache_clear removes every entry, and only those: never the
 * settings above, PoCL's pocl/ folder or anything else there, and says
 * what it removed (clframe-info --clear-cache). A folder not made yet is
 * an empty cache. 0, or a code with a message: CLFRAME_ERR_USAGE for a
 * malformed CLFRAME_CACHE_MAX, CLFRAME_ERR_IO when there is no folder
 * (neither XDG_CACHE_HOME nor HOME is an absolute path, or others can
 * write to it) or it cannot be read, or an entry cannot be removed. */
typedef struct clframe_cache_usage {
    char dir[4096];              /**< the folder */
    int exists;                  /**< 0: not made yet */
    int on;                      /**< 0 under CLFRAME_CACHE=0 */
    uint64_t entries;            /**< compiled programs */
    uint64_t bytes;              /**< their size */
    uint64_t max;                /**< the cap */
} clframe_cache_usage;
int clframe_cache_get_usage(clframe_cache_usage *usage);
int clframe_cache_clear(clframe_cache_usage *removed);
/** @} */

/** Blocks until everything enqueued on the context has finished: on its own
 * queue, its streams (clstream) and a chunked call's copy queues. */
int clctx_finish(clctx *ctx);

/** Counters kept by every context, cheap enough to be always on. Transfers
 * count the copies clframe made for arguments and for clarg_read/write. */
typedef struct clctx_stats {
    uint64_t kernel_runs;        /**< kernels enqueued */
    uint64_t writes;             /**< host->device copies */
    uint64_t reads;              /**< device->host copies */
    uint64_t bytes_to_device;    /**< bytes of the host->device copies */
    uint64_t bytes_from_device;  /**< bytes of the device->host copies */
    long live_objects;           /**< buffers, events, programs, kernels alive
                                      (a kept program no kernel uses is not,
                                      nor a buffer the pool holds) */
    uint64_t cache_hits;         /**< programs loaded from the binary cache */
    uint64_t cache_misses;       /**< programs compiled (and then cached) */
    uint64_t compiles;           /**< compiler runs, failed ones included */
    uint64_t pool_hits;          /**< call arrays given a pooled buffer */
    uint64_t pool_misses;        /**< ... and given a new one */
    size_t pool_bytes;           /**< bytes the pool holds now */
} clctx_stats;
clctx_stats clctx_get_stats(clctx *ctx); /**< ctx's counters now. */

/** @name The buffer pool
 * @{ */
/** The buffer pool. A call's arrays that are not persistent (CLARG_IN,
 * CLARG_OUT, CLARG_INOUT, CLARG_TYPED) borrow their device buffers from
 * their context's pool and give them back when the call's work is
 * enqueued, so that calls of the same sizes make no buffers after the
 * first. Buffers are kept by size class (an array gets a buffer up to 25%
 * longer; exactly as long on Oclgrind, which checks a kernel's accesses
 * against it), and one given back by a call still in flight goes only to
 * later work on the same queue or stream until that is known finished
 * (a blocking call, clstream_wait, clctx_finish). The pool holds at most
 * its limit in bytes, dropping the buffers given back longest ago first:
 * CLFRAME_POOL_BYTES (a number, K, M or G after it for KiB, MiB or GiB;
 * 0 turns the pool off) when a context is made, else an eighth of the
 * device's memory, at most 1 GiB. When the device runs out of memory, the
 * pool is emptied and the allocation or command tried once more.
 * clctx_pool_limit sets the limit of ctx (NULL: the default), dropping
 * what is held past it; clctx_pool_trim drops the oldest buffers until at
 * most keep bytes are held (0: all); clctx_free releases them all. A
 * context and its pool are used by one thread at a time. 0 or a code. */
int clctx_pool_limit(clctx *ctx, size_t bytes);
int clctx_pool_trim(clctx *ctx, size_t keep);
/** @} */

/** @name Timing every launch
 * @{ */
/** Times every kernel launch on ctx (NULL: the default) from now on, as
 * clkernel_set_timing does for one kernel, until turned off; 0 or a
 * code. clctx_kernel_ms sums the kernel time, in milliseconds, of every
 * timed launch on ctx so far, its kernels' own timing included, waiting
 * for those still running: a stretch of a run timed as CUDA times it with
 * a pair of events, without naming each kernel (-1 when no context). */
int clctx_set_timing(clctx *ctx, int on);
double clctx_kernel_ms(clctx *ctx);
/** @} */

/** @} */

/* ------------------------------------------------------------------------ */
/** @defgroup tracing A timeline
 * @{ */

/** @name Tracing
 * @{ */
/** A timeline of the process's device work, for Perfetto, chrome://tracing
 * and clframe-trace (docs/tracing.md): every kernel launch, copy (bytes,
 * direction, GB/s), build (compiled or from the cache) and host wait of
 * every context, with device start and end times on the host's clock
 * (CLOCK_REALTIME, so that several processes' files merge), one lane per
 * queue or stream and one per host thread, written to path in the Trace
 * Event format. While it runs every command is timed, as under
 * CLFRAME_PROFILE=1; a context hands its commands over when it reads their
 * times (a blocking call, clctx_finish, clstream_wait, clctx_free), so
 * finish the contexts before stopping. The file appears whole when the
 * trace stops (clframe_trace_stop, or exit), never half-written.
 * CLFRAME_TRACE=path starts one before the first context. Under MPI
 * (OMPI_COMM_WORLD_RANK, PMI_RANK or SLURM_PROCID set) path NAME.json is
 * NAME.rankN.json. 0, or CLFRAME_ERR_IO naming a path that cannot be
 * written, or CLFRAME_ERR_USAGE (a trace already open; none to stop). */
int clframe_trace_start(const char *path);
int clframe_trace_stop(void);
/** @} */

/** @} */

/* ------------------------------------------------------------------------ */
/** @defgroup pinned Pinned host memory
 * @{ */
/* ------------------------------------------------------------------------ */

/** bytes of host memory that ctx's device (NULL: the default) reaches by DMA
 * at full speed, as cudaMallocHost's: a buffer made with
 * CL_MEM_ALLOC_HOST_PTR and kept mapped until freed. Arrays in it need no
 * change to the calls: a CLARG_IN, CLARG_OUT or CLARG_INOUT array (or a
 * persistent one's clarg_read and clarg_write, until its first clarg_swap)
 * that lies wholly inside one allocation is
 *  - on a device that shares the host's memory (a CPU device such as
 *    PoCL, or CL_DEVICE_HOST_UNIFIED_MEMORY), used in place: the kernel
 *    reads and writes these bytes and nothing is copied (clctx_get_stats
 *    counts none), when the array is a whole allocation or starts at a
 *    multiple of CL_DEVICE_MEM_BASE_ADDR_ALIGN from its start (128 bytes
 *    on PoCL); elsewhere in it, it is copied as any array;
 *  - on other devices, copied as any array, which the driver then runs at
 *    pinned speed.
 *
 * An array partly inside, one of another context's allocation and a
 * CLARG_NO_COPY one (scratch) are copied (or made) as any other. In place,
 * the host's array is the device's buffer: a kernel that writes an array
 * passed as CLARG_IN changes it, and while a kernel that uses it is in
 * flight (clkernel_enqueue) the host must neither write the array nor read
 * its results before clctx_finish (or clarg_read, which waits). NULL and a
 * message when the device has no room, for 0 bytes, or when no context. */
void *clframe_host_alloc(clctx *ctx, size_t bytes);

/** Frees what clframe_host_alloc returned, after finishing every queue of
 * its context (streams too): kernels and copies in flight that use it
 * complete first. NULL is a no-op. 0, or CLFRAME_ERR_USAGE with a message
 * (nothing freed) for memory freed already, a pointer into an allocation
 * but not its start, one clframe_host_alloc never returned, and an
 * allocation in which a persistent argument's host array starts (release
 * the argument first). clctx_free frees the context's remaining
 * allocations; release persistent arguments whose host arrays lie in one
 * before freeing it. */
int clframe_host_free(void *p);

/** 1 when ctx's device uses arrays in pinned memory in place (it shares the
 * host's memory), 0 when it copies them; the rule above, except on the
 * Oclgrind simulator, which copies: it reports a kernel's use of a mapped
 * buffer, which OpenCL leaves undefined and devices whose memory is the
 * host's do as expected. */
int clctx_pinned_in_place(clctx *ctx);

/** @} */

/* ------------------------------------------------------------------------ */
/** @defgroup arguments clarg: one argument of a kernel call
 * CLARG(x) and CLARG_IN/OUT/INOUT know the scalar and vector host types
 * (cl_char to cl_double, and their vectors of 2, 4, 8 and 16), with the
 * OpenCL C name of each. cl_float3 and friends are the same host types as
 * cl_float4 (the OpenCL headers make them so) and match float3 parameters.
 * @{ */
/* ------------------------------------------------------------------------ */

/** Copy directions, combinable, and CLARG_EACH for clfunction_call's
 * per-work-item arrays (CLARG_EACH_IN below). */
enum {
    CLARG_NO_COPY     = 0,  /**< nothing is copied either way */
    CLARG_TO_DEVICE   = 1,  /**< host data is copied in before the kernel */
    CLARG_FROM_DEVICE = 2,  /**< device data is copied back after it */
    CLARG_EACH        = 4,  /**< element i is work-item i's own argument */
    CLARG_CHUNKED     = 8   /**< split with clkernel_call_chunked's work */
};

/** What a clarg holds. */
typedef enum clarg_kind {
    CLARG_KIND_NONE = 0,     /**< a zeroed clarg: not an argument */
    CLARG_KIND_SCALAR,       /**< passed by value: CLARG, CLARG_VALUE */
    CLARG_KIND_BUFFER,       /**< a host array with a device buffer */
    CLARG_KIND_LOCAL,        /**< __local scratch of a given size */
    CLARG_KIND_MEM,          /**< an existing buffer: CLARG_BUFFER */
    CLARG_KIND_IMAGE,        /**< an image: CLARG_IMAGE2D, CLARG_IMAGE */
    CLARG_KIND_SAMPLER       /**< a sampler: CLARG_SAMPLER */
} clarg_kind;

typedef struct clarg_buffer clarg_buffer;  /**< a persistent device buffer */

/** @cond */
#ifdef __cplusplus
#define CLFRAME_ALIGN16_ alignas(16)
#else
#define CLFRAME_ALIGN16_ _Alignas(16)
#endif
/** @endcond */

/** A small value: build it with the macros below and pass it by value; copies
 * of a persistent clarg share its device buffer. */
typedef struct clarg {
    clarg_kind kind;             /**< what it holds */
    unsigned flags;              /**< CLARG_TO_DEVICE | CLARG_FROM_DEVICE */
    const char *type;            /**< device type: "float", "int4", "Board" */
    size_t elem_size;            /**< bytes of one element (or of the value) */
    size_t count;                /**< elements of an array; bytes of local */
    void *host;                  /**< host array, or the value of CLARG_VALUE */
    clarg_buffer *buffer;        /**< persistent buffer, or NULL (lazy) */
    unsigned generation;         /**< the buffer's when this became
                                      persistent */
    CLFRAME_ALIGN16_ unsigned char value[128]; /**< the value of CLARG(x) */
} clarg;

/** @cond */
/* The types above (CLARG(x)'s), as X(host type, OpenCL C name). */
#define CLFRAME_VECTOR_TYPES_(X, c, n) \
    X(c##2, n##2) X(c##4, n##4) X(c##8, n##8) X(c##16, n##16)
#define CLFRAME_TYPES_(X)                                                 \
    X(cl_char, char)   X(cl_uchar, uchar) X(cl_short, short)              \
    X(cl_ushort, ushort) X(cl_int, int)   X(cl_uint, uint)                \
    X(cl_long, long)   X(cl_ulong, ulong) X(cl_float, float)              \
    X(cl_double, double)                                                  \
    CLFRAME_VECTOR_TYPES_(X, cl_char, char)                               \
    CLFRAME_VECTOR_TYPES_(X, cl_uchar, uchar)                             \
    CLFRAME_VECTOR_TYPES_(X, cl_short, short)                             \
    CLFRAME_VECTOR_TYPES_(X, cl_ushort, ushort)                           \
    CLFRAME_VECTOR_TYPES_(X, cl_int, int)                                 \
    CLFRAME_VECTOR_TYPES_(X, cl_uint, uint)                               \
    CLFRAME_VECTOR_TYPES_(X, cl_long, long)                               \
    CLFRAME_VECTOR_TYPES_(X, cl_ulong, ulong)                             \
    CLFRAME_VECTOR_TYPES_(X, cl_float, float)                             \
    CLFRAME_VECTOR_TYPES_(X, cl_double, double)
/** @endcond */

/** A copy of size bytes at value (at most 128): what CLARG makes. */
clarg clarg_scalar(const char *type, size_t size, const void *value);

#ifndef __cplusplus
/** @cond */
#define CLARG_ASSOC_NAME_(ctype, name) ctype: #name,
#define CLARG_ASSOC_SCALAR_(ctype, name) ctype: clarg_scalar,
/** @endcond */

/** The OpenCL C name of the type of expression x, or NULL. */
#define clarg_type_name(x) \
    _Generic((x), CLFRAME_TYPES_(CLARG_ASSOC_NAME_) char: "char", \
             default: (const char *)0)

/** A scalar or vector by value: CLARG(n), CLARG(1.5f), CLARG(my_float4).
 * x is copied through its address, in a temporary when it is not an
 * lvalue: passing a vector of 32 bytes or more by value draws a -Wpsabi
 * note from gcc at every call. Any other type does not compile, naming
 * clarg_type_not_an_opencl_scalar_or_vector: pass a struct with
 * CLARG_VALUE. (`__typeof__` is C23's typeof, which gcc and clang have.) */
#define CLARG(x)                                                          \
    _Generic((x), CLFRAME_TYPES_(CLARG_ASSOC_SCALAR_) char: clarg_scalar, \
             default: (struct clarg_type_not_an_opencl_scalar_or_vector *)0) \
        (clarg_type_name(x), sizeof(x), &(struct { __typeof__(x) v; }){x}.v)
#endif

/** @name Arrays
 * @{ */
/** A host array of n elements; the element type comes from *p. */
#define CLARG_IN(p, n)    CLARG_ARRAY_((p), (n), CLARG_TO_DEVICE)
#define CLARG_OUT(p, n)   CLARG_ARRAY_((p), (n), CLARG_FROM_DEVICE)
#define CLARG_INOUT(p, n) \
    CLARG_ARRAY_((p), (n), CLARG_TO_DEVICE | CLARG_FROM_DEVICE)
/** @} */

/** @name Arrays in chunks
 * @{ */
/** Arrays split with the work of clkernel_call_chunked (whole arrays in any
 * other call). */
#define CLARG_IN_CHUNKS(p, n) \
    CLARG_ARRAY_((p), (n), CLARG_CHUNKED | CLARG_TO_DEVICE)
#define CLARG_OUT_CHUNKS(p, n) \
    CLARG_ARRAY_((p), (n), CLARG_CHUNKED | CLARG_FROM_DEVICE)
#define CLARG_INOUT_CHUNKS(p, n) \
    CLARG_ARRAY_((p), (n), CLARG_CHUNKED | CLARG_TO_DEVICE | CLARG_FROM_DEVICE)
/** @} */
/** @cond */
#define CLARG_ARRAY_(p, n, flags) \
    clarg_array(clarg_type_name(*(p)), sizeof(*(p)), (void *)(p), (n), (flags))
/** @endcond */

/** @name Per-work-item arrays
 * @{ */
/** For clfunction_call only: a host array of n elements, one per work-item
 * of the function's group (n is the group's size; 1 without a group), so
 * that work-item i (its flattened local id) gets p[i] as its own argument:
 * the value itself for a value parameter (int idx), which is in only; a
 * pointer to its own private copy of p[i] for a private pointer (int *flag),
 * copied back after the call unless the parameter is const; and &p[i] in
 * the argument's buffer for a __global or __constant pointer. A __local
 * pointer, shared by the group, takes no per-work-item argument. For
 * structs: CLARG_TYPED("Pair", p, n, CLARG_EACH | CLARG_TO_DEVICE). */
#define CLARG_EACH_IN(p, n) \
    CLARG_ARRAY_((p), (n), CLARG_EACH | CLARG_TO_DEVICE)
#define CLARG_EACH_OUT(p, n) \
    CLARG_ARRAY_((p), (n), CLARG_EACH | CLARG_FROM_DEVICE)
#define CLARG_EACH_INOUT(p, n) \
    CLARG_ARRAY_((p), (n), CLARG_EACH | CLARG_TO_DEVICE | CLARG_FROM_DEVICE)
/** @} */

/** A host array of user structs, named as the kernel names them ("Pair" or
 * "struct Pair"). The element size must be the device's sizeof: a kernel
 * with struct parameters measures it when it is made (one more build), and
 * a call whose host size differs fails with both sizes. The same holds for
 * CLARG_VALUE. */
#define CLARG_TYPED(name, p, n, flags) \
    clarg_array((name), sizeof(*(p)), (void *)(p), (n), (flags))

/** A user struct by value; *pv must stay valid until the call returns. */
#define CLARG_VALUE(name, pv) clarg_value((name), sizeof(*(pv)), (pv))

/** __local scratch of the given number of bytes. */
#define CLARG_LOCAL(bytes) clarg_local(bytes)

/** @name The caller's own OpenCL objects
 * @{ */
/** OpenCL objects of the caller's own, made on the kernel's context and
 * still the caller's after the call; each is checked against the
 * parameter's kind before anything is enqueued:
 * - CLARG_BUFFER(mem): a cl_mem buffer for a __global or __constant
 *   pointer: passed as it is, nothing copied; its size must be a whole
 *   number of the parameter's elements where their size is known (not for
 *   void*);
 * - CLARG_IMAGE(mem): an image for an image parameter of its kind
 *   (image2d_t takes a 2-D image, image3d_t a 3-D one);
 * - CLARG_SAMPLER(s): a cl_sampler for a sampler_t parameter. */
#define CLARG_BUFFER(mem)  clarg_existing_buffer(mem)
#define CLARG_IMAGE(mem)   clarg_existing_image(mem)
#define CLARG_SAMPLER(s)   clarg_sampler(s)
/** @} */

/** @name Images made for the call
 * @{ */
/** An image made for the call from a host array of w x h (x d) pixels in
 * the format (channel order, channel type: CL_RGBA, CL_UNORM_INT8), rows
 * packed, for an image2d_t (image3d_t) parameter: copied in before the
 * kernel with CLARG_TO_DEVICE, back after it with CLARG_FROM_DEVICE. A
 * read_only parameter takes exactly CLARG_TO_DEVICE, a write_only one
 * needs CLARG_FROM_DEVICE. The device must support images and the format
 * (clGetSupportedImageFormats), or the call fails saying so. */
#define CLARG_IMAGE2D(p, w, h, order, type, flags) \
    clarg_image((void *)(p), 2, (w), (h), 1, (order), (type), (flags))
#define CLARG_IMAGE3D(p, w, h, d, order, type, flags) \
    clarg_image((void *)(p), 3, (w), (h), (d), (order), (type), (flags))
/** @} */

/** @name The functions behind the macros
 * @{ */
/** The functions behind the macros. type may be NULL for "unknown"; an array
 * of unknown element type is rejected by the call with advice to name it. */
clarg clarg_array(const char *type, size_t elem_size, void *host, size_t n,
                  unsigned flags);
clarg clarg_value(const char *type, size_t size, const void *value);
clarg clarg_local(size_t bytes);
clarg clarg_existing_buffer(cl_mem mem);
clarg clarg_existing_image(cl_mem mem);
clarg clarg_sampler(cl_sampler sampler);
clarg clarg_image(void *host, unsigned dims, size_t width, size_t height,
                  size_t depth, cl_channel_order order, cl_channel_type type,
                  unsigned flags);
/** @} */

/** Makes a an array argument with its own device buffer, created now on ctx
 * (NULL: the default) and shared by every copy of a made afterwards; data
 * stays there between calls, and each call copies only what a's flags say.
 * Nothing is copied now: use clarg_write, or TO_DEVICE on the first call.
 * Free with clarg_release. 0 or a negative code. */
int clarg_persist(clarg *a, clctx *ctx);

/** Changes the copy directions used by later calls with this clarg. */
int clarg_set_flags(clarg *a, unsigned flags);

/** The usual state of a simulation's arrays: clarg_persist on ctx, then
 * clarg_write of the host array if `upload`, then CLARG_NO_COPY, so that
 * calls move nothing and data moves only by clarg_read and clarg_write.
 * 0 or a negative code. */
int clarg_keep_on_device(clarg *a, clctx *ctx, int upload);

/** @name Copies of a persistent argument
 * @{ */
/** Copies a persistent argument's device data to its host array (read) or
 * its host array to the device (write); blocking. 0 or a negative code. */
int clarg_read(clarg *a);
int clarg_write(clarg *a);
/** @} */

/** Exchanges the device buffers of two persistent arguments of equal size
 * and element type, for double buffering: every copy of a and b sees the
 * exchange. The host arrays stay where they were: after any number of
 * swaps, clarg_read(&a) fills a's own host array with the data of the
 * buffer a has now, clarg_write(&a) sends that array there, and calls copy
 * a's array as a's flags say, whether the arrays are malloc'd or pinned.
 * A pinned array used in place (clctx_pinned_in_place) is its argument's
 * buffer and cannot go to the other argument, whose array would then be
 * overwritten by a read of either: the first swap of such an argument
 * waits for every queue of its context, then gives it a buffer of its own
 * holding the array's bytes (one copy, which clctx_get_stats counts), and
 * from then on it is copied as a malloc'd array is. Other swaps copy
 * nothing and do not wait. 0 or a negative code. */
int clarg_swap(clarg *a, clarg *b);

/** Releases a persistent argument's device buffer, which its copies shared:
 * a call, read, write or swap with a copy then fails with a message (and a
 * release of a copy does nothing). Safe on non-persistent arguments; a
 * becomes unpersistent. */
void clarg_release(clarg *a);

/** The device buffer of a persistent argument, or NULL. Owned by clframe. */
cl_mem clarg_mem(const clarg *a);

/** @} */

/* ------------------------------------------------------------------------ */
/** @defgroup streams clstream: more queues, for copies that overlap kernels
 * @{ */
/* ------------------------------------------------------------------------ */

/** A stream is an in-order queue of ctx's device beside the context's own
 * (NULL below means that one). Work on different streams may run at the
 * same time, a copy on one while a kernel runs on another, which on a GPU
 * needs the host array in pinned memory (clframe_host_alloc): from
 * pageable memory the driver copies while the host waits. Order between
 * streams is asked for with clstream_after. Free streams before their
 * context. */
typedef struct clstream clstream;
clstream *clstream_new(clctx *ctx);     /**< NULL with a message on failure */
void clstream_free(clstream *s);        /**< waits for its work first */

/** Waits, on the host, for everything given to s so far: one stream's
 * work, while the others run on. 0 or a negative code. */
int clstream_wait(clstream *s);

/** Makes s's later work wait, on the device, for everything given to done
 * so far; the host goes on at once. Either may be NULL, the context's own
 * queue (not both). 0 or a negative code. */
int clstream_after(clstream *s, clstream *done);

/** @name Copies that do not wait
 * @{ */
/** Enqueues a copy of elements [first, first + n) of a persistent
 * argument's host array to its device buffer (write) or back (read) on s,
 * and returns without waiting: the host array must stay untouched until
 * the copy is known done (clstream_wait). n may be 0. A range outside the
 * array is an error. An array used in place (pinned memory on a CPU
 * device) copies nothing. 0 or a negative code. */
int clarg_write_async(clarg *a, size_t first, size_t n, clstream *s);
int clarg_read_async(clarg *a, size_t first, size_t n, clstream *s);
/** @} */

/** @} */

/* ------------------------------------------------------------------------ */
/** @defgroup kernels clkernel: a __kernel ready to be called
 * @{ */
/* ------------------------------------------------------------------------ */

/** A __kernel ready to be called. */
typedef struct clkernel clkernel;

/** A kernel source compiled into a program, found by clkernel_file and by
 * `#include` as if it were the file at path. scripts/embed-sources writes a
 * table of them from a folder, keyed by each file's path. */
typedef struct clframe_source {
    const char *path;            /**< "kernels/step.cl" */
    const char *text;            /**< the source itself */
    size_t length;               /**< bytes of text, without a final '\0' */
} clframe_source;

/** Adds a table of sources, ended by an entry whose path is NULL, to those
 * that clkernel_file finds (rule 3 below); adding the same table again does
 * nothing. The table must outlive every lookup (a static array). Safe from
 * any thread. 0 or a negative code. */
int clframe_add_sources(const clframe_source *table);

/** Builds the program holding kernel `name` and prepares it for calls.
 * path is found by this rule, which `#include "..."` lines follow too:
 *   1. the file on disk, relative to the current directory or absolute;
 *      a path starting with /, ./ or ../ names a file on disk only;
 *   2. the file in each folder of CLFRAME_KERNEL_PATH (colon separated);
 *   3. the sources compiled into the program: the tables it added with
 *      clframe_add_sources (the last added first), then clframe's own
 *      device library ("clframe/shared.h", "lib/mwc64x.h", ...).
 *
 * So a user's own file always wins over a compiled-in one of the same
 * name; when a compiled-in source is used, error messages say so, and so
 * does stderr under CL_DEBUG=1. An `#include "name"` is looked up relative to
 * the including file, then, as `#include <name>` is, in each -I folder in
 * options, then in kernels/, then as written; clframe expands it itself, so
 * a build log names file and line.
 * options are passed to the OpenCL compiler with -cl-kernel-arg-info added.
 * The kernel's signature, which every call is checked against, is read
 * from the source as the compiler sees it (includes expanded, `#if`
 * followed, macros expanded, typedefs resolved to any depth) on every
 * platform, and checked against the driver's own report where it gives
 * one (NVIDIA's driver gives none for a file holding a kernel without
 * parameters): so no check depends on the driver. A kernel whose signature
 * neither shows (one made by a `##` macro, with no report) is refused.
 * A source may take __local scratch in any function with local_malloc(bytes)
 * and local_free(bytes) (docs/local-malloc.md: constant sizes, freed last
 * in first out); it is rewritten before the build, by libclang in a child
 * process.
 * Kernels of one source and options share one build in a context, and a
 * program stays built after its last kernel is freed (the 16 most recently
 * freed are kept until clctx_free), so making the same kernel again is cheap.
 * Returns NULL on error: a build failure's message holds the build log. */
clkernel *clkernel_file(clctx *ctx, const char *path, const char *name,
                        const char *options);
/** As clkernel_file, from the source's text instead of a file. */
clkernel *clkernel_source(clctx *ctx, const char *source, const char *name,
                          const char *options);
/** Frees k; its program may stay built, as above. NULL is a no-op. */
void clkernel_free(clkernel *k);

/** n rounded up to a multiple of m (m > 0): the global size for n items in
 * work-groups of m, with the kernel guarding the extra work-items. */
size_t clframe_round_up(size_t n, size_t m);

/** @name Work sizes
 * @{ */
/** Work sizes, 1 to 3 of them: clkernel_global(k, w, h). A local size of 0
 * in every dimension (the default) lets the implementation choose; a local
 * size or offset given must have the global size's dimensions. A call
 * refuses a global size of 0, and from half the range of the device's
 * size_t up (2^63 on a 64-bit device), with its offset or in all
 * dimensions together: what n - 1 gives for n = 0, which no device runs. */
#ifndef __cplusplus /* C++: the templates at the end */
/** @cond */
#define CLFRAME_NSIZES_(...) \
    (unsigned)(sizeof((size_t[]){__VA_ARGS__}) / sizeof(size_t))
/** @endcond */
#define clkernel_global(k, ...) \
    clkernel_set_global((k), CLFRAME_NSIZES_(__VA_ARGS__), \
                        (const size_t[]){__VA_ARGS__})
#define clkernel_local(k, ...) \
    clkernel_set_local((k), CLFRAME_NSIZES_(__VA_ARGS__), \
                       (const size_t[]){__VA_ARGS__})
#define clkernel_offset(k, ...) \
    clkernel_set_offset((k), CLFRAME_NSIZES_(__VA_ARGS__), \
                        (const size_t[]){__VA_ARGS__})
#endif
int clkernel_set_global(clkernel *k, unsigned dims, const size_t *sizes);
int clkernel_set_local(clkernel *k, unsigned dims, const size_t *sizes);
int clkernel_set_offset(clkernel *k, unsigned dims, const size_t *sizes);
/** @} */

#ifndef __cplusplus
/** @cond */
/* A call's clargs: the macro arguments after the first `skip` (1 or 2) as
 * an array, ended by a marker so that a call with none is plain C11 (no
 * GNU ", ##__VA_ARGS__"), and their count, the marker left out. */
#define CLFRAME_FIRST_(a, ...) a
#define CLFRAME_SECOND_(a, b, ...) b
#define CLFRAME_AFTER_1_(a, ...) ((const clarg[]){__VA_ARGS__})
#define CLFRAME_AFTER_2_(a, b, ...) ((const clarg[]){__VA_ARGS__})
#define CLFRAME_ARGS_(skip, ...) \
    CLFRAME_AFTER_##skip##_(__VA_ARGS__, {.kind = CLARG_KIND_NONE})
#define CLFRAME_NARGS_(skip, ...) \
    (unsigned)(sizeof(CLFRAME_ARGS_(skip, __VA_ARGS__)) / sizeof(clarg) - 1)
/** @endcond */

/** @name Calling the kernel
 * @{ */
/** Calls the kernel: checks the arguments against its signature, sets them,
 * copies in what must go in, runs it, copies back what must come back and
 * waits, so results are in host memory on return. The copies and the
 * kernel are enqueued without waiting and the call waits once, as its last
 * copy back ends (clFinish when nothing comes back); arrays that are not
 * persistent borrow device buffers from the context's pool (clctx_pool_limit
 * above); a copy in from an array that an enqueued call is still copying
 * back into waits for that copy first. 0 or a negative code,
 * with a message naming the function called, kernel, argument and both
 * types. An array of 0 elements is passed as a buffer the kernel must not
 * touch (it learns the length from another argument); CLARG_LOCAL(0), and
 * an array larger than the device allocates at once, are refused before
 * anything is enqueued.
 * clkernel_enqueue does the same without waiting: host arrays must then stay
 * untouched until clctx_finish (or a blocking call) on the same context. */
#define clkernel_call(...) \
    clkernel_call_args(CLFRAME_FIRST_(__VA_ARGS__, 0), \
                       CLFRAME_NARGS_(1, __VA_ARGS__), \
                       CLFRAME_ARGS_(1, __VA_ARGS__))
#define clkernel_enqueue(...) \
    clkernel_enqueue_args(CLFRAME_FIRST_(__VA_ARGS__, 0), \
                          CLFRAME_NARGS_(1, __VA_ARGS__), \
                          CLFRAME_ARGS_(1, __VA_ARGS__))
#endif
int clkernel_call_args(clkernel *k, unsigned nargs, const clarg *args);
int clkernel_enqueue_args(clkernel *k, unsigned nargs, const clarg *args);
/** @} */

/** @name A call on a stream
 * @{ */
/** clkernel_enqueue on a stream (NULL: the context's own queue): its copies
 * and the kernel run in order on s, and the call returns at once. */
#ifndef __cplusplus
#define clkernel_enqueue_on(...) \
    clkernel_enqueue_on_args(CLFRAME_FIRST_(__VA_ARGS__, 0), \
                             CLFRAME_SECOND_(__VA_ARGS__, 0), \
                             CLFRAME_NARGS_(2, __VA_ARGS__), \
                             CLFRAME_ARGS_(2, __VA_ARGS__))
#endif
int clkernel_enqueue_on_args(clkernel *k, clstream *s, unsigned nargs,
                             const clarg *args);
/** @} */

/** @name A call in chunks
 * @{ */
/** A call in chunks, so that copies overlap the kernel: the last dimension
 * of k's global size runs `chunk` work-items at a time (a multiple of the
 * local size there), and while chunk i runs, chunk i + 1's arrays are
 * copied in and chunk i - 1's copied back, on two more queues. An array
 * marked CLARG_IN_CHUNKS, CLARG_OUT_CHUNKS or CLARG_INOUT_CHUNKS is split
 * with the work: the first `items` work-items of that dimension (the ones
 * that own data; the global size may be rounded up past them) own
 * count / items consecutive elements each, which must divide evenly.
 * Other arrays are copied whole, in before the first chunk and out after
 * the last. Each chunk runs with the global offset of its first work-item,
 * so the kernel must find its data by get_global_id, never get_group_id.
 * Blocking, as clkernel_call; the arrays are copied at pinned speed, and
 * overlap, only from pinned memory. 0 or a negative code. */
#ifndef __cplusplus
#define clkernel_call_chunked(k, items, chunk, ...) \
    clkernel_call_chunked_args((k), (items), (chunk), \
                               CLFRAME_NARGS_(1, 0, __VA_ARGS__), \
                               CLFRAME_ARGS_(1, 0, __VA_ARGS__))
#endif
int clkernel_call_chunked_args(clkernel *k, size_t items, size_t chunk,
                               unsigned nargs, const clarg *args);
/** @} */

/** @name Timing one kernel
 * @{ */
/** Kernel time of the last timed call or enqueue of k in milliseconds, from
 * its profiling event (waiting for it if need be); -1 before the first.
 * Calls are timed only after clkernel_set_timing(k, 1), or for every kernel
 * under CLFRAME_PROFILE=1: asking the driver for an event is not free (on
 * NVIDIA's driver it costs about as much as a small blocking call itself;
 * see bench/history/call.md). A timed launch does not wait: the
 * context keeps its event and reads it into k's totals (below) at the
 * next blocking call, clctx_finish or clctx_free, when some thousands are
 * pending, or when one of these asks. */
int clkernel_set_timing(clkernel *k, int on);
double clkernel_last_ms(clkernel *k);
/** @} */

/** @name What a kernel has run
 * @{ */
/** What k has run since it was made: clkernel_runs counts every call and
 * enqueue that reached the queue, timed or not (0 for NULL);
 * clkernel_total_ms sums the kernel time of the timed ones in
 * milliseconds, waiting for those still running (0 before the first; -1
 * for NULL). To time a stretch of a longer run, read both before and
 * after it. */
uint64_t clkernel_runs(clkernel *k);
double clkernel_total_ms(clkernel *k);
/** @} */

/** The most work-items a work-group of k can have on its device: the
 * device's limit, or less where the kernel's registers or local memory
 * allow less (CL_KERNEL_WORK_GROUP_SIZE). 0 for NULL. */
size_t clkernel_max_group_size(clkernel *k);

/** The kernel's name, as given when it was made. Owned by k. */
const char *clkernel_name(clkernel *k);
/** "vadd(__global float* a, __global float* b, ..., int n)", with the
 * source's names, typedefs of built-in types resolved, structs as the
 * source names them. Owned by k. */
const char *clkernel_signature(clkernel *k);
unsigned clkernel_num_args(clkernel *k); /**< its number of parameters */
cl_kernel clkernel_raw(clkernel *k);     /**< the OpenCL kernel; owned by k */
clctx *clkernel_ctx(clkernel *k);        /**< the context k was made on */

/** @} */

/* ------------------------------------------------------------------------ */
/** @defgroup functions clfunction: a device function called from the host
 * @{ */
/* ------------------------------------------------------------------------ */

/** A device function that is not a kernel, called from the host. */
typedef struct clfunction clfunction;

/** Finds function fname's prototype in the source (after expanding includes
 * as clkernel_file does, and reading it as the device compiler's
 * preprocessor leaves it: `#if` and `#ifdef` followed with the -D options and
 * the device's predefined macros, macros expanded) and prepares a generated
 * wrapper kernel (a shim) that calls it: scalars and by-value structs pass
 * straight through, a __global pointer gets the argument's buffer, a private
 * pointer a private copy of the argument's array (written back afterwards),
 * a __local pointer a __local copy loaded before the call and stored after
 * it, and the return value is stored for the host. The shim is built at the
 * first call, from the source as written. NULL on error (a source that is
 * not there, out of memory). When the prototype cannot be read or used (not
 * found, made by a macro clframe does not expand, misspelt, a parameter form
 * it cannot pass, a preprocessing error), the function is still returned,
 * and calls fail saying why (with the names of the functions the source
 * defines, when not found) and that clfunction_proto can supply it; under
 * CL_DEBUG the message is printed at once. Free with clfunction_free. */
clfunction *clfunction_file(clctx *ctx, const char *path, const char *fname,
                            const char *options);
/** As clfunction_file, from the source's text instead of a file. */
clfunction *clfunction_source(clctx *ctx, const char *source,
                              const char *fname, const char *options);
/** Frees f and its shim. NULL is a no-op. */
void clfunction_free(clfunction *f);

/** Supplies the prototype when it cannot be read from the text (a macro
 * makes it, or clframe read it wrong):
 *
 *     clfunction_proto(f, "int score(const Board *b, int move)");
 */
int clfunction_proto(clfunction *f, const char *prototype);

/** @name A group of work-items
 * @{ */
/** Runs the function in one work-group, all of whose work-items call it (for
 * functions that cooperate through __local memory and barriers): 1 to 3
 * sizes, as clkernel_local takes them, so that clfunction_group(f, 64) is
 * 64 work-items and clfunction_group(f, 6, 36) a 6 x 36 group whose
 * work-items read get_local_id(0) and (1). __local parameters are then
 * shared by the group; clfunction_group(f, 1) goes back to one work-item.
 * A size of 0, or more than the device runs, is an error naming f. The
 * return value is work-item 0's unless clfunction_group_results(f, 1) asks
 * for every work-item's: ret then points at one value per work-item, in
 * the order of their flattened local ids, x fastest
 * (x + size_x * (y + size_y * z)). */
#ifndef __cplusplus
#define clfunction_group(f, ...) \
    clfunction_set_group((f), CLFRAME_NSIZES_(__VA_ARGS__), \
                         (const size_t[]){__VA_ARGS__})
#endif
int clfunction_set_group(clfunction *f, unsigned dims, const size_t *sizes);
int clfunction_group_results(clfunction *f, int all);
/** @} */

/** @name Calling the function
 * @{ */
/** Calls the function, here int score(const Board *b, int move):
 *
 *     clfunction_call(f, &ret, CLARG_TYPED("Board", &board, 1, CLARG_TO_DEVICE),
 *                     CLARG(3));
 *
 * ret receives the return value; NULL for a void function, or to drop the
 * value. Arguments are checked against the prototype as kernel arguments
 * are against the kernel's signature, and ret too: what it points to must
 * be as big as the return type on the device (a struct's size as the device
 * compiled it) and, when it is an OpenCL scalar or vector type, be that
 * type; a ret of another size, a void pointer other than NULL (its size is
 * unknown) or a ret for a void function is an error before anything runs.
 * Every work-item of a group gets the same arguments, except per-work-item
 * ones (CLARG_EACH_IN, _OUT, _INOUT), whose element i is work-item i's own.
 * Here each of 64 work-items brings its own candidate value, and the group
 * shares one __local tmp:
 *
 *     clfunction_group(best, 64);
 *     clfunction_call(best, &at, CLARG_EACH_IN(value, 64), CLARG_IN(tmp, 64));
 *
 * 0 or a negative code. */
#ifndef __cplusplus
/** @cond */
#define CLFRAME_RET_NAME_(ctype, name) ctype *: #name, const ctype *: #name,
#define clfunction_ret_type(ret) \
    _Generic((ret), void *: (const char *)0, \
             CLFRAME_TYPES_(CLFRAME_RET_NAME_) default: "")
/* sizeof *ret, or 0 for no type: a void pointer (NULL), or the 0 that
 * stands for a missing ret. The inner selection keeps sizeof off void. */
#define CLFRAME_NO_RET_(ret, none) \
    _Generic((ret), void *: none, const void *: none, int: none, long: none, \
             default: (ret))
#define clfunction_ret_size(ret) \
    _Generic((ret), void *: (size_t)0, const void *: (size_t)0, \
             int: (size_t)0, long: (size_t)0, \
             default: sizeof *CLFRAME_NO_RET_((ret), (char *)0))
/** @endcond */
#define clfunction_call(...) \
    clfunction_call_args(CLFRAME_FIRST_(__VA_ARGS__, 0), \
                         CLFRAME_SECOND_(__VA_ARGS__, 0), \
                         clfunction_ret_type(CLFRAME_SECOND_(__VA_ARGS__, 0)), \
                         clfunction_ret_size(CLFRAME_SECOND_(__VA_ARGS__, 0)), \
                         CLFRAME_NARGS_(2, __VA_ARGS__), \
                         CLFRAME_ARGS_(2, __VA_ARGS__))
#endif
/** ret_type: the OpenCL name of *ret's type, "" for another type, NULL for
 * none; ret_size: sizeof *ret (of one element when every work-item's
 * result comes back), 0 for none. */
int clfunction_call_args(clfunction *f, void *ret, const char *ret_type,
                         size_t ret_size, unsigned nargs, const clarg *args);
/** @} */

/** The generated shim's OpenCL source (built by the first call, or now);
 * NULL on error. Owned by f. With CLFRAME_DUMP_SHIMS=dir every generated
 * shim is also written to `dir/<function>.cl`. */
const char *clfunction_shim_source(clfunction *f);
/** "int score(Board* b, int move)" as clframe read it. Owned by f. */
const char *clfunction_prototype(clfunction *f);

/** @} */

/* ------------------------------------------------------------------------ */
/** @defgroup layouts Host and device layouts of shared structs (layout.c)
 * A struct passed between host and device must have the same size and field
 * offsets on both sides; "clframe/shared.h" and docs/sharing.md show how to
 * write it once for both. These check it at run time on the device
 * itself, whose compiler alone knows its layout.
 * @{ */
/* ------------------------------------------------------------------------ */

/** One field as the host laid it out: the member designator as offsetof
 * takes it ("w", "inner.a", "cells[3]"; not a vector component like
 * "pos.x", whose address OpenCL C does not give) and its host offset. */
typedef struct clframe_field {
    const char *name;            /**< the member designator */
    size_t offset;               /**< its offset on the host */
} clframe_field;

/** Builds a probe kernel that includes `include` (looked up as clkernel_file
 * looks up a path, then under kernels/, so "kernels/myapp/board.h" and
 * "myapp/board.h" both work; NULL for a built-in type such as "float3"),
 * runs it once on ctx's device (NULL: the default) and compares the device's
 * sizeof(type) and field offsets with host_size and each fields[i].offset.
 * Returns 0 when all agree; CLFRAME_ERR_ARG_TYPE when they differ, with a
 * message naming the type, the device, both sizes and every field at a
 * different offset; CLFRAME_ERR_BUILD (with the build log) when the probe
 * does not compile: the header is missing, the type is not declared there, a
 * field is not its member; CLFRAME_ERR_USAGE when type or a field is not a C
 * name. */
int clframe_check_layout(clctx *ctx, const char *include, const char *type,
                         size_t host_size, const clframe_field *fields,
                         unsigned nfields);

/** The same for host type T and 1 to 16 of its members, sizes and offsets
 * taken by the host compiler:
 *
 *     CLFRAME_CHECK_LAYOUT(NULL, "kernels/mygame/board.h", Board, pits, turn);
 * T is spelled as the device code spells it ("Board", "struct Board"). */
#ifndef __cplusplus
#define CLFRAME_CHECK_LAYOUT(ctx, include, T, ...)                          \
    clframe_check_layout((ctx), (include), #T, sizeof(T),                   \
                         CLFRAME_FIELDS_(T, __VA_ARGS__),                   \
                         (unsigned)(sizeof(CLFRAME_FIELDS_(T, __VA_ARGS__)) \
                                    / sizeof(clframe_field)))

/** @cond */
/* {"a", offsetof(T, a)}, ... for up to 16 members, as a compound literal;
 * a 17th names the undefined CLFRAME_FIELDS_MORE_THAN_16_. */
#define CLFRAME_FIELDS_(T, ...) \
    ((const clframe_field[]){CLFRAME_FIELD_LIST_(T, __VA_ARGS__)})
/** @endcond */
#endif
/** @cond */
#define CLFRAME_FIELD_LIST_(T, ...)                                         \
    CLFRAME_PASTE_(CLFRAME_FIELDS_,                                         \
                   CLFRAME_COUNT16_(__VA_ARGS__))(T, __VA_ARGS__)
#define CLFRAME_PASTE_(a, b) CLFRAME_PASTE2_(a, b)
#define CLFRAME_PASTE2_(a, b) a##b##_
#define CLFRAME_COUNT16_(...)                                               \
    CLFRAME_NTH17_(__VA_ARGS__, MORE_THAN_16, 16, 15, 14, 13, 12, 11, 10,   \
                   9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define CLFRAME_NTH17_(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12,   \
                       a13, a14, a15, a16, a17, n, ...) n
#define CLFRAME_FIELD_(T, m) {#m, offsetof(T, m)},
#define CLFRAME_FIELDS_1_(T, m) CLFRAME_FIELD_(T, m)
#define CLFRAME_FIELDS_2_(T, m, ...) \
    CLFRAME_FIELD_(T, m) CLFRAME_FIELDS_1_(T, __VA_ARGS__)
#define CLFRAME_FIELDS_3_(T, m, ...) \
    CLFRAME_FIELD_(T, m) CLFRAME_FIELDS_2_(T, __VA_ARGS__)
#define CLFRAME_FIELDS_4_(T, m, ...) \
    CLFRAME_FIELD_(T, m) CLFRAME_FIELDS_3_(T, __VA_ARGS__)
#define CLFRAME_FIELDS_5_(T, m, ...) \
    CLFRAME_FIELD_(T, m) CLFRAME_FIELDS_4_(T, __VA_ARGS__)
#define CLFRAME_FIELDS_6_(T, m, ...) \
    CLFRAME_FIELD_(T, m) CLFRAME_FIELDS_5_(T, __VA_ARGS__)
#define CLFRAME_FIELDS_7_(T, m, ...) \
    CLFRAME_FIELD_(T, m) CLFRAME_FIELDS_6_(T, __VA_ARGS__)
#define CLFRAME_FIELDS_8_(T, m, ...) \
    CLFRAME_FIELD_(T, m) CLFRAME_FIELDS_7_(T, __VA_ARGS__)
#define CLFRAME_FIELDS_9_(T, m, ...) \
    CLFRAME_FIELD_(T, m) CLFRAME_FIELDS_8_(T, __VA_ARGS__)
#define CLFRAME_FIELDS_10_(T, m, ...) \
    CLFRAME_FIELD_(T, m) CLFRAME_FIELDS_9_(T, __VA_ARGS__)
#define CLFRAME_FIELDS_11_(T, m, ...) \
    CLFRAME_FIELD_(T, m) CLFRAME_FIELDS_10_(T, __VA_ARGS__)
#define CLFRAME_FIELDS_12_(T, m, ...) \
    CLFRAME_FIELD_(T, m) CLFRAME_FIELDS_11_(T, __VA_ARGS__)
#define CLFRAME_FIELDS_13_(T, m, ...) \
    CLFRAME_FIELD_(T, m) CLFRAME_FIELDS_12_(T, __VA_ARGS__)
#define CLFRAME_FIELDS_14_(T, m, ...) \
    CLFRAME_FIELD_(T, m) CLFRAME_FIELDS_13_(T, __VA_ARGS__)
#define CLFRAME_FIELDS_15_(T, m, ...) \
    CLFRAME_FIELD_(T, m) CLFRAME_FIELDS_14_(T, __VA_ARGS__)
#define CLFRAME_FIELDS_16_(T, m, ...) \
    CLFRAME_FIELD_(T, m) CLFRAME_FIELDS_15_(T, __VA_ARGS__)
/** @endcond */

/** @} */

/* ------------------------------------------------------------------------ */
/** @defgroup saving Files written whole (save.c)
 * How a program writes a file its user names as an output (as
 * clframe-local-malloc writes its -o), so that nothing half-written
 * is ever left where the file should be, nothing that is not a regular
 * file is replaced, and the user's permissions are kept as a shell's '>'
 * keeps them. The target is the file path names once symbolic links are
 * followed (every level, as open does): a link stays a link, and the file
 * it names gets the content, created if missing.
 *
 * - A regular file, or nothing yet: the content goes to a hidden
 *   temporary ".NAME.XXXXXX" in the target's folder (so the rename cannot
 *   cross file systems), renamed over the target once closed without
 *   error. A failure removes the temporary, so the old file (or none) is
 *   left. A replaced file keeps its permissions; a new one gets 0666 less
 *   the umask. A file the user may not write is refused (as '>' refuses
 *   it), though the folder would allow the rename.
 * - Anything else that exists (/dev/null, a terminal, a FIFO): written in
 *   place, as '>' does, never replaced; a failure is reported, but what
 *   went out is gone (a FIFO's reader saw it). A FIFO waits for its
 *   reader.
 * - A folder is refused.
 *
 * Errors are CLFRAME_ERR_IO (CLFRAME_ERR_NO_MEMORY) with a message that
 * starts with path: "out.cl: writing failed: No space left on device".
 * @{ */
/* ------------------------------------------------------------------------ */

/** A file being written: clframe_save_begin opens it, clframe_save_end
 * ends it. */
typedef struct clframe_save clframe_save;

/** Opens path for writing as the rules above say, into *s: 0, or an error
 * (*s NULL). Write to clframe_save_stream(*s), then end with
 * clframe_save_end. */
int clframe_save_begin(const char *path, clframe_save **s);

/** The stream to write to. Owned by s: clframe_save_end closes it. */
FILE *clframe_save_stream(clframe_save *s);

/** Closes the stream and frees s. When commit is non-zero and every write
 * succeeded, the file is put in place: 0, or CLFRAME_ERR_IO saying what
 * failed (a full disk, a file size limit). commit 0 (the caller's own
 * failure) removes the temporary and returns 0, leaving the caller's
 * message as it is. */
int clframe_save_end(clframe_save *s, int commit);

/** For the end of a program that writes its results to standard output:
 * flushes and closes it, and returns 0, or CLFRAME_ERR_IO with the message
 * "standard output: writing failed: ..." when anything written to it was
 * lost (a full disk, "prog > /dev/full"), for the program to exit with a
 * failure. An output closed from the start and never written to is no
 * failure. Nothing may be written to stdout afterwards. */
int clframe_save_close_stdout(void);

/** @} */

#ifdef __cplusplus
} /* extern "C" */

/* ------------------------------------------------------------------------ */
/* C++: the same calls, as templates                                         */
/* ------------------------------------------------------------------------ */

/* C's macros build argument lists with compound literals and pick types
 * with _Generic, neither of which C++ has; here the same names are inline
 * templates over the same functions, so a call reads the same in both:
 *     clkernel_global(k, n);
 *     clkernel_call(k, CLARG_IN(a, n), CLARG_IN(b, n), CLARG_OUT(c, n), CLARG(n));
 *     clfunction_call(f, &ret, CLARG_TYPED("Board", &board, 1, CLARG_TO_DEVICE),
 *                     CLARG(3));
 * A CLARG of a type OpenCL does not have fails to compile (static_assert). */
#include <initializer_list>
#include <type_traits>

template <class T> struct clarg_type_ {
    enum { known = 0 };
    static const char *name() { return 0; }
};
#define CLARG_TYPE_TRAIT_(ctype, name_)                                      \
    template <> struct clarg_type_<ctype> {                                  \
        enum { known = 1 };                                                  \
        static const char *name() { return name_; }                          \
    };
#define CLARG_TYPE_TRAIT_OF_(ctype, tname) CLARG_TYPE_TRAIT_(ctype, #tname)
CLFRAME_TYPES_(CLARG_TYPE_TRAIT_OF_)
CLARG_TYPE_TRAIT_(char, "char")
#undef CLARG_TYPE_TRAIT_OF_
#undef CLARG_TYPE_TRAIT_

template <class T> inline const char *clarg_type_name(const T &)
{
    return clarg_type_<T>::name();
}

/* An enumerator is its enum's type in C++, an int in C: CLARG takes it as
 * the integer C++ promotes it to (int, as C has it, when its values fit),
 * or an enum class as its underlying type. */
template <class T, bool = std::is_convertible<T, int>::value>
struct clarg_enum_integer_ {
    typedef decltype(+T()) type;
};
template <class T> struct clarg_enum_integer_<T, false> {
    typedef typename std::underlying_type<T>::type type;
};

template <class T>
inline typename std::enable_if<std::is_enum<T>::value, clarg>::type
clarg_of_cxx_(const T &x)
{
    typedef typename clarg_enum_integer_<T>::type integer;
    const integer value = static_cast<integer>(x);
    return clarg_scalar(clarg_type_<integer>::name(), sizeof value, &value);
}

template <class T>
inline typename std::enable_if<!std::is_enum<T>::value, clarg>::type
clarg_of_cxx_(const T &x)
{
    static_assert(clarg_type_<T>::known, "CLARG takes an OpenCL scalar or "
                  "vector (cl_int, cl_float4, ...); pass a struct with "
                  "CLARG_VALUE(\"Type\", &x)");
    return clarg_scalar(clarg_type_<T>::name(), sizeof x, &x);
}
#define CLARG(x) clarg_of_cxx_(x)

/* The work sizes: clkernel_global(k, w, h) as in C, through set. */
template <class O, class... S>
inline int clframe_set_sizes_(int (*set)(O *, unsigned, const size_t *), O *o,
                              S... sizes)
{
    const size_t v[] = {static_cast<size_t>(sizes)...};
    return set(o, sizeof...(S), v);
}
template <class... S> inline int clkernel_global(clkernel *k, S... sizes)
{
    return clframe_set_sizes_(clkernel_set_global, k, sizes...);
}
template <class... S> inline int clkernel_local(clkernel *k, S... sizes)
{
    return clframe_set_sizes_(clkernel_set_local, k, sizes...);
}
template <class... S> inline int clkernel_offset(clkernel *k, S... sizes)
{
    return clframe_set_sizes_(clkernel_set_offset, k, sizes...);
}
template <class... S> inline int clfunction_group(clfunction *f, S... sizes)
{
    return clframe_set_sizes_(clfunction_set_group, f, sizes...);
}

/* The argument lists end with an unused zeroed clarg, so that a call with
 * no arguments has an array to point at. */
template <class... A>
inline int clkernel_call(clkernel *k, const A &...args)
{
    const clarg list[] = {args..., clarg()};
    return clkernel_call_args(k, sizeof...(A), list);
}
template <class... A>
inline int clkernel_enqueue(clkernel *k, const A &...args)
{
    const clarg list[] = {args..., clarg()};
    return clkernel_enqueue_args(k, sizeof...(A), list);
}
template <class... A>
inline int clkernel_enqueue_on(clkernel *k, clstream *s, const A &...args)
{
    const clarg list[] = {args..., clarg()};
    return clkernel_enqueue_on_args(k, s, sizeof...(A), list);
}
template <class... A>
inline int clkernel_call_chunked(clkernel *k, size_t items, size_t chunk,
                                 const A &...args)
{
    const clarg list[] = {args..., clarg()};
    return clkernel_call_chunked_args(k, items, chunk, sizeof...(A), list);
}

/* ret as clfunction_call_args takes it: a pointer with its type's OpenCL
 * name ("" when it has none) and size, or no pointer, no name and no size
 * for a void pointer, nullptr and NULL, which C++ makes an integer 0.
 * Returns 0, or -1 for another integer. */
template <class T>
inline int clfunction_ret_(const T *ret, void **p, const char **type,
                           size_t *size)
{
    *p = const_cast<void *>(static_cast<const void *>(ret));
    *type = clarg_type_<T>::name() ? clarg_type_<T>::name() : "";
    *size = sizeof(T);
    return 0;
}
inline int clfunction_ret_(const void *ret, void **p, const char **type,
                           size_t *size)
{
    *p = const_cast<void *>(ret);
    *type = 0;
    *size = 0;
    return 0;
}
inline int clfunction_ret_(void *ret, void **p, const char **type,
                           size_t *size)
{
    return clfunction_ret_(static_cast<const void *>(ret), p, type, size);
}
inline int clfunction_ret_(std::nullptr_t, void **p, const char **type,
                           size_t *size)
{
    return clfunction_ret_(static_cast<void *>(nullptr), p, type, size);
}
inline int clfunction_ret_(long null, void **p, const char **type,
                           size_t *size)
{
    clfunction_ret_(nullptr, p, type, size);
    return null ? -1 : 0;
}
inline int clfunction_ret_(int null, void **p, const char **type,
                           size_t *size)
{
    return clfunction_ret_(static_cast<long>(null), p, type, size);
}

template <class R, class... A>
inline int clfunction_call(clfunction *f, R ret, const A &...args)
{
    void *p;
    const char *type;
    size_t size;
    if (clfunction_ret_(ret, &p, &type, &size) != 0)
        return clframe_fail(CLFRAME_ERR_USAGE, "clfunction_call: ret is a "
                            "number, not a pointer");
    const clarg list[] = {args..., clarg()};
    return clfunction_call_args(f, p, type, size, sizeof...(A), list);
}

inline int clframe_check_layout_list_(clctx *ctx, const char *include,
                                      const char *type, size_t host_size,
                                      std::initializer_list<clframe_field> f)
{
    return clframe_check_layout(ctx, include, type, host_size, f.begin(),
                                (unsigned)f.size());
}
#define CLFRAME_CHECK_LAYOUT(ctx, include, T, ...)                          \
    clframe_check_layout_list_((ctx), (include), #T, sizeof(T),             \
                               {CLFRAME_FIELD_LIST_(T, __VA_ARGS__)})
#endif /* __cplusplus */
#endif /* CLFRAME_H */
