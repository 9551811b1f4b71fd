"""Kernel UDFS: a dense transcription of Eq. 4 / Algorithm 1, the link to UDFS, kernel features, bad input."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
from selector_checks import assert_deterministic, run_check_estimator

from ufskit.kernels import distance_ratio, kernel_sq_dists, max_distance, rbf_kernel
from ufskit.selectors.kernel_udfs import KernelUDFS
from ufskit.selectors.udfs import laplacian_from_sq_dists, local_discriminative_laplacian

EPS = np.finfo(float).eps


def dense_kernel_udfs(K, k, lam, gamma, c, n_iter):
    """Eq. 4 and Algorithm 1 as printed: explicit S_i, one neighbourhood at a time, full eigh."""
    n = K.shape[0]
    D2 = np.diag(K)[:, None] + np.diag(K)[None, :] - 2 * K
    H = np.eye(k + 1) - 1.0 / (k + 1)
    total = np.zeros((n, n))
    for i in range(n):
        others = [j for j in np.argsort(D2[i], kind="stable") if j != i][:k]
        S = np.zeros((n, k + 1))
        S[[i, *others], np.arange(k + 1)] = 1.0
        K_tilde = H @ (S.T @ K @ S) @ H
        total += S @ H @ np.linalg.inv(K_tilde + lam * np.eye(k + 1)) @ H @ S.T
    M = K @ total @ K
    D = np.eye(n)
    for _ in range(n_iter):
        W = scipy.linalg.eigh(M + gamma * D)[1][:, :c]
        D = np.diag(1.0 / (2.0 * np.sqrt((W**2).sum(1) + EPS)))
    return np.sqrt((W**2).sum(1)), total


def kernel_local_matrix(K, k, lam):
    """sum_i S_i H (K~_i + lam I)^-1 H S_i' as the fit computes it: UDFS's matrix on kernel distances."""
    return laplacian_from_sq_dists(kernel_sq_dists(K), k, lam).toarray()


def two_moons(rng, n=40):
    t = rng.uniform(0, np.pi, n)
    y = np.arange(n) % 2
    X = np.c_[np.cos(t) - y, np.where(y == 0, np.sin(t), 0.5 - np.sin(t))]
    return X + 0.05 * rng.standard_normal((n, 2)), y


# ---------------------------------------------------------------- the algorithm


@pytest.mark.parametrize("gamma, lam", [(1e-3, 1e3), (1.0, 1.0)])
def test_matches_dense_transcription(rng, gamma, lam):
    X, _ = two_moons(rng)
    sel = KernelUDFS(n_neighbors=4, gamma=gamma, lam=lam, kernel_const=0.1, n_clusters=2, max_iter=12, tol=0.0).fit(X)
    K = rbf_kernel(X, sigma=0.1 * max_distance(X))
    # the D_0 = I step only yields the first weights, so the fit's 12 recorded steps are 13 of Algorithm 1
    expected, L = dense_kernel_udfs(K, 4, lam, gamma, 2, n_iter=13)
    np.testing.assert_allclose(kernel_local_matrix(K, 4, lam), L, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(sel.scores_, expected, rtol=1e-6, atol=1e-9)
    assert sel.n_iter_ == 12


def test_objective_does_not_increase(rng):
    X, _ = two_moons(rng, n=60)
    sel = KernelUDFS(gamma=1.0, lam=1e3, kernel_const=0.3, max_iter=50, tol=1e-10).fit(X)
    obj = np.asarray(sel.objective_)
    assert np.all(np.diff(obj) <= 1e-10 * np.abs(obj[:-1]))
    assert obj[-1] < obj[0]


# ---------------------------------------------------------------- the derivation: linear kernel = UDFS


def test_linear_kernel_reduces_to_udfs_matrices(rng):
    """phi(x) = x: kernel distances are Euclidean, K~_i = X~_i X~_i', so the local matrix is UDFS's
    and M~ = K L K = X M X' with UDFS's M = X' L X; the fitted objective is UDFS's at W = X' W~."""
    X = rng.standard_normal((30, 4))
    L_udfs = local_discriminative_laplacian(X, 5, 1e3).toarray()
    np.testing.assert_allclose(kernel_local_matrix(X @ X.T, 5, 1e3), L_udfs, rtol=1e-8, atol=1e-14)
    sel = KernelUDFS(kernel="linear", gamma=1e-3, lam=1e3, n_clusters=2).fit(X)
    W = X.T @ sel.W_  # the feature-space W of Eq. 3
    M = X.T @ L_udfs @ X
    l21 = np.sqrt((sel.W_**2).sum(1) + EPS).sum()
    np.testing.assert_allclose(sel.objective_[-1], np.trace(W.T @ M @ W) + 1e-3 * l21, rtol=1e-7)


