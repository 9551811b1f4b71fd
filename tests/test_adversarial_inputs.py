"""Adversarial inputs every selector must survive without a silently wrong answer (docs/fidelity/numerics.md).

For every registered selector: a column on a large offset ranks exactly as
without it (bit for bit: every selector centres what is shift-invariant);
a near-constant column ranks in the bottom half or the selector warns
(``ScaleWarning``); a column flat by the library's rule is dropped by the
``drop_constant`` -> ``zscore`` chain and ranked last by ``fit``; data at
1e-90 scale gives informative scores, never an all-equal block. MCFS's
unscored (zero) features are padded by the seeded tie-break, not column order.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from selector_checks import make_planted

from ufskit.data import Dataset
from ufskit.preprocess import apply_chain, drop_constant
from ufskit.selectors import MCFS, SELECTORS
from ufskit.selectors.ties import TieWarning, rank_with_ties, snap_round_off, tie_keys
from ufskit.validation import ScaleWarning, flat_features

NAMES = sorted(SELECTORS)
# KernelUDFS ranks kernel features (one per sample), not X's columns: only the cases about whole X apply
COLUMN_SELECTORS = [name for name in NAMES if name != "KernelUDFS"]
# the column the cases below tamper with: not the first, so column order cannot help it
TARGET = 3


def default(name):
    est = SELECTORS[name]()
    return est.set_params(random_state=0) if "random_state" in est.get_params() else est


def fit(est, X):
    """Fit; return the estimator and the warnings raised (IVFS's never-drawn warning is documented)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X)
    return est, [w.category for w in caught]


def planted(seed=0):
    """z-scored data with cluster structure in 3 of 9 features, on a grid of 2^-10 so offsets add exactly."""
    X = make_planted(n_samples=40, n_informative=3, n_noise=6, random_state=seed).X
    return np.round(X * 1024) / 1024


@pytest.mark.parametrize("offset", [1e7, 1e9])  # 1e9: some 2 x 10^8 times the range, not flat
@pytest.mark.parametrize("name", NAMES)
def test_offset_leaves_ranking_unchanged(name, offset):
    X = planted()
    shifted = X.copy()
    shifted[:, TARGET] += offset
    assert np.all(shifted[:, TARGET] - offset == X[:, TARGET])  # the offset is exact: any change is the method's
    a, _ = fit(default(name), X)
    b, _ = fit(default(name), shifted)
    assert not flat_features(shifted)[TARGET]
    assert_array_equal(b.ranking_, a.ranking_)
    assert_array_equal(b.scores_, a.scores_)


@pytest.mark.parametrize("name", [name for name in COLUMN_SELECTORS if name != "Random"])  # Random ignores X
def test_near_constant_column_ranks_low_or_warns(name):
    """3 + 1e-9 noise is not flat (some 10^6 ulps of 3): scored, but never silently near the top."""
    X = planted()
    d = X.shape[1]
    rng = np.random.default_rng(5)
    X[:, TARGET] = 3.0 + 1e-9 * rng.standard_normal(X.shape[0])
    assert not flat_features(X)[TARGET]
    est, caught = fit(default(name), X)
    assert est.ranking_[TARGET] > d / 2 or ScaleWarning in caught, (
        f"rank {est.ranking_[TARGET]} of {d} without a ScaleWarning")
    assert TieWarning not in caught


@pytest.mark.parametrize("name", COLUMN_SELECTORS)
def test_flat_column_dropped_by_the_chain_and_ranked_last_by_fit(name):
    """3 + 1e-15 noise (a few ulps of 3) is flat by the one rule: drop_constant removes it before zscore can
    blow it up."""
    X = planted()
    d = X.shape[1]
    X[:, TARGET] = 3.0 + 1e-15 * np.random.default_rng(6).standard_normal(X.shape[0])
    names = np.array([f"f{j}" for j in range(d)])
    out = apply_chain(Dataset(X, np.zeros(X.shape[0], dtype=int), names, {}), ["drop_constant", "zscore"])
    assert f"f{TARGET}" not in out.feature_names and out.X.shape[1] == d - 1
    assert out.info["preprocessing"][0]["n_near_constant"] == 1
    est, _ = fit(default(name), X)
    assert est.ranking_[TARGET] == d
    assert est.scores_[TARGET] == -np.inf


def test_variance_ranks_a_large_variance_column_on_an_offset_first():
    """A range of some 1e-8 of the magnitude is not round-off (the rule's bound is 1e-10): scored, and first."""
    X = planted()
    X[:, TARGET] = 3.0 * X[:, TARGET] + 1e9
    est, _ = fit(default("Variance"), X)
    assert est.ranking_[TARGET] == 1


def test_drop_constant_keeps_a_column_on_a_large_offset():
    X = planted()
    X[:, TARGET] += 1e9
    Y, keep, info = drop_constant(X)
    assert keep.all() and info["n_removed"] == 0


@pytest.mark.parametrize("name", NAMES)
def test_tiny_scale_gives_informative_scores(name):
    """X at 1e-90 (inside the accepted magnitudes): the scores separate the features as at unit scale."""
    est, caught = fit(default(name), planted() * 1e-90)
    assert TieWarning not in caught
    assert np.unique(est.scores_).size == est.scores_.size, "tied scores at 1e-90 scale"
    unit, _ = fit(default(name), planted())
    top = unit.n_features_to_select or unit.scores_.size // 2
    assert set(np.argsort(est.ranking_)[:top]) == set(np.argsort(unit.ranking_)[:top])


def test_mcfs_pads_unscored_features_by_the_seeded_permutation():
    """d >> n: most coefficients are 0; those features are tied, ordered by tie_keys, and not counted as ranked."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((20, 120))
    est = MCFS(n_clusters=2, max_nonzero=10).fit(X)
    zero = np.flatnonzero(est.scores_ == 0)
    d = X.shape[1]
    assert zero.size > d / 2
    assert est.n_ranked_ == d - zero.size < d
    padded = est.order_[d - zero.size :]
    assert_array_equal(np.sort(padded), zero)
    assert not np.all(np.diff(padded) > 0), "the zero-score features are in column order"
    assert_array_equal(padded, zero[np.argsort(tie_keys(d)[zero])])
    assert_array_equal(np.sort(est.subsets([d - 5])[d - 5]), np.flatnonzero(est.ranking_ <= d - 5))


def test_rank_with_ties_counts_and_warns():
    ranking, n_ranked = rank_with_ties(np.array([2.0, 5.0, 1.0]))
    assert ranking.tolist() == [2, 1, 3] and n_ranked == 3
    scores = np.array([0.0, 0.0, 0.0, 1.0, -np.inf])
    ranking, n_ranked = rank_with_ties(scores, random_state=3)
    assert n_ranked == 2 and ranking[3] == 1 and ranking[4] == 5
    keys = tie_keys(5, 3)
    assert_array_equal(np.argsort(ranking)[1:4], np.array([0, 1, 2])[np.argsort(keys[:3])])
    with pytest.warns(TieWarning, match="same score"):
        rank_with_ties(np.array([1.0, 1.0, -np.inf]))


def test_scores_apart_by_round_off_are_one_tie_on_every_machine():
    """Two sums of the same terms in another order differ in their last bits: they tie, whichever is larger."""
    terms = np.random.default_rng(0).standard_normal(1000)
    a, b = np.sum(terms), np.sum(terms[::-1])  # equal in exact arithmetic
    base = np.array([3.0, 0.0, 0.0, -2.0, -np.inf])
    rankings = []
    for first, second in ((a, b), (b, a), (a, a)):
        scores = base.copy()
        scores[1], scores[2] = first, second
        ranking, n_ranked = rank_with_ties(scores, random_state=7)
        rankings.append(ranking)
        assert n_ranked == 3  # 3.0, -2.0 and the lone -inf; the pair is one tie
    assert_array_equal(rankings[0], rankings[1])
    assert_array_equal(rankings[0], rankings[2])
    # differences a selector means are kept: 1e-9 of the largest score apart is not round-off
    ranking, n_ranked = rank_with_ties(np.array([1.0, 0.5, 0.5 + 1e-9]))
    assert ranking.tolist() == [1, 3, 2] and n_ranked == 3


def test_snapping_chains_runs_and_leaves_unscored_alone():
    scores = np.array([1.0, 1.0 + 4e-13, 1.0 + 8e-13, 2.0, -np.inf, 1e-13])
    snapped = snap_round_off(scores)
    assert_array_equal(snapped[:3], np.full(3, 1.0 + 8e-13))  # a chain of gaps under 2e-12 is one run
    assert snapped[3] == 2.0 and snapped[4] == -np.inf and snapped[5] == 1e-13
    assert_array_equal(snap_round_off(snapped), snapped)  # idempotent
    assert_array_equal(snap_round_off(np.array([0.0, -0.0, -np.inf])), [0.0, 0.0, -np.inf])
    # round-off is relative to the scores compared: one score 1e10 times the others ties none of them
    assert_array_equal(snap_round_off(np.array([2e10, 1.0, 1.5, 1e-300, 2e-300])), [2e10, 1.0, 1.5, 1e-300, 2e-300])
