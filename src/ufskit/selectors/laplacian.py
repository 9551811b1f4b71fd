"""Laplacian Score (He, Cai & Niyogi, NIPS 2005): keep the features smoothest on a kNN graph."""

from __future__ import annotations

import numpy as np

from ..graph import knn_graph, pairwise_sq_dists
from ..sparse_input import is_sparse, per_column
from ..spectral import rayleigh_quotients
from ..validation import centred, resolve_n_neighbors
from .base import ScoreSelector
from .constraints import AUTO, POSITIVE, POSITIVE_INT, WEIGHTS


def laplacian_score(X: np.ndarray, W) -> np.ndarray:
    """He et al.'s L_r = f~'L f~ / f~'D f~ of every column of X on the graph W (smaller is better).

    f~ is the feature minus its D-weighted mean, so L_r is invariant to shifting
    a feature and to scaling it by any c != 0 (for a fixed W).
    """
    return rayleigh_quotients(W, X, centred=True)


class LaplacianScore(ScoreSelector):
    """Laplacian Score on the symmetric kNN graph of ``ufskit.graph.knn_graph``.

    Parameters: ``n_neighbors`` (k of the kNN graph; "auto" = min(5, n - 1):
    5 as in the paper and Cai's code, fewer when fewer samples allow it),
    ``weight`` ("heat", "binary" or "cosine") and ``sigma`` (heat-kernel
    width; None = mean pairwise distance, Cai's default).

    Attributes: ``n_neighbors_`` is the k used; ``laplacian_scores_`` holds the native L_r (smaller = better);
    ``scores_ = -laplacian_scores_``. Constant features have no L_r (0/0):
    ``fit`` leaves them unscored and ranks them last (NaN in ``laplacian_scores_``).
    Sparse X: the graph from the sparse product X X', the scores by blocks of columns.
    """

    accepts_sparse = True

    _parameter_constraints: dict = {
        **ScoreSelector._parameter_constraints, "n_neighbors": [AUTO, POSITIVE_INT], "weight": [WEIGHTS],
        "sigma": [None, POSITIVE],
    }

    def __init__(self, n_features_to_select=None, n_neighbors="auto", weight="heat", sigma=None):
        self.n_features_to_select = n_features_to_select
        self.n_neighbors = n_neighbors
        self.weight = weight
        self.sigma = sigma

    def _score(self, X):
        self.n_neighbors_ = resolve_n_neighbors(self.n_neighbors, X.shape[0])
        # neighbours and heat weights from the centred X's distances, cosine weights from the samples as
        # given (a document's own cosine); the score is shift-invariant, and centring each block keeps it
        # exact under large offsets
        D2 = None if is_sparse(X) else pairwise_sq_dists(centred(X))
        W = knn_graph(X, n_neighbors=self.n_neighbors_, weight=self.weight, sigma=self.sigma, D2=D2)
        native = per_column(X, lambda block: laplacian_score(centred(block), W))
        self.laplacian_scores_ = self._to_full(native, np.nan)
        return -native
