/* step_world_v7_cpu_blocked: the heat world stepper, version HEAT_V7_BLOCKED (see apps/heat/heat.h). */
#include "heat/heat.h"

int main(int argc, char **argv)
{
    return heat_step_main(argc, argv, HEAT_V7_BLOCKED);
}
