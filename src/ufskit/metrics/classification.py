"""Nearest-neighbour classification accuracy of a feature subset (IVFS and Iterative LS protocols).

* ``knn_accuracy``: the IVFS paper's protocol. Random 80/20 train/test splits
  (plain, not stratified: the paper says "randomly split"), repeated 10 times;
  the mean test accuracy for each K in {1, 3, 5, 10}, and ``best`` = the
  highest of these means.
* ``cv_1nn_accuracy``: the Iterative LS paper's "10 times 10-fold cross
  validation" with a 1-NN classifier: repeated stratified K-fold, accuracy
  pooled over all test predictions (every sample is tested once per repeat).

Neighbours are by Euclidean distance. Ties are broken deterministically: at
equal distance the training sample with the lower index is the nearer one;
at equal votes the smallest class label wins (as in scikit-learn's
KNeighborsClassifier with uniform weights).

The ``*_path`` variants score the prefixes ``X[:, order[:m]]`` for every m in
``counts`` with the same splits, updating the squared distances incrementally
(``distances.iter_prefix_sq_dists``), so a whole path costs about one full
distance computation plus the neighbour searches.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.model_selection import RepeatedStratifiedKFold, ShuffleSplit

from ..validation import check_data, check_int
from ._common import as_sklearn_seed, check_labels, check_reference_labels
from .distances import check_prefixes, iter_prefix_sq_dists


def _nearest(D2: np.ndarray, depth: int) -> np.ndarray:
    """Column indices of the ``depth`` nearest columns of each row of D2, nearest first.

    Nearest first is the order (distance, column index): the k nearest of a row
    are the first k of this order, for every k <= depth. One argpartition finds
    the ``depth`` nearest (redone exactly on the rare rows where a tie straddles
    the depth-th place, where argpartition's pick among the tied is arbitrary),
    then only these few are sorted.
    """
    if depth == 1:  # argmin returns the first (lowest-index) minimum
        return np.argmin(D2, axis=1)[:, None]
    near = np.argpartition(D2, depth - 1, axis=1)[:, :depth]
    dist = np.take_along_axis(D2, near, axis=1)
    kth = dist.max(axis=1)
    straddle = np.count_nonzero(D2 == kth[:, None], axis=1) > np.count_nonzero(dist == kth[:, None], axis=1)
    for r in np.flatnonzero(straddle):
        closer = np.flatnonzero(D2[r] < kth[r])
        near[r] = np.concatenate([closer, np.flatnonzero(D2[r] == kth[r])[: depth - closer.size]])
        dist[r] = D2[r, near[r]]
    return np.take_along_axis(near, np.lexsort((near, dist), axis=1), axis=1)


def _votes(labels: np.ndarray, n_classes: int, ks) -> dict[int, np.ndarray]:
    """For each k in ``ks``: the class index (0..n_classes-1) most frequent among the first k columns of
    ``labels`` (each row: the class indices of a point's neighbours, nearest first). np.argmax picks the
    smallest class index among tied vote counts."""
    votes = np.zeros((labels.shape[0], n_classes), dtype=np.intp)
    rows = np.arange(labels.shape[0])
    out = {}
    for j in range(max(ks)):
        votes[rows, labels[:, j]] += 1
        if j + 1 in ks:
            out[j + 1] = np.argmax(votes, axis=1)
    return out


def vote_of_nearest(D2: np.ndarray, y_idx: np.ndarray, n_classes: int, k: int) -> np.ndarray:
    """Per row of D2, the class index (of ``y_idx``, the columns' classes 0..n_classes-1) most frequent among its
    k nearest columns (ties: the module doc's rules); no checks, for callers that checked once (a wrapper's many
    candidate subsets, ``knn_predict``)."""
    return _votes(y_idx[_nearest(D2, k)], n_classes, [k])[k]


def _train_neighbours(D2, near, test, train, in_train, k: int) -> np.ndarray:
    """The k nearest training points of each test point (rows of ``test``), nearest first, as indices of D2.

    ``near`` holds each row's nearest columns among all points, nearest first (``_nearest``); keeping its
    training points keeps their order, so the first k of them are the answer. A test row with fewer than k
    training points there (rare: ``near`` is about twice deeper than needed) is searched among all of
    ``train`` instead.
    """
    cand = near[test]
    ok = in_train[cand]
    rank = np.cumsum(ok, axis=1)
    out = np.empty((test.size, k), dtype=np.intp)
    short = rank[:, -1] < k
    full = ~short
    out[full] = cand[full][(ok & (rank <= k))[full]].reshape(-1, k)
    if short.any():
        out[short] = train[_nearest(D2[np.ix_(test[short], train)], k)]
    return out


def knn_predict(D2, y_train, k: int) -> np.ndarray:
    """Labels of test points by majority vote of their k nearest training points.

    D2 is the (n_test x n_train) matrix of squared distances from each test
    point to each training point; +inf marks a pair that may not be used (at
    least k usable pairs per row are required). Tie rules: see the module doc.
    """
    D2 = np.asarray(D2, dtype=np.float64)
    if D2.ndim != 2:
        raise ValueError(f"D2 must be a 2-D n_test x n_train matrix, got shape {D2.shape}.")
    y_train = check_labels(y_train, name="y_train", n_samples=D2.shape[1])
    k = check_int(k, name="K", high=D2.shape[1])
    if np.isnan(D2).any() or (D2 < 0).any():
        raise ValueError("D2 has NaN or negative entries.")
    if (np.count_nonzero(np.isfinite(D2), axis=1) < k).any():
        raise ValueError(f"some test points have fewer than k={k} finite distances.")
    classes, y_idx = np.unique(y_train, return_inverse=True)
    return classes[vote_of_nearest(D2, y_idx, classes.size, k)]


def _prepare(X, y, order, counts):
    X = check_data(X)
    y = check_reference_labels(y, n_samples=X.shape[0])  # one class: every prediction right
    order, counts = check_prefixes(X.shape[1], order, counts)
    classes, y_idx = np.unique(y, return_inverse=True)
    return X, y_idx, classes.size, order, counts


def knn_accuracy_path(X, y, order, counts, *, ks=(1, 3, 5, 10), n_splits=10, test_size=0.2, random_state) -> dict:
    """Mean KNN test accuracy of ``X[:, order[:m]]`` for every m in ``counts``, on the same splits.

    Returns ``{"k1": array, "k3": array, ..., "best": array}``, each of
    len(counts); ``best`` is the highest mean over K at each count.
    ``n_splits`` random train/test splits with ``test_size`` (a fraction or a
    count, as in scikit-learn's ShuffleSplit) are drawn from ``random_state``.
    """
    X, y_idx, n_classes, order, counts = _prepare(X, y, order, counts)
    if isinstance(ks, numbers.Integral) or len(ks) == 0 or len(set(ks)) != len(ks):
        raise ValueError(f"ks must be a non-empty sequence of distinct ints, got {ks!r}.")
    splitter = ShuffleSplit(n_splits=n_splits, test_size=test_size, random_state=as_sklearn_seed(random_state))
    splits = [(np.sort(train), np.sort(test)) for train, test in splitter.split(X)]
    ks = [check_int(k, name="K", high=splits[0][0].size) for k in ks]
    k_max, n = max(ks), X.shape[0]
    depth = min(n, 2 * k_max * n // splits[0][0].size + 10)  # about twice the k_max training points
    in_train = np.zeros((len(splits), n), dtype=bool)
    for s, (train, _) in enumerate(splits):
        in_train[s, train] = True
    acc = np.zeros((len(ks), len(counts)))
    for j, (_, D2) in enumerate(iter_prefix_sq_dists(X, order, counts)):
        near = _nearest(D2, depth)
        for s, (train, test) in enumerate(splits):
            predicted = _votes(y_idx[_train_neighbours(D2, near, test, train, in_train[s], k_max)], n_classes, ks)
            for i, k in enumerate(ks):
                acc[i, j] += np.mean(predicted[k] == y_idx[test])
    acc /= len(splits)
    out = {f"k{k}": acc[i] for i, k in enumerate(ks)}
    out["best"] = acc.max(axis=0)
    return out


def knn_accuracy(X, y, *, ks=(1, 3, 5, 10), n_splits=10, test_size=0.2, random_state) -> dict:
    """Mean KNN test accuracy per K over random train/test splits, and ``best`` over K (floats)."""
    X = check_data(X)
    path = knn_accuracy_path(
        X,
        y,
        np.arange(X.shape[1]),
        [X.shape[1]],
        ks=ks,
        n_splits=n_splits,
        test_size=test_size,
        random_state=random_state,
    )
    return {key: float(values[0]) for key, values in path.items()}


def cv_1nn_accuracy_path(X, y, order, counts, *, n_folds=10, n_repeats=10, random_state) -> np.ndarray:
    """1-NN accuracy of ``X[:, order[:m]]`` by repeated stratified K-fold CV, for every m in ``counts``.

    The folds are drawn once and shared by all counts. Each repeat predicts
    every sample from the samples outside its fold: the squared distances
    within a fold are masked with +inf, so one argmin per row does a whole
    repeat. Returns an array of len(counts).
    """
    X, y_idx, n_classes, order, counts = _prepare(X, y, order, counts)
    cv = RepeatedStratifiedKFold(n_splits=n_folds, n_repeats=n_repeats, random_state=as_sklearn_seed(random_state))
    fold = np.empty((n_repeats, X.shape[0]), dtype=np.intp)
    for s, (_, test) in enumerate(cv.split(X, y_idx)):
        fold[s // n_folds, test] = s % n_folds
    same_fold = [f[:, None] == f[None, :] for f in fold]
    acc = np.empty(len(counts))
    for j, (_, D2) in enumerate(iter_prefix_sq_dists(X, order, counts)):
        correct = sum(
            np.count_nonzero(y_idx[_nearest(np.where(mask, np.inf, D2), 1)[:, 0]] == y_idx) for mask in same_fold
        )
        acc[j] = correct / (n_repeats * X.shape[0])
    return acc


def cv_1nn_accuracy(X, y, *, n_folds=10, n_repeats=10, random_state) -> float:
    """1-NN accuracy by ``n_repeats`` x ``n_folds``-fold stratified cross-validation (pooled mean)."""
    X = check_data(X)
    acc = cv_1nn_accuracy_path(
        X, y, np.arange(X.shape[1]), [X.shape[1]], n_folds=n_folds, n_repeats=n_repeats, random_state=random_state
    )
    return float(acc[0])
