# clframe.mk: the library's part of the build, included by the root
# Makefile: the library itself, its tools, its benchmarks (bench/), its
# test suites and harnesses (tests/), the checks of its docs and of its
# installed copy, and `make install`. Nothing here reads apps/.

# ---- the library ---------------------------------------------------------------

# Its device library (clframe/kernels: the shared host/device header, the
# group functions, MWC64X) is compiled in, keyed as kernels include it.
$(eval $(call embed,clframe/sources,clf_library_sources,clframe/kernels,.))
# The core (clframe/core) and the source tools above it (clframe/source):
# docs/design.md draws the layers, scripts/check-layers checks them.
LIB_OBJ := $(patsubst %.c,$(B)/%.o,$(wildcard clframe/core/*.c clframe/source/*.c)) \
           $(B)/gen/clframe/sources.o

# local_malloc's rewrite reads libclang's C API headers (libclang-dev); the
# library itself is opened at run time, only by sources that allocate.
LIBCLANG_INCLUDE := $(patsubst %/clang-c/Index.h,%,$(firstword \
    $(wildcard /usr/include/clang-c/Index.h) \
    $(sort $(wildcard /usr/lib/llvm-*/include/clang-c/Index.h))))
ifeq ($(LIBCLANG_INCLUDE),)
$(B)/clframe/source/localmalloc.o: ALL_CFLAGS += -DCLF_NO_LIBCLANG_HEADERS
endif
LIBCLANG_VERSION := $(patsubst /usr/lib/llvm-%/include,%,$(filter /usr/lib/llvm-%,$(LIBCLANG_INCLUDE)))
$(B)/clframe/source/localmalloc.o: ALL_CFLAGS += $(if $(LIBCLANG_INCLUDE),-isystem $(LIBCLANG_INCLUDE)) \
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
# clframe-trace reads traces with json-c (libjson-c-dev); its reader is a
# file of its own, which the library's tests and its fuzzing harness link.
# Without json-c (a GPU machine may lack it) the tool is not built and the
# trace suite writes traces without reading them back, saying so.
JSON_C_LIBS := $(shell pkg-config --libs json-c 2>/dev/null)
ifneq ($(JSON_C_LIBS),)
TRACE_READ := $(B)/clframe/tools/trace/read.o
TRACE_TOOL := $(BIN)/clframe-trace
$(B)/tests/test_trace.o: ALL_CFLAGS += -DCLFRAME_HAVE_JSON_C
$(eval $(call link,clframe-trace,$(B)/clframe/tools/trace/trace.o \
  $(B)/clframe/tools/trace/timeline.o $(TRACE_READ),$(JSON_C_LIBS)))
else
$(info note: not building clframe-trace: json-c is not installed (libjson-c-dev))
endif

