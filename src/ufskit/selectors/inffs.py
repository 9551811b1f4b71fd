"""Inf-FS, infinite feature selection (Roffo, Melzi & Cristani, ICCV 2015), unsupervised version.

The features are the nodes of a complete graph whose edge weights mix two
pairwise cues (the paper's unsupervised graph):

    a_ij = alpha sigma_ij + (1 - alpha) c_ij,
    sigma_ij = max(std_i, std_j), min-max scaled to [0, 1] over the matrix,
    c_ij = 1 - |Spearman correlation of features i and j|,

so a heavy edge joins two features that are spread out and not redundant. A
path of length l through the graph is a subset of l features with value the
product of its edge weights; summing over paths of every length with the
geometric damping r^l gives, by the power series of matrices,

    S = sum_{l >= 1} (r A)^l = (I - r A)^-1 - I,    r = factor / rho(A) < 1 / rho(A),

and the energy of feature i is the value of all paths starting at it,
s(i) = [S 1]_i. Features with the largest s(i) rank first. Only S 1 is
needed: one symmetric positive definite solve (the eigenvalues of I - r A
lie in [1 - factor, 1 + factor]).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.sparse.linalg as spla
import scipy.stats

from ..validation import centred, check_positive
from .base import ScoreSelector
from .constraints import FRACTION, UNIT_INTERVAL

# above this many features rho(A) comes from Lanczos (A is entrywise non-negative: its largest eigenvalue
# is its spectral radius) instead of a dense eigenvalue call
LANCZOS_MIN_FEATURES = 200
# above this many features a fit is refused: its d x d matrices (a few at once, 0.8 GB each at this size) and the
# d^3 / 3 Cholesky solve (3e11 flops here, about a minute on one core) grow with d^2 and d^3; d = 20,000 would need
# over 10 GB and 2.7e12 flops (docs/performance.md, "Defaults on wide data")
MAX_FEATURES = 10_000


def spearman_matrix(X: np.ndarray) -> np.ndarray:
    """d x d Spearman correlations of X's columns: Pearson correlations of their ranks, ties at their mean rank."""
    R = scipy.stats.rankdata(X, axis=0)
    R -= R.mean(axis=0)
    R /= np.sqrt(np.einsum("ij,ij->j", R, R))
    return R.T @ R


def spread_matrix(X: np.ndarray) -> np.ndarray:
    """sigma_ij = max(std_i, std_j), min-max scaled to [0, 1]; all 0 when every feature has the same spread."""
    std = centred(X).std(axis=0, ddof=1)
    low, span = std.min(), np.ptp(std)
    if not span > 0:
        return np.zeros((std.size, std.size))
    scaled = (std - low) / span
    return np.maximum.outer(scaled, scaled)


def spectral_radius(A: np.ndarray) -> float:
    """Largest eigenvalue of the symmetric non-negative A (its Perron root)."""
    d = A.shape[0]
    if d < LANCZOS_MIN_FEATURES:
        return float(scipy.linalg.eigvalsh(A, subset_by_index=[d - 1, d - 1])[0])
    return float(spla.eigsh(A, k=1, which="LA", v0=np.ones(d), return_eigenvectors=False)[0])


def path_energies(A: np.ndarray, factor: float, rho: float) -> np.ndarray:
    """[((I - r A)^-1 - I) 1]_i with r = factor / rho, rho = rho(A) > 0: the damped value of all paths from each node."""
    d = A.shape[0]
    system = -(factor / rho) * A
    system[np.diag_indices_from(system)] += 1.0
    return scipy.linalg.solve(system, np.ones(d), assume_a="pos") - 1.0


class InfFS(ScoreSelector):
    """Inf-FS feature ranking (unsupervised): the features with the largest path energy s(i) first.

    Parameters
    ----------
    n_features_to_select : int, float or None
        Features kept by ``transform`` (count, fraction of d, or None for half).
    alpha : float in [0, 1]
        The weight of the spread cue sigma_ij against the non-redundancy cue
        c_ij (0.5, the authors' code; the paper leaves it to cross-validation).
    factor : float in (0, 1)
        r = factor / rho(A) (0.99, the authors' code): paths of every length
        count, damped by r^l.

    Attributes
    ----------
    scores_ : the energies s(i) = [((I - r A)^-1 - I) 1]_i.
    spectral_radius_ : rho(A).

    Notes
    -----
    Inf-FS is scale-sensitive by design through sigma_ij: on z-scored data
    every feature has the same spread, sigma_ij = 0, and only the
    non-redundancy c_ij ranks (features least correlated with the others
    first); column ranges differing by more than 1e3x give a
    ``ScaleWarning``. Offsets change nothing (ranks and spreads are
    shift-invariant). Cost: O(n d^2) for the correlations, O(d^3 / 3) for the
    Cholesky solve, d x d memory (a few matrices at once), so more than
    ``MAX_FEATURES`` = 10,000 (non-flat) features are refused with an
    error naming the limit. COIL20 (1440 x 1024, z-scored): 18 s for one
    fit on the shared 2-core development machine at load average ~30 (a
    fraction of one core).

    References
    ----------
    G. Roffo, S. Melzi and M. Cristani, "Infinite feature selection", ICCV
    2015, pp. 4202-4210.
    """

    _parameter_constraints: dict = {
        **ScoreSelector._parameter_constraints, "alpha": [UNIT_INTERVAL], "factor": [FRACTION],
    }

    def __init__(self, n_features_to_select=None, alpha=0.5, factor=0.99):
        self.n_features_to_select = n_features_to_select
        self.alpha = alpha
        self.factor = factor

    def _score(self, X):
        d = X.shape[1]
        if d > MAX_FEATURES:
            raise ValueError(
                f"InfFS builds d x d matrices and solves a d x d system: n_features={d} exceeds its limit "
                f"MAX_FEATURES={MAX_FEATURES} (ufskit.selectors.inffs; {8 * d * d / 2**30:.1f} GiB per matrix, "
                f"{d**3 / 3:.1e} flops). Keep fewer features first (e.g. the best {MAX_FEATURES} by Variance) "
                "or raise the limit.")
        alpha = float(self.alpha)
        factor = check_positive(self.factor, "factor")
        if not factor < 1:
            raise ValueError(f"factor={factor!r} must be below 1: the series of (r A)^l diverges at r = 1 / rho(A).")
        A = alpha * spread_matrix(X) + (1.0 - alpha) * (1.0 - np.abs(spearman_matrix(X)))
        self.spectral_radius_ = rho = spectral_radius(A)
        # an edgeless graph (every feature a copy of one spread-less feature): no path has any value
        return path_energies(A, factor, rho) if rho > 0 else np.zeros(X.shape[1])
