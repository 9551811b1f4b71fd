"""H1 Rips diagrams (gudhi RipsPersistence) and the w_1^1 / bottleneck distances between diagrams."""

from __future__ import annotations

import math

import gudhi
import numpy as np
import pytest
from gudhi.sklearn import RipsPersistence
from scipy.spatial.distance import cdist

from ufskit.graph import pairwise_sq_dists
from ufskit.metrics import diagram_distances, h1_diagram


def square(side, extra=()):
    pts = np.array([[0, 0], [side, 0], [side, side], [0, side], *extra], dtype=float)
    return cdist(pts, pts)


def gudhi_h1(D, max_edge):
    """Oracle: the plain Rips complex expanded to dimension 2 (slow, fine for tiny inputs)."""
    st = gudhi.RipsComplex(distance_matrix=D, max_edge_length=max_edge).create_simplex_tree(max_dimension=2)
    st.compute_persistence()
    bars = st.persistence_intervals_in_dimension(1).reshape(-1, 2)
    return bars[np.lexsort((bars[:, 1], bars[:, 0]))]


# ---------------------------------------------------------------- diagrams


def test_square_has_one_bar_from_side_to_diagonal():
    s = 0.3
    dgm = h1_diagram(square(s))
    np.testing.assert_allclose(dgm, [[s, s * math.sqrt(2)]], atol=1e-6)
    np.testing.assert_allclose(dgm, gudhi_h1(square(s), 0.5), atol=1e-6)


def test_noisy_circle_matches_the_plain_rips_complex(rng):
    t = rng.uniform(0, 2 * np.pi, 40)
    pts = np.c_[np.cos(t), np.sin(t)] * 0.2 + rng.normal(0, 0.01, size=(40, 2))
    D = cdist(pts, pts)
    dgm = h1_diagram(D, max_edge=0.6, min_persistence=0.0)
    oracle = gudhi_h1(D, 0.6)
    oracle = oracle[oracle[:, 1] > oracle[:, 0]]
    assert dgm.shape == oracle.shape and len(dgm) >= 1
    np.testing.assert_allclose(dgm, oracle, atol=1e-6)
    # the circle itself is the one long bar
    assert np.sum(dgm[:, 1] - dgm[:, 0] >= 0.1) == 1


def test_diagram_is_invariant_to_the_order_of_points(rng):
    t = rng.uniform(0, 2 * np.pi, 30)
    pts = np.c_[np.cos(t), np.sin(t)] * 0.2 + rng.normal(0, 0.02, size=(30, 2))
    perm = rng.permutation(30)
    a = h1_diagram(cdist(pts, pts), min_persistence=0.0)
    b = h1_diagram(cdist(pts[perm], pts[perm]), min_persistence=0.0)
    np.testing.assert_allclose(a, b, atol=1e-9)


def test_duplicate_points_leave_the_diagram_unchanged(rng):
    t = rng.uniform(0, 2 * np.pi, 30)
    pts = np.c_[np.cos(t), np.sin(t)] * 0.2 + rng.normal(0, 0.01, size=(30, 2))
    doubled = np.vstack([pts, pts[:12], pts[:3]])  # 15 duplicates, some twice
    D = np.sqrt(pairwise_sq_dists(doubled))
    assert np.count_nonzero(D[30:, :30] == 0) == 15  # duplicates are at distance exactly 0
    expected = gudhi_h1(cdist(pts, pts), 0.5)
    np.testing.assert_allclose(h1_diagram(D, min_persistence=0.0), expected[expected[:, 1] > expected[:, 0]], atol=1e-9)


def test_identical_rows_of_large_norm_are_at_distance_zero(rng):
    X = rng.normal(1e3, 1.0, size=(5, 40))  # ||x||^2 ~ 4e7: the expansion leaves rounding noise
    D2 = pairwise_sq_dists(np.vstack([X, X]))
    np.testing.assert_array_equal(np.diag(D2[:5, 5:]), 0.0)
    assert np.all(D2[:5, :5][~np.eye(5, dtype=bool)] > 1.0)


