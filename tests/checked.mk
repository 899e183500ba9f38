# checked.mk: the checked runs, included by the root Makefile after the
# library's and the apps' fragments (it runs every test binary they
# registered in TESTS): each suite again under AddressSanitizer+UBSan,
# valgrind and Oclgrind, and the fuzzing tree that replays every corpus.
#
# A fragment can adjust one binary NAME's runs: ASAN_RUNNER_NAME (a command
# that runs the binary), ASAN_LEAKS_NAME=0, VALGRIND_SUPP_NAME (more
# suppressions), VALGRIND_PARTS_NAME (processes to spread valgrind over),
# OCLGRIND_RANKS_NAME (scripts/check-oclgrind's options).

# Each test binary runs again under AddressSanitizer+UBSan, valgrind and
# Oclgrind, each run its own target (asan-test-NAME, ...) so that `make -j`
# runs them side by side, the longest first (LONGEST_CHECKS). The sanitized
# runs reuse the kernels PoCL compiled for the plain runs (TEST_CACHE).
# Valgrind runs one thread at a time, so PoCL gets one worker thread there.
# Under valgrind PoCL sees valgrind's CPU (no AVX-512) and would compile for
# another target than the plain runs did, slowly, under memcheck. So the
# valgrind runs name PoCL's AVX2 kernel library (POCL_KERNELLIB_NAME),
# which is what it picks under valgrind, and each goes first natively with
# the same settings and the checked runs' sizes (CLFRAME_TEST_SIZES=checked):
# PoCL compiles the same kernels for the same key natively, and memcheck
# loads them from the cache.
.PHONY: check-asan check-valgrind check-oclgrind asan-run valgrind-run oclgrind-run
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
$(eval $(call link,planted-oob,$(B)/tests/oclgrind/planted_oob.o))
oclgrind-planted: $(BIN)/planted-oob
	scripts/check-oclgrind --planted $(BIN)/planted-oob

# $(call parts,NAME) numbers binary NAME's valgrind parts.
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
