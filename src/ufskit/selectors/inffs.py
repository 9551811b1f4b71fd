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

import logging
import os

import numpy as np
import scipy.linalg
import scipy.stats

from ..lanczos import checked_eigsh
from ..validation import centred, check_positive
from .base import ScoreSelector
from .constraints import FRACTION, UNIT_INTERVAL

# from this many features on rho(A) comes from Lanczos (A is entrywise non-negative: its largest eigenvalue
# is its spectral radius), checked, instead of a dense eigenvalue call
LANCZOS_MIN_FEATURES = 200
# The d x d float64 matrices a fit holds at its peak: while A is built, A's first term and the two temporaries of
# the second; in the solve, A, the system I - r A and LAPACK's copy of it. tracemalloc counts 3.00 x 8 d^2 bytes of
# numpy arrays (d = 600 to 4,000, tests/test_defaults_wide.py), but the resident size grows by 4.05-4.23 x 8 d^2
# (d = 4,000; 5.20 GB in all at lung's d = 12,360, 50 s of CPU): one matrix more, outside numpy's accounting. A fit
# is refused when these 4 (and the n x d ranks) exceed the memory available (``available_memory``): 4.9 GB at
# d = 12,360, 12.8 GB at d = 19,993; the d^3 / 3 Cholesky solve is 6.3e11 flops at d = 12,360
# (docs/performance.md, "Defaults on wide data")
MATRIX_COPIES = 4


def fit_bytes(n_samples: int, n_features: int) -> int:
    """Bytes of resident memory an Inf-FS fit on n x d data needs at its peak: ``MATRIX_COPIES`` d x d float64
    matrices (as measured) and the n x d float64 ranks and their centred copy."""
    return MATRIX_COPIES * 8 * n_features**2 + 2 * 8 * n_samples * n_features


def available_memory() -> int | None:
    """Bytes the process can still allocate: MemAvailable (/proc/meminfo; psutil's ``available`` or the free pages
    of ``os.sysconf`` elsewhere), capped by the cgroup's memory.max - memory.current where one is set (a
    container or a SLURM job). None when nothing tells."""
    free = None
    try:
        with open("/proc/meminfo") as f:
            free = next(int(line.split()[1]) * 1024 for line in f if line.startswith("MemAvailable:"))
    except (OSError, StopIteration, ValueError):
        try:
            import psutil

            free = int(psutil.virtual_memory().available)
        except ImportError:
            try:
                free = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
            except (ValueError, OSError, AttributeError):
                free = None
    try:
        with open("/sys/fs/cgroup/memory.max") as f:
            limit = f.read().strip()
        with open("/sys/fs/cgroup/memory.current") as f:
            used = int(f.read().strip())
        if limit != "max":
            free = min(free, int(limit) - used) if free is not None else int(limit) - used
    except (OSError, ValueError):
        pass
    return free


logger = logging.getLogger(__name__)


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
    """Largest eigenvalue of the symmetric non-negative A (its Perron root).

    From LANCZOS_MIN_FEATURES on by Lanczos (``ufskit.lanczos.checked_eigsh``), checked by the
    Collatz-Wielandt bound: for A >= 0 and any x > 0, no eigenvalue of A exceeds max_i (Ax)_i / x_i. With x
    the absolute values of the Ritz vector this is the Ritz value itself when that vector is the Perron
    vector (A's dense positive entries make it positive), and at least rho(A) otherwise, so it must not
    exceed mu (the Ritz value plus 1e-9 of it); with an entry of x at 0 the bound is not formed. Entries of A
    below 0 by rounding (1 - |Spearman| at |Spearman| = 1) move eigenvalues by at most d eps, far less.
    LAPACK answers when the check fails or cannot tell.
    """
    d = A.shape[0]
    if d >= LANCZOS_MIN_FEATURES:

        def only_this_above(mu, values, vectors):
            x = np.abs(vectors[:, 0])
            return bool(np.max((A @ x) / x) <= mu) if np.all(x > 0) else None

        pair = checked_eigsh(A, 1, largest=True, check=only_this_above, logger=logger, what="Lanczos for rho(A)",
                             which="LA")
        if pair is not None:
            return float(pair[0][0])
    return float(scipy.linalg.eigvalsh(A, subset_by_index=[d - 1, d - 1])[0])


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
    first); a ``ScaleWarning`` when standardising the columns changes the
    head of its ranking (``ScoreSelector``'s scale check). Offsets change nothing (ranks and spreads are
    shift-invariant). Cost: O(n d^2) for the correlations, O(d^3 / 3) for the
    Cholesky solve, and ``MATRIX_COPIES`` = 4 d x d float64 matrices of
    resident memory at once (``fit_bytes``: 4.9 GB at d = 12,360, 12.8 GB
    at d = 20,000; 50 s of CPU at d = 12,360): a fit
    whose matrices exceed the memory available (``available_memory``) is
    refused with an error naming the bytes needed and available. COIL20 (1440 x 1024, z-scored): 18 s for one
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
        n, d = X.shape
        needed, free = fit_bytes(n, d), available_memory()
        if free is not None and needed > free:
            raise ValueError(
                f"InfFS holds {MATRIX_COPIES} d x d float64 matrices at once: n_features={d} needs "
                f"{needed / 2**30:.2f} GiB ({needed:,} bytes; ufskit.selectors.inffs.fit_bytes) but "
                f"{free / 2**30:.2f} GiB ({free:,} bytes) are available. Keep fewer features first (e.g. the best "
                f"by Variance) or free memory; the solve is another {d**3 / 3:.1e} flops.")
        alpha = float(self.alpha)
        factor = check_positive(self.factor, "factor")
        if not factor < 1:
            raise ValueError(f"factor={factor!r} must be below 1: the series of (r A)^l diverges at r = 1 / rho(A).")
        A = alpha * spread_matrix(X) + (1.0 - alpha) * (1.0 - np.abs(spearman_matrix(X)))
        self.spectral_radius_ = rho = spectral_radius(A)
        # an edgeless graph (every feature a copy of one spread-less feature): no path has any value
        return path_energies(A, factor, rho) if rho > 0 else np.zeros(X.shape[1])
