/*
 * user.cpp: a C++ user's program built against the installed library
 * (tests/install/check) with g++ and clang++: the same calls as in C, through
 * clframe.h's templates. A kernel, a device function with a return value and
 * one without, a struct by value and its layout check, a struct returned,
 * and calls that the checks must refuse (a wrong argument, a ret of the
 * wrong type or size); exit status 0 if all are right. It must
 * build without a word from the compiler under -std=c++11 -pedantic -Wall
 * -Wextra -Werror.
 */
#include <clframe.h>
#include <cstdio>
#include <vector>

extern "C" {
#include "kernels/demo/pair.h"
}

static int fail(const char *what)
{
    std::fprintf(stderr, "user.cpp: %s: %s\n", what, clframe_last_error());
    return 1;
}

int main()
{
    const int n = 999;
    std::vector<float> a(n), b(n), c(n);
    for (int i = 0; i < n; i++)
        a[i] = (float)i, b[i] = 2.0f;
    clkernel *vmul = clkernel_file(NULL, "kernels/demo/vadd.cl", "vmul", NULL);
    if (!vmul || clkernel_global(vmul, n) || clkernel_local(vmul, 0) ||
        clkernel_call(vmul, CLARG_IN(a.data(), n), CLARG_IN(&b[0], n),
                      CLARG_OUT(c.data(), n), CLARG(n)))
        return fail("vmul");
    for (int i = 0; i < n; i++)
        if (c[i] != 2.0f * (float)i) {
            std::fprintf(stderr, "user.cpp: c[%d] = %g\n", i, c[i]);
            return 1;
        }
    if (clkernel_call(vmul, CLARG_IN(a.data(), n), CLARG_IN(&b[0], n),
                      CLARG_OUT(c.data(), n), CLARG(1.0)) == 0) {
        std::fprintf(stderr, "user.cpp: a double for an int was accepted\n");
        return 1;
    }
    clkernel_free(vmul);

    clkernel *sum4 = clkernel_file(NULL, "kernels/demo/vadd.cl", "sum4", NULL);
    cl_long4 v = {{1, 20, 300, 4000}};
    cl_long sum = 0;
    if (!sum4 || clkernel_global(sum4, 1) ||
        clkernel_enqueue(sum4, CLARG(v), CLARG_OUT(&sum, 1)) ||
        clctx_finish(NULL) || sum != 4321)
        return fail("sum4");
    clkernel_free(sum4);

    clfunction *pair_sum = clfunction_file(NULL, "kernels/demo/vadd.cl",
                                           "pair_sum", NULL);
    clfunction *scale = clfunction_file(NULL, "kernels/demo/vadd.cl", "scale",
                                        NULL);
    Pair p = {3, 0.25f};
    float got = 0, x = 1.5f;
    if (CLFRAME_CHECK_LAYOUT(NULL, "kernels/demo/pair.h", Pair, a, b) ||
        !pair_sum || !scale ||
        clfunction_call(pair_sum, &got, CLARG_VALUE("Pair", &p)) ||
        got != 3.25f || clfunction_call(scale, NULL, CLARG_INOUT(&x, 1),
                                        CLARG(4.0f)) || x != 6.0f ||
        clfunction_call(scale, nullptr, CLARG_INOUT(&x, 1), CLARG(0.5f)) ||
        x != 3.0f)
        return fail("pair_sum, scale");
    int wrong = 0;
    if (clfunction_call(pair_sum, &wrong, CLARG_VALUE("Pair", &p)) == 0) {
        std::fprintf(stderr, "user.cpp: an int for a float result was "
                     "accepted\n");
        return 1;
    }
    /* ret must hold what the function returns, no less: a smaller one is
     * refused before anything is written, and so is a void pointer. */
    clfunction *pair_of = clfunction_file(NULL, "kernels/demo/vadd.cl",
                                          "pair_of", NULL);
    Pair made = {0, 0.0f};
    struct Half {
        int a;
    };
    struct {
        Half half;
        float after;
    } small = {{0}, -1.0f};
    void *untyped = &made;
    if (!pair_of || clfunction_call(pair_of, &made, CLARG(7), CLARG(0.5f)) ||
        made.a != 7 || made.b != 0.5f)
        return fail("pair_of");
    if (clfunction_call(pair_of, &small.half, CLARG(7), CLARG(0.5f)) == 0 ||
        small.half.a != 0 || small.after != -1.0f ||
        clfunction_call(pair_of, untyped, CLARG(7), CLARG(0.5f)) == 0) {
        std::fprintf(stderr, "user.cpp: a ret smaller than Pair or of no "
                     "size was accepted\n");
        return 1;
    }
    clfunction_free(pair_of);
    clfunction_free(pair_sum);
    clfunction_free(scale);
    std::printf("user.cpp: kernels and device functions from C++ on %s: ok\n",
                clctx_device_name(NULL));
    return 0;
}
