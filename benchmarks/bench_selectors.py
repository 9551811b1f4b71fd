"""Time and memory of the selectors, this project's against skfeature-chappers, in one run.

    python benchmarks/bench_selectors.py --mirror PATH [--datasets ...] [--methods ...] [--timeout S] [--repeats R]
    python benchmarks/bench_selectors.py --mirror PATH --authors-fsasl PATH --authors-autoufs PATH
        [--authors-datasets wdbc ORL lymphoma COIL20:LLCFS,TraceRatio] [--authors-timeout S]

For every dataset (z-scored, constant features dropped) and every selector
registered in ``ufskit.selectors`` (LaplacianScore, SPEC, MCFS, and NDFS/UDFS
when registered), each implementation runs once in a fresh subprocess that
loads X from a temporary .npy file (no parsing transients) and then fits once;
with ``--repeats R`` each cell is the fastest of R such fresh processes (on a
shared machine, other jobs only ever add time). Reported per cell:

* seconds: wall time of the fit alone, graph construction included;
* peak MB: the fit's peak resident memory above what the process held when the
  fit started (interpreter, imports and X). On Linux the kernel's RSS
  high-water mark is reset just before the fit (``/proc/self/clear_refs``) and
  read after it (``VmHWM``); elsewhere the getrusage high-water mark is used,
  which can hide a fit that stays below the import-time peak. It counts
  everything the fit touches, numpy and BLAS buffers included, and does not
  slow the run down the way tracemalloc would on scikit-feature's per-feature
  Python loops.

Both implementations get the same kind of graph: the k = 5 heat-kernel kNN
graph with sigma = mean pairwise distance (scikit-feature's ``construct_W``
with ``t`` set to it; it adds self-loops) for LS, MCFS and NDFS, the full RBF
kernel of the same width for SPEC (phi2), and 300 selected features for MCFS
(the IVFS paper's largest subset; ``max_nonzero=300`` here). scikit-feature's NDFS and UDFS run with
its own defaults. The mirror defaults to $UFS_DATA_MIRROR.

With ``--authors-fsasl`` (a checkout of the FSASL toolbox) and/or ``--authors-autoufs`` (a clone of
Auto-UFSTool) the run is instead the nine selectors against their authors' MATLAB code under GNU Octave:
LLCFS, SPFS, TraceRatio, RUFS, JELSR and FSASL by ``octave_timing_fsasl_b.py`` (z-scored X, the parity
tests' settings; SPFS's toolbox scan on its first 10 % of features only), SOGFS, InfFS and DGUFS by
``octave_timing_autoufs.py`` (its parity matrices and subsamples). Both give CPU seconds of one fit,
start-up excluded, one thread (BLAS and OpenMP) on both sides; one table: ours / theirs and whether it is at most 3.
A dataset given as ``NAME:M1,M2`` runs only those methods on it; an Octave fit of the FSASL toolbox longer
than ``--authors-timeout`` is stopped and its time shown as a lower bound.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.io

DATASETS = {
    "lymphoma": "microarray/lymphoma.mat",
    "Prostate-GE": "microarray/Prostate-GE.mat",
    "COIL20": "microarray/COIL20.mat",
    "RELATHE": "microarray/RELATHE.mat",
}
METHODS = ("LaplacianScore", "SPEC", "MCFS", "NDFS", "UDFS")
OURS = {"MCFS": {"max_nonzero": 300}}
N_SELECTED = 300
N_CLUSTERS = 5
# the selectors timed against their authors' code, by the script that runs that code
AUTHORS_FSASL = ("LLCFS", "SPFS", "TraceRatio", "RUFS", "JELSR", "FSASL")
AUTHORS_AUTOUFS = ("SOGFS", "InfFS", "DGUFS")
AUTHORS_DATASETS = ("wdbc", "ORL", "lymphoma")
WITHIN = 3.0  # the bound on ours / theirs


def load(mirror: Path, name: str) -> np.ndarray:
    """X of a mirrored .mat file, constant columns dropped, z-scored."""
    X = np.asarray(scipy.io.loadmat(mirror / DATASETS[name])["X"], dtype=np.float64)
    X = X[:, np.ptp(X, axis=0) > 0]
    return (X - X.mean(axis=0)) / X.std(axis=0)


# ---------------------------------------------------------------- child side


def run_ours(method: str, X: np.ndarray):
    from ufskit.runs import fit_selector

    selector, _ = fit_selector({"selector": method, "params": OURS.get(method, {})}, X, seed=0, n_classes=N_CLUSTERS)
    return selector.scores_


def run_reference(method: str, X: np.ndarray):
    from sklearn.metrics.pairwise import rbf_kernel

    from ufskit.graph import mean_distance, pairwise_sq_dists

    t = mean_distance(pairwise_sq_dists(X))
    if method == "SPEC":
        from skfeature.function.similarity_based.SPEC import spec

        return spec(X, W=rbf_kernel(X, gamma=1.0 / (2.0 * t**2)), style=0, mode="raw")
    if method == "UDFS":
        from skfeature.function.sparse_learning_based.UDFS import udfs

        return udfs(X, n_clusters=N_CLUSTERS, mode="raw")
    from skfeature.utility.construct_W import construct_W

    W = construct_W(X, metric="euclidean", neighbor_mode="knn", weight_mode="heat_kernel", k=5, t=t)
    if method == "LaplacianScore":
        from skfeature.function.similarity_based.lap_score import lap_score

        return lap_score(X, W=W, mode="index")
    if method == "MCFS":
        from skfeature.function.sparse_learning_based.MCFS import mcfs

        return mcfs(X, n_selected_features=N_SELECTED, W=W, n_clusters=N_CLUSTERS, mode="raw")
    if method == "NDFS":
        from skfeature.function.sparse_learning_based.NDFS import ndfs

        return ndfs(X, W=W, n_clusters=N_CLUSTERS, mode="raw")
    raise ValueError(f"no scikit-feature counterpart for {method!r}")


def status_kib(field: str) -> int:
    """A memory figure of this process from /proc/self/status (VmRSS, VmHWM), in KiB."""
    with open("/proc/self/status") as fh:
        line = next(line for line in fh if line.startswith(field + ":"))
    return int(line.split()[1])


def start_peak_window() -> tuple[bool, int]:
    """Reset the RSS high-water mark if the kernel allows; returns (reset, current RSS or max RSS in KiB)."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True, status_kib("VmRSS")
    except OSError:
        return False, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def child(impl: str, method: str, npy: str) -> None:
    """One measured fit; prints a JSON line with seconds and the fit's peak RSS (MB)."""
    import sklearn  # noqa: F401  (imports before the measurement)

    import ufskit.selectors  # noqa: F401

    if impl == "skfeature":
        import skfeature  # noqa: F401
    X = np.load(npy)
    run = run_ours if impl == "ufskit" else run_reference
    reset, base = start_peak_window()
    start = time.perf_counter()
    run(method, X)
    seconds = time.perf_counter() - start
    peak = status_kib("VmHWM") if reset else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"seconds": seconds, "peak_mb": (peak - base) / 1024}))


