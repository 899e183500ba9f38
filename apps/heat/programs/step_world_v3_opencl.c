/* step_world_v3_opencl: the heat world stepper, version HEAT_V3_NAIVE (see apps/heat/heat.h). */
#include "heat/heat.h"

int main(int argc, char **argv)
{
    return heat_step_main(argc, argv, HEAT_V3_NAIVE);
}
