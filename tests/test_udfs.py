"""UDFS: the local discriminative Laplacian, both eigen-solvers, the iteration, and the selector's behaviour."""

from __future__ import annotations

import importlib
import logging
import sys
import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse.linalg as spla
from numpy.testing import assert_allclose, assert_array_equal
from selector_checks import (
    assert_deterministic,
    assert_finds_planted,
    assert_permutation_equivariant,
    make_planted,
    run_check_estimator,
)

from ufskit.selectors import udfs as udfs_module
from ufskit.selectors.udfs import (
    UDFS,
    DenseSpectrum,
    LowRankSpectrum,
    ShiftInvertSpectrum,
    local_discriminative_laplacian,
    spectrum_of,
    udfs_iterations,
)

WIDE = {"n_samples": 45, "n_informative": 4, "n_noise": 50, "separation": 10.0}  # d = 54 > n = 45


def laplacian_by_definition(X, k, lam):
    """sum_i S_i H B_i H S_i' with explicit selection matrices, one sample at a time (test oracle)."""
    n = X.shape[0]
    D2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    np.fill_diagonal(D2, np.inf)
    H = np.eye(k + 1) - 1.0 / (k + 1)
    L = np.zeros((n, n))
    for i in range(n):
        hood = np.concatenate([[i], np.argsort(D2[i], kind="stable")[:k]])
        S_i = np.zeros((n, k + 1))
        S_i[hood, np.arange(k + 1)] = 1.0
        Xt = H @ X[hood]
        L += S_i @ H @ np.linalg.inv(Xt @ Xt.T + lam * np.eye(k + 1)) @ H @ S_i.T
    return L


@pytest.mark.parametrize("lam", [1e-2, 1e3])
def test_laplacian_matches_the_definition(rng, lam):
    X = rng.standard_normal((14, 6))
    L = local_discriminative_laplacian(X, 4, lam).toarray()
    assert_allclose(L, laplacian_by_definition(X, 4, lam), rtol=1e-9, atol=1e-12)
    assert_allclose(L, L.T)
    assert_allclose(L @ np.ones(14), 0.0, atol=1e-12)  # H kills constants
    assert np.linalg.eigvalsh(L).min() > -1e-12


def test_start_step_averages_a_degenerate_eigenspace():
    # M = diag(0, 0, 0, 5): G = I leaves any unit vector of the first three axes optimal for c = 1
    M = np.diag([0.0, 0.0, 0.0, 5.0])
    Q = np.linalg.qr(np.random.default_rng(1).standard_normal((4, 4)))[0]
    assert_allclose(DenseSpectrum(M).start_row_norms(1), [1 / 3, 1 / 3, 1 / 3, 0.0], atol=1e-12)
    # basis-free: a rotation of the features rotates the projector, whose diagonal is what we use
    P = Q @ np.diag([1.0, 1.0, 1.0, 0.0]) @ Q.T
    assert_allclose(DenseSpectrum(Q @ M @ Q.T).start_row_norms(2), 2 / 3 * np.diag(P), atol=1e-12)
    # non-degenerate: exactly the squared rows of the c smallest eigenvectors
    M = np.diag([3.0, 1.0, 2.0, 5.0])
    assert_allclose(DenseSpectrum(M).start_row_norms(2), [0.0, 1.0, 1.0, 0.0], atol=1e-12)


@pytest.mark.parametrize("c", [1, 3, 20])
def test_low_rank_start_step_equals_the_dense_one(rng, c):
    U = rng.standard_normal((30, 8))  # M = UU' of rank 8 on 30 features: 22-fold eigenvalue 0
    assert_allclose(LowRankSpectrum(U).start_row_norms(c), DenseSpectrum(U @ U.T).start_row_norms(c), atol=1e-10)


def test_low_rank_eigensolver_equals_lapack(rng, monkeypatch):
    U = rng.standard_normal((200, 12))
    shift = rng.uniform(0.5, 50.0, 200)
    W_dense = DenseSpectrum(U @ U.T).smallest(shift, 4)
    monkeypatch.setattr(LowRankSpectrum, "_dense_smallest", None)  # Lanczos answers, and its check passes
    W_low = LowRankSpectrum(U).smallest(shift, 4)
    assert_allclose(np.abs(W_low.T @ W_dense), np.eye(4), atol=1e-9)  # same eigenvectors up to sign


