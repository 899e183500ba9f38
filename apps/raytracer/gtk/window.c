/*
 * window.c: bin/raytracer-gtk's GTK 3 window: the image (a GtkDrawingArea
 * that paints the worker's front surface), three sliders for light 0 and
 * a frames-per-second readout. Input handlers only edit the window's copy
 * of the state and pass it to the worker (worker.c), which renders the
 * newest one when it is free; nothing here waits for the device.
 *
 * The image is rendered at the drawing area's size: --size sets its size
 * at start, and a resized window asks for frames of the new size (until one
 * arrives, the last frame is painted stretched to fit).
 */
#include "gui.h"

#include <gtk/gtk.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { RECENT_FRAMES = 15 };       /* the fps readout's median window */

struct rtg_window {
    GtkWidget *window, *image, *fps, *sliders[3];
    rtg_worker *worker;
    rtg_state state;               /* the latest request: the worker's input */
    int trace;
    uint64_t quit_after_frames;
    const char *method;
    int closed;                    /* destroyed: frames are no longer shown */
    int failed;                    /* rendering failed */
    int dragging;
    double drag_x, drag_y;         /* the pointer at the last motion */
    double recent_ms[RECENT_FRAMES];
    unsigned n_recent;
    GdkRectangle traced_image;     /* the image where --trace last said */
};

/* ---- the state, and asking for a frame of it ------------------------------ */

static void print_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void print_line(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fflush(stdout);                /* a test reads the lines as they come */
}

/* Hands the window's state to the worker; why names the input (--trace). */
static void request_frame(rtg_window *win, const char *why)
{
    uint64_t generation = rtg_worker_request(win->worker, &win->state);
    if (win->trace)
        print_line("input %" PRIu64 " %s\n", generation, why);
}

