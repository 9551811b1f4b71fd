"""SPEC: the three scores against their eigen-expansion definitions, directions, invariances, scikit-feature."""

from __future__ import annotations

import numpy as np
import pytest
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

from ufskit.graph import knn_graph, mean_distance, pairwise_sq_dists
from ufskit.selectors import make_selector
from ufskit.selectors.laplacian import LaplacianScore, laplacian_score
from ufskit.selectors.spec import SPEC, spec_score
from ufskit.spectral import rbf_affinity


def eigen_definition(X, W, style, k=None):
    """Zhao & Liu's scores through the full eigendecomposition of L^ (the test oracle)."""
    W = W.toarray() if hasattr(W, "toarray") else W
    d = W.sum(axis=1)
    Lhat = np.eye(len(d)) - W / np.sqrt(np.outer(d, d))
    lam, xi = np.linalg.eigh(Lhat)
    Fh = np.sqrt(d)[:, None] * X
    alpha2 = (xi.T @ (Fh / np.linalg.norm(Fh, axis=0))) ** 2  # n x d, row j = alpha_j^2
    if style == 1:
        return lam @ alpha2
    if style == 2:
        return (lam[1:] @ alpha2[1:]) / alpha2[1:].sum(axis=0)
    return (2.0 - lam[1:k]) @ alpha2[1:k]


def dense_rbf(X):
    D2 = pairwise_sq_dists(X)
    return rbf_affinity(D2, mean_distance(D2))


@pytest.mark.parametrize("style", [1, 2, 3])
@pytest.mark.parametrize("graph", ["rbf", "knn"])
def test_scores_match_their_eigen_expansion(rng, style, graph):
    X = rng.standard_normal((30, 7))
    W = dense_rbf(X) if graph == "rbf" else knn_graph(X, n_neighbors=5)
    assert_allclose(spec_score(X, W, style, n_clusters=4), eigen_definition(X, W, style, k=4), rtol=1e-9)


def test_estimator_uses_the_full_rbf_graph_by_default(rng):
    X = rng.standard_normal((30, 7))
    est = SPEC(style=1).fit(X)
    assert_allclose(est.spec_scores_, eigen_definition(X, dense_rbf(X), 1), rtol=1e-9)
    sigma = 0.7 * mean_distance(pairwise_sq_dists(X))
    W = rbf_affinity(pairwise_sq_dists(X), sigma)
    assert_allclose(SPEC(style=1, sigma=sigma).fit(X).spec_scores_, eigen_definition(X, W, 1), rtol=1e-9)


def test_phi2_is_the_laplacian_score_on_the_same_graph(rng):
    X = rng.standard_normal((30, 7))
    W = dense_rbf(X)
    assert_allclose(spec_score(X, W, 2), laplacian_score(X, W), rtol=1e-12)
    assert_allclose(SPEC(n_neighbors=5).fit(X).scores_, LaplacianScore().fit(X).scores_, rtol=1e-12)


def test_ranking_directions_are_the_papers():
    X = make_planted().X
    for style in (1, 2):
        est = SPEC(style=style).fit(X)
        assert_array_equal(est.scores_, -est.spec_scores_)
        assert est.spec_scores_[est.order_[0]] == est.spec_scores_.min()
    est = SPEC(style=3, n_clusters=3).fit(X)
    assert_array_equal(est.scores_, est.spec_scores_)
    assert est.spec_scores_[est.order_[0]] == est.spec_scores_.max()


@pytest.mark.parametrize(
    "params",
    [{"style": 1}, {"style": 2}, {"style": 3, "n_clusters": 3}, {"n_neighbors": 5}],
)
@pytest.mark.parametrize("pattern", ["permuted", "onehot"])
def test_finds_planted_features(params, pattern):
    data = make_planted(n_informative=6, n_clusters=3, n_noise=30, separation=6.0, pattern=pattern)
    assert_finds_planted(SPEC(**params), data)


@pytest.mark.parametrize("params", [{"style": 1}, {"style": 2}, {"style": 3, "n_clusters": 3}])
def test_permutation_and_determinism(params):
    X = make_planted().X
    assert_permutation_equivariant(SPEC(**params), X)
    assert_deterministic(SPEC(**params), X)


@pytest.mark.parametrize("style", [1, 2, 3])
def test_scale_invariance_for_a_fixed_graph(rng, style):
    X = rng.standard_normal((30, 6))
    W = dense_rbf(X)
    c = np.array([1.0, 1e-3, 7.0, -2.0, 1.0, 1e4])
    assert_allclose(spec_score(X * c, W, style, 3), spec_score(X, W, style, 3), rtol=1e-9)


