/*
 * internal.h: the library's internals for its own tests, benchmarks and
 * fuzzing harnesses, which look inside both layers: the core
 * (core/core.h) and the source tools above it (source/source.h). The
 * library's files include their own layer's header instead.
 */
#ifndef CLFRAME_INTERNAL_H
#define CLFRAME_INTERNAL_H

#include "source/source.h"

#endif /* CLFRAME_INTERNAL_H */
