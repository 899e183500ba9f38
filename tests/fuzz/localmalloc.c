/* localmalloc.c: local_malloc's rewrite on any source and, after a NUL
 * byte, any build options, with a device limit of 64 KiB: the analysis
 * and edits in this process (clf_local_malloc_in_process), where libFuzzer
 * sees their coverage; the library runs the same in a child process. Its
 * oracle is the rewrite's own layout check (every block and frame above
 * the blocks live where it is placed, each arena the largest end on any
 * path of calls, callees found again by USR), which aborts in the fuzzing
 * build: a failure is a finding, not a refusal. (Not a search of the error
 * for its words: a source can write them, and the fuzzer did.) */
#include "fuzz.h"
#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *options;
    char *source = fuzz_text(data, size, &options);
    char *out = NULL, *report = NULL, *warnings = NULL, *error = NULL;
    if (source)
        clf_local_malloc_in_process(source, "fuzz.cl", options, 65536,
                                    &out, &report, &warnings, &error);
    free(out);
    free(report);
    free(warnings);
    free(error);
    free(source);
    return 0;
}
