"""DGUFS, dependence guided unsupervised feature selection (Guo & Zhu, AAAI 2018).

Features are the rows of X here (d x n, as in the paper). DGUFS selects m
features and clusters the samples jointly: Y keeps m rows of X (||X - Y||_{2,0}
= d - m, ||Y||_{2,0} = m) and L = V'V is the kernel of a cluster indicator V,
chosen to depend on Y (an HSIC term) and to agree with the sample similarity S:

    min_{Y, L}  -(1 - beta) Tr(H Y'Y H L) - beta Tr(S L) + alpha rank(L),
    L symmetric positive semidefinite, binary, diag(L) = 1,

with H = (I - 11'/n) / (n - 1). The authors' solver (ADMM on two splittings,
Y = Z and L = M, penalty mu from 1e-6 growing by 1.1 up to 1e10) alternates:

1. Z: X minus the d - m rows of largest norm of X - Y - ((1-beta) Y H L H - Lambda1) / mu;
2. Y: the m rows of largest norm of T = Z + ((1-beta) Z H L H + Lambda1) / mu;
3. L: the eigenvalue-thresholded (at sqrt(2 alpha / mu)) projection onto the
   semidefinite cone of the rescaled ((1-beta) H Y'Z H + beta S - Lambda2) / mu + M;
4. M: L + Lambda2 / mu made binary (entries in [0, 1] once mu > 0.01), unit diagonal;

then the multipliers, until Z = Y and L = M within tol. ``speed_up`` (the
authors' rescaling, after Li et al.'s SCAMS) maps every matrix of step 3 to
off-diagonal entries in [0, 1] and a zero diagonal. The m rows Y keeps rank
first; within them and among the rest, features rank by their dependence on
the learned cluster kernel, x_i H L H x_i' (the HSIC term, feature by feature).
"""

from __future__ import annotations

import logging

import numpy as np
import scipy.linalg

from ..blas import single_threaded_blas
from ..graph import knn_graph
from ..sparse_regression import row_sq_norms
from ..validation import auto_or_int, centred, check_int, check_positive, resolve_n_neighbors
from .base import ScoreSelector
from .constraints import AUTO, NON_NEGATIVE, POSITIVE, POSITIVE_INT, UNIT_INTERVAL
from .progress import Progress
from .ties import tie_keys

# the authors' ADMM schedule (DGUFS.m)
MU_START, MU_GROWTH, MU_MAX = 1e-6, 1.1, 1e10
# gamma of the M-step's l0 penalty: M is binary while 2 gamma / mu > 1
L0_WEIGHT = 5e-3
# row norms closer than this (relative to the largest) tie in the Z- and Y-steps
NORM_TIE = 1e-9

logger = logging.getLogger(__name__)


def speed_up(C: np.ndarray) -> np.ndarray:
    """C with a zero diagonal and its off-diagonal entries min-max scaled to [0, 1] (all 0 when they are equal)."""
    off = ~np.eye(C.shape[0], dtype=bool)
    values = C[off]
    low, span = (values.min(), np.ptp(values)) if values.size else (0.0, 0.0)
    out = np.zeros_like(C)
    out[off] = (values - low) / span if span > 0 else 0.0
    return out


def keep_largest_rows(Q: np.ndarray, m: int, keys: np.ndarray) -> np.ndarray:
    """min ||P - Q||^2 s.t. ||P||_{2,0} <= m: Q's m rows of largest norm, the others 0.

    Norms within NORM_TIE (relative to the largest) of the next one form a tie
    block, ordered by ``keys`` (the library's tie-break permutation): on
    z-scored X every row norm is sqrt(n) up to rounding, and the first step
    must not pick by rounding noise (the authors' code does: MATLAB's sort).
    """
    norms = np.sqrt(row_sq_norms(Q))
    order = np.argsort(-norms, kind="stable")
    new_block = np.diff(norms[order]) < -NORM_TIE * max(norms[order[0]], np.finfo(np.float64).tiny)
    block = np.empty(norms.size, dtype=np.int64)
    block[order] = np.concatenate([[0], np.cumsum(new_block)])
    keep = np.lexsort((keys, block))[:m]
    P = np.zeros_like(Q)
    P[keep] = Q[keep]
    return P


