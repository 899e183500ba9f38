/*
 * core.h: what the core of clframe's library shares and users never see:
 * contexts and device selection, a clarg's buffers and copies, launching a
 * built kernel against its parameter table, streams, pinned memory,
 * programs and the cache, errors. The core hands source text to the
 * compiler and reads none of it: nothing here knows the source tools
 * (source/source.h), which call it; scripts/check-layers checks that.
 */
#ifndef CLFRAME_CORE_H
#define CLFRAME_CORE_H

#include "clframe.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <sys/types.h>

/* ---- errors (error.c) --------------------------------------------------- */

/* Errors are raised with clframe_fail (clframe.h), which callers return:
 * `return clframe_fail(...)`. */
/* As clframe_fail for a failed OpenCL call: the message names the call and the
 * code ("clCreateBuffer (CL_OUT_OF_RESOURCES): <what>"). */
int clf_fail_cl(cl_int code, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void clf_clear_error(void);
/* CLFRAME_ERR_USAGE for a NULL object ("clkernel_global: NULL kernel"),
 * quoting the last error, which is usually why the object is NULL (a
 * clkernel_file that failed). */
int clf_fail_null(const char *who, const char *what);

/* ---- strings (util.c) --------------------------------------------------- */

/* A growable string; on allocation failure `failed` is set and appends stop. */
typedef struct clf_str {
    char *data;
    size_t len, cap;
    int failed;
} clf_str;
void clf_str_append(clf_str *s, const char *text, size_t n);
void clf_str_printf(clf_str *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
char *clf_strdup(const char *s);
double clf_now_ms(void);       /* monotonic clock */
/* 1 if environment variable name is set to something other than "" or "0". */
int clf_env_on(const char *name);
/* 1 if s is a C identifier ("play", "_x1"), 0 for NULL, "" and the rest. */
int clf_is_identifier(const char *s);
/* A size as the environment gives it: "1048576", "64K", "256M", "2G"
 * (K, M, G: powers of 1024, either case) into *bytes; 0, or -1 for
 * anything else (a sign, a fraction, a space, too large for size_t). */
int clf_parse_bytes(const char *text, size_t *bytes);
/* A whole regular file of at most CLF_READ_MAX bytes, NUL-terminated (*len,
 * if given, without the NUL); NULL with errno when it cannot be opened or
 * read, EINVAL when it is not a regular file (/dev/zero would never end),
 * EFBIG when it is larger. Caller frees. */
enum { CLF_READ_MAX = 256 << 20 };
char *clf_read_file(const char *path, size_t *len);
/* mkdir -p: 0, or -1 with errno when a folder could not be made. */
int clf_make_dirs(const char *path, mode_t mode);

/* ---- contexts (ctx.c) ---------------------------------------------------- */

/* Kernel time totals, read from launches' profiling events: per kernel
 * name when CLFRAME_PROFILE=1 (the table clctx_free prints), and per
 * clkernel for clkernel_total_ms and clkernel_last_ms. */
typedef struct clf_kernel_profile {
    char name[64];
    uint64_t calls;             /* launches whose events were read */
    double total_ms, max_ms;
    double last_ms;             /* the latest event read; -1 before one */
    uint64_t unread;            /* events kept but not read yet */
} clf_kernel_profile;

/* A timed command: an enqueued one whose profiling event is read later
 * (event; at collection its device times and queue are read into start_ns,
 * end_ns and queue, and it is released), or one the host timed by its
 * clock (by_clock: a blocking copy on queue from start_ms to end_ms, after
 * waiting for that queue from waited_from_ms (0: it did not), or a wait of
 * the host's for its queues, CLF_EV_WAIT, named by label). */
typedef struct clf_pending_event {
    cl_event event;
    int what;                   /* CLF_EV_KERNEL, _WRITE, _READ, _WAIT */
    size_t bytes;               /* transfers */
    clf_kernel_profile *kernel; /* kernels: the totals of the name, */
    clf_kernel_profile *launch; /* and of the clkernel launched */
    cl_command_queue queue;
    cl_ulong start_ns, end_ns;  /* an event's device times; 0: none read */
    int by_clock;
    double start_ms, end_ms, waited_from_ms;    /* clf_now_ms */
    const char *label;
} clf_pending_event;
enum { CLF_EV_KERNEL, CLF_EV_WRITE, CLF_EV_READ, CLF_EV_WAIT };

typedef struct clf_program clf_program;   /* program.c: built programs */
typedef struct clf_build_hooks clf_build_hooks;        /* program.c */

/* memory.c: device buffers that calls gave back, for the next calls. */
enum { CLF_POOL_MOST = 256 };   /* buffers held at once */
typedef struct clf_pooled {
    cl_mem mem;
    size_t bytes;               /* its size class */
    cl_command_queue queue;     /* the queue that may still use it; NULL
                                   once that one is known finished */
    uint64_t given;             /* when given back, for dropping the oldest */
} clf_pooled;
/* A copy into a host array enqueued without waiting (memory.c): a later copy
 * out of the same bytes waits for it, as NVIDIA's driver takes a write's
 * host data when it is enqueued rather than when its turn comes. */
enum { CLF_READS_MOST = 64 };
typedef struct clf_read_pending {
    const char *host;
    size_t bytes;
    cl_command_queue queue;
} clf_read_pending;

typedef struct clf_pool {
    clf_pooled held[CLF_POOL_MOST];
    size_t count, bytes;        /* buffers and bytes held */
    size_t limit;               /* the most bytes held */
    uint64_t clock;
    int exact;                  /* buffers exactly as long as their arrays */
} clf_pool;

struct clctx {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    cl_device_type type;
    char device_name[256];
    char describe[1400];
    int debug;                  /* CL_DEBUG=1 */
    int profile;                /* CLFRAME_PROFILE=1 */
    int timing;                 /* clctx_set_timing: every launch timed */
    double kernel_ms;           /* the time of every timed launch read */
    int on_oclgrind;            /* the Oclgrind simulator: no -g, see ctx.c */
    int on_nvidia;              /* NVIDIA's driver: its PTX retry, program.c */
    int no_arg_info;            /* build without -cl-kernel-arg-info, as that
                                   retry does: set by tests, so that every
                                   platform tries the source's signatures
                                   alone */
    size_t max_group;           /* CL_DEVICE_MAX_WORK_GROUP_SIZE */
    size_t max_item[3];         /* CL_DEVICE_MAX_WORK_ITEM_SIZES */
    cl_ulong local_mem;         /* CL_DEVICE_LOCAL_MEM_SIZE */
    cl_ulong max_alloc;         /* CL_DEVICE_MAX_MEM_ALLOC_SIZE */
    size_t global_limit;        /* the first global size refused: half the
                                   range of the device's size_t (launch.c) */
    int shares_memory;          /* a CPU device, or host unified memory:
                                   pinned arrays are used in place (memory.c) */
    size_t base_align;          /* CL_DEVICE_MEM_BASE_ADDR_ALIGN in bytes */
    int opencl_version;         /* __OPENCL_VERSION__ and */
    int c_version;              /* __OPENCL_C_VERSION__ of a build without
                                   -cl-std, measured when first needed
                                   (macros.c); 0 before */
    int fast_math_macro;        /* -cl-fast-relaxed-math defines
                                   __FAST_RELAXED_MATH__: 1 yes, 2 no, 0
                                   not yet measured (macros.c) */
    size_t cache_max;           /* the program cache's cap, read when the
                                   context is made (cache.c) */
    clctx_stats stats;
    clf_pool pool;
    clf_read_pending reads[CLF_READS_MOST]; /* reads into host arrays not
                                               known landed (memory.c) */
    size_t nreads;
    int fail_allocs;            /* tests: the next buffers made fail as a
                                   device out of memory would */
    unsigned local_malloc_rewrites; /* sources rewritten (the source
                                       tools' build hooks), and */
    double local_malloc_ms;         /* the time it took */
    clf_program *programs;      /* built programs, reused by source+options */
    clf_kernel_profile *kprof;  /* profile totals, grown on demand */
    size_t nkprof;
    clf_pending_event *pending; /* events to read at the next finish */
    size_t npending, cappending;
    cl_command_queue copy_queue[2]; /* the chunked call's copies in and
                                       out (launch.c), made when first used */
    clstream *streams;          /* the user's, until clstream_free */
    double transfer_ms[2];      /* profiled write, read time */
    uint64_t transfer_bytes[2]; /* profiled write, read bytes */
    unsigned streams_made;      /* streams' numbers, from 1 (stream.c) */
    /* This context in the open trace (trace.c); stale when trace_session
     * is not the trace's own. */
    unsigned trace_session;
    unsigned trace_no;          /* its number there, from 1: its lanes */
    int64_t trace_offset_ns;    /* device clock to the trace's clock */
    double trace_calibrated_ms; /* when that was measured (clf_now_ms) */
};

/* ctx NULL -> the default context (which may fail: then NULL). */
clctx *clf_ctx(clctx *ctx);

/* One device as the selection sees it (select.c). */
typedef struct clf_candidate {
    unsigned pi, di;             /* platform and device index */
    cl_platform_id platform;
    cl_device_id device;
    cl_device_type type;
    char name[256];
    char platform_name[256];
} clf_candidate;

/* Applies one selector ("gpu", "cpu", "P:D", a bare number N for c[N], or
 * part of a device name: a CLFRAME_DEVICE value) to the n devices of list
 * c, which nothing here asks OpenCL about: the index of the nth (modulo
 * their count, in list order) of the devices it matches, with *matched set
 * to that count ("P:D" and N match one); or a negative code with a message naming the selector,
 * `source` (where it came from) and the choices. Apart from clctx_new, so
 * that its text can be tested without a device. */
int clf_apply_selector(const clf_candidate *c, int n, const char *sel,
                       const char *source, unsigned nth, int *matched);

/* select.c: the device the selection rules choose for clctx_new
 * (selector, nth 0) or clctx_new_nth (by_index: nth): 0 with *chosen and
 * why (the reason, for clctx_describe), or a negative code with a message. */
int clf_select_device(const char *selector, unsigned nth, int by_index,
                      clf_candidate *chosen, char *why, size_t why_size);
/* "GPU", "CPU", "accelerator" or "other". */
const char *clf_device_type_word(cl_device_type t);

/* Profiling records: the named kernel's totals; a pending event to read at
 * the next clf_collect_events (called by finish, blocking calls, free),
 * added then to the totals kernel and launch (either may be NULL). */
clf_kernel_profile *clf_kernel_profile_for(clctx *ctx, const char *name);
void clf_keep_event(clctx *ctx, cl_event ev, int what, size_t bytes,
                    clf_kernel_profile *kernel, clf_kernel_profile *launch);
void clf_collect_events(clctx *ctx);
/* Takes a call's n timed commands (records): its events kept, as
 * clf_keep_event would each, its clock-timed copies added to the totals;
 * then, if collect is set, every pending event read; then all of them
 * written to the trace, if one is open. */
void clf_keep_events(clctx *ctx, const clf_pending_event *records, size_t n,
                     int collect);
/* Releases an event, counted as live no more. */
void clf_release_event(clctx *ctx, cl_event ev);
/* Totals that are going away (a freed clkernel's): their pending events
 * are still read into the others, and released, at the next collection. */
void clf_forget_profile(clctx *ctx, const clf_kernel_profile *totals);
/* The CLFRAME_PROFILE=1 table of ctx's kernels and copies, on stderr. */
void clf_print_profile(clctx *ctx);

/* ---- the timeline (trace.c) ---------------------------------------------- */

/* 1 while a trace is open (clframe_trace_start, CLFRAME_TRACE). */
extern atomic_int clf_tracing;
static inline int clf_trace_on(void)
{
    return atomic_load_explicit(&clf_tracing, memory_order_relaxed);
}
/* Whether ctx keeps an event of every command: under CLFRAME_PROFILE=1 or
 * while tracing. One test on the hot path, whichever is on. */
static inline int clf_keeps_events(const clctx *ctx)
{
    return ctx->profile | clf_trace_on();
}
/* Starts the trace CLFRAME_TRACE names, once a process, before the first
 * context: 0 (none asked, or started), or an error naming the file. */
int clf_trace_from_env(void);
/* Writes n timed commands of ctx to the open trace: those read from their
 * events (device times; one with none read is passed over), and those
 * timed by the host's clock (a blocking copy and the wait for its queue
 * before it, a wait). profile.c hands them all on. */
void clf_trace_records(clctx *ctx, const clf_pending_event *records, size_t n);
/* Host-side records, times from clf_now_ms: a wait of the calling thread
 * (what names it: "clctx_finish", "clstream_wait(stream 1)"), and a build
 * of origin (how: "compiled", "cached", "failed"). Nothing when no trace
 * is open. */
void clf_trace_wait(const char *what, double start_ms, double end_ms);
void clf_trace_build(clctx *ctx, const char *origin, const char *how,
                     double start_ms, double end_ms);

/* ---- streams (stream.c) -------------------------------------------------- */

struct clstream {
    clctx *ctx;
    cl_command_queue queue;
    unsigned id;                /* its context's nth stream, from 1 */
    clstream *next;             /* in ctx->streams */
};

/* A new in-order queue with profiling on ctx's device. 0 or a code. */
int clf_new_queue(clctx *ctx, cl_command_queue *queue);
/* s's queue, or ctx's own for NULL. */
cl_command_queue clf_stream_queue(clctx *ctx, clstream *s);
/* ---- device memory (memory.c) ------------------------------------------- */

/* Every OpenCL object clframe creates passes through these so that
 * clctx_stats.live_objects counts them: a leak shows as a growing count. */
cl_mem clf_create_buffer(clctx *ctx, size_t bytes, cl_int *err);
void clf_release_mem(clctx *ctx, cl_mem mem);
void clf_track(clctx *ctx, int delta);

/* A call's arrays borrow their device buffers from the context's pool
 * (clf_pool_take, a buffer of at least `bytes`, or NULL with *err) and
 * give them back after enqueueing their work on `queue` (NULL when that
 * work is known finished; clf_queue_done says when). After a driver's err,
 * clf_pool_retry empties the pool and returns 1 when that may let the same
 * command succeed on a second try. clf_pool_open reads CLFRAME_POOL_BYTES; 0 or a
 * code with a message. */
int clf_pool_open(clctx *ctx);
cl_mem clf_pool_take(clctx *ctx, cl_command_queue queue, size_t bytes,
                     cl_int *err);
void clf_pool_give(clctx *ctx, cl_command_queue queue, cl_mem mem,
                   size_t bytes);
int clf_pool_retry(clctx *ctx, cl_int err);
void clf_pool_close(clctx *ctx);

/* A new reference to a buffer whose memory is the bytes at p themselves
 * (free it with clf_release_mem), when they lie wholly inside one of ctx's
 * pinned allocations, ctx's device shares the host's memory and the offset
 * suits a sub-buffer; else NULL, and the array is copied as any other. */
cl_mem clf_host_in_place(clctx *ctx, const void *p, size_t bytes);
/* Frees the pinned allocations ctx still has (clctx_free). */
void clf_host_free_all(clctx *ctx);
/* A persistent argument whose host array starts at p starts (+1) or stops
 * (-1) using the pinned allocation that holds p, which clframe_host_free
 * then refuses to free while used; 1 if there is one, 0 if p lies in
 * none. */
int clf_host_use(const void *p, int delta);

/* Copies between a host array and a buffer either way (CLF_EV_WRITE or
 * CLF_EV_READ) on any of the context's queues, at an offset into the
 * buffer, counting bytes and, when profiling, timing it. blocking as in
 * clEnqueueRead/WriteBuffer. 0, or the error naming desc. */
int clf_copy(clctx *ctx, cl_command_queue queue, int what, cl_mem mem,
             size_t offset, size_t bytes, void *host, cl_bool blocking,
             const char *desc);

/* Makes waiter's later commands wait, on the device, for every command
 * enqueued on done so far (streams, chunked calls). 0 or a code. */
int clf_queue_after(clctx *ctx, cl_command_queue waiter, cl_command_queue done);

/* Says that queue's work (NULL: every queue's) has finished: the reads
 * enqueued on it into host arrays have landed (a copy out of the same bytes
 * waits for them until then), its pooled buffers are free for any
 * queue. */
void clf_queue_done(clctx *ctx, cl_command_queue queue);

/* Waits for every queue of ctx: its own, the copy queues, the streams;
 * then its reads have landed and its pooled buffers are free for any
 * queue. CL_SUCCESS or the first error. */
cl_int clf_finish_all(clctx *ctx);


/* ---- signatures (signature.c) -------------------------------------------- */

/* How a source names its types, for matching the type a clarg names to a
 * parameter's: resolve puts a type in canonical form through the source's
 * typedefs (typedefs.c), names being those typedefs. The core calls it
 * without knowing what it reads; NULL resolve: names are only normalized. */
typedef struct clf_type_names {
    void (*resolve)(const void *names, const char *type, char *out,
                    size_t size);
    const void *names;
} clf_type_names;

/* One parameter of a kernel or device function. */
typedef struct clf_param {
    cl_kernel_arg_address_qualifier space;
    cl_kernel_arg_access_qualifier access; /* images' read_only, ...; else
                                              CL_KERNEL_ARG_ACCESS_NONE */
    int pointer;
    int is_const;                /* a pointer to const */
    char type[128];              /* canonical: a built-in type, or a struct's
                                    tag (typedefs.c); no '*', no "struct " */
    char written[128];           /* as the source names it ("Duo",
                                    "real_arg"), for messages */
    char name[64];
    size_t size;                 /* bytes of a built-in by-value type, or 0 */
    size_t struct_size;          /* a struct's (or what a pointer points to)
                                    bytes on the device, once measured */
    clarg_kind object;           /* a kernel's image or sampler parameter:
                                    CLARG_KIND_IMAGE, _SAMPLER (kernel.c);
                                    else CLARG_KIND_NONE */
} clf_param;

/* Size of a built-in scalar or vector type by name ("float3" -> 16), or 0. */
size_t clf_builtin_size(const char *type);
/* A driver's or a prototype's spelling of a type in clframe's one form:
 * no "struct ", no qualifiers, no '*', "unsigned int" as "uint". *ptr is set
 * when the spelling had a '*'. */
void clf_normalize_type(const char *raw, char *out, size_t size, int *ptr);
const char *clf_space_word(cl_kernel_arg_address_qualifier q);
/* The address space a word names ("__global", "local", ...), else
 * CL_KERNEL_ARG_ADDRESS_PRIVATE ("__private" too). */
cl_kernel_arg_address_qualifier clf_space_of_word(const char *w);
/* "__global const float*" and "an array of int" for messages. */
void clf_describe_param(const clf_param *p, char *buf, size_t size);
void clf_describe_arg(const clarg *a, char *buf, size_t size);
/* The argument's type fits the parameter's: the same type once both are
 * resolved through the source's typedefs (td, which may be NULL), float3
 * given a float4 (the host has no 3-vectors), anything for void*. */
int clf_types_match(const clf_param *p, const char *given,
                    const clf_type_names *names);
/* 1 for image types (image2d_t, ...) and sampler_t: objects, not data. */
int clf_is_image_type(const char *type);
/* Raises CLFRAME_ERR_ARG_TYPE: "<what>(<name>): argument 3 (n): <wants>
 * int, got a value of type float (CLARG); <advice>". */
/* 0 if a work-group of sizes (dims of them, `what` in messages: "local
 * size") fits ctx's device and at most `most` work-items; else an error
 * that starts with who ("clkernel_call(vadd)"). The same rule for kernel
 * calls and clfunction groups. */
int clf_check_group(const clctx *ctx, const char *who, const char *what,
                    unsigned dims, const size_t *sizes, size_t most);
int clf_arg_mismatch(const char *what, const char *name, const char *wants,
                     unsigned i, const clf_param *p, const clarg *a,
                     const char *advice);

/* ---- OpenCL objects as arguments (image.c) ------------------------------ */

/* What an image argument carries in its clarg's value: made by
 * clarg_image and clarg_existing_image (image.c), read once into a call's
 * plan (arg.c), checked by the call (signature.c) and used by it
 * (memory.c). */
typedef struct clf_image_desc {
    int existing;                /* CLARG_IMAGE: mem is the caller's */
    cl_mem mem;
    cl_image_format format;
    cl_uint dims;
    size_t size[3];              /* pixels; 1 beyond dims */
} clf_image_desc;
static inline const clf_image_desc *clf_image_desc_of(const clarg *a)
{
    return (const clf_image_desc *)(const void *)a->value;
}

/* ---- arguments: their buffers and copies (arg.c) ------------------------ */

/* a's persistent buffer is its host array itself (pinned memory used in
 * place, memory.c): nothing to copy. */
int clf_arg_in_place(const clarg *a);

/* The device buffer of a persistent clarg, shared by all its copies. */
struct clarg_buffer {
    clctx *ctx;
    cl_mem mem;
    size_t bytes;
    const void *alias;          /* the host array that mem is (pinned memory
                                   used in place, memory.c), or NULL; never
                                   moved by clarg_swap (arg.c) */
    unsigned generation;        /* bumped by each release (arg.c) */
    const void *pinned_host;    /* its host array, when in pinned memory
                                   (clf_host_use), else NULL */
    clarg_buffer *next_free;    /* in the list of released ones */
};

/* ---- a call: its plan (arg.c), checked (signature.c), carried out
 * (memory.c) ------------------------------------------------------------ */

/* Where an argument's buffer comes from, as a call's plan says (arg.c):
 * none (a value, __local bytes, an existing buffer or a sampler, set as
 * the kernel's argument as they are), its persistent buffer (which may be
 * its host array itself), the pool (or, for an array with copy flags in
 * pinned memory, the host array itself), or an image. */
enum {
    CLF_SRC_VALUE, CLF_SRC_LOCAL, CLF_SRC_MEM, CLF_SRC_SAMPLER,
    CLF_SRC_PERSISTENT, CLF_SRC_PERSISTENT_IN_PLACE,
    CLF_SRC_PINNED_OR_POOL, CLF_SRC_POOL, CLF_SRC_IMAGE
};
/* The copies an argument's plan asks for: in before the kernel, back after
 * it, whole or (CLF_SPLIT) a chunk's part around each chunk. An array used
 * in place is never copied. */
enum { CLF_COPY_IN = 1, CLF_COPY_BACK = 2, CLF_SPLIT = 4 };

/* One argument's part of a call's plan. */
typedef struct clf_arg_plan {
    size_t bytes;                /* count * elem_size; (size_t)-1 when that
                                    overflows */
    const clf_image_desc *image; /* an image argument's description */
    unsigned char source;        /* CLF_SRC_... */
    unsigned char how;           /* CLF_COPY_IN | CLF_COPY_BACK | CLF_SPLIT */
    unsigned char released;      /* a copy of a persistent argument whose
                                    buffer was released since */
    /* Filled when the call is carried out (memory.c): */
    unsigned char made;          /* how mem came, so it is given back */
    cl_mem mem;
} clf_arg_plan;

/* One kernel call. The caller (launch.c) fills the fields above plan, has
 * arg.c plan it (clf_call_plan), signature.c check it (clf_check_call),
 * and memory.c carry it out (clf_call_run); it frees plan when it is not
 * planned. */
enum { CLF_CALL_ARGS_INLINE = 32 };
typedef struct clf_call {
    clctx *ctx;
    cl_kernel kernel;
    const char *who;             /* the function called, for messages */
    const char *name;            /* the kernel's */
    const clf_param *params;     /* its parameters */
    unsigned nparams;
    const char *signature;       /* "vadd(__global float* a, ...)" */
    const clf_type_names *names; /* how its source names types */
    unsigned dims;               /* its work sizes: global, local (NULL */
    const size_t *global, *local;   /* when the driver chooses) */
    cl_command_queue queue;
    int blocking;                /* the call waits for its work */
    size_t items, chunk;         /* a chunked call's, as asked (chunk 0:
                                    whole) */
    size_t run_chunk;            /* the chunks it runs in: chunk, or 0 when
                                    one chunk is the whole range */
    unsigned nargs;
    const clarg *args;
    /* Launches work-items [w0, w1) of the last dimension on queue: launch.c
     * hands its own, with the kernel as launcher. 0 or an error. */
    int (*launch)(void *launcher, cl_command_queue queue, size_t w0,
                  size_t w1);
    void *launcher;
    /* Filled by clf_call_plan: */
    clf_arg_plan *plan;          /* one per argument: planned, or allocated
                                    beyond CLF_CALL_ARGS_INLINE */
    unsigned how;                /* the copies of all its arguments */
    clf_arg_plan planned[CLF_CALL_ARGS_INLINE];
    /* Kept by clf_call_run while it runs, and handed on once at its end:
     * its first failure, worded then (a driver's code with the OpenCL call
     * that failed, or a CLFRAME_ERR_ code with api NULL; 0 none), and its
     * timed copies' events, for the profile. */
    int failed;
    const char *failed_api;
    char *failed_what;           /* CLF_CALL_FAILURE_BYTES, clf_call_run's */
    int keeps_events;            /* times its commands (set by the caller:
                                    clf_keeps_events) */
    clf_pending_event *timed;
    size_t ntimed, timed_room;
    char *waited_for;            /* its wait's name, clf_call_run's */
} clf_call;
enum { CLF_CALL_FAILURE_BYTES = 512 };

/* Plans call c's memory work (arg.c): for each argument, where its buffer
 * comes from, its bytes, which copies go in and back, whole or by chunk;
 * nothing reaches the device. 0, or CLFRAME_ERR_NO_MEMORY for a plan of
 * more than CLF_CALL_ARGS_INLINE arguments. */
int clf_call_plan(clf_call *c);

/* 0 if planned call c may run: as many arguments as parameters, each
 * one's kind, address space, element type and struct size its
 * parameter's (images, samplers and existing buffers: dimensions, access,
 * size, context), the __local ones within the device's memory, a chunked
 * call's parts within the kernel's sizes; else an error naming the
 * kernel, the position, the parameter and both types. Reads the clargs
 * and the plan; asks no other module. */
int clf_check_call(const clf_call *c);

/* Carries planned, checked call c out (memory.c): takes each argument's
 * buffer or image, enqueues the copies in, launches (c->launch: the whole
 * range, or chunk after chunk between their parts' copies), copies back,
 * waits if c is blocking (or after a failure), and gives back what it
 * took, on every path. 0 or an error. */
int clf_call_run(clf_call *c);

/* ---- kernels called against their parameter table (launch.c) ---------- */

/* How k's signature read from the source compared with the driver's
 * report: 1 the same, -1 different (the driver's is used), 0 no report. */
int clf_kernel_cross_check(const clkernel *k);

/* launch.c: kernel name of program (built by clf_program_get: the kernel
 * takes over that reference, even when it fails), origin naming the
 * source in messages; NULL with the error when the program has no such
 * kernel. Its calls wait for clf_kernel_set_params, which hands it the
 * table of its parameters read by the layer above (taken over, with the
 * signature; names must live as long as the program). */
clkernel *clf_kernel_new(clctx *ctx, cl_program program, const char *name,
                         const char *origin);
typedef struct clf_param_table {
    unsigned nparams;
    clf_param *params;
    char *signature;             /* "vadd(__global float* a, ...)" */
    clf_type_names names;
    int cross_check;             /* as clf_kernel_cross_check */
} clf_param_table;
void clf_kernel_set_params(clkernel *k, const clf_param_table *t);

/* ---- what a device's compiler predefines (macros.c) ------------------- */

/* What a device's compiler predefines, as the preprocessor is handed it
 * (macros.c reads it from a context; a test may make it up). */
typedef struct clf_device_macros {
    int little_endian;           /* __ENDIAN_LITTLE__ */
    int images;                  /* __IMAGE_SUPPORT__ */
    char *extensions;            /* space-separated, each defined as 1 */
    char *features;              /* OpenCL C 3.0 features it has, defined
                                    under a 3.0 build; NULL for none */
    /* __OPENCL_VERSION__ and __OPENCL_C_VERSION__ of a build with
     * -cl-std=std (std 120 for CL1.2; 0: none), asked when a source first
     * needs them (a probe build); NULL: the two values below, with std as
     * the C version when given. */
    void (*versions)(void *arg, int std, int *opencl, int *c);
    /* Whether -cl-fast-relaxed-math defines __FAST_RELAXED_MATH__, asked
     * when a build's options first have it (a probe build: Oclgrind's
     * compiler does not define it); NULL: it does, as the specification
     * says. */
    int (*fast_math)(void *arg);
    void *arg;
    int opencl_version, c_version;
} clf_device_macros;
/* Reads ctx's device; clf_device_macros_free frees the lists. */
void clf_device_macros_read(clctx *ctx, clf_device_macros *m);
void clf_device_macros_free(clf_device_macros *m);

/* ---- builds: what a caller does around a compile (program.c) ----------- */

/* Handed to clf_program_get by the source tools (build.c), so that the
 * core hands the compiler a source without reading it: prepare makes the
 * text to compile (*out, or NULL for the source as it is) before a compile
 * that missed the cache, 0 or -1 with *log saying why; map_log makes a
 * build log's locations the user's files (caller frees; NULL if out of
 * memory). Either may be NULL. */
typedef struct clf_build_hooks {
    int (*prepare)(clctx *ctx, const char *source, const char *origin,
                   const char *options, char **out, char **log);
    char *(*map_log)(const char *log, const char *expanded);
} clf_build_hooks;

/* ---- probes (probe.c) --------------------------------------------------- */

/* Builds source (expanded; origin names it in messages) with options and
 * hooks (as clf_program_get), runs its `__kernel void name(__global ulong
 * *out)` on one work-item and reads n values into out. 0 or an error (a
 * build error carries the log). */
int clf_probe(clctx *ctx, const char *source, const char *origin,
              const char *name, const char *options,
              const clf_build_hooks *hooks, cl_ulong *out, size_t n);

/* ---- programs (program.c) ------------------------------------------------ */

/* A built program for (source, options) on ctx, shared and reference counted;
 * origin names the source in error messages. hooks (NULL: none) are what
 * the caller does around a compile that misses the cache. NULL on error. */
cl_program clf_program_get(clctx *ctx, const char *source, const char *origin,
                           const char *options, const clf_build_hooks *hooks);
void clf_program_put(clctx *ctx, cl_program program);
/* 1 if program (one of ctx's) was built with -cl-kernel-arg-info, so that
 * the driver reports its kernels' parameters. */
int clf_program_arg_info(clctx *ctx, cl_program program);
/* Data the layer above keeps with a built program (its reading of the
 * source), freed with the program by free(data). */
typedef struct clf_program_extra {
    void *data;
    void (*free)(void *data);
} clf_program_extra;
/* program's extra, with the source and options (clframe's additions too)
 * it was built from; NULL if program is not one of ctx's. */
clf_program_extra *clf_program_extra_of(clctx *ctx, cl_program program,
                                        const char **source,
                                        const char **options);
void clf_program_free_all(clctx *ctx);

/* ---- program binary cache (cache.c) -------------------------------------- */

/* A program for (source, options) on ctx's device loaded from the on-disk
 * cache and built from its binary, or NULL (disabled, missing, stale or
 * corrupt: a corrupt entry is removed). Counts a hit in ctx->stats. */
cl_program clf_cache_load(clctx *ctx, const char *source, const char *options);
/* Writes a freshly built program's binary to the cache (atomically: a
 * temporary file renamed into place); failures only cost the next build. */
void clf_cache_store(clctx *ctx, cl_program program, const char *source,
                     const char *options);

/* The binary inside a cache entry's bytes (size of them) when the entry
 * is whole and is the one for key: a pointer into file and *binary_len,
 * or NULL (truncated, damaged, an older format, another key). Nothing
 * past file + size is read. */
const unsigned char *clf_cache_entry_binary(const unsigned char *file,
                                            size_t size, const char *key,
                                            size_t key_len,
                                            size_t *binary_len);
/* A setting file's bytes (size of them; nothing past them is read) for
 * key (settings.c): 1 with its value, NUL-terminated, in value (of
 * value_size bytes) when the file is whole, is key's, and its value is a
 * line of printable text shorter than value_size; else 0. *whole says
 * whether the file was key's whole file (one that is not is damaged or
 * foreign, and removed). */
int clf_setting_parse(const char *file, size_t size, const char *key,
                      size_t key_len, char *value, size_t value_size,
                      int *whole);
/* 1 under CLFRAME_CACHE=0, which turns off the cache and the settings
 * kept beside it. */
int clf_cache_switched_off(void);
/* The cache's cap in *max: CLFRAME_CACHE_MAX, or the default. 0, or
 * CLFRAME_ERR_USAGE naming the variable when it is malformed. */
int clf_cache_max(size_t *max);
/* The cache's folder ($XDG_CACHE_HOME/clframe, else ~/.cache/clframe);
 * NULL when neither is usable, or when it is not this user's alone to
 * write. Free it. */
char *clf_cache_dir(void);
/* Points PoCL's own kernel cache into clframe's folder (cache.c says why);
 * once per process, before the first driver is loaded. */
void clf_cache_point_pocl(void);
/* dir/<16 hex digits of key's hash>.suffix; NULL if out of memory. */
char *clf_cache_path(const char *dir, const char *key, size_t key_len,
                     const char *suffix);
/* CRC-64 of key then data: catches damage, unlike the name's hash. */
uint64_t clf_cache_checksum(const char *key, size_t key_len,
                            const void *data, size_t len);
/* Appends to key what identifies ctx's device and driver (name, device,
 * driver and platform versions), or a named value; key->failed on error. */
void clf_cache_key_device(clf_str *key, clctx *ctx);
void clf_cache_key_field(clf_str *key, const char *name, const char *value);
/* Writes the spans one after the other to a temporary file beside path
 * and renames it onto path, so readers see the old file or the whole new
 * one. 0, or -1 with errno set (nothing is left behind). */
typedef struct clf_span {
    const void *data;
    size_t len;
} clf_span;
int clf_write_atomic(const char *path, const clf_span *spans, int n);

#endif /* CLFRAME_CORE_H */
