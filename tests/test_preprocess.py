"""Preprocessing steps: hand-computed cases, chain behaviour, bad input.

Expected numbers are worked out by hand in the comments. The quantile cases were
also run through limma::normalizeQuantiles and preprocessCore::normalize.quantiles
(R, on the transposed matrices), which gave the same numbers for ties="interpolate".
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.io

from ufskit.data import Dataset
from ufskit.preprocess import (
    STEPS,
    apply_chain,
    binormalize,
    double_center,
    drop_constant,
    l2,
    log10,
    parse_chain,
    quantile,
    tfidf,
    zscore,
)

close = np.testing.assert_allclose


def test_registry_names():
    assert set(STEPS) == {"zscore", "log10", "quantile", "double_center", "tfidf", "l2", "binormalize", "drop_constant"}


# ---------------------------------------------------------------- zscore
def test_zscore_hand_case():
    X = np.array([[1.0, 10.0], [2.0, 20.0], [3.0, 60.0]])
    Z, keep, info = zscore(X)
    # col 0: mean 2, population var (1+0+1)/3 = 2/3 -> z = -+1/sqrt(2/3) = -+1.224744871
    # col 1: mean 30, deviations -20, -10, 30, var (400+100+900)/3 = 466.667, sd 21.602469
    #        -> -0.9258201, -0.4629100, 1.3887301
    expected = [[-1.224744871, -0.9258201], [0.0, -0.4629100], [1.224744871, 1.3887301]]
    close(Z, expected, atol=1e-7)
    assert keep is None and info == {"ddof": 0}
    assert X[0, 1] == 10.0  # input untouched


def test_zscore_constant_feature_points_to_drop_constant():
    with pytest.raises(ValueError, match="drop_constant"):
        zscore(np.array([[1.0, 5.0], [2.0, 5.0]]))


# ---------------------------------------------------------------- log10
def test_log10_floor_hand_case():
    X = np.array([[-5.0, 0.0, 10.0, 100.0], [1000.0, 5.0, 20.0, 10.0]])
    Y, keep, info = log10(X)  # default floor 10: -5, 0, 5 -> 10 (3 cells); 10 itself is not floored
    close(Y, [[1, 1, 1, 2], [3, 1, np.log10(20), 1]])  # log10(20) = 1.30103
    assert keep is None
    assert info == {"floor": 10.0, "ceiling": None, "n_floored": 3, "n_ceiled": 0, "n_cells": 8}


def test_log10_floor_and_ceiling_dudoit():
    X = np.array([[50.0, 100.0, 20000.0], [16000.0, 1000.0, 99.0]])
    Y, _, info = log10(X, floor=100, ceiling=16000)
    # 50, 99 -> 100 (2 cells); 20000 -> 16000 (1 cell); log10(16000) = 4.20412
    close(Y, [[2, 2, np.log10(16000)], [np.log10(16000), 3, 2]])
    assert (info["n_floored"], info["n_ceiled"], info["floor"], info["ceiling"]) == (2, 1, 100.0, 16000.0)


def test_log10_without_floor():
    Y, _, info = log10(np.array([[0.1, 1.0], [10.0, 1000.0]]), floor=None)
    close(Y, [[-1, 0], [1, 3]])
    assert info["n_floored"] == 0 and info["floor"] is None


@pytest.mark.parametrize(
    "X, options, message",
    [
        ([[1.0, 0.0], [5.0, 20.0]], {"require_positive": True}, "1 values are <= 0"),
        ([[1.0, -3.0], [5.0, 20.0]], {"floor": None}, "<= 0"),
        ([[1.0, 2.0], [3.0, 4.2]], {}, "already log-scaled"),  # every cell below the floor 10
        ([[1.0, 2.0], [3.0, 4.0]], {"floor": 0}, "floor must be"),
        ([[1.0, 2.0], [3.0, 4.0]], {"floor": "10"}, "floor must be"),
        ([[1.0, 2.0], [3.0, 4.0]], {"floor": 10, "ceiling": 5}, "ceiling must be"),
    ],
)
def test_log10_refuses(X, options, message):
    with pytest.raises(ValueError, match=message):
        log10(np.array(X), **options)


# ---------------------------------------------------------------- quantile
def test_quantile_hand_case_with_a_pair_tie():
    X = np.array([[5.0, 2.0, 3.0, 4.0], [4.0, 1.0, 4.0, 2.0], [3.0, 4.0, 6.0, 8.0]])
    # sorted rows: [2,3,4,5], [1,2,4,4], [3,4,6,8] -> reference r = [2, 3, 14/3, 17/3]
    # row 0 ranks 4,1,2,3 -> 17/3, 2, 3, 14/3
    # row 1: 1 -> r1 = 2; 2 -> r2 = 3; the two 4s share ranks 3-4 -> (14/3 + 17/3)/2 = 31/6
    # row 2 ranks 1,2,3,4 -> 2, 3, 14/3, 17/3
    expected = [[17 / 3, 2, 3, 14 / 3], [31 / 6, 2, 31 / 6, 3], [2, 3, 14 / 3, 17 / 3]]
    for ties in ("interpolate", "mean"):  # a block of two: midpoint == mean of the two
        Q, keep, info = quantile(X, ties=ties)
        close(Q, expected, rtol=1e-12)
        assert keep is None and info == {"ties": ties, "n_tied_cells": 2}


def test_quantile_ties_interpolate_versus_mean():
    X = np.array([[3.0, 3.0, 3.0, 3.0, 1.0], [2.0, 9.0, 4.0, 7.0, 5.0], [1.0, 1.0, 8.0, 8.0, 0.0]])
    # sorted rows [1,3,3,3,3], [2,4,5,7,9], [0,1,1,8,8] -> r = [1, 8/3, 3, 6, 20/3]
    # row 0: four 3s at positions 2..5 (1-based), average rank 3.5 -> interpolate (r3+r4)/2 = 4.5;
    #        mean (8/3 + 3 + 6 + 20/3)/4 = 55/12 = 4.583333; the 1 -> r1 = 1
    # row 1 (no ties): 2->r1=1, 9->r5=20/3, 4->r2=8/3, 7->r4=6, 5->r3=3
    # row 2: 0 -> 1; 1s at 2..3 -> (8/3+3)/2 = 17/6; 8s at 4..5 -> (6+20/3)/2 = 19/3 (same for both)
    row1 = [1, 20 / 3, 8 / 3, 6, 3]
    row2 = [17 / 6, 17 / 6, 19 / 3, 19 / 3, 1]
    Q, _, info = quantile(X)  # limma / preprocessCore agree with this row by row
    close(Q, [[4.5] * 4 + [1], row1, row2], rtol=1e-12)
    assert info["n_tied_cells"] == 8
    Qm, _, _ = quantile(X, ties="mean")
    close(Qm, [[55 / 12] * 4 + [1], row1, row2], rtol=1e-12)


def test_quantile_three_way_tie_differs_between_tie_rules():
    X = np.array([[1.0, 2.0, 4.0, 8.0], [0.0, 0.0, 0.0, 6.0]])
    # r = [0.5, 1, 2, 7]; the three 0s hold positions 1..3: interpolate -> r2 = 1; mean -> 3.5/3
    close(quantile(X)[0], [[0.5, 1, 2, 7], [1, 1, 1, 7]], rtol=1e-12)
    close(quantile(X, ties="mean")[0], [[0.5, 1, 2, 7], [7 / 6, 7 / 6, 7 / 6, 7]], rtol=1e-12)


def test_quantile_properties_on_random_data(rng):
    X = rng.lognormal(size=(6, 40))
    Q, _, _ = quantile(X)
    reference = np.sort(X, axis=1).mean(axis=0)
    assert np.array_equal(np.sort(Q, axis=1), np.tile(reference, (6, 1)))  # one distribution for all rows
    assert np.array_equal(np.argsort(Q, axis=1), np.argsort(X, axis=1))  # within-row order kept
    Xt = np.round(X * 2) / 2  # many ties: "mean" keeps every row mean at mean(r)
    Qm, _, _ = quantile(Xt, ties="mean")
    close(Qm.mean(axis=1), np.sort(Xt, axis=1).mean(), rtol=1e-12)


def test_quantile_bad_tie_rule():
    with pytest.raises(ValueError, match="ties must be one of"):
        quantile(np.ones((2, 2)), ties="average")


# ---------------------------------------------------------------- double_center
def test_double_center_hand_case():
    X = np.array([[1.0, 2.0], [3.0, 8.0]])
    # row means 1.5, 5.5; column means 2, 5; grand mean 3.5
    # 1-1.5-2+3.5 = 1; 2-1.5-5+3.5 = -1; 3-5.5-2+3.5 = -1; 8-5.5-5+3.5 = 1
    close(double_center(X)[0], [[1, -1], [-1, 1]], atol=1e-15)


def test_double_center_is_hn_x_hd(rng):
    X = rng.normal(size=(5, 7)) + 3
    C, _, _ = double_center(X)
    H5, H7 = (np.eye(m) - 1.0 / m for m in (5, 7))  # centring matrices
    close(C, H5 @ X @ H7, atol=1e-12)
    close(C.mean(axis=0), 0, atol=1e-12)
    close(C.mean(axis=1), 0, atol=1e-12)


# ---------------------------------------------------------------- text
def test_tfidf_hand_case():
    counts = np.array([[1.0, 0, 2, 1], [0, 0, 3, 1], [2, 0, 0, 1]])
    # n = 3, df = [2, 0, 2, 3]; idf = ln(3/2) = 0.4054651081 for columns 0 and 2;
    # column 1 is empty (0) and column 3 is in every document (ln 1 = 0)
    a = 0.4054651081081644
    T, keep, info = tfidf(counts)
    close(T, [[a, 0, 2 * a, 0], [0, 0, 3 * a, 0], [2 * a, 0, 0, 0]], rtol=1e-12)
    assert keep is None
    assert info["n_empty_terms"] == 1 and info["n_terms_in_every_document"] == 1


def test_l2_hand_case():
    X = np.array([[3.0, 4.0], [0.0, 0.0], [1.0, -1.0]])
    # norms 5, 0, sqrt(2): [0.6, 0.8], zero row stays, [0.70710678, -0.70710678]
    L, _, info = l2(X)
    close(L, [[0.6, 0.8], [0, 0], [0.7071067811865476, -0.7071067811865476]], rtol=1e-12)
    assert info == {"n_zero_rows": 1}


def test_binormalize_hand_case():
    A = np.array([[1.0, 2.0, 0.0], [3.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    # row sums 3, 3, 0; column sums 4, 2, 0
    # 1/sqrt(3*4) = 0.28867513, 2/sqrt(3*2) = 0.81649658, 3/sqrt(3*4) = 0.8660254; empty row/col -> 0
    B, _, info = binormalize(A)
    close(B, [[0.28867513459, 0.81649658093, 0], [0.86602540378, 0, 0], [0, 0, 0]], rtol=1e-10)
    assert info == {"n_empty_rows": 1, "n_empty_columns": 1}


def test_binormalize_matches_diagonal_form(rng):
    A = rng.poisson(1.0, size=(6, 9)).astype(float) + 0.5
    B, _, _ = binormalize(A)
    D1 = np.diag(A.sum(axis=1) ** -0.5)
    D2 = np.diag(A.sum(axis=0) ** -0.5)
    close(B, D1 @ A @ D2, rtol=1e-12)


@pytest.mark.parametrize("step", [binormalize, tfidf])
def test_negative_input_refused(step):
    with pytest.raises(ValueError, match="non-negative.*1 values are negative"):
        step(np.array([[1.0, -0.5], [2.0, 3.0]]))


# ---------------------------------------------------------------- drop_constant
def test_drop_constant_hand_case():
    X = np.array([[1.0, 7.0, 2.0, 0.0], [1.0, 7.0, 3.0, 0.0], [1.0, 7.0, 2.0, 1.0]])
    Y, keep, info = drop_constant(X)  # columns 0 and 1 never change
    assert keep.tolist() == [False, False, True, True]
    assert Y.tolist() == [[2, 0], [3, 0], [2, 1]]
    assert info == {"n_removed": 2, "n_kept": 2, "n_near_constant": 0, "first_removed": [0, 1]}
    with pytest.raises(ValueError, match="every feature is constant"):
        drop_constant(np.ones((3, 2)))


def test_drop_constant_uses_the_library_flatness_rule(caplog):
    """Near-constant (flat by validation.flat_features) goes, an offset column stays; both counted and logged."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 4))
    X[:, 1] = 3.0 + 1e-15 * rng.standard_normal(30)  # flat: a few float64 ulps of its own magnitude
    X[:, 2] += 1e9  # std 1 on an offset: not flat (a range of some 1e-9 of its magnitude, above the 1e-10 bound)
    X[:, 3] = 7.0
    with caplog.at_level("INFO", logger="ufskit.preprocess"):
        Y, keep, info = drop_constant(X)
    assert keep.tolist() == [True, False, True, False]
    assert info == {"n_removed": 2, "n_kept": 2, "n_near_constant": 1, "first_removed": [1, 3]}
    assert "removed 2 of 4 features (1 exactly constant, 1 near-constant" in caplog.text
    with pytest.raises(ValueError, match="near-constant.*drop_constant"):
        zscore(X[:, :3])


