"""The NRFS Fig. 1 synthetic data: sizes, noisy instances, which features carry the clusters."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import kurtosis
from sklearn.cluster import KMeans
from sklearn.metrics import normalized_mutual_info_score

from ufskit.synthetic import cluster_centres, nrfs_synthetic


@pytest.fixture(scope="module")
def paper_data():
    return nrfs_synthetic()


def _kmeans_nmi(X, y):
    labels = KMeans(n_clusters=4, n_init=5, random_state=0).fit_predict(X)
    return normalized_mutual_info_score(y, labels)


def test_paper_sizes(paper_data):
    ds = paper_data
    assert ds.X.shape == (1280, 34)
    assert ds.info["noise_indices"] == list(range(1200, 1280))
    assert ds.info["informative_features"] == [0, 1, 2, 3]
    assert np.bincount(ds.y[:1200]).tolist() == [300, 300, 300, 300]
    assert set(np.unique(ds.y)) == {0, 1, 2, 3}
    assert ds.feature_names[0] == "f1" and ds.feature_names[-1] == "f34"


def test_custom_sizes():
    ds = nrfs_synthetic(n_per_cluster=10, n_noise=5, n_features=6, random_state=1)
    assert ds.X.shape == (45, 6)
    assert ds.info["noise_indices"] == [40, 41, 42, 43, 44]
    assert nrfs_synthetic(n_per_cluster=3, n_noise=0, n_features=4).X.shape == (12, 4)


def test_same_seed_same_data_and_generator_accepted():
    a, b = nrfs_synthetic(n_per_cluster=20, random_state=7), nrfs_synthetic(n_per_cluster=20, random_state=7)
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    assert not np.array_equal(a.X, nrfs_synthetic(n_per_cluster=20, random_state=8).X)
    g = nrfs_synthetic(n_per_cluster=20, random_state=np.random.default_rng(7))
    np.testing.assert_array_equal(g.X, a.X)


def test_informative_features_separate_the_clusters_noise_features_do_not(paper_data):
    ds = paper_data
    normal = np.setdiff1d(np.arange(ds.X.shape[0]), ds.info["noise_indices"])
    assert _kmeans_nmi(ds.X[normal][:, :4], ds.y[normal]) > 0.99
    assert _kmeans_nmi(ds.X[normal][:, 4:], ds.y[normal]) < 0.02


def test_noisy_instances_labelled_by_nearest_centre_and_spread_out(paper_data):
    ds = paper_data
    noise = np.asarray(ds.info["noise_indices"])
    d2 = ((ds.X[noise, None, :4] - cluster_centres()[None]) ** 2).sum(axis=2)
    np.testing.assert_array_equal(ds.y[noise], d2.argmin(axis=1))
    # uniform over the plotted ranges of f1..f4 (0-400, 0-200, 0-200, 0-200)
    lo, hi = ds.X[noise, :4].min(axis=0), ds.X[noise, :4].max(axis=0)
    assert np.all(lo >= 0) and np.all(hi <= [400, 200, 200, 200]) and np.all(hi - lo > [300, 150, 150, 150])


def test_gaussian_and_uniform_planes_as_in_fig1():
    """Red/blue: Gaussian in (f1, f2), uniform in (f3, f4); green/yellow the reverse (excess kurtosis 0 vs -1.2)."""
    ds = nrfs_synthetic(n_per_cluster=2000, n_noise=0, random_state=3)
    for cluster, gaussian_plane in [(0, 0), (1, 0), (2, 1), (3, 1)]:
        rows = ds.y == cluster
        for plane in (0, 1):
            k = kurtosis(ds.X[rows][:, 2 * plane: 2 * plane + 2], axis=0)
            if plane == gaussian_plane:
                assert np.all(np.abs(k) < 0.3), (cluster, plane, k)
            else:
                assert np.all(np.abs(k + 1.2) < 0.15), (cluster, plane, k)
    noise_features = ds.X[:, 4:]
    assert noise_features.min() >= 0 and noise_features.max() <= 150


@pytest.mark.parametrize(
    "kwargs", [{"n_features": 3}, {"n_per_cluster": 0}, {"n_noise": -1}, {"n_per_cluster": 2.5}]
)
def test_bad_sizes(kwargs):
    with pytest.raises(ValueError):
        nrfs_synthetic(**kwargs)
