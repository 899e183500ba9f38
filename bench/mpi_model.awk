# mpi_model.awk: the scaling model of bench/RESULTS.md's "MPI (issue 23)"
# section. It reads bin/bench-mpi's table (its output, or those rows of
# RESULTS.md), checks the model against the 2-rank rows measured on one
# shared GPU, and predicts weak and strong scaling for 2 to 1024 GPUs.
#
#   awk -f bench/mpi_model.awk bench-mpi-output.txt
#
# A stretch of d steps (d = the halo's depth) on a rank of a slab W wide
# (slab.c): the tile rows whose output its neighbours need run first, their
# rows are read to the host on a second queue, sent and received by MPI
# while the other tiles run, and written back on the main queue after them:
#
#   stretch = max(d * compute, edge + read + mpi) + write + fixed
#
# compute: k tile rows of b output rows, k*b*W cells at c seconds each
# (c from the largest heat grid's 1-rank row); edge: its 1 or 2 edge tile
# rows, d steps; read, write: one copy per neighbour of m = d*W*4 bytes,
# each L + m/B; mpi: L + (neighbours * m)/B over one link, both ways at
# once; fixed: what an exchange cost beyond these where measured (0, or
# the largest such excess among the heat rows checked, or -v fixed_ms).
# Every time below is in seconds.

BEGIN {
    FS = "|"
    # Copies of a malloc'd (pageable) array enqueued and then waited for,
    # as slab.c's clarg_read_async/clarg_write_async are: bench-transfer's
    # "non-blocking + clFinish" on the H100 (RESULTS.md, "Data movement",
    # at 8385489), 64 KiB and 1 MiB, from which latency and bandwidth.
    fit("h2d", 65536, 31.9e-6, 1048576, 1048576 / 3.28e9)
    fit("d2h", 65536, 68.4e-6, 1048576, 1048576 / 3.87e9)
    # The same for pinned memory ("plain pinned"): a what-if, since the
    # slabs' host arrays are malloc'd.
    fit("h2d_pinned", 65536, 20.5e-6, 1048576, 1048576 / 15.61e9)
    fit("d2h_pinned", 65536, 17.8e-6, 1048576, 1048576 / 27.68e9)
    # Links: nominal figures, not measured here.
    L["nvlink"] = 2e-6;  B["nvlink"] = 300e9    # NVLink-class
    L["ib"] = 2e-6;      B["ib"] = 50e9         # InfiniBand NDR, 400 Gb/s
    L["shm"] = 1e-6;     B["shm"] = 10e9        # one node's shared memory
    side = 40000                                # the predictions' grid
}

# Latency and bandwidth through two measured copies (bytes, seconds).
function fit(path, m1, t1, m2, t2) {
    B[path] = (m2 - m1) / (t2 - t1)
    L[path] = t1 - m1 / B[path]
}

function copy(path, m) { return L[path] + m / B[path] }
function max(a, b) { return a > b ? a : b }
function min(a, b) { return a < b ? a : b }
function trim(s) { gsub(/^ +| +$/, "", s); return s }

# Tile rows run by a rank owning `rows` rows under `above` halo rows.
function tile_rows(rows, above) {
    return int((above + rows - 1) / b) - int(above / b) + 1
}

# One step on the slowest rank of R over a width x (R * rows) grid, cells
# at c s each; staging "pageable", "pinned" or "direct" (device to device).
function step(R, rows, width, link, staging, fixed,    nb, k, m, t, edge,
              read, write, mpi) {
    nb = R == 1 ? 0 : R == 2 ? 1 : 2
    k = tile_rows(rows, R == 1 ? 0 : d)
    t = k * b * width * c
    if (nb == 0)
        return t
    m = d * width * 4
    edge = min(nb, k) * b * width * c * d
    read = write = 0
    if (staging == "pageable") {
        read = nb * copy("d2h", m); write = nb * copy("h2d", m)
    } else if (staging == "pinned") {
        read = nb * copy("d2h_pinned", m); write = nb * copy("h2d_pinned", m)
    }
    mpi = L[link] + nb * m / B[link]
    return (max(d * t, edge + read + mpi) + write + fixed) / d
}

$2 ~ /^ *(heat|laplace) *$/ && $5 + 0 > 0 {
    app = trim($2); ranks = trim($4); split(trim($3), g, " ")
    split(trim($9), shape, ", *")
    if (ranks == "1") {
        row = app " " g[1]
        rows_seen[++count] = row
        n[row] = g[1]; t1[row] = $5 / 1e3
        tb[row] = shape[1]; td[row] = shape[2]
        if (app == "heat" && g[1] + 0 > c_side + 0)
            c_side = g[1]
    } else if (ranks ~ /apart/) {
        apart[row] = $5 / 1e3; each[row] = g[1]
    } else {
        tR[row] = $5 / 1e3; R[row] = ranks + 0
    }
}

END {
    if (c_side == "") {
        print "mpi_model.awk: no 1-rank heat row in the input" > "/dev/stderr"
        exit 1
    }
    check()
    predict()
}

