/*
 * screenshot.c: bin/x11-screenshot, the GUI test's eyes without an
 * ImageMagick dependency (apps/raytracer/tests/gui/run-gtk).
 *
 *   x11-screenshot [--window ID] OUT.png
 *       saves the X root window, or the window ID (decimal or 0x hex, as
 *       xdotool prints it), to a PNG
 *   x11-screenshot --compare A.png B.png [--area X,Y,W,H]
 *       prints "pixels N differing D colours-a CA colours-b CB": how many
 *       pixels of the area (default: all) differ between two pictures of
 *       the same size, and how many distinct colours each has there (a
 *       blank or single-colour picture has one or two)
 *
 * Exit status 0, or 1 with a message on standard error.
 */
#include <gdk/gdkx.h>
#include <gtk/gtk.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: x11-screenshot [--window ID] OUT.png\n"
    "       x11-screenshot --compare A.png B.png [--area X,Y,W,H]\n";

typedef struct area {
    int x, y, w, h;
} area;

/* ---- taking a screenshot ------------------------------------------------------ */

/* The root window, or the window with X id text. NULL if there is none. */
static GdkWindow *find_window(GdkDisplay *display, const char *text)
{
    if (!text)
        return gdk_get_default_root_window();
    char *end;
    unsigned long id = strtoul(text, &end, 0);
    if (*end || id == 0)
        return NULL;
    gdk_x11_display_error_trap_push(display);
    GdkWindow *w = gdk_x11_window_foreign_new_for_display(display, (Window)id);
    gdk_x11_display_error_trap_pop_ignored(display);
    return w;
}

static int save_window(const char *window_id, const char *out)
{
    if (!gtk_init_check(NULL, NULL)) {
        fprintf(stderr, "x11-screenshot: cannot open the display\n");
        return 1;
    }
    GdkDisplay *display = gdk_display_get_default();
    if (!GDK_IS_X11_DISPLAY(display)) {
        fprintf(stderr, "x11-screenshot: the display is not X11\n");
        return 1;
    }
    GdkWindow *w = find_window(display, window_id);
    if (!w) {
        fprintf(stderr, "x11-screenshot: no window %s\n", window_id);
        return 1;
    }
    gdk_display_sync(display);      /* what was drawn so far is on screen */
    GdkPixbuf *shot = gdk_pixbuf_get_from_window(w, 0, 0,
                                                 gdk_window_get_width(w),
                                                 gdk_window_get_height(w));
    if (window_id)
        g_object_unref(w);          /* foreign windows are ours to drop */
    if (!shot) {
        fprintf(stderr, "x11-screenshot: cannot read the window's pixels "
                "(not mapped?)\n");
        return 1;
    }
    GError *err = NULL;
    int ok = gdk_pixbuf_save(shot, out, "png", &err, NULL);
    g_object_unref(shot);
    if (!ok) {
        fprintf(stderr, "x11-screenshot: %s: %s\n", out, err->message);
        g_error_free(err);
        return 1;
    }
    return 0;
}

/* ---- comparing two pictures ----------------------------------------------------- */

static GdkPixbuf *load(const char *path)
{
    GError *err = NULL;
    GdkPixbuf *p = gdk_pixbuf_new_from_file(path, &err);
    if (!p) {
        fprintf(stderr, "x11-screenshot: %s: %s\n", path, err->message);
        g_error_free(err);
        return NULL;
    }
    if (gdk_pixbuf_get_colorspace(p) != GDK_COLORSPACE_RGB ||
        gdk_pixbuf_get_bits_per_sample(p) != 8) {
        fprintf(stderr, "x11-screenshot: %s: not 8-bit RGB\n", path);
        g_object_unref(p);
        return NULL;
    }
    return p;
}

