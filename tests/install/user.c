/*
 * user.c: a user's program built against the installed library
 * (tests/install/check): it calls the vmul of its own kernels/demo/vadd.cl
 * and checks every product, then a kernel without arguments, a vector of 32
 * bytes by value and a device function, whose ret must be NULL or of the
 * return type's size; exit status 0 if all are right. It must build
 * without a word from the compiler under -std=c11 -pedantic -Wall -Wextra
 * -Werror.
 */
#include <clframe.h>
#include <stdio.h>

int main(void)
{
    enum { N = 1000 };
    float a[N], b[N], c[N];
    for (int i = 0; i < N; i++)
        a[i] = (float)i, b[i] = 0.5f;
    clkernel *vmul = clkernel_file(NULL, "kernels/demo/vadd.cl", "vmul", NULL);
    if (!vmul || clkernel_global(vmul, N) ||
        clkernel_call(vmul, CLARG_IN(a, N), CLARG_IN(b, N), CLARG_OUT(c, N),
                      CLARG(N))) {
        fprintf(stderr, "user: %s\n", clframe_last_error());
        return 1;
    }
    clkernel_free(vmul);
    for (int i = 0; i < N; i++)
        if (c[i] != 0.5f * (float)i) {
            fprintf(stderr, "user: c[%d] = %g, want %g\n", i, c[i], 0.5 * i);
            return 1;
        }
    clkernel *nothing = clkernel_file(NULL, "kernels/demo/vadd.cl", "nothing",
                                      NULL);
    clfunction *twice = clfunction_file(NULL, "kernels/demo/vadd.cl", "twice",
                                        NULL);
    clkernel *sum4 = clkernel_file(NULL, "kernels/demo/vadd.cl", "sum4", NULL);
    float got = 0;
    cl_long4 v = {{1, 20, 300, 4000}};
    cl_long sum = 0;
    if (!nothing || !twice || !sum4 || clkernel_global(nothing, 1) ||
        clkernel_call(nothing) || clkernel_enqueue(nothing) ||
        clctx_finish(NULL) || clfunction_call(twice, &got, CLARG(1.5f)) ||
        got != 3.0f || clkernel_global(sum4, 1) ||
        clkernel_call(sum4, CLARG(v), CLARG_OUT(&sum, 1)) || sum != 4321) {
        fprintf(stderr, "user: %s (twice(1.5) = %g, sum4 = %ld)\n",
                clframe_last_error(), got, (long)sum);
        return 1;
    }
    /* NULL drops the value; a ret bigger than a float is refused and left
     * as it was. */
    long long wide = -1;
    if (clfunction_call(twice, NULL, CLARG(1.5f)) ||
        clfunction_call(twice, &wide, CLARG(1.5f)) == 0 || wide != -1) {
        fprintf(stderr, "user: a NULL ret failed or a long long ret for a "
                "float was accepted (%s)\n", clframe_last_error());
        return 1;
    }
    clkernel_free(nothing);
    clkernel_free(sum4);
    clfunction_free(twice);
    printf("user: vmul of its own kernels/demo/vadd.cl on %s: ok\n",
           clctx_device_name(NULL));
    return 0;
}
