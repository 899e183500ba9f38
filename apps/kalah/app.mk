# app.mk: Mankalah: the GPU player's host walks run in parallel.
$(B)/apps/kalah/%.o: ALL_CFLAGS += $(OPENMP_FLAGS)
$(eval $(call app,kalah,$(OPENMP_FLAGS),common))

# `make bench`: the table's depths and runs (GPU machine: 4 13 3), and the
# alpha-beta table's (GPU machine: 10 16 3).
KALAH_BENCH ?= 4 9 3
KALAH_AB_BENCH ?= 6 10 3
BENCH_RUNS += kalah kalah-alphabeta
BENCH_kalah = $(BIN)/bench-kalah $(KALAH_BENCH)
BENCH_kalah-alphabeta = $(BIN)/bench-kalah-alphabeta $(KALAH_AB_BENCH)
