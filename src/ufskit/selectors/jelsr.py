"""JELSR, joint embedding learning and sparse regression (Hou, Nie, Yi & Wu, IJCAI 2011).

Objective (rows of X are samples, Y is n x m, W is d x m):

    min_{W, Y'Y = I}  tr(Y'LY) + beta (||XW - Y||^2 + alpha ||W||_{2,1})

with L = D - S the Laplacian of the kNN heat-kernel graph S (the Laplacian
eigenmap form of the paper). With U = diag(1 / (2 ||w_i||)) from the previous
W, the minimiser over W is W = (X'X + alpha U)^-1 X'Y; put back, Y is given by
the m smallest eigenvectors of

    M = L + beta (I - H),   H = X (X'X + alpha U)^-1 X'.

With Z = X Q^1/2, Q = U^-1 = diag(2 ||w_i||), H = ZZ'(ZZ' + alpha I)^-1, so
I - H = alpha (ZZ' + alpha I)^-1 (n x n, for d > n) or I - Z (Z'Z + alpha I)^-1 Z'
(d x d otherwise); a zero row of W stays zero and no 1/||w_i|| is formed.
Features are ranked by ||w_i||. ``variant="authors"`` runs the authors' code
instead (docs/fidelity/selectors-jelsr.md).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla
from sklearn.utils._param_validation import StrOptions

from ..graph import knn_graph
from ..sparse_regression import EPS, has_converged, row_sq_norms
from ..spectral import degrees
from ..validation import auto_or_int, centred, power_of_two, resolve_n_neighbors
from .base import ScoreSelector
from .constraints import AUTO, POSITIVE, POSITIVE_INT

VARIANTS = ("paper", "authors")
# alpha = "auto": this x the root mean square column norm of X (the rule of NDFS's beta)
ALPHA_PER_COLUMN_NORM = 1.5


def _extreme_eigvecs(M: np.ndarray, m: int, largest: bool) -> np.ndarray:
    """The m eigenvectors of the symmetric M with the smallest (or largest) eigenvalues, in that order."""
    n = M.shape[0]
    index = [n - m, n - 1] if largest else [0, m - 1]
    vecs = sla.eigh((M + M.T) / 2.0, subset_by_index=index)[1]
    return vecs[:, ::-1] if largest else vecs


class _Ridge:
    """The ridge solve of one iteration for weights q (= 2 ||w_i||): I - H and W = Q^1/2 (Z'Z + alpha I)^-1 Z'Y.

    ``dual`` factorises ZZ' + alpha I (n x n) instead of Z'Z + alpha I (d x d); None picks the smaller.
    """

    def __init__(self, X: np.ndarray, q: np.ndarray, alpha: float, dual: bool | None = None):
        self.root_q = np.sqrt(q)
        self.Z = X * self.root_q
        self.alpha = alpha
        n, d = X.shape
        self.dual = d > n if dual is None else dual
        gram = self.Z @ self.Z.T if self.dual else self.Z.T @ self.Z
        gram[np.diag_indices_from(gram)] += alpha
        self.factor = sla.cho_factor(gram)

    def complement(self) -> np.ndarray:
        """I - H (n x n)."""
        n = self.Z.shape[0]
        if self.dual:
            return self.alpha * sla.cho_solve(self.factor, np.eye(n))
        out = -self.Z @ sla.cho_solve(self.factor, self.Z.T)
        out[np.diag_indices_from(out)] += 1.0
        return out

    def coef(self, Y: np.ndarray) -> np.ndarray:
        if self.dual:
            return self.root_q[:, None] * (self.Z.T @ sla.cho_solve(self.factor, Y))
        return self.root_q[:, None] * sla.cho_solve(self.factor, self.Z.T @ Y)


def jelsr_fit(X, S, n_components, *, alpha, beta, max_iter, tol, variant="paper"):
    """Run JELSR on centred X with the graph S (n x n, symmetric); return (W, Y, objective per iteration).

    "paper": Y'Y = I, the m smallest eigenvectors of L + beta (I - H), L = D - S.
    "authors" (the authors' code): the m + 1 largest of the normalised
    D^-1/2 (S - beta (I - H)) D^-1/2, mapped back by D^-1/2 (Y'DY = I), and the
    first dropped (the trivial one of S alone, but not once the regression term
    is added). Both start from the graph's embedding alone and a ridge W (q = 1),
    as the authors do. The objective is the paper's, at the (W, Y) of each iteration.
    """
    n = X.shape[0]
    S = S.toarray() if hasattr(S, "toarray") else np.asarray(S)
    deg = degrees(S)
    L = np.diag(deg) - S
    inv_root = 1.0 / np.sqrt(deg)

    def embed(complement):
        if variant == "paper":
            return _extreme_eigvecs(L + beta * complement, n_components, largest=False)
        A = S - beta * complement
        V = _extreme_eigvecs(inv_root[:, None] * A * inv_root[None, :], n_components + 1, largest=True)
        return (inv_root[:, None] * V)[:, 1:]

    Y = embed(np.zeros((n, n)))
    W = _Ridge(X, np.ones(X.shape[1]), alpha).coef(Y)
    objective: list[float] = []
    for _ in range(max_iter):
        ridge = _Ridge(X, 2.0 * np.sqrt(row_sq_norms(W)), alpha)
        Y = embed(ridge.complement())
        W = ridge.coef(Y)
        R = X @ W - Y
        norms = np.sqrt(row_sq_norms(W) + EPS)
        objective.append(float(np.einsum("ij,ij->", Y, L @ Y) + beta * (np.einsum("ij,ij->", R, R) + alpha * norms.sum())))
        if has_converged(objective, tol):
            break
    return W, Y, objective


class JELSR(ScoreSelector):
    """Joint Embedding Learning and Sparse Regression: features with the largest rows of W first.

    Hou, C., Nie, F., Yi, D. & Wu, Y. (2011). Feature selection via joint
    embedding learning and sparse regression. IJCAI, 1324-1329.

    The spectral embedding Y of the kNN graph and the sparse regression W from
    X to Y are learnt together: the l2,1 penalty on W feeds back into the
    embedding, so Y keeps the structure a few features can reproduce.

    Parameters
    ----------
    n_features_to_select : int, float or None
        Features kept by ``transform`` (count, fraction of d, or None for half).
    n_components : int or "auto"
        m, the dimension of the embedding (the number of classes in the
        paper); "auto" = min(5, n - 2).
    alpha : float > 0 or "auto"
        Weight of the l2,1 penalty inside the regression term (the paper's and
        the authors' grid: 10^-5 ... 10^5). "auto" (default) = 1.5 times the
        root mean square column norm of X (1.5 sqrt(n) on z-scored data), the
        rule of NDFS: row i of W is zero once alpha >= 2 ||x_i'Y||, and
        ||x_i'Y|| <= ||x_i||, so this keeps the features whose correlation norm
        with the embedding exceeds 0.75. A fixed alpha fades on large sets
        (alpha = 1 finds 2-3 of 5 planted features) or zeroes every row on small
        ones (alpha = n: all scores near 1e-8); X scaled by s scales alpha_ by s.
    beta : float > 0
        Weight of the regression term against the embedding term (same grid).
    n_neighbors : int or "auto"
        k of the heat-kernel kNN graph; "auto" = min(5, n - 1).
    variant : {"paper", "authors"}
        "paper" solves the objective above; "authors" the eigenproblem of the
        authors' code (normalised, Y'DY = I, leading eigenvector dropped).
    max_iter, tol : int, float
        Iteration cap (the authors run 20 iterations) and relative change of
        the objective below which the iteration stops.

    Attributes
    ----------
    scores_ : ||w_i|| (flat columns, which ``fit`` does not score: -inf).
    W_ : d x m regression matrix (rows of flat columns 0).
    embedding_ : n x m, the learnt Y.
    objective_ : the objective after each iteration (non-increasing up to rounding in "paper").
    n_iter_, n_components_, n_neighbors_, alpha_ : iterations run and resolved parameters.

    X is centred first (the regression has no intercept; z-scored data is
    centred already), and the iteration runs on X / s with alpha / s, the same
    problem at unit scale (s = the root mean square column standard deviation
    rounded to a power of 2, 1 on z-scored data), so that its start (the ridge
    W of the authors, U = I) does not depend on the units of X. JELSR is scale-sensitive (a small column needs a large
    row w_i): a ``ScaleWarning`` when standardising the columns changes the head of its ranking
    (``ScoreSelector``'s scale check).

    Cost per iteration: the ridge solve in the smaller of its two forms
    (O(n d min(n, d)) for the Gram matrix, O(min(n, d)^3 / 3) for its
    Cholesky factor, O(n^2 min(n, d)) for I - H) and the m extreme
    eigenvectors of an n x n matrix; 20 iterations. COIL20 (1440 x 1024,
    z-scored, defaults): 11.8 s of CPU on one thread; the authors' code under
    Octave 12.7 s with their settings (docs/performance.md).
    """

    _parameter_constraints: dict = {
        **ScoreSelector._parameter_constraints, "n_components": [AUTO, POSITIVE_INT],
        "alpha": [AUTO, POSITIVE], "beta": [POSITIVE], "n_neighbors": [AUTO, POSITIVE_INT],
        "variant": [StrOptions(set(VARIANTS))], "max_iter": [POSITIVE_INT], "tol": [POSITIVE],
    }

    single_threaded = True  # many small BLAS/LAPACK calls: see ufskit.blas

    def __init__(self, n_features_to_select=None, n_components="auto", alpha="auto", beta=1.0, n_neighbors="auto",
                 variant="paper", max_iter=20, tol=1e-6):
        super().__init__(n_features_to_select=n_features_to_select)
        self.n_components = n_components
        self.alpha = alpha
        self.beta = beta
        self.n_neighbors = n_neighbors
        self.variant = variant
        self.max_iter = max_iter
        self.tol = tol

    def _score(self, X):
        n = X.shape[0]
        extra = 1 if self.variant == "authors" else 0
        m = auto_or_int(self.n_components, "n_components", max(1, min(5, n - 1 - extra)))
        if m + extra > n - 1:
            raise ValueError(f"n_components={m} must be at most n_samples - {1 + extra} = {n - 1 - extra}.")
        self.n_components_ = m
        self.n_neighbors_ = resolve_n_neighbors(self.n_neighbors, n)
        X = centred(X)
        column_norm = float(np.sqrt(np.einsum("ij,ij->", X, X) / X.shape[1]))
        self.alpha_ = ALPHA_PER_COLUMN_NORM * column_norm if isinstance(self.alpha, str) else float(self.alpha)
        s = power_of_two(column_norm / np.sqrt(n))  # 1 on z-scored data
        S = knn_graph(X, n_neighbors=self.n_neighbors_, weight="heat")
        W, self.embedding_, self.objective_ = jelsr_fit(
            X / s, S, m, alpha=self.alpha_ / s, beta=self.beta, max_iter=self.max_iter, tol=self.tol,
            variant=self.variant,
        )
        self.n_iter_ = len(self.objective_)
        W /= s
        self.W_ = self._to_full(W, fill=0.0)
        return np.sqrt(row_sq_norms(W))
