"""The faster evaluation gives the numbers of the code it replaced, bit for bit, ties included.

The reference below is the former KNN vote (one partition and one cumulative tie count per K), kept
here as the definition the fast path must reproduce. The data are built for ties: small integer
features and duplicated rows, so that distances tie at the K-th place (also straddling it).
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.model_selection import ShuffleSplit

from ufskit.evaluation import evaluate_selection
from ufskit.metrics import check_distance_matrix, iter_prefix_sq_dists, knn_accuracy_path, knn_predict
from ufskit.metrics._common import as_sklearn_seed
from ufskit.metrics.classification import _nearest, _train_neighbours
from ufskit.selection_io import Selection


def reference_vote(D2, y_train, n_classes, k):
    """The former vote: the columns closer than the k-th smallest distance, then the lowest-indexed tied ones."""
    if k == 1:
        return y_train[np.argmin(D2, axis=1)]
    kth = np.partition(D2, k - 1, axis=1)[:, k - 1 : k]
    chosen = D2 < kth
    tied = D2 == kth
    need = k - chosen.sum(axis=1)
    straddle = tied.sum(axis=1) > need
    tied[straddle] = tied[straddle] & (np.cumsum(tied[straddle], axis=1) <= need[straddle, None])
    chosen |= tied
    rows, cols = np.nonzero(chosen)
    votes = np.bincount(rows * n_classes + y_train[cols], minlength=D2.shape[0] * n_classes)
    return np.argmax(votes.reshape(-1, n_classes), axis=1)


def reference_knn_path(X, y, order, counts, ks, n_splits, test_size, random_state):
    """The former knn_accuracy_path: every K voted on its own."""
    classes, y_idx = np.unique(y, return_inverse=True)
    splitter = ShuffleSplit(n_splits=n_splits, test_size=test_size, random_state=as_sklearn_seed(random_state))
    splits = [(np.sort(train), np.sort(test)) for train, test in splitter.split(X)]
    acc = np.zeros((len(ks), len(counts)))
    for j, (_, D2) in enumerate(iter_prefix_sq_dists(X, order, counts)):
        for train, test in splits:
            block = D2[np.ix_(test, train)]
            for i, k in enumerate(ks):
                acc[i, j] += np.mean(reference_vote(block, y_idx[train], classes.size, k) == y_idx[test])
    acc /= len(splits)
    out = {f"k{k}": acc[i] for i, k in enumerate(ks)}
    out["best"] = acc.max(axis=0)
    return out


def tied_data(rng, n=90, d=12, n_classes=3):
    """Small integer features with a third of the rows duplicated: distances tie everywhere."""
    X = rng.integers(0, 3, size=(n, d)).astype(float)
    X[: n // 3] = X[n // 3 : 2 * (n // 3)]
    y = rng.integers(n_classes, size=n)
    return X, y


def test_tied_data_makes_ties_straddle_the_kth_place(rng):
    # guards the tests below: on these data argpartition's pick among tied columns matters
    X, _ = tied_data(rng)
    D2 = next(iter_prefix_sq_dists(X, np.arange(X.shape[1]), [4]))[1][:30, 30:]
    kth = np.partition(D2, 9, axis=1)[:, 9:10]
    assert ((D2 == kth).sum(axis=1) > 10 - (D2 < kth).sum(axis=1)).sum() > 10


@pytest.mark.parametrize("ks", [(1, 3, 5, 10), (2, 7), (10,), (1,)])
def test_knn_path_equals_the_reference_bit_for_bit(rng, ks):
    X, y = tied_data(rng)
    order = rng.permutation(X.shape[1])
    counts = [1, 2, 4, 7, 12]
    fast = knn_accuracy_path(X, y, order, counts, ks=ks, n_splits=6, test_size=0.25, random_state=5)
    ref = reference_knn_path(X, y, order, counts, ks, 6, 0.25, 5)
    assert fast.keys() == ref.keys()
    for key in ref:
        assert np.array_equal(fast[key], ref[key]), key


@pytest.mark.parametrize("k", [1, 2, 3, 5, 9])
def test_knn_predict_equals_the_reference_on_heavy_ties(rng, k):
    D2 = rng.integers(0, 4, size=(200, 40)).astype(float)  # four distinct distances: ties at every place
    D2[:5] = 0.0  # whole rows tied
    D2[5:10, :3] = np.inf  # pairs that may not be used
    y = rng.integers(4, size=40)
    assert np.array_equal(knn_predict(D2, y, k), reference_vote(D2, y, 4, k))


@pytest.mark.parametrize("depth", [1, 2, 10, 40])
def test_nearest_is_the_order_by_distance_then_index(rng, depth):
    D2 = rng.integers(0, 5, size=(150, 40)).astype(float)
    full_order = np.lexsort((np.broadcast_to(np.arange(40), D2.shape), D2), axis=1)
    assert np.array_equal(_nearest(D2, depth), full_order[:, :depth])


def test_train_neighbours_falls_back_when_the_shared_search_is_too_shallow(rng):
    D2 = rng.integers(0, 6, size=(60, 60)).astype(float)
    D2 = np.minimum(D2, D2.T)
    test = np.sort(rng.choice(60, size=30, replace=False))
    train = np.setdiff1d(np.arange(60), test)
    in_train = np.isin(np.arange(60), train)
    near = _nearest(D2, 12)  # too shallow to hold 10 training points on many rows
    assert (in_train[near[test]].sum(axis=1) < 10).sum() > 5
    expected = train[_nearest(D2[np.ix_(test, train)], 10)]
    assert np.array_equal(_train_neighbours(D2, near, test, train, in_train, 10), expected)


@pytest.mark.parametrize("at", [(250, 3), (3, 250), (140, 139), (299, 298)])
def test_distance_check_finds_an_asymmetry_in_any_strip(rng, at):
    D = np.sqrt(next(iter_prefix_sq_dists(rng.normal(size=(300, 4)), np.arange(4), [4]))[1])
    assert check_distance_matrix(D) is not None
    rounded, off = D.copy(), D.copy()
    rounded[at] += 1e-14  # within the 1e-12 relative rounding allowed
    off[at] += 1e-3
    check_distance_matrix(rounded)
    with pytest.raises(ValueError, match="not symmetric"):
        check_distance_matrix(off)


# evaluate_selection's values (fit time, then per count: knn_acc_k1, k3, k5, k10, knn_acc; Linf, L1_over_n2, L2)
# on the tied data below, as the code before the speed-up computed them, bit for bit
STORED = ["0x1.0000000000000p-1",
          "0x1.82d82d82d82d8p-2", "0x1.6c16c16c16c18p-2", "0x1.71c71c71c71c7p-2", "0x1.2d82d82d82d83p-2",
          "0x1.82d82d82d82d8p-2", "0x1.16c16c16c16c2p-2", "0x1.ccccccccccccdp-2", "0x1.82d82d82d82d8p-2",
          "0x1.5b05b05b05b06p-2", "0x1.ccccccccccccdp-2", "0x1.1111111111111p-2", "0x1.60b60b60b60b6p-2",
          "0x1.60b60b60b60b6p-2", "0x1.27d27d27d27d2p-2", "0x1.60b60b60b60b6p-2",
          "0x1.bfbb2394eb8a4p-1", "0x1.ba79e34ba91bbp-3", "0x1.8fbd65839f53bp+4",
          "0x1.302c5f0a5c073p-1", "0x1.b35fe58743663p-4", "0x1.95d05be7c3463p+3",
          "0x0.0p+0", "0x0.0p+0", "0x0.0p+0"]
# Linf, L1_over_n2, L2 at counts 2 and 5: sums of float distances, whose last bits depend on the BLAS kernel's
# summation order (another machine of the same kind differs in the last place: docs/performance.md)
NORMS_OF_A_SUBSET = np.isin(np.arange(len(STORED)), [16, 17, 18, 19, 20, 21])
ROUND_OFF = 1e-12


def test_evaluation_values_equal_those_stored_from_the_former_code():
    rng = np.random.default_rng(3)
    X, y = tied_data(rng, n=90, d=12)
    sel = Selection(order=rng.permutation(12), scores=np.arange(12, 0, -1.0), seconds=0.5, params={}, subsets={},
                    space=None, n_ranked=12)
    frame = evaluate_selection(X, y, sel, [2, 5, 12], {"knn": {}, "distance_norms": {}}, seed=7)
    values = frame["value"].to_numpy(dtype=float)
    stored = np.array([float.fromhex(v) for v in STORED])
    # exact where no BLAS reduction sums floats (the fit time; KNN votes on integer distances, which every
    # summation order gives exactly; the zero norms at d); the norms of D - D_F within round-off
    exact = ~NORMS_OF_A_SUBSET
    assert [v.hex() for v in values[exact]] == [v.hex() for v in stored[exact]]
    np.testing.assert_allclose(values[NORMS_OF_A_SUBSET], stored[NORMS_OF_A_SUBSET], rtol=ROUND_OFF, atol=0)
