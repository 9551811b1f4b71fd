"""FSASL, unsupervised feature selection with adaptive structure learning (Du & Shen, KDD 2015).

The global and the local structure of the samples are learnt in the space of
the selected features, alternately with the selection (rows of X are samples,
W is d x c, P = XW the projected samples):

1. global structure: each projected sample p_i is reconstructed from the
   others by the lasso, s_i = argmin 1/2 ||P_{-i}'s - p_i||^2 + lambda_i ||s||_1
   (lambda_i = ``lasso_ratio`` x its largest useful value ||P_{-i} p_i||_inf);
   L_G = (I - S)(I - S)';
2. local structure: each sample's k nearest projected neighbours get the weights
   a_i = argmin_{a in simplex} sum_j d_ij a_j + r ||a||^2 (adaptive neighbours),
   L_L = D - (A + A')/2;
3. selection: L = lambda1 L_G + lambda2 L_L, Y = the c smallest eigenvectors of
   L, and W = argmin ||XW - Y||^2 + lambda3 ||W||_{2,1} by reweighted least squares.

The first pass uses the kNN heat-kernel graph on X for L_L and, when more than
4 passes are run, no global term (the authors' protocol); r is the adaptive-
neighbour width estimated once on X. The objective recorded per pass is the
authors' (``FSASL.m``): tr(P'LP) + lambda1 lasso_ratio ||S||_1 +
lambda2 r ||(A + A')/2||^2 + lambda3 ||W||_{2,1}, the neighbour term on the
symmetrised A that L_L is built from (the paper's sum of r ||a_i||^2 over the
rows of A is larger from the second pass on). Features are ranked by ||w_i||.
"""

from __future__ import annotations

import logging

import numpy as np
import scipy.linalg as sla

from ..graph import knn_graph, knn_indices, pairwise_sq_dists
from ..sparse_regression import EPS, DiagonalRidge, has_converged, reweight, row_sq_norms
from ..validation import auto_or_int, centred, power_of_two, resolve_n_neighbors
from .base import ScoreSelector
from .constraints import AUTO, NON_NEGATIVE, POSITIVE, POSITIVE_INT
from .progress import Progress

# lambda3 = "auto": this x the root mean square column norm of X (the rule of NDFS's beta, JELSR's alpha)
LAMBDA3_PER_COLUMN_NORM = 1.5
# passes of the l2,1 least squares per selection step, and of the lasso solver at most (the authors: 10; SLEP)
LS21_ITERATIONS = 10
LASSO_MAX_ITER = 2000
LASSO_TOL = 1e-7

logger = logging.getLogger(__name__)


def simplex_rows(V: np.ndarray) -> np.ndarray:
    """Each row of V projected on the probability simplex (Euclidean projection, sort-based, vectorised)."""
    k = V.shape[1]
    U = -np.sort(-V, axis=1)
    cumulative = np.cumsum(U, axis=1) - 1.0
    positive = U - cumulative / np.arange(1, k + 1) > 0
    count = k - np.argmax(positive[:, ::-1], axis=1)
    theta = cumulative[np.arange(V.shape[0]), count - 1] / count
    return np.maximum(V - theta[:, None], 0.0)


def neighbour_width(D2: np.ndarray, k: int) -> float:
    """r of the adaptive neighbours: the mean over samples of (k d_{i,k+1} - sum_{j<=k} d_ij) / 2 (sorted d).

    This r gives each sample about k neighbours with nonzero weight (Nie et
    al.'s CAN rule, the authors' ``estimateReg``). With fewer than k + 1 other
    samples, or when it is 0 (equidistant samples), the mean squared distance
    is used instead: any positive r then gives the k neighbours equal weights.
    """
    nearest = np.sort(D2, axis=1)[:, 1:]
    if nearest.shape[1] > k:
        r = float(np.mean(0.5 * (k * nearest[:, k] - nearest[:, :k].sum(axis=1))))
        if r > 0:
            return r
    return max(float(D2.mean()), EPS)


def adaptive_neighbours(P: np.ndarray, k: int, r: float) -> np.ndarray:
    """A (n x n, not symmetric): row i = the simplex projection of -d_ij / (2r) over i's k nearest j."""
    D2 = pairwise_sq_dists(P)
    nbr = knn_indices(D2, k)
    n = P.shape[0]
    A = np.zeros((n, n))
    rows = np.arange(n)[:, None]
    A[rows, nbr] = simplex_rows(-np.take_along_axis(D2, nbr, axis=1) / (2.0 * r))
    return A


