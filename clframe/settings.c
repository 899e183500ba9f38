/*
 * settings.c: short per-device values that a program measures once and
 * reuses, such as the tile a tuning sweep found fastest for matmul. They
 * live beside the program cache (cache.c), one small text file each,
 * named by the hash of a key that holds the device's name, device, driver
 * and platform versions and the setting's name: another device, or the
 * same one after a driver update, finds no value and falls back to its
 * defaults (tuning is tied to the compiler that made the measured code).
 *
 * A file holds its key and then the value as "value <length> <CRC-64 of
 * key and value, 16 hex digits>\n<value>\n". Loading checks all of it, so
 * a damaged or foreign file is no value (and is removed); storing is atomic (clf_write_atomic). CLFRAME_CACHE=0 turns
 * settings off with the cache: nothing is read, and storing fails with a
 * message.
 */
#include "internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { SETTING_FORMAT = 1 };

/* The key of setting `name` on ctx's device; NULL on failure. */
static char *setting_key(clctx *ctx, const char *name, size_t *len)
{
    clf_str key = {0};
    clf_str_printf(&key, "clframe setting %d\n", SETTING_FORMAT);
    clf_cache_key_device(&key, ctx);
    clf_cache_key_field(&key, "setting", name);
    if (key.failed) {
        free(key.data);
        return NULL;
    }
    *len = key.len;
    return key.data;
}

/* A value may be stored when it is one line of printable text. */
static int value_ok(const char *value, size_t size)
{
    size_t n = strnlen(value, size);
    if (n == 0 || n == size)
        return 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)value[i] < 0x20 || value[i] == 0x7f)
            return 0;
    return 1;
}

/* "value <length> <checksum>\n", as a file for key and value holds it
 * after the key. */
static void value_header(clf_str *out, const char *key, size_t key_len,
                         const char *value, size_t len)
{
    clf_str_printf(out, "value %zu %016llx\n", len,
                   (unsigned long long)clf_cache_checksum(key, key_len, value,
                                                          len));
}

/* The value inside a setting file's text when the file is whole and is
 * the one for key: a pointer into file and its length, or NULL. The file
 * must be byte for byte what clctx_setting_put writes for that value (so
 * even an upper-case hex digit in the checksum makes it damaged). */
static const char *file_value(const char *file, size_t size, const char *key,
                              size_t key_len, size_t *value_len)
{
    size_t len = 0;
    int header = 0;
    if (!file || size < key_len || memcmp(file, key, key_len) != 0)
        return NULL;
    const char *rest = file + key_len;
    size_t left = size - key_len;
    /* The value and its '\n' follow the header: a length read as
     * anything but what is left (a "-1", a huge number) is damage. */
    if (left < 8 || strncmp(rest, "value ", 6) != 0 ||
        !isdigit((unsigned char)rest[6]) ||
        sscanf(rest, "value %zu %*16[0-9a-f]\n%n", &len, &header) != 1 ||
        header == 0 || (size_t)header >= left || len == 0 ||
        len != left - header - 1 || rest[header + len] != '\n')
        return NULL;
    clf_str expected = {0};
    value_header(&expected, key, key_len, rest + header, len);
    int same = !expected.failed && expected.len == (size_t)header &&
               memcmp(expected.data, rest, expected.len) == 0;
    free(expected.data);
    *value_len = len;
    return same ? rest + header : NULL;
}

int clctx_setting_get(clctx *ctx, const char *name, char *value, size_t size)
{
    if (!ctx || !name || !value || size == 0 || clf_cache_switched_off())
        return 0;
    size_t key_len = 0, file_size = 0, len = 0;
    char *key = setting_key(ctx, name, &key_len);
    char *dir = key ? clf_cache_dir() : NULL;
    char *path = dir ? clf_cache_path(dir, key, key_len, "setting") : NULL;
    char *file = path ? clf_read_file(path, &file_size) : NULL;
    const char *found = file_value(file, file_size, key, key_len, &len);
    int got = 0;
    if (found && len < size) {
        memcpy(value, found, len);
        value[len] = '\0';
        got = value_ok(value, size);
    }
    if (file && !found)
        unlink(path);           /* damaged or foreign: as good as none */
    free(file);
    free(path);
    free(dir);
    free(key);
    return got;
}

int clctx_setting_put(clctx *ctx, const char *name, const char *value)
{
    if (!ctx || !name || !value || !value_ok(value, strlen(value) + 1))
        return clframe_fail(CLFRAME_ERR_USAGE, "clctx_setting_put: needs a "
                        "context, a name and a value of one line of text "
                        "(got name %s, value \"%s\")", name ? name : "NULL",
                        value ? value : "NULL");
    if (clf_cache_switched_off())
        return clframe_fail(CLFRAME_ERR_USAGE, "clctx_setting_put(%s): settings "
                        "are kept with the program cache, which "
                        "CLFRAME_CACHE=0 turns off", name);
    size_t key_len = 0;
    char *key = setting_key(ctx, name, &key_len);
    char *dir = key ? clf_cache_dir() : NULL;
    char *path = dir ? clf_cache_path(dir, key, key_len, "setting") : NULL;
    clf_str tail = {0};
    value_header(&tail, key ? key : "", key_len, value, strlen(value));
    clf_str_printf(&tail, "%s\n", value);
    int rc = 0;
    if (!key || !path || tail.failed) {
        rc = clframe_fail(CLFRAME_ERR_NO_MEMORY, "clctx_setting_put(%s): no "
                      "memory, or no cache folder (HOME and XDG_CACHE_HOME "
                      "unset)", name);
    } else {
        const clf_span spans[] = {{key, key_len}, {tail.data, tail.len}};
        if (clf_make_dirs(dir, 0700) != 0 ||
            clf_write_atomic(path, spans, 2) != 0)
            rc = clframe_fail(CLFRAME_ERR_IO, "clctx_setting_put(%s): cannot "
                          "write %s: %s", name, path, strerror(errno));
    }
    free(tail.data);
    free(path);
    free(dir);
    free(key);
    return rc;
}
