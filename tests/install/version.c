/*
 * version.c: prints the installed header's CLFRAME_VERSION_STRING and the
 * installed library's clframe_version(), one a line, for
 * tests/install/check to compare with clframe.pc, clframe-info --version,
 * the SONAME and CHANGELOG.md.
 */
#include <clframe.h>
#include <stdio.h>

int main(void)
{
    printf("%s\n%s\n", CLFRAME_VERSION_STRING, clframe_version());
    return 0;
}
