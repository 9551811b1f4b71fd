"""Instance sampling for NRFS: FDD outlier scores and density-preserving sampling (DPS).

* ``FDD``, the Fermi density descriptor (Huang, Qin, Yoo & Yu, ICDM 2012), as
  NRFS uses it to drop noisy observations. Its exact formulas are not public;
  this is a reconstruction from the abstracts' physics, validated on planted
  outliers (docs/fidelity/nrfs.md explains why the construction proposed in the
  project notes was changed). Instances are the sites of a graph whose
  Hamiltonian is the combinatorial Laplacian H = D - K of a Gaussian kernel K:
  the degree d_i is the on-site potential and K_ij the hopping, so sparse
  regions are potential wells in which the low-energy states localise. N
  fermions fill the eigenstates (E_k, phi_k) with Fermi-Dirac occupations
  n_k = 1 / (exp((E_k - mu) / T) + 1), mu fixed by sum_k n_k = N, and
  FDD(i) = sum_k n_k phi_k(i)^2 / N is the probability of measuring a fermion
  at instance i: the anomalousness (higher = more anomalous).
* ``DPS``, density-preserving sampling (Budka & Gabrys, IEEE TNNLS 2013), a
  faithful port of the authors' ``dps.m``: ``levels`` recursive halvings, each
  pairing the two closest remaining points of a class and sending them to
  opposite halves. Deterministic.
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy.optimize import brentq
from scipy.special import expit

from .graph import pairwise_sq_dists
from .validation import check_data, check_int


def _check_fitted(est, attribute: str) -> None:
    if not hasattr(est, attribute):
        raise RuntimeError(f"this {type(est).__name__} is not fitted yet; call fit(X) first.")


def _check_fraction(value, name: str) -> float:
    """A float in [0, 1), or a ValueError naming the parameter."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= value < 1:
        raise ValueError(f"{name} must be a fraction in [0, 1), got {value!r}.")
    return float(value)


def median_distance(D2: np.ndarray) -> float:
    """Median Euclidean distance over distinct pairs (FDD's default kernel width)."""
    iu = np.triu_indices(D2.shape[0], k=1)
    return float(np.sqrt(np.median(D2[iu])))


def fermi_dirac(E: np.ndarray, mu: float, T: float) -> np.ndarray:
    """Occupations 1 / (exp((E - mu) / T) + 1), computed without overflow."""
    return expit((mu - E) / T)


def chemical_potential(E: np.ndarray, n_particles: float, T: float) -> float:
    """The mu at which the Fermi-Dirac occupations of the levels E sum to ``n_particles``.

    The sum rises strictly from 0 to len(E) as mu grows, so for 0 < N < len(E)
    the root is unique and lies within 40 T of the spectrum's ends.
    """
    return brentq(lambda mu: fermi_dirac(E, mu, T).sum() - n_particles, E[0] - 40 * T, E[-1] + 40 * T, xtol=1e-14 * T)


