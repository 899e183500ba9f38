/* step_world_openmp: the heat world stepper, version HEAT_OPENMP (see apps/heat/heat.h). */
#include "heat/heat.h"

int main(int argc, char **argv)
{
    return heat_step_main(argc, argv, HEAT_OPENMP);
}
