/*
 * settings.c: short per-device values that a program measures once and
 * reuses, such as the tile a tuning sweep found fastest for a kernel. They
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
#include "core.h"

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

/* The length of the header "value <length> <checksum>\n" at the start of
 * rest (left bytes, not read past), with the length it claims in *len;
 * 0 if rest does not start with one in that form. A length of more
 * digits than fit is no header. */
static size_t header_length(const char *rest, size_t left, size_t *len)
{
    static const char word[] = "value ";
    size_t at = sizeof word - 1, digits = 0;
    if (left <= at || memcmp(rest, word, at) != 0)
        return 0;
    *len = 0;
    while (at < left && isdigit((unsigned char)rest[at]) && digits < 19) {
        *len = *len * 10 + (size_t)(rest[at] - '0');
        at++, digits++;
    }
    /* Then a space, 16 hex digits and '\n', which value_header compares. */
    at += 1 + 16 + 1;
    return digits > 0 && at <= left ? at : 0;
}

int clf_setting_parse(const char *file, size_t size, const char *key,
                      size_t key_len, char *value, size_t value_size,
                      int *whole)
{
    size_t len = 0, header = 0;
    *whole = 0;
    if (!file || size < key_len || memcmp(file, key, key_len) != 0)
        return 0;
    const char *rest = file + key_len;
    size_t left = size - key_len;
    /* The value and its '\n' follow the header: a length read as
     * anything but what is left (a "-1", a huge number) is damage. */
    header = header_length(rest, left, &len);
    if (header == 0 || header >= left || len == 0 ||
        len != left - header - 1 || rest[header + len] != '\n')
        return 0;
    /* The file must be byte for byte what clctx_setting_put writes for
     * that value (so even an upper-case hex digit in the checksum, or a
     * leading zero in the length, makes it damaged). */
    clf_str expected = {0};
    value_header(&expected, key, key_len, rest + header, len);
    *whole = !expected.failed && expected.len == header &&
             memcmp(expected.data, rest, header) == 0;
    free(expected.data);
    if (!*whole || len >= value_size || memchr(rest + header, '\0', len))
        return 0;
    memcpy(value, rest + header, len);
    value[len] = '\0';
    return value_ok(value, len + 1);
}

int clctx_setting_get(clctx *ctx, const char *name, char *value, size_t size)
{
    if (!ctx || !name || !value || size == 0 || clf_cache_switched_off())
        return 0;
    size_t key_len = 0, file_size = 0;
    char *key = setting_key(ctx, name, &key_len);
    char *dir = key ? clf_cache_dir() : NULL;
    char *path = dir ? clf_cache_path(dir, key, key_len, "setting") : NULL;
    char *file = path ? clf_read_file(path, &file_size) : NULL;
    int whole = 0;
    int got = file && clf_setting_parse(file, file_size, key, key_len, value,
                                        size, &whole);
    if (file && !whole)
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
