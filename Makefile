# clframe: one non-recursive GNU Make build.
#
#   make            library (build/libclframe.a, .so) and programs (bin/)
#   make test       installs missing packages, builds, runs every Check suite,
#                   then again under AddressSanitizer+UBSan, Oclgrind, valgrind
#   make test-run   the suites alone (quick)
#   make demo       installs missing packages, builds, runs the demo table
#   make bench      benchmarks (set CLFRAME_DEVICE=gpu on the GPU machine)
#   make check-oclgrind  the suites under Oclgrind (bounds, races, uninitialized)
#   make check-asan / check-valgrind
#                   the test suite under AddressSanitizer+UBSan / memcheck
#   make install    PREFIX=/usr/local DESTDIR=
#   make clean
#
# CC=clang works as well as gcc. Objects go to build/, programs to bin/.

CC      ?= cc
PREFIX  ?= /usr/local
DESTDIR ?=
B       ?= build
BIN     ?= bin

CFLAGS  ?= -O2 -g
ALL_CFLAGS = -std=c11 -Wall -Wextra -Werror -Wno-psabi -fPIC -pthread \
             -D_XOPEN_SOURCE=700 -DCL_TARGET_OPENCL_VERSION=120 \
             -DCLFRAME_DATADIR='"$(PREFIX)/share/clframe"' \
             -Iclframe -Ikernels -Iapps -MMD -MP $(CFLAGS) $(EXTRA_CFLAGS)
LDLIBS  = -lOpenCL -lm -pthread

CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   := $(shell pkg-config --libs check 2>/dev/null)


.PHONY: all test test-run demo demo-run bench install uninstall clean \
        check-asan check-valgrind asan-run valgrind-run deps \
        check-oclgrind oclgrind-run
.DEFAULT_GOAL := all

# ---- the library -----------------------------------------------------------

