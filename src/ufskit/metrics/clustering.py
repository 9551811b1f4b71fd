"""Clustering quality of a feature subset: K-means, then ACC (Hungarian matching) and NMI.

* ACC (kernel UDFS and Iterative LS papers): the fraction of samples whose
  cluster is mapped to their class by the best one-to-one map between
  clusters and classes (Kuhn-Munkres). With more clusters than classes the
  extra clusters map to no class, so their samples count as errors.
* NMI = I(T; P) / norm(H(T), H(P)). The normalisation differs between the
  papers' references: the NRFS paper cites Strehl & Ghosh (2002), who define
  it with sqrt(H(T) H(P)) (the default, ``average_method="sqrt"``); the
  Iterative LS paper cites Xu, Liu & Gong (2003), who divide by
  max(H(T), H(P)) (``average_method="max"``).
* K-means is scikit-learn's Lloyd K-means (k-means++ seeding by default;
  ``init="random"`` draws the starting centres uniformly among the samples, the
  kernel-UDFS paper's "random initializations"); of ``n_init`` starts the one
  with the lowest within-cluster sum of squares (WCSS) is kept.
  Data with at most ``SPARSE_DENSITY`` non-zeros (the tf-idf text sets) are
  clustered as CSR: the same algorithm and seeds, 4-17x faster on the NRFS
  text sets, and 3x more with the k-means++ distances of all starts taken
  from one Gram matrix (``_sparse_kmeans``, the same labels;
  ``benchmarks/kmeans_sparse.py``). Dense data with more features
  than samples (the microarrays) are clustered in an orthonormal basis of
  their rows' span (n columns instead of d): every distance, and so every
  K-means step, is the same up to rounding (``benchmarks/kmeans_eval.py``).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment
from sklearn.cluster import KMeans
from sklearn.metrics import normalized_mutual_info_score
from sklearn.metrics.cluster import contingency_matrix

from ..validation import check_data, check_int
from ._common import as_sklearn_seed, check_labels, check_reference_labels, spawn_seeds
from ._sparse_kmeans import sparse_kmeans_labels

# K-means switches to CSR at or below this fraction of non-zero entries: scikit-learn's sparse Lloyd
# iterations measured 3x faster at 10 % density and 1.3x at 30 % (800 x 1800, 4 clusters)
SPARSE_DENSITY = 0.2

# up to this many samples (a 128 MiB Gram matrix) K-means on CSR seeds from one Gram matrix (sparse_kmeans_labels)
GRAM_SAMPLES = 4096

_NMI_AVERAGES = {"sqrt": "geometric", "geometric": "geometric", "arithmetic": "arithmetic", "max": "max", "min": "min"}


def _check_pair(y_true, y_pred) -> tuple[np.ndarray, np.ndarray]:
    y_true = check_reference_labels(y_true, name="y_true")
    y_pred = check_labels(y_pred, name="y_pred", n_samples=y_true.size)
    return y_true, y_pred


def _nmi_method(average_method: str) -> str:
    """scikit-learn's name of an NMI normalisation, or a ValueError naming the valid ones."""
    try:
        return _NMI_AVERAGES[average_method]
    except (KeyError, TypeError):
        raise ValueError(f"unknown average_method {average_method!r}; use one of {sorted(_NMI_AVERAGES)}.") from None


def clustering_accuracy(y_true, y_pred) -> float:
    """Fraction of samples correctly labelled under the best one-to-one cluster-to-class map."""
    y_true, y_pred = _check_pair(y_true, y_pred)
    C = contingency_matrix(y_true, y_pred)
    rows, cols = linear_sum_assignment(C, maximize=True)
    return float(C[rows, cols].sum() / y_true.size)


def nmi(y_true, y_pred, *, average_method: str = "sqrt") -> float:
    """Normalised mutual information; ``average_method`` in sqrt (= geometric), arithmetic, max, min.

    Natural logarithms; a ``y_true`` of a single class is refused (any
    partition would score 1 or 0 against it); a single-cluster ``y_pred``
    scores 0 (scikit-learn's convention).
    """
    method = _nmi_method(average_method)
    y_true, y_pred = _check_pair(y_true, y_pred)
    return float(normalized_mutual_info_score(y_true, y_pred, average_method=method))