def test_shift_invert_eigensolver_equals_lapack(rng, monkeypatch):
    d = udfs_module.SHIFT_INVERT_MIN_DIM + 8  # large enough for the Cholesky path
    U = rng.standard_normal((d, 40))
    shift = rng.uniform(0.5, 50.0, d)
    W_dense = DenseSpectrum(U @ U.T).smallest(shift, 4)
    monkeypatch.setattr(udfs_module, "robust_eigh", None)  # LAPACK must not be what answers
    W_si = ShiftInvertSpectrum(U @ U.T).smallest(shift, 4)
    assert_allclose(np.abs(W_si.T @ W_dense), np.eye(4), atol=1e-9)  # same eigenvectors up to sign


def _unconverged(*args, **kwargs):
    raise spla.ArpackNoConvergence("no convergence", np.empty(0), np.empty((0, 0)))


def test_an_unconverged_lanczos_hands_over_to_lapack(rng, monkeypatch):
    """ARPACK at tol = 0 may never converge on a near-degenerate spectrum (20NewsgroupA's SOGFS): after
    ARPACK_MAX_RESTARTS restarts the exact LAPACK answer is taken, on both shift-invert paths."""
    d = udfs_module.SHIFT_INVERT_MIN_DIM + 8
    U = rng.standard_normal((d, 40))
    shift = rng.uniform(0.5, 50.0, d)
    W_dense = DenseSpectrum(U @ U.T).smallest(shift, 4)
    monkeypatch.setattr(udfs_module.spla, "eigsh", _unconverged)
    for W in (LowRankSpectrum(U).smallest(shift, 4),
              ShiftInvertSpectrum(U @ U.T).smallest(shift, 4)):
        assert_allclose(np.abs(W.T @ W_dense), np.eye(4), atol=1e-9)
    monkeypatch.setattr(udfs_module, "DENSE_FALLBACK_MAX_DIM", d - 1)
    with pytest.raises(RuntimeError, match=f"did not converge in {udfs_module.ARPACK_MAX_RESTARTS} restarts.*{d} x {d}"):
        LowRankSpectrum(U).smallest(shift, 4)


def _skipping_the_smallest(A, k, **kwargs):
    """What Lanczos returns when its start vector misses the smallest eigenvector: true eigenpairs 2 .. k + 1."""
    values, vectors = np.linalg.eigh(A @ np.eye(A.shape[0]))
    return values[1:k + 1], vectors[:, 1:k + 1]


def test_a_lanczos_answer_that_skips_an_eigenvalue_is_caught(rng, monkeypatch, caplog):
    """Converged Ritz pairs that are true eigenpairs yet not the smallest (Brain_Tumor2's UDFS at a structured
    start vector): the check sees the missed one (Sylvester's count on the low-rank path, a Cholesky factor with
    the found pairs moved up on the dense one), and the exact LAPACK answer is taken on both paths."""
    d = udfs_module.SHIFT_INVERT_MIN_DIM + 8
    U = rng.standard_normal((d, 40))
    shift = rng.uniform(0.5, 50.0, d)
    W_dense = DenseSpectrum(U @ U.T).smallest(shift, 4)
    monkeypatch.setattr(udfs_module.spla, "eigsh", _skipping_the_smallest)
    caplog.set_level(logging.INFO, logger="ufskit.selectors.udfs")
    for W in (LowRankSpectrum(U).smallest(shift, 4), ShiftInvertSpectrum(U @ U.T).smallest(shift, 4)):
        assert_allclose(np.abs(W.T @ W_dense), np.eye(4), atol=1e-9)
    assert caplog.text.count("skipped an eigenvalue below its c-th") == 2


