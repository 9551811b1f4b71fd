"""mRMR (FCQ), the second positive control: a supervised greedy ranking, F statistic over mean |correlation| with the
features chosen before; registered beside ANOVA F, with the library's conventions."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from selector_checks import make_planted, planted_copies, run_check_estimator
from sklearn.feature_selection import f_classif
from sklearn.utils._param_validation import InvalidParameterError

from ufskit.runs import fit_run
from ufskit.selectors import SELECTORS, SUPERVISED, AnovaF, make_selector, selector_class, uses_labels
from ufskit.selectors.mrmr import MRMR, REDUNDANCY_FLOOR
from ufskit.selectors.ties import tie_keys


def test_registered_as_a_supervised_selector_not_among_the_unsupervised_ones():
    assert SUPERVISED["MRMR"] == "mrmr"
    assert selector_class("MRMR") is MRMR and SELECTORS["MRMR"] is MRMR
    assert "MRMR" not in list(SELECTORS)
    assert uses_labels("MRMR") and MRMR.uses_labels and not MRMR.scale_sensitive and MRMR.accepts_sparse
    sel = make_selector("MRMR", n_features_to_select=3, n_greedy=0.5)
    assert (sel.n_features_to_select, sel.n_greedy) == (3, 0.5)
    assert MRMR().__sklearn_tags__().target_tags.required


def test_passes_sklearn_checks():
    run_check_estimator(MRMR())


def test_picks_the_independent_feature_before_the_copy_where_anova_f_picks_the_copy():
    X, y = planted_copies()
    a, copy, b = 1, 3, 4
    F = f_classif(X[:, :5], y)[0]
    assert F[a] > F[copy] > F[b] > 10 * max(F[0], F[2])  # the planted strengths
    sel = MRMR().fit(X, y)
    assert sel.order_[0] == a and sel.order_[1] == b
    assert AnovaF().fit(X, y).order_[:2].tolist() == [a, copy]  # univariate: the redundant copy second
    assert sel.order_[-1] == 5 and np.isneginf(sel.scores_[5]) and np.isnan(sel.f_statistic_[5])
    assert_allclose(sel.f_statistic_[:5], F)
    assert sel.n_greedy_ == 5 and sel.criterion_.size == 5 and sel.criterion_[0] == F[a]
    # scores_ is the rank score: its descending order is order_
    assert_array_equal(np.argsort(-sel.scores_, kind="stable"), sel.order_)
    assert_array_equal(sel.scores_[sel.order_[:5]], [6.0, 5.0, 4.0, 3.0, 2.0])


def test_the_criterion_by_hand_on_three_features():
    rng = np.random.default_rng(4)
    y = np.repeat([0, 1, 2], 8)
    X = np.column_stack([y + 0.4 * rng.standard_normal(24), rng.standard_normal(24), rng.standard_normal(24)])
    X[:, 1] += 0.5 * X[:, 0] + 0.3 * y
    X[:, 2] += 0.2 * y
    sel = MRMR().fit(X, y)
    F = f_classif(X, y)[0]
    R = np.abs(np.corrcoef(X, rowvar=False))
    first = int(np.argmax(F))
    rest = [j for j in range(3) if j != first]
    q = {j: F[j] / R[j, first] for j in rest}
    second = max(rest, key=q.get)
    (third,) = [j for j in rest if j != second]
    q3 = F[third] / ((R[third, first] + R[third, second]) / 2)
    assert sel.order_.tolist() == [first, second, third]
    assert_allclose(sel.criterion_, [F[first], q[second], q3], rtol=1e-10)


def test_n_greedy_limits_the_greedy_prefix_and_the_rest_follows_by_f():
    X, y = planted_copies()
    full = MRMR().fit(X, y)
    two = MRMR(n_greedy=2).fit(X, y)
    assert two.n_greedy_ == 2 and two.order_[:2].tolist() == full.order_[:2].tolist()
    F = np.nan_to_num(two.f_statistic_, nan=-1.0)
    rest = two.order_[2:]
    assert rest.tolist() == sorted(rest, key=lambda j: -F[j])
    assert two.scores_[two.order_[0]] == 3.0 and two.scores_[two.order_[1]] == 2.0
    assert np.all(two.scores_[rest[:-1]] <= 1.0)  # eta^2: F's monotone map, as AnovaF's scores_
    assert MRMR(n_greedy=0.5).fit(X, y).n_greedy_ == 3
    assert MRMR(n_greedy=6).fit(X, y).n_greedy_ == 5  # the flat column is never chosen


@pytest.mark.parametrize("bad, error, message", [
    (0, InvalidParameterError, "'n_greedy' parameter of MRMR must be None, an int in the range"),
    (-1, InvalidParameterError, "'n_greedy' parameter"),
    (1.5, InvalidParameterError, "'n_greedy' parameter"),
    (0.0, InvalidParameterError, "'n_greedy' parameter"),
    ("all", InvalidParameterError, "'n_greedy' parameter"),
    (True, TypeError, "n_greedy must be an int or a fraction, got True"),  # a bool passes the Integral interval
    (7, ValueError, r"n_greedy=7 gives 7, outside \[1, 6\]"),
])
def test_n_greedy_is_validated_with_messages_naming_it(bad, error, message):
    X, y = planted_copies(n=30)
    with pytest.raises(error, match=message):
        MRMR(n_greedy=bad).fit(X, y)


def test_fit_without_labels_or_with_one_class_is_refused_clearly():
    X = np.random.default_rng(0).standard_normal((10, 4))
    with pytest.raises(ValueError, match=r"MRMR requires y to be passed, but the target y is None: it is supervised"):
        MRMR().fit(X)
    with pytest.raises(ValueError, match="at least 2 classes in y; got 1 class"):
        MRMR().fit(X, np.zeros(10))
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        MRMR().fit(X, np.arange(9) % 2)


def test_flat_columns_last_and_perfect_separators_first():
    y = np.repeat([0, 1], 4)
    X = np.column_stack([
        [0.0, 0.0, 1.0, -1.0, 0.0, 0.0, 1.0, -1.0],  # F = 0: class means equal
        np.full(8, 2.0),  # flat
        y * 3.0,  # constant within each class: F = inf
        [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.2],  # weakly informative
        -y * 2.0 + 1,  # another perfect separator, a copy of column 2 up to sign and offset
    ])
    sel = MRMR().fit(X, y)
    assert np.isposinf(sel.f_statistic_[[2, 4]]).all() and np.isnan(sel.f_statistic_[1])
    assert set(sel.order_[:2]) == {2, 4} and sel.order_[-1] == 1 and sel.degenerate_features_.tolist() == [1]
    assert np.isposinf(sel.criterion_[:2]).all()
    assert np.isfinite(sel.criterion_[2:]).all() and sel.n_greedy_ == 4


def test_an_orthogonal_column_divides_by_the_floor():
    y = np.repeat([0, 1], 6)
    s = np.where(y == 0, -1.0, 1.0)
    t = np.tile([1.0, -1.0], 6)  # orthogonal to s and centred: corr 0 with it
    X = np.column_stack([s + 0.1 * np.tile([1.0, 0.0, -1.0, 0.0], 3), t])
    sel = MRMR().fit(X, y)
    F = f_classif(X, y)[0]
    assert sel.order_.tolist() == [0, 1]
    assert abs(np.corrcoef(X, rowvar=False)[0, 1]) < 1e-12
    assert_allclose(sel.criterion_, [F[0], F[1] / REDUNDANCY_FLOOR])


def test_deterministic_affine_invariant_and_sparse_input_ranks_alike():
    data = make_planted(n_samples=60, n_informative=4, n_noise=12, random_state=3)
    a = MRMR().fit(data.X, data.y)
    X0 = data.X.copy()
    assert_array_equal(MRMR().fit(data.X.copy(), data.y).ranking_, a.ranking_)
    assert_array_equal(data.X, X0)  # X untouched
    assert set(a.order_[:4]) == set(data.informative)
    scaled = data.X * np.arange(1, 17) * 1e3 + 1e4
    assert_array_equal(MRMR().fit(scaled, data.y).ranking_, a.ranking_)
    for matrix in (sp.csr_matrix(data.X), sp.csc_matrix(data.X), sp.csr_matrix(data.X.astype(np.float32))):
        b = MRMR().fit(matrix, data.y)
        assert_array_equal(b.ranking_, a.ranking_)
        assert_allclose(b.criterion_, a.criterion_, rtol=1e-5)


def test_exact_duplicates_tie_by_the_librarys_tie_break_not_by_round_off():
    rng = np.random.default_rng(5)
    y = np.repeat([0, 1, 2], 20)
    x = y + rng.standard_normal(60)
    X = np.column_stack([x, rng.standard_normal(60), x.copy()])
    orders = {tuple(MRMR().fit(X, y).order_) for _ in range(3)}
    assert len(orders) == 1  # deterministic
    (order,) = orders
    keys = tie_keys(3)  # the library's tie-break permutation (no random_state: the fixed stream)
    assert order[0] == (0 if keys[0] < keys[2] else 2)  # equal F, equal criterion: the keys decide, not the index


def test_the_workflows_fit_gives_it_the_labels():
    data = make_planted(n_samples=30, n_informative=3, n_noise=5, random_state=0)
    spec = {"selector": "MRMR", "params": {"n_greedy": 4}}
    sel = fit_run(data.X, spec, 0, n_classes=3, y=data.y)
    assert set(sel.order[:3]) == set(data.informative)
    with pytest.raises(ValueError, match="supervised"):
        fit_run(data.X, spec, 0, n_classes=3)