def test_kernel_neighbourhoods_equal_input_neighbourhoods_for_rbf(rng):
    """RBF kernel distance is increasing in the Euclidean one, so the local matrix is UDFS's neighbourhoods'."""
    X = rng.standard_normal((25, 3))
    K = rbf_kernel(X, sigma=2.0)
    D2k = kernel_sq_dists(K)
    D2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    np.testing.assert_array_equal(np.argsort(D2k, axis=1)[:, :6], np.argsort(D2, axis=1)[:, :6])


# ---------------------------------------------------------------- kernel features and the selector interface


def test_kernel_features_transform_and_support(rng):
    X, _ = two_moons(rng, n=40)
    Xnew = rng.standard_normal((7, 2))
    sel = KernelUDFS(n_features_to_select=0.25, kernel_const=0.5).fit(X)
    assert sel.n_features_in_ == 2
    assert sel.scores_.shape == sel.ranking_.shape == sel.get_support().shape == (40,)
    assert sel.sigma_ == pytest.approx(0.5 * max_distance(X))
    full = sel.kernel_features(Xnew)
    np.testing.assert_allclose(full, rbf_kernel(Xnew, X, sigma=sel.sigma_))
    support = sel.get_support()
    assert support.sum() == 10
    np.testing.assert_array_equal(sel.transform(Xnew), full[:, support])
    np.testing.assert_array_equal(sel.get_support(indices=True), np.sort(sel.order_[:10]))
    assert list(sel.get_feature_names_out()) == [f"kernel{j}" for j in np.flatnonzero(support)]
    with pytest.raises(ValueError, match="features"):
        sel.transform(rng.standard_normal((3, 5)))


def test_linear_kernel_features(rng):
    X = rng.standard_normal((20, 3))
    sel = KernelUDFS(kernel="linear", n_features_to_select=5).fit(X)
    assert sel.sigma_ is None
    np.testing.assert_allclose(sel.kernel_features(X[:4]), X[:4] @ X.T)


def test_scale_invariant_with_relative_width_and_deterministic(rng):
    X, _ = two_moons(rng)
    a = KernelUDFS(kernel_const=0.1).fit(X)
    b = KernelUDFS(kernel_const=0.1).fit(5.0 * X)  # sigma = const * max distance scales along
    np.testing.assert_allclose(a.scores_, b.scores_, rtol=1e-6, atol=1e-8)
    assert_deterministic(KernelUDFS(kernel_const=0.1), X)


def test_sigma2_width_form_is_the_2sigma2_form_at_sigma_over_sqrt2(rng):
    X, _ = two_moons(rng)
    a = KernelUDFS(sigma=0.8, width_form="sigma2").fit(X)
    b = KernelUDFS(sigma=0.8 / np.sqrt(2.0)).fit(X)
    np.testing.assert_allclose(a.scores_, b.scores_, rtol=1e-8, atol=1e-12)
    d2 = ((X[0] - X[1]) ** 2).sum()
    assert a.kernel_features(X[:1])[0, 1] == pytest.approx(np.exp(-d2 / 0.8**2))  # exp(-d^2 / sigma^2)
    assert a.sigma_ == 0.8  # the width itself is the same; only the denominator differs
    with pytest.raises(ValueError, match="width_form"):
        KernelUDFS(width_form="sigma").fit(X)


def test_scikit_learn_estimator_checks():
    run_check_estimator(KernelUDFS())


