# clframe: one non-recursive GNU Make build. This file holds what every
# part shares (the compiler, the flags, how a library, a program, a test
# binary, a fuzzing harness and an app are made) and includes the parts,
# each a fragment beside what it builds:
#
#   clframe/clframe.mk   the library, its tools, benchmarks, tests, install
#   bench/cuda/cuda.mk   the CUDA twins' machinery and the library's own twin
#   apps/NAME/app.mk     each app: its flags, programs, exceptions, benches
#   tests/checked.mk     the checked runs (ASan, valgrind, Oclgrind) and fuzzing
#
#   make               the library (build/libclframe.a, .so) and every program (bin/)
#   make library       the library and its tools alone (what make install installs)
#   make test          installs missing packages, builds, runs every Check suite,
#                      then again under AddressSanitizer+UBSan, the docs' and
#                      the installed library's checks, the fuzzers' corpora
#   make check         all of make test, and every suite under valgrind and Oclgrind
#   make test-run      every suite once, without the checked runs
#   make test-gpu      every suite once on the GPU, a line each
#   make test-clframe  the library's own suites alone (builds no app)
#   make test-NAME     the suites of apps/NAME alone
#   make docs          the API reference in build/docs/html (Doxygen)
#   make bench         benchmarks (set CLFRAME_DEVICE=gpu on the GPU machine)
#   make trace-pictures
#                      the timelines of docs/tracing.md, on this machine's device
#   make check-asan / check-oclgrind / check-valgrind
#                      one checked run of every suite
#   make install       PREFIX=/usr/local DESTDIR=  (the library alone; its
#                      libraries in LIBDIR, PREFIX/lib unless set)
#   make test-debian   the Debian packages built, checked and used (debian/)
#   make clean
#
# An app's fragment may add its own targets (apps/*/app.mk). CC=clang
# works as well as gcc. Objects go to build/, programs to bin/.

CC      ?= cc
PREFIX  ?= /usr/local
LIBDIR  ?= $(PREFIX)/lib
DESTDIR ?=
B       ?= build
BIN     ?= bin

CFLAGS  ?= -O2 -g
ALL_CFLAGS = -std=c11 -Wall -Wextra -Werror -fPIC -pthread \
             -D_XOPEN_SOURCE=700 -DCL_TARGET_OPENCL_VERSION=120 \
             -Iclframe -Iclframe/kernels -MMD -MP $(CFLAGS) $(EXTRA_CFLAGS)
LDLIBS  = -lOpenCL -lm -pthread

# `make test` and the checked runs run this many jobs at once.
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)

CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   := $(shell pkg-config --libs check 2>/dev/null)

# OpenMP for the CPU baselines; clang needs libomp-dev for it, or set
# OPENMP_FLAGS= to build them single-threaded (their pragmas ignored).
OPENMP_FLAGS ?= -fopenmp
ALL_CFLAGS += $(if $(OPENMP_FLAGS),,-Wno-unknown-pragmas)

.PHONY: all test check test-run test-gpu bench deps clean
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

# $(call link,PROGRAM,OBJECTS AND LIBRARIES,LINK FLAGS): bin/PROGRAM,
# linked with the caller's LDFLAGS too (a packager's hardening flags).
define link
$(BIN)/$(1): $(2) $(B)/libclframe.a
	@mkdir -p $$(@D)
	$$(CC) $$(ALL_CFLAGS) $$(LDFLAGS) -o $$@ $$+ $(3) $$(LDLIBS)
PROGRAMS += $(BIN)/$(1)
endef

# ---- test binaries and fuzzing harnesses ------------------------------------------

# Every test binary is made of a folder of Check suites with its main.c and
# tests/support.c (what all suites share). The tests run on the CPU device
# (PoCL) unless CLFRAME_DEVICE says otherwise, all in one process
# (CK_FORK=no: a fork per test starts PoCL again, which costs the library's
# suites far more than their tests; run bin/test-NAME alone for a fork per
# test and Check's timeouts). PoCL's kernel cache lives in a folder of the
# build (XDG_CACHE_HOME), so the checked runs reuse what the plain runs
# compiled; clframe's own program cache stays off (see test_main in
# tests/support.c).
TEST_CFLAGS = $(CHECK_CFLAGS) -Itests
TEST_CACHE  = $(CURDIR)/$(B)/test-cache
TESTS :=

# $(call test_binary,NAME,OBJECTS AND LIBRARIES,LINK FLAGS,PROGRAMS IT RUNS):
# bin/test-NAME, and `make test-NAME` to run it (`make suite-NAME`: its
# suites alone, without what test-NAME adds to them; TEST_RUNNER_NAME, a
# command that runs the binary).
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

# libFuzzer harnesses: tests/fuzz/NAME.c (the library's parsers) and
# apps/APP/tests/fuzz/NAME.c (an app's), each fuzz-NAME or fuzz-APP-NAME
# with its corpus in the folder of the same name beside it. They build only
# in the fuzzing tree (`make fuzz`, `make test-fuzz`: clang, libFuzzer,
# ASan and UBSan; tests/checked.mk), never in this one.
# $(call fuzz_target,NAME,OBJECTS AND LIBRARIES,LINK FLAGS,CORPUS FOLDER)
FUZZ_TARGETS :=
define fuzz_target
$(B)/fuzz/fuzz-$(1): $(2) $(B)/libclframe.a
	@mkdir -p $$(@D)
	$$(CC) $$(ALL_CFLAGS) -fsanitize=fuzzer -o $$@ $$+ $(3) $$(LDLIBS)
FUZZ_TARGETS += $(1)
FUZZ_CORPUS_$(1) := $(4)
endef

# ---- applications ---------------------------------------------------------------

