/* step_world_v4_double_buffered: the heat world stepper, version HEAT_V4_DOUBLE_BUFFERED (see apps/heat/heat.h). */
#include "heat/heat.h"

int main(int argc, char **argv)
{
    return heat_step_main(argc, argv, HEAT_V4_DOUBLE_BUFFERED);
}
