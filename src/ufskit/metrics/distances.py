"""Normalised Euclidean distance matrices and the IVFS paper's norms of D - D_F.

The IVFS paper (Li, Wu, Li, AAAI 2020) divides each distance matrix by its
largest entry, so all distances lie in [0, 1], and compares the full-data
matrix D with the matrix D_F of the selected features by
``||D - D_F||_inf = max |E|``, ``||D - D_F||_1 = sum_ij |E_ij|`` (reported as
L1/n^2) and the Frobenius norm ``||D - D_F||_2``, all over the full n x n
matrix E = D - D_F.

Evaluating one ranking at many feature counts m uses prefixes
``X[:, order[:m]]``: squared distances are additive over features, so
``D2_m = D2_prev + D2(added block)``, one BLAS product per block, and the whole
path costs about one full distance computation.
"""

from __future__ import annotations

import numpy as np

from ..graph import pairwise_sq_dists
from ..validation import check_data

NORMS = ("Linf", "L1_over_n2", "L2")


def check_distance_matrix(D, *, name: str = "D") -> np.ndarray:
    """Return D as a float64 array, or raise ValueError unless it is a distance matrix.

    A distance matrix here is square, finite, non-negative, symmetric (up to
    1e-12 relative rounding) and has a zero diagonal.
    """
    D = np.asarray(D, dtype=np.float64)
    if D.ndim != 2 or D.shape[0] != D.shape[1] or D.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty square n x n matrix, got shape {D.shape}.")
    if not np.all(np.isfinite(D)):
        raise ValueError(f"{name} has {np.count_nonzero(~np.isfinite(D))} NaN or infinite entries.")
    if (D < 0).any():
        raise ValueError(f"{name} has negative entries; distances are >= 0.")
    if np.any(np.diag(D) != 0):
        raise ValueError(f"{name} has a non-zero diagonal; the distance of a point to itself is 0.")
    if _exactly_symmetric(D):  # the usual case: no rounding to measure
        return D
    tol = 1e-12 * max(1.0, float(D.max()))
    asym = float(np.abs(D - D.T).max())
    if asym > tol:
        raise ValueError(f"{name} is not symmetric (max |D - D.T| = {asym:.3g}).")
    return D


def _exactly_symmetric(D: np.ndarray, block: int = 128) -> bool:
    """Whether D equals D.T exactly, comparing the upper triangle's row strips with the lower's column strips
    (about half the reads of D == D.T, and strips that stay in cache)."""
    return all(np.array_equal(D[i : i + block, i:], D[i:, i : i + block].T) for i in range(0, D.shape[0], block))


def check_prefixes(n_features: int, order, counts) -> tuple[np.ndarray, np.ndarray]:
    """Validate a feature order (distinct indices, best first) and strictly increasing prefix sizes."""
    order = np.asarray(order)
    if order.ndim != 1 or order.size == 0 or not np.issubdtype(order.dtype, np.integer):
        raise ValueError(f"order must be a non-empty 1-D array of feature indices, got {order!r}.")
    if order.min() < 0 or order.max() >= n_features:
        raise ValueError(f"order has indices outside [0, {n_features - 1}].")
    if np.unique(order).size != order.size:
        raise ValueError("order repeats a feature index.")
    counts = np.asarray(counts)
    if counts.ndim != 1 or counts.size == 0 or not np.issubdtype(counts.dtype, np.integer):
        raise ValueError(f"counts must be a non-empty 1-D array of ints, got {counts!r}.")
    if counts[0] < 1 or counts[-1] > order.size or np.any(np.diff(counts) <= 0):
        raise ValueError(f"counts must increase strictly within [1, len(order) = {order.size}], got {counts.tolist()}.")
    return order.astype(np.intp), counts.astype(np.intp)


