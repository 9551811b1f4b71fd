"""FDD outlier scores and density-preserving sampling (ufskit.sampling)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
from numpy.testing import assert_allclose, assert_array_equal
from scipy.stats import spearmanr

from ufskit.graph import pairwise_sq_dists
from ufskit.sampling import DPS, FDD, dps_split


def blobs_with_outliers(rng, sds=(1.0, 1.0, 1.0), per_cluster=100, n_outliers=12, dim=5):
    """Gaussian clusters plus outliers on a sphere far (> 8 sd) from every cluster; outliers last."""
    centres = np.array([[0.0] * dim, [10.0] + [0.0] * (dim - 1), [0.0, 10.0] + [0.0] * (dim - 2)])
    X = np.vstack([c + sd * rng.standard_normal((per_cluster, dim)) for c, sd in zip(centres, sds)])
    directions = rng.standard_normal((n_outliers, dim))
    outliers = 40.0 * directions / np.linalg.norm(directions, axis=1, keepdims=True)
    return np.vstack([X, outliers]), np.arange(X.shape[0], X.shape[0] + n_outliers)


# ---------------------------------------------------------------- FDD


@pytest.mark.parametrize("n_particles", [1, 3, 12])
@pytest.mark.parametrize("temperature", [0.05, 0.1, 0.3])
def test_fdd_ranks_planted_outliers_most_anomalous(rng, n_particles, temperature):
    X, outliers = blobs_with_outliers(rng, sds=(0.5, 1.0, 2.0))  # clusters of unequal density
    fdd = FDD(n_particles=n_particles, temperature=temperature).fit(X)
    found = fdd.outliers(outliers.size / X.shape[0])
    assert set(found) == set(outliers)
    assert fdd.scores_[outliers].min() > fdd.scores_[: outliers[0]].max()


def test_fdd_is_a_fermi_dirac_density(rng):
    """FDD(i) = [f(H)]_ii / N with f the Fermi function of H = D - K, mu fixed by N, T by the mean degree."""
    X = rng.standard_normal((40, 3))
    fdd = FDD(n_particles=4, temperature=0.2, sigma=1.5).fit(X)
    K = np.exp(-pairwise_sq_dists(X) / (2 * 1.5**2))
    np.fill_diagonal(K, 0.0)
    H = np.diag(K.sum(axis=1)) - K
    assert_allclose(fdd.temperature_, 0.2 * K.sum() / 40)
    assert_allclose(fdd.occupations_.sum(), 4.0, rtol=1e-10)
    mu, T = fdd.chemical_potential_, fdd.temperature_
    fermi_operator = np.linalg.inv(np.eye(40) + scipy.linalg.expm((H - mu * np.eye(40)) / T))
    assert_allclose(fdd.scores_, np.diag(fermi_operator) / 4.0, rtol=1e-8)
    assert_allclose(fdd.scores_.sum(), 1.0)
    assert np.all(fdd.scores_ > 0)


def test_fdd_two_points_are_symmetric():
    """Two sites: the levels are 0 and 2k with (1, 1)/sqrt2 and (1, -1)/sqrt2, so each site holds half."""
    fdd = FDD().fit(np.array([[0.0, 0.0], [1.0, 2.0]]))
    k = np.exp(-5.0 / (2 * fdd.sigma_**2))
    assert_allclose(fdd.energies_, [0.0, 2 * k], atol=1e-15)
    assert_allclose(fdd.scores_, [0.5, 0.5])


def test_fdd_at_high_temperature_ranks_by_degree(rng):
    """As T grows, f(H) ~ 1/2 - (H - mu)/(4T): FDD decreases with the degree (a kernel density)."""
    X = rng.standard_normal((60, 4))
    fdd = FDD(temperature=1e3).fit(X)
    K = np.exp(-pairwise_sq_dists(X) / (2 * fdd.sigma_**2))
    np.fill_diagonal(K, 0.0)
    assert spearmanr(fdd.scores_, -K.sum(axis=1))[0] > 0.999


def test_fdd_is_invariant_to_rigid_motions_and_scale(rng):
    X, _ = blobs_with_outliers(rng, per_cluster=30, n_outliers=4)
    Q = np.linalg.qr(rng.standard_normal((5, 5)))[0]
    a = FDD(n_particles=3).fit(X)
    b = FDD(n_particles=3).fit(7.0 * X @ Q + 100.0)
    assert_allclose(b.scores_, a.scores_, rtol=1e-6)
    assert_array_equal(b.outliers(0.1), a.outliers(0.1))


def test_fdd_outliers_order_and_rounding(rng):
    fdd = FDD().fit(rng.standard_normal((30, 2)))
    assert fdd.outliers(0.0).size == 0
    top = fdd.outliers(0.1)
    assert top.size == 3 and np.all(np.diff(fdd.scores_[top]) <= 0)
    assert_array_equal(top, np.argsort(-fdd.scores_, kind="stable")[:3])


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_particles": 0}, "n_particles"),
        ({"n_particles": 10}, "at most n_samples - 1"),
        ({"temperature": 0.0}, "temperature"),
        ({"sigma": -1.0}, "sigma"),
        ({"sigma": 1e-9}, "underflowed"),
    ],
)
def test_fdd_bad_parameters(rng, kwargs, match):
    X = rng.standard_normal((10, 2))
    with pytest.raises(ValueError, match=match):
        FDD(**kwargs).fit(X)


def test_fdd_bad_input(rng):
    X = rng.standard_normal((10, 2))
    with pytest.raises(RuntimeError, match="not fitted"):
        FDD().outliers()
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        FDD().fit(X)
    with pytest.raises(ValueError, match="fraction"):
        FDD().fit(np.eye(4)).outliers(1.0)


# ---------------------------------------------------------------- DPS


def mean_or_nan(D, p, s):
    """MATLAB's mean(D(p, s)): NaN for an empty s."""
    return D[p, s].mean() if s else np.nan


