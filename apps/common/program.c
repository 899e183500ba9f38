/*
 * program.c: the apps' programs' usage, exit statuses and messages
 * (program.h).
 */
#include "program.h"

#include "error.h"
#include "save.h"

#include <stdarg.h>
#include <string.h>

void app_usage(const app_program *p, FILE *f)
{
    char names[512] = "";
    if (p->versions)
        app_version_names(p->versions, 1, names, sizeof names);
    fprintf(f, p->usage, names);
}

int app_usage_error(const app_program *p, const char *fmt, const char *arg)
{
    char message[1024];
    snprintf(message, sizeof message, fmt, arg);
    app_message(p, 2, "%s", message);
    app_usage(p, stderr);
    return 2;
}

int app_version_option(const app_program *p, const char *text, int *v)
{
    if (!text)
        return app_usage_error(p, "%s: a value is missing", "--version");
    int found = app_version_parse(p->versions, text);
    if (found >= 0) {
        *v = found;
        return 0;
    }
    char names[512], fmt[600];
    app_version_names(p->versions, 0, names, sizeof names);
    snprintf(fmt, sizeof fmt, "--version \"%%s\": expected %s", names);
    return app_usage_error(p, fmt, text);
}

int app_start(const app_program *p, int parsed)
{
    save_check_stdout_at_exit(p->name);
    if (parsed == -1) {
        app_usage(p, stdout);
        return 0;
    }
    return parsed ? parsed : -1;
}

int app_asks_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return -1;
    return 0;
}

int app_message(const app_program *p, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", p->name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return status;
}

int app_failed(const app_program *p)
{
    return app_message(p, 1, "%s", app_last_error());
}