def test_repeated_eigenvalues_of_the_diagonal_plus_low_rank_matrix(rng):
    """Rows of U that are zero make e_i eigenvectors with eigenvalue shift_i; repeated shifts make them
    multiple (Brain_Tumor2's UDFS: one eigenvalue 4-fold). The c found span eigenvalues as small as LAPACK's."""
    d, r, c = 600, 20, 4
    U = rng.standard_normal((d, r))
    U[:10] = 0.0
    shift = rng.uniform(1.0, 2.0, d)
    shift[:10] = 0.5  # 10-fold eigenvalue 0.5 at the bottom, then a gap
    shift[10:13] = 0.3  # below it, coupled to U
    A = U @ U.T + np.diag(shift)
    exact = np.linalg.eigvalsh(A)[:c].sum()
    for W in (LowRankSpectrum(U).smallest(shift, c), ShiftInvertSpectrum(U @ U.T).smallest(shift, c)):
        assert_allclose(W.T @ W, np.eye(c), atol=1e-10)
        assert np.trace(W.T @ A @ W) == pytest.approx(exact, rel=1e-10)


def test_shift_invert_defers_to_lapack_when_m_is_indefinite(rng):
    # rounding can make M + diag(shift - sigma) indefinite; here M itself is: the Cholesky fails, LAPACK answers
    d = udfs_module.SHIFT_INVERT_MIN_DIM
    U = rng.standard_normal((d, 10))
    M = U @ U.T - np.diag(rng.uniform(0.0, 2.0, d))
    shift = rng.uniform(0.5, 5.0, d)
    assert_allclose(ShiftInvertSpectrum(M).smallest(shift, 3),
                    DenseSpectrum(M).smallest(shift, 3), atol=1e-12)


@pytest.mark.parametrize("gamma", [1e-3, 1.0])
def test_low_rank_path_equals_the_d_by_d_path(gamma):
    X = make_planted(**WIDE).X
    L = local_discriminative_laplacian(X, 5, 1e3)
    W_d, obj_d = udfs_iterations(spectrum_of(X, L, low_rank=False), 3, gamma, 40, 0.0)
    W_l, obj_l = udfs_iterations(spectrum_of(X, L, low_rank=True), 3, gamma, 40, 0.0)
    assert isinstance(spectrum_of(X, L), LowRankSpectrum)
    m = min(len(obj_l), len(obj_d))  # with tol = 0 each stops when its objective repeats exactly
    assert m >= 10
    assert_allclose(obj_l[:m], obj_d[:m], rtol=1e-7)
    assert_allclose(W_l @ W_l.T, W_d @ W_d.T, atol=1e-8)


@pytest.mark.parametrize("params", [{}, WIDE], ids=["d<n", "d>n"])
def test_finds_planted_features(params):
    est = assert_finds_planted(UDFS(n_clusters=3), make_planted(**params))
    assert_allclose(est.W_.T @ est.W_, np.eye(3), atol=1e-10)
    assert_allclose(est.scores_, np.linalg.norm(est.W_, axis=1))


@pytest.mark.parametrize("params", [{}, WIDE], ids=["d<n", "d>n"])
def test_objective_is_non_increasing(params):
    X = make_planted(**params).X
    est = UDFS(n_clusters=3, gamma=1e-3, max_iter=30, tol=1e-15).fit(X)
    obj = np.asarray(est.objective_)
    assert obj.size == est.n_iter_
    assert np.all(np.diff(obj) <= 1e-10 * np.abs(obj[:-1]))
    W = est.W_
    M = X.T @ local_discriminative_laplacian(X, 5, 1e3) @ X
    expected = np.trace(W.T @ M @ W) + 1e-3 * np.sqrt((W**2).sum(1) + np.finfo(float).eps).sum()
    assert_allclose(obj[-1], expected, rtol=1e-9)


def test_scaling_x_with_lam_is_exact():
    # M depends on X and lam only through X / sqrt(lam), and W is scale-free
    X = make_planted().X
    a = UDFS(n_clusters=3, lam=10.0).fit(X)
    b = UDFS(n_clusters=3, lam=10.0 * 7.0**2).fit(7.0 * X)
    assert_allclose(b.scores_, a.scores_, rtol=1e-6, atol=1e-9)
    assert_array_equal(b.order_[:10], a.order_[:10])