# The library's benchmarks: bench/NAME.c is bin/bench-NAME, its kernels
# (bench/kernels) compiled in; what they share is bench/bench.h.
$(eval $(call embed,bench/sources,bench_kernel_sources,.,bench/kernels))
$(foreach p,$(notdir $(basename $(wildcard bench/*.c))),\
  $(eval $(call link,bench-$(p),$(B)/bench/$(p).o $(B)/gen/bench/sources.o)))

# `make bench`: the data movement table's runs and largest array (GPU
# machine: 5 1G).
TRANSFER_BENCH ?= 5 16M
BENCH_RUNS += overhead call cache localmalloc transfer
BENCH_overhead = $(BIN)/bench-overhead
BENCH_call = $(BIN)/bench-call
BENCH_cache = $(BIN)/bench-cache
BENCH_localmalloc = $(BIN)/bench-localmalloc
BENCH_transfer = $(BIN)/bench-transfer $(TRANSFER_BENCH)

# ---- its tests -------------------------------------------------------------------

$(B)/tests/%.o: ALL_CFLAGS += $(TEST_CFLAGS)
# Its tests run the library's tools from beside it (every tree builds them).
# Its trace suite reads what it wrote with clframe-trace's reader.
$(eval $(call test_binary,clframe,$(patsubst %.c,$(B)/%.o,$(filter-out tests/support.c,$(wildcard tests/*.c))) \
  $(TRACE_READ),$(JSON_C_LIBS),$(BIN)/clframe-local-malloc $(BIN)/clframe-info))

# Its fuzzing harnesses, tests/fuzz/NAME.c (the library's parsers).
# FUZZ_OBJECTS_NAME: what harness NAME links beside itself and the library,
# FUZZ_LDLIBS_NAME the libraries it needs more.
FUZZ_OBJECTS_localmalloc-args := $(LOCAL_MALLOC_ARGS)
FUZZ_OBJECTS_trace := $(TRACE_READ)
FUZZ_LDLIBS_trace := $(JSON_C_LIBS)
$(foreach p,$(filter-out $(if $(TRACE_READ),,trace),\
                         $(notdir $(basename $(wildcard tests/fuzz/*.c)))),\
  $(eval $(call fuzz_target,$(p),$(B)/tests/fuzz/$(p).o $(FUZZ_OBJECTS_$(p)),$(FUZZ_LDLIBS_$(p)),tests/fuzz/$(p))))

# The installed library used as a user would: their own kernels/demo/vadd.cl
# must not be shadowed by anything of clframe's (tests/install/check).
.PHONY: test-install
test-clframe: test-install
test-install: export CLFRAME_DEVICE ?= cpu
test-install: $(B)/libclframe.a $(B)/libclframe.so $(BIN)/clframe-info \
              $(BIN)/clframe-local-malloc $(TRACE_TOOL)
	tests/install/check

# clframe-trace on traces made by hand, whose answers are known, and on
# input that is not a trace (tests/trace/check).
.PHONY: test-trace-tool
test-clframe: $(if $(TRACE_TOOL),test-trace-tool)
test-trace-tool: $(TRACE_TOOL)
	tests/trace/check $(TRACE_TOOL)

# Every example of README.md and clframe.h, taken from the text, built and
# run, and the example header of docs/sharing.md checked on both sides
# (tests/docs/check).
.PHONY: test-docs check-layers
test-clframe: test-docs check-layers
# The library's core depends on none of its source tools (docs/design.md).
check-layers:
	scripts/check-layers

test-docs: export CLFRAME_DEVICE ?= cpu
test-docs: $(B)/libclframe.a
	CC="$(CC)" CXX="$(CXX)" tests/docs/check

# The checked runs: the library's valgrind run, the longest, is spread over
# processes (CLFRAME_TEST_PART) so that the cores share it, and it and its
# Oclgrind run start first (tests/checked.mk).
VALGRIND_PARTS_clframe = 4
LONGEST_CHECKS += oclgrind-test-clframe valgrind-test-clframe

# ---- install ----------------------------------------------------------------------

# The library alone: its archives, clframe.h, clframe-info,
# clframe-local-malloc, clframe-trace, clframe.pc, and
# its device library (compiled into it as well) for host code that shares
# its headers: include/clframe/shared.h, share/clframe/kernels/.
.PHONY: install uninstall
install: $(B)/libclframe.a $(B)/libclframe.so $(BIN)/clframe-info \
         $(BIN)/clframe-local-malloc $(TRACE_TOOL)
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/clframe \
	    $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	    $(DESTDIR)$(PREFIX)/share/clframe
	install -m 644 $(B)/libclframe.a $(B)/libclframe.so.$(SOVERSION) \
	    $(DESTDIR)$(PREFIX)/lib
	ln -sf libclframe.so.$(SOVERSION) $(DESTDIR)$(PREFIX)/lib/libclframe.so
	install -m 644 clframe/clframe.h $(DESTDIR)$(PREFIX)/include
	install -m 644 clframe/kernels/clframe/shared.h $(DESTDIR)$(PREFIX)/include/clframe
	install -m 755 $(BIN)/clframe-info $(BIN)/clframe-local-malloc \
	    $(TRACE_TOOL) $(DESTDIR)$(PREFIX)/bin
	cp -r clframe/kernels $(DESTDIR)$(PREFIX)/share/clframe/
	sed -e 's|@PREFIX@|$(PREFIX)|' clframe/clframe.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/clframe.pc

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/lib/libclframe.a $(DESTDIR)$(PREFIX)/lib/libclframe.so \
	    $(DESTDIR)$(PREFIX)/lib/libclframe.so.$(SOVERSION) \
	    $(DESTDIR)$(PREFIX)/include/clframe.h $(DESTDIR)$(PREFIX)/bin/clframe-info \
	    $(DESTDIR)$(PREFIX)/bin/clframe-local-malloc \
	    $(DESTDIR)$(PREFIX)/bin/clframe-trace \
	    $(DESTDIR)$(PREFIX)/lib/pkgconfig/clframe.pc
	rm -rf $(DESTDIR)$(PREFIX)/share/clframe $(DESTDIR)$(PREFIX)/include/clframe
