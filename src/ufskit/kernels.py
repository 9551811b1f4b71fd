"""Kernels, kernel-space distances and the distance ratio used by the kernel-UDFS paper.

* ``rbf_kernel``: exp(-||x - y||^2 / (2 sigma^2)). The kernel-UDFS paper prints
  exp(-||x - y||^2 / (2 sigma)) with sigma = const * D (D the largest pairwise
  distance); that denominator has units of a distance, not of a squared one,
  so it is read as 2 sigma^2 (``rbf_width`` gives sigma = const * D).
* ``kernel_sq_dists``: d(i, j) = K_ii + K_jj - 2 K_ij, the squared distance
  between phi(x_i) and phi(x_j) (the paper's Sec. 3.1).
* ``distance_ratio``: mean within-class distance / mean between-class distance
  (a reconstruction of Cao et al. 2007; smaller = easier to separate).
"""

from __future__ import annotations

import numpy as np

from .graph import pairwise_sq_dists
from .spectral import rbf_affinity
from .validation import check_data, check_positive


def rbf_kernel(X: np.ndarray, Y: np.ndarray | None = None, *, sigma: float) -> np.ndarray:
    """Gaussian Gram matrix exp(-||x_i - y_j||^2 / (2 sigma^2)) between the rows of X and Y."""
    return rbf_affinity(pairwise_sq_dists(X, Y), check_positive(sigma, "sigma"))


def max_distance(X: np.ndarray) -> float:
    """Largest Euclidean distance between two rows of X (the paper's D)."""
    return float(np.sqrt(pairwise_sq_dists(X).max()))


def rbf_width(X: np.ndarray, const: float) -> float:
    """sigma = const * (largest pairwise distance), the kernel-UDFS paper's Sec. 4.2 choice."""
    const = check_positive(const, "kernel_const")
    D = max_distance(X)
    if D == 0:
        raise ValueError("all samples coincide: the RBF width const * max distance is 0.")
    return const * D


def kernel_sq_dists(K: np.ndarray) -> np.ndarray:
    """Squared feature-space distances K_ii + K_jj - 2 K_ij of a Gram matrix (clipped at 0, zero diagonal)."""
    K = np.asarray(K, dtype=np.float64)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"a Gram matrix must be square, got shape {K.shape}.")
    g = np.diag(K)
    D2 = g[:, None] + g[None, :] - 2.0 * K
    np.maximum(D2, 0.0, out=D2)
    np.fill_diagonal(D2, 0.0)
    return D2


def distance_ratio(Z, y, *, kind: str = "features") -> float:
    """Mean within-class distance divided by mean between-class distance (lower = better separated).

    ``kind="features"``: Z is an n x m feature matrix (e.g. the first m kernel
    features of the paper's Fig. 1, i.e. columns of K) and distances are
    Euclidean between its rows. ``kind="kernel"``: Z is an n x n Gram matrix
    and distances are the kernel distances sqrt(K_ii + K_jj - 2 K_ij).
    Means are over distinct pairs (i != j); plain, not squared, distances.
    """
    Z = check_data(Z, name="Z")
    y = np.asarray(y)
    if y.shape != (Z.shape[0],):
        raise ValueError(f"y must have one label per row of Z ({Z.shape[0]}), got shape {y.shape}.")
    if kind == "features":
        D2 = pairwise_sq_dists(Z)
    elif kind == "kernel":
        D2 = kernel_sq_dists(Z)
    else:
        raise ValueError(f"unknown kind {kind!r}; use 'features' or 'kernel'.")
    same = y[:, None] == y[None, :]
    np.fill_diagonal(same, False)
    between = y[:, None] != y[None, :]
    if not same.any() or not between.any():
        raise ValueError("the distance ratio needs at least two classes and a class with two members.")
    D = np.sqrt(D2)
    within_mean, between_mean = D[same].mean(), D[between].mean()
    if between_mean == 0:
        raise ValueError("all between-class distances are 0: the distance ratio is undefined.")
    return float(within_mean / between_mean)
