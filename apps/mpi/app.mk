# app.mk: the heat world and the Laplace solver over MPI ranks. They need
# Open MPI (libopenmpi-dev, openmpi-bin); without mpicc they are skipped
# with a note. Their suites run under mpirun with 1, 2 and 3 ranks
# (apps/mpi/tests/ranks).
MPI_CFLAGS := $(shell mpicc --showme:compile 2>/dev/null)
MPI_LIBS   := $(shell mpicc --showme:link 2>/dev/null)
ifneq ($(MPI_LIBS),)
$(B)/apps/mpi/%.o: ALL_CFLAGS += $(MPI_CFLAGS)
$(eval $(call app,mpi,$(MPI_LIBS),heat laplace common))
TEST_RUNNER_mpi = apps/mpi/tests/ranks
# tests/ranks also gives bench-mpi bad arguments.
$(BIN)/test-mpi: | $(BIN)/bench-mpi
OCLGRIND_RANKS_mpi = --ranks 2
# Checked: under ASan and Oclgrind with 2 ranks (ASan without leak
# detection: Open MPI unloads its components at MPI_Finalize, so
# LeakSanitizer cannot tell their allocations from ours), and under
# valgrind as one rank, with Open MPI's suppressions.
ASAN_RUNNER_mpi = apps/mpi/tests/ranks --suites 2
ASAN_LEAKS_mpi = 0
VALGRIND_SUPP_mpi = --suppressions=/usr/share/openmpi/openmpi-valgrind.supp \
                    --suppressions=apps/mpi/tests/openmpi.supp

# `make bench`: the table's sizes, steps and runs, on MPI_BENCH_RANKS ranks
# (PoCL a thread each); a host with several GPUs: apps/mpi/bench/scaling
# (bench/RESULTS.md, MPI). mpirun hands the ranks
# OCL_ICD_FILENAMES cut at its first colon, so it is passed again whole.
MPI_BENCH ?= 1000 100 3
MPI_BENCH_RANKS ?= 2
BENCH_RUNS += mpi
BENCH_mpi = OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    POCL_MAX_PTHREAD_COUNT=1 mpirun -q --oversubscribe -n $(MPI_BENCH_RANKS) \
    $(if $(OCL_ICD_FILENAMES),env OCL_ICD_FILENAMES='$(OCL_ICD_FILENAMES)') \
    $(BIN)/bench-mpi $(MPI_BENCH)
else
$(info note: skipping apps/mpi: Open MPI is not installed (install libopenmpi-dev openmpi-bin))
endif
# Its files need MPI's headers: test-plain-c leaves them out.
PLAIN_C_SKIP += apps/mpi/%
