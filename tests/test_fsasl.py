"""FSASL: the structure steps, parity with the authors' code on three datasets, conventions."""

from __future__ import annotations

import numpy as np
import pytest
from parity_data import PARITY_SETS, agreement, fixture, parity_matrix
from selector_checks import make_planted, run_check_estimator

from ufskit.selectors import FSASL, fsasl
from ufskit.selectors.fsasl import fsasl_fit, neighbour_width, self_representation, simplex_rows
from ufskit.sparse_regression import row_sq_norms

# the authors' runs (FSASL.m under GNU Octave) stored in tests/data/parity_fsasl_*.csv: c 5, lambda1 = lambda2 =
# lambda3 = 1, SLEP ratio 0.01, k 5; parity_fsasl_<set>: objective per pass of 5 passes (the first without the global
# term); parity_fsasl_onepass_<set>: ||w_i|| after their default single pass (global term on X);
# parity_fsasl_tight_<set>: the pass-2 lasso objective (summed over samples) of SLEP's LeastR at its defaults
# (|change| <= 1e-3), the same at a relative change of 1e-10, and the objective after pass 2 with the latter
# (docs/fidelity/selectors-fsasl.md)
AUTHORS = {"lambda1": 1.0, "lambda2": 1.0, "lambda3": 1.0, "lasso_ratio": 0.01, "n_neighbors": 5}
# passes 2-5 against the authors' defaults: the lasso's S is not unique on the c-dimensional projection
# (near-duplicate samples), and the authors' own objective moves by up to 2.5 % there when only SLEP's tolerance changes
LATER_PASSES_RTOL = 0.03
# FISTA steps that bring our pass-2 lasso below the authors' tight SLEP run (n = 100 or 96: a few seconds; wdbc's
# n = 569 would take minutes and is checked at the default tolerance only)
TIGHT_STEPS = {"ORL": 50000, "lymphoma": 50000}


@pytest.fixture(scope="module")
def five_passes(mirror):
    """name -> (objective per pass of a 5-pass fit, the second pass's lasso input P and its solution S), one fit per
    dataset shared by the tests below (wdbc's takes a minute)."""
    fits = {}

    def fit(name):
        if name not in fits:
            lassos = []

            def record(P, ratio, progress=None, **options):
                S = original(P, ratio, progress, **options)
                lassos.append((P, S))
                return S

            original = fsasl.self_representation
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(fsasl, "self_representation", record)
                _, objective = fsasl_fit(parity_matrix(name, mirror), 5, max_iter=5, tol=0.0, **AUTHORS)
            fits[name] = (objective, *lassos[0])
        return fits[name]

    return fit


@pytest.mark.parametrize("name", PARITY_SETS)
def test_objective_per_pass_follows_the_authors(five_passes, name):
    theirs = fixture("fsasl", name)
    ours = five_passes(name)[0]
    # the first pass is deterministic (kNN graph, eigenvectors, l2,1 least squares): the same value
    assert ours[0] == pytest.approx(theirs[0], rel=1e-8)
    # the second starts from the same projection: the value of SLEP run to a relative change of 1e-10 (our lasso
    # stops 2e-4 above the optimum, which moves this value by 1.1e-5 on wdbc; SLEP's defaults move it by 7e-3 there)
    assert ours[1] == pytest.approx(fixture("fsasl_tight", name)[2], rel=5e-5)
    np.testing.assert_allclose(ours[1:], theirs[1:], rtol=LATER_PASSES_RTOL)


def lasso_objective(P, S, ratio):
    """Sum over samples of 1/2 ||P_{-i}'s_i - p_i||^2 + lambda_i ||s_i||_1, lambda_i = ratio ||P_{-i} p_i||_inf."""
    K = P @ P.T
    lam = ratio * np.abs(K - np.diag(np.diag(K))).max(axis=0)
    R = P.T @ S - P.T
    return 0.5 * np.einsum("ij,ij->", R, R) + float(lam @ np.abs(S).sum(axis=0))


