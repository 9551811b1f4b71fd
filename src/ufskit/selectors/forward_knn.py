"""KNN forward selection: the benchmark's wrapper positive control, a *supervised* greedy ranking.

ANOVA F and mRMR (``anova_f``, ``mrmr``) are filters: they score features by class separation, not by what a
nearest-neighbour classifier does with them. On the low-dimensional sets (d <= 34, counts 10-90 % of d) neither
beats random subsets of the same size in KNN accuracy beyond their spread (measured per count,
docs/fidelity/benchmark.md), so there they cannot show that the test against chance can say yes. A wrapper can:
forward selection adds, one at a time, the feature that most raises the leave-one-out accuracy of k-NN on the
features chosen so far. It reads the labels the metrics are scored with, so it is a control, never a competitor.
"""

from __future__ import annotations

import logging

import numpy as np

from ..metrics.classification import vote_of_nearest
from ..validation import resolve_count
from .anova_f import LabelledScoreSelector
from .constraints import FRACTION, POSITIVE_INT
from .inffs import available_memory
from .progress import Progress
from .ties import tie_keys

log = logging.getLogger(__name__)

BLOCK_BYTES = 64 * 2**20  # the rows of an n x n distance matrix handled at once: at most this many bytes
BLOCK_COPIES = 2  # temporaries per block of rows: a column's squared differences and their sum with the chosen's


def fit_bytes(n_samples: int) -> int:
    """Bytes of memory a fit on ``n_samples`` rows needs at its peak: the n x n squared distances of the chosen
    features, and one candidate's distances in row blocks of at most ``BLOCK_BYTES``."""
    return 8 * n_samples * n_samples + min(8 * n_samples * n_samples, BLOCK_BYTES) * BLOCK_COPIES