LIB_SRC  := $(wildcard clframe/*.c)
LIB_OBJ  := $(LIB_SRC:%.c=$(B)/%.o) $(B)/gen/embedded_sources.o
KERNEL_SOURCES := $(shell find kernels shims -type f \( -name '*.cl' -o -name '*.h' \) 2>/dev/null | LC_ALL=C sort)

$(B)/gen/embedded_sources.c: scripts/embed-sources $(KERNEL_SOURCES)
	@mkdir -p $(@D)
	scripts/embed-sources $@ kernels shims

$(B)/libclframe.a: $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

$(B)/libclframe.so: $(LIB_OBJ)
	$(CC) -shared -o $@ $^ $(LDLIBS)

# ---- programs: one folder of .c files each ----------------------------------

# $(call program,name,folder,extra libs,app libraries)
define program
$(BIN)/$(1): $(patsubst %.c,$(B)/%.o,$(wildcard $(2)/*.c)) $(4) $(B)/libclframe.a
	@mkdir -p $$(@D)
	$$(CC) $$(ALL_CFLAGS) -o $$@ $$^ $(3) $$(LDLIBS)
PROGRAMS += $(BIN)/$(1)
endef

# GUI programs need GTK 3; without it they are skipped with a one-line note.
# $(call gui_program,name,folder,extra libs,app libraries)
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
# (A conditional must not be inside the define: call expands the nested
# eval before eval sees the conditional, so the rule was made regardless.)
gui_program = $(if $(GTK_LIBS),$(eval $(call gui_program_,$(1),$(2),$(3),$(4))),\
    $(info note: skipping $(1): GTK 3 is not installed or incomplete (install libgtk-3-dev)))
define gui_program_
$(patsubst %.c,$(B)/%.o,$(wildcard $(2)/*.c)): ALL_CFLAGS += $(GTK_CFLAGS)
$(call program,$(1),$(2),$(GTK_LIBS) $(3),$(4))
endef

# An application: every .c in apps/NAME is its library build/libNAME.a, and
# each apps/NAME/programs/PROG.c is the main of one program bin/PROG.
# $(call app,name,extra libs,other app libraries it uses)
define app
$(B)/lib$(1).a: $(patsubst %.c,$(B)/%.o,$(wildcard apps/$(1)/*.c))
	rm -f $$@
	ar rcs $$@ $$^
APP_LIBS += $(B)/lib$(1).a
APP_LDLIBS += $(2)
$(foreach p,$(notdir $(basename $(wildcard apps/$(1)/programs/*.c))),
$(BIN)/$(p): $(B)/apps/$(1)/programs/$(p).o $(B)/lib$(1).a $(3) $(B)/libclframe.a
	@mkdir -p $$(@D)
	$$(CC) $$(ALL_CFLAGS) -o $$@ $$^ $(2) $$(LDLIBS)
PROGRAMS += $(BIN)/$(p)
)
endef

# OpenMP for the CPU baselines; clang needs libomp-dev for it, or set
# OPENMP_FLAGS= to build them single-threaded.
OPENMP_FLAGS ?= -fopenmp
PNG_CFLAGS := $(shell pkg-config --cflags libpng 2>/dev/null)
PNG_LIBS   := $(shell pkg-config --libs libpng 2>/dev/null || echo -lpng)

# The heat reference must not fuse a*b+c (clang does by default, and with
# -march=native GCC could too): its output is compared with the kernels'
# bit for bit.
$(B)/apps/heat/%.o: ALL_CFLAGS += $(OPENMP_FLAGS) $(PNG_CFLAGS) -ffp-contract=off
$(eval $(call app,heat,$(OPENMP_FLAGS) $(PNG_LIBS),$(B)/libimage.a $(B)/libcommon.a))

# What several apps share: whole-word number parsing.
$(eval $(call app,common))

# PNG files for every app that reads or writes images.
$(B)/apps/image/%.o: ALL_CFLAGS += $(PNG_CFLAGS)
$(eval $(call app,image,$(PNG_LIBS)))

# The raytracer's reference is compared with its kernels pixel by pixel.
$(B)/apps/raytracer/%.o: ALL_CFLAGS += -ffp-contract=off
$(eval $(call app,raytracer,$(PNG_LIBS),$(B)/libimage.a $(B)/libcommon.a))
$(eval $(call gui_program,raytracer-gtk,apps/raytracer/gtk,$(PNG_LIBS),$(B)/libraytracer.a $(B)/libimage.a $(B)/libcommon.a))
$(eval $(call gui_program,x11-screenshot,tests/gui))

# The Laplace reference is compared with its kernels bit for bit.
$(B)/apps/laplace/%.o: ALL_CFLAGS += $(OPENMP_FLAGS) -ffp-contract=off
$(eval $(call app,laplace,$(OPENMP_FLAGS) $(PNG_LIBS),$(B)/libimage.a $(B)/libcommon.a))

# The blur's versions are compared with its reference byte for byte (all
# integer arithmetic); the reference's OpenMP twin.
$(B)/apps/blur/%.o: ALL_CFLAGS += $(OPENMP_FLAGS)
$(eval $(call app,blur,$(OPENMP_FLAGS) $(PNG_LIBS),$(B)/libimage.a $(B)/libcommon.a))

# Matrix multiplication: the C reference's OpenMP twin.
$(B)/apps/matmul/%.o: ALL_CFLAGS += $(OPENMP_FLAGS)
$(eval $(call app,matmul,$(OPENMP_FLAGS),$(B)/libcommon.a))

# Mankalah: the rules are kernels/kalah/board.h, shared with the device;
# the GPU player's host walks run in parallel.
$(B)/apps/kalah/%.o: ALL_CFLAGS += $(OPENMP_FLAGS)
$(eval $(call app,kalah,$(OPENMP_FLAGS),$(B)/libcommon.a))
# Societies: the model is kernels/societies/model.h, shared with the device.
$(B)/apps/societies/%.o: ALL_CFLAGS += $(OPENMP_FLAGS)
$(eval $(call app,societies,$(OPENMP_FLAGS),$(B)/libcommon.a))
# Molecular dynamics: the model is kernels/md/md_force.h, shared with the
# device; the host cell list runs on OpenMP.
$(B)/apps/md/%.o: ALL_CFLAGS += $(OPENMP_FLAGS)
$(eval $(call app,md,$(OPENMP_FLAGS),$(B)/libcommon.a))

$(eval $(call program,clframe-info,clframe/tools/info))
$(eval $(call program,clframe-demo,apps/demo,$(OPENMP_FLAGS) $(PNG_LIBS),$(B)/libheat.a $(B)/libraytracer.a $(B)/libmatmul.a $(B)/liblaplace.a $(B)/libblur.a $(B)/libkalah.a $(B)/libsocieties.a $(B)/libmd.a $(B)/libimage.a $(B)/libcommon.a))
$(eval $(call program,bench-overhead,bench/overhead))
$(eval $(call program,bench-cache,bench/cache))
$(eval $(call program,bench-heat,bench/heat,$(OPENMP_FLAGS) $(PNG_LIBS),$(B)/libheat.a $(B)/libimage.a $(B)/libcommon.a))
$(eval $(call program,bench-raytracer,bench/raytracer,$(PNG_LIBS),$(B)/libraytracer.a $(B)/libimage.a $(B)/libcommon.a))
$(eval $(call program,bench-laplace,bench/laplace,$(OPENMP_FLAGS) $(PNG_LIBS),$(B)/liblaplace.a $(B)/libimage.a $(B)/libcommon.a))
$(eval $(call program,bench-blur,bench/blur,$(OPENMP_FLAGS) $(PNG_LIBS),$(B)/libblur.a $(B)/libimage.a $(B)/libcommon.a))
$(eval $(call program,bench-matmul,bench/matmul,$(OPENMP_FLAGS) -lclblast,$(B)/libmatmul.a $(B)/libcommon.a))
$(eval $(call program,bench-kalah,bench/kalah,$(OPENMP_FLAGS),$(B)/libkalah.a $(B)/libcommon.a))
$(eval $(call program,bench-kalah-alphabeta,bench/kalah-alphabeta,$(OPENMP_FLAGS),$(B)/libkalah.a $(B)/libcommon.a))
$(eval $(call program,bench-societies,bench/societies,$(OPENMP_FLAGS),$(B)/libsocieties.a $(B)/libcommon.a))
$(eval $(call program,bench-md,bench/md,$(OPENMP_FLAGS),$(B)/libmd.a $(B)/libcommon.a))
$(eval $(call program,planted-oob,tests/oclgrind))

TEST_SRC := $(wildcard tests/*.c)
TEST_OBJ := $(TEST_SRC:%.c=$(B)/%.o)
$(TEST_OBJ): ALL_CFLAGS += $(CHECK_CFLAGS)
# The tests run the programs too (bin/step_world ...), from the same tree.
# The app libraries use one another (raytracer and heat use image): a group
# lets the linker resolve them in any order.
$(BIN)/test-clframe: $(TEST_OBJ) $(APP_LIBS) $(B)/libclframe.a | $(PROGRAMS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $(TEST_OBJ) -Wl,--start-group $(APP_LIBS) \
	    -Wl,--end-group $(B)/libclframe.a $(CHECK_LIBS) $(APP_LDLIBS) $(LDLIBS)

all: $(B)/libclframe.a $(B)/libclframe.so $(PROGRAMS)

$(B)/gen/%.o: $(B)/gen/%.c
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(B)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# ---- the two commands --------------------------------------------------------

deps:
	@scripts/install-deps -q

# Each runs install-deps first, then itself again, so that pkg-config looks
# for Check (and GTK) only after they are installed. `make test` is every
# check: the suites, then the same suites under the sanitizers, valgrind and
# Oclgrind; `make test-run` is the quick first part alone.
test: deps
	@$(MAKE) --no-print-directory test-run asan-run oclgrind-run valgrind-run

demo: deps
	@$(MAKE) --no-print-directory demo-run

demo-run: all
	$(BIN)/clframe-info
	@echo
	$(BIN)/clframe-demo

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
bench: all
	@mkdir -p bench/out
	$(BIN)/bench-overhead
	$(BIN)/bench-cache
	$(BIN)/bench-heat $(HEAT_BENCH)
	$(BIN)/bench-raytracer $(RAYTRACER_BENCH)
	$(BIN)/bench-laplace $(LAPLACE_BENCH)
	$(BIN)/bench-blur $(BLUR_BENCH)
	$(BIN)/bench-matmul $(MATMUL_BENCH)
	$(BIN)/bench-kalah $(KALAH_BENCH)
	$(BIN)/bench-kalah-alphabeta $(KALAH_AB_BENCH)
	$(BIN)/bench-societies $(SOCIETIES_BENCH)
	$(BIN)/bench-md $(MD_BENCH)

# ---- the test runs ----------------------------------------------------------

# Tests run on the CPU device (PoCL) unless told otherwise; the demo and
# the benchmarks use whatever device clframe chooses.
test-run asan-run valgrind-run: export CLFRAME_DEVICE ?= cpu

test-run: $(BIN)/test-clframe
	$(BIN)/test-clframe

check-asan: deps
	@$(MAKE) --no-print-directory asan-run

check-valgrind: deps
	@$(MAKE) --no-print-directory valgrind-run

# A separate build tree, so a sanitized library never mixes with the normal.
# The suppression files name only PoCL's and LLVM's own allocations.
asan-run:
	@$(MAKE) --no-print-directory B=build/asan BIN=build/asan/bin \
	    EXTRA_CFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
	    build/asan/bin/test-clframe
	ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
	    CK_FORK=no build/asan/bin/test-clframe

valgrind-run: $(BIN)/test-clframe
	CLFRAME_TEST_SWEEP=edges CK_FORK=no valgrind -q --error-exitcode=1 --leak-check=full \
	    --show-leak-kinds=definite --errors-for-leak-kinds=definite \
	    --suppressions=tests/valgrind.supp $(BIN)/test-clframe

# Oclgrind simulates the device and reports out-of-bounds accesses, data
# races and uninitialized values in kernels; a planted bug must be caught.
check-oclgrind: deps
	@$(MAKE) --no-print-directory oclgrind-run

oclgrind-run: $(BIN)/test-clframe $(BIN)/planted-oob
	CLFRAME_TEST_SWEEP=edges scripts/check-oclgrind $(BIN)/test-clframe

# ---- install -------------------------------------------------------------------

install: all
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include \
	    $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	    $(DESTDIR)$(PREFIX)/share/clframe
	install -m 644 $(B)/libclframe.a $(B)/libclframe.so $(DESTDIR)$(PREFIX)/lib
	install -d $(DESTDIR)$(PREFIX)/include/clframe
	install -m 644 clframe/clframe.h $(DESTDIR)$(PREFIX)/include
	install -m 644 kernels/clframe/shared.h $(DESTDIR)$(PREFIX)/include/clframe
	install -m 755 $(BIN)/clframe-info $(DESTDIR)$(PREFIX)/bin
	cp -r kernels shims $(DESTDIR)$(PREFIX)/share/clframe/
	sed -e 's|@PREFIX@|$(PREFIX)|' clframe/clframe.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/clframe.pc

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/lib/libclframe.a $(DESTDIR)$(PREFIX)/lib/libclframe.so \
	    $(DESTDIR)$(PREFIX)/include/clframe.h $(DESTDIR)$(PREFIX)/bin/clframe-info \
	    $(DESTDIR)$(PREFIX)/lib/pkgconfig/clframe.pc
	rm -rf $(DESTDIR)$(PREFIX)/share/clframe $(DESTDIR)$(PREFIX)/include/clframe

clean:
	rm -rf build bin

-include $(shell find $(B) -name '*.d' 2>/dev/null)
