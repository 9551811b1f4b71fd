"""KNN accuracy (IVFS protocol) and 10 x 10-fold 1-NN accuracy (Iterative LS protocol)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.model_selection import RepeatedStratifiedKFold, ShuffleSplit
from sklearn.neighbors import KNeighborsClassifier

from ufskit.metrics import cv_1nn_accuracy, cv_1nn_accuracy_path, knn_accuracy, knn_accuracy_path, knn_predict


def sq(test, train):
    """Squared 1-D distances, test rows x train columns."""
    return (np.asarray(test, float)[:, None] - np.asarray(train, float)[None, :]) ** 2


def noisy_classes(rng, n=60, d=8, n_classes=3):
    y = rng.integers(n_classes, size=n)
    X = rng.normal(size=(n, d)) + 0.8 * y[:, None] * (np.arange(d) % 3 == 0)
    return X, y


# ---------------------------------------------------------------- the vote, on hand-made splits


def test_knn_predict_known_neighbours():
    train = [0.0, 1.0, 2.0, 10.0, 11.0]
    labels = [0, 0, 1, 1, 1]
    test = [0.4, 10.5, 1.6]
    # 1-NN: 0.4 -> 0.0 (class 0); 10.5 is equidistant to 10 and 11 -> lower index (10, class 1); 1.6 -> 2.0 (class 1)
    assert knn_predict(sq(test, train), labels, 1).tolist() == [0, 1, 1]
    # 3-NN: 0.4 -> {0, 1, 2}: 0,0,1 -> 0; 10.5 -> {10, 11, 2}: 1,1,1 -> 1; 1.6 -> {2, 1, 0}: 1,0,0 -> 0
    assert knn_predict(sq(test, train), labels, 3).tolist() == [0, 1, 0]


def test_knn_predict_vote_tie_goes_to_smallest_label():
    # 1.5 is equidistant to 1.0 (label 7) and 2.0 (label 3): one vote each -> label 3
    assert knn_predict(sq([1.5], [1.0, 2.0, 9.0]), [7, 3, 3], 2).tolist() == [3]


def test_knn_predict_distance_tie_at_the_kth_place_keeps_the_lower_index():
    # neighbours of 0 with k=2: 1.0 (label 1), then 2.0 and -2.0 tie; index 0 (2.0, label 1) wins -> 2 votes for 1.
    # Taking index 1 (-2.0, label 0) instead would give a 1-1 tie resolved to label 0.
    assert knn_predict(sq([0.0], [2.0, -2.0, 1.0, 7.0]), [1, 0, 1, 0], 2).tolist() == [1]
    assert knn_predict(sq([0.0], [-2.0, 2.0, 1.0, 7.0]), [0, 1, 1, 0], 2).tolist() == [0]


def test_knn_predict_skips_infinite_pairs_and_keeps_label_type():
    D2 = sq([0.0], [0.1, 5.0, 6.0])
    D2[0, 0] = np.inf
    assert knn_predict(D2, ["a", "b", "c"], 1).tolist() == ["b"]


def test_knn_predict_rejects_bad_input():
    D2 = sq([0.0, 1.0], [0.0, 1.0, 2.0])
    with pytest.raises(ValueError, match="K must be an integer"):
        knn_predict(D2, [0, 1, 1], 4)
    with pytest.raises(ValueError, match="K must be an integer"):
        knn_predict(D2, [0, 1, 1], 0)
    with pytest.raises(ValueError, match="labels"):
        knn_predict(D2, [0, 1], 1)
    with pytest.raises(ValueError, match="2-D"):
        knn_predict(D2[0], [0, 1, 1], 1)
    bad = D2.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        knn_predict(bad, [0, 1, 1], 1)
    bad[0, :2] = np.inf
    bad[0, 2] = 1.0
    with pytest.raises(ValueError, match="finite"):
        knn_predict(bad, [0, 1, 1], 2)


# ---------------------------------------------------------------- knn_accuracy


def test_knn_accuracy_matches_scikit_learn(rng):
    X, y = noisy_classes(rng)
    out = knn_accuracy(X, y, ks=(1, 3, 5, 10), random_state=11)
    splits = ShuffleSplit(n_splits=10, test_size=0.2, random_state=11).split(X)
    expected = {f"k{k}": 0.0 for k in (1, 3, 5, 10)}
    for train, test in splits:
        for k in (1, 3, 5, 10):
            clf = KNeighborsClassifier(n_neighbors=k).fit(X[train], y[train])
            expected[f"k{k}"] += clf.score(X[test], y[test]) / 10
    for key, value in expected.items():
        assert out[key] == pytest.approx(value, abs=1e-12)
    assert out["best"] == max(expected.values())
    assert 0.4 < out["best"] < 1.0  # the data are neither trivial nor hopeless


def test_knn_accuracy_separable_data_is_perfect(rng):
    X = np.vstack([rng.normal(0, 0.1, size=(15, 3)), rng.normal(5, 0.1, size=(15, 3))])
    y = np.repeat([0, 1], 15)
    assert knn_accuracy(X, y, ks=(1, 3), n_splits=3, random_state=0) == {"k1": 1.0, "k3": 1.0, "best": 1.0}


def test_knn_accuracy_is_deterministic_and_depends_on_the_seed(rng):
    X, y = noisy_classes(rng)
    a = knn_accuracy(X, y, random_state=np.random.default_rng(5))
    assert a == knn_accuracy(X, y, random_state=np.random.default_rng(5))
    runs = {knn_accuracy(X, y, ks=(1,), random_state=s)["k1"] for s in range(5)}
    assert len(runs) > 1


def test_knn_path_equals_one_shot_at_every_count(rng):
    X, y = noisy_classes(rng, n=50, d=12)
    order = rng.permutation(12)
    counts = [1, 2, 5, 9, 12]
    path = knn_accuracy_path(X, y, order, counts, ks=(1, 3, 5), n_splits=4, random_state=3)
    assert set(path) == {"k1", "k3", "k5", "best"}
    for j, m in enumerate(counts):
        one = knn_accuracy(X[:, order[:m]], y, ks=(1, 3, 5), n_splits=4, random_state=3)
        for key, value in one.items():
            assert path[key][j] == pytest.approx(value, abs=1e-12), (key, m)


def test_knn_accuracy_rejects_bad_input(rng):
    X, y = noisy_classes(rng, n=20, d=4)
    with pytest.raises(ValueError, match="K must be an integer"):
        knn_accuracy(X, y, ks=(1, 17), random_state=0)  # 16 training samples
    with pytest.raises(ValueError, match="ks"):
        knn_accuracy(X, y, ks=(3, 3), random_state=0)
    with pytest.raises(ValueError, match="labels"):
        knn_accuracy(X, y[:-1], random_state=0)
    with pytest.raises(ValueError, match="NaN"):
        knn_accuracy(np.where(X > 1.5, np.nan, X), y, random_state=0)
    with pytest.raises(ValueError, match="counts"):
        knn_accuracy_path(X, y, np.arange(4), [2, 2], random_state=0)
    with pytest.raises(ValueError, match="counts"):
        knn_accuracy_path(X, y, np.arange(2), [1, 3], random_state=0)
    with pytest.raises(ValueError, match="repeats"):
        knn_accuracy_path(X, y, [0, 1, 1], [1, 2], random_state=0)
    with pytest.raises(ValueError, match="outside"):
        knn_accuracy_path(X, y, [0, 4], [1, 2], random_state=0)


# ---------------------------------------------------------------- 10 x 10-fold 1-NN


def test_cv_1nn_separable_data_is_perfect(rng):
    X = np.vstack([rng.normal(c, 0.2, size=(12, 2)) for c in (0, 4, 8)])
    y = np.repeat([0, 1, 2], 12)
    assert cv_1nn_accuracy(X, y, random_state=0) == 1.0


def test_cv_1nn_matches_scikit_learn_pooled_predictions(rng):
    X, y = noisy_classes(rng, n=40, d=6)
    acc = cv_1nn_accuracy(X, y, n_folds=5, n_repeats=3, random_state=4)
    correct = 0
    for train, test in RepeatedStratifiedKFold(n_splits=5, n_repeats=3, random_state=4).split(X, y):
        pred = KNeighborsClassifier(n_neighbors=1).fit(X[train], y[train]).predict(X[test])
        correct += np.count_nonzero(pred == y[test])
    assert acc == pytest.approx(correct / (3 * 40), abs=1e-12)


def test_cv_1nn_path_equals_one_shot_at_every_count(rng):
    X, y = noisy_classes(rng, n=45, d=7)
    order = np.array([6, 2, 0, 5, 1])
    counts = [1, 2, 3, 4, 5]
    path = cv_1nn_accuracy_path(X, y, order, counts, n_folds=5, n_repeats=2, random_state=9)
    assert path.shape == (5,)
    one = [cv_1nn_accuracy(X[:, order[:m]], y, n_folds=5, n_repeats=2, random_state=9) for m in counts]
    np.testing.assert_allclose(path, one, atol=1e-12)
    assert len(set(one)) > 1  # the counts really differ


def test_a_single_class_reference_is_refused_not_scored_perfect():
    """One class in y: every prediction was right (accuracy 1 at every count); now a clear error."""
    X = np.random.default_rng(0).standard_normal((20, 3))
    with pytest.raises(ValueError, match="single class"):
        knn_accuracy_path(X, np.ones(20, dtype=int), np.arange(3), [1, 2], random_state=0)
