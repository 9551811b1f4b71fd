"""Random: uniform random feature subsets, the chance baseline every selector is compared with."""

from __future__ import annotations

import numpy as np

from .base import ScoreSelector
from .constraints import RANDOM_STATE


class Random(ScoreSelector):
    """Rank the features in a uniformly random order drawn from ``random_state``.

    ``scores_`` is a random permutation of 1..d' over the d' varying features
    (flat columns get ``-inf`` and the last ranks, as for every selector), so
    ``ranking_ <= h`` is a uniformly random h-subset of the varying features
    and the subsets of one fit are nested (the h best are among the h + 1
    best). The order depends on ``random_state`` and on the number of columns
    only, never on the values of X: the selector knows nothing about the data,
    which is what a chance reference must do. The benchmark runs it R times
    (``reps``), one seed per repetition, and compares every method with the
    spread of those R draws.

    Parameters
    ----------
    n_features_to_select : int, float or None
        Features kept by ``get_support``/``transform`` (an int, a fraction of
        d, or None for half).
    random_state : None, int or numpy Generator
        Seed of the permutation; an int gives the same order on every fit.
    """

    scale_sensitive = False  # ignores the values

    _parameter_constraints: dict = {**ScoreSelector._parameter_constraints, "random_state": RANDOM_STATE}
    accepts_sparse = True  # it reads only X's shape

    def __init__(self, n_features_to_select=None, random_state=None):
        super().__init__(n_features_to_select=n_features_to_select)
        self.random_state = random_state

    def _score(self, X):
        d = X.shape[1]
        return np.random.default_rng(self.random_state).permutation(d).astype(np.float64) + 1.0
