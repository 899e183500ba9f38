/*
 * versions.h: an app's versions in one table (its reference, its OpenMP
 * twin, its OpenCL versions), from which the app looks a version up by
 * name, its programs list them in their usage and messages, both know
 * which versions run on a device, and which one to run by default there.
 */
#ifndef APPS_VERSIONS_H
#define APPS_VERSIONS_H

#include <stddef.h>

typedef struct app_version {
    const char *name;           /* "reference", "fast", "v6" */
    const char *alias;          /* another name it answers to, or NULL */
    int uses_opencl;            /* it runs on a device */
} app_version;

/* The versions of one app, indexed by its enum, and the one its programs
 * run unless told otherwise (-1: none): `preferred` on a GPU,
 * `preferred_cpu` on any other device. The rule comes from measurements
 * (bench/RESULTS.md, "Defaults per device"): versions that share tiles in
 * local memory and meet at work-group barriers win on a GPU, whose local
 * memory is on chip, and lose to plain C on a CPU device, which runs a
 * work-group's work-items one after another between barriers and keeps
 * local memory in ordinary memory; there, versions without barriers win. */
typedef struct app_versions {
    const app_version *list;
    int count;
    int preferred;
    int preferred_cpu;
} app_versions;

/* The version called text (by name or alias); -1 for none (or NULL). */
int app_version_parse(const app_versions *t, const char *text);
/* Its name; "unknown" for a number that is not a version. */
const char *app_version_name(const app_versions *t, int v);
/* 1 if it runs on a device, 0 if on the host or not a version. */
int app_version_uses_opencl(const app_versions *t, int v);

/* The version to run on ctx's device (NULL: clframe's default device):
 * preferred on a GPU, preferred_cpu on another device, or preferred where
 * no device opens (the caller's own call then reports that). In device.c:
 * it links clframe. */
typedef struct clctx clctx;
int app_version_default(const app_versions *t, clctx *ctx);

/* Marks in selected[] (t->count entries) the versions named in a
 * comma-separated list, every one without a list (NULL); 0, or -1 after a
 * message (app_fail) if a name is unknown or a field empty. In parse.c's
 * terms, for the benchmarks' "versions" arguments. */
int app_versions_select(const app_versions *t, const char *list,
                        int selected[]);

/* Every name, for a usage or a message: "reference, openmp, seed, double
 * or fast", with " (default)" after the preferred one if mark_default, or
 * " (default on a GPU)" and " (default on a CPU)" where the two differ.
 * Written into buf (size bytes, cut if too small); returns buf. */
const char *app_version_names(const app_versions *t, int mark_default,
                              char *buf, size_t size);

#endif /* APPS_VERSIONS_H */
