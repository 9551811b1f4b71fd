"""Time per fit of LLCFS, SPFS, Trace Ratio, RUFS, JELSR and FSASL: this project's against the authors' code under Octave.

    python benchmarks/octave_timing_fsasl_b.py --toolbox PATH_TO_FSASL [--mirror PATH] [--datasets ...]
        [--methods LLCFS SPFS TraceRatio RUFS JELSR FSASL] [--spfs-share 0.1]

PATH_TO_FSASL is a checkout of the FSASL toolbox (GitHub csliangdu/FSASL), kept outside the project. Each
dataset is loaded from the mirror (default $UFS_DATA_MIRROR; the .mat files, and wdbc through the
project's registry and loader), constant columns dropped and z-scored, and
written once to a temporary .mat file; every method then runs once in a fresh Octave process (the time is
taken inside it with tic/toc and cputime around the toolbox call, so Octave's start-up is not counted) and once
here, on the same X with the same settings, both on one thread, BLAS and OpenMP (on a shared machine a second
thread only adds spin time to the CPU seconds):

* LLCFS: ``fs_unsup_llcfs`` with k = 5, beta = 1, 20 iterations, c = 5, the protocol's plain kNN
  neighbourhoods (``kType`` 2, which calls the statistics toolbox's ``knnsearch``: this script supplies a
  Euclidean stand-in when Octave has none);
* SPFS: ``fs_unsup_spfs_sfs`` for the first ``--spfs-share`` of the features (its loop is quadratic in d;
  ours always ranks all d, so its time is an upper bound for the same task), kernel width the protocol's;
* TraceRatio: ``compute_SbSw_unsup`` + ``fs_unsup_traceratio`` for m = d / 2;
* RUFS: the driver's steps (``litekmeans`` with 10 restarts, ``localLearnMx_KRR`` with k = 5 and ridge 0.1,
  ``fs_unsup_rufs`` with nu = alpha = beta = 1, MaxIter 20, epsilon 1e-2), c = 5; ``subplus`` (a MATLAB
  toolbox function the code calls) gets a stand-in when Octave has none. Ours: ``RUFS(max_iter=21)``, the
  same 21 rounds at most. ``litekmeans`` calls the statistics package's ``randsample`` (stand-in:
  ``randperm``).
* JELSR: the driver's LPP graph (``computeLocalStructure`` with k = 5 and sigma = ``optSigma``, self-loops
  removed) and ``fs_unsup_jelsr`` with ReducedDim 5, alpha 100, beta 1 (its 20 iterations), the parity run of
  tests/test_jelsr.py. Ours: ``JELSR(variant="authors", n_components=4, alpha=100)``, 20 iterations (a
  tolerance of 1e-12 that the run does not reach), on the library's kNN graph (the same k and cost).
* FSASL: ``FSASL`` (on X', as it expects) with c = 5, lambda1 = lambda2 = lambda3 = 1, SLEP ratio 0.01,
  k = 5 and its default single pass, the parity run of tests/test_fsasl.py; ours the same settings.

Prints one JSON line per (dataset, method) with both times in seconds, wall and CPU (on a shared machine the
CPU time is the steadier measure); an Octave fit stopped at ``--timeout`` is reported as such.
benchmarks/bench_selectors.py --authors-fsasl PATH runs the same timing and tabulates it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.io

# the .mat files of the mirror; the other sets (wdbc) through the project's registry and loader
DATASETS = {"lymphoma": "microarray/lymphoma.mat", "COIL20": "microarray/COIL20.mat", "ORL": "microarray/ORL.mat",
            "wdbc": None}
METHODS = ("LLCFS", "SPFS", "TraceRatio", "RUFS", "JELSR", "FSASL")
N_CLUSTERS = 5

# Octave statements per method: X is loaded; the fit runs between the clock readings of `start`
OCTAVE_FIT = {
    "LLCFS": "[~, tao] = fs_unsup_llcfs(X, struct('nClusters', {c}, 'k', 5, 'beta', 1, 'kType', 2, 'maxiter', 20));",
    "SPFS": "K = exp(-EuDist2(X, X, 0) / optSigma(X)^2); f = fs_unsup_spfs_sfs(X, K, {n_spfs});",
    "TraceRatio": "[Sb, Sw] = compute_SbSw_unsup(X, 5); i = fs_unsup_traceratio(Sb, Sw, floor(size(X, 2) / 2));",
    "RUFS": "n = size(X, 1); label = litekmeans(X, {c}, 'Replicates', 10); G0 = full(sparse(1:n, label, 1, n, {c})); "
            "L = localLearnMx_KRR(X, struct('nNeighbors', 5, 'rLambda', 0.1)); W = fs_unsup_rufs(X, L, G0, "
            "struct('nu', 1, 'alpha', 1, 'beta', 1, 'MaxIter', 20, 'epsilon', 1e-2, 'verbose', 0));",
    "JELSR": "[~, S] = computeLocalStructure(X, 'lpp', 5, optSigma(X)); S = S - diag(diag(S)); "
             "W = fs_unsup_jelsr(X, S, 5, 100, 1);",
    "FSASL": "W = FSASL(X', {c}, struct('lambda1', 1, 'lambda2', 1, 'lambda3', 1, 'SLEPreg', 0.01, 'Localk', 5, "
             "'maxiter', 1));",
}
# this project's settings for the same runs (the parity tests'); the others at their defaults
OURS = {"LLCFS": {"n_clusters": N_CLUSTERS}, "RUFS": {"max_iter": 21, "random_state": 0},
        "JELSR": {"variant": "authors", "n_components": 4, "alpha": 100.0, "beta": 1.0, "n_neighbors": 5,
                  "max_iter": 20, "tol": 1e-12},
        "FSASL": {"n_clusters": N_CLUSTERS, "lambda1": 1.0, "lambda2": 1.0, "lambda3": 1.0, "lasso_ratio": 0.01,
                  "n_neighbors": 5, "max_iter": 1}}

# a Euclidean knnsearch for Octave installations without the statistics package (LLCFS's kType 2 calls it)
KNNSEARCH = """function [idx, dist] = knnsearch(X, Y, varargin)
k = varargin{find(strcmp(varargin, 'k')) + 1};
D = sqrt(max(bsxfun(@plus, sum(Y.^2, 2), sum(X.^2, 2)') - 2 * Y * X', 0));
[dist, idx] = sort(D, 2);
idx = idx(:, 1:k); dist = dist(:, 1:k);
end
"""
# stand-ins for functions of MATLAB toolboxes the code calls, used when Octave has none (name -> code)
SHIMS = {"knnsearch": KNNSEARCH, "subplus": "function y = subplus(x)\ny = max(x, 0);\nend\n",
         "randsample": "function y = randsample(n, k)\ny = randperm(n, k)';\nend\n"}


def load(mirror: Path, name: str) -> np.ndarray:
    """X of a mirrored dataset, constant columns dropped, z-scored."""
    if DATASETS[name] is None:
        from ufskit.loaders import load as load_dataset
        from ufskit.registry import load_registry

        registry = load_registry(Path(__file__).resolve().parents[1] / "config" / "datasets.yaml")
        X = np.asarray(load_dataset(name, registry["datasets"][name], mirror, sources=registry["sources"]).X,
                       dtype=np.float64)
    else:
        X = np.asarray(scipy.io.loadmat(mirror / DATASETS[name])["X"], dtype=np.float64)
    X = X[:, np.ptp(X, axis=0) > 0]
    return (X - X.mean(axis=0)) / X.std(axis=0)


def octave_seconds(toolbox: Path, method: str, mat_file: Path, n_spfs: int, timeout: float) -> tuple[float, float]:
    """(wall, CPU) seconds of one fit of the toolbox's ``method`` in a fresh Octave process (read inside it)."""
    with tempfile.TemporaryDirectory() as shim:
        added = []
        for function, code in SHIMS.items():  # each in its own folder: added only where Octave lacks it
            (Path(shim) / function).mkdir()
            (Path(shim) / function / f"{function}.m").write_text(code)
            added.append(f"if isempty(which('{function}')), addpath('{Path(shim) / function}'); end; ")
        fit = OCTAVE_FIT[method].format(c=N_CLUSTERS, n_spfs=n_spfs)
        script = (f"addpath('{toolbox}'); {''.join(added)}"
                  f"S = load('{mat_file}'); X = S.X; t0 = cputime; tic; {fit} "
                  "printf('SECONDS %.6f %.6f\\n', toc, cputime - t0);")
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}  # one BLAS thread, as ours
        out = subprocess.run(["octave", "--no-gui", "--quiet", "--eval", script], capture_output=True, text=True,
                             timeout=timeout, check=True, env=env).stdout
    wall, cpu = next(line.split()[1:] for line in out.splitlines() if line.startswith("SECONDS"))
    return float(wall), float(cpu)