class FDD:
    """Fermi density descriptor: the probability of measuring one of N fermions at each instance.

    Parameters
    ----------
    n_particles : int, default 1
        N, the number of fermions (1 <= N <= n - 1). NRFS passes the number of
        instances it drops. The ranking hardly depends on it (docs/fidelity/nrfs.md).
    temperature : float, default 0.1
        T in units of the mean energy tr(H)/n, i.e. of the mean degree, so the
        descriptor does not depend on the kernel's overall scale. Large T tends
        to a ranking by degree (a kernel density estimate); small T to the
        occupied low-energy states only.
    sigma : float or None
        Kernel width of K_ij = exp(-||x_i - x_j||^2 / (2 sigma^2)) (zero
        diagonal; the convention of the NRFS paper's Eq. 1); None = the median
        pairwise distance. NRFS passes its adaptive width instead.

    Attributes after ``fit``: ``scores_`` (FDD(i), higher = more anomalous,
    summing to 1), ``energies_`` and ``occupations_`` (the levels and their
    n_k), ``chemical_potential_``, ``temperature_`` (absolute T), ``sigma_``.
    """

    def __init__(self, n_particles=1, temperature=0.1, sigma=None):
        self.n_particles = n_particles
        self.temperature = temperature
        self.sigma = sigma

    def fit(self, X, y=None):
        """Score every instance of X (y is ignored)."""
        return self.fit_sq_dists(pairwise_sq_dists(check_data(X, min_samples=2)))

    def fit_sq_dists(self, D2: np.ndarray):
        """``fit`` from the n x n squared distances between the instances (of a sparse X, or shared with a caller)."""
        n = D2.shape[0]
        n_particles = check_int(self.n_particles, "n_particles")
        if n_particles > n - 1:
            raise ValueError(f"n_particles={n_particles} must be at most n_samples - 1 = {n - 1}.")
        temperature = self.temperature
        if isinstance(temperature, bool) or not isinstance(temperature, numbers.Real) or not temperature > 0:
            raise ValueError(f"temperature must be a positive number, got {self.temperature!r}.")
        sigma = median_distance(D2) if self.sigma is None else self.sigma
        if isinstance(sigma, bool) or not isinstance(sigma, numbers.Real) or not sigma > 0:
            raise ValueError(f"sigma must be a positive number (None = median distance), got {sigma!r}.")
        K = np.exp(-D2 / (2.0 * sigma**2))
        np.fill_diagonal(K, 0.0)
        H = -K
        H[np.diag_indices(n)] = K.sum(axis=1)
        if not np.trace(H) > 0:
            raise ValueError("every kernel weight underflowed to 0: give a larger sigma.")
        E, V = np.linalg.eigh(H)
        T = self.temperature * np.trace(H) / n
        mu = chemical_potential(E, n_particles, T)
        occupations = fermi_dirac(E, mu, T)
        self.sigma_, self.temperature_, self.chemical_potential_ = float(sigma), float(T), float(mu)
        self.energies_, self.occupations_ = E, occupations
        self.scores_ = (V**2) @ occupations / occupations.sum()
        return self

    def outliers(self, fraction=0.1) -> np.ndarray:
        """Indices of the round(fraction * n) most anomalous instances, most anomalous first (ties: lower index)."""
        _check_fitted(self, "scores_")
        count = round(_check_fraction(fraction, "fraction") * self.scores_.size)
        return np.argsort(-self.scores_, kind="stable")[:count]


