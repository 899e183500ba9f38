/*
 * demo_util.c: the small helpers every demo workload needs: a clock, input
 * data that is the same on every machine, and the comparison that decides
 * a row's verdict.
 */
#include "demo.h"
#include "common/error.h"

#include "common/clock.h"
#include "common/versions.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

double demo_now_ms(void)
{
    return clock_ms();
}

/* xorshift32: tiny, and its sequence does not depend on the C library. */
void demo_fill_random(float *p, size_t n, uint32_t seed)
{
    uint32_t s = seed ? seed : 1;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        p[i] = (float)(s >> 8) * (1.0f / 16777216.0f);
    }
}

void demo_poison(float *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = NAN;
}

void demo_compare(demo_result *r, const float *got, const float *want,
                  size_t n, double rel_tol)
{
    for (size_t i = 0; i < n; i++) {
        double g = got[i], w = want[i];
        /* Written so that a NaN in got fails the test. */
        if (g == w || fabs(g - w) <= rel_tol * fabs(w))
            continue;
        r->ok = 0;
        snprintf(r->verdict, sizeof r->verdict,
                 "MISMATCH at %zu: got %.9g want %.9g", i, g, w);
        return;
    }
    r->ok = 1;
    snprintf(r->verdict, sizeof r->verdict, "ok");
}

void demo_compare_bytes(demo_result *r, const uint8_t *got,
                        const uint8_t *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i]) {
            r->ok = 0;
            snprintf(r->verdict, sizeof r->verdict,
                     "MISMATCH at %zu: got %u want %u", i, got[i], want[i]);
            return;
        }
    r->ok = 1;
    snprintf(r->verdict, sizeof r->verdict, "ok");
}

static int record_failure(demo_result *r, const char *what, const char *msg)
{
    free(r->error);
    r->error = malloc(strlen(what) + strlen(msg) + 3);
    if (r->error)
        sprintf(r->error, "%s%s%s", what, *msg ? ": " : "", msg);
    r->ok = 0;
    snprintf(r->verdict, sizeof r->verdict, "FAILED");
    return -1;
}

int demo_fail(demo_result *r, int code, const char *what)
{
    record_failure(r, what, app_last_error());
    return code ? code : -1;
}

int demo_fail_host(demo_result *r, const char *what)
{
    return record_failure(r, what, "");
}

int demo_name_version(demo_result *r, const app_versions *t, int v)
{
    snprintf(r->version, sizeof r->version, "%s", app_version_name(t, v));
    return v;
}

int demo_version(demo_result *r, const app_versions *t)
{
    return demo_name_version(r, t, app_version_default(t, NULL));
}

void demo_picture_folder(void)
{
    mkdir("build", 0777);
    mkdir(DEMO_PICTURES, 0777);
}

void demo_picture_note(demo_result *r, int rc, const char *app,
                       const char *said)
{
    if (rc == 0)
        snprintf(r->note, sizeof r->note, "%s", said);
    else
        snprintf(r->note, sizeof r->note, "%s: no picture: %s", app,
                 app_last_error());
}