def our_seconds(method: str, X: np.ndarray) -> tuple[float, float]:
    """(wall, CPU) seconds of one fit of this project's ``method`` with the settings of ``OURS``, on one thread:
    BLAS and OpenMP (scikit-learn's K-means in RUFS), as Octave runs with one BLAS and one OpenMP thread."""
    from threadpoolctl import threadpool_limits

    from ufskit.selectors import make_selector

    est = make_selector(method, **OURS.get(method, {}))
    with threadpool_limits(limits=1):
        wall, cpu = time.perf_counter(), time.process_time()
        est.fit(X)
        return time.perf_counter() - wall, time.process_time() - cpu


def time_methods(toolbox: Path, name: str, X: np.ndarray, methods, spfs_share: float, timeout: float):
    """One row per method of its fit on dataset ``name`` (X), Octave's and ours, in seconds.

    An Octave fit that takes longer than ``timeout`` is stopped: its row has ``octave_timeout`` instead of
    Octave's times (ours is still measured).
    """
    with tempfile.TemporaryDirectory() as tmp:
        mat_file = Path(tmp) / "X.mat"
        scipy.io.savemat(mat_file, {"X": X})
        n_spfs = max(1, round(spfs_share * X.shape[1]))
        for method in methods:
            row = {"dataset": name, "shape": list(X.shape), "method": method}
            try:
                wall, cpu = octave_seconds(toolbox.resolve(), method, mat_file, n_spfs, timeout)
                row.update(octave_wall_s=round(wall, 3), octave_cpu_s=round(cpu, 3))
            except subprocess.TimeoutExpired:
                row["octave_timeout"] = timeout
            wall, cpu = our_seconds(method, X)
            row.update(ours_wall_s=round(wall, 3), ours_cpu_s=round(cpu, 3))
            if method == "SPFS":
                row["octave_features"] = n_spfs
            yield row


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--toolbox", type=Path, required=True, help="folder of the FSASL toolbox's .m files")
    parser.add_argument("--mirror", type=Path, default=os.environ.get("UFS_DATA_MIRROR"))
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=list(METHODS))
    parser.add_argument("--spfs-share", type=float, default=0.1, help="share of d the toolbox's SPFS selects")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds allowed per Octave fit")
    args = parser.parse_args(argv)
    if shutil.which("octave") is None:
        parser.error("GNU Octave is not on PATH (Debian package 'octave').")
    if args.mirror is None:
        parser.error("give --mirror or set UFS_DATA_MIRROR.")
    for name in args.datasets:
        for row in time_methods(args.toolbox, name, load(args.mirror, name), args.methods, args.spfs_share,
                                args.timeout):
            print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
