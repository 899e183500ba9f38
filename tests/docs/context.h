/*
 * context.h: what the examples of README.md, the guides in docs/ and
 * clframe/clframe.h take as given (tests/docs/check builds each example
 * as the body of a function after this header): the arrays a, b, c,
 * state, tmp of n floats, the kernels vadd and k (vadd.cl) and step
 * (smooth in smooth.cl), the device function f (score in rules.cl) with
 * its result ret and a Board, the cooperative functions mark, group_best
 * and best (group.cl) with best's 64 values and its result at, all made
 * by docs_setup. docs_run runs each example and fails on any error
 * clframe raised in it.
 */
#include <clframe.h>
#include <stdio.h>
#ifdef __cplusplus
#include <vector>
#endif

#include "kernels/mygame/board.h"

enum { n = 1000, steps = 3 };
float a[n], b[n], c[n], state[n], tmp[n];
clkernel *vadd, *k, *step;
clfunction *f, *mark, *group_best, *best;
int ret, at;
float value[64];
Board board = {{1, 2, 3, 4}, 0};

static int docs_errors;

static void docs_count_error(int code, const char *message)
{
    (void)code;
    docs_errors++;
    fprintf(stderr, "  clframe: %s\n", message);
}

static int docs_setup(void)
{
    for (int i = 0; i < n; i++)
        a[i] = (float)i, b[i] = 2.0f * (float)i, state[i] = (float)(i % 7);
    vadd = k = clkernel_file(NULL, "kernels/demo/vadd.cl", "vadd", NULL);
    step = clkernel_file(NULL, "kernels/docs/smooth.cl", "smooth", NULL);
    f = clfunction_file(NULL, "kernels/mygame/rules.cl", "score", NULL);
    mark = clfunction_file(NULL, "kernels/docs/group.cl", "mark", NULL);
    group_best = clfunction_file(NULL, "kernels/docs/group.cl", "group_best",
                                 NULL);
    best = clfunction_file(NULL, "kernels/docs/group.cl", "best", NULL);
    for (int i = 0; i < 64; i++)
        value[i] = (float)((i * 37) % 64);
    if (!vadd || !step || !f || !mark || !group_best || !best || clkernel_global(vadd, n) ||
        clkernel_global(step, n)) {
        fprintf(stderr, "docs: the examples' context: %s\n",
                clframe_last_error());
        return 1;
    }
    clframe_set_error_handler(docs_count_error);
    return 0;
}

typedef struct docs_example {
    void (*run)(void);
    const char *file;
    int line;
} docs_example;

/* Runs every example; 0 if none raised an error. */
static int docs_run(const docs_example *all, int count)
{
    int failed = 0;
    for (int i = 0; i < count; i++) {
        int before = docs_errors;
        all[i].run();
        if (docs_errors != before) {
            fprintf(stderr, "%s:%d: the example raised the error above\n",
                    all[i].file, all[i].line);
            failed++;
        }
    }
#ifdef __cplusplus
    const char *language = "C++";
#else
    const char *language = "C";
#endif
    printf("docs: %d %s fragments ran, %d failed\n", count, language, failed);
    return failed != 0;
}