def threshold_psd(A: np.ndarray, eta: float) -> np.ndarray:
    """min ||P - A||^2 + eta rank(P) over symmetric semidefinite P: eigenvalues <= sqrt(eta) set to 0."""
    # only the eigenpairs above the threshold (LAPACK's syevr by value: the tridiagonal reduction, then as
    # many vectors as are kept, instead of all n)
    values, vectors = scipy.linalg.eigh((A + A.T) * 0.5, subset_by_value=[np.sqrt(eta), np.inf])
    return (vectors * values) @ vectors.T


def binary_l0(Q: np.ndarray, gamma: float) -> np.ndarray:
    """min ||P - Q||^2 + gamma ||P||_0 with P in {0, 1} (gamma > 1) or in [0, 1] (gamma <= 1), as in the code."""
    if gamma > 1:
        return (Q > 0.5 * (gamma + 1)).astype(np.float64)
    P = np.minimum(Q, 1.0)
    P[Q < np.sqrt(gamma)] = 0.0
    return P


def similarity(X: np.ndarray, n_neighbors: int) -> np.ndarray:
    """The 0-1 kNN graph with self-loops (the authors' getS with k + 1, the sample itself counted), symmetric."""
    S = knn_graph(X, n_neighbors=n_neighbors, weight="binary").toarray()
    S[np.diag_indices_from(S)] = 1.0
    return S


def dgufs_admm(Xf: np.ndarray, S: np.ndarray, m: int, *, alpha: float, beta: float, max_iter: int, tol: float):
    """The authors' ADMM on features-as-rows Xf (d x n); returns (T, Y, L, n_iter) of the last iteration.

    Logs its progress (``progress.Progress``, logger ``ufskit.selectors.dgufs``).
    """
    d, n = Xf.shape

    def centre(A):  # A H: rows centred, divided by n - 1
        return (A - A.mean(axis=1, keepdims=True)) / (n - 1)

    def hlh_times(A):  # A H L H
        return centre(centre(A) @ L)

    Y = np.zeros((d, n))
    L, M, Lam2 = (np.zeros((n, n)) for _ in range(3))
    Lam1 = np.zeros((d, n))
    keys = tie_keys(d)
    mu, n_iter = MU_START, 0
    progress = Progress(logger, "DGUFS")
    while n_iter < max_iter:
        n_iter += 1
        Z = Xf - keep_largest_rows(Xf - Y - ((1 - beta) * hlh_times(Y) - Lam1) / mu, d - m, keys)
        T = Z + ((1 - beta) * hlh_times(Z) + Lam1) / mu
        Y = keep_largest_rows(T, m, keys)
        cross = centre(centre(Y).T @ Z).T  # H Y'Z H (H is symmetric)
        L = threshold_psd(speed_up(((1 - beta) * speed_up(cross) + beta * S - Lam2) / mu + M), 2 * alpha / mu)
        M = binary_l0(L + Lam2 / mu, 2 * L0_WEIGHT / mu)
        M[np.diag_indices_from(M)] = 1.0
        gap_zy, gap_lm = Z - Y, L - M
        if np.abs(gap_zy).max() < tol and np.abs(gap_lm).max() < tol:
            break
        progress.step("iteration %d of at most %d", n_iter, max_iter)
        Lam1 += mu * gap_zy
        Lam2 += mu * gap_lm
        mu = min(MU_MAX, mu * MU_GROWTH)
    return T, Y, L, n_iter