/* The RGB of pixel (x, y), packed into 24 bits (alpha ignored). */
static uint32_t pixel(GdkPixbuf *p, int x, int y)
{
    const guchar *row = gdk_pixbuf_read_pixels(p) +
                        (size_t)y * (size_t)gdk_pixbuf_get_rowstride(p);
    const guchar *px = row + (size_t)x * (size_t)gdk_pixbuf_get_n_channels(p);
    return (uint32_t)px[0] << 16 | (uint32_t)px[1] << 8 | px[2];
}

/* Distinct colours of p in a: one bit per 24-bit colour (2 MB). */
static long count_colours(GdkPixbuf *p, area a, uint8_t *seen)
{
    memset(seen, 0, 1u << 21);
    long n = 0;
    for (int y = a.y; y < a.y + a.h; y++)
        for (int x = a.x; x < a.x + a.w; x++) {
            uint32_t c = pixel(p, x, y);
            if (!(seen[c >> 3] & (1u << (c & 7)))) {
                seen[c >> 3] |= (uint8_t)(1u << (c & 7));
                n++;
            }
        }
    return n;
}

/* a clipped to the picture; 0 if nothing is left. */
static int clip(area *a, int width, int height)
{
    int x1 = a->x + a->w < width ? a->x + a->w : width;
    int y1 = a->y + a->h < height ? a->y + a->h : height;
    a->x = a->x > 0 ? a->x : 0;
    a->y = a->y > 0 ? a->y : 0;
    a->w = x1 - a->x;
    a->h = y1 - a->y;
    return a->w > 0 && a->h > 0;
}

static int compare(const char *path_a, const char *path_b, area a)
{
    GdkPixbuf *pa = load(path_a), *pb = pa ? load(path_b) : NULL;
    int rc = 1;
    uint8_t *seen = malloc(1u << 21);
    if (!pa || !pb || !seen)
        goto done;
    int w = gdk_pixbuf_get_width(pa), h = gdk_pixbuf_get_height(pa);
    if (w != gdk_pixbuf_get_width(pb) || h != gdk_pixbuf_get_height(pb)) {
        fprintf(stderr, "x11-screenshot: %s is %dx%d, %s is %dx%d\n", path_a,
                w, h, path_b, gdk_pixbuf_get_width(pb),
                gdk_pixbuf_get_height(pb));
        goto done;
    }
    if (!clip(&a, w, h)) {
        fprintf(stderr, "x11-screenshot: the area lies outside the %dx%d "
                "pictures\n", w, h);
        goto done;
    }
    long differing = 0;
    for (int y = a.y; y < a.y + a.h; y++)
        for (int x = a.x; x < a.x + a.w; x++)
            differing += pixel(pa, x, y) != pixel(pb, x, y);
    long colours_a = count_colours(pa, a, seen);
    long colours_b = count_colours(pb, a, seen);
    printf("pixels %ld differing %ld colours-a %ld colours-b %ld\n",
           (long)a.w * a.h, differing, colours_a, colours_b);
    rc = 0;
done:
    free(seen);
    if (pa)
        g_object_unref(pa);
    if (pb)
        g_object_unref(pb);
    return rc;
}

static int parse_area(const char *text, area *a)
{
    char tail;
    return sscanf(text, "%d,%d,%d,%d%c", &a->x, &a->y, &a->w, &a->h,
                  &tail) == 4 && a->w > 0 && a->h > 0;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "--compare") == 0) {
        area a = {0, 0, 1 << 30, 1 << 30};
        if (argc == 6 && strcmp(argv[4], "--area") == 0 &&
            parse_area(argv[5], &a))
            return compare(argv[2], argv[3], a);
        if (argc == 4)
            return compare(argv[2], argv[3], a);
    } else if (argc == 4 && strcmp(argv[1], "--window") == 0) {
        return save_window(argv[2], argv[3]);
    } else if (argc == 2 && argv[1][0] != '-') {
        return save_window(NULL, argv[1]);
    }
    fputs(usage, stderr);
    return 1;
}