def naive_split(D2, labels):
    """A line-by-line port of ``helper`` in Budka's dps.m: the full column minimum at every step, O(m^3)."""
    halves = [[], []]
    for cls in np.unique(labels):
        members = np.flatnonzero(labels == cls)
        Dorg = D2[np.ix_(members, members)].copy()
        np.fill_diagonal(Dorg, np.inf)
        D = Dorg.copy()
        mask = np.ones(members.size, dtype=bool)
        first, second = [], []
        for _ in range(members.size // 2):
            I_all = D.argmin(axis=0)
            J = int(D[I_all, np.arange(members.size)].argmin())
            I = int(I_all[J])
            mask[[I, J]] = False
            a = mean_or_nan(Dorg, I, first) + mean_or_nan(Dorg, J, second)
            b = mean_or_nan(Dorg, I, second) + mean_or_nan(Dorg, J, first)
            if a < b:
                first.append(J), second.append(I)
            else:
                first.append(I), second.append(J)
            D[[I, J], :] = np.inf
            D[:, [I, J]] = np.inf
        if mask.any():
            (left,) = np.flatnonzero(mask)
            size1, size2 = len(halves[0]) + len(first), len(halves[1]) + len(second)
            if size1 < size2:
                first.append(left)
            elif size1 > size2:
                second.append(left)
            elif first and Dorg[left, first].mean() < Dorg[left, second].mean():
                second.append(left)
            else:
                first.append(left)
        halves[0] += members[first].tolist()
        halves[1] += members[second].tolist()
    return np.array(halves[0], dtype=int), np.array(halves[1], dtype=int)


def test_dps_split_of_a_line_by_hand():
    """Pairs (0,1), (2,3), (4,5) at distance 1; the coverage rule sends them as computed in the docstring.

    Pair 1: columns 0..5 all have minimum 1, J = column 0, I = its nearest, 1: I -> first.
    Pair 2 (J = 2 at 10, I = 3 at 11): a = d(11,1) + d(10,0) = 100 + 100 < b = d(11,0) + d(10,1) = 121 + 81,
    so J -> first. Pair 3 (J = 4 at 100, I = 5 at 101): a = b = 36202 (sums), so I -> first.
    The leftover 50 is farther on average from the first half: it joins the first half.
    """
    x = np.array([0.0, 1.0, 10.0, 11.0, 100.0, 101.0, 50.0])[:, None]
    first, second = dps_split(pairwise_sq_dists(x[:6]), np.zeros(6, dtype=int))
    assert_array_equal(first, [1, 2, 5])
    assert_array_equal(second, [0, 3, 4])
    first, second = dps_split(pairwise_sq_dists(x), np.zeros(7, dtype=int))
    assert_array_equal(first, [1, 2, 5, 6])
    assert_array_equal(second, [0, 3, 4])


@pytest.mark.parametrize("integer_grid", [False, True])  # the grid makes many exact ties
@pytest.mark.parametrize("n_classes", [1, 3])
def test_dps_split_matches_the_naive_port(rng, integer_grid, n_classes):
    X = rng.integers(0, 6, size=(75, 2)).astype(float) if integer_grid else rng.standard_normal((75, 3))
    labels = rng.integers(0, n_classes, size=75)
    D2 = pairwise_sq_dists(X)
    fast = dps_split(D2, labels)
    slow = naive_split(D2, labels)
    assert_array_equal(fast[0], slow[0])
    assert_array_equal(fast[1], slow[1])


def gaussian_mixture(rng, n=403):
    comp = rng.integers(0, 3, size=n)
    centres = np.array([[0.0, 0.0], [6.0, 1.0], [2.0, 7.0]])
    scales = np.array([0.5, 1.0, 2.0])
    return centres[comp] + scales[comp, None] * rng.standard_normal((n, 2)), comp


def test_dps_folds_are_equal_sized_and_each_covers_the_data(rng):
    X, comp = gaussian_mixture(rng)
    dps = DPS(levels=2).fit(X)
    sizes = np.bincount(dps.folds_, minlength=4)
    assert dps.n_folds_ == 4 and sizes.sum() == X.shape[0] and np.ptp(sizes) <= 1
    spread = X.std(axis=0)
    for r in range(4):
        fold = X[dps.subset(r)]
        assert np.all(np.abs(fold.mean(axis=0) - X.mean(axis=0)) < 0.05 * spread)
        assert_allclose(fold.std(axis=0), spread, rtol=0.05)
        # every mixture component is split evenly too, although DPS never saw the labels
        per_component = np.bincount(comp[dps.subset(r)], minlength=3)
        assert np.all(np.abs(per_component - np.bincount(comp) / 4) <= 2)


def test_dps_is_deterministic_and_subsets_partition_the_data(rng):
    X, _ = gaussian_mixture(rng, n=101)
    a = DPS(levels=3).fit(X)
    b = DPS(levels=3).fit(X.copy())
    assert_array_equal(a.folds_, b.folds_)
    parts = np.concatenate([a.subset(r) for r in range(8)])
    assert_array_equal(np.sort(parts), np.arange(101))


def test_dps_with_labels_splits_every_class(rng):
    X, comp = gaussian_mixture(rng, n=203)
    dps = DPS(levels=2).fit(X, comp)
    counts = np.array([np.bincount(comp[dps.folds_ == r], minlength=3) for r in range(4)])
    assert np.all(np.ptp(counts, axis=0) <= 1)
    assert np.ptp(counts.sum(axis=1)) <= 1


def test_dps_level_one_is_the_first_split(rng):
    X, _ = gaussian_mixture(rng, n=50)
    first, second = dps_split(pairwise_sq_dists(X), np.zeros(50, dtype=int))
    folds = DPS(levels=1).fit(X).folds_
    assert_array_equal(np.flatnonzero(folds == 0), np.sort(first))
    assert_array_equal(np.flatnonzero(folds == 1), np.sort(second))


def test_dps_bad_input(rng):
    X = rng.standard_normal((7, 2))
    with pytest.raises(ValueError, match="need at least 8 samples"):
        DPS(levels=3).fit(X)
    with pytest.raises(ValueError, match="levels"):
        DPS(levels=0).fit(X)
    with pytest.raises(ValueError, match="one label per sample"):
        DPS().fit(X, np.zeros(6))
    with pytest.raises(RuntimeError, match="not fitted"):
        DPS().subset(0)
    with pytest.raises(ValueError, match=r"fold r must be an integer in \[0, 3\]"):
        DPS().fit(X).subset(4)
    X[0, 0] = np.inf
    with pytest.raises(ValueError, match="NaN or infinite"):
        DPS().fit(X)