class DGUFS(ScoreSelector):
    """DGUFS feature ranking: the m features DGUFS keeps first, each group by its dependence on the clusters.

    Parameters
    ----------
    n_features_to_select : int, float or None
        Features kept by ``transform`` (count, fraction of d, or None for half).
    n_selected : int or "auto"
        m, the rows Y keeps. The paper fits once per m; here one fit ranks
        every feature, and ``ranking_`` does not depend on
        ``n_features_to_select`` (its first m are DGUFS's selection at m).
        "auto" (default) = half of d, as ``n_features_to_select``'s default.
    alpha : float >= 0
        The weight of rank(L) (0.5; the paper sets it per data set).
    beta : float in [0, 1]
        The similarity term Tr(SL) against the dependence term (0.5; the
        paper sets it per data set).
    n_neighbors : int or "auto"
        k of the 0-1 kNN graph S; "auto" (default) = min(5, n - 1).
    max_iter, tol : int, float
        100 and 5e-7, the authors' release (Auto-UFSTool's copy stops after 5
        iterations).

    Attributes
    ----------
    scores_ : the row norms of T in the last Y-step.
    support_rows_ : the m features Y keeps (X's column indices).
    kernel_ : the learned n x n cluster kernel L.
    n_iter_ : iterations run.
    n_selected_, n_neighbors_ : the resolved sizes.

    Notes
    -----
    The Z- and Y-steps compare row norms, so DGUFS depends on each column's
    scale (a ``ScaleWarning`` when standardising the columns changes the
    head of its ranking: ``ScoreSelector``); X is centred first (the authors' code is not shift-invariant). The
    first Z-step keeps the m rows of X of smallest norm, and the ADMM keeps
    that start: on z-scored data those norms tie up to rounding, so the
    selection would follow rounding noise; norms within 1e-9 relative tie and are
    ordered by the library's tie-break permutation (docs/fidelity/selectors-sogfs-inffs-dgufs.md).
    Cost per iteration: an n x n eigendecomposition (O(n^3)) and O(d n^2) for
    the products with H L H; n x n and d x n memory. COIL20 (1440 x 1024,
    z-scored): 3 iterations took 427 s on the shared 2-core development
    machine at load average ~35, so a default fit (100 iterations) is hours
    there; the 1440 x 1440 eigendecomposition dominates. On wide data the
    d x n work dominates instead: n = 50, d = 20,000 takes about 7 s of CPU
    (``benchmarks/defaults_wide.py``). A fit logs its progress every 5 s
    (INFO, logger ``ufskit.selectors.dgufs``).

    References
    ----------
    J. Guo and W. Zhu, "Dependence guided unsupervised feature selection",
    AAAI 2018, pp. 2232-2239.
    """

    _parameter_constraints: dict = {
        **ScoreSelector._parameter_constraints, "n_selected": [AUTO, POSITIVE_INT],
        "alpha": [NON_NEGATIVE], "beta": [UNIT_INTERVAL], "n_neighbors": [AUTO, POSITIVE_INT],
        "max_iter": [POSITIVE_INT], "tol": [POSITIVE],
    }

    def __init__(self, n_features_to_select=None, n_selected="auto", alpha=0.5, beta=0.5, n_neighbors="auto",
                 max_iter=100, tol=5e-7):
        self.n_features_to_select = n_features_to_select
        self.n_selected = n_selected
        self.alpha = alpha
        self.beta = beta
        self.n_neighbors = n_neighbors
        self.max_iter = max_iter
        self.tol = tol

    def _score(self, X):
        n, d = X.shape
        self.n_selected_ = m = auto_or_int(self.n_selected, "n_selected", max(1, d // 2))
        if m > d:
            raise ValueError(f"n_selected={m} exceeds n_features = {d}.")
        self.n_neighbors_ = resolve_n_neighbors(self.n_neighbors, n)
        Xc = centred(X)
        with single_threaded_blas():  # an n x n eigendecomposition per iteration: see ufskit.blas
            T, Y, self.kernel_, self.n_iter_ = dgufs_admm(
                Xc.T, similarity(Xc, self.n_neighbors_), m, alpha=float(self.alpha), beta=float(self.beta),
                max_iter=check_int(self.max_iter, "max_iter"), tol=check_positive(self.tol, "tol"),
            )
        selected = row_sq_norms(Y) > 0
        self.support_rows_ = self._scored[np.flatnonzero(selected)]
        self.selection_scores_ = self._to_full(np.sqrt(row_sq_norms(T)), fill=0.0)
        # HSIC of each feature with the learned kernel: x_i H L H x_i' (H = (I - 11'/n) / (n - 1))
        XH = (Xc / (n - 1)).T
        dependence = np.einsum("ij,ij->i", XH @ self.kernel_, XH)
        self.dependence_ = self._to_full(dependence, fill=0.0)
        return selected + dependence / max(dependence.max(), np.finfo(np.float64).tiny)
