"""The NRFS Fig. 1 synthetic data: sizes, noisy instances, which features carry the clusters."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import kurtosis
from sklearn.cluster import KMeans
from sklearn.metrics import normalized_mutual_info_score

from ufskit.synthetic import FIGURE_READING, cluster_centres, nrfs_synthetic


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


# ---- the generator's readings of what Fig. 1 leaves open (issue 22) ----------------------------------


def test_defaults_are_the_figure_reading():
    np.testing.assert_array_equal(nrfs_synthetic(n_per_cluster=20, random_state=5).X,
                                  nrfs_synthetic(n_per_cluster=20, random_state=5, **FIGURE_READING).X)
    assert FIGURE_READING == {"noise_scale": 150.0, "noise_distribution": "uniform", "cluster_spread": 1.0,
                              "cluster_separation": 1.0}


def test_noise_scale_and_distribution_shape_only_the_noise_features():
    kw = {"n_per_cluster": 500, "n_noise": 0, "n_features": 14, "random_state": 2}
    uniform = nrfs_synthetic(noise_scale=600.0, **kw)
    gauss = nrfs_synthetic(noise_scale=600.0, noise_distribution="gaussian", **kw)
    # the informative planes are drawn first from the same stream: identical whatever the noise
    np.testing.assert_array_equal(uniform.X[:, :4], nrfs_synthetic(**kw).X[:, :4])
    np.testing.assert_array_equal(gauss.X[:, :4], uniform.X[:, :4])
    u = uniform.X[:, 4:]
    assert u.min() >= 0 and u.max() <= 600 and u.min() < 1 and u.max() > 599
    assert u.std() == pytest.approx(600 / np.sqrt(12), rel=0.02)
    g = gauss.X[:, 4:]
    assert g.mean() == pytest.approx(300, abs=2) and g.std() == pytest.approx(100, rel=0.02)
    assert np.abs(kurtosis(g.ravel())) < 0.1
    assert uniform.info["noise_scale"] == 600.0 and gauss.info["noise_distribution"] == "gaussian"


def test_cluster_spread_scales_sds_and_rectangles_around_the_same_centres():
    ds = nrfs_synthetic(n_per_cluster=4000, n_noise=0, n_features=4, cluster_spread=2.0, random_state=4)
    red, green = ds.X[ds.y == 0], ds.X[ds.y == 2]
    np.testing.assert_allclose(red[:, :2].std(axis=0), [30, 30], rtol=0.05)  # Gaussian sd 15 -> 30
    np.testing.assert_allclose(red[:, :2].mean(axis=0), [100, 150], atol=2)
    # green's (f1, f2) rectangle [50, 150] x [20, 80] -> [0, 200] x [-10, 110]
    np.testing.assert_allclose(green[:, :2].min(axis=0), [0, -10], atol=0.5)
    np.testing.assert_allclose(green[:, :2].max(axis=0), [200, 110], atol=0.5)


def test_cluster_separation_moves_centres_towards_the_middle_of_the_axes():
    # middles: (200, 100) in (f1, f2), (100, 100) in (f3, f4); red: Gaussian (100, 150), rectangle centre (50, 150)
    np.testing.assert_allclose(cluster_centres(0.5)[0], [150, 125, 75, 125])
    np.testing.assert_allclose(cluster_centres(1.0), cluster_centres())
    ds = nrfs_synthetic(n_per_cluster=4000, n_noise=0, n_features=4, cluster_separation=0.5, random_state=4)
    np.testing.assert_allclose(ds.X[ds.y == 1].mean(axis=0), cluster_centres(0.5)[1], atol=2)


@pytest.mark.parametrize("kwargs, name", [
    ({"noise_scale": 0}, "noise_scale"), ({"noise_scale": "big"}, "noise_scale"),
    ({"noise_distribution": "laplace"}, "noise_distribution"), ({"cluster_spread": -1.0}, "cluster_spread"),
    ({"cluster_separation": 2.0}, "cluster_separation"), ({"cluster_separation": 0}, "cluster_separation"),
])
def test_bad_generator_options_name_the_parameter(kwargs, name):
    with pytest.raises(ValueError, match=name):
        nrfs_synthetic(n_per_cluster=5, **kwargs)
