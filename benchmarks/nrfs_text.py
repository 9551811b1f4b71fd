"""NRFS on the prepared NRFS text sets, the previous kernel against the current one, from one run (not a test).

Fits NRFS with the settings of config.yaml's nrfs_text_nrfs jobs (cosine, q = 50,
k = 5, one DPS fold; ``--all`` for the NRFS-2 jobs without sampling) with the
NRFS module of an earlier commit (``--before``, read with ``git show``) and with
the current one, alternately, on each prepared matrix, and prints the wall and
CPU seconds of both, their ratio, the largest difference of ``coef_`` and
whether the rankings agree. Features whose subspaces hold the same features
(or subspaces equal on the data) have equal coefficients in exact arithmetic,
which each kernel's rounding orders its own way, so ranking differences
confined to such ties are reported as such, with whether the selections at
the protocol's feature counts (what the evaluations see) are the same.
Other processes' load skews both alike (CPU seconds are the steadier measure).

    python benchmarks/nrfs_text.py [resources/prepared/nrfs_text/20NewsgroupA.npz ...] [--fold 0] [--all]
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from ufskit.data import load_dataset
from ufskit.selectors import nrfs as current

ROOT = Path(__file__).resolve().parents[1]
BEFORE = "cd8f674"  # the last commit with the previous kernel
DATASETS = ["Reuters21578A", "20NewsgroupA", "20NewsgroupB"]
COUNTS = [200, 300, 500, 800, 1000, 1200, 1500, 1800]  # the NRFS text protocol's feature counts


def module_at(rev: str):
    """ufskit.selectors.nrfs as it was at git revision ``rev`` (its relative imports resolve to today's package)."""
    path = "src/ufskit/selectors/nrfs.py"
    code = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:{path}"], capture_output=True, text=True, check=True).stdout
    name = "ufskit.selectors._nrfs_before"
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader=None))
    module.__package__ = "ufskit.selectors"
    sys.modules[name] = module
    exec(compile(code, f"{rev}:{path}", "exec"), module.__dict__)
    return module


def timed_fit(module, X, params):
    """(wall s, CPU s, fitted NRFS) of one fit: directly, not through ``ufskit.runs.fit_selector``, as the earlier
    module is no registered selector and both kernels must be fitted and timed alike (wall and CPU)."""
    wall, cpu = time.perf_counter(), time.process_time()
    est = module.NRFS(**params).fit(X)
    return time.perf_counter() - wall, time.process_time() - cpu, est


def ranking_agreement(old, new, tol: float = 1e-9) -> str:
    """'identical', or how many positions differ and whether the current order is still a round-robin of the
    previous coef_ up to ties within ``tol`` (each turn's spectrum takes a free feature within tol of its best)."""
    differ = np.count_nonzero(old.order_ != new.order_)
    if differ == 0:
        return "identical"
    free = np.ones(old.coef_.shape[0], dtype=bool)
    valid = True
    for turn, feature in enumerate(new.order_):
        k = turn % old.coef_.shape[1]
        valid &= bool(old.coef_[feature, k] >= old.coef_[free, k].max() - tol)
        free[feature] = False
    same = all(set(old.order_[:h]) == set(new.order_[:h]) for h in COUNTS if h <= new.order_.size)
    return (f"{differ} positions differ, first at {np.argmax(old.order_ != new.order_)}; "
            f"{'only among ties within 1e-9' if valid else 'NOT only ties'}; same selection at every count: {same}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = [ROOT / "resources" / "prepared" / "nrfs_text" / f"{d}.npz" for d in DATASETS]
    parser.add_argument("data", nargs="*", type=Path, default=default)
    parser.add_argument("--fold", type=int, default=0, help="the DPS fold (nrfs_text_nrfs jobs)")
    parser.add_argument("--all", action="store_true", help="no sampling: every kept instance (the NRFS-2 jobs)")
    parser.add_argument("--q", type=int, default=50, help="n_neighbors_features")
    parser.add_argument("--before", default=BEFORE, help="git revision of the previous kernel")
    args = parser.parse_args(argv)
    missing = [str(p) for p in args.data if not p.exists()]
    if missing:
        parser.error(f"{missing} not found: prepare them with snakemake (resources/prepared/nrfs_text/<dataset>.npz)")
    previous = module_at(args.before)
    print(f"NRFS cosine, q = {args.q}, {'no sampling (NRFS-2)' if args.all else f'DPS fold {args.fold}'}; "
          f"previous = {args.before}, current = this checkout")
    print("| dataset | n x m | previous wall s (CPU s) | current wall s (CPU s) | CPU ratio | max coef diff | rankings |")
    print("|---|---|---|---|---|---|---|")
    totals = np.zeros(2)
    for path in args.data:
        ds = load_dataset(path)
        params = dict(n_clusters=ds.n_classes, n_neighbors_features=args.q, similarity="cosine", n_neighbors=5,
                      dps_levels=2, **({"sampling": False} if args.all else {"fold": args.fold}))
        w0, c0, old = timed_fit(previous, ds.X, params)
        w1, c1, new = timed_fit(current, ds.X, params)
        totals += [c0, c1]
        print(f"| {path.stem} | {ds.X.shape[0]} x {ds.X.shape[1]} | {w0:.1f} ({c0:.1f}) | {w1:.1f} ({c1:.1f}) | "
              f"{c0 / c1:.2f}x | {np.abs(old.coef_ - new.coef_).max():.1e} | {ranking_agreement(old, new)} |", flush=True)
    print(f"\nnrfs text: {totals[0] / totals[1]:.2f}x faster (CPU {totals[0]:.1f} s -> {totals[1]:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
