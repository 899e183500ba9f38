# app.mk: matrix multiplication: the C reference's OpenMP twin; CLBlast in
# the bench.
$(B)/apps/matmul/%.o: ALL_CFLAGS += $(OPENMP_FLAGS)
$(eval $(call app,matmul,$(OPENMP_FLAGS),common))
$(BIN)/bench-matmul: LDLIBS += -lclblast

# `make bench`: the table's square sizes and runs (GPU machine:
# 1024,2048,4096,8192 3).
MATMUL_BENCH ?= 256,512 3
BENCH_RUNS += matmul
BENCH_matmul = $(BIN)/bench-matmul $(MATMUL_BENCH)

# Its CUDA twins (apps/matmul/cuda, bench/cuda/cuda.mk; CLBlast against
# cuBLAS) with the GPU machine's arguments, and its host programs for
# counting lines of code.
CUDA_BENCH_matmul ?= 1000,2000,2048,4000,4096,8000,8192,10000 3
$(eval $(call cuda_bench,matmul,apps/matmul/cuda,$(APP_LIBS_matmul),$$(APP_LDLIBS_matmul) -lclblast))
$(eval $(call effort_programs,matmul,apps/matmul/cuda/effort,$(APP_LIBS_matmul),$$(APP_LDLIBS_matmul),$$(PNG_LIBS)))
