"""K-means on mostly-zero data: dense, CSR, and CSR with Gram-matrix seeding, at the NRFS text protocol's settings.

``ufskit.metrics.kmeans_labels`` clusters data with at most ``SPARSE_DENSITY`` non-zeros as CSR, and
there computes scikit-learn's k-means++ distances from one Gram matrix (``ufskit.metrics._sparse_kmeans``).
This prints, for a prepared matrix of the workflow (default: the NRFS text set 20NewsgroupA), the
seconds of one K-means (n_init = 100, max_iter = 100, as config.yaml's nrfs_text) per seed on its
first feature counts and on all features: scikit-learn's KMeans on the dense matrix and on CSR,
and ufskit's on CSR, with the ratios and whether all three give the same labels (and the two
scikit-learn runs the same WCSS). Not a test: one run, single-threaded BLAS as set in the
environment; CPU seconds, which other processes' load skews less than wall time.

    python benchmarks/kmeans_sparse.py [resources/prepared/nrfs_text/20NewsgroupA.npz] [--counts 200 1800] [--seeds 3]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.cluster import KMeans

from ufskit.data import load_dataset
from ufskit.metrics._sparse_kmeans import sparse_kmeans_labels


def timed(fit, *args):
    """(CPU seconds, result) of one call."""
    t0 = time.process_time()
    result = fit(*args)
    return time.process_time() - t0, result


def sklearn_kmeans(X, n_clusters: int, seed: int) -> KMeans:
    """scikit-learn's K-means with the NRFS text protocol's starts and iterations."""
    return KMeans(n_clusters=n_clusters, n_init=100, max_iter=100, random_state=seed).fit(X)


def ufskit_kmeans(X, n_clusters: int, seed: int) -> np.ndarray:
    return sparse_kmeans_labels(X, n_clusters, n_init=100, max_iter=100, tol=1e-4, random_state=seed)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", nargs="?", type=Path, default=Path("resources/prepared/nrfs_text/20NewsgroupA.npz"))
    parser.add_argument("--counts", type=int, nargs="*", default=[200, 1800], help="leading feature counts")
    parser.add_argument("--seeds", type=int, default=3, help="K-means runs (seeds 0, 1, ...) per count")
    args = parser.parse_args(argv)
    if not args.data.exists():
        parser.error(f"{args.data} not found: run the workflow's nrfs_text preparation first")
    ds = load_dataset(args.data)
    n_clusters = np.unique(ds.y).size
    print(f"{args.data.name}: {ds.X.shape[0]} x {ds.X.shape[1]}, {n_clusters} clusters, {args.seeds} seeds per count")
    print("| features | density | dense s | CSR s | ufskit CSR s | CSR / dense | ufskit / CSR | same labels, WCSS rel. diff |")
    print("|---|---|---|---|---|---|---|---|")
    totals, all_same = np.zeros(2), True
    for count in [*args.counts, ds.X.shape[1]]:
        X = np.ascontiguousarray(ds.X[:, :count])
        Xs = sp.csr_matrix(X)
        t = np.zeros(3)
        same, wcss = True, 0.0
        for seed in range(args.seeds):
            t_dense, dense = timed(sklearn_kmeans, X, n_clusters, seed)
            t_sparse, sparse = timed(sklearn_kmeans, Xs, n_clusters, seed)
            t_ufskit, labels = timed(ufskit_kmeans, Xs, n_clusters, seed)
            t += [t_dense, t_sparse, t_ufskit]
            same &= np.array_equal(dense.labels_, sparse.labels_) and np.array_equal(sparse.labels_, labels)
            wcss = max(wcss, abs(dense.inertia_ - sparse.inertia_) / max(dense.inertia_, 1e-300))
        totals += t[1:]
        all_same &= same
        print(f"| {count} | {np.count_nonzero(X) / X.size:.4f} | {t[0]:.2f} | {t[1]:.2f} | {t[2]:.2f} | "
              f"{t[0] / t[1]:.1f}x | {t[1] / t[2]:.2f}x | {same}, {wcss:.1e} |", flush=True)
    print(f"\nkmeans on CSR: ufskit {totals[0] / totals[1]:.2f}x faster than scikit-learn "
          f"({totals[0]:.1f} s -> {totals[1]:.1f} s CPU), identical labels: {all_same}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
