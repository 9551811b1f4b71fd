"""The one interface every selector shares (scikit-learn's SelectorMixin, RFE-style ranks)."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from ..validation import resolve_count


def ranking_from_scores(scores: np.ndarray) -> np.ndarray:
    """RFE-style ranks (1 = best) from scores where higher is better.

    Ties are broken by feature index (the lower index ranks first), so a
    ranking never depends on the sort algorithm.
    """
    scores = np.asarray(scores, dtype=np.float64)
    if not np.all(np.isfinite(scores)):
        raise RuntimeError("a selector produced NaN or infinite scores; this is a bug, please report it.")
    order = np.argsort(-scores, kind="stable")
    ranking = np.empty(scores.size, dtype=np.int64)
    ranking[order] = np.arange(1, scores.size + 1)
    return ranking


def order_from_ranking(ranking: np.ndarray) -> np.ndarray:
    """Feature indices from best to worst: ``order[0]`` is the feature with rank 1."""
    return np.argsort(np.asarray(ranking), kind="stable")


class ScoreSelector(SelectorMixin, BaseEstimator):
    """Base class: a subclass implements ``_score(X) -> scores`` (one per feature, higher = better).

    ``fit`` validates X (2-D, finite, at least 2 samples), stores ``scores_``,
    ``ranking_`` (``ranking_[i]`` is the rank of feature i, 1 = best) and
    ``n_features_in_``; ``get_support``/``transform`` keep the
    ``n_features_to_select`` best (an int, a fraction of d, or None for half).
    Selectors whose native score is "smaller is better" negate it in ``scores_``
    and keep the native value in an attribute of their own.
    """

    def __init__(self, n_features_to_select=None):
        self.n_features_to_select = n_features_to_select

    def fit(self, X, y=None):
        """Score every feature of X (y is ignored: the selectors are unsupervised)."""
        X = validate_data(self, X, dtype=np.float64, ensure_min_samples=2, reset=True)
        self.scores_ = np.asarray(self._score(X), dtype=np.float64)
        if self.scores_.shape != (X.shape[1],):
            raise RuntimeError(f"{type(self).__name__}._score returned shape {self.scores_.shape}.")
        self.ranking_ = ranking_from_scores(self.scores_)
        return self

    def _score(self, X: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def order_(self) -> np.ndarray:
        """Feature indices from best to worst."""
        check_is_fitted(self, "ranking_")
        return order_from_ranking(self.ranking_)

    def _n_selected(self, d: int) -> int:
        """How many of d features ``get_support`` keeps: ``n_features_to_select`` resolved, half when None."""
        if self.n_features_to_select is None:
            return max(1, d // 2)
        return resolve_count(self.n_features_to_select, d, name="n_features_to_select")

    def _get_support_mask(self):
        check_is_fitted(self, "ranking_")
        return self.ranking_ <= self._n_selected(self.ranking_.size)
