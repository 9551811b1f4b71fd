"""K-means in the rows' span (d > n): the same labels as scikit-learn's KMeans on the data itself."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.cluster import KMeans

from ufskit.metrics import kmeans_scores
from ufskit.metrics._common import spawn_seeds
from ufskit.metrics.clustering import (
    _kmeans_input,
    clustering_accuracy,
    kmeans_labels,
    nmi,
)


def planted(rng, n=60, d=400, c=4, noise=3.0):
    """c Gaussian clusters in d dimensions, overlapping enough that starts disagree."""
    y = np.repeat(np.arange(c), n // c)
    centres = rng.standard_normal((c, d))
    return centres[y] + noise * rng.standard_normal((y.size, d)), y


def test_span_basis_keeps_distances_and_has_n_columns(rng):
    X, _ = planted(rng)
    Xk, factor = _kmeans_input(X)
    assert Xk.shape == (60, 60) and factor == 60 / 400
    D = ((X[:, None] - X[None]) ** 2).sum(-1)
    Dk = ((Xk[:, None] - Xk[None]) ** 2).sum(-1)
    np.testing.assert_allclose(Dk, D, rtol=1e-12)
    np.testing.assert_allclose(Xk.var(axis=0).sum(), X.var(axis=0).sum(), rtol=1e-12)


@pytest.mark.parametrize("n_init, max_iter", [(1, 300), (10, 100), (100, 5)])
def test_labels_equal_kmeans_on_the_data(rng, n_init, max_iter):
    X, _ = planted(rng)
    for seed in range(12):
        ref = KMeans(n_clusters=4, n_init=n_init, max_iter=max_iter, random_state=seed).fit_predict(X)
        assert_array_equal(kmeans_labels(X, 4, n_init=n_init, max_iter=max_iter, random_state=seed), ref)


def test_scores_equal_the_previous_computation(rng):
    X, y = planted(rng, n=48, d=900, c=3, noise=4.0)
    acc, nm = [], []
    for s in spawn_seeds(7, 6):
        labels = KMeans(n_clusters=3, n_init=20, max_iter=100, random_state=s).fit_predict(X)
        acc.append(clustering_accuracy(y, labels))
        nm.append(nmi(y, labels))
    got = kmeans_scores(X, y, 3, n_runs=6, n_init=20, max_iter=100, random_state=7)
    assert got == {"acc_mean": np.mean(acc), "acc_std": np.std(acc), "nmi_mean": np.mean(nm), "nmi_std": np.std(nm)}
    assert 0 < got["acc_std"] or 0 < got["nmi_std"] or got["acc_mean"] < 1  # not a trivially separable case


def test_tall_and_sparse_data_are_not_rotated(rng):
    X, _ = planted(rng, n=80, d=20)
    assert _kmeans_input(X)[0] is X
    S = np.where(rng.random((30, 100)) < 0.05, 1.0, 0.0)
    assert _kmeans_input(S)[0].format == "csr"
