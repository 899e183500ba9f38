/* step_world: the heat world stepper, version HEAT_REFERENCE (see apps/heat/heat.h). */
#include "heat/heat.h"

int main(int argc, char **argv)
{
    return heat_step_main(argc, argv, HEAT_REFERENCE);
}
