"""Laplacian Score: hand-computed values, the paper's formula, invariances, bad input, scikit-feature."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from scipy.stats import spearmanr
from selector_checks import (
    assert_deterministic,
    assert_finds_planted,
    assert_permutation_equivariant,
    fit_peak_bytes,
    load_mat_zscored,
    make_planted,
    run_check_estimator,
)

from ufskit.graph import knn_graph, knn_indices, mean_distance, pairwise_sq_dists
from ufskit.selectors import make_selector
from ufskit.selectors.laplacian import LaplacianScore, laplacian_score


def paper_formula(X, W):
    """He et al.'s definition, one feature at a time with dense matrices (the test oracle)."""
    W = W.toarray() if sp.issparse(W) else W
    D = np.diag(W.sum(axis=1))
    L = D - W
    one = np.ones(len(W))
    out = []
    for f in X.T:
        ft = f - (f @ D @ one) / (one @ D @ one) * one
        out.append(ft @ L @ ft / (ft @ D @ ft))
    return np.array(out)


def test_hand_computed_path_graph():
    # path 0 - 1 - 2 with unit weights: d = (1, 2, 1), vol = 4
    W = sp.csr_matrix(np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=float))
    X = np.array([[0, 0, 1], [1, 0, 0], [2, 1, 1]], dtype=float)
    # f=(0,1,2): f~=(-1,0,1), 2/2; f=(0,0,1): f~=(-1,-1,3)/4, 1/(3/4); f=(1,0,1): f~=(1,-1,1)/2, 2/1
    assert_allclose(laplacian_score(X, W), [1.0, 4.0 / 3.0, 2.0])


def test_matches_paper_formula(rng):
    X = rng.standard_normal((25, 8))
    W = knn_graph(X, n_neighbors=4)
    assert_allclose(laplacian_score(X, W), paper_formula(X, W), rtol=1e-12)
    est = LaplacianScore(n_neighbors=4).fit(X)
    assert_allclose(est.laplacian_scores_, paper_formula(X, W), rtol=1e-12)
    assert_array_equal(est.scores_, -est.laplacian_scores_)


@pytest.mark.parametrize("pattern", ["permuted", "onehot"])
def test_finds_planted_features(pattern):
    data = make_planted(n_informative=6, n_clusters=3, n_noise=30, separation=6.0, pattern=pattern)
    est = assert_finds_planted(LaplacianScore(), data)
    # smaller L_r is better: the planted features have the smallest native scores
    assert est.laplacian_scores_[data.informative].max() < np.delete(est.laplacian_scores_, data.informative).min()


def test_permutation_and_determinism():
    X = make_planted().X
    assert_permutation_equivariant(LaplacianScore(), X)
    assert_deterministic(LaplacianScore(), X)


def test_affine_invariance_for_a_fixed_graph(rng):
    X = rng.standard_normal((30, 6))
    W = knn_graph(X, n_neighbors=5)
    Y = X * np.array([1.0, 1e-3, 7.0, -2.0, 1.0, 1e4]) + np.array([0.0, 5.0, -3.0, 1.0, 100.0, 0.0])
    assert_allclose(laplacian_score(Y, W), laplacian_score(X, W), rtol=1e-9)


def test_global_scaling_leaves_scores_unchanged():
    # the kNN graph and sigma = mean distance both follow a global rescaling
    X = make_planted().X
    a = LaplacianScore().fit(X)
    b = LaplacianScore().fit(3.5 * X + 2.0)
    assert_allclose(b.scores_, a.scores_, rtol=1e-9)
    assert_array_equal(b.ranking_, a.ranking_)


def test_graph_options_change_the_graph():
    X = make_planted().X
    heat = LaplacianScore().fit(X).scores_
    binary = LaplacianScore(weight="binary").fit(X).scores_
    assert not np.allclose(heat, binary)
    W = knn_graph(X, n_neighbors=8, weight="binary")
    assert_allclose(LaplacianScore(n_neighbors=8, weight="binary").fit(X).laplacian_scores_, laplacian_score(X, W))


