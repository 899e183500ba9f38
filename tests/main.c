/*
 * main.c: bin/test-clframe, the library's own suites; it links nothing of
 * the apps. CK_FORK=no (as `make test` runs every test binary) runs them
 * in this process. Under valgrind the suites are dealt round to
 * CLFRAME_TEST_PART's processes in this order: pinned and stream, which
 * share their kernels' source, fall in the same one (a program's compile
 * is slow there).
 */
#include "support.h"

Suite *error_suite(void);
Suite *ctx_suite(void);
Suite *source_suite(void);
Suite *arg_suite(void);
Suite *kernel_suite(void);
Suite *function_suite(void);
Suite *layout_suite(void);
Suite *group_minmax_suite(void);
Suite *group_shim_suite(void);
Suite *mwc64x_suite(void);
Suite *group_choose_suite(void);
Suite *cache_suite(void);
Suite *preproc_suite(void);
Suite *localmalloc_suite(void);
Suite *pinned_suite(void);
Suite *stream_suite(void);
Suite *image_suite(void);
Suite *signature_suite(void);
Suite *pool_suite(void);
Suite *save_suite(void);
Suite *trace_suite(void);

int main(void)
{
    return test_main((Suite *(*const[])(void)){
        error_suite, ctx_suite, source_suite, arg_suite, kernel_suite,
        function_suite, layout_suite, group_minmax_suite, group_shim_suite,
        mwc64x_suite, group_choose_suite, pinned_suite, cache_suite,
        preproc_suite, localmalloc_suite, stream_suite, image_suite,
        signature_suite, pool_suite, save_suite, trace_suite, NULL});
}