# The model against 2 ranks sharing one GPU: their tiles take turns on it,
# so compute is both ranks' cells at the 1-rank rate (ideal sharing) or
# at the rate measured with the ranks apart (sharing's own cost included).
function check(    i, row, N, h, k, shared, ideal, chain, m, T, model_ideal) {
    printf "Check: 2 ranks sharing one GPU, ms per step (fixed = 0)\n\n"
    excess_ms = 0
    printf "| grid | 1 rank | apart | 2 ranks measured | model, ideal sharing "
    printf "| error | model, sharing as measured apart | error |\n"
    printf "|---|---:|---:|---:|---:|---:|---:|---:|\n"
    for (i = 1; i <= count; i++) {
        row = rows_seen[i]
        if (R[row] != 2 || apart[row] == "")
            continue
        N = n[row]; b = tb[row]; d = td[row]; c = t1[row] / (N * N)
        h = int((N + 1) / 2)
        k = tile_rows(h, 0) + tile_rows(N - h, d)      # both ranks' tiles
        ideal = k * b * N * c
        shared = apart[row] * k * b * N / (2 * each[row] * each[row])
        m = d * N * 4
        chain = b * N * c * d * 2 + copy("d2h", m) + L["shm"] + m / B["shm"]
        T = max(d * ideal, chain) + copy("h2d", m)
        model_ideal = T / d
        T = max(d * shared, chain) + copy("h2d", m)
        if (row ~ /^heat/ && (T / d < tR[row]) && \
            (tR[row] - T / d) * d * 1e3 > excess_ms)
            excess_ms = (tR[row] - T / d) * d * 1e3
        printf "| %s x %s | %.4f | %.4f | %.4f | %.4f | %+.0f %% | %.4f | " \
               "%+.0f %% |\n", row, N, t1[row] * 1e3, apart[row] * 1e3,
               tR[row] * 1e3, model_ideal * 1e3,
               100 * (model_ideal / tR[row] - 1), T / d * 1e3,
               100 * (T / d / tR[row] - 1)
    }
}

# Efficiency for 2 to 1024 GPUs, each rank on a GPU of its own.
function predict(    R, rows, base, weak_base, fixed) {
    row = "heat " c_side
    b = tb[row]; d = td[row]; c = t1[row] / (c_side * c_side)
    if (fixed_ms == "")
        fixed_ms = excess_ms + 0
    fixed = fixed_ms / 1e3
    printf "\nPredictions: heat, c = %.3f ps per cell-step (the 1-rank %s x %s" \
           " row), %d-row tiles, %d steps per exchange; copies L + m/B: " \
           "pageable %.1f us + m / %.2f GB/s to the device, %.1f us + m / " \
           "%.2f GB/s back; pinned %.1f us + m / %.1f GB/s, %.1f us + m / " \
           "%.1f GB/s; fixed: %.2f ms per exchange where named (the largest" \
           " excess over the model among the heat rows checked)\n\n",
           c * 1e12, c_side, c_side, b, d, L["h2d"] * 1e6, B["h2d"] / 1e9,
           L["d2h"] * 1e6, B["d2h"] / 1e9, L["h2d_pinned"] * 1e6,
           B["h2d_pinned"] / 1e9, L["d2h_pinned"] * 1e6,
           B["d2h_pinned"] / 1e9, fixed_ms
    base = step(1, side, side, "ib", "pageable", 0)
    weak_base = base
    printf "Strong scaling, a %d x %d world (efficiency t1 / (R tR); t1 " \
           "= %.3f ms per step):\n\n", side, side, base * 1e3
    header()
    for (R = 2; R <= 1024; R *= 2) {
        rows = int((side + R - 1) / R)
        line(R, rows, base / R)
    }
    printf "\nWeak scaling, a %d x %d slab per GPU (efficiency t1 / tR; " \
           "t1 = %.3f ms per step):\n\n", side, side, weak_base * 1e3
    header()
    for (R = 2; R <= 1024; R *= 2)
        line(R, side, weak_base)
}

function header() {
    printf "| GPUs | rows per rank | ms per step, IB NDR, pageable | IB NDR, " \
           "pageable | IB NDR, pageable, + fixed | NVLink, pageable | IB NDR, " \
           "pinned | NVLink, device to device |\n"
    printf "|---:|---:|---:|---:|---:|---:|---:|---:|\n"
}

# A row: the step time of the first model, and each model's efficiency
# against `ideal` seconds per step.
function line(R, rows, ideal,    t) {
    t = step(R, rows, side, "ib", "pageable", 0)
    printf "| %d | %d | %.4f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", R, rows,
           t * 1e3, ideal / t,
           ideal / step(R, rows, side, "ib", "pageable", fixed_ms / 1e3),
           ideal / step(R, rows, side, "nvlink", "pageable", 0),
           ideal / step(R, rows, side, "ib", "pinned", 0),
           ideal / step(R, rows, side, "nvlink", "direct", 0)
}
