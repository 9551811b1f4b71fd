"""Does IVFS in float32 select what float64 selects? Top-k sets and Table-1 metrics of both, per dataset.

For each dataset (prepared as config/datasets.yaml prescribes), setting
(n~ in --samples, d~ = 0.3d) and repetition, IVFS-l_inf is fitted twice on the
same draws, in float64 and in float32, and the script reports: the largest
relative score difference, whether the top-``--top`` sets are equal (and how
many features differ), the first rank where the orders differ, and the largest
absolute difference of the Table-1 metrics (KNN accuracy, the L_inf/L1/L2
distance norms) over the counts 20, 40, ..., ``--top``. The protocol's k is
5000; ``--subsets`` trades that for time. Persistence is not compared (the
diagrams depend only on the selected set, so an equal top-k set at a count
gives equal w11/winf there).

    python benchmarks/ivfs_float32.py --mirror DATA_DIR --datasets lymphoma Prostate-GE warpPIE10P --subsets 1000
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from ufskit.evaluation import evaluate_selection
from ufskit.loaders import load
from ufskit.preprocess import apply_chain
from ufskit.registry import dataset_entry, load_registry
from ufskit.runs import fit_selector, to_selection
from ufskit.seeds import derive_seed

REGISTRY = Path(__file__).resolve().parents[1] / "config" / "datasets.yaml"
METRICS = {"knn": {"ks": [1, 3, 5, 10], "n_splits": 10, "test_size": 0.2}, "distance_norms": {"normalize_subset": True}}


def prepared(mirror: Path, name: str):
    """(X, y) of dataset ``name`` after its registry preprocessing chain."""
    registry = load_registry(REGISTRY)
    entry = dataset_entry(registry, name)
    data = apply_chain(load(name, entry, mirror, sources=registry["sources"]), entry["preprocess"])
    return data.X, data.y


def compare(X, y, name, n_tilde, rep, k, top):
    """One setting and repetition, float64 against float32."""
    seed = derive_seed("ivfs_float32", name, str(n_tilde), rep)
    fits, sels = {}, {}
    for dtype in ("float64", "float32"):
        spec = {"selector": "IVFS", "params": {"n_subsets": k, "subset_samples": n_tilde, "subset_features": 0.3,
                                               "loss": "linf", "dtype": dtype}}
        fits[dtype], fit_seconds = fit_selector(spec, X, seed=seed, n_classes=int(np.unique(y).size), label=name)
        sels[dtype] = to_selection(fits[dtype], fit_seconds, spec, X)
    a, b = fits["float64"], fits["float32"]
    drawn = a.inclusion_counts_ > 0
    rel = np.abs(b.ivfs_scores_[drawn] - a.ivfs_scores_[drawn]) / np.abs(a.ivfs_scores_[drawn])
    oa, ob = np.asarray(a.order_), np.asarray(b.order_)
    differ = np.flatnonzero(oa[:top] != ob[:top])
    counts = list(range(20, top + 1, 20))
    frames = []
    for sel in sels.values():
        frame = evaluate_selection(X, y, sel, counts, METRICS, seed=derive_seed("ivfs_float32_eval", name, rep))
        frames.append(frame[frame["metric"] != "fit_seconds"].set_index(["n_features", "metric"])["value"])
    metric_diff = (frames[0] - frames[1]).abs()
    return {
        "dataset": name,
        "n~": n_tilde,
        "rep": rep,
        "k": k,
        "max rel score diff": rel.max(),
        f"top-{top} sets equal": set(oa[:top]) == set(ob[:top]),
        f"top-{top} features differing": len(set(oa[:top]) ^ set(ob[:top])) // 2,
        "first differing rank": int(differ[0]) + 1 if differ.size else None,
        "max |metric diff|": metric_diff.max(),
        "worst metric": "{1}@{0}".format(*metric_diff.idxmax()),
        "float64 s": sels["float64"].seconds,
        "float32 s": sels["float32"].seconds,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, default=os.environ.get("UFS_DATA_MIRROR"))
    parser.add_argument("--datasets", nargs="+", default=["lymphoma", "Prostate-GE", "warpPIE10P"])
    parser.add_argument("--samples", nargs="+", type=float, default=[0.1, 0.5], help="n~ as fractions of n")
    parser.add_argument("--subsets", type=int, default=1000, help="k (the protocol: 5000)")
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--top", type=int, default=300)
    args = parser.parse_args(argv)
    if args.mirror is None or not args.mirror.is_dir():
        parser.error("give the raw-data folder with --mirror or $UFS_DATA_MIRROR.")
    rows = []
    for name in args.datasets:
        X, y = prepared(args.mirror, name)
        for n_tilde in args.samples:
            for rep in range(args.reps):
                rows.append(compare(X, y, name, n_tilde, rep, args.subsets, args.top))
                print(f"done {name} n~={n_tilde} rep {rep}", file=sys.stderr, flush=True)
    table = pd.DataFrame(rows)
    print(table.to_markdown(index=False, floatfmt=".3g"))
    equal = table[f"top-{args.top} sets equal"].all()
    print(f"\nfloat32 vs float64: top-{args.top} sets equal in {table[f'top-{args.top} sets equal'].sum()}/{len(table)} "
          f"fits; largest metric difference {table['max |metric diff|'].max():.3g}; "
          f"largest relative score difference {table['max rel score diff'].max():.3g}"
          + ("" if equal else " -> float32 changes the selection"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
