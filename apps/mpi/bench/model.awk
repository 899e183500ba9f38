# model.awk: the scaling model of bench/history/mpi.md. It reads
# bin/bench-mpi's tables (its output, or those rows of
# bench/history/mpi.md), checks the model against every row of ranks on
# GPUs of their own, fits the cost an exchange has beyond it, and predicts
# weak and strong scaling for 2 to 1024 GPUs.
#
#   awk -f apps/mpi/bench/model.awk bench-mpi-output.txt
#   awk -v measured_design=0 -f ...     rows measured with halos written
#                                       after the interior
#
# A stretch of d steps (d = the halo's depth) on a rank with nb neighbours
# (slab.c), in launches of s = 4 steps over rows of b = 56 tiles, W cells
# wide: the edge tiles run first (E), the interior (I) while the host reads
# the rows sent (R) and trades them by MPI (M), and the halos are written
# (Wr), after the interior, or beside it on the copy stream as slab.c
# writes them (`measured_design` says which the rows were measured with:
# 0 after, 1 beside, the default):
#
#   stretch = E + max(I, R + M) + Wr + fixed    (halos written after)
#   stretch = E + max(I, R + M + Wr) + fixed    (beside, the default)
#   E + I = d x compute
#
# compute: the rank's rows of tiles, halos included, k*b*W cells at c
# seconds each (c from the 1-GPU row of the same job and grid; for the
# predictions, from the app's largest); E: with one launch a stretch, a
# row of tiles per neighbour; with several (the cone), launch j of K runs
# t + K - j rows of tiles per neighbour (t: those holding the rows sent);
# every launch takes at least `launch` (10 us); R, Wr: a copy per
# neighbour of m = d*W*4 bytes, L + m/B, pinned or pageable; M: L +
# nb*m/B over the link; fixed: what the rows measured cost beyond that per
# exchange (fitted: their median). Times in seconds.

BEGIN {
    FS = "|"
    # Copies enqueued and then waited for, fitted through bench-transfer's
    # 64 KiB and 1 MiB figures on the H100 (bench/history/transfers.md):
    # "non-blocking + clFinish" from malloc'd memory, "plain pinned".
    fit("h2d_pageable", 65536, 31.9e-6, 1048576, 1048576 / 3.28e9)
    fit("d2h_pageable", 65536, 68.4e-6, 1048576, 1048576 / 3.87e9)
    fit("h2d_pinned", 65536, 20.5e-6, 1048576, 1048576 / 15.61e9)
    fit("d2h_pinned", 65536, 17.8e-6, 1048576, 1048576 / 27.68e9)
    # Links: nominal figures, not measured here.
    L["shm"] = 5e-6;     B["shm"] = 10e9        # one node's shared memory
    L["ib"] = 2e-6;      B["ib"] = 50e9         # InfiniBand NDR, 400 Gb/s
    s = 4
    # The least a launch takes, however few its tiles (-v launch_us=X);
    # the 1-rank rows' launches are whole grids, far above it.
    launch = (launch_us == "" ? 10 : launch_us) * 1e-6
    design = measured_design == "" ? 1 : measured_design + 0
}

function fit(path, m1, t1, m2, t2) {
    B[path] = (m2 - m1) / (t2 - t1)
    L[path] = t1 - m1 / B[path]
}

function copy(path, m) { return L[path] + m / B[path] }
function max(a, b) { return a > b ? a : b }
function ceil(x) { return x == int(x) ? x : int(x) + 1 }
function trim(x) { gsub(/^ +| +$/, "", x); return x }

# Seconds per step of the middle rank of R on an N x N grid (app's c,
# b-row tiles), halos d deep, staging "pinned" or "pageable" over `link`,
# `fixed` seconds per exchange, the halos written beside the interior when
# `overlap`; the parts go to E, I, R_, M, Wr.
function step(app, N, R, d, staging, link, fixed, overlap,    nb, rows, W,
              tile, k, K, t, m, j) {
    nb = R == 1 ? 0 : R == 2 ? 1 : 2
    rows = N / R; W = N
    tile = b * W * c[app] * s                   # a row of tiles, a launch
    K = ceil(d / s)
    k = ceil((rows + nb * d) / b)
    if (nb == 0)
        return k * b * W * c[app]
    t = int((2 * d - 1) / b)
    E = 0                               # each launch at least `launch` s
    if (K == 1)
        E = nb * max((t + 1) * tile, launch)
    else
        for (j = 0; j < K; j++)
            E += nb * max((t + K - j) * tile, launch)
    I = max(d * k * b * W * c[app] - E, K * launch)
    m = d * W * 4
    R_ = nb * copy("d2h_" staging, m)
    Wr = nb * copy("h2d_" staging, m)
    M = L[link] + nb * m / B[link]
    if (overlap)
        return (E + max(I, R_ + M + Wr) + fixed) / d
    return (E + max(I, R_ + M) + Wr + fixed) / d
}

$2 ~ /^ *(heat|laplace) *$/ && $6 + 0 > 0 {
    app = trim($2); ranks = trim($4); split(trim($3), g, " ")
    split(trim($5), shape, ", *")
    if (ranks == "1") {
        c_grid[app " " g[1]] = $6 / 1e3 / (g[1] * g[1])
        if (g[1] + 0 >= side1[app] + 0) {
            side1[app] = g[1]
            c_big[app] = c_grid[app " " g[1]]
        }
        b = shape[1]
    } else if (ranks ~ /^[0-9]+$/ && ranks + 0 > 1) {
        n_rows++
        r_app[n_rows] = app; r_n[n_rows] = g[1]; r_R[n_rows] = ranks + 0
        r_d[n_rows] = shape[2]; r_staging[n_rows] = shape[3]
        r_ms[n_rows] = $6 + 0
        r_c[n_rows] = c_grid[app " " g[1]]      # the same job's one GPU
    }
}

