/*
 * testing.h: what the apps' suites share beyond tests/support.h (which
 * every suite, the library's too, includes): assertions that show the
 * apps' own error message (common/error.h, which also receives clframe's:
 * every app test binary's main calls app_follow_clframe_errors), and PNG
 * inputs.
 */
#ifndef APPS_TESTING_H
#define APPS_TESTING_H

#include "support.h"

#include "common/error.h"

#include <stdint.h>
#include <string.h>

/* Asserts an app's call (or clframe's) returned 0, showing the message. */
#define ck_assert_app(call)                                                \
    do {                                                                   \
        int rc_ = (call);                                                  \
        ck_assert_msg(rc_ == 0, "%s returned %d: %s", #call, rc_,          \
                      app_last_error());                                   \
    } while (0)

/* Asserts a pointer-returning call succeeded. */
#define ck_assert_app_made(p)                                              \
    ck_assert_msg((p) != NULL, "%s is NULL: %s", #p, app_last_error())

/* Asserts a call failed with code and a message containing text. */
#define ck_assert_app_fails(call, code, text)                              \
    do {                                                                   \
        int rc_ = (call);                                                  \
        ck_assert_msg(rc_ == (code), "%s returned %d, expected %s; "       \
                      "message: %s", #call, rc_, #code, app_last_error()); \
        ck_assert_msg(strstr(app_last_error(), (text)) != NULL,            \
                      "message of %s lacks \"%s\": %s", #call, (text),     \
                      app_last_error());                                   \
    } while (0)

/* Writes path as a w x h PNG of libpng colour type `type` at depth 8 from
 * rows of bytes (channels per pixel, no padding); palette images get the
 * palette black, white, red, green. Returns path. */
const char *test_write_png(const char *path, uint32_t w, uint32_t h,
                           int type, const uint8_t *pixels, int channels);

#endif