def test_only_phi2_is_shift_invariant(rng):
    X = rng.standard_normal((30, 4)) + 1.0
    W = dense_rbf(X)
    shifted = X + 3.0
    assert_allclose(spec_score(shifted, W, 2), spec_score(X, W, 2), rtol=1e-9)
    assert not np.allclose(spec_score(shifted, W, 1), spec_score(X, W, 1), rtol=1e-3)
    assert not np.allclose(spec_score(shifted, W, 3, 3), spec_score(X, W, 3, 3), rtol=1e-3)


@pytest.mark.parametrize("params", [{"style": 1}, {"style": 3, "n_clusters": 3}, {"n_neighbors": 5}])
def test_global_scaling_leaves_scores_unchanged(params):
    X = make_planted().X
    a = SPEC(**params).fit(X)
    b = SPEC(**params).fit(4.0 * X)
    assert_allclose(b.scores_, a.scores_, rtol=1e-9)


@pytest.mark.parametrize("params", [{"style": 1}, {"style": 3, "n_clusters": 5}, {"n_neighbors": 5}])
def test_high_dimensional_input_forms_no_d_by_d_matrix(params):
    X = np.random.default_rng(1).standard_normal((40, 6000))
    assert fit_peak_bytes(SPEC(**params), X) < 20 * X.nbytes  # d x d float64 alone: 288 MB


@pytest.mark.parametrize(
    ("params", "X", "match"),
    [
        ({"style": 0}, None, "style"),
        ({"style": 3}, None, "n_clusters"),
        ({"style": 3, "n_clusters": 1}, None, "n_clusters"),
        ({"style": 3, "n_clusters": 13}, None, "non-trivial"),
        ({"n_neighbors": 0}, None, "n_neighbors"),
        ({"sigma": 0.0}, None, "'sigma' parameter of SPEC must be None or a float"),
        ({}, np.full((12, 2), 3.0), "no varying feature"),
        ({}, np.array([[np.inf, 1.0]] * 12), "infinity"),
    ],
)
def test_bad_input(params, X, match):
    X = np.random.default_rng(0).standard_normal((12, 3)) if X is None else X
    with pytest.raises(ValueError, match=match):
        SPEC(**params).fit(X)


# check_estimator replaces n_clusters by 1; phi3's sum over j = 2..k is then empty and refused
PHI3_REASON = "check_estimator sets n_clusters=1, for which phi3 (a sum over j = 2..k) is undefined"


@pytest.mark.parametrize(
    ("est", "expected_failures"),
    [
        (SPEC(), {}),
        (SPEC(style=1, n_neighbors=5), {}),
        (
            SPEC(style=3, n_clusters=3),
            dict.fromkeys(
                [
                    "check_dont_overwrite_parameters",
                    "check_methods_subset_invariance",
                    "check_fit2d_1feature",
                    "check_fit2d_predict1d",
                ],
                PHI3_REASON,
            ),
        ),
    ],
)
def test_sklearn_compatible(est, expected_failures):
    run_check_estimator(est, expected_failures)


def test_registered():
    est = make_selector("SPEC", style=3, n_clusters=4)
    assert isinstance(est, SPEC) and (est.style, est.n_clusters) == (3, 4)


@pytest.mark.parametrize(("style", "skf_style"), [(1, -1), (2, 0), (3, 9)])
@pytest.mark.parametrize("graph", ["rbf", "knn"])
def test_agrees_with_scikit_feature_on_lymphoma(mirror, style, skf_style, graph):
    from skfeature.function.similarity_based.SPEC import spec

    X = load_mat_zscored(mirror / "microarray" / "lymphoma.mat")
    W = dense_rbf(X) if graph == "rbf" else knn_graph(X, n_neighbors=5)
    params = {"style": style, "n_clusters": 9, "n_neighbors": None if graph == "rbf" else 5}
    est = SPEC(**params).fit(X)
    ref = spec(X, W=W, style=skf_style, mode="raw")  # same formulas, full eigh, per-feature loop
    assert_allclose(est.spec_scores_, ref, rtol=1e-8)
    # skfeature-chappers 1.2.1 calls its ranking helper without the style, so it sorts every style
    # descending: phi1/phi2 come out reversed (largest first), phi3 in the paper's direction
    ref_order = spec(X, W=W, style=skf_style, mode="index")
    ours = est.order_ if style == 3 else est.order_[::-1]
    assert np.intersect1d(ref_order[:50], ours[:50]).size >= 49
