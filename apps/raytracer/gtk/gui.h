/*
 * gui.h: the parts of bin/raytracer-gtk and how they meet. options.c reads
 * the command line; worker.c renders frames on a thread of its own from
 * the latest requested state; window.c is the GTK window, which turns
 * input into new requested states and shows the frames the worker hands
 * back; main.c ties them together. Only main.c and window.c run on GTK's
 * main thread; the renderer is used only by the worker thread once it runs.
 */
#ifndef RAYTRACER_GTK_GUI_H
#define RAYTRACER_GTK_GUI_H

#include "raytracer/raytracer.h"

#include <cairo.h>
#include <stdint.h>

/* ---- options (options.c) ---------------------------------------------------- */

typedef struct rtg_options {
    const char *scene_path;       /* NULL with --generate */
    uint32_t generate;            /* spheres of the generated scene, or 0 */
    uint32_t width, height;       /* --size: the image's first size */
    rt_method method;
    int trace;                    /* --trace: layout, inputs, frames to stdout */
    uint64_t quit_after_frames;   /* --quit-after-frames, 0: never */
    unsigned frame_delay_ms;      /* --frame-delay-ms: a slow device, for tests */
} rtg_options;

extern const char rtg_usage[];

/* 0, or -1 with a message in err (usage errors); 1 for --help. */
int rtg_options_parse(int argc, char **argv, rtg_options *opts, char *err,
                      size_t err_size);

/* ---- the render worker (worker.c) ------------------------------------------- */

/* Everything a frame depends on that the user can change. */
typedef struct rtg_state {
    rt_view view;
    float light[3];               /* light 0's position (if has_light) */
    int has_light;
    uint32_t width, height;       /* the image in pixels */
} rtg_state;

/* What the main thread learns about a frame it is shown. */
typedef struct rtg_frame_info {
    uint64_t number;              /* 1, 2, ... */
    uint64_t generation;          /* of the state it was rendered from */
    double ms;                    /* wall time of the frame in the worker */
    rtg_state state;              /* the state it was rendered from */
    const char *error;            /* non-NULL: rendering failed, no frame */
} rtg_frame_info;

/* Called on the main thread after each new frame became the front surface
 * (or once with info->error set, after which no more frames come). */
typedef void (*rtg_frame_fn)(void *user, const rtg_frame_info *info);

typedef struct rtg_worker rtg_worker;

/* Starts the thread; it renders a first frame from state at once. The
 * worker uses r from its thread until rtg_worker_stop, and never frees it.
 * delay_ms is slept before each frame (a test hook). NULL on error. */
rtg_worker *rtg_worker_start(rt_renderer *r, const rtg_state *state,
                             unsigned delay_ms, rtg_frame_fn on_frame,
                             void *user);

/* Makes state the latest requested one and wakes the worker; returns the
 * request's generation (1 is the first state). Never blocks on OpenCL:
 * only a mutex held for a copy. Main thread only. */
uint64_t rtg_worker_request(rtg_worker *w, const rtg_state *state);

/* The most recent frame (NULL before the first); it stays valid and
 * unchanged until the next on_frame. Main thread only. */
cairo_surface_t *rtg_worker_front(rtg_worker *w);

/* Tells the thread to stop, waits for the frame it may be rendering, joins
 * it and frees the surfaces and pending hand-overs. Main thread only. */
void rtg_worker_stop(rtg_worker *w);

/* ---- the window (window.c) --------------------------------------------------- */

typedef struct rtg_window rtg_window;

/* Builds and shows the window for scene (title from name) and starts the
 * worker on r. gtk_main() then runs it; closing it quits gtk_main. NULL
 * on error (message on stderr). */
rtg_window *rtg_window_open(const rt_scene *scene, const char *name,
                            rt_renderer *r, const rtg_options *opts);

/* Stops the worker and frees what the window holds (after gtk_main). 0 if
 * every frame rendered, 1 if rendering failed. */
int rtg_window_close(rtg_window *win);

#endif /* RAYTRACER_GTK_GUI_H */
