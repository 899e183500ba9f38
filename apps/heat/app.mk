# app.mk: the heat world. Its reference must not fuse a*b+c (clang does by
# default, and with -march=native GCC could too): its output is compared
# with the kernels' bit for bit.
$(B)/apps/heat/%.o: ALL_CFLAGS += $(OPENMP_FLAGS) $(PNG_CFLAGS) -ffp-contract=off
$(eval $(call app,heat,$(OPENMP_FLAGS),common))

# `make bench`: the table's world size, steps and runs (the GPU machine:
# 5000 1000 3).
HEAT_BENCH ?= 1000 100 5
BENCH_RUNS += heat
BENCH_heat = $(BIN)/bench-heat $(HEAT_BENCH)
