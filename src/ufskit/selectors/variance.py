"""Variance: the classic unsupervised baseline (and the Iterative LS paper's competitor)."""

from __future__ import annotations

import numpy as np

from ..sparse_input import per_column
from ..validation import centred
from .base import ScoreSelector


def column_variances(X) -> np.ndarray:
    """Population variance of every column of X (dense, or sparse by blocks), computed on the centred columns."""
    return per_column(X, lambda block: centred(block).var(axis=0))


class Variance(ScoreSelector):
    """Rank features by their variance, largest first.

    The variance is the population variance (ddof=0); it is scale-dependent by
    definition, so scaling a feature by c multiplies its score by c**2. It is
    computed on the centred columns, so an offset (up to 1e12) leaves it unchanged.
    Each column is scored alone, so rescaling one column moves only that
    column in the ranking: no ``ScaleWarning`` (scale is what it measures).
    Sparse X is scored by blocks of columns (``sparse_input.per_column``).
    """

    scale_sensitive = False
    accepts_sparse = True

    def __init__(self, n_features_to_select=None):
        super().__init__(n_features_to_select=n_features_to_select)

    def _score(self, X):
        return column_variances(X)