END {
    if (n_rows == 0 || b == "") {
        print "model.awk: no rows of several ranks and their 1-rank " \
              "rows in the input" > "/dev/stderr"
        exit 1
    }
    check()
    predict()
}

# Each row against the model (fixed = 0), and what an exchange cost more.
function check(    i, t, excess, n, sorted, j, x, err0, err1) {
    printf "c: each row's from its own job's 1-GPU row on the same grid; " \
           "for the predictions, heat %.3f ps, Laplace %.3f ps per cell and " \
           "step (the largest grids'); %d-row tiles; copies pinned %.1f " \
           "us + m / %.1f GB/s to the device, %.1f us + m / %.1f GB/s back; MPI in one node %.0f " \
           "us + m / %.0f GB/s (nominal)\n\n", c_big["heat"] * 1e12,
           c_big["laplace"] * 1e12, b, L["h2d_pinned"] * 1e6,
           B["h2d_pinned"] / 1e9, L["d2h_pinned"] * 1e6,
           B["d2h_pinned"] / 1e9, L["shm"] * 1e6, B["shm"] / 1e9
    for (i = 1; i <= n_rows; i++) {
        c[r_app[i]] = r_c[i]
        t = step(r_app[i], r_n[i], r_R[i], r_d[i], r_staging[i], "shm", 0,
                 design)
        model0[i] = t
        excess[i] = (r_ms[i] / 1e3 - t) * r_d[i]       # s per exchange
        sorted[i] = excess[i]
    }
    n = n_rows                                          # median of excess
    for (i = 2; i <= n; i++)
        for (j = i; j > 1 && sorted[j - 1] > sorted[j]; j--) {
            x = sorted[j]; sorted[j] = sorted[j - 1]; sorted[j - 1] = x
        }
    if (n % 2)
        fixed = sorted[(n + 1) / 2]
    else
        fixed = (sorted[n / 2] + sorted[n / 2 + 1]) / 2
    printf "| app | grid | GPUs | depth, staging | measured ms | model ms " \
           "| error | excess per exchange, ms | model + fixed | error |\n"
    printf "|---|---|---:|---|---:|---:|---:|---:|---:|---:|\n"
    for (i = 1; i <= n_rows; i++) {
        c[r_app[i]] = r_c[i]
        t = step(r_app[i], r_n[i], r_R[i], r_d[i], r_staging[i], "shm",
                 fixed, design)
        err0 = 100 * (model0[i] * 1e3 / r_ms[i] - 1)
        err1 = 100 * (t * 1e3 / r_ms[i] - 1)
        printf "| %s | %d | %d | %d, %s | %.4f | %.4f | %+.0f %% | %.3f | " \
               "%.4f | %+.0f %% |\n", r_app[i], r_n[i], r_R[i], r_d[i],
               r_staging[i], r_ms[i], model0[i] * 1e3, err0,
               excess[i] * 1e3, t * 1e3, err1
        abs1 = err1 < 0 ? -err1 : err1
        if (abs1 > worst)
            worst = abs1
    }
    printf "\nfixed = %.3f ms per exchange (the median excess); with it " \
           "the model is within %.0f %% of every row (halos written %s).\n",
           fixed * 1e3, worst, (design ? "beside" : "after") " the interior"
}

# Weak (10000 x 10000 cells per GPU, a square grid) and strong scaling
# (heat 40000, Laplace 32000) from 2 to 1024 GPUs, halos 16 deep and
# pinned, with the fitted fixed cost: halos written after the interior
# and beside it; one node's MPI up to 8 GPUs, InfiniBand beyond. The last
# column is the plainest design: halos 4 deep, pageable, written after the
# interior.
function predict(    a, apps, R, N, link, one, strong, x, y, z, u, v, w) {
    split("heat laplace", apps, " ")
    for (a = 1; a <= 2; a++) {
        app = apps[a]
        c[app] = c_big[app]
        strong = app == "heat" ? 40000 : 32000
        printf "\n%s, efficiency (fixed %.3f ms per exchange):\n\n", app,
               fixed * 1e3
        printf "| GPUs | weak, halos written after | weak, beside | " \
               "strong %d, after | strong, beside | strong, issue 23's " \
               "design |\n" \
               "|---:|---:|---:|---:|---:|---:|\n", strong
        for (R = 2; R <= 1024; R *= 2) {
            N = 10000 * sqrt(R)
            link = R <= 8 ? "shm" : "ib"
            one = step(app, 10000, 1, 16, "pinned", link, 0, 0)
            x = one / step(app, N, R, 16, "pinned", link, fixed, 0)
            y = one / step(app, N, R, 16, "pinned", link, fixed, 1)
            one = step(app, strong, 1, 16, "pinned", link, 0, 0) / R
            u = one / step(app, strong, R, 16, "pinned", link, fixed, 0)
            v = one / step(app, strong, R, 16, "pinned", link, fixed, 1)
            w = one / step(app, strong, R, 4, "pageable", link, fixed, 0)
            printf "| %d | %.2f | %.2f | %.2f | %.2f | %.2f |\n", R, x, y,
                   u, v, w
        }
    }
}
