"""Throughput of IVFS's subset-loss kernel against plain GEMM, syrk and the gather-plus-GEMM floor, from one run.

For each subset shape (n~ samples x d~ features, on an n x d matrix of the sizes
of the IVFS datasets) the script times, interleaved and best of ``--repeat``:

* ``kernel``: ``subset_losses`` on k random subsets (gather, Gram, distances,
  normalisation, loss: everything a fit spends per subset);
* ``gemm``: ``np.matmul(A, C^T)`` on a pre-gathered stack of B x n~ x d~ blocks
  with C a different array (a true GEMM, no symmetry exploited), the blocks hot
  in cache;
* ``syrk``: scipy's BLAS ``?syrk`` on the same blocks, one call per block;
* ``gather``: copying each of the k subsets' n~ x d~ entries out of X (flat
  index + ``np.take``, numpy's fastest way measured), the memory traffic that
  any implementation pays before its product and that the hot GEMM leaves out.

Flop convention: a subset's work is its n~ x n~ Gram, n~^2 d~ multiply-adds =
2 n~^2 d~ flops, as GEMM computes it; every column uses that count (GEMM-
equivalent). The kernel itself does less arithmetic and more memory work:
syrk's n~ (n~ + 1) d~ flops (about half, which is why syrk can pass 100 %),
then some twenty elementwise passes over the n~ (n~ - 1) / 2 pairs (two
gathers among them). Two floors, two percentages: ``% of gemm`` is GEMM's time
over the kernel's (the issue's measure); ``% of floor`` is (gather + GEMM) over
the kernel's, the honest floor for shapes where reading the n~ d~ entries takes
longer than multiplying them (n~ = 10-100). The closing line is the total over
one subset of each shape (flops summed, seconds summed: the large shapes that
dominate a full run weigh most) for the first of ``--dtypes``.

    python benchmarks/ivfs_kernel.py [--threads 1] [--repeat 5] [--seconds 0.5] [--dtypes float64]

BLAS threads (threadpoolctl) default to 1, as the workflow's IVFS jobs run
(``threads: 1``): the kernel's elementwise work is single-threaded, so a
2-thread GEMM reference measures the BLAS, not the kernel. With one thread the
times are the process's CPU seconds (other processes' load then costs cache,
not turns on the core); with more, wall-clock seconds. On machines where
OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE are set for old OpenBLAS builds, unset
them for this command to measure the current kernels; the BLAS core type in
use is printed. Other processes' load skews every column alike (interleaved).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
from scipy.linalg import blas
from threadpoolctl import threadpool_info, threadpool_limits

from ufskit.selectors.ivfs import IVFS
from ufskit.selectors.ivfs_kernel import (
    default_batch_size,
    full_distances,
    subset_losses,
)

# (label, n, d, n~, d~): the IVFS datasets' sizes at the protocol's n~ (0.1n, 0.5n, 100) and d~ (0.1d .. 0.5d)
SHAPES = [
    ("microarray 0.1n/0.3d", 100, 5000, 10, 1500),
    ("microarray 0.5n/0.5d", 100, 5000, 50, 2500),
    ("COIL20 0.1n/0.3d", 1440, 1024, 144, 307),
    ("COIL20 0.5n/0.5d", 1440, 1024, 720, 512),
    ("Isolet 0.3n/0.3d", 1560, 617, 468, 185),
    ("RELATHE 100/0.3d", 1427, 4322, 100, 1297),
    ("RELATHE 0.5n/0.5d", 1427, 4322, 714, 2161),
]


def best_seconds(fns, repeat, clock):
    """Best time (by ``clock``) of each function over ``repeat`` interleaved rounds."""
    best = [np.inf] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            t0 = clock()
            fn()
            best[i] = min(best[i], clock() - t0)
    return best


def measure(n, d, m, p, dtype, repeat, seconds, rng, clock):
    """Seconds per subset of the kernel, GEMM, syrk and the gather on k subsets of shape m x p; and k."""
    X = rng.standard_normal((n, d))
    full = full_distances(X, dtype)  # once per fit: not part of a subset's work
    k_probe = 8
    samples, features = IVFS(n_subsets=k_probe, subset_samples=m, subset_features=p, random_state=0)._draw_subsets(n, d)
    t0 = clock()
    subset_losses(X, samples, features, "linf", dtype=dtype, full=full)
    per_subset = (clock() - t0) / k_probe
    k = int(np.clip(seconds / per_subset, 16, 5000))
    samples, features = IVFS(n_subsets=k, subset_samples=m, subset_features=p, random_state=1)._draw_subsets(n, d)
    B = min(k, default_batch_size(m, p))
    A = X.astype(dtype)[samples[:B, :, None], features[:B, None, :]]  # B pre-gathered blocks, reused k / B times
    C = A.copy()
    rounds = -(-k // B)
    syrk = blas.dsyrk if dtype == "float64" else blas.ssyrk
    At = [np.asfortranarray(a.T) for a in A]  # p x m, Fortran order: syrk(trans=1) computes a^T a = a a'
    Cbuf = np.empty((m, m), dtype=dtype, order="F")
    X_flat = X.astype(dtype).ravel()
    index, block = np.empty((B, m, p), dtype=np.intp), np.empty_like(A)

    def kernel():
        subset_losses(X, samples, features, "linf", dtype=dtype, full=full)

    def gemm():
        for _ in range(rounds):
            np.matmul(A, C.transpose(0, 2, 1))

    def sy():
        for _ in range(rounds):
            for a in At:
                syrk(1.0, a, trans=1, c=Cbuf, overwrite_c=1)

    def gather():
        for start in range(0, k, B):
            rows, cols = samples[start : start + B], features[start : start + B]
            b = rows.shape[0]
            np.take(X_flat, np.add((rows * d)[:, :, None], cols[:, None, :], out=index[:b]), out=block[:b])

    t_kernel, t_gemm, t_syrk, t_gather = best_seconds([kernel, gemm, sy, gather], repeat, clock)
    work = rounds * B  # subsets of the GEMM/syrk loops; the kernel and the gather did k
    return k, t_kernel / k, t_gemm / work, t_syrk / work, t_gather / k


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads (default 1, as IVFS jobs run)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=0.5, help="target seconds of one kernel measurement")
    parser.add_argument(
        "--dtypes",
        nargs="+",
        choices=["float64", "float32"],
        default=["float64", "float32"],
        help="dtypes to measure; the closing line is for the first",
    )
    args = parser.parse_args(argv)
    threadpool_limits(args.threads)
    # one thread: the process's CPU time is its time on its core, whatever else the machine runs
    clock, clock_name = (time.process_time, "CPU") if args.threads == 1 else (time.perf_counter, "wall-clock")
    blas_info = {(i.get("internal_api"), i.get("architecture"), i.get("num_threads")) for i in threadpool_info()}
    print(f"BLAS: {sorted(blas_info)}; OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', 'unset')}")
    print(f"load: {os.getloadavg()[0]:.2f} (1-min average, {os.cpu_count()} cores); {clock_name} seconds")
    print(
        "GFLOP/s = 2 n~^2 d~ flops per subset / seconds (GEMM-equivalent; syrk does about half); "
        "floor = gather + gemm\n"
    )
    print(
        "| dtype | shape | n~ | d~ | k | kernel ms/subset | gather ms/subset | kernel GFLOP/s | gemm GFLOP/s "
        "| syrk GFLOP/s | kernel % of gemm | kernel % of floor |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    totals = {}
    rng = np.random.default_rng(0)
    for dtype in args.dtypes:
        flops = t_kernel = t_gemm = t_floor = 0.0
        for label, n, d, m, p in SHAPES:
            k, sk, sg, ss, sa = measure(n, d, m, p, dtype, args.repeat, args.seconds, rng, clock)
            f = 2.0 * m * m * p
            print(
                f"| {dtype} | {label} | {m} | {p} | {k} | {1e3 * sk:.3g} | {1e3 * sa:.3g} | {f / sk / 1e9:.1f} | "
                f"{f / sg / 1e9:.1f} | {f / ss / 1e9:.1f} | {100 * sg / sk:.0f} | {100 * (sg + sa) / sk:.0f} |",
                flush=True,
            )
            flops += f
            t_kernel += sk
            t_gemm += sg
            t_floor += sg + sa
        totals[dtype] = (flops / t_kernel / 1e9, 100 * t_gemm / t_kernel, 100 * t_floor / t_kernel)
        print(
            f"| {dtype} | one subset of each shape | | | | | | {totals[dtype][0]:.1f} | {flops / t_gemm / 1e9:.1f} | "
            f"| {totals[dtype][1]:.0f} | {totals[dtype][2]:.0f} |"
        )
    x, y, z = totals[args.dtypes[0]]
    print(f"\nivfs kernel: {x:.1f} GFLOP/s = {y:.0f} % of gemm, {z:.0f} % of gather + gemm")
    return 0


if __name__ == "__main__":
    sys.exit(main())
