"""MCFS: the spectral embedding, the LARS-lasso cardinality rule, the max-|a| score, scikit-feature."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
from numpy.testing import assert_allclose, assert_array_equal
from selector_checks import (
    assert_deterministic,
    assert_finds_planted,
    assert_permutation_equivariant,
    fit_peak_bytes,
    load_mat_zscored,
    make_planted,
    run_check_estimator,
)
from sklearn.linear_model import Lasso

from ufskit import spectral
from ufskit.graph import knn_graph
from ufskit.lasso_path import lasso_lars_at_cardinality
from ufskit.selectors import make_selector
from ufskit.selectors.mcfs import MCFS, spectral_embedding
from ufskit.selectors.ties import tie_keys


def test_embedding_solves_the_generalised_eigenproblem(rng):
    X = rng.standard_normal((40, 5))
    W = knn_graph(X, n_neighbors=5).toarray()
    D = np.diag(W.sum(axis=1))
    Y = spectral_embedding(W, 4)
    lam_all = scipy.linalg.eigh(D - W, D, eigvals_only=True)
    lam = np.einsum("ij,ij->j", Y, (D - W) @ Y)  # Rayleigh quotients, since y'Dy = 1
    assert_allclose(Y.T @ D @ Y, np.eye(4), atol=1e-10)
    assert_allclose((D - W) @ Y, D @ Y * lam, atol=1e-10)
    assert_allclose(lam, lam_all[1:5], atol=1e-10)  # the 4 smallest after the trivial 0
    assert_allclose(Y.T @ D @ np.ones(40), 0.0, atol=1e-10)


def test_embedding_of_a_disconnected_graph_keeps_the_component_indicator(rng):
    X = np.r_[rng.standard_normal((15, 3)), 100.0 + rng.standard_normal((15, 3))]
    W = knn_graph(X, n_neighbors=3).toarray()
    D = np.diag(W.sum(axis=1))
    y = spectral_embedding(W, 2)[:, 0]
    assert_allclose((D - W) @ y, 0.0, atol=1e-10)  # eigenvalue 0, but not the trivial vector:
    assert_allclose(y @ D @ np.ones(30), 0.0, atol=1e-10)
    assert np.ptp(y[:15]) < 1e-8 and np.ptp(y[15:]) < 1e-8 and y[0] * y[-1] < 0


def test_large_sparse_graphs_take_the_arpack_route_to_the_same_embedding(rng, monkeypatch):
    X = rng.standard_normal((60, 4))
    W = knn_graph(X, n_neighbors=6)
    dense = spectral_embedding(W, 3)
    monkeypatch.setattr(spectral, "DENSE_EIGEN_MAX_SAMPLES", 10)
    assert_allclose(spectral_embedding(W, 3), dense, atol=1e-8)


def assert_lasso_kkt(X, y, a):
    """a solves min ||y - Xa||^2 / 2 + lam ||a||_1 for lam = max |X'(y - Xa)|: the KKT conditions."""
    c = X.T @ (y - X @ a)
    lam = np.abs(c).max()
    on = a != 0
    assert_allclose(c[on], lam * np.sign(a[on]), rtol=1e-7)
    assert np.all(np.abs(c[~on]) <= lam * (1 + 1e-7))


@pytest.mark.parametrize("shape", [(30, 200), (200, 30)])  # d >> n (n x d form), d < n (Gram form)
def test_lasso_lars_stops_at_the_cardinality(rng, shape):
    X = rng.standard_normal(shape)
    y = X[:, :3] @ np.array([3.0, -2.0, 1.0]) + 0.5 * rng.standard_normal(shape[0])
    Gram = X.T @ X if shape[0] > shape[1] else None
    for m in (1, 5, 12):
        a = lasso_lars_at_cardinality(X, y, m, Gram)
        assert np.count_nonzero(a) == m
        assert_lasso_kkt(X, y, a)
    assert np.count_nonzero(a[:3]) == 3  # the true support enters first


def test_lasso_lars_returns_the_path_end_when_the_cardinality_is_out_of_reach(rng):
    X = rng.standard_normal((20, 300))
    y = rng.standard_normal(20)
    a = lasso_lars_at_cardinality(X, y, 250, None)
    assert np.count_nonzero(a) <= 20
    assert_allclose(X @ a, y, atol=1e-6)  # at the end of the path the fit is exact (d >> n)


