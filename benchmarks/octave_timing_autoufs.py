"""SOGFS, Inf-FS and DGUFS: ufskit against the authors' MATLAB code (Auto-UFSTool's copies) under GNU Octave.

    python benchmarks/octave_timing_autoufs.py TOOLBOX [--mirror PATH] [--datasets ...] [--write-fixtures]

TOOLBOX is a clone of github.com/farhadabedinzadeh/AutoUFSTool; its .m files are copied into a
temporary folder, never into the project. Three changes are made to the copies, none to a computation:
SOGFS and DGUFS also return what they compute but do not output (||w_i||^2 and W, S, r; the Y-step's
T), and DGUFS runs the 100 iterations of the authors' own release (github.com/eeGuoJun/AAAI2018_DGUFS)
instead of Auto-UFSTool's 5. A shim ``corr.m`` gives Octave MATLAB's ``corr(X, 'type', 'Spearman')``
(Pearson correlation of the ranks, ties at their mean rank), which Octave 7 lacks.

Every data set is the parity matrix of tests/test_autoufs_parity.py (non-constant columns min-max
scaled and centred; SOGFS and Inf-FS on its column subsample, DGUFS on its row subsample) plus the contract's planted set, run with the
settings listed there. Printed per method and data set: the Spearman correlation of the scores, the
top-10 % overlap, SOGFS's relative objective gap, and the CPU seconds of one fit in ufskit (one process,
BLAS on one thread as the selectors set it) and in Octave (``cputime`` around the call, start-up excluded,
BLAS on one thread): CPU time, not wall time, so that a shared machine's load does not enter.
``--write-fixtures`` writes the Octave numbers to tests/data/autoufs/ (numbers only).
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.io
from scipy.stats import spearmanr

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from test_autoufs_parity import (  # noqa: E402  (the parity test's data and settings)
    COLUMN_STRIDE,
    FIXTURES,
    SOGFS_PARAMS,
    dataset,
    dgufs_rows,
    top_overlap,
)

from ufskit.selectors import DGUFS, SOGFS, InfFS  # noqa: E402
from ufskit.selectors.sogfs import sogfs_objective  # noqa: E402

SOURCES = {
    "UFSs/SOGFS": ["SOGFS.m", "EProjSimplex_new.m", "eig1.m", "InterationW.m", "L2_distance_1.m"],
    "UFSs/Inf-FS": ["infFS.m"],
    "UFSs/DGUFS": ["DGUFS.m", "getS.m", "EuDist2.m", "solve_l20.m", "solve_rank_lagrange.m",
                   "solve_l0_binary.m", "speedUp.m"],
}
# (file, pattern, replacement): outputs the functions compute but do not return, and DGUFS's iteration cap
EDITS = [
    ("SOGFS.m", r"function \[ranking\] = SOGFS\(", "function [ranking, sumW, W, A, r] = SOGFS("),
    ("DGUFS.m", r"function \[Y,L,V,Label\] = DGUFS\(", "function [Y,L,V,Label,temp1] = DGUFS("),
    ("DGUFS.m", r"max_Iter = 5;", "max_Iter = 1e2;"),
]
SHIM = """function [r, p] = corr(X, varargin)
% MATLAB's corr(X, 'type', 'Spearman'): Pearson correlation of the column ranks (ties: mean rank)
R = ranks(X);
R = R - mean(R);
R = R ./ sqrt(sum(R .^ 2));
r = R' * R;
p = [];
end
"""
DRIVER = """args = argv();
load(args{1});
out = struct();
t = cputime; [~, w] = infFS(Xs, [], inffs_alpha, 0, 0); out.inffs_time = cputime - t; out.inffs = w;
t = cputime; [~, sumW, W, A, r] = SOGFS(Xs, gamma, m, c, k); out.sogfs_time = cputime - t;
out.sogfs = sqrt(sumW); out.sogfs_W = W; out.sogfs_A = A; out.sogfs_r = r;
t = cputime; S = getS(Xd', k + 1, 1); [Y, ~, ~, ~, T] = DGUFS(Xd', c, S, alpha, beta, nsel);
out.dgufs_time = cputime - t; out.dgufs = sqrt(sum(T .^ 2, 2)); out.dgufs_selected = double(sum(Y .^ 2, 2) > 0);
save('-v7', args{2}, '-struct', 'out');
"""
DGUFS_PARAMS = {"alpha": 0.5, "beta": 0.5}  # ufskit's defaults, passed to both


def prepare(toolbox: Path, folder: Path) -> None:
    """Copy the methods' .m files into ``folder``, apply EDITS, add the shim and the driver."""
    for sub, names in SOURCES.items():
        for name in names:
            shutil.copy(toolbox / sub / name, folder / name)
    for name, pattern, replacement in EDITS:
        path = folder / name
        text, count = re.subn(pattern, lambda _, new=replacement: new, path.read_text(errors="replace"))
        if count != 1:
            raise SystemExit(f"{name}: expected one match of {pattern!r}, found {count}: another version of the code?")
        path.write_text(text)
    (folder / "corr.m").write_text(SHIM)
    (folder / "driver.m").write_text(DRIVER)


