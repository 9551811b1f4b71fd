"""Pairwise distances and k-nearest-neighbour affinity graphs shared by the graph-based selectors.

One implementation for LS, SPEC, MCFS, NDFS and the papers' own methods, so
that "the k = 5 heat-kernel graph" means the same thing everywhere:

* neighbours by Euclidean distance, the point itself excluded (no self-loops);
* an edge i-j if either is among the other's k nearest (W = max(W, W.T)),
  as in He et al. (2005) and Deng Cai's ``constructW``;
* heat-kernel weights exp(-||xi - xj||^2 / (2 sigma^2)) with sigma the mean
  pairwise distance by default (Cai's default), or 0/1 weights, or cosine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .sparse_input import is_sparse, row_sq_norms, sparse_cosines
from .validation import shifted_to_minimum

if TYPE_CHECKING:  # scipy.sparse is imported by knn_graph: the workflow's start-up, through the papers, loads none
    import scipy.sparse as sp


def pairwise_sq_dists(X: np.ndarray, Y: np.ndarray | None = None, products: np.ndarray | None = None) -> np.ndarray:
    """Squared Euclidean distances by one BLAS product, exact zeros for identical points.

    The columns are first shifted to their minimum (``validation.shifted_to_minimum``,
    X and Y by the same shift), so a feature on a large offset loses no
    precision: the norms below are of the spread, not of the offset. ||x||^2 + ||y||^2 - 2 x'y cancels:
    for identical points it leaves rounding noise of order eps (||x||^2 +
    ||y||^2), which a square root turns into a spurious distance of ~1e-7
    relative. Values below 1e-12 of that scale (unresolvable by this formula)
    are set to 0, negatives included, so duplicates are at distance exactly 0
    (the diagonal too). ``products`` may pass X @ Y' computed otherwise (a
    sparse product on mostly-zero data); it is overwritten, and X and Y are
    then used as they are (a shift would have to be applied to the products too).
    Sparse X and Y give the same from the sparse product X Y' in float64, unshifted.
    """
    if is_sparse(X):
        X = X.tocsr().astype(np.float64)
        Y = None if Y is None else Y.tocsr().astype(np.float64)
        D2 = (X @ (X if Y is None else Y).T).toarray() if products is None else products
        return sq_dists_from_products(D2, row_sq_norms(X), None if Y is None else row_sq_norms(Y))
    X = np.asarray(X, dtype=np.float64)
    same = Y is None
    Y = X if same else np.asarray(Y, dtype=np.float64)
    if products is None and X.size and Y.size:
        if same:
            (X,) = shifted_to_minimum(X)
            Y = X
        else:
            X, Y = shifted_to_minimum(X, Y)
    xx = np.einsum("ij,ij->i", X, X)
    yy = None if same else np.einsum("ij,ij->i", Y, Y)
    return sq_dists_from_products(X @ Y.T if products is None else products, xx, yy)


def sq_dists_from_products(D2: np.ndarray, xx: np.ndarray, yy: np.ndarray | None) -> np.ndarray:
    """Squared distances from the products D2 = X Y' (overwritten) and the squared norms (yy None: Y is X).

    ``pairwise_sq_dists``'s last step, for a caller that computes the products
    and norms itself (block by block, into a reused buffer) with the same result.
    """
    same = yy is None
    scale = np.add.outer(xx, xx if same else yy)
    # -2 x'y + (||x||^2 + ||y||^2) in place: the same rounding as (||x||^2 + ||y||^2) - 2 x'y, with two
    # n x m arrays instead of four (fresh memory is a large share of the cost on small data)
    D2 *= -2.0
    D2 += scale
    scale *= 1e-12
    D2[D2 <= scale] = 0.0
    if same:
        np.fill_diagonal(D2, 0.0)
    return D2


def knn_indices(D2: np.ndarray, n_neighbors: int) -> np.ndarray:
    """Indices of each row's ``n_neighbors`` nearest other points (n x k), nearest first.

    Ties are broken by index (stable sort) so the graph is deterministic.
    """
    n = D2.shape[0]
    if not 1 <= n_neighbors < n:
        raise ValueError(f"n_neighbors={n_neighbors} must be in [1, n_samples - 1 = {n - 1}].")
    # the diagonal is set to inf in place for the search and restored after (no n x n copy)
    diagonal = D2.diagonal().copy()
    np.fill_diagonal(D2, np.inf)
    try:
        part = np.argpartition(D2, n_neighbors - 1, axis=1)[:, :n_neighbors]
        # re-sort the k candidates, by distance then index, for a deterministic order
        rows = np.arange(n)[:, None]
        keys = np.lexsort((part, D2[rows, part]), axis=1)
    finally:
        np.fill_diagonal(D2, diagonal)
    return part[rows, keys]


def knn_graph(
    X: np.ndarray,
    n_neighbors: int = 5,
    weight: str = "heat",
    sigma: float | None = None,
    D2: np.ndarray | None = None,
) -> sp.csr_matrix:
    """Symmetric kNN affinity matrix W (sparse, zero diagonal).

    weight: "heat" (exp(-d^2 / (2 sigma^2)), sigma = mean pairwise distance when
    None), "binary" (1 on each edge) or "cosine" (cosine similarity of the two
    samples as given, not centred: the documents' cosine of the NRFS paper's
    Eq. 2 and of Cai's ``constructW``; neighbours still by Euclidean distance;
    a negative cosine, possible only with negative entries, is no similarity
    and weighs 0). ``D2`` may pass precomputed squared distances to share them
    between calls. X may be sparse.
    """
    import scipy.sparse as sp

    if D2 is None:
        D2 = pairwise_sq_dists(X)
    n = D2.shape[0]
    idx = knn_indices(D2, n_neighbors)
    rows = np.repeat(np.arange(n), n_neighbors)
    cols = idx.ravel()
    if weight == "heat":
        if sigma is None:
            sigma = mean_distance(D2)
        if sigma <= 0:
            raise ValueError("all samples coincide: the heat-kernel width is 0.")
        vals = np.exp(-D2[rows, cols] / (2.0 * sigma**2))
    elif weight == "binary":
        vals = np.ones(rows.size)
    elif weight == "cosine":
        vals = np.maximum(sparse_cosines(X, rows, cols) if is_sparse(X) else dense_cosines(X, rows, cols), 0.0)
    else:
        raise ValueError(f"unknown weight {weight!r}; use 'heat', 'binary' or 'cosine'.")
    W = sp.csr_matrix((vals, (rows, cols)), shape=(n, n))
    W = W.maximum(W.T).tocsr()
    if weight == "cosine":
        isolated = np.flatnonzero(np.asarray(W.sum(axis=1)).ravel() <= 0)
        if isolated.size:
            raise ValueError(
                f"weight='cosine': {isolated.size} samples have no neighbour with a positive cosine among their "
                f"{n_neighbors} nearest (first: {isolated[:5].tolist()}): all-zero samples, or entries of mixed sign. "
                "Cosine weights suit non-negative data such as tf-idf; use weight='heat' otherwise."
            )
    return W


def dense_cosines(X: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Cosine similarity of the sample pairs (rows[k], cols[k]) of X; an all-zero sample has norm 1."""
    norms = np.linalg.norm(X, axis=1)
    norms[norms == 0] = 1.0
    # pair by pair in blocks of 256 (the same sums; no two n k x d copies, 700 MB on the NRFS text sets)
    dots = np.concatenate([np.einsum("ij,ij->i", X[rows[a : a + 256]], X[cols[a : a + 256]])
                           for a in range(0, rows.size, 256)])
    return dots / (norms[rows] * norms[cols])


def mean_distance(D2: np.ndarray) -> float:
    """Mean Euclidean distance over distinct pairs (Cai's default heat-kernel width)."""
    n = D2.shape[0]
    upper = np.triu(np.ones((n, n), dtype=bool), k=1)  # row-major like triu_indices, 8x less memory
    return float(np.sqrt(D2[upper]).mean())