def test_bars_shorter_than_min_persistence_are_dropped():
    D = square(0.3)
    (bar,) = h1_diagram(D, min_persistence=0.0)
    length = bar[1] - bar[0]  # 0.3 (sqrt 2 - 1) = 0.124
    assert h1_diagram(D, min_persistence=length).shape == (1, 2)  # "less than" epsilon: equal is kept
    assert h1_diagram(D, min_persistence=np.nextafter(length, 1.0)).shape == (0, 2)
    assert h1_diagram(D, min_persistence=0.2).shape == (0, 2)


def test_bars_alive_at_max_edge_are_capped():
    # a far point keeps gudhi from stopping at the cone radius, so the square's loop (dying at
    # 0.37 sqrt 2 = 0.523) is still alive at 0.5 and gudhi reports death = inf
    D = square(0.37, extra=[(5.0, 5.0)])
    raw = RipsPersistence(homology_dimensions=1, threshold=0.5, input_type="full distance matrix").fit_transform([D])[0]
    assert np.isinf(raw[:, 1]).all() and len(raw) == 1
    np.testing.assert_allclose(h1_diagram(D), [[0.37, 0.5]], atol=1e-9)
    # capped at 0.5, the loop born at 0.45 lasts 0.05 < 0.1 and is dropped
    D = square(0.45, extra=[(5.0, 5.0)])
    assert h1_diagram(D).shape == (0, 2)
    np.testing.assert_allclose(h1_diagram(D, min_persistence=0.0), [[0.45, 0.5]], atol=1e-9)


def test_too_few_points_give_an_empty_diagram():
    assert h1_diagram(square(0.3)[:3, :3]).shape == (0, 2)


def test_h1_diagram_rejects_bad_input(rng):
    D = square(0.3)
    with pytest.raises(ValueError, match="square"):
        h1_diagram(D[:, :3])
    asym = D.copy()
    asym[0, 1] = 0.2
    with pytest.raises(ValueError, match="symmetric"):
        h1_diagram(asym)
    nan = D.copy()
    nan[0, 1] = nan[1, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        h1_diagram(nan)
    with pytest.raises(ValueError, match="max_edge"):
        h1_diagram(D, max_edge=0.0)
    with pytest.raises(ValueError, match="min_persistence"):
        h1_diagram(D, min_persistence=-0.1)


# ---------------------------------------------------------------- distances between diagrams


EMPTY = np.empty((0, 2))


@pytest.mark.parametrize(
    "a, b, w11, winf",
    [
        # one point vs nothing: to the diagonal, d - b in l1 and (d - b) / 2 in l_inf
        ([[0.1, 0.5]], EMPTY, 0.4, 0.2),
        # two close points: matched to each other, |db| + |dd| = 0.2 in l1, max = 0.1 in l_inf
        ([[0.0, 1.0]], [[0.1, 0.9]], 0.2, 0.1),
        # the long bars match (0.1 in both norms), the short one goes to the diagonal (0.1 in l1, 0.05 in l_inf)
        ([[0.0, 1.0], [0.2, 0.3]], [[0.0, 1.1]], 0.2, 0.1),
        (EMPTY, EMPTY, 0.0, 0.0),
    ],
)
def test_diagram_distances_by_hand(a, b, w11, winf):
    out = diagram_distances(a, b)
    assert out["w11"] == pytest.approx(w11, abs=1e-9)
    assert out["winf"] == pytest.approx(winf, abs=1e-9)
    assert diagram_distances(b, a) == pytest.approx(out, abs=1e-9)


def test_diagram_distances_reject_bad_diagrams():
    with pytest.raises(ValueError, match="infinite"):
        diagram_distances([[0.1, np.inf]], EMPTY)
    with pytest.raises(ValueError, match=r"\(m, 2\)"):
        diagram_distances([0.1, 0.2, 0.3], EMPTY)
    with pytest.raises(ValueError, match="die before"):
        diagram_distances([[0.5, 0.1]], EMPTY)
    with pytest.raises(ValueError, match="delta"):
        diagram_distances(EMPTY, EMPTY, delta=0)