def _kmeans_input(X: np.ndarray):
    """(matrix K-means runs on, its tolerance factor): X as CSR when mostly zero; with d > n, X's
    rows in an orthonormal basis of their span, X Q = R' from X' = Q R (n x n).

    Q's columns span the rows, so X Q keeps every pairwise distance and the total variance
    (in exact arithmetic; here up to rounding, ~1e-15 relative): k-means++ draws the same
    seeds and Lloyd makes the same moves at d/n times less work per distance. scikit-learn's
    stopping tolerance is ``tol`` times the mean per-column variance, so the factor n/d
    (applied to ``tol``) keeps it the same absolute value.
    """
    n, d = X.shape
    if np.count_nonzero(X) <= SPARSE_DENSITY * X.size:
        return sp.csr_matrix(X), 1.0
    if d <= n:
        return X, 1.0
    R = np.linalg.qr(X.T, mode="r")
    return np.ascontiguousarray(R.T), n / d


KMEANS_INITS = ("k-means++", "random")  # scikit-learn's seeding of each start


def check_init(init) -> str:
    """``init`` must be one of ``KMEANS_INITS``."""
    if init not in KMEANS_INITS:
        raise ValueError(f"init must be one of {KMEANS_INITS}, got {init!r}.")
    return init


def _kmeans(X, n_clusters: int, tol_factor: float, n_init: int, max_iter: int, random_state,
            init: str = "k-means++") -> np.ndarray:
    """scikit-learn's KMeans (default tol 1e-4, scaled by ``tol_factor``) on a prepared matrix; k-means++ on CSR with at
    most ``GRAM_SAMPLES`` rows takes its labels from ``sparse_kmeans_labels``, the same computation with the seeding's
    distances from one Gram matrix (3x faster on the NRFS text sets, ``benchmarks/kmeans_sparse.py``)."""
    if init == "k-means++" and sp.issparse(X) and X.shape[0] <= GRAM_SAMPLES:
        return sparse_kmeans_labels(X, n_clusters, n_init=n_init, max_iter=max_iter, tol=1e-4 * tol_factor,
                                    random_state=as_sklearn_seed(random_state))
    km = KMeans(n_clusters=n_clusters, init=init, n_init=n_init, max_iter=max_iter, tol=1e-4 * tol_factor,
                random_state=as_sklearn_seed(random_state))
    return km.fit_predict(X)


def kmeans_labels(X, n_clusters: int, *, n_init: int = 10, max_iter: int = 300, random_state) -> np.ndarray:
    """Cluster labels of the lowest-WCSS run among ``n_init`` K-means starts."""
    X = check_data(X)
    n_clusters = check_int(n_clusters, name="n_clusters", high=X.shape[0])
    Xk, tol_factor = _kmeans_input(X)
    return _kmeans(Xk, n_clusters, tol_factor, n_init, max_iter, random_state)


def kmeans_scores(
    X,
    y,
    n_clusters: int,
    *,
    n_runs: int = 10,
    n_init: int = 10,
    max_iter: int = 300,
    nmi_average: str = "sqrt",
    init: str = "k-means++",
    random_state,
) -> dict:
    """Mean and (population) standard deviation of ACC and NMI over ``n_runs`` K-means runs.

    Each run is ``kmeans_labels`` with its own seed derived from
    ``random_state``; ``init`` seeds each start ("k-means++" or "random").
    Returns ``{acc_mean, acc_std, nmi_mean, nmi_std}``.
    """
    X = check_data(X)
    y = check_reference_labels(y, n_samples=X.shape[0])
    n_runs = check_int(n_runs, name="n_runs")
    _nmi_method(nmi_average)
    check_init(init)
    n_clusters = check_int(n_clusters, name="n_clusters", high=X.shape[0])
    Xk, tol_factor = _kmeans_input(X)  # once for all runs
    acc, nm = [], []
    for seed in spawn_seeds(random_state, n_runs):
        labels = _kmeans(Xk, n_clusters, tol_factor, n_init, max_iter, seed, init)
        acc.append(clustering_accuracy(y, labels))
        nm.append(nmi(y, labels, average_method=nmi_average))
    return {
        "acc_mean": float(np.mean(acc)),
        "acc_std": float(np.std(acc)),
        "nmi_mean": float(np.mean(nm)),
        "nmi_std": float(np.std(nm)),
    }
