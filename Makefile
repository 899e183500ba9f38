# clframe: one non-recursive GNU Make build.
#
#   make               the library (build/libclframe.a, .so) and every program (bin/)
#   make test          installs missing packages, builds, runs every Check suite,
#                      then again under AddressSanitizer+UBSan, Oclgrind, valgrind
#   make test-run      every suite once, without the checked runs
#   make test-gpu      every suite once on the GPU, a line each
#   make test-clframe  the library's own suites alone (builds no app)
#   make test-NAME     the suites of apps/NAME alone (test-heat, test-md, ...)
#   make demo          installs missing packages, builds, runs the demo table
#   make bench         benchmarks (set CLFRAME_DEVICE=gpu on the GPU machine)
#   make check-asan / check-oclgrind / check-valgrind
#                      one checked run of every suite
#   make install       PREFIX=/usr/local DESTDIR=  (the library alone)
#   make clean
#
# CC=clang works as well as gcc. Objects go to build/, programs to bin/.

CC      ?= cc
PREFIX  ?= /usr/local
DESTDIR ?=
B       ?= build
BIN     ?= bin

CFLAGS  ?= -O2 -g
ALL_CFLAGS = -std=c11 -Wall -Wextra -Werror -fPIC -pthread \
             -D_XOPEN_SOURCE=700 -DCL_TARGET_OPENCL_VERSION=120 \
             -Iclframe -Iclframe/kernels -Iapps -MMD -MP $(CFLAGS) $(EXTRA_CFLAGS)
LDLIBS  = -lOpenCL -lm -pthread

# `make test` and the checked runs run this many jobs at once.
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)

CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   := $(shell pkg-config --libs check 2>/dev/null)

.PHONY: all test test-run test-gpu demo demo-run bench bench-cuda effort-build install uninstall clean deps \
        check-asan check-valgrind check-oclgrind asan-run valgrind-run \
        oclgrind-run
.DEFAULT_GOAL := all

$(B)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(B)/gen/%.o: $(B)/gen/%.c
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# $(call embed,NAME,SYMBOL,ROOT,FOLDERS): $(B)/gen/NAME.o, the kernel sources
# under ROOT/FOLDERS compiled in as the clframe_source table SYMBOL, each
# keyed by its path from ROOT (scripts/embed-sources).
define embed
$(B)/gen/$(1).c: scripts/embed-sources $(shell find $(addprefix $(3)/,$(4)) -type f \( -name '*.cl' -o -name '*.h' \))
	@mkdir -p $$(@D)
	scripts/embed-sources $$@ $(2) $(3) $(4)
endef

# $(call link,PROGRAM,OBJECTS AND LIBRARIES,LINK FLAGS): bin/PROGRAM.
define link
$(BIN)/$(1): $(2) $(B)/libclframe.a
	@mkdir -p $$(@D)
	$$(CC) $$(ALL_CFLAGS) -o $$@ $$+ $(3) $$(LDLIBS)
PROGRAMS += $(BIN)/$(1)
endef

# ---- the library ---------------------------------------------------------------

# Its device library (clframe/kernels: the shared host/device header, the
# group functions, MWC64X) is compiled in, keyed as kernels include it.
$(eval $(call embed,clframe/sources,clf_library_sources,clframe/kernels,.))
LIB_OBJ := $(patsubst %.c,$(B)/%.o,$(wildcard clframe/*.c)) $(B)/gen/clframe/sources.o

# local_malloc's rewrite reads libclang's C API headers (libclang-dev); the
# library itself is opened at run time, only by sources that allocate.
LIBCLANG_INCLUDE := $(patsubst %/clang-c/Index.h,%,$(firstword \
    $(wildcard /usr/include/clang-c/Index.h) \
    $(sort $(wildcard /usr/lib/llvm-*/include/clang-c/Index.h))))
ifeq ($(LIBCLANG_INCLUDE),)
$(B)/clframe/localmalloc.o: ALL_CFLAGS += -DCLF_NO_LIBCLANG_HEADERS
endif
LIBCLANG_VERSION := $(patsubst /usr/lib/llvm-%/include,%,$(filter /usr/lib/llvm-%,$(LIBCLANG_INCLUDE)))
$(B)/clframe/localmalloc.o: ALL_CFLAGS += $(if $(LIBCLANG_INCLUDE),-isystem $(LIBCLANG_INCLUDE)) \
    $(if $(LIBCLANG_VERSION),-DCLF_LIBCLANG_VERSION=$(LIBCLANG_VERSION))

$(B)/libclframe.a: $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

# The shared library carries its ABI version in its name and SONAME, so a
# program linked against it finds the version it was built for:
# libclframe.so.$(SOVERSION), and libclframe.so (a link) to link with.
SOVERSION = 2
$(B)/libclframe.so.$(SOVERSION): $(LIB_OBJ)
	$(CC) -shared -Wl,-soname,libclframe.so.$(SOVERSION) -o $@ $^ $(LDLIBS)

$(B)/libclframe.so: $(B)/libclframe.so.$(SOVERSION)
	ln -sf libclframe.so.$(SOVERSION) $@