def test_scores_are_the_max_absolute_coefficient():
    X = make_planted().X
    est = MCFS(n_clusters=3, max_nonzero=6).fit(X)
    assert est.coef_.shape == (X.shape[1], 3)
    assert_array_equal(np.count_nonzero(est.coef_, axis=0), [6, 6, 6])
    assert_array_equal(est.scores_, np.abs(est.coef_).max(axis=1))
    assert np.any(est.coef_ < 0)  # a signed max would rank these features last


def test_zero_coefficient_features_rank_last_by_the_tie_break():
    X = make_planted().X
    est = MCFS(n_clusters=2, max_nonzero=3).fit(X)
    zero = np.flatnonzero(est.scores_ == 0)
    nonzero = np.flatnonzero(est.scores_ > 0)
    assert 3 <= nonzero.size <= 6 and zero.size == X.shape[1] - nonzero.size
    assert est.n_ranked_ == nonzero.size
    assert_array_equal(np.sort(est.ranking_[zero]), np.arange(nonzero.size + 1, X.shape[1] + 1))
    assert_array_equal(est.order_[nonzero.size :], zero[np.argsort(tie_keys(X.shape[1])[zero])])


def test_default_cardinality_is_the_whole_path_and_independent_of_the_count():
    X = make_planted().X
    d = X.shape[1]
    full = MCFS().fit(X)
    assert full.max_nonzero_ == d
    for h in (1, 7, d // 2):
        at_h = MCFS(n_features_to_select=h).fit(X)
        assert at_h.max_nonzero_ == d
        assert_array_equal(at_h.get_support(), full.ranking_ <= h)
    assert MCFS(max_nonzero=0.25).fit(X).max_nonzero_ == round(0.25 * d)
    est = MCFS(n_features_to_select=7, max_nonzero=3).fit(X)
    assert est.max_nonzero_ == 3 and np.count_nonzero(est.coef_, axis=0).max() == 3


def test_papers_selection_is_not_nested():
    # the paper's rule, cardinality M for M features: a smaller selection need not be inside a larger one
    X = make_planted(n_noise=60, random_state=3).X
    sets = {m: set(MCFS(n_clusters=5, max_nonzero=m).fit(X).order_[:m]) for m in range(2, 16)}
    assert any(not sets[m] <= sets[m + 1] for m in range(2, 15))


def test_tiny_scale_gives_the_same_ranking():
    X = make_planted(random_state=1).X
    a, b = MCFS().fit(X), MCFS().fit(X * 2.0**-160)
    assert_array_equal(b.ranking_, a.ranking_)
    assert_allclose(b.scores_ * 2.0**-160, a.scores_, rtol=1e-12)


def test_finds_planted_multi_cluster_features():
    # three clusters, each marked by two features: the 2 non-trivial eigenvectors need all six
    data = make_planted(n_informative=6, n_clusters=3, n_noise=30, separation=6.0, pattern="onehot")
    assert_finds_planted(MCFS(n_clusters=2, n_features_to_select=6), data)
    assert_finds_planted(MCFS(n_clusters=2, max_nonzero=12), data)


def test_permutation_and_determinism():
    X = make_planted().X
    assert_permutation_equivariant(MCFS(n_clusters=3, max_nonzero=8), X)
    assert_deterministic(MCFS(n_clusters=3, max_nonzero=8), X)


def test_global_scaling_divides_scores():
    X = make_planted().X
    a = MCFS(n_clusters=3, max_nonzero=8).fit(X)
    b = MCFS(n_clusters=3, max_nonzero=8).fit(5.0 * X)
    assert_allclose(b.scores_, a.scores_ / 5.0, rtol=1e-7, atol=1e-12)
    assert_array_equal(b.ranking_, a.ranking_)


def test_high_dimensional_input_forms_no_d_by_d_matrix():
    # the default cardinality is d / 2 = 3000, far beyond the ~n non-zeros a path can reach:
    # LARS must not reserve a path of that length (3000 x 6000 floats = 144 MB)
    X = np.random.default_rng(1).standard_normal((40, 6000))
    assert fit_peak_bytes(MCFS(), X) < 20 * X.nbytes  # 38 MB; d x d float64 alone: 288 MB


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"n_clusters": 0}, "n_clusters"),
        ({"n_clusters": 12}, "n_clusters=12 .* n_samples - 1 = 11"),
        ({"n_neighbors": 1.5}, "n_neighbors"),
        ({"max_nonzero": 0}, "max_nonzero"),
        ({"max_nonzero": 4}, "max_nonzero"),
        ({"n_features_to_select": 5}, "n_features_to_select"),
        ({"weight": "rbf"}, "'weight' parameter of MCFS must be a str among"),
    ],
)
def test_bad_input(params, match):
    X = np.random.default_rng(0).standard_normal((12, 3))
    with pytest.raises(ValueError, match=match):
        MCFS(**params).fit(X)


