"""H1 persistence diagrams of Rips filtrations and the distances between them (IVFS paper).

The IVFS paper computes, for the normalised distance matrices of X and X_F,
the 1-dimensional persistence diagram of the Rips filtration with maximal
edge length alpha = 0.5, drops the bars shorter than epsilon = 0.1, and
compares the diagrams by w_1^1 (Wasserstein, order 1, l1 ground norm) and
w_inf (bottleneck).

The diagram comes from ``gudhi.sklearn.RipsPersistence`` (gudhi's Ripser fork
with edge collapse: seconds on 1,500 points, where a dimension-2 simplex tree
takes minutes). A loop still alive at ``max_edge`` comes back with death =
inf; its death is capped at ``max_edge`` (the filtration ends there), so both
diagram distances stay finite and such a loop counts with its truncated length.
Duplicate points (distance exactly 0) are dropped first: same diagram, much
faster on sparse data.
"""

from __future__ import annotations

import os

import gudhi
import gudhi.hera
import numpy as np
from gudhi.sklearn import RipsPersistence

from ..data import atomic_path, reading
from .distances import check_distance_matrix


def h1_diagram(D, *, max_edge: float = 0.5, min_persistence: float = 0.1) -> np.ndarray:
    """Bars (birth, death) of H1 of the Rips filtration of distance matrix D, an (m, 2) array.

    Deaths are capped at ``max_edge``; then bars with death - birth <
    ``min_persistence`` are dropped (a bar of exactly that length is kept: the
    paper drops bars "less than" epsilon). Rows are sorted by birth, then death.
    """
    D = check_distance_matrix(D)
    if not max_edge > 0:
        raise ValueError(f"max_edge={max_edge!r} must be > 0.")
    if not min_persistence >= 0:
        raise ValueError(f"min_persistence={min_persistence!r} must be >= 0.")
    rips = RipsPersistence(homology_dimensions=1, threshold=max_edge, input_type="full distance matrix")
    bars = np.asarray(rips.fit_transform([_without_duplicates(D)])[0], dtype=np.float64).reshape(-1, 2)
    bars[:, 1] = np.minimum(bars[:, 1], max_edge)  # finite deaths are <= max_edge: this caps the inf ones
    bars = bars[bars[:, 1] - bars[:, 0] >= min_persistence]
    return bars[np.lexsort((bars[:, 1], bars[:, 0]))]


def save_diagram(diagram, path) -> None:
    """Write a diagram to ``path`` (npz, array ``diagram``) atomically: a stopped job leaves no half file."""
    tmp = atomic_path(path)
    with open(tmp, "wb") as fh:
        np.savez(fh, diagram=np.asarray(diagram, dtype=np.float64).reshape(-1, 2))
    os.replace(tmp, path)


def load_diagram(path) -> np.ndarray:
    """Read a diagram written by ``save_diagram``; a corrupt file is an ``IntegrityError`` naming it."""
    with reading(path, "persistence diagram"), np.load(path, allow_pickle=False) as z:
        diagram = np.asarray(z["diagram"], dtype=np.float64)
        if diagram.ndim != 2 or diagram.shape[1] != 2:
            raise ValueError(f"array 'diagram' has shape {diagram.shape}, not (m, 2)")
        return diagram


def _without_duplicates(D: np.ndarray) -> np.ndarray:
    """D restricted to one point of each group at distance 0 from each other.

    A duplicate point is dominated by its twin at every scale, so removing it
    leaves every Rips diagram unchanged; on few features of sparse data (e.g.
    20 word counts of RELATHE) most points coincide with another, and the dense
    cliques they form made ripser 10-50x slower (measured).
    """
    keep = ~np.any(np.tril(D == 0, -1), axis=1)
    return D if keep.all() else D[np.ix_(keep, keep)]


def _check_diagram(a, name: str) -> np.ndarray:
    a = np.asarray(a, dtype=np.float64)
    if a.size == 0:
        return np.empty((0, 2))
    if a.ndim != 2 or a.shape[1] != 2:
        raise ValueError(f"{name} must be an (m, 2) array of (birth, death) pairs, got shape {a.shape}.")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} has NaN or infinite values; cap infinite deaths first (h1_diagram does).")
    if (a[:, 1] < a[:, 0]).any():
        raise ValueError(f"{name} has bars that die before they are born.")
    # Points on the diagonal (a loop born at max_edge, capped there) cost nothing in either distance,
    # and hera's Wasserstein crashes (SIGSEGV) on a diagram made of them (found on binary SPECT features).
    return a[a[:, 1] > a[:, 0]]


def diagram_distances(a, b, *, delta: float = 1e-4) -> dict:
    """``{"w11": W_1 with l1 ground norm, "winf": bottleneck}`` between two diagrams.

    w11 = gudhi.hera.wasserstein_distance(order=1, internal_p=1): a point
    (b, d) matched to the diagonal costs d - b. It is computed to within a
    relative error of ``delta`` (hera's parameter; hera's own default, 0.01,
    allows 1 %). winf = gudhi.bottleneck_distance (l_inf ground norm, a point
    to the diagonal costs (d - b) / 2), exact up to the last bits of a double.
    Empty diagrams are allowed. Diagrams within 1e-12 in bottleneck distance
    get w11 = 0: hera's Wasserstein does not terminate on such a pair (found
    on a subset holding every feature, whose diagram differs from the full one
    by 1e-16).
    """
    a = _check_diagram(a, "a")
    b = _check_diagram(b, "b")
    if not delta > 0:
        raise ValueError(f"delta={delta!r} must be > 0.")
    winf = float(gudhi.bottleneck_distance(a, b))
    if winf <= _SAME:  # hera's Wasserstein never returns on diagrams that differ only by rounding (measured)
        return {"w11": 0.0, "winf": winf}
    return {"w11": float(gudhi.hera.wasserstein_distance(a, b, order=1, internal_p=1, delta=delta)), "winf": winf}


# Diagrams this close in bottleneck distance are the same up to rounding: then w11 <= 2 (|a| + |b|) winf ~ 0.
_SAME = 1e-12