def self_representation(P: np.ndarray, ratio: float, progress: Progress | None = None, *,
                        tol: float = LASSO_TOL, max_iter: int = LASSO_MAX_ITER) -> np.ndarray:
    """S (n x n, zero diagonal): column i the lasso reconstruction of sample i from the others, all at once.

    Solves min 1/2 ||P' s_i - p_i||^2 + lambda_i ||s_i||_1 with s_ii = 0 for every i by
    FISTA on the whole matrix (one Gram product per step), lambda_i = ratio ||P_{-i} p_i||_inf,
    from S = 0, until the summed objective changes by at most ``tol`` (relative) or after
    ``max_iter`` steps. The defaults stop within about 3e-4 of the optimum on the parity sets,
    where the authors' SLEP calls stop 75-170 % above it; the parity tests lower ``tol`` to
    show that both solvers approach the same optimum (docs/fidelity/selectors-fsasl.md).
    ``progress`` (``fsasl_fit``'s) hears of every step.
    """
    n = P.shape[0]
    K = P @ P.T
    off = K - np.diag(np.diag(K))
    lam = ratio * np.abs(off).max(axis=0)
    step = 1.0 / max(float(sla.eigvalsh(K, subset_by_index=[n - 1, n - 1])[0]), EPS)
    S = np.zeros((n, n))
    Z, t, previous = S, 1.0, np.inf
    for step_count in range(1, max_iter + 1):
        gradient = P @ (P.T @ Z) - K
        S_new = Z - step * gradient
        S_new = np.sign(S_new) * np.maximum(np.abs(S_new) - step * lam, 0.0)
        np.fill_diagonal(S_new, 0.0)
        t_new = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
        Z = S_new + ((t - 1.0) / t_new) * (S_new - S)
        S, t = S_new, t_new
        R = P.T @ S - P.T
        value = 0.5 * np.einsum("ij,ij->", R, R) + float(lam @ np.abs(S).sum(axis=0))
        if abs(previous - value) <= tol * max(value, EPS):
            break
        previous = value
        if progress is not None:
            progress.step("lasso step %d (at most %d), objective %.6g", step_count, max_iter, value)
    return S


def ls21(X: np.ndarray, Y: np.ndarray, lam: float) -> np.ndarray:
    """W = argmin ||XW - Y||^2 + lam ||W||_{2,1}: LS21_ITERATIONS reweighted ridge solves from g = 1."""
    g = np.ones(X.shape[1])
    for _ in range(LS21_ITERATIONS):
        W = DiagonalRidge(X, lam, g).coef(Y)
        g = reweight(row_sq_norms(W))
    return W


def fsasl_fit(X, n_clusters, *, lambda1, lambda2, lambda3, lasso_ratio, n_neighbors, max_iter, tol):
    """Run the FSASL passes on X (n x d); return (W, objective per pass). Logs its progress (``progress.Progress``,
    logger ``ufskit.selectors.fsasl``)."""
    n = X.shape[0]
    D2 = pairwise_sq_dists(X)
    width = neighbour_width(D2, n_neighbors)
    # the first pass's graph: Cai's constructW as the authors call it, width = mean distance over all n^2 pairs
    first_graph = knn_graph(X, n_neighbors=n_neighbors, weight="heat", sigma=max(float(np.sqrt(D2).mean()), EPS), D2=D2)
    P = X
    objective: list[float] = []
    progress = Progress(logger, "FSASL")
    for it in range(max_iter):
        L = np.zeros((n, n))
        S = None
        if lambda1 > 0 and (max_iter < 5 or it > 0):
            S = self_representation(P, lasso_ratio, progress)
            IS = np.eye(n) - S
            L += lambda1 * (IS @ IS.T)
        sym = None
        if lambda2 > 0:
            A = first_graph.toarray() if it == 0 else adaptive_neighbours(P, n_neighbors, width)
            sym = (A + A.T) / 2.0
            L += lambda2 * (np.diag(sym.sum(axis=0)) - sym)
        Y = sla.eigh((L + L.T) / 2.0, subset_by_index=[0, n_clusters - 1])[1]
        W = ls21(X, Y, lambda3)
        P = X @ W
        value = np.einsum("ij,ij->", P, L @ P) + lambda3 * np.sqrt(row_sq_norms(W)).sum()
        if S is not None:
            value += lambda1 * lasso_ratio * np.abs(S).sum()
        if sym is not None:
            value += lambda2 * width * np.einsum("ij,ij->", sym, sym)
        objective.append(float(value))
        progress.step("pass %d of at most %d, objective %.6g", it + 1, max_iter, value)
        if has_converged(objective, tol):
            break
    return W, objective


