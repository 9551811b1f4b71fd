"""LLCFS, SPFS and Trace Ratio: each step against a direct computation, and the invariances the docstrings state."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from selector_checks import make_planted

from ufskit.graph import knn_indices, pairwise_sq_dists
from ufskit.selectors import LLCFS, SPFS, TraceRatio
from ufskit.selectors.llcfs import local_predictors
from ufskit.selectors.spfs import forward_selection
from ufskit.selectors.trace_ratio import best_subset


def small(seed=0, n=30, d=10):
    return make_planted(n_samples=n, n_informative=3, n_noise=d - 3, random_state=seed).X


# ---- Trace Ratio ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_trace_ratio_subset_is_the_brute_force_optimum(seed):
    rng = np.random.default_rng(seed)
    sb, sw = rng.uniform(0.1, 3.0, 10), rng.uniform(0.1, 3.0, 10)
    for m in (2, 4, 7):
        order, ratio, _ = best_subset(sb, sw, m, max_iter=50)
        best = max(combinations(range(10), m), key=lambda s: sb[list(s)].sum() / sw[list(s)].sum())
        assert set(order[:m]) == set(best)
        assert ratio == pytest.approx(sb[list(best)].sum() / sw[list(best)].sum())


def test_trace_ratio_beats_the_feature_level_choice():
    """The subset score of the selection is at least that of the m best feature-level ratios (the paper's point)."""
    X = small(3, d=12)
    est = TraceRatio(n_features_to_select=4).fit(X)
    by_ratio = np.argsort(-est.feature_ratios_)[:4]
    chosen = est.order_[:4]
    assert est.trace_ratio_ >= est._sb[by_ratio].sum() / est._sw[by_ratio].sum() - 1e-12
    assert est.trace_ratio_ == pytest.approx(est._sb[chosen].sum() / est._sw[chosen].sum())


# ---- SPFS -------------------------------------------------------------------------------------------------


def test_spfs_gains_are_the_residual_reductions():
    """The vectorised selection equals the greedy on the explicit residual R = K - X_F X_F' (the authors' loop)."""
    X = small(1)
    K = np.exp(-pairwise_sq_dists(X) / 7.0)
    order, scores = forward_selection(X, K)
    R, free = K.copy(), list(range(X.shape[1]))
    for step in range(X.shape[1]):
        gains = [2 * X[:, j] @ R @ X[:, j] - (X[:, j] @ X[:, j]) ** 2 for j in free]
        j = free[int(np.argmax(gains))]
        assert order[step] == j
        assert scores[j] == pytest.approx(max(gains), rel=1e-10, abs=1e-10 * abs(max(gains)))
        R -= np.outer(X[:, j], X[:, j])
        free.remove(j)
    assert np.all(np.diff(scores[order]) <= 1e-9 * np.abs(scores).max())


def test_spfs_is_scale_free_and_penalises_a_duplicate():
    X = small(2)
    a = SPFS().fit(X)
    assert_array_equal(SPFS().fit(X * 2.0**-20).ranking_, a.ranking_)
    twin = np.column_stack([X, X[:, a.order_[0]]])  # the best feature twice: the copy explains nothing new
    b = SPFS().fit(twin)
    assert b.ranking_[-1] == twin.shape[1] or b.ranking_[a.order_[0]] == twin.shape[1]


# ---- LLCFS ------------------------------------------------------------------------------------------------


def test_llcfs_local_predictors_match_the_direct_kernel_ridge():
    """A's rows and C from distances equal the authors' formulas on explicit weighted samples."""
    rng = np.random.default_rng(0)
    Z = rng.standard_normal((15, 4))
    beta, k = 0.7, 4
    D2 = pairwise_sq_dists(Z)
    hood = knn_indices(D2.copy(), k)
    A, C = local_predictors(D2, hood, beta)
    A = A.toarray()
    H = np.eye(k) - 1.0 / k
    for i in range(Z.shape[0]):
        Ki = Z[hood[i]] @ Z[hood[i]].T
        Ci = H @ np.linalg.inv(H @ Ki @ H + np.eye(k) / beta)
        row = (Z[i] @ Z[hood[i]].T - Ki.sum(axis=0) / k) @ Ci + 1.0 / k
        assert_allclose(C[i], Ci, atol=1e-10)
        assert_allclose(A[i, hood[i]], row, atol=1e-10)
    assert_allclose(A.sum(axis=1), 1.0)  # a constant indicator is predicted exactly


def test_llcfs_weights_sum_to_one_and_ignore_scale():
    X = small(4)
    a = LLCFS().fit(X)
    assert a.scores_.sum() == pytest.approx(1.0) and np.all(a.scores_ >= 0)
    b = LLCFS().fit(X * 1e-30)
    assert_allclose(b.scores_, a.scores_, rtol=1e-6, atol=1e-9)
    assert a.beta_ == pytest.approx(1.0 / np.mean((X - X.mean(axis=0)) ** 2))


def test_llcfs_sparse_and_dense_eigensolvers_agree(monkeypatch):
    """Above DENSE_MAX_SAMPLES the c smallest eigenvectors come from shift-invert Lanczos: same weights."""
    import ufskit.selectors.llcfs as llcfs

    X = make_planted(n_samples=120, n_informative=4, n_noise=16, random_state=5).X
    dense = LLCFS(max_iter=5).fit(X)
    monkeypatch.setattr(llcfs, "DENSE_MAX_SAMPLES", 50)
    sparse = LLCFS(max_iter=5).fit(X)
    assert_allclose(sparse.scores_, dense.scores_, rtol=1e-6, atol=1e-10)
    assert_allclose(sparse.objective_, dense.objective_, rtol=1e-6, atol=1e-12)
