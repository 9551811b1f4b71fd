"""mRMR (FCQ): the benchmark's second, redundancy-aware positive control, a *supervised* greedy ranking.

ANOVA F (``anova_f``) ranks each feature alone, so on data with many near-copies of a feature (adjacent pixels,
co-expressed genes) its top features say the same thing and a random subset of the same size can do as well in
KNN accuracy. Minimum-redundancy maximum-relevance selection (Peng, Long & Ding 2005) adds to the selection, one
at a time, the feature most relevant to the classes and least redundant with the features already chosen; this
module implements Ding & Peng's (2005) "FCQ" form for continuous features: relevance the F statistic, redundancy
the mean absolute Pearson correlation with the selected features, combined as their quotient. Like ANOVA F it
reads the labels the metrics are scored with, so it is a control, never a competitor (docs/fidelity/benchmark.md).
"""

from __future__ import annotations

import numpy as np

from ..sparse_input import is_sparse, per_column
from ..validation import resolve_count
from .anova_f import LabelledScoreSelector, explained_share
from .constraints import FRACTION, POSITIVE_INT
from .ties import snap_round_off, tie_keys

# the smallest mean |correlation| the FCQ quotient divides by: a feature uncorrelated with every selected one
# (an exact 0) would divide by zero. Far above the round-off of a correlation of unit-norm columns (~n eps:
# 2e-10 at n = 1e6, where exact orthogonality computes as such a value), far below any sample correlation the
# data can show (of order 1/sqrt(n), 1e-3 at n = 1e6): every feature below it counts as orthogonal, and those
# are ordered by their F among themselves.
REDUNDANCY_FLOOR = 1e-9


