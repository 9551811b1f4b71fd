"""NDFS: the normalised Laplacian, the Woodbury ridge, the iteration, and the selector's behaviour."""

from __future__ import annotations

import itertools
import tracemalloc
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
import scipy.stats
from numpy.testing import assert_allclose, assert_array_equal
from selector_checks import (
    assert_deterministic,
    assert_finds_planted,
    assert_permutation_equivariant,
    make_planted,
    run_check_estimator,
)

from ufskit.graph import knn_graph
from ufskit.selectors.ndfs import NDFS, ndfs_iterations, normalized_adjacency, spectral_init
from ufskit.sparse_regression import DiagonalRidge, l21_norm

# d < n and d > n planted sets on which the spectral initialisation finds the clusters well enough
SMALL = {"n_samples": 60, "n_informative": 4, "n_noise": 30, "separation": 6.0}
WIDE = {"n_samples": 45, "n_informative": 4, "n_noise": 50, "separation": 10.0}


def test_normalized_adjacency_gives_the_true_normalised_laplacian():
    # path graph 0 - 1 - 2 with weights 1 and 4: degrees 1, 5, 4
    S = sp.csr_matrix(np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 4.0], [0.0, 4.0, 0.0]]))
    A = normalized_adjacency(S).toarray()
    expected = np.array(
        [[0.0, 1 / np.sqrt(5), 0.0], [1 / np.sqrt(5), 0.0, 4 / np.sqrt(20)], [0.0, 4 / np.sqrt(20), 0.0]]
    )
    assert_allclose(A, expected)
    # L = I - A annihilates D^1/2 1 and is positive semidefinite with eigenvalues in [0, 2]
    L = np.eye(3) - A
    assert_allclose(L @ np.sqrt([1.0, 5.0, 4.0]), 0.0, atol=1e-14)
    ev = np.linalg.eigvalsh(L)
    assert ev.min() > -1e-12 and ev.max() < 2 + 1e-12


@pytest.mark.parametrize("shape", [(12, 5), (8, 30)])
def test_diagonal_ridge_both_forms_solve_the_normal_equations(rng, shape):
    X = rng.standard_normal(shape)
    F = rng.random((shape[0], 3))
    g = rng.uniform(0.1, 10.0, shape[1])
    beta = 0.7
    primal, dual = DiagonalRidge(X, beta, g, dual=False), DiagonalRidge(X, beta, g, dual=True)
    W = primal.coef(F)
    assert_allclose((X.T @ X + beta * np.diag(g)) @ W, X.T @ F, atol=1e-10)
    assert_allclose(dual.coef(F), W, rtol=1e-9, atol=1e-12)
    assert_allclose(primal.residual(F), F - X @ W, atol=1e-12)
    assert_allclose(dual.residual(F), F - X @ W, rtol=1e-8, atol=1e-12)
    assert DiagonalRidge(X, beta, g).dual == (shape[1] > shape[0])


def test_spectral_init_is_a_positive_soft_indicator_of_the_clusters():
    X, y, _ = make_planted(n_samples=60, n_informative=6, n_noise=0, separation=8.0)
    F = spectral_init(knn_graph(X, 5), 3, random_state=0)
    assert F.shape == (60, 3) and np.all(F > 0)
    assert_allclose(np.linalg.norm(F, axis=0), 1.0)
    labels = F.argmax(axis=1)
    # the clusters are recovered up to a relabelling: the contingency table is a permutation matrix
    table = np.zeros((3, 3), dtype=int)
    np.add.at(table, (y, labels), 1)
    assert_array_equal(np.sort(table.max(axis=1)), [20, 20, 20])


@pytest.mark.parametrize("params", [SMALL, WIDE], ids=["d<n", "d>n"])
def test_finds_planted_features(params):
    est = assert_finds_planted(NDFS(n_clusters=3, beta=10.0, random_state=0), make_planted(**params))
    assert est.W_.shape == (est.n_features_in_, 3)
    assert_allclose(est.scores_, np.linalg.norm(est.W_, axis=1))
    assert np.all(est.F_ >= 0)


def test_objective_is_non_increasing_and_recorded_per_iteration():
    X = make_planted(**SMALL).X
    est = NDFS(n_clusters=3, random_state=0, max_iter=60, tol=1e-12).fit(X)
    obj = np.asarray(est.objective_)
    assert obj.size == est.n_iter_ == 60
    assert np.all(np.diff(obj) <= 1e-10 * np.abs(obj[:-1]))
    assert obj[-1] < obj[0]


