"""KNN forward selection, the wrapper positive control: a supervised greedy ranking by the leave-one-out accuracy
of k-NN on the features chosen so far; registered beside ANOVA F and mRMR, with the library's conventions."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from selector_checks import planted_copies, run_check_estimator

from ufskit.runs import fit_run
from ufskit.selectors import SELECTORS, SUPERVISED, AnovaF, forward_knn, make_selector, selector_class, uses_labels
from ufskit.selectors.forward_knn import ForwardKNN
from ufskit.selectors.ties import tie_keys


def planted_pair(n=240, seed=0):
    """``planted_copies`` with less noise: u's feature and v's together separate the four classes for k-NN."""
    return planted_copies(n, seed, strong=0.15, weak=0.3)


def test_registered_as_a_supervised_selector_not_among_the_unsupervised_ones():
    assert SUPERVISED["ForwardKNN"] == "forward_knn"
    assert selector_class("ForwardKNN") is ForwardKNN and SELECTORS["ForwardKNN"] is ForwardKNN
    assert "ForwardKNN" not in list(SELECTORS)
    assert uses_labels("ForwardKNN") and ForwardKNN.scale_sensitive and not ForwardKNN.accepts_sparse
    sel = make_selector("ForwardKNN", n_features_to_select=3, n_neighbors=3, n_greedy=0.5)
    assert (sel.n_features_to_select, sel.n_neighbors, sel.n_greedy) == (3, 3, 0.5)
    assert ForwardKNN().__sklearn_tags__().target_tags.required


def test_passes_sklearn_checks():
    run_check_estimator(ForwardKNN(n_neighbors=1))


def test_picks_the_complementary_feature_before_the_copy():
    X, y = planted_pair()
    a, copy, b = 1, 3, 4
    sel = ForwardKNN().fit(X, y)
    assert sel.order_[:2].tolist() in ([a, b], [copy, b], [b, a], [b, copy])
    assert AnovaF().fit(X, y).order_[:2].tolist() in ([a, copy], [copy, a])  # univariate: the copy second
    assert sel.criterion_[1] > 0.95 > sel.criterion_[0]  # two complementary features separate the 4 classes
    assert sel.order_[-1] == 5 and np.isneginf(sel.scores_[5])  # the flat column: never scored, last
    assert sel.n_greedy_ == 5 and sel.criterion_.size == 5
    assert_array_equal(np.argsort(-sel.scores_, kind="stable"), sel.order_)
    assert_array_equal(sel.scores_[sel.order_[:5]], [6.0, 5.0, 4.0, 3.0, 2.0])


def test_the_criterion_by_hand_leave_one_out_1nn():
    # one feature, points 0, 1, 3, 7, 8 with classes 0 0 1 1 1: each point's nearest other point is
    # 1, 0, 1, 8, 7 (3 is nearer to 1 than to 7), so the predictions are 0 0 0 1 1: 4 of 5 right
    X = np.array([[0.0, 5.0], [1.0, 0.0], [3.0, 5.0], [7.0, 0.0], [8.0, 5.0]])
    y = np.array([0, 0, 1, 1, 1])
    sel = ForwardKNN(n_neighbors=1, n_greedy=1).fit(X, y)
    assert sel.order_[0] == 0 and sel.criterion_[0] == pytest.approx(4 / 5)
    # column 1 alone: nearest others of 5, 0, 5, 0, 5 tie at distance 0, the lower index wins: 2, 3, 0, 1, 0
    # -> predictions 1 1 0 0 0: 0 of 5 right; it is not greedy (n_greedy = 1), so its score is that accuracy
    assert sel.scores_[1] == pytest.approx(0.0) and sel.scores_[0] == 2.0


def test_n_greedy_orders_the_rest_by_their_accuracy_at_the_last_step():
    X, y = planted_pair()
    sel = ForwardKNN(n_greedy=2).fit(X, y)
    assert sel.n_greedy_ == 2 and sel.criterion_.size == 2
    rest = sel.order_[2:5]
    assert ((0.0 <= sel.scores_[rest]) & (sel.scores_[rest] <= 1.0)).all()
    assert (np.diff(sel.scores_[rest]) <= 0).all()
    assert_array_equal(ForwardKNN().fit(X, y).order_[:2], sel.order_[:2])  # the same greedy prefix


def test_deterministic_and_ties_broken_by_the_librarys_permutation_not_column_order():
    rng = np.random.default_rng(1)
    y = np.repeat([0, 1], 30)
    good = y + 0.2 * rng.standard_normal(60)
    X = np.column_stack([good, rng.standard_normal(60), good])  # columns 0 and 2 tie at every step
    first, second = ForwardKNN().fit(X, y), ForwardKNN().fit(X, y)
    assert_array_equal(first.order_, second.order_)
    keys = tie_keys(3)  # the library's tie-break permutation (the fixed stream)
    assert first.order_[0] == (0 if keys[0] < keys[2] else 2)


@pytest.mark.parametrize("bad, message", [
    ({"n_neighbors": 0}, "n_neighbors"), ({"n_neighbors": 2.5}, "n_neighbors"), ({"n_greedy": 0}, "n_greedy"),
    ({"n_greedy": 1.5}, "n_greedy"),
])
def test_parameters_are_validated_with_messages_naming_them(bad, message):
    X, y = planted_pair(n=40)
    with pytest.raises(ValueError, match=message):
        ForwardKNN(**bad).fit(X, y)


def test_bad_inputs_are_refused_clearly(monkeypatch):
    X, y = planted_pair(n=40)
    with pytest.raises(ValueError, match="ForwardKNN requires y to be passed"):
        ForwardKNN().fit(X)
    with pytest.raises(ValueError, match="at least 2 classes in y; got 1 class"):
        ForwardKNN().fit(X, np.zeros(40))
    with pytest.raises(ValueError, match=r"n_neighbors=5 needs at least n_neighbors \+ 1 samples; X has 5"):
        ForwardKNN().fit(X[:5], np.array([0, 1, 0, 1, 0]))
    monkeypatch.setattr(forward_knn, "available_memory", lambda: 1000)
    with pytest.raises(MemoryError, match=r"ForwardKNN on n=40 samples needs .* GB \(the n x n distances\)"):
        ForwardKNN().fit(X, y)


def test_row_blocks_give_the_same_ranking(monkeypatch):
    X, y = planted_pair(n=120)
    whole = ForwardKNN().fit(X, y)
    monkeypatch.setattr(forward_knn, "BLOCK_BYTES", 8 * 120 * 7)  # 7 rows per block, the last one shorter
    blocks = ForwardKNN().fit(X, y)
    assert_array_equal(whole.order_, blocks.order_)
    assert_array_equal(whole.criterion_, blocks.criterion_)


def test_the_scale_check_refits_with_the_labels():
    # columns of different scales: the scale check fits a twin on the standardised X, which needs y too (it
    # used to be called without it and warned that the check "could not be checked")
    X, y = planted_pair()
    X = X * np.array([1.0, 1.0, 50.0, 1.0, 1.0, 1.0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ForwardKNN(n_greedy=2).fit(X, y)
    assert not [w for w in caught if "could not be checked" in str(w.message)]


def test_the_workflows_fit_gives_it_the_labels():
    X, y = planted_pair(n=60)
    sel = fit_run(X, {"selector": "ForwardKNN", "params": {}}, 0, n_classes=4, y=y)
    assert_array_equal(sel.order[:5], ForwardKNN().fit(X, y).order_[:5])
    with pytest.raises(ValueError, match="supervised"):
        fit_run(X, {"selector": "ForwardKNN", "params": {}}, 0, n_classes=4)
