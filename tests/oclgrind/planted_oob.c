/*
 * planted_oob.c: a kernel with a planted out-of-bounds write, for
 * scripts/check-oclgrind to prove that Oclgrind catches one.
 *
 * Every work-item writes out[i + 1], so the last of n work-items writes one
 * element past a buffer of exactly n elements. On a real device that write
 * usually lands silently in whatever follows the buffer; under Oclgrind it
 * must be reported ("Invalid write of size 4 at global memory address ...").
 * The program itself reports success either way: the check is on Oclgrind's
 * log, and the script fails if the log holds no such report.
 *
 * A second context is made after the write, as test suites do: Oclgrind
 * opens its --log file again for each context, and the report of the first
 * must survive that (scripts/check-oclgrind makes the log a pipe for it).
 *
 * The context is made and freed explicitly, not left to clframe's atexit
 * handler: Oclgrind 21.10 frees its per-thread API state before atexit
 * handlers run, so OpenCL calls made from one corrupt its heap.
 */
#include <clframe.h>

#include <stdio.h>

static const char planted_source[] =
    "__kernel void planted_oob(__global int *out, int n)\n"
    "{\n"
    "    int i = get_global_id(0);\n"
    "    if (i < n)\n"
    "        out[i + 1] = i;     /* i == n - 1 writes out[n]: one past the end */\n"
    "}\n";

int main(void)
{
    enum { N = 16 };
    cl_int out[N] = {0};
    clctx *ctx = clctx_new(NULL);
    clkernel *k = ctx ? clkernel_source(ctx, planted_source, "planted_oob", NULL)
                      : NULL;
    int rc = k ? clkernel_global(k, N) : -1;
    if (rc == 0)
        rc = clkernel_call(k, CLARG_OUT(out, N), CLARG((cl_int)N));
    if (rc != 0) {
        fprintf(stderr, "planted-oob: %s\n", clframe_last_error());
        clkernel_free(k);
        clctx_free(ctx);
        return 2;
    }
    printf("planted-oob: ran planted_oob on %s; out[%d] = %d\n",
           clctx_device_name(ctx), N - 1, (int)out[N - 1]);
    clkernel_free(k);
    clctx_free(ctx);
    clctx *second = clctx_new(NULL);
    if (!second) {
        fprintf(stderr, "planted-oob: %s\n", clframe_last_error());
        return 2;
    }
    clctx_free(second);
    return 0;
}
