/*
 * versions.h: an app's versions in one table (its reference, its OpenMP
 * twin, its OpenCL versions), from which the app looks a version up by
 * name, its programs list them in their usage and messages, and both know
 * which versions run on a device.
 */
#ifndef APPS_VERSIONS_H
#define APPS_VERSIONS_H

#include <stddef.h>

typedef struct app_version {
    const char *name;           /* "reference", "fast", "v6" */
    const char *alias;          /* another name it answers to, or NULL */
    int uses_opencl;            /* it runs on a device */
} app_version;

/* The versions of one app, indexed by its enum; `preferred` is the one its
 * programs run unless told otherwise (-1: none). */
typedef struct app_versions {
    const app_version *list;
    int count;
    int preferred;
} app_versions;

/* The version called text (by name or alias); -1 for none (or NULL). */
int app_version_parse(const app_versions *t, const char *text);
/* Its name; "unknown" for a number that is not a version. */
const char *app_version_name(const app_versions *t, int v);
/* 1 if it runs on a device, 0 if on the host or not a version. */
int app_version_uses_opencl(const app_versions *t, int v);

/* Every name, for a usage or a message: "reference, openmp, seed, double
 * or fast", with " (default)" after the preferred one if mark_default.
 * Written into buf (size bytes, cut if too small); returns buf. */
const char *app_version_names(const app_versions *t, int mark_default,
                              char *buf, size_t size);

#endif /* APPS_VERSIONS_H */