@pytest.mark.parametrize("name", PARITY_SETS)
def test_second_pass_lasso_reaches_the_authors_optimum(five_passes, name):
    _, P, S = five_passes(name)  # P: the same projection as the authors' after pass 1 (their P P' agrees to 1e-11)
    at_defaults, tight, _ = fixture("fsasl_tight", name)
    ours = lasso_objective(P, S, 0.01)
    # SLEP stops 75-170 % above the optimum; ours within 1e-3 of their tight run
    assert ours < at_defaults
    assert ours <= tight * (1 + 1e-3)
    if name in TIGHT_STEPS:
        S = self_representation(P, 0.01, tol=1e-12, max_iter=TIGHT_STEPS[name])
        assert lasso_objective(P, S, 0.01) <= tight


@pytest.mark.parametrize("name", PARITY_SETS)
def test_default_single_pass_scores_follow_the_authors(mirror, name):
    # one pass (the default of FSASL.m and ours): the lasso reconstructs the samples of X itself
    W, _ = fsasl_fit(parity_matrix(name, mirror), 5, max_iter=1, tol=0.0, **AUTHORS)
    spearman, overlap = agreement(np.sqrt(row_sq_norms(W)), fixture("fsasl_onepass", name))
    assert spearman >= 0.99
    assert overlap >= 0.95


def test_simplex_rows_is_the_euclidean_projection():
    V = np.random.default_rng(0).standard_normal((50, 6))
    P = simplex_rows(V)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    assert (P >= 0).all()
    # optimality: on the support, V - P is constant (the multiplier); off it, V is below that constant
    for v, p in zip(V, P):
        gap = v - p
        on = p > 0
        np.testing.assert_allclose(gap[on], gap[on][0])
        assert (v[~on] <= gap[on][0] + 1e-12).all()


def test_lasso_reconstruction_solves_each_column():
    from sklearn.linear_model import Lasso

    P = make_planted(n_samples=20, n_informative=2, n_noise=3, random_state=3).X
    S = self_representation(P, 0.05)
    assert not np.diag(S).any()
    i = 7
    others = np.delete(np.arange(20), i)
    lam = 0.05 * np.abs(P[others] @ P[i]).max()
    # sklearn's lasso is 1/(2 m) ||y - Aw||^2 + a ||w||_1 with m rows: a = lam / m
    ref = Lasso(alpha=lam / P.shape[1], fit_intercept=False, tol=1e-12, max_iter=100000).fit(P[others].T, P[i])
    np.testing.assert_allclose(S[others, i], ref.coef_, atol=1e-4)  # FISTA stops at a relative change of 1e-7


def test_neighbour_width_falls_back_on_tiny_sets():
    D2 = np.array([[0.0, 1.0], [1.0, 0.0]])
    assert neighbour_width(D2, 1) == pytest.approx(0.5)
    assert FSASL().fit(np.array([[0.0, 1.0], [1.0, 0.0]])).scores_.shape == (2,)


def test_both_structure_weights_zero_is_refused():
    with pytest.raises(ValueError, match="lambda1 and lambda2"):
        FSASL(lambda1=0.0, lambda2=0.0).fit(make_planted().X)


def test_auto_lambda3_follows_the_scale_of_x():
    X = make_planted(n_samples=60, n_informative=5, n_noise=40, random_state=0).X
    unit, scaled = FSASL().fit(X), FSASL().fit(X * 1024.0)
    assert scaled.lambda3_ == pytest.approx(1024.0 * unit.lambda3_)
    np.testing.assert_allclose(scaled.objective_, unit.objective_, rtol=1e-8)
    np.testing.assert_allclose(scaled.scores_ * 1024.0, unit.scores_, rtol=1e-6)


def test_sklearn_conventions():
    run_check_estimator(FSASL())