class ForwardKNN(LabelledScoreSelector):
    """Greedy forward selection by the leave-one-out accuracy of k-NN (supervised: ``fit(X, y)``): a ranking.

    The wrapper positive control of the cross-paper benchmark, beside the filters ``AnovaF`` and ``MRMR``: each
    step adds the unchosen feature that gives the most correct leave-one-out predictions of a k-nearest-neighbour
    classifier (Euclidean distance, uniform votes) on the chosen features plus that one; the order of addition
    is the ranking. ``uses_labels = True``: the workflow passes y to ``fit``, and the benchmark draws it apart
    (never ranked with the unsupervised selectors, never counted among them).

    Parameters
    ----------
    n_features_to_select : int, float or None
        Features kept by ``transform`` (count, fraction of d, or None for half).
    n_neighbors : int
        k of the k-NN classifier (at most n - 1: a point is never its own neighbour).
    n_greedy : int, float or None
        How many features the greedy search orders: a count in [1, d], a fraction of d in (0, 1], or None for
        all of them. Step s tries the d - s unchosen features, each one n x n distance update and neighbour
        search, so a fit costs O(n^2 d n_greedy); the features after the greedy prefix are ordered by their
        leave-one-out accuracy at the last step (added to the greedy prefix).

    Attributes
    ----------
    scores_ : a rank score, higher = earlier in ``order_``: 1 + the number of greedy features chosen after it
        for the greedy ones (so 2 .. n_greedy_ + 1); for the others their leave-one-out accuracy (in [0, 1]) when
        added to the greedy prefix; ``-inf`` for flat columns.
    criterion_ : the leave-one-out accuracy after each greedy choice, in the order chosen.
    n_greedy_ : how many features the greedy search ordered (``n_greedy`` resolved, at most the non-flat ones).
    classes_ : the class labels seen in ``fit``.

    Notes
    -----
    Leave-one-out on all n samples: the selection sees every label, as the filters do; the benchmark's
    evaluation splits are its own. k-NN ties follow ``metrics.classification`` (at equal distance the lower
    index is nearer, at equal votes the smallest class wins). Two candidates with as many correct predictions
    (an integer: no round-off) are a tie, broken by the library's fixed tie-break permutation (``ties.tie_keys``),
    not by column order. Every distance is a sum of squared differences of single columns, so the ranking is
    the same on any BLAS.

    Euclidean distances depend on the columns' scales: standardise X first (``ScaleWarning`` otherwise). Flat
    columns are not scored (ranked last, ``-inf``). A fit holds the n x n squared distances: a fit whose
    ``fit_bytes`` exceed the memory available is refused before it starts.
    """

    _parameter_constraints: dict = {**LabelledScoreSelector._parameter_constraints,
                                    "n_neighbors": [POSITIVE_INT], "n_greedy": [None, POSITIVE_INT, FRACTION]}

    def __init__(self, n_features_to_select=None, n_neighbors=5, n_greedy=None):
        super().__init__(n_features_to_select=n_features_to_select)
        self.n_neighbors = n_neighbors
        self.n_greedy = n_greedy

    def _score(self, X):
        n, d = X.shape
        if self.n_neighbors > n - 1:
            raise ValueError(f"n_neighbors={self.n_neighbors} needs at least n_neighbors + 1 samples; X has {n}.")
        needed, free = fit_bytes(n), available_memory()
        if free is not None and needed > free:
            raise MemoryError(f"ForwardKNN on n={n} samples needs {needed / 1e9:.1f} GB (the n x n distances); "
                              f"{free / 1e9:.1f} GB are available.")
        k = d if self.n_greedy is None else min(d, resolve_count(self.n_greedy, self.n_features_in_, name="n_greedy"))
        X = np.asarray(X, dtype=np.float64)
        y_idx = np.unique(self._y, return_inverse=True)[1]
        keys = tie_keys(self.n_features_in_)[self._scored]
        chosen_sq = np.zeros((n, n))
        available = np.ones(d, dtype=bool)
        correct = np.zeros(d, dtype=np.intp)
        order, criteria = [], []
        progress = Progress(log, "ForwardKNN")
        for step in range(k):
            candidates = np.flatnonzero(available)
            correct[:] = -1
            for j in candidates:
                correct[j] = self._loo_correct(chosen_sq, X[:, j], y_idx)
            best = candidates[correct[candidates] == correct[candidates].max()]
            pick = int(best[np.argmin(keys[best])])
            order.append(pick)
            criteria.append(correct[pick] / n)
            available[pick] = False
            for rows in _row_blocks(n):
                chosen_sq[rows] += _squared_differences(X[:, pick], rows)
            progress.step("%d of %d features chosen", step + 1, k)
        self.n_greedy_ = k
        self.criterion_ = np.asarray(criteria, dtype=np.float64)
        scores = np.where(available, correct / n, 0.0)  # the rest: their accuracy at the last step
        scores[order] = 1.0 + np.arange(k, 0, -1)  # the greedy ones: above every accuracy (<= 1), in their order
        return scores

    def _loo_correct(self, chosen_sq: np.ndarray, column: np.ndarray, y_idx: np.ndarray) -> int:
        """Leave-one-out correct predictions of k-NN on the chosen features plus ``column``, in row blocks."""
        n_classes = int(y_idx.max()) + 1
        total = 0
        for rows in _row_blocks(column.size):
            block = chosen_sq[rows] + _squared_differences(column, rows)
            block[np.arange(block.shape[0]), np.arange(rows.start, rows.stop)] = np.inf  # never its own neighbour
            predicted = vote_of_nearest(block, y_idx, n_classes, self.n_neighbors)
            total += int(np.count_nonzero(predicted == y_idx[rows]))
        return total


def _row_blocks(n: int) -> list[slice]:
    """Consecutive rows of an n x n float64 matrix, at most ``BLOCK_BYTES`` of it at a time."""
    step = max(1, BLOCK_BYTES // (8 * n))
    return [slice(start, min(start + step, n)) for start in range(0, n, step)]


def _squared_differences(column: np.ndarray, rows: slice) -> np.ndarray:
    """(x_i - x_j)^2 for the rows i of ``rows`` and every j: one feature's share of the squared distances."""
    diff = column[rows, None] - column[None, :]
    diff *= diff  # in place: one block of temporaries, not two
    return diff
