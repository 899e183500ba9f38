/*
 * save.c: an image file appears complete or not at all. It is written to
 * a hidden temporary in the target's folder (so the rename cannot cross
 * file systems) and renamed over the target once closed without error.
 */
#include "image.h"
#include "error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

int image_path_has_extension(const char *path, const char *ext)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    return dot && !(slash && dot < slash) && strcasecmp(dot, ext) == 0;
}

/* A temporary file beside path, named ".NAME.XXXXXX"; *tmp receives its
 * name (caller frees). */
static FILE *open_temporary(const char *path, char **tmp)
{
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
    size_t size = strlen(path) + sizeof "/..XXXXXX";
    *tmp = malloc(size);
    if (!*tmp) {
        errno = ENOMEM;
        return NULL;
    }
    snprintf(*tmp, size, "%.*s.%s.XXXXXX", (int)dir_len, path, path + dir_len);
    int fd = mkstemp(*tmp);
    if (fd < 0) {
        free(*tmp);
        *tmp = NULL;
        return NULL;
    }
    /* mkstemp makes the file private (0600); an image is for looking at, so
     * give it what most tools create files with, readable by all. */
    fchmod(fd, 0644);
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        int saved = errno;
        close(fd);
        unlink(*tmp);
        free(*tmp);
        *tmp = NULL;
        errno = saved;
    }
    return f;
}

int image_save(const char *path, image_write_fn *write, void *ctx)
{
    char *tmp;
    FILE *f = open_temporary(path, &tmp);
    if (!f)
        return app_fail(APP_ERR_IO, "%s: cannot create a temporary "
                        "file in its folder: %s", path, strerror(errno));
    int rc = write(f, ctx);
    if (rc != 0) {
        /* Copied out first: the new message is written over the old. */
        char why[400];
        snprintf(why, sizeof why, "%s", app_last_error());
        rc = app_fail(rc, "%s: %s", path, why);
    }
    if (fclose(f) != 0 && rc == 0)
        rc = app_fail(APP_ERR_IO, "%s: writing the image failed: %s",
                      path, strerror(errno));
    if (rc == 0 && rename(tmp, path) != 0)
        rc = app_fail(APP_ERR_IO, "%s: cannot move the finished "
                      "image into place: %s", path, strerror(errno));
    if (rc != 0)
        unlink(tmp);
    free(tmp);
    return rc;
}

typedef struct png_pixels {
    uint32_t width, height;
    int channels;
    const uint8_t *pixels;
} png_pixels;

static int write_png_pixels(FILE *f, void *ctx)
{
    const png_pixels *p = ctx;
    return image_png_write(f, p->width, p->height, p->channels, p->pixels);
}

int image_png_save(const char *path, uint32_t width, uint32_t height,
                   int channels, const uint8_t *pixels)
{
    png_pixels p = {width, height, channels, pixels};
    return image_save(path, write_png_pixels, &p);
}
