"""scipy.sparse X for the selectors whose maths needs no dense n x d matrix (docs/selectors.md lists them).

A sparse X (CSR or CSC; float32 values are kept as they are, not copied to
float64) is never densified whole:

* per-column minima and maxima (the degenerate-input policy of
  ``validation.flat_features`` / ``check_scale``) count the implicit zeros;
* a per-feature score that depends on its own column only (variance, the
  Laplacian score, SPEC) is computed by the dense code on blocks of columns of
  at most ``BLOCK_BYTES`` each, converted to float64 block by block
  (``per_column``): the same operations as on dense X;
* distances between samples come from one sparse product X X' in float64
  (``graph.pairwise_sq_dists``);
* a regression on the centred columns (MCFS's LARS paths) uses
  ``CentredSparse``, X - 1 mu' as an operator.

Nothing here imports scipy until sparse input is seen: a sparse matrix exists
only if ``scipy.sparse`` was imported.
"""

from __future__ import annotations

import sys

import numpy as np

# working memory of one dense block of columns
BLOCK_BYTES = 16 * 2**20


def is_sparse(X) -> bool:
    """Whether X is a scipy.sparse matrix or array (without importing scipy when it is not loaded)."""
    module = sys.modules.get("scipy.sparse")
    return module is not None and module.issparse(X)


def sparse_extremes(X) -> tuple[np.ndarray, np.ndarray]:
    """Per-column minimum and maximum of a sparse X as float64, the implicit zeros included."""
    def reduce(values) -> np.ndarray:
        values = values.toarray() if hasattr(values, "toarray") else values
        return np.asarray(values, dtype=np.float64).ravel()

    return reduce(X.min(axis=0)), reduce(X.max(axis=0))


def column_blocks(X):
    """(start, dense float64 block) over the columns of a sparse X, each block at most BLOCK_BYTES."""
    X = X.tocsc()
    n, d = X.shape
    step = max(1, BLOCK_BYTES // (8 * max(n, 1)))
    for start in range(0, d, step):
        yield start, X[:, start : start + step].toarray().astype(np.float64, copy=False)


def per_column(X, score) -> np.ndarray:
    """``score(X)`` for dense X; for sparse X, ``score`` of each dense block of columns, concatenated.

    ``score`` maps an n x b float64 array to b values, each depending on its
    own column only (so the blocks give what the whole matrix would).
    """
    if not is_sparse(X):
        return score(X)
    return np.concatenate([score(block) for _, block in column_blocks(X)])


def row_sq_norms(X) -> np.ndarray:
    """Squared Euclidean norm of every row of a sparse X, accumulated in float64."""
    X = X.tocsr().astype(np.float64)
    return np.asarray(X.multiply(X).sum(axis=1)).ravel()


def row_dots(X, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """x_rows[k] . x_cols[k] for every pair k of a sparse X, in float64, by blocks of pairs."""
    X = X.tocsr().astype(np.float64)
    step = 4096
    return np.concatenate([
        np.asarray(X[rows[a : a + step]].multiply(X[cols[a : a + step]]).sum(axis=1)).ravel()
        for a in range(0, rows.size, step)
    ]) if rows.size else np.empty(0)


def sparse_cosines(X, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Cosine similarity of the sample pairs (rows[k], cols[k]) of a sparse X (as ``graph.dense_cosines``
    computes it for dense X); an all-zero sample has norm 1."""
    dots, sq = row_dots(X, rows, cols), row_sq_norms(X)
    norms = np.sqrt(np.maximum(sq, 0.0))
    norms[norms == 0] = 1.0
    return dots / (norms[rows] * norms[cols])


class CentredSparse:
    """The centred columns X - 1 mu' of a sparse X, divided by ``scale``, as an operator (never formed).

    Offers what a LARS path (``lasso_path``) asks of its design matrix: the
    shape, one column (``C[:, j]``, dense), products with the transpose
    (``C.T @ v`` = (X' v - mu 1'v) / scale) and the Gram matrix C'C.
    """

    def __init__(self, X, scale: float = 1.0):
        self.X = X.tocsc().astype(np.float64)
        self.shape = self.X.shape
        self.mu = np.asarray(self.X.mean(axis=0)).ravel()
        self.scale = float(scale)

    def __getitem__(self, key) -> np.ndarray:
        rows, j = key
        if rows != slice(None) or not isinstance(j, (int, np.integer)):
            raise IndexError("CentredSparse gives one whole column: C[:, j].")
        return (self.X[:, [j]].toarray().ravel() - self.mu[j]) / self.scale

    @property
    def T(self) -> _Transposed:
        return _Transposed(self)

    def gram(self) -> np.ndarray:
        """C'C = (X'X - n mu mu') / scale^2 (d x d, dense)."""
        G = (self.X.T @ self.X).toarray()
        G -= self.shape[0] * np.outer(self.mu, self.mu)
        return G / self.scale**2


class _Transposed:
    """C' of a ``CentredSparse`` C: only the product with a vector (or a stack of vectors)."""

    def __init__(self, centred: CentredSparse):
        self.centred = centred

    def __matmul__(self, v: np.ndarray) -> np.ndarray:
        C = self.centred
        return (C.X.T @ v - np.multiply.outer(C.mu, np.sum(v, axis=0))) / C.scale
