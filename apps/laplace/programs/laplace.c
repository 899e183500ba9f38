/*
 * laplace.c (bin/laplace): the potential around a conductor in a box by
 * Jacobi iteration, written as raw floats and/or a colour-mapped PNG. Run
 * with --help for the options (cli.c).
 */
#include "laplace/laplace.h"
#include "common/program.h"

static char usage[2048];
static const app_program program = {"laplace", usage, &laplace_versions};

int main(int argc, char **argv)
{
    laplace_options o;
    laplace_usage_for(usage, sizeof usage, "laplace");
    int status = app_start(&program,
                           laplace_parse_options(&program, argc, argv, &o));
    if (status >= 0)
        return status;
    laplace_grid g = {0};
    status = laplace_make_grid(&program, &o, &g);
    if (status == 1)
        return app_failed(&program);
    if (status)
        return status;
    if (o.version < 0)
        o.version = app_version_default(&laplace_versions, NULL);
    laplace_stats stats = {0};
    int rc = laplace_solve(&g, &o.plan, o.version, NULL, &stats);
    if (rc == 0)
        rc = laplace_write_outputs(&o, &g);
    if (rc == 0)
        laplace_report("laplace", &o, &g, &stats);
    laplace_grid_free(&g);
    return rc ? app_failed(&program) : 0;
}
