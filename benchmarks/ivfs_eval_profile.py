"""Where an IVFS batched job's evaluation time goes: KNN, distance norms, H1 diagrams and I/O, each beside its floor.

One run of the full protocol (config/config.yaml's ``ivfs`` experiment): KNN accuracy over 10 random 80/20
splits for K in {1, 3, 5, 10} at the 15 counts 20, 40, ..., 300; the norms of D - D_F at those counts; the
H1 diagrams at 20, 60, 100, 200 and 300 features compared with the full one in both readings
(min_persistence 0 and the literal 0.1). The data are prepared as the workflow prepares them (the registry's
loader, then the ``zscore`` chain), the ranking is a seeded random permutation (the cost does not depend on
which features come first, but for the Rips step, which follows the geometry). A batched job of the full
protocol evaluates 15 such runs (3 k x 5 repetitions of one (d~, n~)); the diagrams only for Table 1's n~.

    python benchmarks/ivfs_eval_profile.py --mirror DATA_DIR [--datasets lymphoma COIL20] [--repeat 3]
                                           [--compare GIT_REV]

Each part is the fewest CPU seconds of ``--repeat`` rounds, BLAS on one thread (a job's ``threads: 1``). Floors, measured
in the same process:

* KNN: one incremental distance path (a GEMM of n x n x 300, timed) plus one read of each split's
  n_test x n_train block per count (bytes at the measured copy bandwidth);
* norms: the same GEMM plus three passes over n x n doubles per count (D_F, D - D_F, its norms);
* diagrams: gudhi's Rips persistence alone on the same five distance matrices;
* I/O: the prepared data and diagram read, the run's table written, as bytes at the copy bandwidth.

``--compare GIT_REV`` times the package of that revision (its ``src/`` extracted to a temporary folder and
imported in a subprocess) against the working tree's, and checks that the run's metric values are equal bit
for bit.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

import numpy as np
import yaml
from gudhi.sklearn import RipsPersistence
from threadpoolctl import threadpool_limits

from ufskit.data import load_dataset, save_dataset
from ufskit.evaluation import evaluate_selection
from ufskit.loaders import load
from ufskit.metrics import (
    h1_diagram,
    knn_accuracy_path,
    load_diagram,
    normalized_distance_matrix,
    prefix_distance_matrices,
    save_diagram,
)
from ufskit.preprocess import apply_chain
from ufskit.registry import dataset_entry, load_registry
from ufskit.runs import evaluate_run, persistence_rows
from ufskit.selection_io import Selection

ROOT = Path(__file__).resolve().parents[1]
COUNTS = list(range(20, 301, 20))
DIAGRAM_COUNTS = [20, 60, 100, 200, 300]
KNN = {"ks": [1, 3, 5, 10], "n_splits": 10, "test_size": 0.2}
PERSISTENCE = {"max_edge": 0.5, "min_persistence": 0.0}
LITERAL = 0.1
RUNS_PER_JOB = 15
PARTS = ("knn", "norms", "diagrams", "io")


def best(fn, repeat: int):
    """Fewest CPU seconds of ``repeat`` calls of fn (the process's, on one BLAS thread: other jobs on the
    machine slow it down less than the wall clock), and its last result."""
    seconds, out = np.inf, None
    for _ in range(repeat):
        t0 = time.process_time()
        out = fn()
        seconds = min(seconds, time.process_time() - t0)
    return seconds, out


def prepared(mirror: Path, name: str):
    """The dataset as the workflow's ``zscore`` chain prepares it."""
    registry = load_registry(ROOT / "config" / "datasets.yaml")
    chain = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["chains"]["zscore"]
    return apply_chain(load(name, dataset_entry(registry, name), mirror, sources=registry["sources"]), chain)


