/* laplace_mpi: bin/laplace over MPI ranks, one device each (apps/mpi). */
#include "mpi/laplace_mpi.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int status = laplace_mpi_main(argc, argv);
    MPI_Finalize();
    return status;
}