# An application in apps/NAME: its .c files are its library build/libNAME.a
# (with APP_OBJECTS_NAME, if its fragment sets any), with apps/NAME/kernels
# compiled in as the table NAME_kernel_sources; each apps/NAME/programs/P.c
# is the main of bin/P, each apps/NAME/bench/P.c of bin/bench-P, and
# apps/NAME/tests holds the suites of bin/test-NAME, which also link the
# tests/testing.c of every app it uses. Its files see the other apps'
# headers as "APP/file.h" (-Iapps; the library's files never do) and the
# library's benchmark helpers, bench/median.h, as "median.h" (-Ibench).
# $(call app,NAME,LINK FLAGS,APPS IT USES): APPS IT USES names every app
# whose library it links, those of the apps it uses included, the most
# shared last. APP_LIBS_NAME and APP_LDLIBS_NAME are then what a program
# built on it links; APP_LDLIBS_NAME is only read by recipes, so the order
# in which the fragments are included does not matter.
APP_CFLAGS := -Iapps -Ibench
define app
$(B)/apps/$(1)/%.o: ALL_CFLAGS += $(APP_CFLAGS)
$(B)/apps/$(1)/tests/%.o: ALL_CFLAGS += $(TEST_CFLAGS)
$(if $(wildcard apps/$(1)/kernels),\
  $(call embed,apps/$(1)/kernels,$(1)_kernel_sources,.,apps/$(1)/kernels))
$(B)/lib$(1).a: $(patsubst %.c,$(B)/%.o,$(wildcard apps/$(1)/*.c)) $(APP_OBJECTS_$(1)) \
                $(if $(wildcard apps/$(1)/kernels),$(B)/gen/apps/$(1)/kernels.o)
	rm -f $$@
	ar rcs $$@ $$^
APP_LIBS_$(1) := $(B)/lib$(1).a $(foreach u,$(3),$(B)/lib$(u).a)
APP_LDLIBS_$(1) = $(2) $(foreach u,$(3),$$(APP_LDLIBS_$(u)))
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
  $(patsubst %.c,$(B)/%.o,$(wildcard $(foreach u,$(3),apps/$(u)/tests/testing.c))) \
  $$(APP_LIBS_$(1)),$$(APP_LDLIBS_$(1)),$$(APP_PROGRAMS_$(1))))
endef

# The apps' files that use no OpenCL (those not including clframe.h) must
# build without it: they compile in test-plain-c with clframe/ off the
# include path. A fragment adds the flags they need (PLAIN_C_FLAGS), files
# of other folders (PLAIN_C_SOURCES), and leaves out the files that need
# more than these (PLAIN_C_SKIP).
PLAIN_C_FLAGS = $(APP_CFLAGS) $(OPENMP_FLAGS)
PLAIN_C_SOURCES :=
PLAIN_C_SKIP :=

# `make bench` runs, in order, the command BENCH_R of each R that the
# fragments add to BENCH_RUNS; checks start with LONGEST_CHECKS.
BENCH_RUNS :=
LONGEST_CHECKS :=

# ---- the parts ------------------------------------------------------------------

include clframe/clframe.mk
include bench/cuda/cuda.mk
include $(sort $(wildcard apps/*/app.mk))
include tests/checked.mk

all: $(B)/libclframe.a $(B)/libclframe.so $(PROGRAMS)

PLAIN_C := $(shell grep -L '"clframe.h"' $(filter-out $(PLAIN_C_SKIP),\
    $(wildcard apps/*/*.c apps/*/programs/*.c) $(PLAIN_C_SOURCES)))
.PHONY: test-plain-c
test-plain-c:
	@$(foreach f,$(PLAIN_C),$(CC) $(filter-out -Iclframe -MMD -MP,$(ALL_CFLAGS)) \
	    $(PLAIN_C_FLAGS) -fsyntax-only $(f) &&) true
	@echo "test-plain-c: $(words $(PLAIN_C)) files of the apps build without clframe.h"

# ---- the two commands -------------------------------------------------------------

deps:
	@scripts/install-deps -q

# Each runs install-deps first, then itself again, so that pkg-config looks
# for Check (and GTK) only after they are installed. `make test` is the
# suites (with the docs' and the installed library's checks), then the same
# suites under the sanitizers and the fuzzers' corpora; `make check` is
# `make test`, then every suite under valgrind and Oclgrind; `make
# test-run` is the quick first part alone. The checked runs start with the
# longest (LONGEST_CHECKS), so that no long one is left running alone at
# the end while the other core idles.
test: deps
	@$(MAKE) --no-print-directory -j$(JOBS) -Otarget test-run
	@$(MAKE) --no-print-directory -j$(JOBS) -Otarget asan-run test-fuzz

check: test
	@$(MAKE) --no-print-directory -j$(JOBS) -Otarget $(LONGEST_CHECKS) \
	    valgrind-run oclgrind-run

test-run: test-plain-c $(addprefix test-,$(TESTS))

# The same suites on a GPU, and the docs' examples and the installed
# library's programs, one line each (scripts/test-gpu): `make test-gpu` on
# a machine with one, which is where most users run.
test-gpu: all $(addprefix $(BIN)/test-,$(TESTS))
	@scripts/test-gpu $(addprefix suite-,$(TESTS)) test-docs test-install \
	    demo-debug

# ---- benchmarks -------------------------------------------------------------------

# Each fragment's tables, with its sizes (its *_BENCH variables; the GPU
# machine's are beside them), a command a line.
define newline


endef
bench: all
	@mkdir -p bench/out
	$(foreach r,$(BENCH_RUNS),$(BENCH_$(r))$(newline))

clean:
	rm -rf build bin

-include $(shell find $(B) -name '*.d' 2>/dev/null)
