"""IVFS's subset losses ||D - D_F||: the kernel that takes nearly all of an IVFS fit's time.

For each random subset (n~ samples, d~ features) the loss compares the n~ x n~
distance matrix of the subset's samples on all features (D) with the one on the
subset's features (D_F), each divided by its own largest entry. The cost is the
Gram matrix of the n~ x d~ submatrix, n~^2 d~ multiply-adds, plus elementwise
work on the n~ x n~ matrices. Both are cut here:

* the Gram matrices of a batch come from one stacked ``np.matmul(Xs, Xs^T)``,
  which numpy computes with BLAS ``syrk`` (one triangle) per subset;
* both distance matrices are symmetric with a zero diagonal, so only their
  strict upper triangles are formed, as packed (B x n~(n~-1)/2) float buffers
  (the Gram's triangle copied run by run through a boolean mask, the terms
  |x_i|^2 spread along row i's run by ``np.repeat``: a copy where it can
  replace a gather), and every elementwise step works in place on them;
* the full-data distances are square-rooted once for all subsets and gathered
  per subset straight into the triangle buffer.

In float64 every entry is computed by the same operations, in the same order,
as the full-matrix code this replaced (``tests/test_ivfs_kernel.py`` keeps
that code as the oracle): the l_inf losses are bit-identical, l1 and l2 differ
only by the order of their sums (one triangle summed and doubled).
``tests/test_ivfs_kernel_bits.py`` holds every loss, l1 and l2 included, bit for
bit to the kernel before the boolean-mask copies. ``benchmarks/ivfs_kernel.py``
measures the kernel against GEMM and syrk.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..graph import pairwise_sq_dists

LOSSES = ("linf", "l1", "l2")
DTYPES = ("float64", "float32")

# elements of a batch's largest buffer when batch_size=None (see default_batch_size)
_BATCH_ELEMENTS = 2**17


def default_batch_size(subset_samples: int, row_width: int) -> int:
    """Subsets per batch so that the largest buffer (B x n~ x max(n~, row width)) stays near 1 MB of float64.

    Measured with ``benchmarks/ivfs_kernel.py`` (batches of 2**15 .. 2**19 elements): larger batches
    fall out of cache and run slower; for n~ >= ~360 a batch is one subset anyway.
    """
    return max(1, _BATCH_ELEMENTS // (subset_samples * max(subset_samples, row_width)))


@lru_cache(maxsize=16)
def _triangle(m: int):
    """The strict upper triangle of an m x m matrix, row by row: each row's length and every entry's column."""
    return np.arange(m - 1, -1, -1), np.triu_indices(m, 1)[1]


@lru_cache(maxsize=16)
def _triangle_mask(m: int, batch: int) -> np.ndarray:
    """Boolean mask of the strict upper triangles of ``batch`` stacked m x m matrices, flattened.

    Numpy copies a 1-d array's masked entries run by run (each row's triangle part is one
    run), faster than a gather by a flat index array.
    """
    return np.tile(np.triu(np.ones((m, m), dtype=bool), 1).ravel(), batch)


def _pair_sums(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> np.ndarray:
    """a_i + b_j for every pair i < j of each row of a and b (B x m), in triangle order, into ``out`` (B x T).

    a_i is row i's value repeated along its run (``np.repeat``, a copy), b_j one gather.
    """
    lengths, ju = _triangle(a.shape[1])
    np.take(b, ju, axis=1, out=out)
    return np.add(np.repeat(a, lengths, axis=1), out, out=out)


def _triangle_dists(Xs: np.ndarray, gram: np.ndarray, sums: np.ndarray) -> np.ndarray:
    """Euclidean distances of each of B point sets (B x m x p), strict upper triangle, as a new B x T array.

    Entry (i, j) is sqrt(max((|x_i|^2 + |x_j|^2) - 2 x_i'x_j, 0)), the Gram (into ``gram``, B x m x m)
    from one stacked matmul (numpy's syrk path for a matrix times its own transpose); ``sums`` is
    B x T work space. The clip at 0 writes only the (rare) negative entries.
    """
    B, m, _ = Xs.shape
    G = np.matmul(Xs, Xs.transpose(0, 2, 1), out=gram).reshape(B, m * m)
    out = G.reshape(-1)[_triangle_mask(m, B)].reshape(B, -1)
    out *= 2.0
    sq = G[:, :: m + 1]
    np.subtract(_pair_sums(sq, sq, sums), out, out=out)
    np.copyto(out, 0.0, where=out < 0.0)
    return np.sqrt(out, out=out)


def _normalise(D: np.ndarray) -> np.ndarray:
    """Divide each row (one subset's distances) by its largest entry, in place; an all-zero row stays 0."""
    top = D.max(axis=1, keepdims=True)
    top[top == 0] = 1.0
    return np.divide(D, top, out=D)


def _reduce(diff: np.ndarray, loss: str) -> np.ndarray:
    """The loss of each row of D - D_F (strict upper triangles) over all n~ x n~ entries: the
    diagonal is 0 and the lower triangle mirrors the upper, so l1 and the squared l2 are doubled."""
    if loss == "l2":
        return np.sqrt(2.0 * np.einsum("bt,bt->b", diff, diff, dtype=np.float64))
    np.abs(diff, out=diff)
    if loss == "linf":
        return diff.max(axis=1).astype(np.float64)
    return 2.0 * diff.sum(axis=1, dtype=np.float64)


def _dtype_name(dtype) -> str:
    """"float64" or "float32" for any spelling numpy accepts; ValueError otherwise."""
    try:
        name = np.dtype(dtype).name
    except TypeError:
        name = None
    if name not in DTYPES:
        raise ValueError(f"dtype must be one of {DTYPES}, got {dtype!r}.")
    return name


def full_distances(X: np.ndarray, dtype="float64") -> np.ndarray:
    """The n x n Euclidean distances of the rows of X (exact zeros between duplicates), flattened, in ``dtype``."""
    return np.sqrt(pairwise_sq_dists(X)).astype(dtype, copy=False).ravel()


def subset_losses(
    X, samples, features, loss="linf", batch_size=None, precompute=None, dtype="float64", full=None
) -> np.ndarray:
    """||D - D_F|| of every subset (one float64 per row of ``samples``/``features``).

    D: distances of the subset's samples on all features; D_F: on its features
    only; both divided by their own maximum. The full-data distances are
    computed once and gathered when that is cheaper than recomputing them per
    subset (n^2 <= k n~^2; ``precompute`` forces either way); ``full`` may pass
    them, as ``full_distances(X, dtype)`` returns them, to share them between
    calls. ``dtype`` "float32" runs the products and distances in single
    precision (about twice the speed; the losses change in their 7th digit).
    """
    if loss not in LOSSES:
        raise ValueError(f"unknown loss {loss!r}; use one of {LOSSES}.")
    dtype = _dtype_name(dtype)
    X = np.ascontiguousarray(X, dtype=np.float64)
    n, d = X.shape
    k, m = samples.shape
    p = features.shape[1]
    if full is not None:
        precompute = True
    elif precompute is None:
        precompute = n * n <= k * m * m
    if batch_size is None:
        batch_size = default_batch_size(m, p if precompute else d)
    if precompute and full is None:  # square-rooted once; gathered per subset by flat index
        full = full_distances(X, dtype)
    X_flat = X.astype(dtype, copy=False).ravel()
    X_rows = X_flat.reshape(n, d)
    # work space reused by every batch: fresh arrays of these sizes cost page faults at each allocation
    T = m * (m - 1) // 2
    F_buf, sums = np.empty((2, batch_size, T), dtype=dtype)
    pairs = np.empty((batch_size, T), dtype=np.intp)
    gram = np.empty((batch_size, m, m), dtype=dtype)
    index = np.empty((batch_size, m, p), dtype=np.intp)
    block = np.empty((batch_size, m, p), dtype=dtype)
    out = np.empty(k)
    for start in range(0, k, batch_size):
        rows = samples[start : start + batch_size]
        cols = features[start : start + batch_size]
        B = rows.shape[0]
        G, work = gram[:B], sums[:B]
        if precompute:  # each pair's flat index rows_i * n + rows_j
            F = np.take(full, _pair_sums(rows * n, rows, pairs[:B]), out=F_buf[:B])
        else:
            F = _triangle_dists(X_rows[rows], G, work)
        np.add((rows * d)[:, :, None], cols[:, None, :], out=index[:B])
        S = _triangle_dists(np.take(X_flat, index[:B], out=block[:B]), G, work)
        np.subtract(_normalise(F), _normalise(S), out=F)
        out[start : start + B] = _reduce(F, loss)
    return out
