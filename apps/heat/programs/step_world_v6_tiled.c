/* step_world_v6_tiled: the heat world stepper, version HEAT_V6_TILED (see apps/heat/heat.h). */
#include "heat/heat.h"

int main(int argc, char **argv)
{
    return heat_step_main(argc, argv, HEAT_V6_TILED);
}