def test_recorded_objective_is_the_ndfs_objective():
    X = make_planted(**SMALL).X
    est = NDFS(n_clusters=3, alpha=2.0, beta=0.5, gamma=1e3, random_state=0, max_iter=5).fit(X)
    S = knn_graph(X, 5)
    L = np.eye(60) - normalized_adjacency(S).toarray()
    F, W = est.F_, est.W_
    value = (
        np.trace(F.T @ L @ F)
        + 2.0 * (np.linalg.norm(X @ W - F) ** 2 + 0.5 * l21_norm(W))
        + 1e3 / 4 * np.linalg.norm(F.T @ F - np.eye(3)) ** 2
    )
    assert_allclose(est.objective_[-1], value, rtol=1e-10)


def test_stops_on_relative_change():
    X = make_planted(**SMALL).X
    est = NDFS(n_clusters=3, random_state=0, tol=1e-3, max_iter=500).fit(X)
    obj = est.objective_
    assert est.n_iter_ < 500
    assert abs(obj[-2] - obj[-1]) <= 1e-3 * abs(obj[-2])
    assert all(abs(a - b) > 1e-3 * abs(a) for a, b in itertools.pairwise(obj[:-1]))


def test_woodbury_path_equals_the_d_by_d_path():
    X = make_planted(**WIDE).X  # d = 54 > n = 45
    S = knn_graph(X, 5)
    F0 = spectral_init(S, 3, random_state=0)
    kw = {"alpha": 1.0, "beta": 3.0, "gamma": 1e8, "max_iter": 30, "tol": 0.0}
    W_d, F_d, obj_d = ndfs_iterations(X, normalized_adjacency(S), F0, dual=True, **kw)
    W_p, F_p, obj_p = ndfs_iterations(X, normalized_adjacency(S), F0, dual=False, **kw)
    assert_allclose(obj_d, obj_p, rtol=1e-7)
    assert_allclose(F_d, F_p, rtol=1e-6, atol=1e-12)
    big = np.linalg.norm(W_p, axis=1) > 1e-6 * np.linalg.norm(W_p, axis=1).max()
    assert_allclose(W_d[big], W_p[big], rtol=1e-5, atol=1e-10)


@pytest.mark.parametrize("params", [SMALL, WIDE], ids=["d<n", "d>n"])
def test_nrfs_settings_run_stably(params):
    # NRFS (ICDM 2014, Section VI-A): alpha = beta = 1e-6, gamma = 1e8
    X = make_planted(**params).X
    est = NDFS(n_clusters=3, alpha=1e-6, beta=1e-6, gamma=1e8, random_state=0).fit(X)
    obj = np.asarray(est.objective_)
    assert np.all(np.isfinite(est.scores_)) and np.all(est.scores_ > 0)
    assert np.all(np.diff(obj) <= 1e-10 * np.abs(obj[:-1]))


def test_nrfs_settings_on_prostate(mirror):
    X = scipy.io.loadmat(mirror / "microarray" / "Prostate-GE.mat")["X"].astype(float)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    est = NDFS(n_clusters=2, alpha=1e-6, beta=1e-6, gamma=1e8, random_state=0, max_iter=20).fit(X)
    obj = np.asarray(est.objective_)
    assert np.all(np.isfinite(est.scores_))
    assert np.all(np.diff(obj) <= 1e-10 * np.abs(obj[:-1]))


def test_scaling_x_with_beta_keeps_the_selection():
    # the graph (sigma = mean distance) and so F0 are scale-free; ||cXW' - F||^2 + c beta ||W'||_21
    # with W' = W / c is the unscaled objective, so scaling X and beta together selects the same
    # features (not bit-identically: the start G = I and the eps smoothing are not scaled along)
    X = make_planted(**SMALL).X
    assert_allclose(spectral_init(knn_graph(10.0 * X, 5), 3, 0), spectral_init(knn_graph(X, 5), 3, 0))
    a = NDFS(n_clusters=3, beta=10.0, random_state=0).fit(X)
    b = NDFS(n_clusters=3, beta=100.0, random_state=0).fit(10.0 * X)
    assert_array_equal(np.sort(b.order_[:6]), np.sort(a.order_[:6]))
    top = a.order_[:2]
    assert_allclose(b.scores_[top], a.scores_[top] / 10.0, rtol=0.05)


def test_permutation_equivariant():
    assert_permutation_equivariant(NDFS(n_clusters=3, beta=10.0, random_state=0, max_iter=30), make_planted(**SMALL).X)