def measure(data: Path, repeat: int) -> dict:
    """Seconds of each part of one run's evaluation on prepared ``data`` (an npz of ``save_dataset``), the
    floors, and the run's metric values (as hex)."""
    name = data.stem
    ds = load_dataset(data)
    X, y = ds.X, ds.y
    n, d = X.shape
    counts = [c for c in COUNTS if c <= d]
    rng = np.random.default_rng(0)
    sel = Selection(order=rng.permutation(d), scores=rng.random(d), seconds=0.0, params={}, subsets={}, space=None,
                    n_ranked=d)
    full = h1_diagram(normalized_distance_matrix(X), **PERSISTENCE)
    metrics = {"knn": KNN, "distance_norms": {"normalize_subset": True},
               "persistence": {**PERSISTENCE, "counts": [c for c in DIAGRAM_COUNTS if c <= d],
                               "literal_min_persistence": LITERAL, "settings": {}}}
    at = metrics["persistence"]["counts"]
    t = {}
    t["knn"], _ = best(lambda: knn_accuracy_path(X, y, sel.order, counts, **KNN, random_state=1), repeat)
    t["norms"], _ = best(lambda: evaluate_selection(X, y, sel, counts, {"distance_norms": {}}, seed=1), repeat)
    t["diagrams"], _ = best(lambda: persistence_rows(X, sel, at, full, **PERSISTENCE, literal_min_persistence=LITERAL),
                            repeat)
    t["total"], frame = best(lambda: evaluate_run(X, y, sel, counts, metrics, 1, dataset=name, method="IVFS-linf",
                                                  params="p", rep=0, diagram=full), repeat)
    with tempfile.TemporaryDirectory() as tmp:
        dgm, out = Path(tmp, "full.npz"), Path(tmp, "run.parquet")
        save_diagram(full, dgm)
        t["io"], _ = best(lambda: (load_dataset(data), load_diagram(dgm), frame.to_parquet(out, index=False)), repeat)
        io_bytes = sum(p.stat().st_size for p in (data, dgm, out))

    # floors
    block = X[:, sel.order[: counts[-1]]]
    gemm, _ = best(lambda: block @ block.T, repeat)
    A, B = rng.random((n, n)), rng.random((n, n))
    copy, _ = best(lambda: np.copyto(B, A), repeat)
    bandwidth = 2 * A.nbytes / copy  # bytes read + written per second
    n_test = n - int(np.floor(0.8 * n))  # ShuffleSplit's test size at 0.2 (rounded up)
    matrices = [DF for _, DF in prefix_distance_matrices(X, sel.order, at)]
    rips = RipsPersistence(homology_dimensions=1, threshold=PERSISTENCE["max_edge"], input_type="full distance matrix")
    floor_rips, _ = best(lambda: [rips.fit_transform([D]) for D in matrices], repeat)
    floor = {
        "knn": gemm + KNN["n_splits"] * len(counts) * n_test * (n - n_test) * 8 / bandwidth,
        "norms": gemm + len(counts) * 3 * A.nbytes / bandwidth,
        "diagrams": floor_rips,
        "io": io_bytes / bandwidth,
    }
    return {"dataset": name, "shape": [n, d], "seconds": t, "floor": floor, "gemm_gflops": 2 * n * n * counts[-1] / gemm
            / 1e9, "bandwidth_gb": bandwidth / 1e9, "values": [float(v).hex() for v in frame["value"]]}


def measure_in(src: Path, data: Path, repeat: int, threads: int) -> dict:
    """``measure`` in a subprocess importing the package from ``src``."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    cmd = [sys.executable, __file__, "--prepared", str(data), "--repeat", str(repeat), "--threads", str(threads)]
    return json.loads(subprocess.run(cmd, env=env, check=True, stdout=subprocess.PIPE, text=True).stdout)


def extract_src(rev: str, into: Path) -> Path:
    """The ``src/`` folder of git revision ``rev``, extracted under ``into``."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "src"], check=True, capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def print_parts(result: dict, before: dict | None = None) -> None:
    n, d = result["shape"]
    print(f"\n{result['dataset']} ({n} x {d}); GEMM {result['gemm_gflops']:.1f} GFlop/s, "
          f"copy {result['bandwidth_gb']:.1f} GB/s")
    head = f"{'part':<10}" + (f"{'before s':>10}" if before else "") + f"{'s/run':>10}{'floor s':>10}{'x floor':>9}"
    print(head + (f"{'speed-up':>10}" if before else ""))
    for part in (*PARTS, "total"):
        now = result["seconds"][part]
        floor = result["floor"].get(part)
        line = f"{part:<10}" + (f"{before['seconds'][part]:>10.3f}" if before else "") + f"{now:>10.3f}"
        line += f"{floor:>10.3f}{now / floor:>9.1f}" if floor else f"{'':>10}{'':>9}"
        print(line + (f"{before['seconds'][part] / now:>9.1f}x" if before else ""))
    job = RUNS_PER_JOB * result["seconds"]["total"]
    without = RUNS_PER_JOB * sum(result["seconds"][part] for part in PARTS if part != "diagrams")
    print(f"a job of {RUNS_PER_JOB} runs: {job:.1f} s with diagrams (Table 1's n~), {without:.1f} s without")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, default=os.environ.get("UFS_DATA_MIRROR"))
    parser.add_argument("--datasets", nargs="+", default=["lymphoma", "COIL20"])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads (a job's threads: 1)")
    parser.add_argument("--compare", metavar="GIT_REV", help="time this revision's package too, check equal numbers")
    parser.add_argument("--prepared", type=Path, help=argparse.SUPPRESS)  # measure this npz, print JSON
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error(f"--repeat must be >= 1, got {args.repeat}.")
    threadpool_limits(args.threads)
    if args.prepared:
        print(json.dumps(measure(args.prepared, args.repeat)))
        return
    if args.mirror is None or not args.mirror.is_dir():
        parser.error("give the raw-data folder with --mirror or $UFS_DATA_MIRROR.")
    with tempfile.TemporaryDirectory() as tmp:
        old_src = extract_src(args.compare, Path(tmp)) if args.compare else None
        for name in args.datasets:
            data = Path(tmp, f"{name}.npz")
            save_dataset(prepared(args.mirror, name), data)
            if old_src is None:
                print_parts(measure(data, args.repeat))
                continue
            before = measure_in(old_src, data, args.repeat, args.threads)
            after = measure_in(ROOT / "src", data, args.repeat, args.threads)
            print_parts(after, before)
            same = before["values"] == after["values"]
            print(f"metric values of {args.compare} and the working tree: "
                  f"{'identical' if same else 'DIFFERENT'} ({len(after['values'])} values)")
            if not same:
                sys.exit(1)


if __name__ == "__main__":
    main()