def test_high_dimensional_input_forms_no_d_by_d_matrix():
    X = np.random.default_rng(1).standard_normal((40, 6000))
    peak = fit_peak_bytes(LaplacianScore(), X)
    assert peak < 20 * X.nbytes < 6000**2 * 8  # a d x d float matrix alone would be 288 MB


@pytest.mark.parametrize(
    ("params", "X", "match"),
    [
        ({}, np.ones((10, 2)), "no varying feature"),
        ({}, np.array([[0.0, np.nan]] * 10), "NaN"),
        ({"n_neighbors": 10}, np.random.default_rng(0).standard_normal((10, 3)), "n_neighbors"),
        ({"n_neighbors": 2.5}, np.random.default_rng(0).standard_normal((10, 3)), "n_neighbors"),
        ({"n_neighbors": 0}, np.random.default_rng(0).standard_normal((10, 3)), "n_neighbors"),
        ({"weight": "gauss"}, np.random.default_rng(0).standard_normal((10, 3)), "'weight' parameter of LaplacianScore must be a str among"),
        ({"sigma": -1.0}, np.random.default_rng(0).standard_normal((10, 3)), "'sigma' parameter of LaplacianScore must be None or a float"),
    ],
)
def test_bad_input(params, X, match):
    with pytest.raises(ValueError, match=match):
        LaplacianScore(**params).fit(X)


def test_one_dimensional_input_is_rejected():
    with pytest.raises(ValueError):
        LaplacianScore().fit(np.arange(10.0))


def test_sklearn_compatible():
    run_check_estimator(LaplacianScore())


def test_registered():
    est = make_selector("LaplacianScore", n_neighbors=7)
    assert isinstance(est, LaplacianScore) and est.n_neighbors == 7


def test_agrees_with_scikit_feature_on_lymphoma(mirror):
    from skfeature.function.similarity_based.lap_score import lap_score

    X = load_mat_zscored(mirror / "microarray" / "lymphoma.mat")
    W = knn_graph(X, n_neighbors=5)  # passed to both: scikit-feature's construct_W adds self-loops
    est = LaplacianScore().fit(X)
    ref_order = lap_score(X, W=W, mode="index")  # ascending L_r (the only output it offers)
    ref_position = np.empty_like(ref_order)
    ref_position[ref_order] = np.arange(ref_order.size)
    assert spearmanr(est.laplacian_scores_, ref_position)[0] > 0.99999
    assert np.intersect1d(est.order_[:50], ref_order[:50]).size == 50
    # its order sorts our scores, up to exact ties (lymphoma is discretised)
    assert np.all(np.diff(est.laplacian_scores_[ref_order]) >= -1e-12)


def test_graph_helpers_equal_their_textbook_forms_bit_for_bit(rng):
    """The memory-lean distance, width and neighbour code gives exactly the straightforward results."""
    X = rng.standard_normal((40, 7))
    X[5] = X[3]  # a duplicate: distance exactly 0
    X0 = X - X.min(axis=0)  # the columns shifted to their minimum (no precision lost to an offset)
    xx = np.einsum("ij,ij->i", X0, X0)
    expected = np.add.outer(xx, xx)
    unresolved = expected * 1e-12
    expected -= 2.0 * (X0 @ X0.T)
    expected[expected <= unresolved] = 0.0
    np.fill_diagonal(expected, 0.0)
    D2 = pairwise_sq_dists(X)
    assert_array_equal(D2, expected)
    assert D2[3, 5] == 0.0
    assert mean_distance(D2) == float(np.sqrt(D2[np.triu_indices(40, k=1)]).mean())
    before = D2.copy()
    idx = knn_indices(D2, 4)
    assert_array_equal(D2, before)  # the diagonal set to inf for the search is restored
    D = D2.copy()
    np.fill_diagonal(D, np.inf)
    assert_array_equal(np.sort(D[np.arange(40)[:, None], idx], axis=1), np.sort(D, axis=1)[:, :4])
