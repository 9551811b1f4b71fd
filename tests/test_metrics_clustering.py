"""ACC (Hungarian), NMI and the K-means evaluation: hand-computed cases, invariances, bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal
from sklearn.cluster import KMeans

from ufskit.metrics import clustering as clustering_module
from ufskit.metrics import clustering_accuracy, kmeans_labels, kmeans_scores, nmi
from ufskit.metrics._common import as_sklearn_seed
from ufskit.metrics._sparse_kmeans import sparse_kmeans_labels


def blobs(rng, n_per=20, centres=((0, 0), (10, 0), (0, 10))):
    X = np.vstack([rng.normal(c, 0.5, size=(n_per, 2)) for c in centres])
    y = np.repeat(np.arange(len(centres)), n_per)
    return X, y


# ---------------------------------------------------------------- ACC


def test_acc_is_one_for_a_permuted_labelling():
    y = np.array([0, 0, 1, 1, 2, 2])
    assert clustering_accuracy(y, np.array([2, 2, 0, 0, 1, 1])) == 1.0


def test_acc_more_clusters_than_classes_leaves_extra_clusters_wrong():
    # cluster 0 <-> class 0 (2 hits), cluster 1 <-> class 1 (3 hits); cluster 2 maps to no class
    y_true = [0, 0, 0, 1, 1, 1]
    y_pred = [0, 0, 2, 1, 1, 1]
    assert clustering_accuracy(y_true, y_pred) == pytest.approx(5 / 6)


def test_acc_fewer_clusters_than_classes():
    # one cluster per class pair at best: 2 + 2 of 6
    assert clustering_accuracy([0, 0, 1, 1, 2, 2], [0, 0, 0, 0, 1, 1]) == pytest.approx(4 / 6)


def test_acc_beats_a_greedy_match():
    # contingency (class x cluster) [[3, 2], [3, 0]]: cluster 0 -> class 0 (3 hits) leaves cluster 1 -> class 1
    # (0 hits), 3 of 8; the optimum maps cluster 0 -> class 1 and cluster 1 -> class 0: 3 + 2 = 5 of 8
    y_true = [0, 0, 0, 1, 1, 1, 0, 0]
    y_pred = [0, 0, 0, 0, 0, 0, 1, 1]
    assert clustering_accuracy(y_true, y_pred) == pytest.approx(5 / 8)


def test_acc_accepts_string_labels():
    assert clustering_accuracy(["a", "a", "b"], ["x", "x", "y"]) == 1.0


# ---------------------------------------------------------------- NMI


def test_nmi_on_a_2x2_contingency_by_hand():
    # contingency (rows = true, cols = pred): [[2, 0], [1, 1]], n = 4
    y_true, y_pred = [0, 0, 1, 1], [0, 0, 0, 1]
    h_true = math.log(2)
    h_pred = -(0.75 * math.log(0.75) + 0.25 * math.log(0.25))
    mi = (
        0.5 * math.log(0.5 / (0.5 * 0.75)) + 0.25 * math.log(0.25 / (0.5 * 0.75)) + 0.25 * math.log(0.25 / (0.5 * 0.25))
    )
    assert nmi(y_true, y_pred) == pytest.approx(mi / math.sqrt(h_true * h_pred), abs=1e-12)
    assert nmi(y_true, y_pred, average_method="max") == pytest.approx(mi / max(h_true, h_pred), abs=1e-12)
    assert nmi(y_true, y_pred, average_method="arithmetic") == pytest.approx(mi / ((h_true + h_pred) / 2), abs=1e-12)
    assert nmi(y_true, y_pred, average_method="geometric") == nmi(y_true, y_pred)


def test_nmi_is_one_for_a_relabelling_and_symmetric():
    a = [0, 0, 1, 1, 2, 2, 2]
    b = [5, 5, 3, 3, 4, 4, 4]
    assert nmi(a, b) == pytest.approx(1.0)
    c = [0, 1, 1, 1, 2, 0, 2]
    assert nmi(a, c) == pytest.approx(nmi(c, a))


def test_nmi_rejects_unknown_normalisation():
    with pytest.raises(ValueError, match="average_method"):
        nmi([0, 1], [0, 1], average_method="mean")


@pytest.mark.parametrize("fn", [clustering_accuracy, nmi])
def test_label_metrics_reject_bad_shapes(fn):
    with pytest.raises(ValueError, match="labels"):
        fn([0, 1, 1], [0, 1])
    with pytest.raises(ValueError, match="1-D"):
        fn([[0, 1]], [[0, 1]])
    with pytest.raises(ValueError, match="NaN"):
        fn([0.0, np.nan], [0, 1])


# ---------------------------------------------------------------- K-means


def test_kmeans_recovers_well_separated_blobs(rng):
    X, y = blobs(rng)
    labels = kmeans_labels(X, 3, random_state=0)
    assert clustering_accuracy(y, labels) == 1.0
    assert nmi(y, labels) == pytest.approx(1.0)


def test_kmeans_random_starts_differ_from_kmeans_plus_plus_and_are_checked(rng):
    X, y = blobs(rng, centres=((0, 0), (6, 0), (0, 6), (6, 6)))
    y = np.asarray(y)
    plus = kmeans_scores(X, y, 4, n_runs=20, n_init=1, random_state=0)
    rand = kmeans_scores(X, y, 4, n_runs=20, n_init=1, init="random", random_state=0)
    assert plus != rand  # another seeding, same seeds
    assert 0 < rand["acc_mean"] <= 1
    with pytest.raises(ValueError, match="init must be one of"):
        kmeans_scores(X, y, 4, init="forgy", random_state=0)


def test_kmeans_keeps_the_lowest_wcss_start(rng):
    # 4 blobs, 1 start can land in a local minimum; the best of 20 starts must be at least as good
    X, _ = blobs(rng, centres=((0, 0), (6, 0), (0, 6), (6, 6)))

    def wcss(labels):
        return sum(((X[labels == c] - X[labels == c].mean(0)) ** 2).sum() for c in np.unique(labels))

    singles = [wcss(kmeans_labels(X, 4, n_init=1, random_state=s)) for s in range(20)]
    best = wcss(kmeans_labels(X, 4, n_init=20, random_state=0))
    assert best <= min(singles) + 1e-9


def test_kmeans_on_mostly_zero_data_runs_sparse_and_matches_dense_kmeans(rng, monkeypatch):
    # a text-like matrix: 3 topics, each using its own 30 of 300 words, ~5 % non-zero
    y = np.repeat(np.arange(3), 40)
    X = np.zeros((120, 300))
    for topic in range(3):
        rows = np.flatnonzero(y == topic)
        words = rng.choice(np.arange(topic * 30, topic * 30 + 30), size=(rows.size, 15))
        X[rows[:, None], words] = rng.random((rows.size, 15)) + 0.1
    assert np.count_nonzero(X) <= 0.2 * X.size
    seen = []
    real_fit_predict, real_sparse = KMeans.fit_predict, clustering_module.sparse_kmeans_labels
    monkeypatch.setattr(KMeans, "fit_predict", lambda self, A: seen.append("dense") or real_fit_predict(self, A))
    monkeypatch.setattr(clustering_module, "sparse_kmeans_labels", lambda A, *a, **k: seen.append("sparse") or real_sparse(A, *a, **k))
    labels = kmeans_labels(X, 3, n_init=5, max_iter=50, random_state=4)
    dense = KMeans(3, n_init=5, max_iter=50, random_state=as_sklearn_seed(4)).fit_predict(X)
    assert seen == ["sparse", "dense"]  # the evaluation went sparse, the direct call dense
    assert np.array_equal(labels, dense) and clustering_accuracy(y, labels) == 1.0
    kmeans_labels(np.c_[X, rng.random((120, 300))], 3, n_init=2, random_state=4)  # ~52 % non-zero
    assert seen[-1] == "dense"
    monkeypatch.setattr(clustering_module, "GRAM_SAMPLES", 100)  # more rows than a Gram matrix is kept for
    assert np.array_equal(kmeans_labels(X, 3, n_init=5, max_iter=50, random_state=4), labels) and seen[-1] == "dense"


def text_like(rng, n=150, d=400):
    """Mostly-zero rows as on the NRFS text sets: two words in nearly every row, rare words, 10 all-zero rows
    and 10 repeated rows (equal distances, so ties in the seeding and in Lloyd's assignments)."""
    X = rng.random((n, d)) * (rng.random((n, d)) < 0.02)
    X[:, :2] = (rng.random((n, 2)) + 0.1) * (rng.random((n, 2)) < 0.95)
    X[:10] = 0.0
    X[10:20] = X[20]
    return sp.csr_matrix(X)


@pytest.mark.parametrize("n_clusters, n_init, max_iter", [(2, 3, 100), (4, 10, 100), (5, 4, 2), (7, 2, 300)])
def test_sparse_kmeans_gives_scikit_learns_labels(rng, n_clusters, n_init, max_iter):
    """Gram-matrix seeding + scikit-learn's Lloyd = KMeans on the same CSR matrix, label for label, per seed."""
    X = text_like(rng)
    for seed in range(6):
        expected = KMeans(n_clusters, n_init=n_init, max_iter=max_iter, random_state=seed).fit_predict(X)
        got = sparse_kmeans_labels(X, n_clusters, n_init=n_init, max_iter=max_iter, tol=1e-4, random_state=seed)
        assert_array_equal(got, expected)
    unsorted = X.copy()  # column indices stored out of order give the same labels (they are sorted first)
    unsorted.indices, unsorted.data = unsorted.indices.copy(), unsorted.data.copy()
    for a, b in zip(unsorted.indptr[:-1], unsorted.indptr[1:]):
        unsorted.indices[a:b], unsorted.data[a:b] = unsorted.indices[a:b][::-1], unsorted.data[a:b][::-1]
    unsorted.has_sorted_indices = False
    assert_array_equal(sparse_kmeans_labels(unsorted, 3, n_init=3, max_iter=100, tol=1e-4, random_state=1),
                       KMeans(3, n_init=3, max_iter=100, random_state=1).fit_predict(X))


def test_kmeans_scores_on_blobs_and_determinism(rng):
    X, y = blobs(rng)
    out = kmeans_scores(X, y, 3, n_runs=4, n_init=2, random_state=7)
    assert set(out) == {"acc_mean", "acc_std", "nmi_mean", "nmi_std"}
    assert out["acc_mean"] == 1.0 and out["acc_std"] == 0.0
    assert out["nmi_mean"] == pytest.approx(1.0)
    again = kmeans_scores(X, y, 3, n_runs=4, n_init=2, random_state=7)
    assert again == out
    gen = kmeans_scores(X, y, 3, n_runs=4, n_init=2, random_state=np.random.default_rng(3))
    assert gen == kmeans_scores(X, y, 3, n_runs=4, n_init=2, random_state=np.random.default_rng(3))


def test_kmeans_scores_averages_runs_with_distinct_seeds(rng):
    # overlapping clusters with a single start: runs disagree, so the std is positive
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] > 0).astype(int)
    out = kmeans_scores(X, y, 4, n_runs=6, n_init=1, random_state=0)
    assert out["acc_std"] > 0
    assert 0 < out["acc_mean"] < 1