def test_permutation_equivariant():
    # a small gamma keeps the scores spread out (a large one drives all but c rows to 0: all tied)
    assert_permutation_equivariant(UDFS(n_clusters=3, gamma=1e-3), make_planted().X)
    assert_permutation_equivariant(UDFS(n_clusters=3, gamma=1e-3), make_planted(**WIDE).X)


def test_deterministic():
    assert_deterministic(UDFS(n_clusters=3), make_planted().X)
    assert_deterministic(UDFS(n_clusters=3), make_planted(**WIDE).X)


def test_runs_when_d_is_at_most_k_plus_1(rng):
    # the thyroid case of the kernel-UDFS paper (d = 5 <= k + 1 = 6): the paper's formula throughout
    X = rng.standard_normal((40, 5))
    est = UDFS(n_clusters=2, n_neighbors=5, lam=1e3, gamma=1e-3).fit(X)
    assert np.all(np.isfinite(est.scores_))


@pytest.mark.parametrize(
    "params, message",
    [
        ({"n_clusters": 50}, "n_clusters"),
        ({"n_clusters": 0}, "n_clusters"),
        ({"lam": 0.0}, "lam"),
        ({"gamma": -1.0}, "gamma"),
        ({"tol": np.nan}, "tol"),
        ({"max_iter": 1.5}, "max_iter"),
        ({"n_neighbors": 60}, "n_neighbors"),
    ],
)
def test_bad_parameters(params, message):
    X = make_planted().X
    with pytest.raises(ValueError, match=message):
        UDFS(**{"n_clusters": 3, **params}).fit(X)


