/* step_world_mpi: step_world over MPI ranks, one device each (apps/mpi). */
#include "mpi/heat_mpi.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int status = heat_step_mpi_main(argc, argv);
    MPI_Finalize();
    return status;
}
