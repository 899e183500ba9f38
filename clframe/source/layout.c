/*
 * layout.c: checking that a struct shared by host and device has the same
 * layout on both sides.
 *
 * The host compiler knows the host's sizeof and offsetof; only the device's
 * compiler knows its own. So the check builds a tiny probe kernel that
 * includes the user's header and writes sizeof(T) and each field's offset
 * into a buffer, runs it once, and compares. A mismatch is an error that
 * names every field that moved, before any kernel reads a garbled struct.
 */
#include "source.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define PROBE_NAME "clframe_layout_probe"

/* Type names are C words with single spaces ("Board", "struct Board"). They
 * and the field names are pasted into source, so only names are accepted. */
static int is_type_name(const char *s)
{
    if (!*s || *s == ' ')
        return 0;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_' ||
              (*s == ' ' && s[1] && s[1] != ' ')))
            return 0;
    return 1;
}

/* Field designators as offsetof takes them: "w", "pos.x", "cells[3]". */
static int is_field_name(const char *s)
{
    if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
        return 0;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || strchr("_.[]", *s)))
            return 0;
    return 1;
}

static int check_names(const char *include, const char *type,
                       const clframe_field *fields, unsigned nfields)
{
    if (include && (!*include || strpbrk(include, "\"\n")))
        return clframe_fail(CLFRAME_ERR_USAGE, "clframe_check_layout: \"%s\" is "
                        "not a header path", include);
    if (!type || !is_type_name(type))
        return clframe_fail(CLFRAME_ERR_USAGE, "clframe_check_layout: \"%s\" is "
                        "not a type name", type ? type : "(null)");
    if (nfields && !fields)
        return clframe_fail(CLFRAME_ERR_USAGE, "clframe_check_layout(%s): %u "
                        "fields but no field table", type, nfields);
    for (unsigned i = 0; i < nfields; i++)
        if (!is_field_name(fields[i].name))
            return clframe_fail(CLFRAME_ERR_USAGE, "clframe_check_layout(%s): "
                            "field %u, \"%s\", is not a member name", type,
                            i + 1, fields[i].name ? fields[i].name : "(null)");
    return 0;
}

/* The probe: out[0] = sizeof(T), out[1 + i] = offset of field i. Offsets
 * are address differences inside a T the pointer merely points at (nothing
 * is read), which is plain OpenCL C 1.2 on every compiler. */
static char *probe_source(const char *include, const char *type,
                          const clframe_field *fields, unsigned nfields)
{
    clf_str s = {0};
    if (include)
        clf_str_printf(&s, "#include \"%s\"\n", include);
    clf_str_printf(&s, "__kernel void " PROBE_NAME "(__global ulong *out)\n"
                   "{\n"
                   "    __global %s *t = (__global %s *)out;\n"
                   "    __global char *base = (__global char *)t;\n"
                   "    out[0] = sizeof(%s);\n", type, type, type);
    for (unsigned i = 0; i < nfields; i++)
        clf_str_printf(&s, "    out[%u] = (ulong)((__global char *)&t->%s - "
                       "base);\n", i + 1, fields[i].name);
    clf_str_printf(&s, "}\n");
    if (s.failed) {
        free(s.data);
        return NULL;
    }
    return s.data;
}

/* Runs the probe on ctx; out gets 1 + nfields values. */
static int run_probe(clctx *ctx, const char *include, const char *type,
                     const clframe_field *fields, unsigned nfields,
                     cl_ulong *out)
{
    char *source = probe_source(include, type, fields, nfields);
    if (!source)
        return clframe_fail(CLFRAME_ERR_NO_MEMORY, "clframe_check_layout(%s)",
                        type);
    char *expanded = clf_source_expand(source, "clframe's layout probe",
                                       NULL);
    free(source);
    int rc = expanded ? clf_probe(ctx, expanded, "clframe's layout probe",
                                  PROBE_NAME, NULL, &clf_source_build, out,
                                  (size_t)nfields + 1)
                      : CLFRAME_ERR_NOT_FOUND;
    free(expanded);
    if (rc == CLFRAME_ERR_BUILD || rc == CLFRAME_ERR_NOT_FOUND) {
        /* Keep the build log, but say first what was being built. */
        char *log = clf_strdup(clframe_last_error());
        rc = clframe_fail(CLFRAME_ERR_BUILD, "checking the layout of %s%s%s: "
                          "the probe that reports its device layout does not "
                          "compile (is %s declared there, and is every field "
                          "a member of it?): %s", type,
                          include ? " from " : "", include ? include : "",
                          type, log ? log : "");
        free(log);
    }
    return rc;
}

/* The message for a layout that differs: sizes, then each moved field. */
static int report(clctx *ctx, const char *type, size_t host_size,
                  const clframe_field *fields, unsigned nfields,
                  const cl_ulong *device)
{
    clf_str s = {0};
    clf_str_printf(&s, "layout of %s differs between the host and %s: "
                   "sizeof %zu on the host, %llu on the device", type,
                   ctx->device_name, host_size,
                   (unsigned long long)device[0]);
    for (unsigned i = 0; i < nfields; i++)
        if (fields[i].offset != device[i + 1])
            clf_str_printf(&s, "; field %s at offset %zu on the host, %llu "
                           "on the device", fields[i].name, fields[i].offset,
                           (unsigned long long)device[i + 1]);
    clf_str_printf(&s, " (write the struct once with the CLF_ types of "
                   "clframe/shared.h, a CLF_FLOAT3 for a float3, and pad it "
                   "explicitly: see docs/sharing.md)");
    int rc = clframe_fail(CLFRAME_ERR_ARG_TYPE, "%s",
                      s.failed ? "layout differs between host and device"
                               : s.data);
    free(s.data);
    return rc;
}

int clframe_check_layout(clctx *ctx, const char *include, const char *type,
                         size_t host_size, const clframe_field *fields,
                         unsigned nfields)
{
    int rc = check_names(include, type, fields, nfields);
    if (rc)
        return rc;
    if (!(ctx = clf_ctx(ctx)))
        return CLFRAME_ERR_NO_DEVICE;
    cl_ulong *device = calloc((size_t)nfields + 1, sizeof *device);
    if (!device)
        return clframe_fail(CLFRAME_ERR_NO_MEMORY, "clframe_check_layout(%s)",
                        type);
    rc = run_probe(ctx, include, type, fields, nfields, device);
    int same = device[0] == host_size;
    for (unsigned i = 0; same && i < nfields; i++)
        same = device[i + 1] == fields[i].offset;
    if (!rc && !same)
        rc = report(ctx, type, host_size, fields, nfields, device);
    free(device);
    return rc;
}
