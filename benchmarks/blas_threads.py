"""NDFS's and MCFS's kernels on one BLAS thread and on all of them, from one run (why ufskit.blas exists).

    python benchmarks/blas_threads.py --mirror PATH [--repeat R]

For COIL20 (1440 x 1024) and Prostate-GE (102 x 5966), z-scored, the script
times, interleaved, best of ``--repeat`` (default 1), with BLAS limited by threadpoolctl
to 1 thread and then to all cores:

* ``cholesky``: one factorisation of X'X + I (NDFS's step when d < n);
* ``ndfs``: ``ndfs_iterations`` at the default parameters (100 iterations);
* ``mcfs``: ``mcfs_coefficients`` with K = 5 and 300 non-zeros (the benchmark's setting).

The graph, the spectral start and the Gram products outside these kernels
are prepared once and not timed. The last column is time(all) / time(1): above
1, the extra threads cost more than they give. On a loaded machine (other
jobs on the cores; the load average is printed) the multithreaded calls stall
on descheduled threads.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import scipy.io
import scipy.linalg
from threadpoolctl import threadpool_limits

from ufskit.graph import knn_graph
from ufskit.selectors.mcfs import mcfs_coefficients
from ufskit.selectors.ndfs import BETA_PER_COLUMN_NORM, ndfs_iterations, normalized_adjacency, spectral_init

DATASETS = {"COIL20": "microarray/COIL20.mat", "Prostate-GE": "microarray/Prostate-GE.mat"}


def load(mirror: Path, name: str) -> np.ndarray:
    X = np.asarray(scipy.io.loadmat(mirror / DATASETS[name])["X"], dtype=np.float64)
    X = X[:, np.ptp(X, axis=0) > 0]
    return (X - X.mean(axis=0)) / X.std(axis=0)


def kernels(X: np.ndarray) -> dict:
    """The three timed calls on X, with their inputs prepared."""
    n, d = X.shape
    S = knn_graph(X, n_neighbors=min(5, n - 1))
    A, F0 = normalized_adjacency(S), spectral_init(S, 5, random_state=0)
    beta = BETA_PER_COLUMN_NORM * np.sqrt(np.einsum("ij,ij->", X, X) / d)
    XtX = X.T @ X if d < n else None
    out = {
        "ndfs": lambda: ndfs_iterations(X, A, F0, alpha=1.0, beta=beta, gamma=1e8, max_iter=100, tol=1e-8),
        "mcfs": lambda: mcfs_coefficients(X, S, 5, [300]),
    }
    if XtX is not None:
        out["cholesky"] = lambda: scipy.linalg.cho_factor(XtX + np.eye(d), check_finite=False)
    return out


def best(fn, limits, repeat: int) -> list[float]:
    """Best seconds of ``fn`` under each BLAS thread limit, the limits taking turns ``repeat`` times."""
    times = [[] for _ in limits]
    for _ in range(repeat):
        for limit, out in zip(limits, times, strict=True):
            with threadpool_limits(limits=limit, user_api="blas"):
                start = time.perf_counter()
                fn()
                out.append(time.perf_counter() - start)
    return [min(t) for t in times]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirror", type=Path, default=os.environ.get("UFS_DATA_MIRROR"))
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)
    if args.mirror is None:
        parser.error("give --mirror or set UFS_DATA_MIRROR")
    cores = os.cpu_count()
    print(f"load average {os.getloadavg()[0]:.1f} on {cores} cores")
    print(f"| dataset | kernel | 1 thread s | {cores} threads s | ratio ({cores} / 1) |")
    print("|---|---|---|---|---|")
    for name in DATASETS:
        X = load(args.mirror, name)
        for label, fn in kernels(X).items():
            one, many = best(fn, [1, cores], args.repeat)
            print(f"| {name} | {label} | {one:.3f} | {many:.3f} | {many / one:.1f}x |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