def test_kmeans_rejects_bad_input(rng):
    X, y = blobs(rng, n_per=3)
    with pytest.raises(ValueError, match="n_clusters"):
        kmeans_labels(X, X.shape[0] + 1, random_state=0)
    with pytest.raises(ValueError, match="n_clusters"):
        kmeans_labels(X, 0, random_state=0)
    with pytest.raises(ValueError, match="NaN"):
        kmeans_labels(np.where(X > 5, np.nan, X), 2, random_state=0)
    with pytest.raises(ValueError, match="labels"):
        kmeans_scores(X, y[:-1], 3, random_state=0)
    with pytest.raises(ValueError, match="average_method"):
        kmeans_scores(X, y, 3, nmi_average="avg", random_state=0)
    with pytest.raises(ValueError, match="n_runs"):
        kmeans_scores(X, y, 3, n_runs=0, random_state=0)
    with pytest.raises(TypeError, match="random_state"):
        kmeans_labels(X, 2, random_state="seed")


def test_a_single_class_reference_is_refused_not_scored_perfect():
    """One class in y: every clustering used to score ACC = NMI = 1 (issue 39); now a clear error."""
    X = np.random.default_rng(0).standard_normal((12, 3))
    y = np.zeros(12, dtype=int)
    one_cluster = np.zeros(12, dtype=int)
    for score in (clustering_accuracy, nmi):
        with pytest.raises(ValueError, match="y_true has a single class"):
            score(y, one_cluster)
    with pytest.raises(ValueError, match="single class"):
        kmeans_scores(X, y, 1, n_runs=1, random_state=0)
