# cuda.mk: the CUDA twins, included by the root Makefile before
# the apps' fragments. It finds nvcc, builds the library's own twin
# (bench/cuda/launch: an empty kernel and a build, clframe against CUDA)
# and gives the apps' fragments two calls for theirs:
#
#   $(call cuda_bench,NAME,FOLDER,LIBRARIES,LINK FLAGS): bin/bench-cuda-NAME
#       from FOLDER/NAME.c (the main, in C) and FOLDER/NAME.cu (the twins),
#       with bench/cuda/device.cu; run by `make bench-cuda` with the
#       arguments CUDA_BENCH_NAME, its .cu compiled with CUDA_FLAGS_NAME.
#   $(call effort_programs,NAME,FOLDER,LIBRARIES,LINK FLAGS,CUDA LINK FLAGS):
#       bin/effort-NAME-cuda, -opencl and -clframe from FOLDER/NAME_cuda.cu,
#       _opencl.c and _clframe.c, built by `make effort-build`
#       (bench/cuda/effort/count counts their lines).
#
# Built and run by `make bench-cuda` and `make effort-build` alone, where
# nvcc is found: never by make, make test or CI. H100 and H200 are both
# sm_90. The C files see bench/cuda's headers (device.h); the .cu files
# its CUDA helpers (cuda_check.h, launch_timer.cuh).
ifeq ($(origin NVCC),undefined)
NVCC := $(firstword $(shell command -v nvcc 2>/dev/null) $(wildcard /usr/local/cuda/bin/nvcc))
endif
CUDA_HOME = $(patsubst %/bin/nvcc,%,$(NVCC))
CUDA_ARCH ?= sm_90
NVCC_FLAGS ?= -O3 -arch=$(CUDA_ARCH) -std=c++17 -Xcompiler -fPIC \
              -Ibench/cuda -Iclframe -Iclframe/kernels
CUDA_LIBS = -L$(CUDA_HOME)/lib64 \
            -Wl,-rpath,$(CUDA_HOME)/lib64 -lcublas -lnvrtc -lcudart -lstdc++
CUDA_HELPERS := $(wildcard bench/cuda/*.h bench/cuda/*.cuh)
CUDA_BENCHES :=

$(B)/bench/cuda/device.cu.o: bench/cuda/device.cu $(CUDA_HELPERS)
	@mkdir -p $(@D)
	$(NVCC) $(NVCC_FLAGS) -c -o $@ $<

define cuda_bench
$(B)/$(2)/$(1).o: ALL_CFLAGS += -Ibench/cuda
$(B)/$(2)/$(1).cu.o: NVCC_FLAGS += $(CUDA_FLAGS_$(1))
$(B)/$(2)/$(1).cu.o: $(2)/$(1).cu $(wildcard $(2)/*.h $(2)/*.cuh) $(CUDA_HELPERS)
	@mkdir -p $$(@D)
	$$(NVCC) $$(NVCC_FLAGS) -c -o $$@ $$<
$(BIN)/bench-cuda-$(1): $(B)/$(2)/$(1).o $(B)/$(2)/$(1).cu.o \
    $(B)/bench/cuda/device.cu.o $(3) $(B)/libclframe.a
	@mkdir -p $$(@D)
	$$(CC) $$(ALL_CFLAGS) -o $$@ $$+ $(4) $$(CUDA_LIBS) $$(LDLIBS)
CUDA_BENCHES += $(1)
endef

# The library's twin: the empty kernel's and the builds' table runs with
# the driver's own cache of compiled kernels off. Its default kernel to
# build is the matmul app's (its arguments name another).
$(eval $(call cuda_bench,launch,bench/cuda))
CUDA_BENCH_launch ?= 1000 7

.PHONY: bench-cuda effort-build
bench-cuda:
ifeq ($(NVCC),)
	@echo "bench-cuda: nvcc not found (CUDA is needed for this comparison alone; NVCC=/path/to/nvcc): nothing built"
else
	@$(MAKE) --no-print-directory all $(addprefix $(BIN)/bench-cuda-,$(sort $(CUDA_BENCHES)))
	@mkdir -p bench/out
	$(foreach b,$(sort $(CUDA_BENCHES)),CUDA_CACHE_DISABLE=1 NVCC=$(NVCC) \
	    CLFRAME_DEVICE=$${CLFRAME_DEVICE:-gpu} $(BIN)/bench-cuda-$(b) $(CUDA_BENCH_$(b)) &&) true
endif

# Each workload's host program in CUDA, plain OpenCL and clframe, for
# counting lines of host code; each links its app's library for the input
# and the reference check. The CUDA one takes the flags of its twin's
# benchmark (CUDA_FLAGS_NAME) and CUDA LINK FLAGS (nvcc links it).
# $(call effort_programs,NAME,FOLDER,LIBRARIES,LINK FLAGS,CUDA LINK FLAGS)
define effort_programs
effort-build: $(BIN)/effort-$(1)-opencl $(BIN)/effort-$(1)-clframe \
    $(if $(NVCC),$(BIN)/effort-$(1)-cuda)
$(BIN)/effort-$(1)-opencl $(BIN)/effort-$(1)-clframe: $(BIN)/effort-$(1)-%: $(B)/$(2)/$(1)_%.o \
    $(3) $(B)/libclframe.a
	@mkdir -p $$(@D)
	$$(CC) $$(ALL_CFLAGS) -o $$@ $$+ $(4) $$(LDLIBS)
$(BIN)/effort-$(1)-cuda: $(2)/$(1)_cuda.cu $(wildcard $(2)/../*.cuh) \
    $(3) $(B)/libclframe.a
	@mkdir -p $$(@D)
	$$(NVCC) -O3 -arch=$$(CUDA_ARCH) $(CUDA_FLAGS_$(1)) -Iapps -Iclframe/kernels -o $$@ $$< \
	    $(3) $(B)/libclframe.a $(5) -lOpenCL -lm -lgomp -lpthread
endef
