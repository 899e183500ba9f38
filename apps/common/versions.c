/*
 * versions.c: the apps' tables of versions (versions.h).
 */
#include "versions.h"
#include "parse.h"

#include <stdio.h>
#include <string.h>

int app_version_parse(const app_versions *t, const char *text)
{
    for (int v = 0; text && v < t->count; v++) {
        const app_version *e = &t->list[v];
        if (!strcmp(text, e->name) || (e->alias && !strcmp(text, e->alias)))
            return v;
    }
    return -1;
}

const char *app_version_name(const app_versions *t, int v)
{
    return v >= 0 && v < t->count ? t->list[v].name : "unknown";
}

int app_version_uses_opencl(const app_versions *t, int v)
{
    return v >= 0 && v < t->count && t->list[v].uses_opencl;
}

const char *app_version_names(const app_versions *t, int mark_default,
                              char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int v = 0; v < t->count && n < size; v++) {
        const char *sep = v == 0 ? "" : v == t->count - 1 ? " or " : ", ";
        int both = t->preferred == t->preferred_cpu;
        const char *mark = !mark_default ? ""
                           : v == t->preferred && both ? " (default)"
                           : v == t->preferred ? " (default on a GPU)"
                           : v == t->preferred_cpu ? " (default on a CPU)"
                           : "";
        int wrote = snprintf(buf + n, size - n, "%s%s%s", sep,
                             t->list[v].name, mark);
        if (wrote < 0)
            break;
        n += (size_t)wrote;
    }
    return buf;
}

typedef struct selection {
    const app_versions *t;
    int *selected;
} selection;

static int select_one(const char *name, int number, void *data)
{
    (void)number;
    selection *s = data;
    int v = app_version_parse(s->t, name);
    if (v < 0)
        return 0;
    s->selected[v] = 1;
    return 1;
}

int app_versions_select(const app_versions *t, const char *list,
                        int selected[])
{
    for (int v = 0; v < t->count; v++)
        selected[v] = list == NULL;
    selection s = {t, selected};
    if (list && !parse_comma_list("versions", list, 1, 4 * t->count,
                                  "a version", select_one, &s))
        return -1;
    return 0;
}
