"""One flatness rule judged per column in its own precision, and scale heterogeneity warned (issue 39).

A column is flat only when it varies by round-off of its own magnitude (a range
of at most 1e-10 of it, or a few ulps of the dtype it arrived in): a column in
large units (a time stamp in nanoseconds) never makes the others flat, and a
small but real spread is scored. Every selector whose ranking depends on the
columns' relative scales says so with a ``ScaleWarning`` naming the columns and
the fix, when standardising the columns would change its ranking's head.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from selector_checks import make_planted
from test_adversarial_inputs import default

from ufskit.preprocess import drop_constant
from ufskit.selectors import MCFS, SELECTORS, UDFS, Variance
from ufskit.validation import SCALE_CHECK_FACTOR, ScaleWarning, column_extremes, flat_features

NAMES = sorted(SELECTORS)
WIDE = 3  # the column the cases rescale


def fit(est, X):
    """Fit; return the estimator and the ScaleWarnings raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X)
    return est, [w for w in caught if issubclass(w.category, ScaleWarning)]


def test_a_column_in_large_units_leaves_the_others_ranked():
    """The issue's example: one column of 2e10 x N(0, 1) made the 11 others flat (n_ranked_ = 1)."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 12))
    X[:, 0] = 2e10 * rng.standard_normal(40)
    est = Variance().fit(X)
    assert est.degenerate_features_.size == 0
    assert est.n_ranked_ == 12
    assert est.ranking_[0] == 1


def test_verdicts_do_not_depend_on_other_columns():
    """Rescaling or shifting any other column never changes a column's verdict."""
    rng = np.random.default_rng(1)
    X = np.column_stack([3.0 + 1e-9 * rng.standard_normal(30), np.full(30, 7.0), rng.standard_normal((30, 3))])
    base = flat_features(X)
    assert base.tolist() == [False, True, False, False, False]
    for scale in (1e-11, 1e11, 1e90):
        Y = X.copy()
        Y[:, 2] *= scale
        assert_array_equal(flat_features(Y), base)


def test_float32_rounding_is_flat_in_float32():
    """A float32 column constant up to one float32 ulp is flat; in float64 it would be 2^29 ulps of spread."""
    rng = np.random.default_rng(2)
    X = rng.standard_normal((20, 4)).astype(np.float32)
    X[:, 1] = np.float32(3.0)
    X[5, 1] = np.nextafter(np.float32(3.0), np.float32(4.0))
    assert flat_features(X.astype(np.float64), dtype=np.float32).tolist() == [False, True, False, False]
    assert not flat_features(X.astype(np.float64))[1]  # the float64 verdict: the point of passing the dtype
    assert Variance().fit(X).degenerate_features_.tolist() == [1]
    assert Variance().fit(X.astype(np.float64)).degenerate_features_.tolist() == []
    _, keep, info = drop_constant(X)
    assert keep.tolist() == [True, False, True, True] and info["n_near_constant"] == 1


def test_per_column_dtypes_of_a_data_frame():
    pd = pytest.importorskip("pandas")
    x = np.full(10, 3.0)
    x[0] = float(np.nextafter(np.float32(3.0), np.float32(4.0)))
    frame = pd.DataFrame({"f32": x.astype(np.float32), "f64": x, "other": np.arange(10.0)})
    assert Variance().fit(frame).degenerate_features_.tolist() == [0]


def test_precomputed_extremes_give_the_same_verdict():
    """The signature a sparse input path uses: per-column minima and maxima, X not needed."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((10, 5))
    X[:, 2] = 1.0
    assert_array_equal(flat_features(None, column_extremes(X), dtype=np.float32), flat_features(X, dtype=np.float32))


def test_a_small_spread_is_scored_and_round_off_is_flat():
    """3 + 1e-9 noise (a range of some 1e-9 of 3) is a real spread, scored and kept; 3 + 1e-12 noise (some 7000
    float64 ulps of 3, below the 1e-10 bound) is round-off: flat, and drop_constant removes it."""
    rng = np.random.default_rng(4)
    X = rng.standard_normal((30, 4))
    X[:, 1] = 3.0 + 1e-9 * rng.standard_normal(30)
    assert not flat_features(X).any()
    assert drop_constant(X)[1].all()
    X[:, 1] = 3.0 + 1e-12 * rng.standard_normal(30)
    assert flat_features(X).tolist() == [False, True, False, False]
    assert drop_constant(X)[1].tolist() == [True, False, True, True]


@pytest.mark.parametrize("cls", [MCFS, UDFS])
def test_a_small_spread_column_ranked_first_is_warned(cls):
    """3 + 1e-5 N(0, 1) beside unit-variance columns: MCFS and UDFS rank it first; the warning names it, and it is
    not in their ranking of the standardised X."""
    X = make_planted(n_samples=40, n_informative=3, n_noise=6, random_state=0).X
    X[:, WIDE] = 3.0 + 1e-5 * np.random.default_rng(5).standard_normal(40)
    est, caught = fit(cls(), X)
    assert caught, f"{cls.__name__} ranked column {WIDE} at {est.ranking_[WIDE]} with no ScaleWarning"
    message = str(caught[0].message)
    assert f"{WIDE} (" in message and "zscore" in message and "standardise" in message
    standardised = (X - X.mean(axis=0)) / X.std(axis=0)  # the fix it names: every standard deviation 1
    assert X.std(axis=0).max() > SCALE_CHECK_FACTOR * X.std(axis=0).min()
    assert not fit(cls(), standardised)[1]


@pytest.mark.parametrize("scale", [1e11, 1e-11])
@pytest.mark.parametrize("name", NAMES)
def test_a_column_of_extreme_range_leaves_every_other_column_ranked(name, scale):
    """The issue's done-when: a column of range 1e11 (or 1e-11) instead of the same column at unit range.

    No column becomes flat; a selector whose head of the ranking of the other
    columns (of its kernel features, for a selector that ranks those) changes
    says why with a ScaleWarning: the first min(10, ceil(d'/4)) in order, the
    part the scale check compares (changes further down, e.g. LS's ranks 5-7
    when a column of range 1e-11 leaves the kNN graph, are not warned about).
    """
    X = make_planted(n_samples=40, n_informative=3, n_noise=6, random_state=0).X
    extra = np.random.default_rng(6).standard_normal(40)
    unit = np.column_stack([X, extra / np.ptp(extra)])
    wide = np.column_stack([X, scale * extra / np.ptp(extra)])
    a, _ = fit(default(name), unit)
    b, caught = fit(default(name), wide)
    assert getattr(b, "degenerate_features_", np.array([])).size == 0
    assert np.isfinite(b.scores_).all()
    d = X.shape[1]
    ranks_columns = b.ranking_.size == d + 1
    before = a.ranking_[:d] if ranks_columns else a.ranking_
    after = b.ranking_[:d] if ranks_columns else b.ranking_
    head = min(10, -(-b.ranking_.size // 4))
    if not np.array_equal(np.argsort(before, kind="stable")[:head], np.argsort(after, kind="stable")[:head]):
        assert caught, f"{name}: the head of the ranking of the other columns changed with no ScaleWarning"
        assert f"column {d}: " in str(caught[0].message)  # the column of extreme spread, with its std
