"""Kernel k-means: rings, agreement with k-means for the linear kernel, the objective, restarts, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment
from selector_checks import run_check_estimator
from sklearn.cluster import KMeans

from ufskit.cluster import KernelKMeans
from ufskit.kernels import rbf_kernel


def accuracy(y, labels):
    """Clustering accuracy under the best one-to-one matching of clusters to classes."""
    C = np.zeros((labels.max() + 1, y.max() + 1))
    np.add.at(C, (labels, y), 1)
    r, c = linear_sum_assignment(-C)
    return C[r, c].sum() / y.size


def rings(rng, n=200):
    t = rng.uniform(0, 2 * np.pi, n)
    y = (np.arange(n) >= n // 2).astype(int)
    r = np.where(y == 0, 1.0, 4.0)
    return np.c_[r * np.cos(t), r * np.sin(t)] + 0.1 * rng.standard_normal((n, 2)), y


def blobs(rng, n_per=30, centres=((0, 0), (6, 0), (0, 6))):
    X = np.vstack([np.asarray(c) + rng.standard_normal((n_per, 2)) for c in centres])
    return X, np.repeat(np.arange(len(centres)), n_per)


def sq_error(X, labels):
    """sum over clusters of squared distances to the cluster mean, in input space."""
    return sum(((X[labels == c] - X[labels == c].mean(0)) ** 2).sum() for c in np.unique(labels))


def test_rbf_kernel_kmeans_separates_rings_that_kmeans_cannot(rng):
    X, y = rings(rng)
    kkm = KernelKMeans(n_clusters=2, kernel="rbf", sigma=1.0, random_state=0).fit(X)
    km = KMeans(n_clusters=2, n_init=10, random_state=0).fit(X)
    assert accuracy(y, kkm.labels_) == 1.0
    assert accuracy(y, km.labels_) < 0.6


def test_linear_kernel_matches_kmeans_and_objective(rng):
    X, y = blobs(rng)
    K = X @ X.T
    kkm = KernelKMeans(n_clusters=3, kernel="precomputed", random_state=1).fit(K)
    assert accuracy(y, kkm.labels_) == 1.0
    np.testing.assert_allclose(kkm.inertia_, sq_error(X, kkm.labels_), rtol=1e-10)
    km = KMeans(n_clusters=3, n_init=10, random_state=0).fit(X)
    np.testing.assert_allclose(kkm.inertia_, km.inertia_, rtol=1e-8)


def test_objective_never_increases_with_more_iterations(rng):
    X, _ = blobs(rng, centres=((0, 0), (2.5, 0), (0, 2.5), (2.5, 2.5)))
    K = rbf_kernel(X, sigma=2.0)
    values = [KernelKMeans(4, "precomputed", n_init=1, max_iter=t, random_state=3).fit(K).inertia_ for t in range(1, 8)]
    assert np.all(np.diff(values) <= 1e-12)
    assert values[-1] < values[0]


def test_restarts_keep_the_lowest_objective(rng):
    X, _ = blobs(rng, n_per=15, centres=[(i, j) for i in (0, 3, 6) for j in (0, 3, 6)])
    K = rbf_kernel(X, sigma=1.5)
    gains = []
    for seed in range(6):
        single = KernelKMeans(9, "precomputed", n_init=1, random_state=seed).fit(K).inertia_
        best = KernelKMeans(9, "precomputed", n_init=8, random_state=seed).fit(K).inertia_
        assert best <= single + 1e-12  # restart 1 of 8 is the single run
        gains.append(single - best)
    assert max(gains) > 0  # and some other restart did better


def test_predict_assigns_training_points_to_their_clusters(rng):
    X, _ = rings(rng)
    kkm = KernelKMeans(2, "rbf", sigma=1.0, random_state=0).fit(X)
    np.testing.assert_array_equal(kkm.predict(X), kkm.labels_)
    np.testing.assert_array_equal(kkm.fit_predict(X), kkm.labels_)
    K = rbf_kernel(X, sigma=1.0)
    pre = KernelKMeans(2, "precomputed", random_state=0).fit(K)
    np.testing.assert_array_equal(pre.labels_, kkm.labels_)
    np.testing.assert_array_equal(pre.predict(K[:7]), kkm.labels_[:7])


def test_empty_clusters_are_reseeded():
    X = np.repeat(np.array([[0.0, 0.0], [5.0, 0.0], [0.0, 5.0]]), 3, axis=0)  # 3 distinct points, 9 rows
    kkm = KernelKMeans(5, "rbf", sigma=2.0, n_init=3, random_state=0).fit(X)
    assert np.unique(kkm.labels_).size == 5
    assert np.isfinite(kkm.inertia_)


def test_deterministic(rng):
    X, _ = blobs(rng)
    a = KernelKMeans(3, sigma=2.0, random_state=7).fit(X)
    b = KernelKMeans(3, sigma=2.0, random_state=7).fit(X)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert a.inertia_ == b.inertia_


@pytest.mark.parametrize(
    "params, data, match",
    [
        ({"kernel": "poly"}, "X", "unknown kernel"),
        ({"n_clusters": 0}, "X", "n_clusters"),
        ({"n_clusters": 50}, "X", "exceeds"),
        ({"n_init": 0}, "X", "n_init"),
        ({"sigma": 0.0}, "X", "sigma"),
        ({"kernel": "precomputed"}, "X", "symmetric n x n"),
        ({"kernel": "precomputed"}, "asym", "symmetric n x n"),
        ({}, "nan", "NaN"),
    ],
)
def test_bad_input(rng, params, data, match):
    X = rng.standard_normal((20, 3))
    with_nan = X.copy()
    with_nan[3, 1] = np.nan
    inputs = {"X": X, "asym": rng.standard_normal((20, 20)), "nan": with_nan}
    with pytest.raises(ValueError, match=match):
        KernelKMeans(**{"n_clusters": 2, **params}).fit(inputs[data])


def test_predict_checks_shapes(rng):
    X = rng.standard_normal((20, 3))
    kkm = KernelKMeans(2, random_state=0).fit(X)
    with pytest.raises(ValueError, match="features"):
        kkm.predict(X[:, :2])
    pre = KernelKMeans(2, "precomputed", random_state=0).fit(X @ X.T)
    with pytest.raises(ValueError, match="features"):
        pre.predict(X @ X[:5].T)


def test_scikit_learn_estimator_checks():
    run_check_estimator(KernelKMeans(n_init=2, random_state=0))
