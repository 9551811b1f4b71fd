"""SOGFS where d > n: the authors' code over column orders and from ufskit's start, under GNU Octave.

    python benchmarks/octave_sogfs_start.py TOOLBOX [--mirror PATH] [--datasets lymphoma] [--write-fixtures]

For d > n, X'LX (rank <= n - 1) has a null space of dimension >= d - n + 1, and the first step of the
code's W-step (G = I: the c smallest eigenvectors of X'LX + gamma I) keeps whichever c null vectors
LAPACK's ``eig`` returns, so its ranking depends on the column order. This runs the code, prepared as in
``octave_timing_autoufs.py`` (same copies, same parity matrix and settings), on the column subsample in its
own order and in ``ORDER_SEEDS`` shuffles (scores and W mapped back), and once with ``InterationW.m``
replaced by ``SAME_START_W``: the same reweighting started as ufskit starts it (the G = I step's squared row
norms averaged over a tied eigenspace: its projector's diagonal times (vectors still needed) / (its
dimension), ``udfs._start_row_norms``) and stopped as ufskit stops it (relative change <= 1e-8, at most
100 iterations). Printed: Spearman, top-10 % and objective gap of each run against ufskit's fit and the
CPU seconds; ``--write-fixtures`` adds the columns score_order<s> and score_same_start to
tests/data/autoufs/sogfs_<name>.csv and <name>_order<s>, <name>_same_start to sogfs_objective.csv.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import scipy.io
from scipy.stats import spearmanr

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from octave_timing_autoufs import FIXTURES, merge_columns, prepare, timed_fit  # noqa: E402
from test_autoufs_parity import COLUMN_STRIDE, SOGFS_PARAMS, dataset, top_overlap  # noqa: E402

from ufskit.selectors import SOGFS  # noqa: E402
from ufskit.selectors.sogfs import sogfs_objective  # noqa: E402

ORDER_SEEDS = (1, 2, 3)  # np.random.default_rng(seed).permutation of the columns
DRIVER = """args = argv();
load(args{1});
t = cputime; [~, sumW, W, A, r] = SOGFS(Xs, gamma, m, c, k); out.sogfs_time = cputime - t;
out.sogfs = sqrt(sumW); out.sogfs_W = W; out.sogfs_A = A; out.sogfs_r = r;
save('-v7', args{2}, '-struct', 'out');
"""
SAME_START_W = """function [W] = InterationW(L, X, gamma, dim, m)
% the reweighted W-step with ufskit's start (G = I averaged over a tied eigenspace) and stop (1e-8 relative)
xlx = X*L*X';
xlx = (xlx + xlx')/2;
[V, D] = eig(xlx);
[vals, o] = sort(diag(D)); V = V(:, o);
tol = dim * eps * max(abs(vals));
below = vals < vals(m) - tol; tied = abs(vals - vals(m)) <= tol;
sq = sum(V(:, below).^2, 2) + (m - sum(below)) / sum(tied) * sum(V(:, tied).^2, 2);
prev = Inf;
for i = 1:100
    [vec, val] = eig(xlx + gamma*diag(0.5 ./ sqrt(sq + eps)));
    [~, di] = sort(diag(val));
    W = vec(:, di(1:m));
    sq = sum(W.^2, 2);
    obj = trace(W'*xlx*W) + gamma*sum(sqrt(sq + eps));
    if i > 1 && abs(prev - obj) <= 1e-8 * abs(prev)
        break;
    end
    prev = obj;
end
end
"""


def run(folder: Path, Xs: np.ndarray, order: np.ndarray) -> dict:
    """The code's SOGFS on Xs[:, order]; its scores and W rows mapped back to Xs's column order."""
    scipy.io.savemat(folder / "in.mat", {"Xs": Xs[:, order], "gamma": float(SOGFS_PARAMS["gamma"]),
                                         "m": float(SOGFS_PARAMS["n_components"]),
                                         "c": float(SOGFS_PARAMS["n_clusters"]),
                                         "k": float(SOGFS_PARAMS["n_neighbors"])})
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    subprocess.run(["octave", "--no-gui", "-q", "sogfs_driver.m", "in.mat", "out.mat"], cwd=folder, check=True,
                   stdout=subprocess.DEVNULL, env=env)
    out = scipy.io.loadmat(folder / "out.mat", squeeze_me=True)
    for key in ("sogfs", "sogfs_W"):
        back = np.empty_like(out[key])
        back[order] = out[key]
        out[key] = back
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("toolbox", type=Path, help="a clone of AutoUFSTool (its UFSs/ folder is read)")
    parser.add_argument("--mirror", type=Path, default=os.environ.get("UFS_DATA_MIRROR"))
    parser.add_argument("--datasets", nargs="+", default=["lymphoma"])
    parser.add_argument("--write-fixtures", action="store_true", help="add the columns to tests/data/autoufs/")
    args = parser.parse_args(argv)
    print("| data set | run | Spearman | top-10 % | objective gap | Octave CPU s |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        own, same = Path(tmp) / "own", Path(tmp) / "same"
        for folder in (own, same):
            folder.mkdir()
            prepare(args.toolbox, folder)
            (folder / "sogfs_driver.m").write_text(DRIVER)
        (same / "InterationW.m").write_text(SAME_START_W)
        for name in args.datasets:
            Xs = dataset(name, args.mirror)[:, :: COLUMN_STRIDE[name]]
            d = Xs.shape[1]
            ours, seconds = timed_fit(SOGFS(**SOGFS_PARAMS), Xs)
            print(f"| {name} | ufskit | - | - | - | ({seconds:.1f} s ufskit) |")
            Xc = Xs - Xs.mean(axis=0)
            Xn = Xc / np.linalg.norm(Xc, axis=0)
            runs = {f"_order{s}": (own, np.random.default_rng(s).permutation(d)) for s in ORDER_SEEDS}
            runs["_same_start"] = (same, np.arange(d))
            scores, objectives = {}, {}
            for key, (folder, order) in runs.items():
                out = run(folder, Xs, order)
                objectives[name + key] = sogfs_objective(Xn, out["sogfs_W"], out["sogfs_A"], float(out["sogfs_r"]),
                                                         SOGFS_PARAMS["gamma"])
                scores["score" + key] = out["sogfs"]
                gap = (ours.objective_[-1] - objectives[name + key]) / abs(objectives[name + key])
                print(f"| {name} | {key[1:]} | {spearmanr(ours.scores_, out['sogfs']).statistic:.4f} | "
                      f"{top_overlap(ours.scores_, out['sogfs']):.3f} | {gap:.1e} | {float(out['sogfs_time']):.1f} |",
                      flush=True)
            if args.write_fixtures:
                merge_columns(FIXTURES / f"sogfs_{name}.csv", scores)
                merge_columns(FIXTURES / "sogfs_objective.csv", objectives)


if __name__ == "__main__":
    main()
