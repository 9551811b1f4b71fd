"""MCFS, multi-cluster feature selection (Cai, Zhang & He, KDD 2010)."""

from __future__ import annotations

import numpy as np

from ..graph import knn_graph
from ..lasso_path import lasso_lars_at_cardinality, use_gram
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


def mcfs_coefficients(X: np.ndarray, W, n_clusters: int, max_nonzero: int) -> np.ndarray:
    """The d x K matrix of sparse regression coefficients, one column per eigenvector of the embedding.

    No intercept, as in the paper's min ||y_k - X a_k||^2 and Cai's code; for
    column-centred X (e.g. z-scored) an intercept would change nothing since
    X'(y - mean(y)) = X'y. The K regressions share X'X when it pays for itself
    (``use_gram``: a path takes about min(max_nonzero, n) steps).
    """
    n, d = X.shape
    Y = spectral_embedding(W, n_clusters)
    Gram = X.T @ X if use_gram(n, d, n_steps=n_clusters * min(max_nonzero, n)) else None
    return np.column_stack([lasso_lars_at_cardinality(X, y, max_nonzero, Gram) for y in Y.T])


class MCFS(ScoreSelector):
    """Multi-Cluster Feature Selection: score_j = max_k |a_kj| over K sparse spectral regressions.

    Parameters: ``n_clusters`` (K eigenvectors, 5 by default as in Cai's code;
    the IVFS paper uses {5, 10, 20, 30}), ``n_neighbors``/``weight``/``sigma``
    (the kNN graph of ``ufskit.graph.knn_graph``, Cai's defaults), and
    ``max_nonzero``: the LARS cardinality per eigenvector. None = the number of
    features to select (``n_features_to_select`` resolved against d, half of d
    when that is None too), which is the paper's rule; the path cannot exceed
    about n non-zeros, so on d >> n data this is NRFS's min{M, n}.

    The selection depends on the number selected (subsets are not nested): the
    ranking is that of the configured ``max_nonzero``. Features whose
    coefficient is zero in every regression score 0 and are ranked after all
    non-zero ones, ties by feature index. Attributes: ``coef_`` (d x K),
    ``max_nonzero_`` (the cardinality used). Scaling all features by c > 0
    leaves the ranking unchanged and divides the scores by c; scaling one
    feature is not neutral (the L1 penalty is not scale-free).
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

    def _resolve_max_nonzero(self, d: int) -> int:
        if self.max_nonzero is not None:
            return resolve_count(self.max_nonzero, d, name="max_nonzero")
        return self._n_selected(d)

    def _score(self, X):
        n_clusters = check_int(self.n_clusters, "n_clusters")
        n_neighbors = check_int(self.n_neighbors, "n_neighbors")
        self.max_nonzero_ = self._resolve_max_nonzero(X.shape[1])
        W = knn_graph(X, n_neighbors=n_neighbors, weight=self.weight, sigma=self.sigma)
        self.coef_ = mcfs_coefficients(X, W, n_clusters, self.max_nonzero_)
        return np.abs(self.coef_).max(axis=1)
