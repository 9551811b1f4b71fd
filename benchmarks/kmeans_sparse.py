"""K-means on mostly-zero data, dense versus CSR, at the NRFS text protocol's settings (not a test).

``ufskit.metrics.kmeans_labels`` clusters data with at most ``SPARSE_DENSITY`` non-zeros as CSR.
This prints, for a prepared matrix of the workflow (default: the NRFS text set 20NewsgroupA), the
seconds of one K-means (n_init = 100, max_iter = 100, as config.yaml's nrfs_text) on its first
feature counts and on all features, dense and CSR, their ratio, and whether both give the same
labels and WCSS. One run, single-threaded BLAS as set in the environment.

    python benchmarks/kmeans_sparse.py [resources/prepared/nrfs_text/20NewsgroupA.npz] [--counts 200 1800]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.cluster import KMeans

from ufskit.data import load_dataset


def timed_kmeans(X, n_clusters: int, seed: int):
    """(seconds, fitted KMeans) of one K-means with the NRFS text protocol's starts and iterations."""
    t0 = time.perf_counter()
    km = KMeans(n_clusters=n_clusters, n_init=100, max_iter=100, random_state=seed).fit(X)
    return time.perf_counter() - t0, km


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", nargs="?", type=Path, default=Path("resources/prepared/nrfs_text/20NewsgroupA.npz"))
    parser.add_argument("--counts", type=int, nargs="*", default=[200, 1800], help="leading feature counts")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if not args.data.exists():
        parser.error(f"{args.data} not found: run the workflow's nrfs_text preparation first")
    ds = load_dataset(args.data)
    n_clusters = np.unique(ds.y).size
    print(f"{args.data.name}: {ds.X.shape[0]} x {ds.X.shape[1]}, {n_clusters} clusters")
    print(f"{'features':>9} {'density':>8} {'dense s':>8} {'CSR s':>7} {'ratio':>6}  same labels, WCSS")
    for count in [*args.counts, ds.X.shape[1]]:
        X = np.ascontiguousarray(ds.X[:, :count])
        t_dense, dense = timed_kmeans(X, n_clusters, args.seed)
        t_sparse, sparse = timed_kmeans(sp.csr_matrix(X), n_clusters, args.seed)
        same = np.array_equal(dense.labels_, sparse.labels_)
        wcss = abs(dense.inertia_ - sparse.inertia_) / max(dense.inertia_, 1e-300)
        print(f"{count:>9} {np.count_nonzero(X) / X.size:>8.4f} {t_dense:>8.2f} {t_sparse:>7.2f} "
              f"{t_dense / t_sparse:>5.1f}x  {same}, rel. diff {wcss:.1e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
