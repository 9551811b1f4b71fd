"""IterativeLS-2's kept set per stopping size from one elimination (``subsets``) equals a fresh fit per size."""

from __future__ import annotations

import numpy as np
import pytest
from test_iterative_ls import planted_readmission

from ufskit.selectors.iterative_ls import IterativeLaplacianScore


@pytest.fixture
def X(rng):
    return rng.standard_normal((40, 23)) * rng.uniform(0.5, 2.0, 23)


@pytest.mark.parametrize("n_drop", [1, 5])
def test_subsets_equal_fresh_fits_stopped_at_each_size(X, n_drop):
    counts = [1, 2, 3, 7, 10, 11, 16, 22, 23]  # with n_drop=5 most sizes are passed between rounds
    fitted = IterativeLaplacianScore(n_drop=n_drop, variant=2).fit(X)
    subsets = fitted.subsets(counts)
    assert sorted(subsets) == counts
    for s in counts:
        fresh = IterativeLaplacianScore(n_features_to_select=s, n_drop=n_drop, variant=2).fit(X)
        np.testing.assert_array_equal(subsets[s], fresh.order_[:s], err_msg=f"s={s}")
        assert set(subsets[s]) == set(np.flatnonzero(fresh.get_support()))


def test_variant_2_subsets_are_not_nested_when_a_feature_comes_back():
    """The re-admission case of test_iterative_ls: f (column 0) is out of the 4-set, back in the 3-set."""
    X = planted_readmission(0)
    subsets = IterativeLaplacianScore(n_drop=21, variant=2).fit(X).subsets([3, 4])
    assert 0 not in subsets[4] and 0 in subsets[3]


def test_subsets_do_not_depend_on_the_fitted_size(X):
    a = IterativeLaplacianScore(n_features_to_select=20, n_drop=5, variant=2).fit(X).subsets([4, 9])
    b = IterativeLaplacianScore(n_features_to_select=2, n_drop=5, variant=2).fit(X).subsets([9, 4])
    for s in (4, 9):
        np.testing.assert_array_equal(a[s], b[s])


def test_variant_1_has_no_subsets_its_prefixes_are_the_kept_sets(X):
    sel = IterativeLaplacianScore(n_drop=5, variant=1).fit(X)
    assert sel.subsets([3, 8]) == {}
    fresh = IterativeLaplacianScore(n_features_to_select=8, n_drop=5, variant=1).fit(X)
    assert set(sel.order_[:8]) == set(np.flatnonzero(fresh.get_support()))


@pytest.mark.parametrize("counts, match", [([0], "count"), ([24], "exceeds"), ([2.5], "count")])
def test_bad_counts(X, counts, match):
    sel = IterativeLaplacianScore(variant=2).fit(X)
    with pytest.raises(ValueError, match=match):
        sel.subsets(counts)


def test_subsets_need_a_fit():
    with pytest.raises(Exception, match="not fitted"):
        IterativeLaplacianScore(variant=2).subsets([1])
