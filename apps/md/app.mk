# app.mk: molecular dynamics: the host cell list runs on OpenMP.
$(B)/apps/md/%.o: ALL_CFLAGS += $(OPENMP_FLAGS)
$(eval $(call app,md,$(OPENMP_FLAGS),common))
# Its Oclgrind run is among the longest: it starts first.
LONGEST_CHECKS += oclgrind-test-md

# `make bench`: particle counts, steps, runs, and the caps on the host
# all-pairs reference, the host cell list and the device's all pairs (GPU
# machine: 1000,4000,16000,64000,256000,1000000,4000000 100 3 4000 1000000
# 64000).
MD_BENCH ?= 1000,4000,16000 10 3 2000 16000 16000
BENCH_RUNS += md
BENCH_md = $(BIN)/bench-md $(MD_BENCH)

# Its CUDA twins (apps/md/cuda, bench/cuda/cuda.mk) with the GPU machine's
# arguments, and its host programs for counting lines of code. They divide
# as OpenCL does: within 2.5 ulp, not exactly.
CUDA_FLAGS_md := -prec-div=false
CUDA_BENCH_md ?= 1000,4000,16000,64000,256000,1000000,4000000 100 3 4000
$(eval $(call cuda_bench,md,apps/md/cuda,$(APP_LIBS_md),$$(APP_LDLIBS_md)))
$(eval $(call effort_programs,md,apps/md/cuda/effort,$(APP_LIBS_md),$$(APP_LDLIBS_md),$$(PNG_LIBS)))
