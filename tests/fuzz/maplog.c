/* maplog.c: clframe's build-log mapper on any log and, after a NUL byte,
 * any expanded text with #line markers. */
#include "fuzz.h"
#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *expanded;
    char *log = fuzz_text(data, size, &expanded);
    if (log)
        free(clf_source_map_log(log, expanded));
    free(log);
    return 0;
}
