"""The positive control ANOVA F: a supervised selector (fit(X, y)) with the library's conventions, resolved by name
like the others but not listed among the unsupervised ones, and given the labels by the workflow's fit."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from selector_checks import make_planted, run_check_estimator
from sklearn.base import BaseEstimator
from sklearn.feature_selection import f_classif

from ufskit.runs import fit_run, fit_selector
from ufskit.selectors import SELECTORS, SUPERVISED, AnovaF, make_selector, selector_class, uses_labels
from ufskit.selectors.anova_f import explained_share


def test_registered_as_a_supervised_selector_not_among_the_unsupervised_ones():
    assert SUPERVISED["AnovaF"] == "anova_f"
    assert selector_class("AnovaF") is AnovaF and SELECTORS["AnovaF"] is AnovaF  # resolved by name
    assert "AnovaF" not in SELECTORS and "AnovaF" not in list(SELECTORS)  # the contract tests iterate the others
    assert uses_labels("AnovaF") and AnovaF.uses_labels and not uses_labels("Variance")
    assert make_selector("AnovaF", n_features_to_select=3).n_features_to_select == 3
    assert AnovaF().__sklearn_tags__().target_tags.required


def test_passes_sklearn_checks():
    run_check_estimator(AnovaF())


def test_scores_are_f_classifs_f_as_a_share_of_the_variance_and_rank_the_separating_features_first():
    data = make_planted(n_samples=60, n_informative=4, n_noise=20, random_state=3)
    sel = AnovaF().fit(data.X, data.y)
    F, p = f_classif(data.X, data.y)
    assert_allclose(sel.f_statistic_, F) and assert_allclose(sel.p_values_, p)
    n, c = data.X.shape[0], 3
    assert_allclose(sel.scores_, F * (c - 1) / (F * (c - 1) + n - c))
    # eta^2 = SS_between / SS_total, computed directly
    Xc = data.X - data.X.mean(axis=0)
    between = sum((data.y == k).sum() * (data.X[data.y == k].mean(axis=0) - data.X.mean(axis=0)) ** 2
                  for k in range(c))
    assert_allclose(sel.scores_, between / (Xc**2).sum(axis=0))
    assert set(sel.order_[:4]) == set(data.informative)
    perm = np.random.default_rng(0).permutation(data.X.shape[1])
    assert_allclose(AnovaF().fit(data.X[:, perm], data.y).scores_, sel.scores_[perm])
    assert_array_equal(AnovaF().fit(data.X.copy(), data.y).ranking_, sel.ranking_)


def test_constant_columns_rank_last_and_perfect_separators_first():
    rng = np.random.default_rng(1)
    y = np.repeat([0, 1, 2], 10)
    X = rng.standard_normal((30, 5))
    X[:, 1] = 7.0  # constant: not scored
    X[:, 3] = y * 2.0  # constant within each class, not across: F = inf, eta^2 = 1
    sel = AnovaF().fit(X, y)
    assert sel.degenerate_features_.tolist() == [1]
    assert sel.ranking_[1] == 5 and np.isneginf(sel.scores_[1]) and np.isnan(sel.f_statistic_[1])
    assert sel.ranking_[3] == 1 and sel.scores_[3] == 1.0 and np.isposinf(sel.f_statistic_[3])
    assert_allclose(explained_share(np.array([np.inf, 0.0, np.nan]), 30, 3), [1.0, 0.0, 0.0])


def test_affine_changes_of_a_column_change_nothing_and_sparse_input_ranks_alike():
    data = make_planted(n_samples=45, n_informative=3, n_noise=6, random_state=2)
    a = AnovaF().fit(data.X, data.y)
    X = data.X * np.arange(1, 10) * 1e3 + 1e6
    assert_array_equal(AnovaF().fit(X, data.y).ranking_, a.ranking_)
    assert_array_equal(AnovaF().fit(sp.csr_matrix(data.X), data.y).ranking_, a.ranking_)


def test_fit_without_labels_or_with_one_class_is_refused_clearly():
    X = np.random.default_rng(0).standard_normal((10, 4))
    with pytest.raises(ValueError, match=r"AnovaF requires y to be passed, but the target y is None: it is supervised"):
        AnovaF().fit(X)
    with pytest.raises(ValueError, match="at least 2 classes in y; got 1 class"):
        AnovaF().fit(X, np.zeros(10))
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        AnovaF().fit(X, np.arange(9) % 2)


class _Spy(BaseEstimator):
    """An unsupervised selector that records what its fit was given."""

    seen: list = []

    def fit(self, X, *rest):
        _Spy.seen.append(rest)
        return self


def test_the_workflows_fit_gives_the_labels_to_the_control_only(monkeypatch):
    data = make_planted(n_samples=30, n_informative=3, n_noise=5, random_state=0)
    spec = {"selector": "AnovaF", "params": {}}
    sel = fit_run(data.X, spec, 0, n_classes=3, y=data.y)
    assert set(sel.order[:3]) == set(data.informative)
    with pytest.raises(ValueError, match="supervised"):
        fit_run(data.X, spec, 0, n_classes=3)  # no labels: refused, never fitted blind
    import ufskit.runs as runs

    original = runs.make_selector
    monkeypatch.setattr(runs, "make_selector", lambda name, **params: _Spy() if name == "Spy" else original(name))
    fit_selector({"selector": "Spy", "params": {}}, data.X, seed=0, n_classes=3, y=data.y)
    assert _Spy.seen == [()]  # an unsupervised selector is fitted on X alone, whatever labels the job has
