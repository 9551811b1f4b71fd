"""Checked Lanczos (ufskit.lanczos): the inertia count, the driver, and its three further call sites (the spectral
embedding of MCFS, SPEC and NDFS; LLCFS; Inf-FS), each on a plain case and on an answer that misses an eigenvector."""

from __future__ import annotations

import logging

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from numpy.testing import assert_allclose

from ufskit import lanczos
from ufskit.graph import knn_graph
from ufskit.selectors import llcfs
from ufskit.selectors.inffs import LANCZOS_MIN_FEATURES, spearman_matrix, spectral_radius, spread_matrix
from ufskit.spectral import smallest_nontrivial_eigenpairs

LOGGERS = ("ufskit.spectral", "ufskit.selectors.llcfs", "ufskit.selectors.inffs", "ufskit.selectors.udfs")


@pytest.fixture
def log(caplog):
    for name in LOGGERS:
        caplog.set_level(logging.INFO, logger=name)
    return caplog


def dense(A):
    return A @ np.eye(A.shape[0])  # a LinearOperator, a sparse or a dense matrix as an array


def _extreme_end(values, which, sigma):
    """Eigenvalue order from the end eigsh's ``which`` / ``sigma`` asks for (nearest sigma first in shift-invert)."""
    if sigma is not None:
        return np.argsort(np.abs(values - sigma), kind="stable")
    return np.argsort(-values if which == "LA" else values, kind="stable")


def _skipping_the_extreme(A, k, which="LM", sigma=None, **kwargs):
    """Converged true eigenpairs, but not the wanted ones: the k after the most extreme (the one skipped)."""
    values, vectors = np.linalg.eigh(dense(A))
    pick = _extreme_end(values, which, sigma)[1:k + 1]
    return values[pick], vectors[:, pick]


def lanczos_seeing_only(start):
    """What Lanczos from ``start`` returns in exact arithmetic: its Krylov space holds only the eigenvectors that
    ``start`` touches, and among them it finds the k extreme ones (the v0 it is given is ignored)."""

    def eigsh(A, k, which="LM", sigma=None, **kwargs):
        values, vectors = np.linalg.eigh(dense(A))
        seen = np.abs(vectors.T @ start) > 1e-8 * np.linalg.norm(start)
        values, vectors = values[seen], vectors[:, seen]
        pick = _extreme_end(values, which, sigma)[:k]
        return values[pick], vectors[:, pick]

    return eigsh


