/*
 * worker.c: the render thread of bin/raytracer-gtk, and why the window
 * never lags behind the mouse (the seed's problem: every event queued a
 * frame, and a slow device fell further and further behind).
 *
 * The main thread only ever writes the latest requested state (view, light,
 * size) into `latest` under a mutex and bumps `generation`; it never waits
 * for OpenCL. The worker, whenever it is idle and the generation moved on,
 * copies the latest state and renders it. Requests that arrive while a frame
 * renders overwrite one another, so however many events came, the next frame
 * is one frame of the newest state: input is coalesced, never queued.
 *
 * Frames are rendered straight into the pixels of a cairo image surface
 * (the kernel writes B, G, R, A bytes: cairo's RGB24 on a little-endian
 * host), so the only copy per frame is the device's read into the memory
 * the window paints from; that memory is pinned (clframe_host_alloc), so
 * the read runs at the bus's speed. Two surfaces take turns: the worker renders into
 * one while the window shows the other; a finished frame is handed to the
 * main thread by an idle callback, which makes it the front surface and
 * gives the old front back. The worker starts no frame while a finished
 * one waits to be shown, so at most one frame is in flight and none is
 * rendered only to be dropped.
 */
#include "gui.h"
#include "common/error.h"
#include "clframe.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

struct rtg_worker {
    GThread *thread;
    rt_renderer *renderer;
    unsigned delay_ms;
    rtg_frame_fn on_frame;
    void *user;

    GMutex lock;
    GCond wake;
    /* Under lock. */
    rtg_state latest;             /* the newest request */
    uint64_t generation;          /* bumped by every request */
    int quit;
    cairo_surface_t *ready;       /* finished, waiting for the main thread */
    rtg_frame_info ready_info;
    char *error;                  /* set once rendering failed; then idle */
    int error_told;               /* the main thread has been told */
    cairo_surface_t *spare;       /* the old front, for the next frame */

    /* The worker thread's own. */
    uint64_t rendered_generation;
    uint64_t frames;
    float applied_light[3];
    int light_applied;
    uint8_t *scratch;             /* only if a surface's rows are padded */

    /* The main thread's own. */
    cairo_surface_t *front;
};

/* Frees a surface's pinned pixels with the surface (cairo user data). */
static const cairo_user_data_key_t pinned_key;

static void free_pinned(void *pixels)
{
    clframe_host_free(pixels);
}

/* A width x height surface over pinned memory of ctx; a plain one where
 * there is none to be had. NULL if cairo could not make either. */
static cairo_surface_t *new_surface(clctx *ctx, uint32_t width,
                                    uint32_t height)
{
    int stride = cairo_format_stride_for_width(CAIRO_FORMAT_RGB24,
                                               (int)width);
    void *pixels = stride > 0 ? clframe_host_alloc(ctx, (size_t)stride *
                                                   height) : NULL;
    cairo_surface_t *s = NULL;
    if (pixels) {
        s = cairo_image_surface_create_for_data(pixels, CAIRO_FORMAT_RGB24,
                                                (int)width, (int)height,
                                                stride);
        if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS ||
            cairo_surface_set_user_data(s, &pinned_key, pixels, free_pinned)
                != CAIRO_STATUS_SUCCESS) {
            cairo_surface_destroy(s);
            clframe_host_free(pixels);
            s = NULL;
        }
    }
    if (!s)
        s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)width,
                                       (int)height);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(s);
        return NULL;
    }
    return s;
}

/* A surface of exactly width x height for the next frame: the spare one
 * if it fits, else a new one. NULL if cairo could not make one. */
static cairo_surface_t *surface_for(rtg_worker *w, cairo_surface_t *spare,
                                    uint32_t width, uint32_t height)
{
    if (spare && (uint32_t)cairo_image_surface_get_width(spare) == width &&
        (uint32_t)cairo_image_surface_get_height(spare) == height)
        return spare;
    if (spare)
        cairo_surface_destroy(spare);
    return new_surface(rt_renderer_ctx(w->renderer), width, height);
}

/* Moves light 0 on the device if the state asks for another position;
 * done here because it touches the device. 0 or a negative code. */
static int apply_light(rtg_worker *w, const rtg_state *s)
{
    if (!s->has_light || (w->light_applied &&
                          memcmp(w->applied_light, s->light,
                                 sizeof s->light) == 0))
        return 0;
    int rc = rt_renderer_move_light(w->renderer, 0, s->light);
    if (rc == 0) {
        memcpy(w->applied_light, s->light, sizeof s->light);
        w->light_applied = 1;
    }
    return rc;
}

/* Renders s into surface. The kernel writes rows of exactly 4 * width
 * bytes; cairo's RGB24 rows are that long too (its stride is a multiple of
 * 4 bytes), but should a cairo ever pad them, the frame goes through a
 * scratch buffer and is copied row by row. 0 or a negative code. */
static int render_into(rtg_worker *w, const rtg_state *s,
                       cairo_surface_t *surface)
{
    size_t row = 4 * (size_t)s->width;
    int stride = cairo_image_surface_get_stride(surface);
    uint8_t *data = cairo_image_surface_get_data(surface);
    int rc;
    if ((size_t)stride == row) {
        rc = rt_renderer_render(w->renderer, &s->view, s->width, s->height,
                                RT_PIXELS_BGRA, data);
    } else {
        uint8_t *scratch = realloc(w->scratch, row * s->height);
        if (!scratch)
            return app_fail(APP_ERR_NO_MEMORY, "no memory for a "
                            "%ux%u frame", s->width, s->height);
        w->scratch = scratch;
        rc = rt_renderer_render(w->renderer, &s->view, s->width, s->height,
                                RT_PIXELS_BGRA, scratch);
        for (uint32_t y = 0; rc == 0 && y < s->height; y++)
            memcpy(data + (size_t)y * (size_t)stride, scratch + y * row, row);
    }
    return rc;
}

