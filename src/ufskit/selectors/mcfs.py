"""MCFS, multi-cluster feature selection (Cai, Zhang & He, KDD 2010)."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ..blas import single_threaded_blas
from ..graph import knn_graph, pairwise_sq_dists
from ..lasso_path import lasso_lars_at_cardinalities, use_gram
from ..sparse_input import CentredSparse, is_sparse
from ..spectral import degrees, smallest_nontrivial_eigenpairs
from ..validation import (
    auto_or_int,
    centred,
    power_of_two,
    resolve_count,
    resolve_n_neighbors,
)
from .base import ScoreSelector
from .constraints import AUTO, FRACTION, POSITIVE, POSITIVE_INT, WEIGHTS
from .ties import order_with_ties, tie_keys
from .variance import column_variances

# K by default: Cai's nUseEigenfunction
DEFAULT_EIGENVECTORS = 5


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
    intercept, as in the paper's min ||y_k - X a_k||^2 and Cai's code: ``MCFS``
    passes column-centred X (z-scored data is centred already), for which an
    intercept would change nothing since X'(y - mean(y)) = X'y. The K
    regressions share X'X when it pays for itself (``use_gram``: a path takes
    about min(max cardinality, n) steps). X may be a ``CentredSparse`` operator (sparse input).
    """
    n, d = X.shape
    Y = spectral_embedding(W, n_clusters)
    if use_gram(n, d, n_steps=n_clusters * min(max(cardinalities), n)):
        Gram = X.gram() if isinstance(X, CentredSparse) else X.T @ X
    else:
        Gram = None
    paths = [lasso_lars_at_cardinalities(X, y, cardinalities, Gram) for y in Y.T]  # each d x len
    return np.stack(paths, axis=-1).transpose(1, 0, 2)