def clustered_graph(rng, n=240, clusters=4):
    """A kNN graph of separated clusters: in pieces, the normalised graph's eigenvalue 1 is multiple."""
    X = np.repeat(rng.standard_normal((clusters, 5)) * 3.0, n // clusters, axis=0) + rng.standard_normal((n, 5))
    return knn_graph(X, n_neighbors=5)


def random_graph(rng, n=240):
    """A connected kNN graph whose smallest Laplacian eigenvalues are well apart."""
    return knn_graph(rng.standard_normal((n, 3)), n_neighbors=5)


def mirrored_graph(rng, half=120):
    """Two identical copies of a kNN graph joined node to node (i <-> i + half, weight 0.1): swapping the halves
    maps the graph onto itself, so the degrees and the constant vector are symmetric, and every eigenvector
    antisymmetric under the swap (the Fiedler vector among them) is orthogonal to any Krylov space they start."""
    G = knn_graph(rng.standard_normal((half, 3)), n_neighbors=5)
    bridge = sp.identity(half, format="csr") * 0.1
    return sp.bmat([[G, bridge], [bridge, G]], format="csr")


# ---- the inertia count ------------------------------------------------------------------------------------


def test_negative_count_is_the_number_of_negative_eigenvalues(rng):
    """Sylvester's count from the sparse symmetric factor, for mu D - W across the normalised graph's spectrum,
    for M - mu I of an LLCFS-like M = B'B and for a random indefinite matrix."""
    W = clustered_graph(rng)
    d = np.asarray(W.sum(axis=1)).ravel()
    lam = np.linalg.eigvalsh(dense(W) / np.sqrt(np.outer(d, d)))
    for mu in np.r_[np.quantile(lam, [0.02, 0.5, 0.9, 0.99]), 0.999, 1.001] + 1e-12:
        assert lanczos.negative_count(mu * sp.diags(d) - W) == np.count_nonzero(lam > mu)
    B = sp.identity(240) - W.multiply(1.0 / d[:, None])
    M = (B.T @ B).tocsc()
    lam = np.linalg.eigvalsh(dense(M))
    for mu in np.quantile(lam, [0.01, 0.1, 0.5]) + 1e-9:
        assert lanczos.negative_count(M - mu * sp.identity(240)) == np.count_nonzero(lam < mu)
    R = sp.random(300, 300, density=0.02, random_state=1)
    R = R + R.T + sp.diags(rng.standard_normal(300))
    assert lanczos.negative_count(R) == np.count_nonzero(np.linalg.eigvalsh(dense(R)) < 0)


def test_negative_count_gives_up_on_a_zero_pivot():
    assert lanczos.negative_count(sp.csr_matrix([[0.0, 1.0], [1.0, 0.0]])) is None  # an off-diagonal pivot
    assert lanczos.negative_count(sp.csr_matrix([[1.0, 1.0], [1.0, 1.0]])) is None  # singular


# ---- the driver -------------------------------------------------------------------------------------------


def _random_symmetric(rng, n=200):
    Q = np.linalg.qr(rng.standard_normal((n, n)))[0]
    return (Q * np.linspace(-3.0, 5.0, n)) @ Q.T


def _exact_count_check(A, largest):
    lam = np.linalg.eigvalsh(A)

    def check(mu, values, vectors):
        beyond = (lambda x: x > mu) if largest else (lambda x: x < mu)
        return np.count_nonzero(beyond(lam)) == np.count_nonzero(beyond(values))

    return check


@pytest.mark.parametrize("largest", [True, False])
def test_checked_eigsh_answers_when_the_check_passes(rng, log, largest):
    A = _random_symmetric(rng)
    values, vectors = lanczos.checked_eigsh(A, 4, largest=largest, check=_exact_count_check(A, largest),
                                            logger=logging.getLogger("ufskit.spectral"), what="test",
                                            which="LA" if largest else "SA")
    lam = np.linalg.eigvalsh(A)
    assert_allclose(values, lam[-4:] if largest else lam[:4], rtol=1e-12)
    assert_allclose(np.linalg.norm(A @ vectors - vectors * values, axis=0), 0.0, atol=1e-12)
    assert "LAPACK answers" not in log.text


@pytest.mark.parametrize("largest", [True, False])
def test_checked_eigsh_refuses_an_answer_that_skips_an_eigenvalue(rng, log, monkeypatch, largest):
    A = _random_symmetric(rng)
    monkeypatch.setattr(spla, "eigsh", _skipping_the_extreme)
    assert lanczos.checked_eigsh(A, 4, largest=largest, check=_exact_count_check(A, largest),
                                 logger=logging.getLogger("ufskit.spectral"), what="test",
                                 which="LA" if largest else "SA") is None
    side = "above" if largest else "below"
    assert f"test skipped an eigenvalue {side} its c-th (200 x 200, c = 4): LAPACK answers" in log.text


def test_checked_eigsh_hands_over_when_arpack_does_not_converge_or_the_check_cannot_tell(rng, log, monkeypatch):
    A = _random_symmetric(rng)
    ask = {"largest": True, "logger": logging.getLogger("ufskit.spectral"), "what": "test", "which": "LA"}
    assert lanczos.checked_eigsh(A, 2, check=lambda mu, values, vectors: None, **ask) is None
    assert "test could not check for an eigenvalue above its c-th" in log.text

    def unconverged(*args, **kwargs):
        raise spla.ArpackNoConvergence("no convergence", np.empty(0), np.empty((0, 0)))

    monkeypatch.setattr(spla, "eigsh", unconverged)
    assert lanczos.checked_eigsh(A, 2, check=None, maxiter=7, **ask) is None
    assert "test did not converge in 7 restarts (200 x 200): LAPACK answers" in log.text


def test_the_start_vector_is_fixed_and_random():
    v = lanczos.start_vector(500)
    assert_allclose(v, lanczos.start_vector(500), rtol=0, atol=0)
    assert abs(v.mean()) < 0.2 and 0.8 < v.std() < 1.2


# ---- the spectral embedding (MCFS, SPEC, NDFS) -------------------------------------------------------------


def _assert_same_eigenvectors(V, U, atol=1e-8):
    assert_allclose(np.abs(V.T @ U), np.eye(V.shape[1]), atol=atol)


def test_spectral_lanczos_answers_and_passes_its_check(rng, log):
    for W in (random_graph(rng), mirrored_graph(rng)):
        lam, V = smallest_nontrivial_eigenpairs(W, 4, dense_max_samples=10)
        lam_dense, V_dense = smallest_nontrivial_eigenpairs(W, 4)
        assert_allclose(lam, lam_dense, atol=1e-12)
        assert_allclose(V, V_dense, atol=1e-8)  # the signs are fixed, a mirrored pair of largest entries included
    assert "LAPACK answers" not in log.text


def test_spectral_check_catches_the_constant_start_missing_the_antisymmetric_eigenvectors(rng, log, monkeypatch):
    """On the mirrored graph the old start (the constant vector) sees only eigenvectors symmetric under the swap;
    the wanted ones include antisymmetric ones (the Fiedler vector splits the halves). Lanczos from it returns
    true eigenpairs, the check counts more eigenvalues above the k-th, and LAPACK answers."""
    W = mirrored_graph(rng)
    n = W.shape[0]
    _, V_dense = smallest_nontrivial_eigenpairs(W, 4)
    swap = np.r_[np.arange(n // 2, n), np.arange(n // 2)]
    assert np.any(np.abs(V_dense[swap] + V_dense).max(axis=0) < 1e-8)  # an antisymmetric eigenvector is wanted
    monkeypatch.setattr(spla, "eigsh", lanczos_seeing_only(np.full(n, 1.0 / np.sqrt(n))))
    _, V = smallest_nontrivial_eigenpairs(W, 4, dense_max_samples=10)
    assert_allclose(V, V_dense, atol=1e-10)
    assert "Lanczos on the normalised graph skipped an eigenvalue above its c-th" in log.text


def test_spectral_check_catches_a_skipped_eigenvalue(rng, log, monkeypatch):
    W = random_graph(rng)
    _, V_dense = smallest_nontrivial_eigenpairs(W, 3)
    monkeypatch.setattr(spla, "eigsh", _skipping_the_extreme)
    _, V = smallest_nontrivial_eigenpairs(W, 3, dense_max_samples=10)
    assert_allclose(V, V_dense, atol=1e-10)
    assert log.text.count("skipped an eigenvalue above its c-th") == 1


def test_spectral_check_passes_on_a_disconnected_graph(rng, log):
    """Four separate clusters: S's eigenvalue 1 is 4-fold, the 3 wanted non-trivial pairs are all at 1 (above
    every other), and no factor is needed to confirm that."""
    X = np.repeat(rng.standard_normal((4, 5)) * 100.0, 60, axis=0) + rng.standard_normal((240, 5))
    W = knn_graph(X, n_neighbors=5)
    lam, V = smallest_nontrivial_eigenpairs(W, 3, dense_max_samples=10)
    assert_allclose(lam, 0.0, atol=1e-12)
    _, V_dense = smallest_nontrivial_eigenpairs(W, 3)
    assert_allclose(V @ V.T, V_dense @ V_dense.T, atol=1e-8)  # the same eigenspace
    assert "LAPACK answers" not in log.text


# ---- LLCFS ------------------------------------------------------------------------------------------------


def _llcfs_matrix(rng, n=240):
    W = random_graph(rng, n)
    d = np.asarray(W.sum(axis=1)).ravel()
    B = sp.identity(n) - W.multiply(1.0 / d[:, None])  # rows of the predictor sum to 1, as LLCFS's A's
    return (B.T @ B).tocsr()


def test_llcfs_lanczos_answers_and_passes_its_check(rng, log, monkeypatch):
    M = _llcfs_matrix(rng)
    lam_dense, Y_dense = llcfs.smallest_eigenpairs(M, 5)
    monkeypatch.setattr(llcfs, "DENSE_MAX_SAMPLES", 50)
    monkeypatch.setattr(llcfs.scipy.linalg, "eigh", None)  # LAPACK must not be what answers
    lam, Y = llcfs.smallest_eigenpairs(M, 5)
    assert_allclose(lam, lam_dense, atol=1e-12)
    _assert_same_eigenvectors(Y, Y_dense)
    assert "LAPACK answers" not in log.text


def test_llcfs_check_catches_a_skipped_eigenvalue(rng, log, monkeypatch):
    M = _llcfs_matrix(rng)
    lam_dense, Y_dense = llcfs.smallest_eigenpairs(M, 5)
    monkeypatch.setattr(llcfs, "DENSE_MAX_SAMPLES", 50)
    monkeypatch.setattr(spla, "eigsh", _skipping_the_extreme)
    lam, Y = llcfs.smallest_eigenpairs(M, 5)
    assert_allclose(lam, lam_dense, rtol=0, atol=0)
    assert "LLCFS's shift-invert Lanczos skipped an eigenvalue below its c-th (240 x 240, c = 5)" in log.text


def test_llcfs_check_treats_a_multiple_eigenvalue_0_as_ties(rng, log, monkeypatch):
    """A kNN graph in more pieces than c (COIL20's): M's c smallest eigenvalues are all 0 up to rounding, with
    more zeros beyond; any c null vectors are an answer, and the margin of 1e-9 ||M|| lets the check pass."""
    X = np.repeat(rng.standard_normal((8, 5)) * 100.0, 30, axis=0) + rng.standard_normal((240, 5))
    W = knn_graph(X, n_neighbors=5)
    d = np.asarray(W.sum(axis=1)).ravel()
    B = sp.identity(240) - W.multiply(1.0 / d[:, None])
    M = (B.T @ B).tocsr()
    monkeypatch.setattr(llcfs, "DENSE_MAX_SAMPLES", 50)
    lam, Y = llcfs.smallest_eigenpairs(M, 5)
    assert_allclose(lam, 0.0, atol=1e-12)
    assert_allclose(M @ Y, 0.0, atol=1e-10)
    assert "LAPACK answers" not in log.text


# ---- Inf-FS -----------------------------------------------------------------------------------------------


def _inffs_matrix(rng, d=LANCZOS_MIN_FEATURES + 50):
    X = rng.standard_normal((40, d)) * rng.uniform(0.5, 2.0, d)
    return 0.5 * spread_matrix(X) + 0.5 * (1.0 - np.abs(spearman_matrix(X)))


def test_inffs_lanczos_answers_and_passes_its_check(rng, log):
    A = _inffs_matrix(rng)
    rho = spectral_radius(A)
    assert rho == pytest.approx(np.linalg.eigvalsh(A)[-1], rel=1e-13)
    assert "LAPACK answers" not in log.text


def test_inffs_check_catches_a_ritz_value_below_the_perron_root(rng, log, monkeypatch):
    A = _inffs_matrix(rng)
    exact = scipy.linalg.eigvalsh(A, subset_by_index=[A.shape[0] - 1] * 2)[0]
    monkeypatch.setattr(spla, "eigsh", _skipping_the_extreme)
    assert spectral_radius(A) == exact
    assert "Lanczos for rho(A) skipped an eigenvalue above its c-th (250 x 250, c = 1)" in log.text


def test_inffs_check_cannot_tell_from_a_perron_vector_with_a_zero_entry(log, monkeypatch):
    """A feature with no edge (a zero row of A) has entry 0 in the Perron vector: the bound cannot be formed,
    and LAPACK answers."""
    A = np.ones((LANCZOS_MIN_FEATURES, LANCZOS_MIN_FEATURES))
    A[0], A[:, 0] = 0.0, 0.0
    monkeypatch.setattr(spla, "eigsh", lambda A, k, **kwargs: (np.array([A.shape[0] - 1.0]),
                                                               np.r_[0.0, np.ones(A.shape[0] - 1)][:, None]))
    assert spectral_radius(A) == pytest.approx(LANCZOS_MIN_FEATURES - 1.0, rel=1e-14)
    assert "Lanczos for rho(A) could not check for an eigenvalue above its c-th" in log.text
