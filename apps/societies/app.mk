# app.mk: Societies: the reference's OpenMP twin.
$(B)/apps/societies/%.o: ALL_CFLAGS += $(OPENMP_FLAGS)
$(eval $(call app,societies,$(OPENMP_FLAGS),common))
# Its valgrind run is the longest of the apps': it starts first.
LONGEST_CHECKS += valgrind-test-societies

# `make bench`: agents, resources, days, runs, the reference's and
# OpenMP's caps on agents (GPU machine: 1000,10000,100000,1000000
# 16,64,256 3 3 2000 50000).
SOCIETIES_BENCH ?= 1000,10000 16,64 3 3 2000 20000
BENCH_RUNS += societies
BENCH_societies = $(BIN)/bench-societies $(SOCIETIES_BENCH)