def test_steps_reject_nan():
    X = np.array([[1.0, np.nan], [2.0, 3.0]])
    for step in STEPS.values():
        with pytest.raises(ValueError, match="NaN"):
            step(X)


# ---------------------------------------------------------------- apply_chain
def _dataset(X, names=True, info=None):
    X = np.asarray(X, dtype=float)
    fn = [f"g{j}" for j in range(X.shape[1])] if names else None
    return Dataset(X, np.arange(X.shape[0]) % 2, fn, info or {})


def test_chain_feature_names_follow_drop_constant():
    X = [[1.0, 5.0, 2.0, 9.0], [2.0, 5.0, 2.0, 8.0], [4.0, 5.0, 2.0, 8.0]]
    out = apply_chain(_dataset(X), ["drop_constant", "zscore"])
    assert out.feature_names.tolist() == ["g0", "g3"]
    close(out.X.mean(axis=0), 0, atol=1e-12)
    close(out.X.std(axis=0), 1, rtol=1e-12)
    assert apply_chain(_dataset(X, names=False), ["drop_constant"]).feature_names is None


def test_chain_records_floors_and_counts_and_leaves_input_alone():
    X = np.array([[-5.0, 0.0, 10.0, 100.0], [1000.0, 5.0, 20.0, 10.0], [50.0, 3.0, 30.0, 10.0]])
    ds = _dataset(X, info={"source": "toy", "preprocessing": [{"step": "earlier"}]})
    out = apply_chain(ds, [{"log10": {"floor": 10}}, "drop_constant", {"quantile": None}])
    # log10 floors -5, 0, 5, 3 (4 cells); column 3 (100, 10, 10) is not constant; column 1 is all 10 -> 1 after log
    steps = out.info["preprocessing"]
    assert [s["step"] for s in steps] == ["earlier", "log10", "drop_constant", "quantile"]
    assert steps[1]["floor"] == 10.0 and steps[1]["n_floored"] == 4
    assert steps[2] == {"step": "drop_constant", "n_removed": 1, "n_kept": 3, "n_near_constant": 0, "first_removed": [1],
                        "removed_names": ["g1"]}
    assert out.feature_names.tolist() == ["g0", "g2", "g3"]
    assert out.info["source"] == "toy"
    json.dumps(out.info)  # the summary must be JSON
    assert ds.info["preprocessing"] == [{"step": "earlier"}]  # input not mutated
    assert ds.X[0, 0] == -5.0 and ds.feature_names.size == 4
    empty = apply_chain(ds, [])
    assert not np.shares_memory(empty.X, ds.X) and np.array_equal(empty.X, ds.X)


