"""The Random selector: a uniform, nested, seeded feature order; the library's conventions."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from selector_checks import assert_deterministic, run_check_estimator

from ufskit.selectors import SELECTORS, Random, make_selector


def test_random_is_registered_and_passes_sklearn_checks():
    assert SELECTORS["Random"] is Random
    assert make_selector("Random", random_state=3).random_state == 3
    run_check_estimator(Random(random_state=0))


def test_subsets_are_nested_and_the_order_is_a_permutation(rng):
    X = rng.normal(size=(30, 25))
    sel = Random(random_state=7).fit(X)
    assert sorted(sel.ranking_.tolist()) == list(range(1, 26))
    subsets = [set(np.flatnonzero(sel.ranking_ <= h)) for h in range(1, 26)]
    assert all(len(s) == h for h, s in enumerate(subsets, start=1))
    assert all(a < b for a, b in zip(subsets, subsets[1:]))  # each subset strictly inside the next
    assert set(sel.order_[:5]) == subsets[4]
    assert Random(n_features_to_select=5, random_state=7).fit(X).get_support().sum() == 5


def test_same_seed_same_order_whatever_the_values_and_other_seeds_differ(rng):
    X = rng.normal(size=(20, 40))
    assert_deterministic(Random(random_state=11), X)
    a = Random(random_state=11).fit(X).ranking_
    np.testing.assert_array_equal(Random(random_state=11).fit(rng.normal(size=(9, 40)) * 100).ranking_, a)
    assert not np.array_equal(Random(random_state=12).fit(X).ranking_, a)


def test_each_feature_is_equally_likely_in_the_top_h():
    """Over 2,000 seeds every one of 10 features is among the 3 best about 600 times (chi-square, df 9)."""
    X = np.random.default_rng(0).normal(size=(5, 10))
    hits = np.zeros(10)
    for seed in range(2000):
        hits += Random(random_state=seed).fit(X).ranking_ <= 3
    assert hits.sum() == 2000 * 3
    assert stats.chisquare(hits).pvalue > 0.01


def test_flat_columns_rank_last(rng):
    X = rng.normal(size=(15, 6))
    X[:, [1, 4]] = 2.0
    sel = Random(random_state=0).fit(X)
    assert sel.degenerate_features_.tolist() == [1, 4]
    assert set(sel.ranking_[[1, 4]]) == {5, 6}
    assert np.isneginf(sel.scores_[[1, 4]]).all()
    with pytest.raises(ValueError, match="no varying feature"):
        Random().fit(np.ones((4, 3)))
    with pytest.raises(ValueError, match="n_features_to_select"):
        Random(n_features_to_select=7).fit(X)
