"""Can the test against Random call the positive controls better? ANOVA F, mRMR, KNN forward selection (on d <= 100)
and Random's draws on a few mirrored sets, through the library only (issue 49).

    python benchmarks/control_power.py [--datasets wine ionosphere wdbc lymphoma] [--draws 20] [--metrics kmeans knn]

Each dataset is loaded from the mirror ($UFS_DATA_MIRROR) and prepared with its registry chain, as the benchmark's
`default` chain does; the counts are the benchmark family's fractions of d (low-dimensional: 0.1 .. 0.9; d > 100:
0.005 .. 0.1). The controls (``AnovaF``, ``MRMR`` and, on d <= 100 as in the benchmark, ``ForwardKNN``, fitted with
the labels; mRMR's greedy order up to the largest count on wide sets, as the benchmark's) and ``Random``
(``--draws`` seeds) are fitted with
``ufskit.runs.fit_run`` and evaluated with ``ufskit.runs.evaluate_run`` on the benchmark's K-means (10 runs of one
start) and KNN (best K of 1, 3, 5, 10 over 10 random 80/20 splits) metrics, each draw with its own evaluation seed
as the benchmark's repetitions have; the summary value is the mean over the counts
(``benchmark.per_run``) and the test is ``benchmark_stats.versus_random``'s. Printed per dataset, metric and
control: its value, Random's mean and sd, the effect in Random's sds, the p-value and the verdict, and ``rank_p``,
the distribution-free Monte Carlo p of the same question, (1 + draws the control does not beat) / (R + 1), one-sided:
with R = 20 it cannot go below 0.048; ``--draws 100`` shows whether more draws and a rank test would call more
datasets better (below 0.025, the t-test's one-sided level).
``--inffs DATASET`` fits Inf-FS once on that dataset instead and prints its time and the
memory its fit needs (``inffs.fit_bytes``) against the memory available.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ufskit.loaders import load
from ufskit.papers import benchmark as B
from ufskit.papers import benchmark_stats as S
from ufskit.preprocess import apply_chain
from ufskit.registry import dataset_entry, load_registry
from ufskit.runs import evaluate_run, fit_run
from ufskit.seeds import derive_seed

REGISTRY = Path(__file__).resolve().parents[1] / "config" / "datasets.yaml"
METRICS = {"kmeans": {"n_runs": 10, "n_init": 1}, "knn": {"ks": [1, 3, 5, 10], "n_splits": 10, "test_size": 0.2}}
LOW = {"fractions": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]}
HIGH = {"fractions": [0.005, 0.01, 0.02, 0.05, 0.1]}
SEED = 20261122  # config/config.yaml's seed


def prepared(name: str, mirror: Path, registry: dict):
    entry = dataset_entry(registry, name)
    data = load(name, entry, mirror, sources=registry["sources"], seed=derive_seed(SEED, "prepare", name))
    return apply_chain(data, entry.get("preprocess", []))


def runs_of(name: str, data, draws: int, metrics: dict) -> pd.DataFrame:
    """The long metric table of the control and of Random's draws on one prepared dataset."""
    counts = LOW if data.X.shape[1] <= 100 else HIGH
    n_classes = int(np.unique(data.y).size)
    frames = []
    wide = {"n_greedy": 0.1} if data.X.shape[1] > 100 else {}
    specs = [("ANOVA-F", {"selector": "AnovaF", "params": {}}, 1), ("mRMR", {"selector": "MRMR", "params": wide}, 1),
             ("Random", {"selector": "Random", "params": {}}, draws)]
    if not wide:
        specs.insert(2, ("KNN-forward", {"selector": "ForwardKNN", "params": {}}, 1))
    for method, spec, reps in specs:
        for rep in range(reps):
            seed = derive_seed(SEED, "control_power", name, method, rep)
            sel = fit_run(data.X, spec, seed, n_classes=n_classes, n_features=counts, label=name, y=data.y)
            frames.append(evaluate_run(data.X, data.y, sel, counts, metrics,
                                       derive_seed(SEED, "control_power", name, "evaluation", rep),
                                       dataset=name, method=method, params="default", rep=rep))
    return pd.concat(frames, ignore_index=True)


def control_table(datasets: list[str], mirror: Path, draws: int, metrics: dict = METRICS) -> pd.DataFrame:
    registry = load_registry(REGISTRY)
    tables = []
    for name in datasets:
        t0 = time.process_time()
        data = prepared(name, mirror, registry)
        tables.append(runs_of(name, data, draws, metrics))
        print(f"{name}: {data.X.shape[0]} x {data.X.shape[1]}, {np.unique(data.y).size} classes, "
              f"{time.process_time() - t0:.0f} s CPU", file=sys.stderr, flush=True)
    planned = B.plan({"check": {"datasets": datasets, "methods": {"ANOVA-F": {"selector": "AnovaF"},
                                                                  "mRMR": {"selector": "MRMR"},
                                                                  "KNN-forward": {"selector": "ForwardKNN"},
                                                                  "Random": {"selector": "Random"}}}}, {})
    table = S.versus_random(pd.concat(tables, ignore_index=True), planned)
    table = table[table["metric"].isin(B.LABEL_METRICS)].copy()
    sign = table["metric"].map(lambda m: 1.0 if B.higher_is_better(m) else -1.0)
    table["effect_sd"] = sign * (table["value"] - table["random"]) / table["random_sd"]
    table["rank_p"] = (1 + table["draws"] * (1 - table["percentile"])) / (table["draws"] + 1)
    return table


def inffs_check(name: str, mirror: Path) -> None:
    from ufskit.selectors import InfFS
    from ufskit.selectors.inffs import available_memory, fit_bytes

    data = prepared(name, mirror, load_registry(REGISTRY))
    n, d = data.X.shape
    print(f"{name}: {n} x {d}; Inf-FS needs {fit_bytes(n, d) / 1e9:.2f} GB, available "
          f"{(available_memory() or 0) / 1e9:.2f} GB")
    t0, c0 = time.perf_counter(), time.process_time()
    InfFS().fit(data.X)
    print(f"fit: {time.perf_counter() - t0:.0f} s wall, {time.process_time() - c0:.0f} s CPU, peak RSS "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6:.2f} GB")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, default=os.environ.get("UFS_DATA_MIRROR"))
    parser.add_argument("--datasets", nargs="+", default=["wine", "ionosphere", "wdbc", "lymphoma"])
    parser.add_argument("--draws", type=int, default=20)
    parser.add_argument("--metrics", nargs="+", choices=sorted(METRICS), default=sorted(METRICS),
                        help="the metrics evaluated (knn alone is about 80x faster than with kmeans)")
    parser.add_argument("--inffs", help="fit Inf-FS once on this dataset instead (time and memory)")
    args = parser.parse_args(argv)
    if args.mirror is None or not args.mirror.is_dir():
        parser.error("give the raw-data folder with --mirror or $UFS_DATA_MIRROR.")
    if args.inffs:
        inffs_check(args.inffs, args.mirror)
        return 0
    table = control_table(args.datasets, args.mirror, args.draws, {k: METRICS[k] for k in args.metrics})
    columns = ["dataset", "method", "metric", "value", "random", "random_sd", "effect_sd", "p", "verdict", "rank_p"]
    print(table[columns].to_markdown(index=False, floatfmt=".3g"))
    print(f"\ndetectable: {S.detectable_sd(args.draws):.2f} of Random's sds; verdicts: "
          f"{table.groupby(['method', 'metric'])['verdict'].value_counts().to_dict()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
