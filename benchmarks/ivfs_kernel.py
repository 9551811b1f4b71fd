"""Throughput of IVFS's subset-loss kernel against plain GEMM and syrk of the same shapes, from one run.

For each subset shape (n~ samples x d~ features, on an n x d matrix of the sizes
of the IVFS datasets) the script times, interleaved and best of ``--repeat``:

* ``kernel``: ``subset_losses`` on k random subsets (gather, Gram, distances,
  normalisation, loss: everything a fit spends per subset);
* ``gemm``: ``np.matmul(A, C^T)`` on a pre-gathered stack of B x n~ x d~ blocks
  with C a different array (a true GEMM, no symmetry exploited);
* ``syrk``: scipy's BLAS ``?syrk`` on the same blocks, one call per block.

Flop convention: a subset's work is its n~ x n~ Gram, n~^2 d~ multiply-adds =
2 n~^2 d~ flops, as GEMM computes it; every column uses that count, so syrk,
which computes one triangle (about half the flops), can exceed 100 %. The
closing line is the total over one subset of each shape (flops summed, seconds
summed: the large shapes that dominate a full run weigh most) for ``--dtype``
(default float64, the protocol's).

    python benchmarks/ivfs_kernel.py [--threads 2] [--repeat 5] [--seconds 0.5]

Set the BLAS threads with --threads (threadpoolctl). On machines where
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


def best_seconds(fns, repeat):
    """Best wall-clock time of each function over ``repeat`` interleaved rounds."""
    best = [np.inf] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            t0 = time.perf_counter()
            fn()
            best[i] = min(best[i], time.perf_counter() - t0)
    return best


def measure(n, d, m, p, dtype, repeat, seconds, rng):
    """Seconds of the kernel, GEMM and syrk on the same k subsets of shape m x p; and k."""
    X = rng.standard_normal((n, d))
    full = full_distances(X, dtype)  # once per fit: not part of a subset's work
    k_probe = 8
    samples, features = IVFS(n_subsets=k_probe, subset_samples=m, subset_features=p, random_state=0)._draw_subsets(n, d)
    t0 = time.perf_counter()
    subset_losses(X, samples, features, "linf", dtype=dtype, full=full)
    per_subset = (time.perf_counter() - t0) / k_probe
    k = int(np.clip(seconds / per_subset, 16, 5000))
    samples, features = IVFS(n_subsets=k, subset_samples=m, subset_features=p, random_state=1)._draw_subsets(n, d)
    B = min(k, default_batch_size(m, p))
    A = X.astype(dtype)[samples[:B, :, None], features[:B, None, :]]  # B pre-gathered blocks, reused k / B times
    C = A.copy()
    rounds = -(-k // B)
    syrk = blas.dsyrk if dtype == "float64" else blas.ssyrk
    At = [np.asfortranarray(a.T) for a in A]  # p x m, Fortran order: syrk(trans=1) computes a^T a = a a'
    Cbuf = np.empty((m, m), dtype=dtype, order="F")

    def kernel():
        subset_losses(X, samples, features, "linf", dtype=dtype, full=full)

    def gemm():
        for _ in range(rounds):
            np.matmul(A, C.transpose(0, 2, 1))

    def sy():
        for _ in range(rounds):
            for a in At:
                syrk(1.0, a, trans=1, c=Cbuf, overwrite_c=1)

    t_kernel, t_gemm, t_syrk = best_seconds([kernel, gemm, sy], repeat)
    work = rounds * B  # subsets of the GEMM/syrk loops; the kernel did k
    return k, t_kernel / k, t_gemm / work, t_syrk / work


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=None, help="BLAS threads (default: as the environment sets)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=0.5, help="target seconds of one kernel measurement")
    parser.add_argument("--dtype", choices=["float64", "float32"], default="float64", help="dtype of the closing line")
    args = parser.parse_args(argv)
    if args.threads:
        threadpool_limits(args.threads)
    blas_info = {(i.get("internal_api"), i.get("architecture"), i.get("num_threads")) for i in threadpool_info()}
    print(f"BLAS: {sorted(blas_info)}; OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', 'unset')}")
    print(f"load: {os.getloadavg()[0]:.2f} (1-min average, {os.cpu_count()} cores)")
    print("GFLOP/s = 2 n~^2 d~ flops per subset / seconds (GEMM-equivalent; syrk does about half)\n")
    print("| dtype | shape | n~ | d~ | k | kernel ms/subset | kernel GFLOP/s | gemm GFLOP/s | syrk GFLOP/s | kernel % of gemm |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    totals = {}
    rng = np.random.default_rng(0)
    for dtype in ("float64", "float32"):
        flops = t_kernel = t_gemm = 0.0
        for label, n, d, m, p in SHAPES:
            k, sk, sg, ss = measure(n, d, m, p, dtype, args.repeat, args.seconds, rng)
            f = 2.0 * m * m * p
            print(
                f"| {dtype} | {label} | {m} | {p} | {k} | {1e3 * sk:.3g} | {f / sk / 1e9:.1f} | "
                f"{f / sg / 1e9:.1f} | {f / ss / 1e9:.1f} | {100 * sg / sk:.0f} |",
                flush=True,
            )
            flops += f
            t_kernel += sk
            t_gemm += sg
        totals[dtype] = (flops / t_kernel / 1e9, 100 * t_gemm / t_kernel)
        print(f"| {dtype} | one subset of each shape | | | | | {totals[dtype][0]:.1f} | {flops / t_gemm / 1e9:.1f} | | {totals[dtype][1]:.0f} |")
    x, y = totals[args.dtype]
    print(f"\nivfs kernel: {x:.1f} GFLOP/s = {y:.0f} % of gemm")
    return 0


if __name__ == "__main__":
    sys.exit(main())
