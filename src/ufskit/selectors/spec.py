"""SPEC, spectral feature selection (Zhao & Liu, ICML 2007), unsupervised form."""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.utils._param_validation import Options

from ..graph import knn_graph, mean_distance, pairwise_sq_dists
from ..sparse_input import is_sparse, per_column
from ..spectral import (
    degrees,
    rayleigh_quotients,
    rbf_affinity,
    smallest_nontrivial_eigenpairs,
)
from ..validation import centred, check_int
from .base import ScoreSelector
from .constraints import POSITIVE, POSITIVE_INT

STYLES = (1, 2, 3)


def _check_style(style) -> None:
    if isinstance(style, bool) or style not in STYLES:
        raise ValueError(f"unknown SPEC style {style!r}; use one of {STYLES}.")


def spec_score(X: np.ndarray, W, style: int = 2, n_clusters: int | None = None, eigenpairs=None) -> np.ndarray:
    """Zhao & Liu's native scores of every column of X on the affinity W.

    With f^ = D^1/2 f / ||D^1/2 f|| and (lambda_j, xi_j) the eigenpairs of the
    normalised Laplacian L^ in ascending order (xi_1 trivial, lambda_1 = 0):

    * style 1: phi1 = f^' L^ f^ (smaller is better), computed as f'Lf / f'Df,
      no eigendecomposition;
    * style 2: phi2 = phi1 / (1 - (f^' xi_1)^2) (smaller is better). Since
      L 1 = 0, this equals f~'Lf~ / f~'Df~ with f~ the D-centred feature, i.e.
      exactly the Laplacian score on W; computed in that cancellation-free form;
    * style 3: phi3 = sum_{j=2..k} (2 - lambda_j) (f^' xi_j)^2 with
      k = ``n_clusters`` (larger is better); needs only the k - 1 smallest
      non-trivial eigenpairs (``eigenpairs``, if already computed by ``phi3_eigenpairs``).
    """
    _check_style(style)
    if style != 3:
        return rayleigh_quotients(W, X, centred=style == 2)
    lam, xi = phi3_eigenpairs(W, n_clusters) if eigenpairs is None else eigenpairs
    Fh = np.sqrt(degrees(W))[:, None] * X
    norms = np.linalg.norm(Fh, axis=0)
    if not np.all(norms > 0):
        raise ValueError("SPEC phi3 is undefined for all-zero features; remove them first.")
    alpha2 = (xi.T @ Fh / norms) ** 2
    return (2.0 - lam) @ alpha2


def phi3_eigenpairs(W, n_clusters) -> tuple[np.ndarray, np.ndarray]:
    """The k - 1 smallest non-trivial eigenpairs of L^ that phi3 sums over (k = ``n_clusters`` >= 2)."""
    if n_clusters is None:
        raise ValueError("SPEC style=3 needs n_clusters (the k of phi3, usually the number of classes).")
    k = check_int(n_clusters, "n_clusters (the k of phi3, at most n_samples)", low=2, high=W.shape[0])
    return smallest_nontrivial_eigenpairs(W, k - 1)


class SPEC(ScoreSelector):
    """SPEC feature ranking with Zhao & Liu's three scores.

    Parameters:

    * ``style``: 1, 2 or 3 for phi1, phi2, phi3 (see ``spec_score``). The
      default 2 is the IVFS paper's "second type" (scikit-feature's style 0);
    * ``n_neighbors``: None (default) = the paper's full RBF similarity matrix
      over all pairs, diagonal included; an int k = the symmetric kNN
      heat-kernel graph of ``ufskit.graph.knn_graph`` instead;
    * ``sigma``: RBF / heat-kernel width; None = mean pairwise distance;
    * ``n_clusters``: the k of phi3 (required by style 3, unused otherwise).

    Ranking directions are the original ones: phi1 and phi2 smaller = better
    (``scores_ = -spec_scores_``), phi3 larger = better
    (``scores_ = spec_scores_``); ``spec_scores_`` keeps the native values.
    Constant features (phi2 is 0/0 on them) are left unscored by ``fit`` and
    ranked last (NaN in ``spec_scores_``). Every score depends
    on a feature only through f^, so it is invariant to scaling that feature by
    c != 0 for a fixed graph; phi2 is also shift-invariant, phi1 and phi3 are not.
    Sparse X: the graph from the sparse product X X', the scores by blocks of columns.
    """

    accepts_sparse = True

    _parameter_constraints: dict = {
        **ScoreSelector._parameter_constraints, "style": [Options(Integral, set(STYLES))],
        "n_neighbors": [None, POSITIVE_INT], "sigma": [None, POSITIVE],
        "n_clusters": [None, POSITIVE_INT],  # >= 2 for style 3, checked by fit
    }

    def __init__(self, n_features_to_select=None, style=2, n_neighbors=None, sigma=None, n_clusters=None):
        self.n_features_to_select = n_features_to_select
        self.style = style
        self.n_neighbors = n_neighbors
        self.sigma = sigma
        self.n_clusters = n_clusters

    def _score(self, X):
        _check_style(self.style)
        if self.n_clusters is not None and self.n_clusters > X.shape[0]:  # also when unused: a config error
            raise ValueError(f"n_clusters={self.n_clusters} must be at most n_samples = {X.shape[0]}: phi3 uses "
                             "the k - 1 <= n - 1 non-trivial eigenvectors of the graph.")
        # phi2 is shift-invariant: centring keeps it exact under large offsets (sparse X: column by column)
        prepare = centred if self.style == 2 else np.asarray
        graph_X = X if is_sparse(X) else prepare(X)
        D2 = pairwise_sq_dists(graph_X)
        if self.n_neighbors is None:
            sigma = mean_distance(D2) if self.sigma is None else self.sigma
            if sigma == 0:
                raise ValueError("all samples of X coincide: the RBF width (mean pairwise distance) is 0.")
            W = rbf_affinity(D2, sigma)
        else:
            k = check_int(self.n_neighbors, "n_neighbors")
            W = knn_graph(graph_X, n_neighbors=k, weight="heat", sigma=self.sigma, D2=D2)
        eigenpairs = phi3_eigenpairs(W, self.n_clusters) if self.style == 3 else None
        native = per_column(X, lambda block: spec_score(prepare(block), W, self.style, self.n_clusters, eigenpairs))
        self.spec_scores_ = self._to_full(native, np.nan)
        return native if self.style == 3 else -native