class MCFS(ScoreSelector):
    """Multi-Cluster Feature Selection: score_j = max_k |a_kj| over K sparse spectral regressions.

    Parameters: ``n_clusters`` (K eigenvectors; "auto" = min(5, n - 1): 5 as
    in Cai's code, fewer when a graph on n samples has fewer non-trivial ones;
    the IVFS paper uses {5, 10, 20, 30}), ``n_neighbors``/``weight``/``sigma``
    (the kNN graph of ``ufskit.graph.knn_graph``, Cai's defaults; n_neighbors
    "auto" = min(5, n - 1)), and
    ``max_nonzero``: the LARS cardinality per eigenvector (int, fraction of d,
    or a list). The paper selects M features with cardinality M, so its
    selections are not nested in M and no single ranking holds them all;
    ``ranking_`` follows the largest M, as the papers' protocols here do
    (``max_nonzero`` = the largest count evaluated). None (default) = d, the
    largest M: the whole path (it ends after about min(n, d) non-zeros, so on
    d >> n data this is NRFS's min{M, n}), and the selection for every
    ``n_features_to_select`` is a prefix of ``ranking_``. The paper's rule for
    one M is ``max_nonzero=M``; a list of cardinalities applies it at several
    M from one path per eigenvector: ``subsets(counts)`` then selects c
    features with cardinality c for every c in the list, and
    ``scores_``/``coef_`` are those of the largest.

    The kNN graph is built on X as given: distances do not depend on an
    offset, and ``weight="cosine"`` takes the samples' own cosines (Cai's
    ``constructW``; for documents, the tf-idf cosine). The regressions run on
    the centred X (an intercept), so that with heat or binary weights an
    offset on a column changes nothing; z-scored data is centred already. MCFS is scale-sensitive (a
    column's coefficient grows as the column shrinks): a ``ScaleWarning`` when
    standardising the columns changes the head of its ranking (``ScoreSelector``'s scale check). Sparse X is centred
    implicitly (``sparse_input.CentredSparse``: X - 1 mu' is never formed).

    Features whose coefficient is zero in every regression score 0 and are
    ranked after all non-zero ones; among themselves they are tied, ordered
    by a fixed seeded permutation (``ties.tie_keys``), not by column index, and
    ``n_ranked_`` counts the features with a non-zero, untied score (on d >> n
    data about min(n, d) x K at most, far below d). Attributes: ``coef_``
    (d x K), ``max_nonzero_`` (the cardinality of ``coef_``), ``coef_by_cardinality_``
    ({cardinality: d x K}), and the resolved ``n_clusters_`` and
    ``n_neighbors_``. Scaling all features by c > 0 leaves the ranking
    unchanged and divides the scores by c; scaling one feature is not neutral
    (the L1 penalty is not scale-free).
    """

    _parameter_constraints: dict = {
        **ScoreSelector._parameter_constraints, "n_clusters": [AUTO, POSITIVE_INT],
        "n_neighbors": [AUTO, POSITIVE_INT], "weight": [WEIGHTS], "sigma": [None, POSITIVE],
        "max_nonzero": [None, POSITIVE_INT, FRACTION, list],  # a list: one cardinality per count
    }
    accepts_sparse = True

    def __init__(
        self,
        n_features_to_select=None,
        n_clusters="auto",
        n_neighbors="auto",
        weight="heat",
        sigma=None,
        max_nonzero=None,
    ):
        self.n_features_to_select = n_features_to_select
        self.n_clusters = n_clusters
        self.n_neighbors = n_neighbors
        self.weight = weight
        self.sigma = sigma
        self.max_nonzero = max_nonzero

    def _cardinalities(self, n_scored: int) -> list[int]:
        """The LARS cardinalities: ``max_nonzero`` resolved against all d features, at most the scored ones."""
        d = self.n_features_in_
        if self.max_nonzero is None:
            return [n_scored]
        values = self.max_nonzero if isinstance(self.max_nonzero, (list, tuple)) else [self.max_nonzero]
        if not values:
            raise ValueError("max_nonzero: an empty list of cardinalities.")
        return sorted({min(resolve_count(v, d, name="max_nonzero"), n_scored) for v in values})

    def _score(self, X):
        n = X.shape[0]
        self.n_clusters_ = n_clusters = auto_or_int(self.n_clusters, "n_clusters", min(DEFAULT_EIGENVECTORS, n - 1))
        if n_clusters > n - 1:
            raise ValueError(f"n_clusters={n_clusters} eigenvectors need more samples: a graph on {n} "
                             f"samples has at most n_samples - 1 = {n - 1} non-trivial ones.")
        self.n_neighbors_ = resolve_n_neighbors(self.n_neighbors, n)
        cardinalities = self._cardinalities(X.shape[1])
        sparse = is_sparse(X)
        # the regressions on the centred X; the graph's neighbours and heat weights from its distances, cosine
        # weights from the samples as given (a document's own cosine, as in Cai's code)
        raw = X
        if not sparse:
            X = centred(X)
        W = knn_graph(raw, n_neighbors=self.n_neighbors_, weight=self.weight, sigma=self.sigma,
                      D2=None if sparse else pairwise_sq_dists(X))
        # the LARS tolerances are absolute: run it on X scaled by a power of 2 (exact) to unit RMS, then
        # undo the scale on the coefficients (the embedding does not depend on a global scale)
        scale = power_of_two(np.sqrt(np.mean(column_variances(X) if sparse else X**2)))
        design = CentredSparse(X, scale) if sparse else X / scale
        with single_threaded_blas():  # hundreds of small BLAS calls per LARS path: see ufskit.blas
            coefs = mcfs_coefficients(design, W, n_clusters, cardinalities) / scale
        self.coef_by_cardinality_ = {c: self._to_full(coef, 0.0) for c, coef in zip(cardinalities, coefs, strict=True)}
        self.max_nonzero_ = cardinalities[-1]
        self.coef_ = self.coef_by_cardinality_[self.max_nonzero_]
        return np.abs(coefs[-1]).max(axis=1)

    def subsets(self, counts) -> dict[int, np.ndarray]:
        """The c best features for each count c, each from the fit with cardinality c when one was made
        (``max_nonzero`` listing c), else the top of the one ranking."""
        check_is_fitted(self, "coef_")
        d = self.coef_.shape[0]
        keys = tie_keys(d)
        out = {}
        for value in [counts] if isinstance(counts, numbers.Number) else counts:
            c = resolve_count(value, d, name="count")
            coef = self.coef_by_cardinality_.get(c, self.coef_)
            scores = np.abs(coef).max(axis=1)
            scores[self.degenerate_features_] = -np.inf  # unscored flat columns come last, as in ranking_
            out[c] = order_with_ties(scores, keys)[:c]
        return out