$(eval $(call link,clframe-info,$(B)/clframe/tools/info/info.o))
# clframe-local-malloc's command line is a file of its own, which its
# fuzzing harness links too (FUZZ_OBJECTS_localmalloc-args).
LOCAL_MALLOC_ARGS := $(B)/clframe/tools/local-malloc/args.o
$(eval $(call link,clframe-local-malloc,$(B)/clframe/tools/local-malloc/local-malloc.o $(LOCAL_MALLOC_ARGS)))

# The library's benchmarks: bench/NAME.c is bin/bench-NAME, its kernels
# (bench/kernels) compiled in.
$(eval $(call embed,bench/sources,bench_kernel_sources,.,bench/kernels))
$(foreach p,$(notdir $(basename $(wildcard bench/*.c))),\
  $(eval $(call link,bench-$(p),$(B)/bench/$(p).o $(B)/gen/bench/sources.o)))

# ---- tests ----------------------------------------------------------------------

# Every test binary is made of a folder of Check suites with its main.c and
# tests/support.c (what all suites share). The tests run on the CPU device
# (PoCL) unless CLFRAME_DEVICE says otherwise, all in one process
# (CK_FORK=no: a fork per test starts PoCL again, which made the library's
# suites four times slower; run bin/test-NAME alone for a fork per test and
# Check's timeouts). PoCL's kernel cache lives in a folder of the build
# (XDG_CACHE_HOME), so the checked runs reuse what the plain runs compiled;
# clframe's own program cache stays off (see test_main in tests/support.c).
TEST_CFLAGS = $(CHECK_CFLAGS) -Itests
TEST_CACHE  = $(CURDIR)/$(B)/test-cache
TESTS :=

# $(call test_binary,NAME,OBJECTS AND LIBRARIES,LINK FLAGS,PROGRAMS IT RUNS):
# bin/test-NAME, and `make test-NAME` to run it (`make suite-NAME`: its
# suites alone, without what test-NAME adds to them).
define test_binary
$(BIN)/test-$(1): $(2) $(B)/tests/support.o $(B)/libclframe.a | $(4)
	@mkdir -p $$(@D)
	$$(CC) $$(ALL_CFLAGS) -o $$@ $(2) $(B)/tests/support.o $(B)/libclframe.a \
	    $$(CHECK_LIBS) $(3) $$(LDLIBS)
TESTS += $(1)
.PHONY: test-$(1) suite-$(1)
test-$(1): suite-$(1)
suite-$(1): export CLFRAME_DEVICE ?= cpu
suite-$(1): $(BIN)/test-$(1)
	CK_FORK=no XDG_CACHE_HOME=$$(TEST_CACHE) $$(TEST_RUNNER_$(1)) $(BIN)/test-$(1)
endef

$(B)/tests/%.o: ALL_CFLAGS += $(TEST_CFLAGS)
# Its tests run the library's tools from beside it (every tree builds them).
$(eval $(call test_binary,clframe,$(patsubst %.c,$(B)/%.o,$(filter-out tests/support.c,$(wildcard tests/*.c))),,$(BIN)/clframe-local-malloc $(BIN)/clframe-info))
$(eval $(call link,planted-oob,$(B)/tests/oclgrind/planted_oob.o))

# libFuzzer harnesses: tests/fuzz/NAME.c (the library's parsers) and
# apps/APP/tests/fuzz/NAME.c (an app's), each fuzz-NAME or fuzz-APP-NAME
# with its corpus in the folder of the same name beside it. They build only
# in the fuzzing tree (`make fuzz`, `make test-fuzz`: clang, libFuzzer,
# ASan and UBSan), never in this one.
# $(call fuzz_target,NAME,OBJECTS AND LIBRARIES,LINK FLAGS,CORPUS FOLDER)
FUZZ_TARGETS :=
define fuzz_target
$(B)/fuzz/fuzz-$(1): $(2) $(B)/libclframe.a
	@mkdir -p $$(@D)
	$$(CC) $$(ALL_CFLAGS) -fsanitize=fuzzer -o $$@ $$+ $(3) $$(LDLIBS)
FUZZ_TARGETS += $(1)
FUZZ_CORPUS_$(1) := $(4)
endef
# FUZZ_OBJECTS_NAME: what harness NAME links beside itself and the library.
FUZZ_OBJECTS_localmalloc-args := $(LOCAL_MALLOC_ARGS)
$(foreach p,$(notdir $(basename $(wildcard tests/fuzz/*.c))),\
  $(eval $(call fuzz_target,$(p),$(B)/tests/fuzz/$(p).o $(FUZZ_OBJECTS_$(p)),,tests/fuzz/$(p))))

# The installed library used as a user would: their own kernels/demo/vadd.cl
# must not be shadowed by anything of clframe's (tests/install/check).
.PHONY: test-install
test-clframe: test-install
test-install: export CLFRAME_DEVICE ?= cpu
test-install: $(B)/libclframe.a $(B)/libclframe.so $(BIN)/clframe-info \
              $(BIN)/clframe-local-malloc
	tests/install/check

# Every example of README.md and clframe.h, taken from the text, built and
# run (tests/docs/check).
.PHONY: test-docs
test-clframe: test-docs
test-docs: export CLFRAME_DEVICE ?= cpu
test-docs: $(B)/libclframe.a
	CC="$(CC)" CXX="$(CXX)" tests/docs/check

# ---- applications ---------------------------------------------------------------

# An application in apps/NAME: its .c files are its library build/libNAME.a,
# with apps/NAME/kernels compiled in as the table NAME_kernel_sources; each
# apps/NAME/programs/P.c is the main of bin/P, each apps/NAME/bench/P.c of
# bin/bench-P, and apps/NAME/tests holds the suites of bin/test-NAME.
# $(call app,NAME,link flags,apps it uses)
define app
$(B)/apps/$(1)/tests/%.o: ALL_CFLAGS += $(TEST_CFLAGS)
$(if $(wildcard apps/$(1)/kernels),\
  $(call embed,apps/$(1)/kernels,$(1)_kernel_sources,.,apps/$(1)/kernels))
$(B)/lib$(1).a: $(patsubst %.c,$(B)/%.o,$(wildcard apps/$(1)/*.c)) \
                $(if $(wildcard apps/$(1)/kernels),$(B)/gen/apps/$(1)/kernels.o)
	rm -f $$@
	ar rcs $$@ $$^
APP_LIBS_$(1) := $(B)/lib$(1).a $(foreach u,$(3),$$(APP_LIBS_$(u)))
APP_LDLIBS_$(1) := $(2) $(foreach u,$(3),$$(APP_LDLIBS_$(u)))
APP_PROGRAMS_$(1) :=
$(foreach p,$(notdir $(basename $(wildcard apps/$(1)/programs/*.c))),
$(call link,$(p),$(B)/apps/$(1)/programs/$(p).o $$(APP_LIBS_$(1)),$$(APP_LDLIBS_$(1)))
APP_PROGRAMS_$(1) += $(BIN)/$(p))
$(foreach p,$(notdir $(basename $(wildcard apps/$(1)/bench/*.c))),
$(call link,bench-$(p),$(B)/apps/$(1)/bench/$(p).o $$(APP_LIBS_$(1)),$$(APP_LDLIBS_$(1))))
$(foreach p,$(notdir $(basename $(wildcard apps/$(1)/tests/fuzz/*.c))),
$(call fuzz_target,$(1)-$(p),$(B)/apps/$(1)/tests/fuzz/$(p).o \
  $$(APP_LIBS_$(1)),$$(APP_LDLIBS_$(1)),apps/$(1)/tests/fuzz/$(p)))
$(if $(wildcard apps/$(1)/tests/main.c),$(call test_binary,$(1),\
  $(patsubst %.c,$(B)/%.o,$(wildcard apps/$(1)/tests/*.c)) \
  $(if $(filter common,$(1)),,$(B)/apps/common/tests/testing.o) \
  $$(APP_LIBS_$(1)),$$(APP_LDLIBS_$(1)),$$(APP_PROGRAMS_$(1))))
endef

# GUI programs need GTK 3; without it they are skipped with a one-line note.
# A .pc file is not enough: a machine may have it without every header
# (the GPU machine lacks cairo's), so gtk.h must also preprocess.
GTK_CFLAGS := $(shell pkg-config --cflags gtk+-3.0 2>/dev/null)
GTK_LIBS   := $(shell pkg-config --libs gtk+-3.0 2>/dev/null)
ifneq ($(GTK_LIBS),)
HASH := \#
ifeq ($(shell echo '$(HASH)include <gtk/gtk.h>' | $(CC) $(GTK_CFLAGS) -E -x c - \
                 >/dev/null 2>&1 && echo ok),)
GTK_LIBS :=
endif
endif
# $(call gui_program,PROGRAM,FOLDER,OBJECTS AND LIBRARIES,LINK FLAGS): bin/PROGRAM
# from every .c in FOLDER. (A conditional must not be inside the define:
# call expands the nested eval before eval sees the conditional.)
gui_program = $(if $(GTK_LIBS),$(eval $(call gui_program_,$(1),$(2),$(3),$(4))),\
    $(info note: skipping $(1): GTK 3 is not installed or incomplete (install libgtk-3-dev)))
define gui_program_
$(patsubst %.c,$(B)/%.o,$(wildcard $(2)/*.c)): ALL_CFLAGS += $(GTK_CFLAGS)
$(call link,$(1),$(patsubst %.c,$(B)/%.o,$(wildcard $(2)/*.c)) $(3),$(GTK_LIBS) $(4))
endef

# OpenMP for the CPU baselines; clang needs libomp-dev for it, or set
# OPENMP_FLAGS= to build them single-threaded (their pragmas ignored).
OPENMP_FLAGS ?= -fopenmp
ALL_CFLAGS += $(if $(OPENMP_FLAGS),,-Wno-unknown-pragmas)
PNG_CFLAGS := $(shell pkg-config --cflags libpng 2>/dev/null)
PNG_LIBS   := $(shell pkg-config --libs libpng 2>/dev/null || echo -lpng)

# What the apps share: parsing, clocks, versions, errors, PNG files.
$(B)/apps/common/%.o: ALL_CFLAGS += $(PNG_CFLAGS)
$(eval $(call app,common,$(PNG_LIBS)))
# bench-transfer reads its sizes with apps/common's parser.
$(BIN)/bench-transfer: $(B)/libcommon.a

# The heat world. Its reference must not fuse a*b+c (clang does by default,
# and with -march=native GCC could too): its output is compared with the
# kernels' bit for bit.
$(B)/apps/heat/%.o: ALL_CFLAGS += $(OPENMP_FLAGS) $(PNG_CFLAGS) -ffp-contract=off
$(eval $(call app,heat,$(OPENMP_FLAGS),common))

# The raytracer's reference is compared with its kernels pixel by pixel.
# Its window needs GTK; its test drives the window and screenshots it.
$(B)/apps/raytracer/%.o: ALL_CFLAGS += -ffp-contract=off
$(eval $(call app,raytracer,,common))
$(call gui_program,raytracer-gtk,apps/raytracer/gtk,$(APP_LIBS_raytracer),$(APP_LDLIBS_raytracer))
$(call gui_program,x11-screenshot,apps/raytracer/tests/gui)
$(BIN)/test-raytracer: | $(filter %/raytracer-gtk %/x11-screenshot,$(PROGRAMS))

# The Laplace reference is compared with its kernels bit for bit.
$(B)/apps/laplace/%.o: ALL_CFLAGS += $(OPENMP_FLAGS) -ffp-contract=off
$(eval $(call app,laplace,$(OPENMP_FLAGS),common))

# The blur's versions are compared with its reference byte for byte (all
# integer arithmetic); the reference's OpenMP twin.
$(B)/apps/blur/%.o: ALL_CFLAGS += $(OPENMP_FLAGS)
$(eval $(call app,blur,$(OPENMP_FLAGS),common))

# Matrix multiplication: the C reference's OpenMP twin; CLBlast in the bench.
$(B)/apps/matmul/%.o: ALL_CFLAGS += $(OPENMP_FLAGS)
$(eval $(call app,matmul,$(OPENMP_FLAGS),common))
$(BIN)/bench-matmul: LDLIBS += -lclblast

# Mankalah: the GPU player's host walks run in parallel.
$(B)/apps/kalah/%.o: ALL_CFLAGS += $(OPENMP_FLAGS)
$(eval $(call app,kalah,$(OPENMP_FLAGS),common))

# Societies: the reference's OpenMP twin.
$(B)/apps/societies/%.o: ALL_CFLAGS += $(OPENMP_FLAGS)
$(eval $(call app,societies,$(OPENMP_FLAGS),common))

# Molecular dynamics: the host cell list runs on OpenMP.
$(B)/apps/md/%.o: ALL_CFLAGS += $(OPENMP_FLAGS)
$(eval $(call app,md,$(OPENMP_FLAGS),common))

# The heat world and the Laplace solver over MPI ranks need Open MPI
# (libopenmpi-dev, openmpi-bin); without mpicc they are skipped with a note.
# Their suites run under mpirun with 1, 2 and 3 ranks (apps/mpi/tests/ranks).
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
else
$(info note: skipping apps/mpi: Open MPI is not installed (install libopenmpi-dev openmpi-bin))
endif

# The demo table runs a small case of every app.
$(eval $(call app,demo,,heat raytracer matmul laplace blur kalah societies md))

all: $(B)/libclframe.a $(B)/libclframe.so $(PROGRAMS)

# The apps' files that use no OpenCL (those not including clframe.h) must
# build without it: they compile here with clframe/ off the include path.
PLAIN_C := $(shell grep -L '"clframe.h"' $(filter-out apps/mpi/%,\
    $(wildcard apps/*/*.c apps/*/programs/*.c)))
.PHONY: test-plain-c
test-plain-c:
	@$(foreach f,$(PLAIN_C),$(CC) $(filter-out -Iclframe -MMD -MP,$(ALL_CFLAGS)) \
	    $(OPENMP_FLAGS) $(PNG_CFLAGS) -fsyntax-only $(f) &&) true
	@echo "test-plain-c: $(words $(PLAIN_C)) files of the apps build without clframe.h"

# ---- the two commands -------------------------------------------------------------

deps:
	@scripts/install-deps -q

# Each runs install-deps first, then itself again, so that pkg-config looks
# for Check (and GTK) only after they are installed. `make test` is every
# check: the suites, then the same suites under the sanitizers, Oclgrind and
# valgrind; `make test-run` is the quick first part alone. The checked runs
# start with the longest (LONGEST_CHECKS), so that no long one is left
# running alone at the end while the other core idles.
LONGEST_CHECKS = oclgrind-test-clframe valgrind-test-clframe \
                 valgrind-test-societies oclgrind-test-md
test: deps
	@$(MAKE) --no-print-directory -j$(JOBS) -Otarget test-run
	@$(MAKE) --no-print-directory -j$(JOBS) -Otarget $(LONGEST_CHECKS) \
	    valgrind-run asan-run oclgrind-run test-fuzz

demo: deps
	@$(MAKE) --no-print-directory demo-run

demo-run: all
	$(BIN)/clframe-info
	@echo
	$(BIN)/clframe-demo

test-run: test-plain-c $(addprefix test-,$(TESTS))

# The same suites on a GPU, and the docs' examples and the installed
# library's programs, one line each (scripts/test-gpu): `make test-gpu` on
# a machine with one, which is where most users run.
test-gpu: all $(addprefix $(BIN)/test-,$(TESTS))
	@scripts/test-gpu $(addprefix suite-,$(TESTS)) test-docs test-install

# ---- benchmarks -------------------------------------------------------------------

# The table of defaults (every app's default on this device against its C
# reference and OpenMP version, bench-defaults): runs per row.
DEFAULTS_BENCH ?= 3
# The heat table's world size, steps and runs (the GPU machine: 5000 1000 3).
HEAT_BENCH ?= 1000 100 5
# The raytracer table's image size and frames per row (GPU machine: 200).
RAYTRACER_BENCH ?= 700x700 20
# The matmul table's square sizes and runs (GPU machine: 1024,2048,4096,8192 3).
MATMUL_BENCH ?= 256,512 3
# The Laplace table's sizes, iterations and runs.
LAPLACE_BENCH ?= 200,1000 100 3
# The blur table's image sizes, passes, runs and the largest image (in
# pixels) the C versions run on (GPU machine: 512x512,1920x1080,3840x2160,
# 7680x4320 100 5 2073600; above the cap the device versions are checked
# against double).
BLUR_BENCH ?= 512x512,1024x1024 20 3 1048576
# The Mankalah table's depths and runs (GPU machine: 4 13 3).
KALAH_BENCH ?= 4 9 3
# The Mankalah alpha-beta table's depths and runs (GPU machine: 10 16 3).
KALAH_AB_BENCH ?= 6 10 3
# The Societies table: agents, resources, days, runs, the reference's and
# OpenMP's caps on agents (GPU machine: 1000,10000,100000,1000000
# 16,64,256 3 3 2000 50000).
SOCIETIES_BENCH ?= 1000,10000 16,64 3 3 2000 20000
# The MD table: particle counts, steps, runs, and the caps on the host
# all-pairs reference, the host cell list and the device's all pairs
# (GPU machine: 1000,4000,16000,64000,256000,1000000,4000000 100 3 4000
# 1000000 64000).
MD_BENCH ?= 1000,4000,16000 10 3 2000 16000 16000
# The data movement table's runs and largest array (GPU machine: 5 1G).
TRANSFER_BENCH ?= 5 16M
# The MPI table's sizes, steps and runs, on MPI_BENCH_RANKS ranks (PoCL a
# thread each); a host with several GPUs: apps/mpi/bench/scaling
# (bench/RESULTS.md, issues 23 and 26). mpirun hands the ranks
# OCL_ICD_FILENAMES cut at its first colon, so it is passed again whole.
MPI_BENCH ?= 1000 100 3
MPI_BENCH_RANKS ?= 2
bench: all
	@mkdir -p bench/out
	$(BIN)/bench-defaults $(DEFAULTS_BENCH)
	$(BIN)/bench-overhead
	$(BIN)/bench-call
	$(BIN)/bench-cache
	$(BIN)/bench-localmalloc
	$(BIN)/bench-transfer $(TRANSFER_BENCH)
	$(BIN)/bench-heat $(HEAT_BENCH)
	$(BIN)/bench-raytracer $(RAYTRACER_BENCH)
	$(BIN)/bench-laplace $(LAPLACE_BENCH)
	$(BIN)/bench-blur $(BLUR_BENCH)
	$(BIN)/bench-matmul $(MATMUL_BENCH)
	$(BIN)/bench-kalah $(KALAH_BENCH)
	$(BIN)/bench-kalah-alphabeta $(KALAH_AB_BENCH)
	$(BIN)/bench-societies $(SOCIETIES_BENCH)
	$(BIN)/bench-md $(MD_BENCH)
	$(if $(MPI_LIBS),OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
	    POCL_MAX_PTHREAD_COUNT=1 mpirun -q --oversubscribe -n $(MPI_BENCH_RANKS) \
	    $(if $(OCL_ICD_FILENAMES),env OCL_ICD_FILENAMES='$(OCL_ICD_FILENAMES)') \
	    $(BIN)/bench-mpi $(MPI_BENCH))

# ---- CUDA twins (issue 25) ---------------------------------------------------------

# bench/cuda/NAME.c is the main of bin/bench-cuda-NAME: a workload run by
# clframe and by its CUDA twins (bench/cuda/NAME.cu, with device.cu), side
# by side, linked with apps/NAME where there is one. Built and run by `make
# bench-cuda` alone, where nvcc is found: never by make, make test or CI.
# H100 and H200 are both sm_90.
ifeq ($(origin NVCC),undefined)
NVCC := $(firstword $(shell command -v nvcc 2>/dev/null) $(wildcard /usr/local/cuda/bin/nvcc))
endif
CUDA_HOME = $(patsubst %/bin/nvcc,%,$(NVCC))
CUDA_ARCH ?= sm_90
NVCC_FLAGS ?= -O3 -arch=$(CUDA_ARCH) -std=c++17 -Xcompiler -fPIC \
              -Ibench/cuda -Iapps -Iclframe -Iclframe/kernels
CUDA_LIBS = -L$(CUDA_HOME)/lib64 \
            -Wl,-rpath,$(CUDA_HOME)/lib64 -lcublas -lnvrtc -lcudart -lstdc++
CUDA_BENCHES := $(notdir $(basename $(wildcard bench/cuda/*.c)))
$(B)/bench/cuda/%.cu.o: bench/cuda/%.cu $(wildcard bench/cuda/*.h bench/cuda/*.cuh)
	@mkdir -p $(@D)
	$(NVCC) $(NVCC_FLAGS) -c -o $@ $<
define cuda_bench
$(BIN)/bench-cuda-$(1): $(B)/bench/cuda/$(1).o $(B)/bench/cuda/$(1).cu.o \
    $(B)/bench/cuda/device.cu.o $(if $(APP_LIBS_$(1)),$(APP_LIBS_$(1)),$(APP_LIBS_common)) \
    $(B)/libclframe.a
	@mkdir -p $$(@D)
	$$(CC) $$(ALL_CFLAGS) -o $$@ $$+ $(if $(APP_LIBS_$(1)),$(APP_LDLIBS_$(1)),$(APP_LDLIBS_common)) \
	    $$(CUDA_BENCH_LIBS_$(1)) $$(CUDA_LIBS) $$(LDLIBS)
endef
$(foreach b,$(CUDA_BENCHES),$(eval $(call cuda_bench,$(b))))
$(BIN)/bench-cuda-matmul: CUDA_BENCH_LIBS_matmul = -lclblast
# The Laplace twins compare with the reference bit for bit, like the app's
# kernels (FP_CONTRACT OFF): nvcc must fuse no a * b + c either.
$(B)/bench/cuda/laplace.cu.o: NVCC_FLAGS += -fmad=false
# MD's kernels divide as OpenCL does: within 2.5 ulp, not exactly.
$(B)/bench/cuda/md.cu.o: NVCC_FLAGS += -prec-div=false

# Each program's arguments on the GPU machine (its usage line says what
# they are). The empty kernel's and the builds' table runs with the
# driver's own cache of compiled kernels off.
CUDA_BENCH_launch ?= 1000 7
CUDA_BENCH_laplace ?= 200,1000,2000,4000,6000,8192 1000 5
CUDA_BENCH_matmul ?= 1000,2000,2048,4000,4096,8000,8192,10000 3
CUDA_BENCH_blur ?= 512x512,1920x1080,3840x2160,7680x4320 100 5 2073600
CUDA_BENCH_md ?= 1000,4000,16000,64000,256000,1000000,4000000 100 3 4000
bench-cuda:
ifeq ($(NVCC),)
	@echo "bench-cuda: nvcc not found (CUDA is needed for this comparison alone; NVCC=/path/to/nvcc): nothing built"
else
	@$(MAKE) --no-print-directory all $(addprefix $(BIN)/bench-cuda-,$(CUDA_BENCHES))
	@mkdir -p bench/out
	$(foreach b,$(CUDA_BENCHES),CUDA_CACHE_DISABLE=1 NVCC=$(NVCC) \
	    CLFRAME_DEVICE=$${CLFRAME_DEVICE:-gpu} $(BIN)/bench-cuda-$(b) $(CUDA_BENCH_$(b)) &&) true
endif

# bench/cuda/effort: each workload's host program in CUDA, plain OpenCL and
# clframe, for counting lines of host code (bench/cuda/effort/count). Built
# by `make effort-build` alone, the CUDA ones where nvcc is found; each
# links its app's library for the input and the reference check. The CUDA
# ones take the flags of their twins' benchmarks: -fmad=false for Laplace,
# -prec-div=false (OpenCL's division) for md, as md.cu.o.
EFFORT_WORKLOADS := $(sort $(patsubst bench/cuda/effort/%_clframe.c,%,$(wildcard bench/cuda/effort/*_clframe.c)))
EFFORT_PROGRAMS := $(foreach w,$(EFFORT_WORKLOADS),$(BIN)/effort-$(w)-opencl $(BIN)/effort-$(w)-clframe \
    $(if $(NVCC),$(BIN)/effort-$(w)-cuda))
define effort_programs
$(BIN)/effort-$(1)-opencl $(BIN)/effort-$(1)-clframe: $(BIN)/effort-$(1)-%: $(B)/bench/cuda/effort/$(1)_%.o \
    $(B)/lib$(1).a $(B)/libcommon.a $(B)/libclframe.a
	@mkdir -p $$(@D)
	$$(CC) $$(ALL_CFLAGS) -o $$@ $$+ $$(APP_LDLIBS_$(1)) $$(LDLIBS)
$(BIN)/effort-$(1)-cuda: bench/cuda/effort/$(1)_cuda.cu bench/cuda/$(1)_kernels.cuh \
    $(B)/lib$(1).a $(B)/libcommon.a $(B)/libclframe.a
	@mkdir -p $$(@D)
	$$(NVCC) -O3 -arch=$$(CUDA_ARCH) $(if $(filter laplace,$(1)),-fmad=false) \
	    $(if $(filter md,$(1)),-prec-div=false) -Iapps -Iclframe/kernels -o $$@ $$< \
	    $(B)/lib$(1).a $(B)/libcommon.a $(B)/libclframe.a $$(PNG_LIBS) -lOpenCL -lm -lgomp -lpthread
endef
$(foreach w,$(EFFORT_WORKLOADS),$(eval $(call effort_programs,$(w))))
effort-build: $(EFFORT_PROGRAMS)

# ---- the checked runs -------------------------------------------------------------

# Each test binary runs again under AddressSanitizer+UBSan, valgrind and
# Oclgrind, each run its own target (asan-test-NAME, ...) so that `make -j`
# runs them side by side, the longest first (LONGEST_CHECKS). The sanitized
# runs reuse the kernels PoCL compiled for the plain runs (TEST_CACHE). Valgrind
# runs one thread at a time, so PoCL gets one worker thread there (that
# halved two library suites' runs). Under valgrind PoCL sees valgrind's CPU
# (no AVX-512), so it compiles for another target than the plain runs did,
# and compiling under memcheck is slow (Societies: 1452 s). So the valgrind
# runs name PoCL's AVX2 kernel library (POCL_KERNELLIB_NAME), which is what
# it picks under valgrind, and each goes first natively with the same
# settings: PoCL then compiles the same code for the same key, natively,
# and memcheck loads it from the cache. (A first pass under valgrind's
# plain core, --tool=none, did the same: in a whole make test, 465 s for
# the library's four parts and 434 s for Societies at 0b8fc82, where the
# native runs took 83 s and 72 s at 04b35bf.)
check-asan: deps
	@$(MAKE) --no-print-directory -j$(JOBS) -Otarget asan-run

check-valgrind: deps
	@$(MAKE) --no-print-directory -j$(JOBS) -Otarget valgrind-run

check-oclgrind: deps
	@$(MAKE) --no-print-directory -j$(JOBS) -Otarget oclgrind-run

CHECKED_ENV = CLFRAME_DEVICE=$${CLFRAME_DEVICE:-cpu} \
              XDG_CACHE_HOME=$(TEST_CACHE) CK_FORK=no
VALGRIND_ENV = CLFRAME_TEST_SIZES=checked CK_EXCLUDE_TAGS=no-valgrind \
               POCL_MAX_PTHREAD_COUNT=1 POCL_KERNELLIB_NAME=avx2 $(CHECKED_ENV)
ASAN_FLAGS  = -fsanitize=address,undefined -fno-omit-frame-pointer \
              -fno-sanitize-recover=undefined

# A separate build tree, so a sanitized library never mixes with the normal.
# The suppression files name only PoCL's and LLVM's own allocations.
.PHONY: asan-build oclgrind-planted fuzz test-fuzz fuzz-build
asan-build:
	@$(MAKE) --no-print-directory B=build/asan BIN=build/asan/bin \
	    EXTRA_CFLAGS="$(ASAN_FLAGS)" $(addprefix build/asan/bin/test-,$(TESTS))

# The fuzzing tree: clang with libFuzzer's coverage, ASan and UBSan, no
# OpenMP (clang's needs libomp). `make fuzz` fuzzes each harness for
# FUZZ_SECONDS on a copy of its corpus (FUZZ_JOBS=N: all at once, N
# workers each); `make test-fuzz` (part of `make
# test`) runs every corpus file through its harness once: the seeds and
# the inputs that once crashed or hung a parser. The library's own checks
# of its results abort there (libFuzzer's FUZZING_BUILD_MODE_UNSAFE_FOR_
# PRODUCTION), so that a failed one is a finding, not an error message.
FUZZ_SECONDS ?= 60
FUZZ_JOBS ?= 1
FUZZ_FLAGS = -fsanitize=fuzzer-no-link,address,undefined \
             -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
             -Itests/fuzz -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
fuzz-build:
	@$(MAKE) --no-print-directory B=build/fuzz BIN=build/fuzz/bin CC=clang \
	    OPENMP_FLAGS= EXTRA_CFLAGS="$(FUZZ_FLAGS)" \
	    $(addprefix build/fuzz/fuzz/fuzz-,$(FUZZ_TARGETS))
FUZZ_LIST = $(foreach t,$(FUZZ_TARGETS),build/fuzz/fuzz/fuzz-$(t)=$(FUZZ_CORPUS_$(t)))
fuzz: deps fuzz-build
	CLFRAME_DEVICE=$${CLFRAME_DEVICE:-cpu} FUZZ_JOBS=$(FUZZ_JOBS) scripts/fuzz run $(FUZZ_SECONDS) $(FUZZ_LIST)
test-fuzz: fuzz-build
	CLFRAME_DEVICE=$${CLFRAME_DEVICE:-cpu} scripts/fuzz replay 0 $(FUZZ_LIST)

# Oclgrind simulates the device and reports out-of-bounds accesses, data
# races and uninitialized values in kernels; a planted bug must be caught.
oclgrind-planted: $(BIN)/planted-oob
	scripts/check-oclgrind --planted $(BIN)/planted-oob

# The longest valgrind run, the library's suites, is spread over processes
# (CLFRAME_TEST_PART), so that the cores share it; $(call parts,NAME)
# numbers a binary's parts.
VALGRIND_PARTS_clframe = 4
parts = $(shell seq $(or $(VALGRIND_PARTS_$(1)),1))

# $(call checked_runs,NAME): the three checked runs of bin/test-NAME.
# intercept_tls_get_addr=0: the sanitizer runtimes of LLVM up to 16 and GCC
# up to 13 take a dynamic TLS block that happens to start at one offset in
# a page for a pre-2.25 glibc header, and LeakSanitizer's tracer then dies
# at exit (SIGSEGV, "LeakSanitizer has encountered a fatal error") after
# every test passed; PoCL's kernels, loaded as shared objects, have such
# blocks. Left untracked, they can only add leak reports, never hide one.
ASAN_TLS = intercept_tls_get_addr=0
define checked_runs
.PHONY: asan-test-$(1) valgrind-test-$(1) oclgrind-test-$(1)
asan-test-$(1): asan-build
	ASAN_OPTIONS=detect_leaks=$(or $(ASAN_LEAKS_$(1)),1):$(ASAN_TLS) \
	    LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
	    $$(CHECKED_ENV) $(ASAN_RUNNER_$(1)) build/asan/bin/test-$(1)
valgrind-test-$(1): $(foreach k,$(call parts,$(1)),valgrind-test-$(1)-$(k))
valgrind-test-$(1)-%: PART = CLFRAME_TEST_PART=$$*/$(words $(call parts,$(1)))
valgrind-test-$(1)-%: $(BIN)/test-$(1)
	$$(VALGRIND_ENV) $$(PART) $(BIN)/test-$(1)
	$$(VALGRIND_ENV) $$(PART) valgrind -q --error-exitcode=1 \
	    --leak-check=full --show-leak-kinds=definite \
	    --errors-for-leak-kinds=definite --suppressions=tests/valgrind.supp \
	    $(VALGRIND_SUPP_$(1)) $(BIN)/test-$(1)
oclgrind-test-$(1): $(BIN)/test-$(1)
	scripts/check-oclgrind --no-planted \
	    $(OCLGRIND_RANKS_$(1)) $(BIN)/test-$(1)
endef
$(foreach t,$(TESTS),$(eval $(call checked_runs,$(t))))

asan-run: $(addprefix asan-test-,$(TESTS))
valgrind-run: $(addprefix valgrind-test-,$(TESTS))
oclgrind-run: oclgrind-planted $(addprefix oclgrind-test-,$(TESTS))

# ---- install ----------------------------------------------------------------------

# The library alone: its archives, clframe.h, clframe-info,
# clframe-local-malloc, clframe.pc, and
# its device library (compiled into it as well) for host code that shares
# its headers: include/clframe/shared.h, share/clframe/kernels/.
install: $(B)/libclframe.a $(B)/libclframe.so $(BIN)/clframe-info \
         $(BIN)/clframe-local-malloc
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/clframe \
	    $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	    $(DESTDIR)$(PREFIX)/share/clframe
	install -m 644 $(B)/libclframe.a $(B)/libclframe.so.$(SOVERSION) \
	    $(DESTDIR)$(PREFIX)/lib
	ln -sf libclframe.so.$(SOVERSION) $(DESTDIR)$(PREFIX)/lib/libclframe.so
	install -m 644 clframe/clframe.h $(DESTDIR)$(PREFIX)/include
	install -m 644 clframe/kernels/clframe/shared.h $(DESTDIR)$(PREFIX)/include/clframe
	install -m 755 $(BIN)/clframe-info $(BIN)/clframe-local-malloc \
	    $(DESTDIR)$(PREFIX)/bin
	cp -r clframe/kernels $(DESTDIR)$(PREFIX)/share/clframe/
	sed -e 's|@PREFIX@|$(PREFIX)|' clframe/clframe.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/clframe.pc

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/lib/libclframe.a $(DESTDIR)$(PREFIX)/lib/libclframe.so \
	    $(DESTDIR)$(PREFIX)/lib/libclframe.so.$(SOVERSION) \
	    $(DESTDIR)$(PREFIX)/include/clframe.h $(DESTDIR)$(PREFIX)/bin/clframe-info \
	    $(DESTDIR)$(PREFIX)/bin/clframe-local-malloc \
	    $(DESTDIR)$(PREFIX)/lib/pkgconfig/clframe.pc
	rm -rf $(DESTDIR)$(PREFIX)/share/clframe $(DESTDIR)$(PREFIX)/include/clframe

clean:
	rm -rf build bin

-include $(shell find $(B) -name '*.d' 2>/dev/null)