class FSASL(ScoreSelector):
    """Feature Selection with Adaptive Structure Learning: features with the largest rows of W first.

    Du, L. & Shen, Y.-D. (2015). Unsupervised feature selection with adaptive
    structure learning. KDD, 209-218.

    Which samples are neighbours, and how each sample is built from the others,
    is relearnt in the space of the features selected so far, so that noise
    features stop shaping the graph that selects them.

    Parameters
    ----------
    n_features_to_select : int, float or None
        Features kept by ``transform`` (count, fraction of d, or None for half).
    n_clusters : int or "auto"
        c, the dimension of the embedding Y (the number of classes in the
        paper); "auto" = min(5, n - 1).
    lambda1, lambda2 : float >= 0
        Weights of the global (lasso) and local (adaptive neighbour) structure;
        the authors' protocols fix lambda1 = 1 and search lambda2 in 10^-5 ... 10^5
        (or set lambda1 = 1 - lambda2). Not both 0.
    lambda3 : float > 0 or "auto"
        Weight of the l2,1 penalty (the authors search 10^-5 ... 10^5). "auto"
        (default) = 1.5 times the root mean square column norm of X (1.5 sqrt(n)
        on z-scored data; the rule of JELSR's and NDFS's penalty): row i of W is
        0 once lambda3 >= 2 ||x_i'Y||, and ||x_i'Y|| <= ||x_i||.
    lasso_ratio : float in (0, 1]
        Each sample's lasso weight as a fraction of the value that zeroes its
        reconstruction (SLEP's rFlag = 1; the authors: 0.01, or 0.001 ... 0.1).
    n_neighbors : int or "auto"
        k of the local structure; "auto" = min(5, n - 1).
    max_iter, tol : int, float
        Passes and the relative change of the objective below which they stop.
        The default, 1, is the authors' function's default: one pass with the
        global structure of X and the kNN graph. Their experiments run 50
        passes; on the planted tests more passes lose one of the 5 planted
        features on 4 of 5 seeds (docs/fidelity/selectors-fsasl.md).

    Attributes
    ----------
    scores_ : ||w_i|| (flat columns, which ``fit`` does not score: -inf).
    W_ : d x c selection matrix (rows of flat columns 0).
    objective_ : the objective after each pass (not monotone: each structure
        step solves its own subproblem, and the first pass has no global term).
    n_iter_, n_clusters_, n_neighbors_, lambda3_ : passes run and resolved parameters.

    X is centred first, and the passes run on X / s with lambda3 / s, the same
    selection at unit scale (s = the root mean square column standard deviation
    rounded to a power of 2; 1 on z-scored data), so that the neighbour width
    r estimated on X does not depend on its units. FSASL is scale-sensitive (a
    small column needs a large row w_i): a ``ScaleWarning`` when
    standardising the columns changes the head of its ranking
    (``ScoreSelector``'s scale check).

    Cost on wide data: with one pass (the default) the lasso reconstructs the
    samples of X itself, so each of its FISTA steps (up to 2000) multiplies
    by the n x d X twice: on n = 50, d = 20,000 about 3 s of CPU
    (``benchmarks/defaults_wide.py``). On many samples the lasso dominates:
    O(n^2 d) per FISTA step, so COIL20 (1440 x 1024, z-scored, c = 5) takes
    497 s of CPU on one thread, and the authors' code (1440 separate SLEP
    solves) had not finished in 240 s under Octave (docs/performance.md).
    A fit logs its progress every 5 s (INFO, logger ``ufskit.selectors.fsasl``).
    """

    _parameter_constraints: dict = {
        **ScoreSelector._parameter_constraints, "n_clusters": [AUTO, POSITIVE_INT],
        "lambda1": [NON_NEGATIVE], "lambda2": [NON_NEGATIVE], "lambda3": [AUTO, POSITIVE],
        "lasso_ratio": [POSITIVE], "n_neighbors": [AUTO, POSITIVE_INT], "max_iter": [POSITIVE_INT],
        "tol": [NON_NEGATIVE],
    }

    single_threaded = True  # many small BLAS/LAPACK calls: see ufskit.blas

    def __init__(self, n_features_to_select=None, n_clusters="auto", lambda1=1.0, lambda2=1.0, lambda3="auto",
                 lasso_ratio=0.01, n_neighbors="auto", max_iter=1, tol=1e-4):
        super().__init__(n_features_to_select=n_features_to_select)
        self.n_clusters = n_clusters
        self.lambda1 = lambda1
        self.lambda2 = lambda2
        self.lambda3 = lambda3
        self.lasso_ratio = lasso_ratio
        self.n_neighbors = n_neighbors
        self.max_iter = max_iter
        self.tol = tol

    def _score(self, X):
        n = X.shape[0]
        if self.lambda1 == 0 and self.lambda2 == 0:
            raise ValueError("lambda1 and lambda2 are both 0: no structure to preserve; make one positive.")
        if self.lasso_ratio > 1:
            raise ValueError(f"lasso_ratio={self.lasso_ratio} must be at most 1 (1 zeroes every reconstruction).")
        c = auto_or_int(self.n_clusters, "n_clusters", min(5, n - 1))
        if c > n - 1:
            raise ValueError(f"n_clusters={c} must be at most n_samples - 1 = {n - 1}.")
        self.n_clusters_ = c
        self.n_neighbors_ = k = resolve_n_neighbors(self.n_neighbors, n)
        X = centred(X)
        column_norm = float(np.sqrt(np.einsum("ij,ij->", X, X) / X.shape[1]))
        self.lambda3_ = LAMBDA3_PER_COLUMN_NORM * column_norm if isinstance(self.lambda3, str) else float(self.lambda3)
        s = power_of_two(column_norm / np.sqrt(n))
        W, self.objective_ = fsasl_fit(
            X / s, c, lambda1=self.lambda1, lambda2=self.lambda2, lambda3=self.lambda3_ / s,
            lasso_ratio=self.lasso_ratio, n_neighbors=k, max_iter=self.max_iter, tol=self.tol,
        )
        self.n_iter_ = len(self.objective_)
        W /= s
        self.W_ = self._to_full(W, fill=0.0)
        return np.sqrt(row_sq_norms(W))
