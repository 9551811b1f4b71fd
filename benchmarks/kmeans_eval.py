"""K-means evaluation of a microarray selection, before and after clustering in the rows' span, from one run.

``ufskit.metrics.kmeans_scores`` clusters dense data with d > n in an orthonormal
basis of the rows' span (n columns). This times, on a microarray of the NRFS
protocol (default 11_Tumors, prepared as config/datasets.yaml prescribes), the
K-means of one evaluation at each feature count (the leading ``count``
features, NRFS microarray settings: n_init = 100, max_iter = 100, ``--runs``
seeds per count), the previous way (scikit-learn's KMeans on the n x count
matrix) and the current one, checks that every run gives the same labels and
so the same ACC and NMI, and prints the ratio. One process, BLAS threads as
set in the environment; other processes' load skews both alike (interleaved
per count).

    python benchmarks/kmeans_eval.py --mirror DATA_DIR [--dataset 11_Tumors] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
from sklearn.cluster import KMeans

from ufskit.loaders import load
from ufskit.metrics import kmeans_scores
from ufskit.metrics._common import spawn_seeds
from ufskit.metrics.clustering import clustering_accuracy, nmi
from ufskit.preprocess import apply_chain
from ufskit.registry import dataset_entry, load_registry

REGISTRY = Path(__file__).resolve().parents[1] / "config" / "datasets.yaml"
COUNTS = [200, 300, 500, 800, 1000, 1200, 1500, 1800]  # the NRFS protocol's feature counts


def previous_scores(X, y, n_clusters, n_runs, seed):
    """The previous kmeans_scores: scikit-learn's KMeans on X itself, one fit per derived seed."""
    acc, nm = [], []
    for s in spawn_seeds(seed, n_runs):
        labels = KMeans(n_clusters=n_clusters, n_init=100, max_iter=100, random_state=s).fit_predict(X)
        acc.append(clustering_accuracy(y, labels))
        nm.append(nmi(y, labels))
    return {"acc_mean": float(np.mean(acc)), "acc_std": float(np.std(acc)),
            "nmi_mean": float(np.mean(nm)), "nmi_std": float(np.std(nm))}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, default=os.environ.get("UFS_DATA_MIRROR"))
    parser.add_argument("--dataset", default="11_Tumors")
    parser.add_argument("--runs", type=int, default=3, help="K-means runs per count (the protocol: 30)")
    parser.add_argument("--counts", type=int, nargs="+", default=COUNTS)
    args = parser.parse_args(argv)
    if args.mirror is None or not args.mirror.is_dir():
        parser.error("give the raw-data folder with --mirror or $UFS_DATA_MIRROR.")
    registry = load_registry(REGISTRY)
    entry = dataset_entry(registry, args.dataset)
    data = apply_chain(load(args.dataset, entry, args.mirror, sources=registry["sources"]), entry["preprocess"])
    X, y = data.X, data.y
    c = np.unique(y).size
    print(f"{args.dataset}: {X.shape[0]} x {X.shape[1]}, {c} clusters; {args.runs} runs x 100 starts per count")
    print("| features | previous s | current s | ratio | same ACC and NMI |")
    print("|---|---|---|---|---|")
    total_prev = total_cur = 0.0
    all_same = True
    for count in args.counts:
        Xc = np.ascontiguousarray(X[:, :count])
        t0 = time.perf_counter()
        prev = previous_scores(Xc, y, c, args.runs, seed=count)
        t1 = time.perf_counter()
        cur = kmeans_scores(Xc, y, c, n_runs=args.runs, n_init=100, max_iter=100, random_state=count)
        t2 = time.perf_counter()
        same = prev == cur
        all_same &= same
        total_prev += t1 - t0
        total_cur += t2 - t1
        print(f"| {count} | {t1 - t0:.2f} | {t2 - t1:.2f} | {(t1 - t0) / (t2 - t1):.1f}x | {same} |", flush=True)
    print(f"\nkmeans evaluation: {total_prev / total_cur:.1f}x faster ({total_prev:.1f} s -> {total_cur:.1f} s), "
          f"identical ACC and NMI: {all_same}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