def run_octave(folder: Path, X: np.ndarray, Xs: np.ndarray, Xd: np.ndarray) -> dict:
    """The three methods in one Octave process (SOGFS and Inf-FS on Xs, DGUFS on Xd); their outputs."""
    scipy.io.savemat(folder / "in.mat", {
        "X": X, "Xs": Xs, "Xd": Xd, "alpha": float(DGUFS_PARAMS["alpha"]), "beta": float(DGUFS_PARAMS["beta"]),
        "gamma": float(SOGFS_PARAMS["gamma"]), "m": float(SOGFS_PARAMS["n_components"]),
        "c": float(SOGFS_PARAMS["n_clusters"]), "k": float(SOGFS_PARAMS["n_neighbors"]),
        "nsel": float(X.shape[1] // 2),
        "inffs_alpha": 1.0 - InfFS().alpha,  # infFS.m weighs the correlation cue by alpha, the paper the spread cue
    })
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}  # as ufskit's fits (ufskit.blas)
    subprocess.run(["octave", "--no-gui", "-q", "driver.m", "in.mat", "out.mat"], cwd=folder, check=True,
                   stdout=subprocess.DEVNULL, env=env)
    return scipy.io.loadmat(folder / "out.mat", squeeze_me=True)


def timed_fit(est, X):
    start = time.process_time()
    est.fit(X)
    return est, time.process_time() - start


def read_columns(path: Path) -> dict[str, list[str]]:
    """The columns of a fixture, as text (empty when the file does not exist)."""
    if not path.exists():
        return {}
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    return {key: [row[key] for row in rows] for key in rows[0]} if rows else {}


def merge_columns(path: Path, columns: dict) -> None:
    """Write ``columns`` (numbers) into the fixture at ``path``, keeping its other columns (other runs' outputs,
    e.g. benchmarks/octave_sogfs_start.py's) when they have the same length."""
    new = {key: [f"{v:.12g}" for v in np.atleast_1d(values)] for key, values in columns.items()}
    length = len(next(iter(new.values())))
    merged = {key: new.get(key, values) for key, values in read_columns(path).items()
              if key in new or len(values) == length}
    merged.update(new)
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(list(merged))
        writer.writerows(zip(*merged.values()))


def write_fixture(method: str, name: str, columns: dict) -> None:
    merge_columns(FIXTURES / f"{method}_{name}.csv", columns)


def compare(name: str, X: np.ndarray, out: dict, write: bool) -> tuple[list[list], float]:
    """The table rows of one data set, and SOGFS's reference objective."""
    Xs = X[:, :: COLUMN_STRIDE[name]]
    inffs, t_inffs = timed_fit(InfFS(), Xs)
    sogfs, t_sogfs = timed_fit(SOGFS(**SOGFS_PARAMS), Xs)
    dgufs, t_dgufs = timed_fit(DGUFS(n_selected=X.shape[1] // 2, **DGUFS_PARAMS), dgufs_rows(X, name))
    Xc = Xs - Xs.mean(axis=0)
    theirs = sogfs_objective(Xc / np.linalg.norm(Xc, axis=0), out["sogfs_W"], out["sogfs_A"], float(out["sogfs_r"]),
                             SOGFS_PARAMS["gamma"])
    gap = (sogfs.objective_[-1] - theirs) / abs(theirs)
    rows = []
    for method, est, seconds, extra in (("InfFS", inffs, t_inffs, ""), ("SOGFS", sogfs, t_sogfs, f"{gap:.1e}"),
                                        ("DGUFS", dgufs, t_dgufs, "")):
        ref = np.asarray(out[method.lower()], dtype=np.float64)
        ours = est.selection_scores_ if method == "DGUFS" else est.scores_  # DGUFS: the Y-step's row norms
        rows.append([name, method, f"{spearmanr(ours, ref).statistic:.4f}",
                     f"{top_overlap(ours, ref):.3f}", extra, f"{seconds:.2f}",
                     f"{float(out[method.lower() + '_time']):.2f}"])
    if write:
        write_fixture("inffs", name, {"score": out["inffs"]})
        write_fixture("sogfs", name, {"score": out["sogfs"]})
        write_fixture("dgufs", name, {"score": out["dgufs"], "selected": out["dgufs_selected"]})
    return rows, theirs


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("toolbox", type=Path, help="a clone of AutoUFSTool (its UFSs/ folder is read)")
    parser.add_argument("--mirror", type=Path, default=os.environ.get("UFS_DATA_MIRROR"))
    parser.add_argument("--datasets", nargs="+", default=["planted", "wdbc", "ORL", "lymphoma"])
    parser.add_argument("--write-fixtures", action="store_true", help="write tests/data/autoufs/*.csv")
    args = parser.parse_args(argv)
    table, objectives = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        prepare(args.toolbox, folder)
        for name in args.datasets:
            X = dataset(name, args.mirror)
            out = run_octave(folder, X, X[:, :: COLUMN_STRIDE[name]], dgufs_rows(X, name))
            rows, objectives[name] = compare(name, X, out, args.write_fixtures)
            table += rows
            print(" | ".join(rows[-1]), file=sys.stderr)
    if args.write_fixtures:
        merge_columns(FIXTURES / "sogfs_objective.csv", objectives)
    print("| data set | method | Spearman | top-10 % | objective gap | ufskit CPU s | Octave CPU s |")
    print("|---|---|---|---|---|---|---|")
    for row in table:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
