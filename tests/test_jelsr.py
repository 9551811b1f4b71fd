"""JELSR: the paper's objective decreases, parity with the authors' code, scale rule of alpha."""

from __future__ import annotations

import numpy as np
import pytest
from parity_data import PARITY_SETS, agreement, fixture, parity_matrix
from selector_checks import make_planted, run_check_estimator

from ufskit.graph import knn_indices, pairwise_sq_dists
from ufskit.selectors import JELSR
from ufskit.selectors.jelsr import _Ridge, jelsr_fit
from ufskit.validation import centred

# the authors' run stored in tests/data/parity_jelsr_*.csv: ReducedDim 5 (4 columns kept), alpha 100, beta 1, k 5
AUTHORS = {"n_components": 4, "alpha": 100.0, "beta": 1.0, "max_iter": 20}


def authors_graph(X: np.ndarray, k: int = 5) -> np.ndarray:
    """The graph of the authors' LPP setting: kNN, weights exp(-(d^2 / max d^2) / sigma^2), sigma = median distance.

    The squared distances are divided by their largest value but sigma is not,
    so on z-scored data every weight is close to 1 (docs/fidelity/selectors-jelsr.md).
    """
    D2 = pairwise_sq_dists(X)
    n = X.shape[0]
    rows, cols = np.repeat(np.arange(n), k), knn_indices(D2, k).ravel()
    G = np.zeros((n, n))
    G[rows, cols] = D2[rows, cols]
    G = np.maximum(G, G.T) / D2[rows, cols].max()
    return np.where(G > 0, np.exp(-G / np.median(np.sqrt(D2)) ** 2), 0.0)


# The lowest agreement with the authors' scores measured over round-off: 4 OpenBLAS kernels (SkylakeX, Haswell,
# Sandybridge, Nehalem) x 20 relative perturbations of X by 1e-15 N(0, 1), 80 fits a set (Spearman, top-10 % overlap).
# Twenty reweighting steps at alpha 100 amplify the last bits on ORL: our own fits agree with each other at
# 0.9986 / 0.96 at worst, so a fixed 0.99 / 0.95 held on one kernel and failed on another
# (docs/fidelity/selectors-jelsr.md). The test allows the measured floor less 0.001 and one top-10 % feature.
ROUND_OFF_FLOOR = {"wdbc": (1.0, 1.0), "ORL": (0.9968, 96 / 102), "lymphoma": (0.9997, 394 / 403)}


@pytest.mark.parametrize("name", PARITY_SETS)
def test_parity_with_authors_code(mirror, name):
    X = parity_matrix(name, mirror)
    W, _, _ = jelsr_fit(centred(X), authors_graph(X), variant="authors", tol=0.0, **AUTHORS)
    scores = np.sqrt((W**2).sum(axis=1))
    spearman, overlap = agreement(scores, fixture("jelsr", name))
    one_feature = 1 / max(1, round(0.1 * scores.size))
    floor_spearman, floor_overlap = ROUND_OFF_FLOOR[name]
    assert spearman >= floor_spearman - 1e-3 and overlap >= floor_overlap - one_feature - 1e-12, (spearman, overlap)


@pytest.mark.parametrize("variant", ["paper", "authors"])
def test_objective_decreases_and_stops(variant):
    X = make_planted(n_samples=60, n_informative=5, n_noise=40, random_state=1).X
    est = JELSR(variant=variant, max_iter=50).fit(X)
    objective = np.asarray(est.objective_)
    if variant == "paper":
        assert np.all(np.diff(objective) <= 1e-9 * objective[:-1])
    assert est.n_iter_ < 50 and est.embedding_.shape == (60, est.n_components_)


def test_primal_and_dual_forms_agree():
    X = centred(make_planted(n_samples=30, n_informative=3, n_noise=5, random_state=2).X)
    q = np.linspace(0.0, 2.0, X.shape[1])  # a zero weight: that row of W is 0 in both forms
    primal, dual = (_Ridge(X, q, 3.0, dual=form) for form in (False, True))
    Y = np.random.default_rng(0).standard_normal((X.shape[0], 2))
    np.testing.assert_allclose(primal.coef(Y), dual.coef(Y), atol=1e-10)
    np.testing.assert_allclose(primal.complement(), dual.complement(), atol=1e-10)
    assert not primal.coef(Y)[0].any()


def test_auto_alpha_follows_the_scale_of_x():
    X = make_planted(n_samples=60, n_informative=5, n_noise=40, random_state=0).X
    unit, scaled = JELSR().fit(X), JELSR().fit(X * 1024.0)
    assert unit.alpha_ == pytest.approx(1.5 * np.sqrt(60))
    assert scaled.alpha_ == pytest.approx(1536 * np.sqrt(60))
    assert unit.scores_.max() > 1e-3  # the planted rows stay well above 0
    # the same problem at another scale: the objective is scale-free, the same features lead
    np.testing.assert_allclose(scaled.objective_, unit.objective_, rtol=1e-9)
    assert set(np.argsort(unit.ranking_)[:5]) == set(np.argsort(scaled.ranking_)[:5])


@pytest.mark.parametrize("variant", ["paper", "authors"])
def test_sklearn_conventions(variant):
    run_check_estimator(JELSR(variant=variant))
