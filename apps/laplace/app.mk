# app.mk: the Laplace solver. Its reference is compared with its kernels
# bit for bit, so nothing may fuse a * b + c (nor nvcc in its CUDA twins).
$(B)/apps/laplace/%.o: ALL_CFLAGS += $(OPENMP_FLAGS) -ffp-contract=off
$(eval $(call app,laplace,$(OPENMP_FLAGS),common))

# `make bench`: the table's sizes, iterations and runs.
LAPLACE_BENCH ?= 200,1000 100 3
BENCH_RUNS += laplace
BENCH_laplace = $(BIN)/bench-laplace $(LAPLACE_BENCH)

# Its CUDA twins (apps/laplace/cuda, bench/cuda/cuda.mk) with the GPU
# machine's arguments, and its host programs for counting lines of code.
CUDA_FLAGS_laplace := -fmad=false
CUDA_BENCH_laplace ?= 200,1000,2000,4000,6000,8192 1000 5
$(eval $(call cuda_bench,laplace,apps/laplace/cuda,$(APP_LIBS_laplace),$$(APP_LDLIBS_laplace)))
$(eval $(call effort_programs,laplace,apps/laplace/cuda/effort,$(APP_LIBS_laplace),$$(APP_LDLIBS_laplace),$$(PNG_LIBS)))
