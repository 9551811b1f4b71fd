"""ANOVA F: the benchmark's positive control, a *supervised* ranking that uses the class labels.

Every other selector of the library is unsupervised: ``fit(X)`` never sees y. This one does, on purpose: it
ranks each feature by how well its class means separate relative to the spread within the classes
(scikit-learn's ``f_classif``, the one-way ANOVA F statistic). A test against chance that cannot call this
selector better than uniformly random feature subsets on a dataset cannot call any unsupervised one better
there either: that is what a positive control is for (docs/fidelity/benchmark.md). It is never ranked with the
unsupervised selectors (a method that reads the labels the metrics are scored with is not a competitor).
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.feature_selection import f_classif
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_consistent_length, column_or_1d

from .base import ScoreSelector


def explained_share(F: np.ndarray, n_samples: int, n_classes: int) -> np.ndarray:
    """eta^2 = SS_between / SS_total from the F statistics: F df_b / (F df_b + df_w), 1 where F is infinite.

    A monotone map of F (same ranking) that stays finite: a feature constant within every class but not
    across them has F = inf and eta^2 = 1 (it separates the classes perfectly).
    """
    df_between, df_within = n_classes - 1, n_samples - n_classes
    F = np.asarray(F, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        share = F * df_between / (F * df_between + df_within)
    share[np.isposinf(F)] = 1.0
    share[np.isnan(F)] = 0.0  # no between- and no within-class spread at the scored precision: nothing to show
    return share


class LabelledScoreSelector(ScoreSelector):
    """A ``ScoreSelector`` that ranks with the class labels (``fit(X, y)``, y required): the positive controls.

    ``fit`` checks y (one label per row, at least two classes), keeps it for ``_score`` and sets ``classes_``;
    ``f_statistics`` gives the one-way ANOVA F of every scored column (``f_classif``), also stored as
    ``f_statistic_`` and ``p_values_`` over all columns.
    """

    uses_labels = True  # the workflow passes y to fit; the benchmark draws it apart as a positive control

    def fit(self, X, y=None):
        """Rank the features of X with the classes ``y`` (required)."""
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None: it is "
                             "supervised, it ranks features with the class labels, fit(X, y).")
        y = column_or_1d(y, warn=True)
        check_classification_targets(y)
        check_consistent_length(X, y)
        self.classes_ = np.unique(y)
        if self.classes_.size < 2:
            raise ValueError(f"{type(self).__name__} needs at least 2 classes in y; got {self.classes_.size} class.")
        self._y = y
        try:
            super().fit(X, y)  # y reaches the scale check, whose refit needs it too
        finally:
            del self._y
        return self

    def f_statistics(self, X) -> np.ndarray:
        """The F statistic of each scored column of X for the classes (``inf``: constant within every class but
        not across; NaN: flat); sets ``f_statistic_`` and ``p_values_`` (all columns, NaN where not scored)."""
        with warnings.catch_warnings():  # a feature constant within every class: F = inf, by design, not a fault
            warnings.simplefilter("ignore", RuntimeWarning)
            warnings.filterwarnings("ignore", message=".*constant.*", category=UserWarning)
            F, p = f_classif(X, self._y)
        F = np.asarray(F, dtype=np.float64)
        self.f_statistic_ = self._to_full(F, fill=np.nan)
        self.p_values_ = self._to_full(np.asarray(p, dtype=np.float64), fill=np.nan)
        return F

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True  # scikit-learn's tag for "fit needs y"
        return tags


class AnovaF(LabelledScoreSelector):
    """Rank features by the one-way ANOVA F statistic of the class labels (supervised: ``fit(X, y)``).

    The positive control of the cross-paper benchmark: it reads the labels the label metrics (K-means ACC and
    NMI, KNN accuracy) are scored with, so it should beat uniformly random subsets wherever the classes are
    visible in single features. ``uses_labels = True`` tells the workflow to pass y to ``fit`` and the
    benchmark to draw it apart: never ranked with the unsupervised selectors (not in the Friedman, Nemenyi
    or critical-difference tests), never counted among them.

    Parameters
    ----------
    n_features_to_select : int, float or None
        Features kept by ``transform`` (count, fraction of d, or None for half).

    Attributes
    ----------
    scores_ : eta^2 = SS_between / SS_total per feature (``explained_share``), a monotone map of F that is 1
        for a feature constant within every class but not across them (F infinite); ``-inf`` for flat columns.
    f_statistic_ : the F statistics (``sklearn.feature_selection.f_classif``; ``inf`` as above, NaN for flat
        columns).
    p_values_ : their p-values (NaN for flat columns).
    classes_ : the class labels seen in ``fit``.

    Notes
    -----
    F, and so the ranking, is invariant to an affine change of any column (offset and scale), so no
    ``ScaleWarning``; constant columns rank last with score ``-inf`` as for every selector. y needs at least
    two classes and one label per row of X; fit without y is refused with a ValueError. Sparse X is accepted
    (``f_classif`` reads it as it is). Cost: O(n d), one pass over X.
    """

    scale_sensitive = False  # F is invariant to affine column transforms
    accepts_sparse = True

    def __init__(self, n_features_to_select=None):
        super().__init__(n_features_to_select=n_features_to_select)

    def _score(self, X):
        return explained_share(self.f_statistics(X), X.shape[0], self.classes_.size)
