# app.mk: the blur. Its versions are compared with its reference byte for
# byte (all integer arithmetic); the reference's OpenMP twin.
$(B)/apps/blur/%.o: ALL_CFLAGS += $(OPENMP_FLAGS)
$(eval $(call app,blur,$(OPENMP_FLAGS),common))

# `make bench`: the table's image sizes, passes, runs and the largest image
# (in pixels) the C versions run on (GPU machine: 512x512,1920x1080,
# 3840x2160,7680x4320 100 5 2073600; above the cap the device versions are
# checked against double).
BLUR_BENCH ?= 512x512,1024x1024 20 3 1048576
BENCH_RUNS += blur
BENCH_blur = $(BIN)/bench-blur $(BLUR_BENCH)

# Its CUDA twins (apps/blur/cuda, bench/cuda/cuda.mk) with the GPU
# machine's arguments, and its host programs for counting lines of code.
CUDA_BENCH_blur ?= 512x512,1920x1080,3840x2160,7680x4320 100 5 2073600
$(eval $(call cuda_bench,blur,apps/blur/cuda,$(APP_LIBS_blur),$$(APP_LDLIBS_blur)))
$(eval $(call effort_programs,blur,apps/blur/cuda/effort,$(APP_LIBS_blur),$$(APP_LDLIBS_blur),$$(PNG_LIBS)))
