/*
 * window_sum.c: the program of the walk-through in docs/debugging.md.
 * Build it from the repository root after `make`:
 *
 *     cc -std=c11 -g -Iclframe -o bin/window-sum docs/examples/window_sum.c \
 *         build/libclframe.a -lOpenCL -lm -pthread
 *
 * and run it from there too: the kernel is read from docs/examples/, and
 * that relative path is the file name gdb and Oclgrind show.
 */
#include <clframe.h>

#include <stdio.h>

int main(void)
{
    enum { N = 10 };
    cl_int in[N], out[N];
    for (int i = 0; i < N; i++)
        in[i] = i;
    clkernel *k = clkernel_file(NULL, "docs/examples/window_sum.cl",
                                "window_sum", NULL);
    if (!k || clkernel_global(k, N) != 0 ||
        clkernel_call(k, CLARG_IN(in, N), CLARG_OUT(out, N), CLARG((cl_int)N),
                      CLARG((cl_int)1)) != 0) {
        fprintf(stderr, "window-sum: %s\n", clframe_last_error());
        clkernel_free(k);
        return 1;
    }
    for (int i = 0; i < N; i++)
        printf("%d%s", (int)out[i], i + 1 < N ? " " : "\n");
    printf("on %s\n", clctx_describe(NULL));
    clkernel_free(k);
    /* Freed here rather than at exit: under Oclgrind 21.10, OpenCL calls
     * from an atexit handler (where clframe frees the default context)
     * corrupt its heap. */
    clctx_free(clctx_default());
    return 0;
}
