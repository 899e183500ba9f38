/* step_world_v5_packed_properties: the heat world stepper, version HEAT_V5_PACKED (see apps/heat/heat.h). */
#include "heat/heat.h"

int main(int argc, char **argv)
{
    return heat_step_main(argc, argv, HEAT_V5_PACKED);
}
