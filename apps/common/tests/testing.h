/*
 * testing.h: what the apps' suites share beyond tests/support.h (which
 * every suite, the library's too, includes): PNG inputs.
 */
#ifndef APPS_TESTING_H
#define APPS_TESTING_H

#include "support.h"

#include <stdint.h>

/* Writes path as a w x h PNG of libpng colour type `type` at depth 8 from
 * rows of bytes (channels per pixel, no padding); palette images get the
 * palette black, white, red, green. Returns path. */
const char *test_write_png(const char *path, uint32_t w, uint32_t h,
                           int type, const uint8_t *pixels, int channels);

#endif