# --------------------------------------------------------------- parent side


def fastest(impl: str, method: str, npy: Path, timeout: float, repeats: int) -> dict:
    """The fastest of ``repeats`` fresh-process fits (scheduling noise on a shared machine only adds time)."""
    runs = [measure(impl, method, npy, timeout) for _ in range(repeats)]
    ok = [r for r in runs if "error" not in r]
    return min(ok, key=lambda r: r["seconds"]) if ok else runs[0]


def measure(impl: str, method: str, npy: Path, timeout: float) -> dict:
    """Run one child; a timeout or a crash is reported in the table, not raised."""
    cmd = [sys.executable, __file__, "--child", impl, method, str(npy)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"> {timeout:g} s"}
    if out.returncode != 0:
        last = (out.stderr.strip().splitlines() or ["?"])[-1]
        return {"error": f"failed: {last[:60]}"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def reference_available() -> bool:
    try:
        import skfeature  # noqa: F401
    except ImportError:
        return False
    return True


def fmt(result: dict | None, key: str) -> str:
    if result is None:
        return "n/a"
    if "error" in result:
        return result["error"]
    return f"{result[key]:.2f}" if key == "seconds" else f"{result[key]:.0f}"


def ratio(ref: dict | None, ours: dict, key: str) -> str:
    """skfeature / ufskit; peaks below 10 MB on both sides are allocator noise, not compared."""
    if ref is None or "error" in ref or "error" in ours:
        return "n/a"
    if key == "peak_mb" and max(ref[key], ours[key]) < 10:
        return "n/a (< 10 MB)"
    return f"{ref[key] / max(ours[key], 1e-3 if key == 'seconds' else 1.0):.1f}x"


# ------------------------------------------------- against the authors' code


def dataset_spec(spec: str) -> tuple[str, list[str] | None]:
    """``NAME`` or ``NAME:M1,M2``: the dataset and the methods to run on it (None: all)."""
    name, _, methods = spec.partition(":")
    return name, (methods.split(",") if methods else None)


def authors_cells(ours: float, theirs: float | None, timeout: float | None = None,
                  partial: bool = False) -> list[str]:
    """Table cells: ours, theirs (CPU s), ours / theirs and whether it is within ``WITHIN``.

    ``theirs`` None means their fit was stopped at ``timeout`` seconds: their time is above it, so the
    ratio is below ours / timeout. ``partial`` means theirs did part of the work (SPFS's first share of the
    features): their full time is above it, so the ratio is at most ours / theirs. A bound decides the
    last column only on its side of ``WITHIN``; otherwise it is "?".
    """
    if theirs is None:
        ratio = ours / timeout
        return [f"{ours:.2f}", f"> {timeout:g}", f"< {times(ratio)}", "yes" if ratio <= WITHIN else "?"]
    ratio = ours / max(theirs, 1e-3)
    if partial:
        return [f"{ours:.2f}", f"{theirs:.2f}", f"<= {times(ratio)}", "yes" if ratio <= WITHIN else "?"]
    return [f"{ours:.2f}", f"{theirs:.2f}", times(ratio), "yes" if ratio <= WITHIN else "no"]


def times(ratio: float) -> str:
    """A ratio as "0.25x"; below 0.1 with one significant digit, so that 0.0009 does not read 0.00."""
    return f"{ratio:.2f}x" if ratio >= 0.1 else f"{ratio:.1g}x"


def authors_table(rows: list[dict]) -> list[str]:
    """The markdown table of ``rows`` (selector, dataset, shape, ours, theirs, timeout, partial, note), by selector."""
    order = {m: i for i, m in enumerate(AUTHORS_FSASL + AUTHORS_AUTOUFS)}
    lines = ["| selector | dataset (n x d) | ours CPU s | authors' Octave CPU s | ours / theirs | within 3x | note |",
             "|---|---|---|---|---|---|---|"]
    for row in sorted(rows, key=lambda r: order.get(r["selector"], len(order))):
        cells = authors_cells(row["ours"], row["theirs"], row.get("timeout"), row.get("partial", False))
        n, d = row["shape"]
        lines.append(f"| {row['selector']} | {row['dataset']} ({n} x {d}) | " + " | ".join(cells)
                     + f" | {row.get('note', '')} |")
    return lines


def fsasl_rows(toolbox: Path, mirror: Path, name: str, methods: list[str], timeout: float):
    """Rows of the FSASL toolbox's methods on ``name``, timed by octave_timing_fsasl_b.py."""
    import octave_timing_fsasl_b as fsasl_b  # beside this script (on sys.path, see run_authors)

    X = fsasl_b.load(mirror, name)
    for r in fsasl_b.time_methods(toolbox, name, X, methods, spfs_share=0.1, timeout=timeout):
        note = f"Octave: first {r['octave_features']} of {X.shape[1]} features" if "octave_features" in r else ""
        yield {"selector": r["method"], "dataset": name, "shape": r["shape"], "ours": r["ours_cpu_s"],
               "theirs": r.get("octave_cpu_s"), "timeout": r.get("octave_timeout"), "partial": bool(note),
               "note": note}


def autoufs_rows(folder: Path, mirror: Path, name: str, methods: list[str]):
    """Rows of SOGFS, InfFS and DGUFS on ``name`` (its parity matrix and subsamples), by octave_timing_autoufs.py."""
    import octave_timing_autoufs as autoufs
    from threadpoolctl import threadpool_limits

    X = autoufs.dataset(name, mirror)
    Xs, Xd = X[:, :: autoufs.COLUMN_STRIDE[name]], autoufs.dgufs_rows(X, name)
    out = autoufs.run_octave(folder, X, Xs, Xd)
    with threadpool_limits(limits=1):  # BLAS and OpenMP on one thread, as Octave's run
        table, _ = autoufs.compare(name, X, out, write=False)
    for _, method, _, _, _, ours, theirs in table:
        if method in methods:
            shape = Xd.shape if method == "DGUFS" else Xs.shape
            yield {"selector": method, "dataset": name, "shape": shape, "ours": float(ours),
                   "theirs": float(theirs), "note": "the parity run's matrix (octave_timing_autoufs.py)"}


def run_authors(args, parser) -> int:
    """The nine selectors against their authors' code: one table on stdout (progress on stderr)."""
    import shutil

    if shutil.which("octave") is None:
        parser.error("GNU Octave is not on PATH (Debian package 'octave').")
    sys.path.insert(0, str(Path(__file__).resolve().parent))  # the two Octave scripts beside this one
    import octave_timing_autoufs as autoufs
    import octave_timing_fsasl_b as fsasl_b

    given = (AUTHORS_FSASL if args.authors_fsasl else ()) + (AUTHORS_AUTOUFS if args.authors_autoufs else ())
    plan = []  # (dataset, methods), checked before anything runs
    for spec in args.authors_datasets:
        name, methods = dataset_spec(spec)
        unknown = sorted(set(methods or ()) - set(given))
        if unknown:
            parser.error(f"{spec}: {unknown} are not among the methods of the toolboxes given: {list(given)}")
        methods = methods or list(given)
        if name not in fsasl_b.DATASETS and set(methods) & set(AUTHORS_FSASL):
            parser.error(f"{name}: octave_timing_fsasl_b.py does not load it; it loads {sorted(fsasl_b.DATASETS)}")
        if name not in autoufs.COLUMN_STRIDE and set(methods) & set(AUTHORS_AUTOUFS):
            parser.error(f"{name}: octave_timing_autoufs.py has no parity subsample for it; "
                         f"give {name}:<methods> without {', '.join(AUTHORS_AUTOUFS)}")
        plan.append((name, methods))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        if args.authors_autoufs:
            autoufs.prepare(args.authors_autoufs, Path(tmp))
        for name, methods in plan:
            new = []
            if set(methods) & set(AUTHORS_FSASL):
                new += fsasl_rows(args.authors_fsasl, args.mirror, name, [m for m in methods if m in AUTHORS_FSASL],
                                  args.authors_timeout)
            if set(methods) & set(AUTHORS_AUTOUFS):
                new += autoufs_rows(Path(tmp), args.mirror, name, methods)
            for row in new:
                print(json.dumps(row), file=sys.stderr, flush=True)
            rows += new
    print("\n".join(authors_table(rows)))
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirror", type=Path, default=os.environ.get("UFS_DATA_MIRROR"))
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    parser.add_argument("--methods", nargs="+", default=None, help=f"default: those of {METHODS} registered")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds allowed per run")
    parser.add_argument("--repeats", type=int, default=1, help="fresh-process fits per cell; the fastest is shown")
    parser.add_argument("--authors-fsasl", type=Path, help="FSASL toolbox checkout: time its six methods under Octave")
    parser.add_argument("--authors-autoufs", type=Path, help="Auto-UFSTool clone: time SOGFS, InfFS, DGUFS under Octave")
    parser.add_argument("--authors-datasets", nargs="+", default=list(AUTHORS_DATASETS),
                        help="datasets against the authors' code; NAME:M1,M2 runs only those methods on NAME")
    parser.add_argument("--authors-timeout", type=float, default=3600.0,
                        help="seconds allowed per Octave fit of the FSASL toolbox")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(*args.child)
        return 0
    if args.mirror is None:
        parser.error("give --mirror or set UFS_DATA_MIRROR")
    if args.authors_fsasl or args.authors_autoufs:
        return run_authors(args, parser)

    from ufskit.selectors import SELECTORS

    methods = args.methods or [m for m in METHODS if m in SELECTORS]
    unknown = sorted(set(methods) - set(SELECTORS))
    if unknown:
        parser.error(f"not registered: {unknown}; registered: {sorted(SELECTORS)}")
    with_ref = reference_available()
    print(
        "| dataset | n x d | method | ufskit s | skfeature s | time ratio (skf/ufskit) "
        "| ufskit peak MB | skfeature peak MB | memory ratio |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.datasets:
            X = load(args.mirror, name)
            npy = Path(tmp) / f"{name}.npy"
            np.save(npy, X)
            for method in methods:
                ours = fastest("ufskit", method, npy, args.timeout, args.repeats)
                ref = fastest("skfeature", method, npy, args.timeout, args.repeats) if with_ref else None
                print(
                    f"| {name} | {X.shape[0]} x {X.shape[1]} | {method} | {fmt(ours, 'seconds')} "
                    f"| {fmt(ref, 'seconds')} | {ratio(ref, ours, 'seconds')} | {fmt(ours, 'peak_mb')} "
                    f"| {fmt(ref, 'peak_mb')} | {ratio(ref, ours, 'peak_mb')} |",
                    flush=True,
                )
    if not with_ref:
        print("\nskfeature-chappers is not installed: reference columns are n/a.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