class MRMR(LabelledScoreSelector):
    """Minimum redundancy, maximum relevance in its FCQ form (supervised: ``fit(X, y)``): a greedy ranking.

    The second positive control of the cross-paper benchmark, beside ``AnovaF``: ANOVA F is univariate and
    ranks redundant features (near-copies of one informative feature) together, so it often does no better
    than random subsets of the same size; this one penalises a candidate for its correlation with the features
    already chosen. ``uses_labels = True``, as for ``AnovaF``: the workflow passes y to ``fit``, and the
    benchmark draws it apart (never ranked with the unsupervised selectors, never counted among them).

    The FCQ criterion (F-test Correlation Quotient; Ding & Peng 2005, for continuous features): the first
    feature is the one of largest F statistic (``sklearn.feature_selection.f_classif``); then, with S the
    features chosen so far, each step adds the unchosen feature j maximising

        F_j / max(mean_{s in S} |corr(x_j, x_s)|, REDUNDANCY_FLOOR)

    (corr the Pearson correlation of the columns). After ``n_greedy`` steps the remaining features follow,
    by F, highest first.

    Parameters
    ----------
    n_features_to_select : int, float or None
        Features kept by ``transform`` (count, fraction of d, or None for half).
    n_greedy : int, float or None
        How many features the greedy search orders: a count in [1, d], a fraction of d in (0, 1], or None
        for all of them. Each step costs one product of the n x d matrix with a vector (and a sort of d
        criteria), so a fit costs O(n d n_greedy); the features after the greedy prefix are ordered by F alone.

    Attributes
    ----------
    scores_ : a rank score, higher = earlier in ``order_``: 1 + the number of greedy features chosen after it
        for the greedy ones (so 2 .. n_greedy_ + 1); for the others eta^2 = SS_between / SS_total, F's
        monotone map in [0, 1] (``AnovaF``'s scores_), so that the rest is ordered by F and equal F stay a tie
        (broken by the library's seeded permutation and counted in ``n_ranked_``); ``-inf`` for flat columns.
    f_statistic_ : the F statistics (``inf`` for a feature constant within every class but not across them,
        NaN for flat columns).
    p_values_ : their p-values (NaN for flat columns).
    criterion_ : the FCQ criterion of each greedy choice, in the order chosen (the first is its F; ``inf``
        for a choice among the features of infinite F).
    n_greedy_ : how many features the greedy search ordered (``n_greedy`` resolved, at most the non-flat
        features).
    classes_ : the class labels seen in ``fit``.

    Notes
    -----
    Redundancy is |Pearson correlation| (the FCQ form's, for continuous data), not mutual information (the MIQ
    form's, for discrete data); it is the quotient form, not the difference F - mean |corr|, whose two terms
    are on different scales. The F statistic and the correlations, and so the ranking, are invariant to an
    affine change of any column: no ``ScaleWarning``.

    Degenerate input: flat (constant) columns are not scored, as for every selector: never chosen, ranked last
    with score ``-inf``. Features of infinite F (constant within every class, different across) separate the
    classes perfectly: they come first, among them the least redundant first (the quotient would be infinite
    for all of them). A column orthogonal to every chosen one (mean |corr| 0, or below round-off) is divided by
    the floor ``REDUNDANCY_FLOOR`` instead: criterion F / 1e-9, so it comes before the correlated ones unless
    its F is negligible, and several such are ordered by F.

    Ties: the criterion is compared after ``ties.snap_round_off`` at each step (values closer than round-off
    are equal, so the last bits of a sum never choose); a tie that remains is broken by the library's fixed
    tie-break permutation (``ties.tie_keys``, the one ``ScoreSelector`` uses for equal scores), not by column
    order, and is deterministic.

    Sparse X is accepted without densifying it: the correlations are computed with implicit centring,
    corr(x_j, x_s) = (X' z_s - mu 1'z_s)_j / ||x_j - mu_j||, z_s the centred, unit-norm column of the
    chosen feature (one dense column per step); column means and norms are computed on dense blocks of
    columns. Dense X is centred and normalised once (one n x d float64 copy).

    y needs at least two classes and one label per row of X; fit without y is refused with a ValueError.

    References
    ----------
    C. Ding and H. Peng, "Minimum redundancy feature selection from microarray gene expression data",
    Journal of Bioinformatics and Computational Biology 3(2):185-205, 2005 (the FCQ criterion).
    H. Peng, F. Long and C. Ding, "Feature selection based on mutual information: criteria of max-dependency,
    max-relevance, and min-redundancy", IEEE TPAMI 27(8):1226-1238, 2005 (mRMR).
    """

    _parameter_constraints: dict = {**LabelledScoreSelector._parameter_constraints,
                                    "n_greedy": [None, POSITIVE_INT, FRACTION]}
    scale_sensitive = False  # F and the correlations are invariant to affine column transforms
    accepts_sparse = True

    def __init__(self, n_features_to_select=None, n_greedy=None):
        super().__init__(n_features_to_select=n_features_to_select)
        self.n_greedy = n_greedy

    def _score(self, X):
        d = X.shape[1]
        k = d if self.n_greedy is None else min(d, resolve_count(self.n_greedy, self.n_features_in_, name="n_greedy"))
        F = self.f_statistics(X)

        available = ~np.isnan(F)  # NaN: no spread at the scored precision; never chosen, last of the rest
        k = min(k, int(available.sum()))
        keys = tie_keys(self.n_features_in_)[self._scored]  # the base's tie-break keys, in the scored columns
        correlations = _Correlations(X)
        redundancy = np.zeros(d)  # sum over the chosen features of |corr(x_j, x_s)|
        order, criteria = [], []
        for step in range(k):
            perfect = available & np.isposinf(F)
            candidates = perfect if perfect.any() else available
            criterion = np.full(d, -np.inf)
            mean = redundancy[candidates] / max(step, 1)
            if perfect.any():  # all quotients infinite: the least redundant perfect separator first
                criterion[candidates] = -mean
            else:
                criterion[candidates] = F[candidates] / np.maximum(mean, REDUNDANCY_FLOOR) if step else F[candidates]
            snapped = snap_round_off(criterion)
            best = np.flatnonzero(snapped == snapped[candidates].max())
            pick = int(best[np.argmin(keys[best])])
            order.append(pick)
            criteria.append(np.inf if perfect.any() else criterion[pick])
            available[pick] = False
            if step + 1 < k:
                redundancy += np.abs(correlations.with_column(pick))
        self.n_greedy_ = k
        self.criterion_ = np.asarray(criteria, dtype=np.float64)
        scores = explained_share(F, X.shape[0], self.classes_.size)  # the rest: by F, ties kept as ties
        scores[order] = 1.0 + np.arange(k, 0, -1)  # the greedy ones: above every eta^2 (<= 1), in their order
        return scores


class _Correlations:
    """Pearson correlations of every column of X with one of them, each a matrix-vector product (O(n d)).

    Dense X: centred and normalised once (Z, n x d), then Z' z_j. Sparse X: never densified; the centring is
    implicit, (X' z_j - mu 1'z_j) / norms with z_j the chosen column centred and normalised (dense, n values).
    """

    def __init__(self, X):
        self.sparse = is_sparse(X)
        if self.sparse:
            self.X = X.tocsc()
            self.mu = per_column(self.X, lambda block: block.mean(axis=0))
            self.norms = per_column(self.X, lambda block: np.sqrt(((block - block.mean(axis=0)) ** 2).sum(axis=0)))
        else:
            Z = X - X.mean(axis=0)
            self.norms = np.sqrt(np.einsum("ij,ij->j", Z, Z))
            self.Z = Z
        self.norms[self.norms == 0] = 1.0  # not reached for scored columns (they vary); no division by zero
        if not self.sparse:
            self.Z /= self.norms

    def with_column(self, j: int) -> np.ndarray:
        """corr(x_i, x_j) for every column i."""
        if not self.sparse:
            return self.Z.T @ self.Z[:, j]
        z = (self.X[:, [j]].toarray().ravel().astype(np.float64) - self.mu[j]) / self.norms[j]
        product = np.asarray(self.X.T @ z, dtype=np.float64).ravel()
        return (product - self.mu * z.sum()) / self.norms