def test_microarray_chain_order(rng):
    X = rng.lognormal(mean=6, sigma=1.5, size=(8, 30)) + 10  # raw intensities above the floor ...
    X[np.arange(8), np.arange(8)] = -20.0  # ... but one negative per row (floored alone: no ties)
    ds = _dataset(X)
    normalised = apply_chain(ds, ["log10", "quantile"])
    rows = np.sort(normalised.X, axis=1)
    assert np.array_equal(rows, np.tile(rows[0], (8, 1)))  # equal row distributions before centring
    out = apply_chain(ds, ["log10", "quantile", "double_center"])
    close(out.X.mean(axis=0), 0, atol=1e-12)
    close(out.X.mean(axis=1), 0, atol=1e-12)
    swapped = apply_chain(ds, ["log10", "double_center", "quantile"])
    assert np.abs(swapped.X.mean(axis=0)).max() > 1e-3  # other order: columns not centred
    assert not np.allclose(swapped.X, out.X)


def test_unknown_step_fails_before_any_work(monkeypatch):
    calls = []
    monkeypatch.setitem(STEPS, "spy", lambda X: calls.append(1) or (X, None, {}))
    with pytest.raises(ValueError, match=r"unknown preprocessing step 'standardize'; known steps: .*zscore"):
        apply_chain(_dataset(np.eye(3)), ["spy", "standardize"])
    assert calls == []