def iter_prefix_sq_dists(X, order, counts):
    """Yield ``(m, D2_m)``: squared distances of ``X[:, order[:m]]`` for each m in ``counts``.

    D2_m is a read-only view of one buffer that is updated in place at the next
    step: copy it to keep it. Inputs are validated before the first yield.
    """
    X = check_data(X)
    order, counts = check_prefixes(X.shape[1], order, counts)
    return _accumulate(X, order, counts)


def _accumulate(X, order, counts):
    D2 = np.zeros((X.shape[0],) * 2)
    start = 0
    for m in counts:
        D2 += pairwise_sq_dists(X[:, order[start:m]])
        start = m
        view = D2.view()
        view.flags.writeable = False
        yield int(m), view


def _divide(D: np.ndarray, scale: float) -> np.ndarray:
    """D / scale, in place (D is a fresh matrix of its callers: no second n x n allocation); all zeros when
    scale is 0 (every point coincides: no scale to normalise by)."""
    if scale > 0:
        D /= scale
    else:
        D[...] = 0.0
    return D


def normalized_distance_matrix(X) -> np.ndarray:
    """Euclidean distances divided by their maximum, so D lies in [0, 1] (zeros if all points coincide)."""
    D = np.sqrt(pairwise_sq_dists(check_data(X)))
    return _divide(D, D.max())


def prefix_distance_matrices(X, order, counts, *, normalize_subset: bool = True):
    """Yield ``(m, D_F)`` for the prefixes ``X[:, order[:m]]``, m in ``counts`` (fresh arrays).

    normalize_subset=True divides each D_F by its own maximum (the IVFS paper's
    "divide D by its largest entry", applied to every distance matrix);
    False divides it by the maximum distance of the full data X, so that D_F
    and D share one scale and dropping features shrinks distances.
    """
    X = check_data(X)
    order, counts = check_prefixes(X.shape[1], order, counts)
    scale = None if normalize_subset else float(np.sqrt(pairwise_sq_dists(X).max()))
    return _prefix_distances(X, order, counts, scale)


def _prefix_distances(X, order, counts, scale):
    for m, D2 in _accumulate(X, order, counts):
        D = np.sqrt(D2)
        yield m, _divide(D, D.max() if scale is None else scale)


def _norms(E: np.ndarray) -> dict:
    """The norms of E, overwriting E with |E| (E is its callers' temporary D - DF: no second n x n array)."""
    l2 = float(np.linalg.norm(E))
    A = np.abs(E, out=E)
    return {"Linf": float(A.max()), "L1_over_n2": float(A.sum() / E.size), "L2": l2}


def distance_norms(D, DF) -> dict:
    """Norms of E = D - DF over the full n x n matrix: max |E|, sum |E| / n^2 and the Frobenius norm.

    ``L1_over_n2`` is the plain mean of |E|; the IVFS paper's Table 1 prints it
    in units of 1e-2 (i.e. 100 x this value).
    """
    D = check_distance_matrix(D, name="D")
    DF = check_distance_matrix(DF, name="DF")
    if D.shape != DF.shape:
        raise ValueError(f"D and DF must have the same shape, got {D.shape} and {DF.shape}.")
    return _norms(D - DF)


def distance_norms_path(X, order, counts, *, normalize_subset: bool = True) -> dict:
    """``distance_norms`` of D = normalized_distance_matrix(X) and D_F of each prefix in ``counts``.

    Returns ``{"Linf", "L1_over_n2", "L2"}`` -> arrays of len(counts). See
    ``prefix_distance_matrices`` for ``normalize_subset``.
    """
    X = check_data(X)
    order, counts = check_prefixes(X.shape[1], order, counts)
    D = np.sqrt(pairwise_sq_dists(X))
    full_max = float(D.max())
    D = _divide(D, full_max)
    rows = [_norms(D - DF) for _, DF in _prefix_distances(X, order, counts, None if normalize_subset else full_max)]
    return {key: np.array([row[key] for row in rows]) for key in NORMS}