def test_no_d_by_d_matrix_when_d_exceeds_n(rng):
    X = rng.standard_normal((30, 4000))  # a d x d float64 matrix would take 122 MiB
    tracemalloc.start()
    try:
        UDFS(n_clusters=3, max_iter=5).fit(X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20


def test_bad_input():
    X = make_planted().X
    X[0, 0] = np.inf
    with pytest.raises(ValueError):
        UDFS(n_clusters=3).fit(X)


def test_sklearn_check_estimator():
    run_check_estimator(UDFS(n_clusters=2, max_iter=10))


def test_agrees_with_itmo_fs_on_wine(mirror, monkeypatch):
    """ITMO_FS 0.3.3's UDFS builds S_i correctly (unlike scikit-feature's): same M, same iteration."""
    pytest.importorskip("ITMO_FS")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        importlib.import_module("ITMO_FS.filters.sparse.UDFS")
    module = sys.modules["ITMO_FS.filters.sparse.UDFS"]
    # ITMO_FS calls eigh(eigvals=...), removed in SciPy 1.14: map it to subset_by_index
    monkeypatch.setattr(module, "eigh", lambda a, eigvals: scipy.linalg.eigh(a, subset_by_index=list(eigvals)))
    data = np.loadtxt(mirror / "uci" / "wine" / "wine.data", delimiter=",")
    X = data[::2, 1:]  # 89 samples x 13 features (ITMO_FS needs n^3 memory)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    for gamma in (1e-3, 1.0):
        W = module.UDFS(p=5, c=3, k=5, gamma=gamma, l=1e3, max_iterations=200, epsilon=0.0).run(X)
        est = UDFS(n_clusters=3, n_neighbors=5, lam=1e3, gamma=gamma, max_iter=200, tol=1e-14).fit(X)
        theirs = np.linalg.norm(W, axis=1)
        assert_allclose(est.scores_, theirs, rtol=0, atol=1e-7)
        if gamma < 1:  # spread-out scores: the same order
            assert_array_equal(est.order_, np.argsort(-theirs, kind="stable"))
        else:  # W picks exactly c = 3 features (scores 1, the rest 0): the same three
            assert_array_equal(np.flatnonzero(est.scores_ > 0.5), np.flatnonzero(theirs > 0.5))
            assert np.sum(theirs > 0.5) == 3


def test_robust_eigh_falls_back_when_mrrr_fails(monkeypatch):
    """syevr's 'Internal Error' on clustered spectra (seen on near-diagonal RBF Gram matrices) is survived."""
    A = np.diag([3.0, 1.0, 2.0]) + 1e-3
    real_eigh = scipy.linalg.eigh

    def flaky(M, *args, driver=None, **kwargs):
        if driver != "evd":
            raise np.linalg.LinAlgError("Internal Error.")
        return real_eigh(M, *args, driver=driver, **kwargs)

    monkeypatch.setattr(udfs_module.scipy.linalg, "eigh", flaky)
    values, vectors = udfs_module.robust_eigh(A, 2)
    expected = np.linalg.eigvalsh(A)[:2]
    np.testing.assert_allclose(values, expected)
    np.testing.assert_allclose(np.abs(vectors.T @ A @ vectors), np.diag(expected), atol=1e-12)


# ---- defaults on any data and degenerate input ----


def test_default_instance_passes_sklearn_estimator_checks():
    run_check_estimator(UDFS())


@pytest.mark.parametrize("seed", range(5))
def test_defaults_find_planted_features_on_z_scored_data(seed):
    est = assert_finds_planted(UDFS(), make_planted(n_informative=5, random_state=seed))
    assert est.n_clusters_ == 5 and est.n_neighbors_ == 5


def test_default_gamma_keeps_a_ranking_past_the_first_c_features():
    """gamma = 1 (the old default) drives all but about c rows of W to 0 when d > n, so the ranking
    past them is index order; the default 1e-3 keeps them apart."""
    X = make_planted(**WIDE).X
    nonzero = {g: int((UDFS(n_clusters=3, gamma=g).fit(X).scores_ > 1e-6).sum()) for g in (1.0, 1e-3)}
    assert nonzero[1e-3] > 3 * nonzero[1.0]


def test_auto_sizes_resolve_at_fit_and_explicit_ones_are_checked():
    from sklearn.datasets import load_wine

    est = UDFS(n_features_to_select=5).fit(load_wine().data)
    assert est.get_support().sum() == 5 and est.W_.shape == (13, 5)
    rng = np.random.default_rng(0)
    for n, d in ((2, 1), (3, 2), (4, 7)):
        tiny = UDFS().fit(rng.standard_normal((n, d)))
        assert (tiny.n_clusters_, tiny.n_neighbors_) == (min(5, d, n - 1), n - 1)
    X = rng.standard_normal((4, 3))
    with pytest.raises(ValueError, match="n_clusters=4 exceeds n_features = 3"):
        UDFS(n_clusters=4).fit(X)
    with pytest.raises(ValueError, match="n_neighbors=5 must be in"):
        UDFS(n_neighbors=5).fit(X)


def test_constant_and_zero_columns_are_ranked_last_and_w_covers_every_feature():
    X = make_planted().X
    X = np.insert(X, [2, 7], [0.0, 4.0], axis=1)  # an all-zero and a constant column
    est = UDFS(n_clusters=3).fit(X)
    flat = [2, 8]
    assert sorted(est.ranking_[flat]) == [X.shape[1] - 1, X.shape[1]]
    assert (est.W_[flat] == 0).all() and est.W_.shape == (X.shape[1], 3)
    with pytest.raises(ValueError, match="no varying feature"):
        UDFS().fit(np.zeros((10, 4)))


@pytest.mark.parametrize("scale", [1e-90, 1e90])
def test_default_lam_follows_the_scale_of_x(scale):
    """lam = "auto" = 1e3 x mean(X^2): UDFS(s X) = UDFS(X) (M depends on X / sqrt(lam) only)."""
    X = make_planted().X
    a, b = UDFS(n_clusters=3).fit(X), UDFS(n_clusters=3).fit(X * scale)
    assert a.lam_ == pytest.approx(1e3) and b.lam_ == pytest.approx(1e3 * scale**2)
    assert_allclose(b.scores_, a.scores_, rtol=1e-7, atol=1e-10)
    with pytest.raises(ValueError, match="lam=1000 is below rounding against the local Gram matrices"):
        UDFS(n_clusters=3, lam=1e3).fit(X * 1e90)