def test_deterministic_with_a_seed():
    X = make_planted(**SMALL).X
    assert_deterministic(NDFS(n_clusters=3, random_state=7, max_iter=20), X)
    a = NDFS(n_clusters=3, random_state=np.random.default_rng(3), max_iter=20).fit(X)
    b = NDFS(n_clusters=3, random_state=np.random.default_rng(3), max_iter=20).fit(X)
    assert_array_equal(a.scores_, b.scores_)


@pytest.mark.parametrize(
    "params, message",
    [
        ({"n_clusters": 60}, "n_clusters"),
        ({"n_clusters": 0}, "n_clusters"),
        ({"alpha": 0.0}, "alpha"),
        ({"beta": -1.0}, "beta"),
        ({"gamma": np.inf}, "gamma"),
        ({"tol": 0.0}, "tol"),
        ({"max_iter": 0}, "max_iter"),
        ({"n_neighbors": 60}, "n_neighbors"),
    ],
)
def test_bad_parameters(params, message):
    X = make_planted(**SMALL).X
    with pytest.raises(ValueError, match=message):
        NDFS(**{"n_clusters": 3, **params}).fit(X)


def test_no_d_by_d_matrix_when_d_exceeds_n(rng):
    X = rng.standard_normal((30, 4000))  # a d x d float64 matrix would take 122 MiB
    tracemalloc.start()
    try:
        NDFS(n_clusters=3, random_state=0, max_iter=5).fit(X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20


def test_bad_input():
    X = make_planted(**SMALL).X
    X[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        NDFS(n_clusters=3).fit(X)
    with pytest.raises(ValueError):
        NDFS(n_clusters=3).fit(np.ones(10))


def test_sklearn_check_estimator():
    run_check_estimator(NDFS(n_clusters=2, random_state=0, max_iter=10))


def _affinity_feeding_skfeature(L):
    """W' whose skfeature 'Laplacian' (entry i, j = rowsum(W')_j - W'_ij, its bug) is exactly L.

    W' = 1 d' ^T - L with d' = T - L1 and T = sum(L1) / (n - 1) makes rowsum(W') = d'.
    """
    r = L.sum(axis=1)
    d_prime = r.sum() / (L.shape[0] - 1) - r
    return np.ones((L.shape[0], 1)) * d_prime[None, :] - L


@pytest.mark.parametrize(
    "params, alpha, beta",
    [(SMALL, 1.0, 10.0), (WIDE, 1.0, 10.0), (SMALL, 1e-6, 1e-6)],
    ids=["d<n", "d>n", "nrfs-settings"],
)
def test_agrees_with_scikit_feature_given_the_true_laplacian(monkeypatch, params, alpha, beta):
    """skfeature-chappers' ndfs, fed our L (through a crafted affinity) and our initial labels.

    Remaining differences: it adds 1e-6 I to X'X + beta G, clips ||w_i|| at 1e-16 instead of
    smoothing by eps, updates G before rather than after F, and stops after 1000 iterations.
    """
    ndfs_module = pytest.importorskip("skfeature.function.sparse_learning_based.NDFS")
    X = make_planted(**params).X
    n = X.shape[0]
    S = knn_graph(X, 5)
    A = normalized_adjacency(S)
    labels = spectral_init(S, 3, random_state=0).argmax(axis=1)
    Y = np.eye(3)[labels]
    F0 = Y / np.sqrt(Y.sum(axis=0)) + 0.02  # skfeature's start Y (Y'Y)^-1/2 + 0.02, used by both

    class GivenLabels:  # stands in for the K-means skfeature runs on X
        def __init__(self, **kwargs):
            pass

        def fit(self, X):
            self.labels_ = labels
            return self

    monkeypatch.setattr(ndfs_module, "sklearn", SimpleNamespace(cluster=SimpleNamespace(KMeans=GivenLabels)))
    affinity = sp.csr_matrix(_affinity_feeding_skfeature(np.eye(n) - A.toarray()))
    theirs = np.linalg.norm(
        ndfs_module.ndfs(X, mode="raw", W=affinity, n_clusters=3, alpha=alpha, beta=beta, gamma=1e8), axis=1
    )
    W, _, _ = ndfs_iterations(X, A, F0, alpha=alpha, beta=beta, gamma=1e8, max_iter=1000, tol=1e-12)
    ours = np.linalg.norm(W, axis=1)
    assert_array_equal(np.sort(np.argsort(-ours)[:10]), np.sort(np.argsort(-theirs)[:10]))
    assert scipy.stats.spearmanr(ours, theirs)[0] > 0.99
    if beta < 1e-3:  # little shrinkage: both reach the same W
        assert_allclose(ours, theirs, rtol=1e-4)


# ---- defaults on any data, degenerate input, pinned numbers of the faster iteration ----


def test_default_instance_passes_sklearn_estimator_checks():
    run_check_estimator(NDFS(random_state=0))


@pytest.mark.parametrize("seed", range(5))
def test_defaults_find_planted_features_on_z_scored_data(seed):
    """The default beta (1.5 sqrt(n) here) finds all 5 planted features on every seed; beta = 1 (the old
    default) leaves the l2,1 term negligible against X'X ~ n I and finds 1-3 of them."""
    data = make_planted(n_informative=5, random_state=seed)
    est = assert_finds_planted(NDFS(random_state=0), data)
    assert est.n_clusters_ == 5 and est.n_neighbors_ == 5


def test_auto_sizes_resolve_at_fit_and_explicit_ones_are_checked():
    from sklearn.datasets import load_wine

    est = NDFS(n_features_to_select=5, random_state=0).fit(load_wine().data)
    assert est.get_support().sum() == 5 and est.W_.shape == (13, 5)
    rng = np.random.default_rng(0)
    for n in (2, 3, 4):
        tiny = NDFS(random_state=0).fit(rng.standard_normal((n, 2)))
        assert tiny.n_clusters_ == tiny.n_neighbors_ == n - 1
    X = rng.standard_normal((4, 3))
    with pytest.raises(ValueError, match="n_clusters=5 must be smaller than the number of samples"):
        NDFS(n_clusters=5).fit(X)
    with pytest.raises(ValueError, match="n_neighbors=5 must be smaller than the number of samples"):
        NDFS(n_neighbors=5).fit(X)
    with pytest.raises(ValueError, match="'n_clusters' parameter of NDFS must be a str among {'auto'} or an int"):
        NDFS(n_clusters="five").fit(X)


def test_constant_column_is_ranked_last_and_w_covers_every_feature():
    data = make_planted(**SMALL)
    X = np.insert(data.X, 3, 2.5, axis=1)
    est = NDFS(n_clusters=3, random_state=0).fit(X)
    assert est.ranking_[3] == X.shape[1] and (est.W_[3] == 0).all()
    rest = NDFS(n_clusters=3, random_state=0).fit(data.X)
    assert_array_equal(np.delete(est.W_, 3, axis=0), rest.W_)


def _reference_iterations(X, A_norm, F, *, alpha, beta, gamma, max_iter, tol):
    """The iteration as first written (two solves per ridge, A F recomputed): the numbers to keep."""
    from ufskit.sparse_regression import EPS, has_converged, reweight, row_sq_norms

    g, objective = np.ones(X.shape[1]), []
    for _ in range(max_iter):
        ridge = DiagonalRidge(X, beta, g)
        MF = F - A_norm @ F + alpha * ridge.residual(F)
        FFtF = F @ (F.T @ F)
        F = F * (gamma * F + np.maximum(-MF, 0.0) + EPS) / (np.maximum(MF, 0.0) + gamma * FFtF + EPS)
        F /= np.linalg.norm(F, axis=0)
        W, R = ridge.coef(F), ridge.residual(F)
        g = reweight(row_sq_norms(W))
        gram = F.T @ F - np.eye(F.shape[1])
        objective.append(
            float(np.einsum("ij,ij->", F, F - A_norm @ F) + alpha * (np.einsum("ij,ij->", R, R) + beta * l21_norm(W))
                  + 0.25 * gamma * np.einsum("ij,ij->", gram, gram))
        )
        if has_converged(objective, tol):
            break
    return W, F, objective


@pytest.mark.parametrize("params", [SMALL, WIDE], ids=["d<n", "d>n"])
def test_faster_iteration_gives_the_same_numbers(params):
    X = make_planted(**params).X
    S = knn_graph(X, n_neighbors=5, weight="heat")
    F0 = spectral_init(S, 3, random_state=0)
    kw = dict(alpha=1.0, beta=100.0, gamma=1e8, max_iter=30, tol=1e-8)
    got = ndfs_iterations(X, normalized_adjacency(S), F0, **kw)
    want = _reference_iterations(X, normalized_adjacency(S), F0, **kw)
    for a, b in zip(got, want):
        assert_array_equal(a, b)


@pytest.mark.parametrize("params", [SMALL, WIDE], ids=["d<n", "d>n"])
def test_iteration_keeps_the_numbers_of_the_plain_formula(params):
    """The paper's updates written out with explicit matrices (M formed, (X'X + beta G)^-1 by a dense
    solve, no Woodbury, no shared products): same ranking, row norms within 1e-9 relative."""
    X = make_planted(**params).X
    n, d = X.shape
    S = knn_graph(X, n_neighbors=5, weight="heat")
    A = normalized_adjacency(S).toarray()
    F = spectral_init(S, 3, random_state=0)
    alpha, beta, gamma, eps = 1.0, 100.0, 1e8, np.finfo(np.float64).eps
    got, _, _ = ndfs_iterations(X, normalized_adjacency(S), F, alpha=alpha, beta=beta, gamma=gamma, max_iter=30, tol=0.0)
    g = np.ones(d)
    for _ in range(30):
        T = np.linalg.solve(X.T @ X + beta * np.diag(g), X.T)  # (X'X + beta G)^-1 X'
        M = np.eye(n) - A + alpha * (np.eye(n) - X @ T)
        MF = M @ F
        F = F * (gamma * F + np.maximum(-MF, 0) + eps) / (np.maximum(MF, 0) + gamma * F @ F.T @ F + eps)
        F = F / np.linalg.norm(F, axis=0)
        W = T @ F
        g = 0.5 / np.sqrt((W**2).sum(axis=1) + eps)
    got_norms, want_norms = np.linalg.norm(got, axis=1), np.linalg.norm(W, axis=1)
    assert_allclose(got_norms, want_norms, rtol=1e-9)
    assert_array_equal(np.argsort(-got_norms, kind="stable"), np.argsort(-want_norms, kind="stable"))


def test_lanczos_start_gives_the_dense_start(monkeypatch):
    """Above LANCZOS_MIN_SAMPLES the embedding comes from ARPACK; the K-means labels, hence F0, are the same."""
    from ufskit.selectors import ndfs as ndfs_module

    X = make_planted(n_samples=150, **{k: v for k, v in SMALL.items() if k != "n_samples"}).X
    S = knn_graph(X, n_neighbors=5, weight="heat")
    dense = spectral_init(S, 4, random_state=0)
    monkeypatch.setattr(ndfs_module, "LANCZOS_MIN_SAMPLES", 10)
    assert_array_equal(spectral_init(S, 4, random_state=0), dense)


def test_coef_and_residual_share_one_solve(rng):
    for shape in ((30, 8), (8, 30)):
        X, F = rng.standard_normal(shape), rng.random((shape[0], 3))
        ridge = DiagonalRidge(X, 2.0, rng.random(shape[1]) + 0.5)
        W, R = ridge.coef_and_residual(F)
        assert_array_equal(W, ridge.coef(F))
        assert_array_equal(R, ridge.residual(F))


@pytest.mark.parametrize("scale", [1e-3, 1e3])
def test_default_beta_follows_the_scale_of_x(scale):
    """beta = "auto" = 1.5 x RMS column norm scales with X, so the leading features do not depend on X's
    units (only up to the start G0 = I and the eps of the reweighting, which are not rescaled)."""
    X = make_planted(**SMALL).X
    a = NDFS(n_clusters=3, random_state=0).fit(X)
    b = NDFS(n_clusters=3, random_state=0).fit(X * scale)
    assert a.beta_ == pytest.approx(1.5 * np.sqrt(60)) and b.beta_ == pytest.approx(a.beta_ * scale)
    assert_array_equal(a.order_[:3], b.order_[:3])
    assert_allclose(b.scores_[a.order_[:2]] * scale, a.scores_[a.order_[:2]], rtol=0.05)


def test_default_beta_is_below_the_threshold_that_zeroes_every_row():
    """Soft-thresholding: a row keeps a weight only while beta < 2 ||x_i' F||, so beta = 2 x column norm
    (correlation 1) leaves every row at the eps level, the default 1.5 x keeps the planted ones."""
    data = make_planted(n_informative=5, random_state=0)
    norm = np.sqrt(60.0)
    default = NDFS(random_state=0).fit(data.X)
    alive = np.flatnonzero(default.scores_ > 1e-6)
    assert_array_equal(alive, data.informative)
    assert (NDFS(beta=2.0 * norm, random_state=0).fit(data.X).scores_ < 1e-6).all()
