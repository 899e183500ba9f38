/* localmalloc-answer.c: the parent's reading of what local_malloc's
 * rewrite sends from its child process (clf_local_malloc_answer): any
 * bytes, read twice (every text wanted, then only out and error), must
 * give a whole answer that keeps its promises or none, never a crash, a
 * read past the bytes or an allocation larger than they are. */
#include "fuzz.h"
#include "internal.h"

static void read_answer(const uint8_t *data, size_t size, int all)
{
    int code = 12345;
    char *out = NULL, *report = NULL, *warnings = NULL, *error = NULL;
    int rc = clf_local_malloc_answer((const char *)data, size, &code, &out,
                                     all ? &report : NULL,
                                     all ? &warnings : NULL, &error);
    int kept = rc == 0 &&
               (code == 0 ? !error
                          : (code == CLFRAME_ERR_BUILD ||
                             code == CLFRAME_ERR_NOT_FOUND) &&
                            error && !out && !report && !warnings);
    int none = rc == -1 && !out && !report && !warnings && !error;
    if (!kept && !none)
        abort();
    free(out);
    free(report);
    free(warnings);
    free(error);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    read_answer(data, size, 1);
    read_answer(data, size, 0);
    return 0;
}
