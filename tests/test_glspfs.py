"""GLSPFS: kernel and local structures by hand, the two linear-system forms, descent, optimality, planted features."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from selector_checks import (
    Planted,
    assert_deterministic,
    assert_finds_planted,
    assert_permutation_equivariant,
    make_planted,
    run_check_estimator,
)
from sklearn.linear_model import Ridge

from ufskit.graph import pairwise_sq_dists
from ufskit.selectors.glspfs import (
    GLSPFS,
    global_kernel,
    glspfs_fit,
    kernel_factor,
    lle_matrix,
    lpp_laplacian,
)


def structures(X, mu=1.0, local="lpp", n_neighbors=3):
    """(Y, L) exactly as GLSPFS.fit builds them."""
    D2 = pairwise_sq_dists(X)
    S, width = global_kernel(D2)
    L = GLSPFS(mu=mu, local=local, n_neighbors=n_neighbors).local_structure(X, D2, width)
    return kernel_factor(S), L


def test_global_kernel_by_hand():
    X = np.array([[0.0], [1.0], [3.0]])
    D2 = np.array([[0, 1, 9], [1, 0, 4], [9, 4, 0]], dtype=float)
    S, width = global_kernel(pairwise_sq_dists(X))
    assert width == pytest.approx(28 / 9)
    assert_allclose(S, np.exp(-D2 * 9 / 28), rtol=1e-14)
    Y = kernel_factor(S)
    assert_allclose(Y @ Y.T, S, atol=1e-13)


def test_lpp_laplacian_by_hand():
    # points 0, 1, 3, 7 on a line, k = 1: edges 0-1 (1's nearest is 0 too), 2-1, 3-2
    X = np.array([[0.0], [1.0], [3.0], [7.0]])
    D2 = pairwise_sq_dists(X)
    L = lpp_laplacian(D2, width=10.0, n_neighbors=1).toarray()
    w01, w12, w23 = np.exp(-1 / 10), np.exp(-4 / 10), np.exp(-16 / 10)
    W = np.zeros((4, 4))
    W[0, 1] = W[1, 0] = w01
    W[1, 2] = W[2, 1] = w12
    W[2, 3] = W[3, 2] = w23
    assert_allclose(L, np.diag(W.sum(1)) - W, rtol=1e-14)


def test_lle_matrix_matches_per_point_solves(rng):
    X = rng.standard_normal((12, 4))
    k = 3
    M = lle_matrix(pairwise_sq_dists(X), k, X.shape[1]).toarray()
    R = np.zeros((12, 12))
    for i in range(12):
        nbr = np.argsort(np.linalg.norm(X - X[i], axis=1))[1 : k + 1]
        Z = X[nbr] - X[i]
        C = Z @ Z.T
        C += 1e-12 * np.trace(C) * np.eye(k)
        w = np.linalg.solve(C, np.ones(k))
        R[i, nbr] = w / w.sum()
    I_R = np.eye(12) - R
    assert_allclose(M, I_R.T @ I_R, atol=1e-9)
    assert_allclose(M @ np.ones(12), 0, atol=1e-9)


@pytest.mark.parametrize("local", ["lpp", "lle", None])
def test_sample_form_equals_feature_form(rng, local):
    X = rng.standard_normal((15, 40))  # d > n
    Y, L = structures(X, mu=0.0 if local is None else 2.0, local=local or "lpp")
    a = glspfs_fit(X, Y, L, 2.0, 0.5, max_iter=15, tol=0, form="samples")
    b = glspfs_fit(X, Y, L, 2.0, 0.5, max_iter=15, tol=0, form="features")
    assert_allclose(a[0], b[0], rtol=1e-8, atol=1e-12)
    assert_allclose(a[1], b[1], rtol=1e-10)


@pytest.mark.parametrize("shape", [(15, 40), (40, 10)])
@pytest.mark.parametrize("mu, local", [(0.0, "lpp"), (1.0, "lpp"), (3.0, "lle")])
def test_objective_decreases_monotonically(rng, shape, mu, local):
    X = rng.standard_normal(shape)
    est = GLSPFS(mu=mu, local=local, lam=0.5, max_iter=40, tol=0).fit(X)
    obj = est.objective_
    assert obj.size > 3
    assert np.all(np.diff(obj) <= 1e-12 * obj[:-1]), np.diff(obj)
    assert obj[-1] < obj[0]
    Y, L = structures(X, mu=mu, local=local, n_neighbors=5)
    XW = (X - X.mean(axis=0)) @ est.coef_  # fit centres X: the fit term has an intercept
    value = np.sum((XW - Y) ** 2) + 0.5 * est.scores_.sum() + (0 if L is None else mu * np.sum(XW * (L @ XW)))
    assert value == pytest.approx(obj[-1], rel=1e-10)


@pytest.mark.parametrize("mu, local", [(0.0, "lpp"), (2.0, "lpp"), (2.0, "lle")])
def test_first_step_is_generalised_ridge(rng, mu, local):
    """With q = 1 the step minimises ||XW - Y||^2 + mu ||B X W||^2 + lam ||W||^2 (L = B'B):
    sklearn's Ridge on stacked rows."""
    X = rng.standard_normal((25, 8))
    Y, L = structures(X, mu=mu, local=local)
    W, _ = glspfs_fit(X, Y, L, mu, 0.7, max_iter=1)
    if L is None:
        X_aug, Y_aug = X, Y
    else:
        vals, vecs = np.linalg.eigh(L.toarray())
        B = np.sqrt(np.clip(vals, 0, None))[:, None] * vecs.T
        X_aug = np.vstack([X, np.sqrt(mu) * B @ X])
        Y_aug = np.vstack([Y, np.zeros_like(Y)])
    ridge = Ridge(alpha=0.7, fit_intercept=False, solver="svd").fit(X_aug, Y_aug)
    assert_allclose(W, ridge.coef_.T, rtol=1e-7, atol=1e-10)


@pytest.mark.parametrize("mu, local", [(0.0, "lpp"), (1.0, "lpp"), (2.0, "lle")])
def test_converged_solution_satisfies_optimality(rng, mu, local):
    """At the limit the l2,1 objective's gradient vanishes: 2X'(AXW - Y) + lam w_i/||w_i|| = 0 row-wise."""
    X = rng.standard_normal((30, 8))
    est = GLSPFS(mu=mu, local=local, lam=1.5, n_neighbors=5, max_iter=2000, tol=0).fit(X)
    Y, L = structures(X, mu=mu, local=local, n_neighbors=5)
    X = X - X.mean(axis=0)  # fit centres X: the fit term has an intercept
    XW = X @ est.coef_
    AXW = XW if L is None else XW + mu * (L @ XW)
    grad = 2 * X.T @ (AXW - Y) + 1.5 * est.coef_ / est.scores_[:, None]
    assert est.scores_.min() > 1e-3
    assert np.abs(grad).max() < 1e-6


def test_mu_zero_is_global_only(rng):
    X = rng.standard_normal((20, 30))
    a = GLSPFS(mu=0, local="lpp", max_iter=20).fit(X)
    b = GLSPFS(mu=0, local="lle", n_neighbors=50, max_iter=20).fit(X)  # k > n would fail if L were built
    assert_array_equal(a.scores_, b.scores_)
    assert np.all(np.diff(a.objective_) <= 1e-12 * a.objective_[:-1])


def test_planted_cluster_features():
    data = make_planted(n_samples=90, n_informative=6, n_noise=30, separation=8.0, random_state=0)
    assert_finds_planted(GLSPFS(mu=1.0, local="lpp"), data)
    assert_finds_planted(GLSPFS(mu=10.0, local="lle"), data, top=12)


def test_default_lam_is_n_and_finds_distance_carriers():
    """lam=None resolves to n: a fixed lam=1 fades against X'X ~ n I and misses features that carry the distances."""
    data = make_planted(n_samples=60, n_informative=5, n_noise=40, random_state=2)
    X = data.X.copy()
    X[:, data.informative] *= 10.0
    est = assert_finds_planted(GLSPFS(), Planted(X, data.y, data.informative))
    assert est.lam_ == 60.0 and est.get_params()["lam"] is None
    weak = GLSPFS(lam=1.0).fit(X)
    assert weak.lam_ == 1.0
    assert np.intersect1d(weak.order_[:5], data.informative).size <= 2
    assert_array_equal(GLSPFS(lam=60.0).fit(X).ranking_, est.ranking_)


def test_invariances(rng):
    X = make_planted(n_samples=40, n_informative=3, n_noise=17, random_state=1).X
    est = GLSPFS(mu=1.0, max_iter=30)
    assert_permutation_equivariant(est, X, rtol=1e-6)
    perm = rng.permutation(X.shape[0])
    assert_allclose(GLSPFS(mu=1.0, max_iter=30).fit(X[perm]).scores_, est.fit(X).scores_, rtol=1e-6)
    assert_deterministic(est, X)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"lam": 0}, "lam"),
        ({"mu": -1.0}, "mu"),
        ({"mu": np.nan}, "mu"),
        ({"local": "ltsa"}, "'local' parameter of GLSPFS must be a str among"),
        ({"n_neighbors": 0}, "n_neighbors"),
        ({"n_neighbors": 12}, "n_neighbors"),
        ({"max_iter": 0}, "max_iter"),
        ({"tol": -1e-3}, "tol"),
    ],
)
def test_bad_parameters(rng, params, match):
    with pytest.raises(ValueError, match=match):
        GLSPFS(**params).fit(rng.standard_normal((12, 5)))


def test_bad_data():
    X = np.ones((6, 4))
    X[0, 0] = np.inf
    with pytest.raises(ValueError):
        GLSPFS().fit(X)
    with pytest.raises(ValueError, match="no varying feature"):
        GLSPFS().fit(np.ones((6, 4)))
    with pytest.raises(ValueError, match="form"):
        glspfs_fit(np.ones((3, 2)), np.ones((3, 1)), None, 0.0, 1.0, form="dual")


def test_sklearn_conventions():
    run_check_estimator(GLSPFS(max_iter=20))
