"""Running time of IVFS-l_inf and GLSPFS on the IVFS paper's Table-1 data sets, next to the published Time column.

Settings are the paper's timing settings: IVFS k = 1000, n~ = 0.1 n, d~ = 0.3 d;
GLSPFS mu = 1, lambda = 1. Data: loaded and preprocessed (drop_constant, zscore)
as config/datasets.yaml prescribes for the workflow. Also measures the
subset-evaluation step three ways on the same draws: batched (the default batch
size, column ``batch``), the same code one subset at a time (batch_size=1; best
of 7 interleaved rounds each), and a naive per-subset scipy ``pdist`` loop (the
third-party reproduction's form; one round).

    python benchmarks/ivfs_timing.py --mirror DATA_DIR [--reference ivfs_table1.csv] [--skip-naive]

The mirror defaults to $UFS_DATA_MIRROR; the reference table to $UFS_REFERENCE,
else ``reference/ivfs_table1.csv`` beside the mirror folder. Times are
wall-clock seconds of one run on this machine (BLAS threads as set in the environment).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.spatial.distance import pdist

from ufskit.loaders import load
from ufskit.preprocess import apply_chain
from ufskit.registry import dataset_entry, load_registry
from ufskit.runs import fit_selector
from ufskit.seeds import derive_seed
from ufskit.selectors.ivfs import default_batch_size, subset_losses

REGISTRY = Path(__file__).resolve().parents[1] / "config" / "datasets.yaml"
REPEAT = 7  # rounds of the batched-versus-loop comparison (best of each)
DATASETS = ["lymphoma", "orlraws10P", "pixraw10P", "Prostate-GE", "warpPIE10P", "COIL20", "Isolet", "RELATHE"]


def prepared(mirror: Path, name: str):
    """Dataset ``name`` (X, y) after its registry preprocessing chain (z-scored features)."""
    registry = load_registry(REGISTRY)
    entry = dataset_entry(registry, name)
    return apply_chain(load(name, entry, mirror, sources=registry["sources"]), entry["preprocess"])


def seconds(*fns, repeat=1):
    """Best wall-clock time of each function over ``repeat`` rounds, the calls interleaved so that
    load from other processes hits every variant alike; returns [(seconds, last result), ...]."""
    best, outs = [np.inf] * len(fns), [None] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            t0 = time.perf_counter()
            outs[i] = fn()
            best[i] = min(best[i], time.perf_counter() - t0)
    return list(zip(best, outs))


def naive_losses(X, samples, features):
    """One subset at a time with scipy's pdist: the loop form the batched code replaces."""
    out = np.empty(len(samples))
    for t, (rows, cols) in enumerate(zip(samples, features)):
        Xs = X[rows]
        D, DF = pdist(Xs), pdist(Xs[:, cols])
        out[t] = np.abs(D / D.max() - DF / DF.max()).max()
    return out


def time_dataset(mirror: Path, name: str, naive: bool) -> dict:
    data = prepared(mirror, name)
    X, n_classes = data.X, np.unique(data.y).size
    # the one fit path of the workflow's runs (ufskit.runs): the same constructor, seed and fit timing
    ivfs, t_ivfs = fit_selector({"selector": "IVFS", "params": {"n_subsets": 1000, "subset_features": 0.3,
                                                                 "subset_samples": 0.1, "loss": "linf"}},
                                X, seed=derive_seed("timing", name), n_classes=n_classes, label=name)
    glspfs, t_glspfs = fit_selector({"selector": "GLSPFS", "params": {"mu": 1.0, "lam": 1.0}}, X, seed=0,
                                    n_classes=n_classes, label=name)  # deterministic: the seed is not used
    samples, features = ivfs._draw_subsets(*X.shape)
    (t_batched, ref), (t_loop, loop) = seconds(
        lambda: subset_losses(X, samples, features, "linf"),
        lambda: subset_losses(X, samples, features, "linf", batch_size=1),
        repeat=REPEAT,
    )
    assert np.allclose(loop, ref, rtol=1e-10, atol=1e-12)
    row = {
        "dataset": name,
        "n": X.shape[0],
        "d": X.shape[1],
        "ivfs_s": t_ivfs,
        "glspfs_s": t_glspfs,
        "glspfs_iter": glspfs.n_iter_,
        "batch": default_batch_size(samples.shape[1], features.shape[1]),
        "losses_batched_s": t_batched,
        "losses_loop_s": t_loop,
        "loop/batched": t_loop / t_batched,
    }
    if naive:
        [(t_naive, slow)] = seconds(lambda: naive_losses(X, samples, features))
        assert np.allclose(slow, ref, atol=1e-9)
        row.update({"losses_pdist_loop_s": t_naive, "pdist/batched": t_naive / t_batched})
    return row


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, default=os.environ.get("UFS_DATA_MIRROR"))
    parser.add_argument("--reference", type=Path, default=os.environ.get("UFS_REFERENCE"))
    parser.add_argument("--datasets", nargs="+", default=DATASETS)
    parser.add_argument("--skip-naive", action="store_true", help="skip the slow scipy pdist loop")
    args = parser.parse_args(argv)
    if args.mirror is None or not args.mirror.is_dir():
        parser.error("give the raw-data folder with --mirror or $UFS_DATA_MIRROR.")
    reference = args.reference or args.mirror.resolve().parent / "reference" / "ivfs_table1.csv"
    if not reference.is_file():
        parser.error(f"paper table not found at {reference}; give it with --reference or $UFS_REFERENCE.")
    paper = pd.read_csv(reference).pivot(index="dataset", columns="method", values="time_s")

    rows = []
    for name in args.datasets:
        row = time_dataset(args.mirror, name, naive=not args.skip_naive)
        row["ivfs_paper_s"] = paper.loc[name, "IVFS-linf"] if name in paper.index else np.nan
        row["glspfs_paper_s"] = paper.loc[name, "GLSPFS"] if name in paper.index else np.nan
        rows.append(row)
        print(f"done {name}", file=sys.stderr, flush=True)
    table = pd.DataFrame(rows)
    first = ["dataset", "n", "d", "ivfs_s", "ivfs_paper_s", "glspfs_s", "glspfs_paper_s", "glspfs_iter"]
    table = table[first + [c for c in table.columns if c not in first]]
    print(
        f"BLAS threads: OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}, "
        f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}"
    )
    print(table.to_markdown(index=False, floatfmt=".3g"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
