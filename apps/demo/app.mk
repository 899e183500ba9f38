# app.mk: the demo table, which runs a small case of every app: its rows
# are each app's apps/NAME/demo/*.c, compiled into the demo alone; the
# table, its helpers and its own vadd row are here. `make demo` installs
# what is missing, builds, and runs it on the best device.
DEMO_ROWS := $(wildcard apps/*/demo/*.c)
APP_OBJECTS_demo := $(patsubst %.c,$(B)/%.o,$(DEMO_ROWS))
PLAIN_C_SOURCES += $(DEMO_ROWS)
$(eval $(call app,demo,,heat raytracer matmul laplace blur kalah societies md common))

.PHONY: demo demo-run
demo: deps
	@$(MAKE) --no-print-directory demo-run

demo-run: all
	$(BIN)/clframe-info
	@echo
	$(BIN)/clframe-demo

# Every row again with CL_DEBUG=1, whose -g -cl-opt-disable builds each
# kernel unoptimised: a driver that compiles a kernel only when optimising
# (an `inline` function left undefined, say) fails here. `make test-gpu`
# runs it on the GPU.
.PHONY: demo-debug
demo-debug: all
	CL_DEBUG=1 $(BIN)/clframe-demo

# `make bench`: the table of defaults (every app's default on this device
# against its C reference and OpenMP version, bench-defaults): runs per row.
DEFAULTS_BENCH ?= 3
BENCH_RUNS += defaults
BENCH_defaults = $(BIN)/bench-defaults $(DEFAULTS_BENCH)

# The timelines docs/tracing.md shows, made on this machine's device from
# two apps (scripts/trace-pictures: its sizes and windows).
.PHONY: trace-pictures
trace-pictures: $(BIN)/clframe-trace $(BIN)/matmul $(BIN)/make_world \
                $(BIN)/step_world_mpi
	scripts/trace-pictures
