"""The three datasets of the parity checks against the authors' MATLAB code (tests/data/parity_*.csv).

UCI wdbc (569 x 30), ORL faces (every 4th row: 100 x 1024) and lymphoma
(96 x 4026), each loaded through the registry and the project's loaders,
constant columns dropped and z-scored, so that the authors' code (run under
GNU Octave on exactly this matrix) and ours see the same numbers.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ufskit.loaders import load
from ufskit.registry import load_registry

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).resolve().parent / "data"
PARITY_SETS = ("wdbc", "ORL", "lymphoma")
# rows kept: the authors' RUFS and FSASL loop over samples in Octave, so the image set is thinned
ROW_STEP = {"ORL": 4}


def parity_matrix(name: str, mirror) -> np.ndarray:
    """X of parity set ``name``: the registry's loader, fixed rows, constant columns dropped, z-scored."""
    registry = load_registry(ROOT / "config" / "datasets.yaml")
    ds = load(name, registry["datasets"][name], mirror, sources=registry["sources"])
    X = np.asarray(ds.X, dtype=np.float64)[:: ROW_STEP.get(name, 1)]
    X = X[:, np.ptp(X, axis=0) > 0]
    return (X - X.mean(axis=0)) / X.std(axis=0)


def fixture(method: str, name: str) -> np.ndarray:
    """The stored numbers of the authors' ``method`` on set ``name`` (one row per feature, or one value)."""
    return np.loadtxt(DATA / f"parity_{method}_{name}.csv", delimiter=",", ndmin=1)


def agreement(ours: np.ndarray, theirs: np.ndarray) -> tuple[float, float]:
    """(Spearman correlation of the two score vectors, overlap of their top 10 % of features)."""
    from scipy.stats import spearmanr

    top = max(1, round(0.1 * ours.size))
    best = [set(np.argsort(-s, kind="stable")[:top]) for s in (ours, theirs)]
    return float(spearmanr(ours, theirs)[0]), len(best[0] & best[1]) / top
