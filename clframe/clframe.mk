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
# The version N of /usr/lib/llvm-N that local_malloc opens first, for a
# package to depend on (debian/rules); empty for /usr/include's headers.
.PHONY: libclang-version
libclang-version:
	@echo $(LIBCLANG_VERSION)

$(B)/libclframe.a: $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

# The version: clframe.h's CLFRAME_VERSION_* macros, its one place.
clframe_version_part = $(shell awk '$$1 ~ /^.define$$/ && \
    $$2 == "CLFRAME_VERSION_$(1)" {print $$3}' clframe/clframe.h)
CLFRAME_VERSION_MAJOR := $(call clframe_version_part,MAJOR)
CLFRAME_VERSION_MINOR := $(call clframe_version_part,MINOR)
CLFRAME_VERSION_PATCH := $(call clframe_version_part,PATCH)
CLFRAME_VERSION := \
    $(CLFRAME_VERSION_MAJOR).$(CLFRAME_VERSION_MINOR).$(CLFRAME_VERSION_PATCH)
ifneq ($(words $(CLFRAME_VERSION_MAJOR) $(CLFRAME_VERSION_MINOR) $(CLFRAME_VERSION_PATCH)),3)
$(error clframe/clframe.h: CLFRAME_VERSION_MAJOR, _MINOR and _PATCH not found)
endif

# The shared library carries its ABI's version in its SONAME, so a program
# linked against it finds a version it was built for: libclframe.so.MAJOR,
# MAJOR rising when the ABI changes. The file is
# libclframe.so.MAJOR.MINOR.PATCH, the SONAME a link to it, and
# libclframe.so a link to link with. It exports clframe.h's functions
# alone (clframe/clframe.map), not the clf_* that its files share, so its
# ABI is its API (debian/libclframe1.symbols holds the list).
SOVERSION := $(CLFRAME_VERSION_MAJOR)
$(B)/libclframe.so.$(CLFRAME_VERSION): $(LIB_OBJ) clframe/clframe.map
	$(CC) -shared $(LDFLAGS) -Wl,-soname,libclframe.so.$(SOVERSION) \
	    -Wl,--version-script=clframe/clframe.map -o $@ $(LIB_OBJ) $(LDLIBS)

$(B)/libclframe.so.$(SOVERSION): $(B)/libclframe.so.$(CLFRAME_VERSION)
	ln -sf libclframe.so.$(CLFRAME_VERSION) $@

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

# What `make install` installs that the build makes: the library and its
# tools, which `make library` builds alone (debian/rules does).
LIBRARY_AND_TOOLS := $(B)/libclframe.a $(B)/libclframe.so $(BIN)/clframe-info \
                     $(BIN)/clframe-local-malloc $(TRACE_TOOL)
.PHONY: library
library: $(LIBRARY_AND_TOOLS)

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
# must not be shadowed by anything of clframe's (tests/install/check). It
# runs make install itself, which shares this make's jobs (+).
.PHONY: test-install
test-clframe: test-install
test-install: export CLFRAME_DEVICE ?= cpu
test-install: $(LIBRARY_AND_TOOLS)
	+tests/install/check

# The Debian packages (debian/) built from a copy of the tree, checked by
# lintian, unpacked into a scratch root and used from there as a user
# would (tests/debian/check); skipped, saying so, where Debian's packaging
# tools are missing (scripts/install-deps installs them). `make test`
# runs it.
.PHONY: test-debian
test-run: test-debian
test-debian: export CLFRAME_DEVICE ?= cpu
test-debian:
	JOBS=$(JOBS) tests/debian/check

# `make docs`: the API reference, $(B)/docs/html, made by Doxygen from
# clframe.h's comments (docs/Doxyfile). Any warning fails it, a public name
# without a doc comment among them; a failed build leaves no reference
# behind, so that the next make builds it again.
DOXYGEN := $(shell command -v doxygen 2>/dev/null)
.PHONY: docs
docs: deps
	@$(MAKE) --no-print-directory $(B)/docs/html/index.html

$(B)/docs/html/index.html: clframe/clframe.h docs/Doxyfile docs/mainpage.dox
	rm -rf $(B)/docs/html
	@mkdir -p $(B)/docs
	(cat docs/Doxyfile; echo "OUTPUT_DIRECTORY = $(B)/docs") | doxygen - \
	    || { rm -rf $(B)/docs/html; exit 1; }

# clframe-trace on traces made by hand, whose answers are known, and on
# input that is not a trace (tests/trace/check).
.PHONY: test-trace-tool
test-clframe: $(if $(TRACE_TOOL),test-trace-tool)
test-trace-tool: $(TRACE_TOOL)
	tests/trace/check $(TRACE_TOOL)

# Every example of README.md, docs/*.md and clframe.h, taken from the
# text, built and run, the example header of docs/sharing.md checked on
# both sides (tests/docs/check), and the API reference built (where doxygen
# is installed, as `make test` makes sure).
.PHONY: test-docs check-layers check-comments
test-clframe: test-docs check-layers check-comments
# The library's core depends on none of its source tools (docs/design.md).
check-layers:
	scripts/check-layers

# No comment in the code, the Makefiles or the scripts names a date, a
# commit or an issue: figures and their dates live in bench/RESULTS.md.
check-comments:
	scripts/check-comments