@pytest.mark.parametrize(
    "params, match",
    [
        ({"kernel": "poly"}, "'kernel' parameter of KernelUDFS must be a str among"),
        ({"kernel_const": 0.0}, "kernel_const"),
        ({"sigma": -1.0}, "sigma"),
        ({"n_neighbors": 20}, "n_neighbors"),
        ({"n_neighbors": 0}, "n_neighbors"),
        ({"n_clusters": 21}, "n_clusters"),
        ({"lam": 0.0}, "lam"),
        ({"gamma": -1.0}, "gamma"),
        ({"max_iter": 0}, "max_iter"),
    ],
)
def test_bad_parameters(rng, params, match):
    with pytest.raises(ValueError, match=match):
        KernelUDFS(**params).fit(rng.standard_normal((20, 3)))


def test_bad_data(rng):
    X = rng.standard_normal((20, 3))
    X[2, 1] = np.inf
    with pytest.raises(ValueError):
        KernelUDFS().fit(X)


# ---------------------------------------------------------------- distance ratio (the paper's Fig. 1)


def test_distance_ratio_by_hand_and_orientation():
    Z = np.array([[0.0], [1.0], [10.0], [12.0]])
    y = np.array([0, 0, 1, 1])
    # within: |0-1| = 1, |10-12| = 2 -> 1.5; between: 10, 12, 9, 11 -> 10.5
    assert distance_ratio(Z, y) == pytest.approx(1.5 / 10.5)
    K = Z @ Z.T  # linear kernel: kernel distances are the Euclidean ones
    assert distance_ratio(K, y, kind="kernel") == pytest.approx(1.5 / 10.5)
    mixed = np.array([0, 1, 0, 1])
    assert distance_ratio(Z, mixed) > 1.0 > distance_ratio(Z, y)  # separated classes: smaller ratio


def test_distance_ratio_bad_input():
    Z = np.zeros((4, 2))
    with pytest.raises(ValueError, match="one label per row"):
        distance_ratio(Z, [0, 1])
    with pytest.raises(ValueError, match="two classes"):
        distance_ratio(np.arange(8.0).reshape(4, 2), [0, 0, 0, 0])
    with pytest.raises(ValueError, match="unknown kind"):
        distance_ratio(Z, [0, 0, 1, 1], kind="cosine")


def test_first_kernel_features_have_small_distance_ratio_on_ionosphere(mirror):
    """Fig. 1's claim: the first few ordered kernel features have a far smaller distance ratio.

    RBF with sigma = 1 as in Sec. 4.1; gamma = 1, lam = 1e3 from the grid of Sec. 4.3
    (Sec. 4.1 does not give them).
    """
    raw = np.genfromtxt(mirror / "uci" / "ionosphere" / "ionosphere.data", delimiter=",", dtype=str)
    X, y = raw[:, :-1].astype(float), (raw[:, -1] == "g").astype(int)
    sel = KernelUDFS(sigma=1.0, gamma=1.0, lam=1e3).fit(X)
    K = sel.kernel_features(X)
    ordered = distance_ratio(K[:, sel.order_[:3]], y)
    assert ordered < distance_ratio(K[:, :3], y) - 0.1  # the unordered first three
    assert ordered < distance_ratio(K, y) - 0.1  # all kernel features (the dashed line)


# ---- the base class's input checks, on the n kernel features ----


def test_default_n_neighbors_resolves_to_the_sample_size(rng):
    for n in (2, 3, 7):
        est = KernelUDFS().fit(rng.standard_normal((n, 2)))
        assert est.n_neighbors_ == min(5, n - 1) and est.ranking_.size == n
    with pytest.raises(ValueError, match="n_neighbors=5 must be in"):
        KernelUDFS(n_neighbors=5).fit(rng.standard_normal((4, 2)))


def test_input_checks_at_fit(rng):
    X = rng.standard_normal((12, 3))
    with pytest.raises(ValueError, match="n_features_to_select=13 gives 13, outside"):
        KernelUDFS(n_features_to_select=13).fit(X)  # there are 12 kernel features
    with pytest.raises(ValueError, match="above 1e\\+100"):
        KernelUDFS().fit(X * 1e200)
    with pytest.raises(ValueError, match="all 12 samples of X coincide"):
        KernelUDFS().fit(np.ones((12, 3)))
    # a constant column adds nothing to any kernel distance: the same fit without it
    with_flat = KernelUDFS().fit(np.column_stack([X, np.full(12, 3.0)]))
    np.testing.assert_allclose(with_flat.scores_, KernelUDFS().fit(X).scores_, rtol=1e-9, atol=1e-12)