@pytest.mark.parametrize(
    "chain, message",
    [
        ([{"log10": {"flor": 10}}], "does not take options"),
        ([{"quantile": "mean"}], "must be a mapping"),
        ([{"log10": {}, "l2": {}}], "must be a step name"),
        ([3], "must be a step name"),
        ("zscore", "must be a list"),
    ],
)
def test_bad_chain_items(chain, message):
    with pytest.raises(ValueError, match=message):
        parse_chain(chain)


def test_parse_chain_forms():
    assert parse_chain(["l2", {"quantile": {"ties": "mean"}}, {"tfidf": None}]) == [
        ("l2", {}),
        ("quantile", {"ties": "mean"}),
        ("tfidf", {}),
    ]


def test_chain_fails_on_non_finite_output(monkeypatch):
    monkeypatch.setitem(STEPS, "broken", lambda X: (X / 0.0, None, {}))
    with np.errstate(divide="ignore", invalid="ignore"), pytest.raises(ValueError, match="'broken' produced 9 NaN/inf"):
        apply_chain(_dataset(np.ones((3, 3))), ["l2", "broken"])


# ---------------------------------------------------------------- real data
def test_gems_11_tumors_microarray_chain(mirror):
    """Raw GEMS intensities (negatives, zeros): floored, normalised, centred, and still finite."""
    raw = scipy.io.loadmat(mirror / "microarray" / "11_Tumors.mat")
    X = np.asarray(raw["ins"], dtype=float)
    mid = apply_chain(Dataset(X, raw["lab"].ravel()), ["log10", "quantile"])
    out = apply_chain(mid, ["double_center"])
    log_info, quantile_info, _ = out.info["preprocessing"]
    below = X < 10
    assert log_info["n_floored"] == below.sum() > 0
    assert quantile_info["n_tied_cells"] >= below.sum()
    # the floored cells of a row form one tie block, so they share one value after quantile
    lowest = np.where(below, mid.X, np.inf).min(axis=1)
    highest = np.where(below, mid.X, -np.inf).max(axis=1)
    assert np.array_equal(lowest[below.any(axis=1)], highest[below.any(axis=1)])
    close(out.X.mean(axis=0), 0, atol=1e-10)
    close(out.X.mean(axis=1), 0, atol=1e-10)


def test_a_count_above_the_prepared_width_names_the_dropped_columns():
    """Issue 39: "feature counts [2, 5] are outside [1, 1]" for an 11-column file did not say 10 were dropped."""
    from ufskit.experiments import FeatureCountError, counts_explained, feature_counts

    rng = np.random.default_rng(0)
    X = np.column_stack([rng.standard_normal(8), np.ones((8, 10))])
    names = np.array(["stamp", *[f"c{j}" for j in range(10)]])
    ds = apply_chain(Dataset(X, np.arange(8) % 2, names, {}), ["drop_constant"])
    with pytest.raises(FeatureCountError, match=r"outside \[1, 1\].*'drop_constant' removed 10 column\(s\) as "
                                                r"constant or varying only by rounding \(c0, c1, .*c9\)"):
        with counts_explained(ds.info):
            feature_counts([2, 5], ds.X.shape[1])
    with counts_explained(ds.info):
        assert feature_counts([1], ds.X.shape[1]) == [1]