test-docs: export CLFRAME_DEVICE ?= cpu
test-docs: $(B)/libclframe.a $(if $(DOXYGEN),$(B)/docs/html/index.html)
	CC="$(CC)" CXX="$(CXX)" tests/docs/check
	$(if $(DOXYGEN),,@echo "test-docs: no doxygen, so the API reference" \
	    "was not built (scripts/install-deps installs it)")

# The checked runs: the library's valgrind run, the longest, is spread over
# processes (CLFRAME_TEST_PART) so that the cores share it, and it and its
# Oclgrind run start first (tests/checked.mk).
VALGRIND_PARTS_clframe = 4
LONGEST_CHECKS += oclgrind-test-clframe valgrind-test-clframe

# ---- install ----------------------------------------------------------------------

# The library alone: its archives (in LIBDIR), clframe.h, clframe-info,
# clframe-local-malloc, clframe-trace, clframe.pc (its Version clframe.h's, its libdir
# LIBDIR), CMake's package files (LIBDIR/cmake/clframe: clframeConfig.cmake,
# which finds the prefix from its own place, and its version file, whose
# pointer size is the compiler's), and its device library (compiled into
# it as well) for host code that shares its headers:
# include/clframe/shared.h, share/clframe/kernels/.
CMAKEDIR = $(DESTDIR)$(LIBDIR)/cmake/clframe
SIZEOF_VOID_P = $(or $(shell echo __SIZEOF_POINTER__ | $(CC) $(CFLAGS) -E -P -), \
    $(error $(CC) does not say its pointer size))
# The prefix as clframeConfig.cmake finds it from LIBDIR: a ".." per folder
# of LIBDIR below PREFIX (lib: one; lib/x86_64-linux-gnu: two), or PREFIX
# itself when LIBDIR lies elsewhere.
LIBDIR_BELOW_PREFIX = $(patsubst $(PREFIX)/%,%,$(LIBDIR))
CMAKE_PREFIX_FROM_LIBDIR = $(if $(filter $(LIBDIR),$(LIBDIR_BELOW_PREFIX)),$(PREFIX),$${_clframe_libdir}$(subst $(eval) ,,$(foreach d,$(subst /, ,$(LIBDIR_BELOW_PREFIX)),/..)))
.PHONY: install uninstall
install: $(LIBRARY_AND_TOOLS)
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PREFIX)/include/clframe \
	    $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(LIBDIR)/pkgconfig \
	    $(DESTDIR)$(PREFIX)/share/clframe $(CMAKEDIR)
	install -m 644 $(B)/libclframe.a $(B)/libclframe.so.$(CLFRAME_VERSION) \
	    $(DESTDIR)$(LIBDIR)
	ln -sf libclframe.so.$(CLFRAME_VERSION) \
	    $(DESTDIR)$(LIBDIR)/libclframe.so.$(SOVERSION)
	ln -sf libclframe.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libclframe.so
	install -m 644 clframe/clframe.h $(DESTDIR)$(PREFIX)/include
	install -m 644 clframe/kernels/clframe/shared.h $(DESTDIR)$(PREFIX)/include/clframe
	install -m 755 $(BIN)/clframe-info $(BIN)/clframe-local-malloc \
	    $(TRACE_TOOL) $(DESTDIR)$(PREFIX)/bin
	cp -r clframe/kernels $(DESTDIR)$(PREFIX)/share/clframe/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(CLFRAME_VERSION)|' \
	    -e 's|@LIBDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))|' \
	    clframe/clframe.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/clframe.pc
	sed -e 's|@VERSION@|$(CLFRAME_VERSION)|' -e 's|@SOVERSION@|$(SOVERSION)|' \
	    -e 's|@PREFIX_FROM_LIBDIR@|$(CMAKE_PREFIX_FROM_LIBDIR)|' \
	    clframe/clframeConfig.cmake.in > $(CMAKEDIR)/clframeConfig.cmake
	sed -e 's|@VERSION@|$(CLFRAME_VERSION)|' \
	    -e 's|@MAJOR@|$(CLFRAME_VERSION_MAJOR)|' \
	    -e 's|@SIZEOF_VOID_P@|$(SIZEOF_VOID_P)|' \
	    clframe/clframeConfigVersion.cmake.in \
	    > $(CMAKEDIR)/clframeConfigVersion.cmake

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libclframe.a $(DESTDIR)$(LIBDIR)/libclframe.so \
	    $(DESTDIR)$(LIBDIR)/libclframe.so.$(SOVERSION) \
	    $(DESTDIR)$(LIBDIR)/libclframe.so.$(CLFRAME_VERSION) \
	    $(DESTDIR)$(PREFIX)/include/clframe.h $(DESTDIR)$(PREFIX)/bin/clframe-info \
	    $(DESTDIR)$(PREFIX)/bin/clframe-local-malloc \
	    $(DESTDIR)$(PREFIX)/bin/clframe-trace \
	    $(DESTDIR)$(LIBDIR)/pkgconfig/clframe.pc
	rm -rf $(DESTDIR)$(PREFIX)/share/clframe $(DESTDIR)$(PREFIX)/include/clframe \
	    $(CMAKEDIR)
