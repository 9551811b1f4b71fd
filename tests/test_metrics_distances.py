"""Normalised distance matrices, the norms of D - D_F and their incremental path over feature prefixes."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.spatial.distance import cdist

from ufskit.metrics import (
    check_distance_matrix,
    distance_norms,
    distance_norms_path,
    iter_prefix_sq_dists,
    normalized_distance_matrix,
    prefix_distance_matrices,
)

# the 3-4-5 triangle: pairwise distances 3 (0-1), 4 (0-2), 5 (1-2)
TRIANGLE = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 4.0]])


def test_normalized_distance_matrix_by_hand():
    D = normalized_distance_matrix(TRIANGLE)
    expected = np.array([[0, 0.6, 0.8], [0.6, 0, 1.0], [0.8, 1.0, 0]])
    np.testing.assert_allclose(D, expected, atol=1e-12)
    assert np.array_equal(D, D.T) and D.max() == 1.0


def test_normalized_distance_matrix_is_zero_when_points_coincide():
    D = normalized_distance_matrix(np.ones((4, 3)))
    assert D.shape == (4, 4) and not D.any()


def test_norms_by_hand_on_three_points():
    D = normalized_distance_matrix(TRIANGLE)
    # first coordinate only: distances 3, 0, 3 -> divided by their own maximum 3: 1, 0, 1
    DF = normalized_distance_matrix(TRIANGLE[:, :1])
    # E over the pairs (0-1, 0-2, 1-2) = (0.6 - 1, 0.8 - 0, 1 - 1) = (-0.4, 0.8, 0), each twice in the 3 x 3 matrix
    out = distance_norms(D, DF)
    assert out["Linf"] == pytest.approx(0.8)
    assert out["L1_over_n2"] == pytest.approx(2 * (0.4 + 0.8) / 9)
    assert out["L2"] == pytest.approx(math.sqrt(2 * (0.16 + 0.64)))
    assert distance_norms(DF, D) == out
    assert distance_norms(D, D) == {"Linf": 0.0, "L1_over_n2": 0.0, "L2": 0.0}


def test_norms_path_by_hand_with_both_normalisations():
    own = distance_norms_path(TRIANGLE, [0, 1], [1, 2])
    assert own["Linf"].tolist() == pytest.approx([0.8, 0.0])
    assert own["L1_over_n2"].tolist() == pytest.approx([2 * 1.2 / 9, 0.0])
    # normalize_subset=False: D_F of the first coordinate is (3, 0, 3) / 5 = (0.6, 0, 0.6); E = (0, 0.8, 0.4)
    full = distance_norms_path(TRIANGLE, [0], [1], normalize_subset=False)
    assert full["Linf"].tolist() == pytest.approx([0.8])
    assert full["L2"].tolist() == pytest.approx([math.sqrt(2 * (0.64 + 0.16))])
    ((_, DF),) = prefix_distance_matrices(TRIANGLE, [0], [1], normalize_subset=False)
    np.testing.assert_allclose(DF, [[0, 0.6, 0], [0.6, 0, 0.6], [0, 0.6, 0]], atol=1e-12)


@pytest.mark.parametrize("normalize_subset", [True, False])
def test_norms_path_equals_one_shot_at_every_count(rng, normalize_subset):
    X = rng.normal(size=(30, 15)) * rng.uniform(0.5, 3, size=15)
    order = rng.permutation(15)[:10]
    counts = [1, 2, 4, 7, 10]
    path = distance_norms_path(X, order, counts, normalize_subset=normalize_subset)
    D = normalized_distance_matrix(X)
    full_max = cdist(X, X).max()
    for j, m in enumerate(counts):
        if normalize_subset:
            DF = normalized_distance_matrix(X[:, order[:m]])
        else:
            DF = cdist(X[:, order[:m]], X[:, order[:m]]) / full_max
            np.fill_diagonal(DF, 0.0)
        one = distance_norms(D, DF)
        for key in one:
            assert path[key][j] == pytest.approx(one[key], rel=1e-9, abs=1e-12), (key, m)


def test_prefix_sq_dists_accumulate_exactly_the_prefix(rng):
    X = rng.normal(size=(12, 9))
    order = [4, 0, 8, 2, 7]
    seen = []
    for m, D2 in iter_prefix_sq_dists(X, order, [1, 3, 5]):
        np.testing.assert_allclose(D2, cdist(X[:, order[:m]], X[:, order[:m]], "sqeuclidean"), atol=1e-10)
        assert not D2.flags.writeable
        seen.append(m)
    assert seen == [1, 3, 5]


def test_distances_reject_bad_input(rng):
    D = normalized_distance_matrix(rng.normal(size=(5, 3)))
    with pytest.raises(ValueError, match="square"):
        distance_norms(D[:, :4], D[:, :4])
    with pytest.raises(ValueError, match="same shape"):
        distance_norms(D, D[:4, :4])
    asym = D.copy()
    asym[0, 1] += 0.1
    with pytest.raises(ValueError, match="symmetric"):
        check_distance_matrix(asym)
    nan = D.copy()
    nan[0, 1] = nan[1, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        distance_norms(D, nan)
    diag = D + np.eye(5)
    with pytest.raises(ValueError, match="diagonal"):
        check_distance_matrix(diag)
    with pytest.raises(ValueError, match="negative"):
        check_distance_matrix(-D)
    with pytest.raises(ValueError, match="NaN"):
        normalized_distance_matrix(np.array([[0.0, np.nan], [1.0, 2.0]]))
    with pytest.raises(ValueError, match="counts"):
        distance_norms_path(rng.normal(size=(5, 3)), [0, 1, 2], [2, 1])
    with pytest.raises(ValueError, match="order"):
        next(iter_prefix_sq_dists(rng.normal(size=(5, 3)), [0.0, 1.0], [1]))