def test_sklearn_compatible():
    run_check_estimator(MCFS())


def test_registered():
    est = make_selector("MCFS", n_clusters=10, max_nonzero=50)
    assert isinstance(est, MCFS) and (est.n_clusters, est.max_nonzero) == (10, 50)


def test_agrees_with_scikit_feature_on_lymphoma(mirror):
    from skfeature.function.sparse_learning_based.MCFS import mcfs

    X = load_mat_zscored(mirror / "microarray" / "lymphoma.mat")
    W = knn_graph(X, n_neighbors=5)  # passed to both (its construct_W adds self-loops)
    # scikit-feature fits plain LAR (sklearn Lars) for n_selected_features *iterations*; the paper's
    # LARS-lasso stopped at that many non-zeros is the same computation until the lasso first drops
    # a variable or two variables enter together, which on lymphoma happens after 12 steps
    for m in (5, 12):
        est = MCFS(n_clusters=5, max_nonzero=m).fit(X)
        raw = mcfs(X, n_selected_features=m, W=W, n_clusters=5, mode="raw")
        assert_allclose(est.scores_, np.abs(raw).max(axis=1), atol=1e-10)  # |.|: its signed max is a bug
        assert_array_equal(est.order_[:m], np.argsort(-np.abs(raw).max(axis=1), kind="stable")[:m])


def test_lymphoma_coefficients_are_the_lasso_solution_where_scikit_feature_diverges(mirror):
    # at m = 50 scikit-feature's LAR has left the lasso path; ours must still be the lasso minimiser,
    # checked against coordinate descent at the penalty of the knot where LARS stopped
    X = load_mat_zscored(mirror / "microarray" / "lymphoma.mat")
    est = MCFS(n_clusters=2, max_nonzero=50).fit(X)
    Y = spectral_embedding(knn_graph(X, n_neighbors=5), 2)
    for y, a in zip(Y.T, est.coef_.T, strict=True):
        lam = np.abs(X.T @ (y - X @ a)).max()
        cd = Lasso(alpha=lam / X.shape[0], fit_intercept=False, tol=1e-12, max_iter=100_000).fit(X, y).coef_
        assert np.count_nonzero(a) == 50
        assert_allclose(cd, a, atol=1e-9)


def test_a_list_of_cardinalities_equals_one_fit_per_cardinality():
    X = make_planted().X
    est = MCFS(n_clusters=3, max_nonzero=[2, 6, 4]).fit(X)
    assert est.max_nonzero_ == 6 and sorted(est.coef_by_cardinality_) == [2, 4, 6]
    subsets = est.subsets([2, 4, 6])
    for m in (2, 4, 6):
        single = MCFS(n_clusters=3, max_nonzero=m).fit(X)
        assert_allclose(est.coef_by_cardinality_[m], single.coef_, atol=1e-12)
        assert_array_equal(subsets[m], single.order_[:m])
    assert_array_equal(est.order_, MCFS(n_clusters=3, max_nonzero=6).fit(X).order_)


def test_subsets_of_one_cardinality_are_prefixes_of_the_ranking():
    est = MCFS(n_clusters=3, max_nonzero=5).fit(make_planted().X)
    for c, subset in est.subsets([1, 3, 7]).items():
        assert_array_equal(subset, est.order_[:c])
