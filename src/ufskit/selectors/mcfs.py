"""MCFS, multi-cluster feature selection (Cai, Zhang & He, KDD 2010)."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ..graph import knn_graph
from ..lasso_path import lasso_lars_at_cardinalities, use_gram
from ..spectral import degrees, smallest_nontrivial_eigenpairs
from ..validation import check_int, resolve_count
from .base import ScoreSelector


def spectral_embedding(W, n_clusters: int) -> np.ndarray:
    """The K = ``n_clusters`` smallest non-trivial solutions of L y = lambda D y (n x K, y'Dy = 1).

    Obtained as y = D^-1/2 xi from the normalised Laplacian's eigenvectors xi,
    which is how Cai's ``Eigenmap`` computes them.
    """
    _, xi = smallest_nontrivial_eigenpairs(W, n_clusters)
    return xi / np.sqrt(degrees(W))[:, None]


def mcfs_coefficients(X: np.ndarray, W, n_clusters: int, cardinalities) -> np.ndarray:
    """Sparse regression coefficients of the K eigenvectors of the embedding at each cardinality.

    Returns an array of shape (len(cardinalities), d, K): for every cardinality,
    one column per eigenvector, all from one LARS-lasso path per eigenvector. No
    intercept, as in the paper's min ||y_k - X a_k||^2 and Cai's code; for
    column-centred X (e.g. z-scored) an intercept would change nothing since
    X'(y - mean(y)) = X'y. The K regressions share X'X when it pays for itself
    (``use_gram``: a path takes about min(max cardinality, n) steps).
    """
    n, d = X.shape
    Y = spectral_embedding(W, n_clusters)
    Gram = X.T @ X if use_gram(n, d, n_steps=n_clusters * min(max(cardinalities), n)) else None
    paths = [lasso_lars_at_cardinalities(X, y, cardinalities, Gram) for y in Y.T]  # each d x len
    return np.stack(paths, axis=-1).transpose(1, 0, 2)


class MCFS(ScoreSelector):
    """Multi-Cluster Feature Selection: score_j = max_k |a_kj| over K sparse spectral regressions.

    Parameters: ``n_clusters`` (K eigenvectors, 5 by default as in Cai's code;
    the IVFS paper uses {5, 10, 20, 30}), ``n_neighbors``/``weight``/``sigma``
    (the kNN graph of ``ufskit.graph.knn_graph``, Cai's defaults), and
    ``max_nonzero``: the LARS cardinality per eigenvector. None = the number of
    features to select (``n_features_to_select`` resolved against d, half of d
    when that is None too), which is the paper's rule; the path cannot exceed
    about n non-zeros, so on d >> n data this is NRFS's min{M, n}. A list of
    cardinalities applies the paper's rule at several sizes from one path per
    eigenvector: ``subsets(counts)`` then selects c features with cardinality c
    for every c in the list, and ``scores_``/``coef_`` are those of the largest.

    The selection depends on the number selected (subsets are not nested).
    Features whose coefficient is zero in every regression score 0 and are
    ranked after all non-zero ones, ties by feature index. Attributes: ``coef_``
    (d x K), ``max_nonzero_`` (the cardinality of ``coef_``), ``coef_by_cardinality_``
    ({cardinality: d x K}). Scaling all features by c > 0 leaves the ranking
    unchanged and divides the scores by c; scaling one feature is not neutral
    (the L1 penalty is not scale-free).
    """

    def __init__(
        self, n_features_to_select=None, n_clusters=5, n_neighbors=5, weight="heat", sigma=None, max_nonzero=None
    ):
        self.n_features_to_select = n_features_to_select
        self.n_clusters = n_clusters
        self.n_neighbors = n_neighbors
        self.weight = weight
        self.sigma = sigma
        self.max_nonzero = max_nonzero

    def _cardinalities(self, d: int) -> list[int]:
        if self.max_nonzero is None:
            return [self._n_selected(d)]
        values = self.max_nonzero if isinstance(self.max_nonzero, (list, tuple)) else [self.max_nonzero]
        if not values:
            raise ValueError("max_nonzero: an empty list of cardinalities.")
        return sorted({resolve_count(v, d, name="max_nonzero") for v in values})

    def _score(self, X):
        n_clusters = check_int(self.n_clusters, "n_clusters")
        n_neighbors = check_int(self.n_neighbors, "n_neighbors")
        cardinalities = self._cardinalities(X.shape[1])
        W = knn_graph(X, n_neighbors=n_neighbors, weight=self.weight, sigma=self.sigma)
        coefs = mcfs_coefficients(X, W, n_clusters, cardinalities)
        self.coef_by_cardinality_ = dict(zip(cardinalities, coefs, strict=True))
        self.max_nonzero_ = cardinalities[-1]
        self.coef_ = coefs[-1]
        return np.abs(self.coef_).max(axis=1)

    def subsets(self, counts) -> dict[int, np.ndarray]:
        """The c best features for each count c, each from the fit with cardinality c when one was made
        (``max_nonzero`` listing c), else the top of the one ranking."""
        check_is_fitted(self, "coef_")
        d = self.coef_.shape[0]
        out = {}
        for value in [counts] if isinstance(counts, numbers.Number) else counts:
            c = resolve_count(value, d, name="count")
            coef = self.coef_by_cardinality_.get(c, self.coef_)
            out[c] = np.argsort(-np.abs(coef).max(axis=1), kind="stable")[:c]
        return out