static float view_distance(const rt_view *v)
{
    float d[3] = {v->look_at[0] - v->position[0],
                  v->look_at[1] - v->position[1],
                  v->look_at[2] - v->position[2]};
    return sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

/* ---- input ------------------------------------------------------------------ */

/* Pans so that what lies at the look-at point's depth follows the pointer:
 * a pixel there is 2 d tan(fov / 2) / height across. */
static void pan_by_pixels(rtg_window *win, double dx, double dy)
{
    rt_view *v = &win->state.view;
    float pixel = 2.0f * view_distance(v) *
                  tanf(v->fov_degrees * (float)M_PI / 360.0f) /
                  (float)win->state.height;
    rt_view_pan(v, -(float)dx * pixel, (float)dy * pixel);
    request_frame(win, "drag");
}

/* Moves in (notches > 0) or out by a share of the distance to the look-at
 * point per notch: the scene's own scale, whatever its units. (A dolly
 * moves the look-at point along, so the step stays the same.) */
static void dolly_by_notches(rtg_window *win, double notches)
{
    rt_view *v = &win->state.view;
    rt_view_dolly(v, 0.15f * (float)notches * view_distance(v));
    request_frame(win, "scroll");
}

static gboolean on_button_press(GtkWidget *w, GdkEventButton *e, gpointer data)
{
    (void)w;
    rtg_window *win = data;
    if (e->button != GDK_BUTTON_PRIMARY || e->type != GDK_BUTTON_PRESS)
        return FALSE;
    win->dragging = 1;
    win->drag_x = e->x;
    win->drag_y = e->y;
    return TRUE;
}

static gboolean on_button_release(GtkWidget *w, GdkEventButton *e,
                                  gpointer data)
{
    (void)w;
    rtg_window *win = data;
    if (e->button == GDK_BUTTON_PRIMARY)
        win->dragging = 0;
    return FALSE;
}

static gboolean on_motion(GtkWidget *w, GdkEventMotion *e, gpointer data)
{
    (void)w;
    rtg_window *win = data;
    if (!win->dragging || !(e->state & GDK_BUTTON1_MASK))
        return FALSE;
    double dx = e->x - win->drag_x, dy = e->y - win->drag_y;
    win->drag_x = e->x;
    win->drag_y = e->y;
    if (dx != 0 || dy != 0)
        pan_by_pixels(win, dx, dy);
    return TRUE;
}

static gboolean on_scroll(GtkWidget *w, GdkEventScroll *e, gpointer data)
{
    (void)w;
    rtg_window *win = data;
    double dx, dy;
    if (e->direction == GDK_SCROLL_UP)
        dolly_by_notches(win, 1);
    else if (e->direction == GDK_SCROLL_DOWN)
        dolly_by_notches(win, -1);
    else if (gdk_event_get_scroll_deltas((GdkEvent *)e, &dx, &dy) && dy != 0)
        dolly_by_notches(win, -dy);   /* touchpads: up is negative */
    return TRUE;
}

static void on_slider(GtkRange *range, gpointer data)
{
    rtg_window *win = data;
    for (int axis = 0; axis < 3; axis++)
        if (GTK_WIDGET(range) == win->sliders[axis])
            win->state.light[axis] = (float)gtk_range_get_value(range);
    request_frame(win, "light");
}

/* The drawing area's size is the image's: a new size asks for a frame. */
static void on_image_size(GtkWidget *w, GdkRectangle *a, gpointer data)
{
    (void)w;
    rtg_window *win = data;
    if (a->width < 1 || a->height < 1 ||
        ((uint32_t)a->width == win->state.width &&
         (uint32_t)a->height == win->state.height))
        return;
    win->state.width = (uint32_t)a->width;
    win->state.height = (uint32_t)a->height;
    request_frame(win, "size");
}

static gboolean on_key(GtkWidget *w, GdkEventKey *e, gpointer data)
{
    (void)data;
    int ctrl = (e->state & GDK_CONTROL_MASK) != 0;
    if (e->keyval == GDK_KEY_Escape ||
        (ctrl && (e->keyval == GDK_KEY_q || e->keyval == GDK_KEY_w))) {
        gtk_window_close(GTK_WINDOW(w));
        return TRUE;
    }
    return FALSE;
}

static void on_destroy(GtkWidget *w, gpointer data)
{
    (void)w;
    rtg_window *win = data;
    win->closed = 1;
    gtk_main_quit();
}

/* ---- showing frames ------------------------------------------------------------ */

/* Paints the newest frame, stretched if the widget's size changed and a
 * frame of the new size is not there yet. */
static gboolean on_draw(GtkWidget *w, cairo_t *cr, gpointer data)
{
    rtg_window *win = data;
    cairo_surface_t *frame = rtg_worker_front(win->worker);
    if (!frame) {
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        cairo_paint(cr);
        return TRUE;
    }
    int fw = cairo_image_surface_get_width(frame);
    int fh = cairo_image_surface_get_height(frame);
    int ww = gtk_widget_get_allocated_width(w);
    int wh = gtk_widget_get_allocated_height(w);
    if (fw != ww || fh != wh)
        cairo_scale(cr, (double)ww / fw, (double)wh / fh);
    cairo_set_source_surface(cr, frame, 0, 0);
    cairo_paint(cr);
    return TRUE;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* "12.3 fps, 81 ms/frame": the median of the last frames' times, so one
 * slow frame (a resize, a busy machine) does not make the readout jump.
 * Frames are rendered only when something changed, so this is the rate
 * the renderer sustains while the view moves, not a count of redraws. */
static void update_fps(rtg_window *win, const rtg_frame_info *f)
{
    win->recent_ms[win->n_recent++ % RECENT_FRAMES] = f->ms;
    unsigned n = win->n_recent < RECENT_FRAMES ? win->n_recent : RECENT_FRAMES;
    double sorted[RECENT_FRAMES];
    memcpy(sorted, win->recent_ms, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, compare_doubles);
    double median = n % 2 ? sorted[n / 2]
                          : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    char text[128];
    snprintf(text, sizeof text, "%.1f fps, %.0f ms/frame  (%ux%u, %s)",
             median > 0 ? 1000.0 / median : 0.0, median, f->state.width,
             f->state.height, win->method);
    gtk_label_set_text(GTK_LABEL(win->fps), text);
}

/* Where a widget lies in the window, for a test that clicks on it. */
static GdkRectangle widget_box(rtg_window *win, GtkWidget *w)
{
    GdkRectangle r = {0, 0, gtk_widget_get_allocated_width(w),
                      gtk_widget_get_allocated_height(w)};
    gtk_widget_translate_coordinates(w, win->window, 0, 0, &r.x, &r.y);
    return r;
}

/* "layout NAME X Y W H" for the image and the sliders, whenever the
 * image's place changed since the last time (the first frame included). */
static void trace_layout(rtg_window *win)
{
    GdkRectangle image = widget_box(win, win->image);
    if (gdk_rectangle_equal(&image, &win->traced_image))
        return;
    win->traced_image = image;
    static const char *names[] = {"image", "light-x", "light-y", "light-z"};
    GtkWidget *widgets[] = {win->image, win->sliders[0], win->sliders[1],
                            win->sliders[2]};
    for (int i = 0; i < 4; i++) {
        GdkRectangle r = widget_box(win, widgets[i]);
        print_line("layout %s %d %d %d %d\n", names[i], r.x, r.y, r.width,
                   r.height);
    }
}

static void trace_frame(rtg_window *win, const rtg_frame_info *f)
{
    trace_layout(win);
    const rt_view *v = &f->state.view;
    print_line("frame %" PRIu64 " input %" PRIu64 " ms %.2f size %ux%u "
               "camera %g %g %g look %g %g %g light %g %g %g\n", f->number,
               f->generation, f->ms, f->state.width, f->state.height,
               v->position[0], v->position[1], v->position[2], v->look_at[0],
               v->look_at[1], v->look_at[2], f->state.light[0],
               f->state.light[1], f->state.light[2]);
}

/* The worker's news, on the main thread: a new front surface, or an error. */
static void on_frame(void *data, const rtg_frame_info *f)
{
    rtg_window *win = data;
    if (win->closed)
        return;
    if (f->error) {
        win->failed = 1;
        fprintf(stderr, "raytracer-gtk: rendering failed: %s\n", f->error);
        gtk_label_set_text(GTK_LABEL(win->fps), "rendering failed (see the "
                           "terminal)");
        return;
    }
    update_fps(win, f);
    gtk_widget_queue_draw(win->image);
    if (win->trace)
        trace_frame(win, f);
    if (win->quit_after_frames && f->number >= win->quit_after_frames)
        gtk_window_close(GTK_WINDOW(win->window));
}

/* ---- building the window ---------------------------------------------------------- */

/* The box the sliders span: the spheres, the lights and the camera,
 * widened by half its largest side (at least 1) so a light can go round
 * the scene. Planes are unbounded and left out. */
static void light_ranges(const rt_scene *scene, double lo[3], double hi[3])
{
    for (int a = 0; a < 3; a++) {
        lo[a] = fmin(scene->camera.position[a], scene->camera.look_at[a]);
        hi[a] = fmax(scene->camera.position[a], scene->camera.look_at[a]);
    }
    for (uint32_t i = 0; i < scene->n_spheres; i++) {
        const float *c = scene->spheres[i].s;
        for (int a = 0; a < 3; a++) {
            lo[a] = fmin(lo[a], c[a] - c[3]);
            hi[a] = fmax(hi[a], c[a] + c[3]);
        }
    }
    for (uint32_t i = 0; i < scene->n_lights; i++)
        for (int a = 0; a < 3; a++) {
            lo[a] = fmin(lo[a], scene->lights[i].position.s[a]);
            hi[a] = fmax(hi[a], scene->lights[i].position.s[a]);
        }
    double side = 1;
    for (int a = 0; a < 3; a++)
        side = fmax(side, hi[a] - lo[a]);
    for (int a = 0; a < 3; a++) {
        lo[a] -= side / 2;
        hi[a] += side / 2;
    }
}

/* A row per axis: "light x" and its slider, at light 0's position. */
static GtkWidget *make_sliders(rtg_window *win, const rt_scene *scene)
{
    static const char *names[3] = {"light x", "light y", "light z"};
    double lo[3], hi[3];
    light_ranges(scene, lo, hi);
    GtkWidget *grid = gtk_grid_new();
    gtk_grid_set_column_spacing(GTK_GRID(grid), 8);
    for (int a = 0; a < 3; a++) {
        GtkWidget *label = gtk_label_new(names[a]);
        gtk_widget_set_halign(label, GTK_ALIGN_START);
        GtkWidget *s = gtk_scale_new_with_range(GTK_ORIENTATION_HORIZONTAL,
                                                lo[a], hi[a],
                                                (hi[a] - lo[a]) / 1000);
        gtk_scale_set_digits(GTK_SCALE(s), 2);
        gtk_scale_set_value_pos(GTK_SCALE(s), GTK_POS_RIGHT);
        gtk_widget_set_hexpand(s, TRUE);
        if (scene->n_lights > 0)
            gtk_range_set_value(GTK_RANGE(s), win->state.light[a]);
        else
            gtk_widget_set_sensitive(s, FALSE);
        /* Connected after the first value, which is no request. */
        g_signal_connect(s, "value-changed", G_CALLBACK(on_slider), win);
        gtk_grid_attach(GTK_GRID(grid), label, 0, a, 1, 1);
        gtk_grid_attach(GTK_GRID(grid), s, 1, a, 1, 1);
        win->sliders[a] = s;
    }
    return grid;
}

static GtkWidget *make_image(rtg_window *win, uint32_t width, uint32_t height)
{
    GtkWidget *image = gtk_drawing_area_new();
    gtk_widget_set_size_request(image, (int)width, (int)height);
    gtk_widget_set_hexpand(image, TRUE);
    gtk_widget_set_vexpand(image, TRUE);
    gtk_widget_add_events(image, GDK_BUTTON_PRESS_MASK |
                          GDK_BUTTON_RELEASE_MASK | GDK_BUTTON1_MOTION_MASK |
                          GDK_SCROLL_MASK | GDK_SMOOTH_SCROLL_MASK);
    g_signal_connect(image, "draw", G_CALLBACK(on_draw), win);
    g_signal_connect(image, "button-press-event",
                     G_CALLBACK(on_button_press), win);
    g_signal_connect(image, "button-release-event",
                     G_CALLBACK(on_button_release), win);
    g_signal_connect(image, "motion-notify-event", G_CALLBACK(on_motion), win);
    g_signal_connect(image, "scroll-event", G_CALLBACK(on_scroll), win);
    g_signal_connect(image, "size-allocate", G_CALLBACK(on_image_size), win);
    return image;
}

/* The size request keeps the first allocation at --size; once the window
 * is up, it is dropped so that the window may also be made smaller. */
static void on_mapped(GtkWidget *w, gpointer data)
{
    (void)w;
    rtg_window *win = data;
    gtk_widget_set_size_request(win->image, 16, 16);
}

static const char *plural(uint32_t n)
{
    return n == 1 ? "" : "s";
}

static void set_title(GtkWidget *window, const rt_scene *scene,
                      const char *name)
{
    char title[512];
    snprintf(title, sizeof title, "raytracer: %s (%u sphere%s, %u plane%s, "
             "%u light%s)", name, scene->n_spheres, plural(scene->n_spheres),
             scene->n_planes, plural(scene->n_planes), scene->n_lights,
             plural(scene->n_lights));
    gtk_window_set_title(GTK_WINDOW(window), title);
}

rtg_window *rtg_window_open(const rt_scene *scene, const char *name,
                            rt_renderer *r, const rtg_options *opts)
{
    rtg_window *win = calloc(1, sizeof *win);
    if (!win) {
        fprintf(stderr, "raytracer-gtk: no memory\n");
        return NULL;
    }
    win->trace = opts->trace;
    win->quit_after_frames = opts->quit_after_frames;
    win->method = rt_method_name(opts->method);
    win->state = (rtg_state){.view = scene->camera, .width = opts->width,
                             .height = opts->height,
                             .has_light = scene->n_lights > 0};
    if (scene->n_lights > 0)
        memcpy(win->state.light, scene->lights[0].position.s,
               sizeof win->state.light);

    win->window = gtk_window_new(GTK_WINDOW_TOPLEVEL);
    set_title(win->window, scene, name);
    g_signal_connect(win->window, "destroy", G_CALLBACK(on_destroy), win);
    g_signal_connect(win->window, "key-press-event", G_CALLBACK(on_key), win);
    g_signal_connect_after(win->window, "map", G_CALLBACK(on_mapped), win);

    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
    gtk_container_add(GTK_CONTAINER(win->window), box);
    win->image = make_image(win, opts->width, opts->height);
    gtk_box_pack_start(GTK_BOX(box), win->image, TRUE, TRUE, 0);
    GtkWidget *controls = gtk_box_new(GTK_ORIENTATION_VERTICAL, 4);
    gtk_container_set_border_width(GTK_CONTAINER(controls), 6);
    gtk_box_pack_start(GTK_BOX(box), controls, FALSE, FALSE, 0);
    gtk_box_pack_start(GTK_BOX(controls), make_sliders(win, scene), FALSE,
                       FALSE, 0);
    win->fps = gtk_label_new("first frame...");
    gtk_widget_set_halign(win->fps, GTK_ALIGN_START);
    gtk_box_pack_start(GTK_BOX(controls), win->fps, FALSE, FALSE, 0);

    /* Started before the window shows, so the first frame is on its way. */
    win->worker = rtg_worker_start(r, &win->state, opts->frame_delay_ms,
                                   on_frame, win);
    if (!win->worker) {
        g_signal_handlers_disconnect_by_data(win->window, win);
        gtk_widget_destroy(win->window);
        free(win);
        return NULL;
    }
    gtk_widget_show_all(win->window);
    return win;
}

int rtg_window_close(rtg_window *win)
{
    rtg_worker_stop(win->worker);
    if (!win->closed) {             /* gtk_main quit by someone else */
        g_signal_handlers_disconnect_by_data(win->window, win);
        gtk_widget_destroy(win->window);
    }
    int failed = win->failed;
    free(win);
    return failed;
}
