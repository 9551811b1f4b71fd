"""Kernel k-means (Dhillon, Guan & Kulis, KDD 2004), the kernel-UDFS paper's "Kernel Kmeans" baseline.

Minimises sum_c sum_{i in c} ||phi(x_i) - m_c||^2 using only the Gram matrix:

    ||phi_i - m_c||^2 = K_ii - (2/|c|) sum_{j in c} K_ij + (1/|c|^2) sum_{j,l in c} K_jl,

so one assignment step is one product K @ Z (Z the n x c one-hot label matrix).
Each restart is seeded by k-means++ in feature space, runs Lloyd steps until no
label changes (or ``max_iter``), and the restart with the lowest objective is kept.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .kernels import rbf_kernel
from .validation import check_int


def _one_hot(labels: np.ndarray, n_clusters: int) -> np.ndarray:
    Z = np.zeros((labels.size, n_clusters))
    Z[np.arange(labels.size), labels] = 1.0
    return Z


def _cluster_terms(K: np.ndarray, labels: np.ndarray, n_clusters: int):
    """(K Z, cluster sizes, sum_{j,l in c} K_jl) for the current labels: the only O(n^2 c) work."""
    Z = _one_hot(labels, n_clusters)
    KZ = K @ Z
    return KZ, Z.sum(axis=0), np.einsum("ic,ic->c", Z, KZ)


def _centre_sq_dists(KZ, sizes, within, diag=None) -> np.ndarray:
    """Squared distances of each row to each cluster mean (K_ii omitted when ``diag`` is None)."""
    safe = np.maximum(sizes, 1.0)
    D = within / safe**2 - 2.0 * KZ / safe
    D[:, sizes == 0] = np.inf
    return D if diag is None else D + diag[:, None]


def _objective(K: np.ndarray, labels: np.ndarray, n_clusters: int) -> float:
    """sum_c sum_{i in c} ||phi_i - m_c||^2 = trace(K) - sum_c (sum_{j,l in c} K_jl) / |c|."""
    _, sizes, within = _cluster_terms(K, labels, n_clusters)
    nonempty = sizes > 0
    return float(np.trace(K) - np.sum(within[nonempty] / sizes[nonempty]))


def _kmeanspp_labels(K: np.ndarray, n_clusters: int, rng: np.random.Generator) -> np.ndarray:
    """k-means++ seeding in feature space; every point goes to its nearest seed."""
    n = K.shape[0]
    diag = np.diag(K)
    seeds = [int(rng.integers(n))]
    closest = np.maximum(diag + diag[seeds[0]] - 2.0 * K[:, seeds[0]], 0.0)
    for _ in range(1, n_clusters):
        total = closest.sum()
        # fewer distinct points than clusters: pick uniformly among the unused ones
        p = closest / total if total > 0 else np.isin(np.arange(n), seeds, invert=True) / (n - len(seeds))
        s = int(rng.choice(n, p=p))
        seeds.append(s)
        np.minimum(closest, np.maximum(diag + diag[s] - 2.0 * K[:, s], 0.0), out=closest)
    S = np.asarray(seeds)
    D = diag[S][None, :] - 2.0 * K[:, S]
    D[S, np.arange(n_clusters)] = -np.inf  # a seed belongs to its own cluster even if duplicated
    return np.argmin(D, axis=1)


def _reseed_empty(labels: np.ndarray, D: np.ndarray, n_clusters: int) -> np.ndarray:
    """Move the points farthest from their own cluster mean into the empty clusters."""
    labels = labels.copy()
    empty = np.setdiff1d(np.arange(n_clusters), labels)
    if empty.size:
        own = D[np.arange(labels.size), labels]
        sizes = np.bincount(labels, minlength=n_clusters)
        for c in empty:
            movable = np.flatnonzero(sizes[labels] > 1)
            i = movable[np.argmax(own[movable])]
            sizes[labels[i]] -= 1
            sizes[c] += 1
            labels[i] = c
            own[i] = -np.inf
    return labels


def _lloyd(K: np.ndarray, labels: np.ndarray, n_clusters: int, max_iter: int):
    """Alternate assignment and mean update until no label changes; returns (labels, n_iter)."""
    diag = np.diag(K)
    for n_iter in range(1, max_iter + 1):
        D = _centre_sq_dists(*_cluster_terms(K, labels, n_clusters), diag)
        new = _reseed_empty(np.argmin(D, axis=1), D, n_clusters)
        if np.array_equal(new, labels):
            return labels, n_iter
        labels = new
    return labels, max_iter


class KernelKMeans(ClusterMixin, BaseEstimator):
    """Kernel k-means with k-means++ restarts, the lowest-objective restart kept.

    kernel: "rbf" (fit on data X, Gram exp(-||x - y||^2 / (2 sigma^2))) or
    "precomputed" (fit on an n x n Gram matrix; ``predict`` then takes the
    n_new x n_train kernel between new and training points, so
    ``n_features_in_`` is n_train).
    Attributes: ``labels_``, ``inertia_`` (the objective), ``n_iter_`` (of the
    kept restart). Empty clusters are reseeded with the points farthest from
    their own cluster mean, so every cluster keeps at least one point.
    """

    def __init__(self, n_clusters=2, kernel="rbf", sigma=1.0, n_init=10, max_iter=100, random_state=None):
        self.n_clusters = n_clusters
        self.kernel = kernel
        self.sigma = sigma
        self.n_init = n_init
        self.max_iter = max_iter
        self.random_state = random_state

    def _gram(self, X, fitting: bool) -> np.ndarray:
        """The kernel between X and the training points (X itself when precomputed); validates X."""
        X = validate_data(self, X, dtype=np.float64, reset=fitting)
        if self.kernel == "rbf":
            if fitting:
                self.X_fit_ = X
            return rbf_kernel(X, self.X_fit_, sigma=self.sigma)
        if self.kernel == "precomputed":
            if fitting and (X.shape[0] != X.shape[1] or not np.allclose(X, X.T)):
                raise ValueError(f"kernel='precomputed' needs a symmetric n x n Gram matrix, got shape {X.shape}.")
            return X
        raise ValueError(f"unknown kernel {self.kernel!r}; use 'rbf' or 'precomputed'.")

    def _check_params(self, n: int) -> None:
        for name in ("n_clusters", "n_init", "max_iter"):
            check_int(getattr(self, name), name)
        if self.n_clusters > n:
            raise ValueError(f"n_clusters={self.n_clusters} exceeds the number of samples {n}.")

    def fit(self, X, y=None):
        """Cluster X (data, or a Gram matrix when kernel='precomputed'); y is ignored."""
        K = self._gram(X, fitting=True)
        self._check_params(K.shape[0])
        rng = np.random.default_rng(self.random_state)
        best = None
        for _ in range(self.n_init):
            start = _kmeanspp_labels(K, self.n_clusters, rng)
            labels, n_iter = _lloyd(K, start, self.n_clusters, self.max_iter)
            obj = _objective(K, labels, self.n_clusters)
            if best is None or obj < best[0]:
                best = (obj, labels, n_iter)
        self.inertia_, self.labels_, self.n_iter_ = best
        _, self._sizes, self._within = _cluster_terms(K, self.labels_, self.n_clusters)
        return self

    def predict(self, X) -> np.ndarray:
        """Nearest cluster mean in feature space for new points (or rows of a precomputed kernel)."""
        check_is_fitted(self, "labels_")
        Knew = self._gram(X, fitting=False)
        KZ = Knew @ _one_hot(self.labels_, self.n_clusters)
        return np.argmin(_centre_sq_dists(KZ, self._sizes, self._within), axis=1)