def _pair_up(D2: np.ndarray) -> tuple[list[int], list[int], int | None]:
    """Budka's pairing of one class: (first-half members, second-half members, leftover or None).

    Repeatedly takes the closest remaining pair (I, J) exactly as ``dps.m``
    does: J is the column holding the smallest column minimum and I that
    column's first minimising row (first index on ties). J goes to the first
    half and I to the second when mean d(I, first) + mean d(J, second) <
    mean d(I, second) + mean d(J, first) (the means are over this class's
    points already placed, all by squared distance), else the other way round;
    the first pair has no means and goes I -> first. So each point joins the
    half it is farther from, spreading both halves over the class.

    Column minima are cached and recomputed only for the columns whose nearest
    point was just removed, so a split costs O(m^2) instead of the naive O(m^3).
    """
    m = D2.shape[0]
    work = D2.copy()
    np.fill_diagonal(work, np.inf)
    nearest = work.argmin(axis=0)  # work is symmetric: row j holds column j
    nearest_d = work[nearest, np.arange(m)]
    alive = np.ones(m, dtype=bool)
    to_first = np.zeros(m)  # sum of d(p, first half) for every p
    to_second = np.zeros(m)
    first, second = [], []
    for _ in range(m // 2):
        J = int(np.argmin(nearest_d))
        I = int(nearest[J])
        if first and to_first[I] + to_second[J] < to_second[I] + to_first[J]:
            a, b = J, I
        else:
            a, b = I, J
        first.append(a)
        second.append(b)
        to_first += D2[a]
        to_second += D2[b]
        alive[[I, J]] = False
        work[[I, J], :] = np.inf
        work[:, [I, J]] = np.inf
        nearest_d[[I, J]] = np.inf
        stale = np.flatnonzero(alive & ((nearest == I) | (nearest == J)))
        if stale.size:
            nearest[stale] = work[stale].argmin(axis=1)
            nearest_d[stale] = work[stale, nearest[stale]]
    leftover = np.flatnonzero(alive)
    return first, second, (int(leftover[0]) if leftover.size else None)


def dps_split(D2: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One DPS halving of a subset (``helper`` of dps.m): two index arrays into D2's rows.

    Classes are paired one after the other (sorted labels). An odd class's
    leftover point goes to the half that is smaller so far; on a tie, to the
    half whose points of its class are farther on average (the first half for
    a single-point class).
    """
    halves: tuple[list[int], list[int]] = ([], [])
    for cls in np.unique(labels):
        members = np.flatnonzero(labels == cls)
        sub = D2[np.ix_(members, members)]
        first, second, leftover = _pair_up(sub)
        if leftover is not None:
            sizes = len(halves[0]) + len(first), len(halves[1]) + len(second)
            if sizes[0] != sizes[1]:
                goes_first = sizes[0] < sizes[1]
            else:
                goes_first = not (first and sub[leftover, first].mean() < sub[leftover, second].mean())
            (first if goes_first else second).append(leftover)
        halves[0].extend(members[first])
        halves[1].extend(members[second])
    return np.asarray(halves[0], dtype=np.intp), np.asarray(halves[1], dtype=np.intp)


class DPS:
    """Density-preserving sampling: 2^levels folds, each a representative sample of the data.

    ``fit(X, y=None)`` splits X (rows = instances) into ``2 ** levels`` folds,
    per class when labels y are given and as one class otherwise (NRFS is
    unsupervised). At each level every current subset is halved by
    ``dps_split``; subset r's halves become folds 2r and 2r + 1 (dps.m's
    numbering, from 0). Attributes: ``folds_`` (fold of each instance, in
    0..2^levels - 1) and ``n_folds_``. ``subset(r)`` gives fold r's indices.
    """

    def __init__(self, levels=2):
        self.levels = levels

    def fit(self, X, y=None):
        """Compute the folds of X (labels y optional)."""
        return self.fit_sq_dists(pairwise_sq_dists(check_data(X, min_samples=2)), y)

    def fit_sq_dists(self, D2: np.ndarray, y=None):
        """``fit`` from the n x n squared distances between the instances (of a sparse X, say)."""
        n = D2.shape[0]
        levels = check_int(self.levels, "levels")
        if n < 2**levels:
            raise ValueError(f"{2**levels} folds (levels={levels}) need at least {2**levels} samples, got {n}.")
        if y is None:
            labels = np.zeros(n, dtype=np.intp)
        else:
            y = np.asarray(y)
            if y.shape != (n,):
                raise ValueError(f"y must hold one label per sample ({n}), got shape {y.shape}.")
            labels = np.unique(y, return_inverse=True)[1]
        D2 = (D2 + D2.T) / 2  # exactly symmetric, as the cached column minima assume
        subsets = [np.arange(n)]
        for _ in range(levels):
            subsets = [s[half] for s in subsets for half in dps_split(D2[np.ix_(s, s)], labels[s])]
        folds = np.empty(n, dtype=np.intp)
        for r, s in enumerate(subsets):
            folds[s] = r
        self.folds_, self.n_folds_ = folds, len(subsets)
        return self

    def subset(self, r) -> np.ndarray:
        """Indices (ascending) of the instances in fold r, 0 <= r < 2^levels."""
        _check_fitted(self, "folds_")
        if isinstance(r, bool) or not isinstance(r, numbers.Integral) or not 0 <= r < self.n_folds_:
            raise ValueError(f"fold r must be an integer in [0, {self.n_folds_ - 1}], got {r!r}.")
        return np.flatnonzero(self.folds_ == r)
