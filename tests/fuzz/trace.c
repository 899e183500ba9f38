/* trace.c: clframe-trace's reader (ctrace_read_text, clframe/tools/trace/
 * read.c) on any bytes, in a buffer of their exact size. What is not a
 * trace must be a refusal with a message, never a crash or a hang; what
 * is read must be events whose times and bytes are finite and in range,
 * of the kinds there are, each with a name. */
#include "fuzz.h"
#include "tools/trace/read.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    ctrace_trace t = CTRACE_TRACE_EMPTY;
    char error[256] = "";
    int rc = ctrace_read_text(&t, text, size, "input", error, sizeof error);
    if (rc != 0 && (rc != -1 || !error[0] || t.nevents || t.nlanes))
        abort();
    for (size_t i = 0; i < t.nevents; i++) {
        const ctrace_event *e = &t.events[i];
        if (!e->name || !isfinite(e->ts) || !isfinite(e->dur) || e->dur < 0 ||
            !isfinite(e->ts + e->dur) || !isfinite(e->bytes) || e->bytes < 0 ||
            e->kind < CTRACE_KERNEL || e->kind > CTRACE_OTHER)
            abort();
    }
    for (size_t i = 0; i < t.nlanes; i++)
        if (!t.lanes[i].name)
            abort();
    ctrace_free(&t);
    free(text);
    return 0;
}
