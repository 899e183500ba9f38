/*
 * demo.h: what the demo table (programs/clframe-demo.c) and its workloads
 * (demo_*.c) share.
 *
 * A workload is one function that fills a demo_result: it makes its input,
 * runs its kernel through clframe, computes the same thing in plain C and
 * compares the two. Adding a row to the table is writing one such function
 * and naming it in programs/clframe-demo.c.
 */
#ifndef DEMO_H
#define DEMO_H

#include <stddef.h>
#include <stdint.h>

/* The input a workload runs on: the demo's small one, or the larger one of
 * the benchmark table of defaults (bench/defaults.c). */
typedef enum demo_scale { DEMO_SMALL, DEMO_BENCH } demo_scale;

typedef struct demo_result {
    char version[16];       /* the version run, shown after the app's name:
                               its default on this device ("v4", "item") */
    char size[32];          /* "1000003", "1000 x 777" */
    int ok;                 /* the kernel's output matched the reference */
    char verdict[160];      /* "ok" or "MISMATCH at i: got x want y" */
    char *error;            /* clframe's message if the run failed; malloc'd */
    double kernel_ms;       /* clkernel_last_ms of the timed call; < 0:
                               none (several kernels and host work) */
    double call_ms;         /* host wall time of the timed clkernel_call */
    double ref_ms;          /* the C reference */
    double omp_ms;          /* the app's OpenMP version; < 0: it has none */
    char note[256];         /* printed under the table: "drew x.png" */
} demo_result;

/* Runs one workload on the input of `scale`; 0, or a negative code with
 * r->error set. Only the demo's small runs draw their pictures. */
typedef int (*demo_run_fn)(demo_result *r, demo_scale scale);

int demo_vadd(demo_result *r, demo_scale scale);
int demo_blur(demo_result *r, demo_scale scale);
int demo_heat(demo_result *r, demo_scale scale);
int demo_raytracer(demo_result *r, demo_scale scale);
int demo_matmul(demo_result *r, demo_scale scale);
int demo_laplace(demo_result *r, demo_scale scale);
int demo_kalah(demo_result *r, demo_scale scale);
int demo_societies(demo_result *r, demo_scale scale);
int demo_md(demo_result *r, demo_scale scale);

/* The workloads in the demo's order, each with its app's name (bench:
 * whether the benchmark table runs it too: the apps, not vadd). */
typedef struct demo_workload {
    const char *name;
    demo_run_fn run;
    int bench;
} demo_workload;
enum { DEMO_WORKLOADS = 9 };
extern const demo_workload demo_workloads[DEMO_WORKLOADS];

/* ---- helpers (demo_util.c) ----------------------------------------------- */

/* Calls the kernel twice and keeps the second call's times: the first one
 * pays for one-time work (a CPU driver compiles for the work-group size at
 * the first launch). Outputs are poisoned before the timed call so that a
 * kernel which writes nothing cannot pass. */
enum { DEMO_CALLS = 2 };

double demo_now_ms(void);

/* n deterministic pseudo-random floats in [0, 1), the same for a seed on
 * every machine. */
void demo_fill_random(float *p, size_t n, uint32_t seed);

/* Fills p with NaN, which no correct kernel leaves behind. */
void demo_poison(float *p, size_t n);

/* Compares got with want, each element within rel_tol of want relative to
 * |want| (0: exactly), and sets r->ok and r->verdict. */
void demo_compare(demo_result *r, const float *got, const float *want,
                  size_t n, double rel_tol);

/* The same for bytes, which must be equal. */
void demo_compare_bytes(demo_result *r, const uint8_t *got,
                        const uint8_t *want, size_t n);

/* Version v of table t, its name put in r->version; and the app's
 * default version on the default device (app_version_default), named. */
typedef struct app_versions app_versions;
int demo_name_version(demo_result *r, const app_versions *t, int v);
int demo_version(demo_result *r, const app_versions *t);

/* The pictures' folder, build/demo (made if missing). */
#define DEMO_PICTURES "build/demo"
void demo_picture_folder(void);

/* r's note after a picture's saver returned rc: `said` (which names the
 * file) when it is 0, else "APP: no picture: " and the error. */
void demo_picture_note(demo_result *r, int rc, const char *app,
                       const char *said);

/* Records "what: app_last_error()" as r->error and returns code (-1 if
 * 0), for `return demo_fail(r, rc, "...")` after a clframe call failed. */
int demo_fail(demo_result *r, int code, const char *what);

/* The same for a failure outside clframe (out of host memory): clframe's
 * last message may be left over from an earlier error, so it is not used. */
int demo_fail_host(demo_result *r, const char *what);

#endif /* DEMO_H */
