/*
 * version.c: the library's version as it was built, from clframe.h's
 * CLFRAME_VERSION_* macros, so that a program can tell the library it runs
 * with from the header it was compiled against.
 */
#include "core.h"

const char *clframe_version(void)
{
    return CLFRAME_VERSION_STRING;
}
