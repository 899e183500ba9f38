/*
 * main.c: bin/test-mpi, the suites of apps/mpi, run by tests/ranks under
 * mpirun with 1, 2 and 3 ranks. Every rank runs every test; a test makes
 * all its collective calls before it asserts, so that a failure on one
 * rank cannot leave the others waiting.
 */
#include "common/tests/testing.h"

#include <mpi.h>

Suite *heat_mpi_suite(void);
Suite *laplace_mpi_suite(void);

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int status = test_main((Suite *(*const[])(void)){
        heat_mpi_suite, laplace_mpi_suite, NULL});
    MPI_Finalize();
    return status;
}