/* One frame of state s into *surface (replaced if its size differs).
 * Returns NULL on success, else the error message (caller frees). */
static char *render_frame(rtg_worker *w, const rtg_state *s,
                          cairo_surface_t **surface, double *ms)
{
    gint64 start = g_get_monotonic_time();
    if (w->delay_ms)
        g_usleep((gulong)w->delay_ms * 1000);
    *surface = surface_for(w, *surface, s->width, s->height);
    if (!*surface)
        return g_strdup_printf("cairo cannot make a %ux%u surface",
                               s->width, s->height);
    if (apply_light(w, s) != 0 || render_into(w, s, *surface) != 0)
        return g_strdup(app_last_error());  /* this thread's message */
    *ms = (double)(g_get_monotonic_time() - start) / 1000.0;
    return NULL;
}

/* The main thread's side of a hand-over: the finished frame becomes the
 * front surface and the old front goes back to the worker, which may now
 * start its next frame. Cairo's bookkeeping of the pixels (a new frame is
 * marked dirty, the old front is flushed, which drops whatever the X
 * backend cached of it) happens here, on the thread that paints, so the
 * worker only ever writes plain memory. */
static gboolean present(gpointer data)
{
    rtg_worker *w = data;
    g_mutex_lock(&w->lock);
    cairo_surface_t *frame = w->ready;
    rtg_frame_info info = w->ready_info;
    int tell_error = w->error && !w->error_told;
    w->error_told |= tell_error;
    if (frame) {
        cairo_surface_mark_dirty(frame);
        if (w->front)
            cairo_surface_flush(w->front);
        w->ready = NULL;
        w->spare = w->front;
        w->front = frame;
    }
    g_cond_signal(&w->wake);
    g_mutex_unlock(&w->lock);
    if (frame)
        w->on_frame(w->user, &info);
    if (tell_error) {
        info = (rtg_frame_info){.error = w->error};   /* never changes now */
        w->on_frame(w->user, &info);
    }
    return G_SOURCE_REMOVE;
}

/* Waits until there is something new to render (or quit) and takes the
 * latest state and the spare surface. 0 when told to quit. */
static int wait_for_work(rtg_worker *w, rtg_state *s, uint64_t *generation,
                         cairo_surface_t **surface)
{
    g_mutex_lock(&w->lock);
    while (!w->quit && (w->ready || w->error ||
                        w->generation == w->rendered_generation))
        g_cond_wait(&w->wake, &w->lock);
    int go = !w->quit;
    if (go) {
        *s = w->latest;
        *generation = w->generation;
        *surface = w->spare;
        w->spare = NULL;
    }
    g_mutex_unlock(&w->lock);
    return go;
}

static gpointer worker_main(gpointer data)
{
    rtg_worker *w = data;
    rtg_state s;
    uint64_t generation;
    cairo_surface_t *surface;
    while (wait_for_work(w, &s, &generation, &surface)) {
        double ms = 0;
        char *error = render_frame(w, &s, &surface, &ms);
        g_mutex_lock(&w->lock);
        w->rendered_generation = generation;
        if (error) {
            w->error = error;
            w->spare = surface;
        } else {
            w->ready = surface;
            w->ready_info = (rtg_frame_info){.number = ++w->frames,
                .generation = generation, .ms = ms, .state = s};
        }
        g_mutex_unlock(&w->lock);
        g_idle_add_full(G_PRIORITY_HIGH_IDLE, present, w, NULL);
    }
    return NULL;
}

rtg_worker *rtg_worker_start(rt_renderer *r, const rtg_state *state,
                             unsigned delay_ms, rtg_frame_fn on_frame,
                             void *user)
{
    rtg_worker *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->renderer = r;
    w->delay_ms = delay_ms;
    w->on_frame = on_frame;
    w->user = user;
    w->latest = *state;
    w->generation = 1;              /* rendered_generation 0: a first frame */
    g_mutex_init(&w->lock);
    g_cond_init(&w->wake);
    GError *err = NULL;
    w->thread = g_thread_try_new("raytracer-render", worker_main, w, &err);
    if (!w->thread) {
        g_printerr("raytracer-gtk: cannot start the render thread: %s\n",
                   err->message);
        g_error_free(err);
        g_mutex_clear(&w->lock);
        g_cond_clear(&w->wake);
        free(w);
        return NULL;
    }
    return w;
}

uint64_t rtg_worker_request(rtg_worker *w, const rtg_state *state)
{
    g_mutex_lock(&w->lock);
    w->latest = *state;
    uint64_t generation = ++w->generation;
    g_cond_signal(&w->wake);
    g_mutex_unlock(&w->lock);
    return generation;
}

cairo_surface_t *rtg_worker_front(rtg_worker *w)
{
    return w->front;
}

void rtg_worker_stop(rtg_worker *w)
{
    if (!w)
        return;
    g_mutex_lock(&w->lock);
    w->quit = 1;
    g_cond_signal(&w->wake);
    g_mutex_unlock(&w->lock);
    g_thread_join(w->thread);
    /* A hand-over the main loop has not run yet would use w after free. */
    while (g_idle_remove_by_data(w))
        ;
    cairo_surface_t *surfaces[] = {w->ready, w->spare, w->front};
    for (size_t i = 0; i < sizeof surfaces / sizeof *surfaces; i++)
        if (surfaces[i])
            cairo_surface_destroy(surfaces[i]);
    g_free(w->error);
    free(w->scratch);
    g_mutex_clear(&w->lock);
    g_cond_clear(&w->wake);
    free(w);
}
