"""NRFS at its defaults against the other selectors, before and after a change, measured in one run.

    python benchmarks/nrfs_speed.py [--before REV] [--cases digits wide] [--timeout S]

Two cases from issues 39 and 40: scikit-learn's digits (1797 x 64, constant
columns dropped, z-scored) and wide Gaussian data (n = 50, d = 20,000). Every
fit runs at the selector's defaults (``random_state=0`` where it has one) in
a fresh subprocess, with the BLAS threads the machine gives it (no cap: what
a library user gets). NRFS runs twice, once with the library as it is and
once with ``src/`` of the git revision ``--before`` (extracted to a temporary
folder), so the ratio before/after comes from one run on one machine state.
Printed: seconds per fit, NRFS before/after, NRFS against NDFS on digits
(issue 40 asks for at most 3x) and against the median of the other
selectors on the wide case (issue 39 asks for at most 5x). IterativeLaplacianScore
is left out of the median unless ``--with-ils`` (its default drops one
feature per graph rebuild: minutes on the wide case).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OTHERS = ("Variance", "LaplacianScore", "SPEC", "MCFS", "NDFS", "UDFS", "GLSPFS", "IVFS", "KernelUDFS", "Random")


def data(case: str):
    import numpy as np

    if case == "digits":
        from sklearn.datasets import load_digits

        X = load_digits().data
        X = X[:, X.std(axis=0) > 0]
        return (X - X.mean(axis=0)) / X.std(axis=0)
    return np.random.default_rng(0).standard_normal((50, 20_000))


def child(case: str, name: str) -> None:
    """One default fit; prints its seconds as JSON."""
    import warnings

    from ufskit.selectors import SELECTORS

    X = data(case)
    est = SELECTORS[name]()
    if "random_state" in est.get_params():
        est.set_params(random_state=0)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X)
    print(json.dumps({"seconds": time.perf_counter() - start}))


def measure(case: str, name: str, src: Path, timeout: float) -> float | None:
    """Seconds of one fit in a fresh process importing ufskit from ``src``; None on a timeout or error."""
    env = {"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin"}
    try:
        out = subprocess.run([sys.executable, __file__, "--child", case, name], env=env, capture_output=True,
                             text=True, timeout=timeout, check=True)
    except (subprocess.TimeoutExpired, subprocess.CalledProcessError) as e:
        print(f"  {case} {name}: {type(e).__name__}", file=sys.stderr)
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])["seconds"]


def extract_src(rev: str, into: Path) -> Path:
    """``src/`` of the git revision ``rev`` unpacked under ``into``."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "src"], capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def show(seconds: float | None) -> str:
    return "timeout" if seconds is None else f"{seconds:8.1f}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="main", help="git revision of the code to compare with (default main)")
    parser.add_argument("--cases", nargs="+", default=["digits", "wide"], choices=["digits", "wide"])
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per fit")
    parser.add_argument("--with-ils", action="store_true", help="include IterativeLaplacianScore in the median")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(*args.child)
        return 0
    after = ROOT / "src"
    others = OTHERS + (("IterativeLaplacianScore",) if args.with_ils else ())
    with tempfile.TemporaryDirectory() as tmp:
        before = extract_src(args.before, Path(tmp))
        for case in args.cases:
            # before and after interleaved, so a change in the machine's load touches both
            nrfs_before = measure(case, "NRFS", before, args.timeout)
            nrfs_after = measure(case, "NRFS", after, args.timeout)
            names = ("NDFS",) if case == "digits" else others
            times = {name: measure(case, name, after, args.timeout) for name in names}
            print(f"{case}: NRFS before ({args.before}) {show(nrfs_before)} s, after {show(nrfs_after)} s")
            for name, seconds in times.items():
                print(f"{case}: {name:24s} {show(seconds)} s")
            if nrfs_before and nrfs_after:
                print(f"{case}: NRFS before / after = {nrfs_before / nrfs_after:.1f}")
            if case == "digits" and times["NDFS"] and nrfs_after:
                print(f"{case}: NRFS / NDFS = {nrfs_after / times['NDFS']:.1f} (before: "
                      f"{(nrfs_before or float('nan')) / times['NDFS']:.1f}; issue 40 asks <= 3)")
            finished = [s for s in times.values() if s is not None]
            if case == "wide" and finished and nrfs_after:
                median = statistics.median(finished)
                print(f"{case}: median of the others {median:.1f} s; NRFS / median = {nrfs_after / median:.1f} "
                      f"(before: {(nrfs_before or float('nan')) / median:.1f}; issue 39 asks <= 5)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
