"""l2,1-norm machinery shared by NDFS and UDFS.

Both methods minimise an objective with a ``||W||_{2,1} = sum_i ||w_i||``
term (w_i = row i of W, one row per feature) by the reweighting scheme of
Nie et al. (NIPS 2010): replace the norm by ``tr(W' G W)`` with
``G = diag(1 / (2 ||w_i||))`` from the previous iterate, solve the resulting
quadratic problem, update G, repeat. Each step does not increase the
original objective. Rows are smoothed as ``sqrt(||w_i||^2 + eps)`` with
eps = machine epsilon, as in the authors' MATLAB code, so a row that
vanishes gives a large but finite weight.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

EPS = float(np.finfo(np.float64).eps)


def row_sq_norms(W: np.ndarray) -> np.ndarray:
    """||w_i||^2 of every row of W."""
    return np.einsum("ij,ij->i", W, W)


def l21_norm(W: np.ndarray, eps: float = EPS) -> float:
    """The smoothed l2,1 norm sum_i sqrt(||w_i||^2 + eps)."""
    return float(np.sqrt(row_sq_norms(W) + eps).sum())


def reweight(sq_norms: np.ndarray, eps: float = EPS) -> np.ndarray:
    """Diagonal of the reweighting matrix G: 1 / (2 sqrt(||w_i||^2 + eps)), from squared row norms."""
    return 0.5 / np.sqrt(sq_norms + eps)


def has_converged(objective: list[float], tol: float) -> bool:
    """True when the last step changed the objective by less than ``tol`` relative to the previous value."""
    if len(objective) < 2:
        return False
    prev, last = objective[-2], objective[-1]
    return abs(prev - last) <= tol * max(abs(prev), np.finfo(np.float64).tiny)




class DiagonalRidge:
    """The ridge problem min_W ||XW - F||^2 + beta tr(W' G W) for one positive diagonal G = diag(g).

    Factorises once, then solves for any right-hand side F (n x c):

    * ``coef(F)`` = (X'X + beta G)^-1 X'F, the minimiser W (d x c);
    * ``residual(F)`` = (I - X (X'X + beta G)^-1 X') F = F - X coef(F);
    * ``coef_and_residual(F)``: both, sharing one solve.

    In the primal form every method takes ``XtF`` = X'F if the caller has it
    (NDFS reuses the X'F of one iteration's new F in the next), saving a
    pass over X; the numbers are the same.

    ``dual=None`` picks the cheaper form: when d > n the n x n Woodbury forms
    W = G^-1 X' (A + beta I)^-1 F and residual = beta (A + beta I)^-1 F with
    A = X G^-1 X' (cost O(n^2 d + n^3), no d x d matrix); otherwise the d x d
    Cholesky factor of X'X + beta G. ``XtX`` may pass a precomputed X'X.
    """

    def __init__(self, X: np.ndarray, beta: float, g: np.ndarray, *, dual: bool | None = None, XtX=None):
        n, d = X.shape
        self.X, self.beta = X, beta
        self.dual = d > n if dual is None else bool(dual)
        if self.dual:
            self._XGinv = X / g  # X G^-1, n x d
            system = self._XGinv @ X.T
            system[np.diag_indices(n)] += beta
        else:
            system = X.T @ X if XtX is None else XtX.copy()
            system[np.diag_indices(d)] += beta * g
        self._factor = scipy.linalg.cho_factor(system, lower=True, overwrite_a=True, check_finite=False)

    def _solve(self, B: np.ndarray) -> np.ndarray:
        return scipy.linalg.cho_solve(self._factor, B, check_finite=False)

    def coef(self, F: np.ndarray, XtF: np.ndarray | None = None) -> np.ndarray:
        if self.dual:
            return self._XGinv.T @ self._solve(F)
        return self._solve(self.X.T @ F if XtF is None else XtF)

    def residual(self, F: np.ndarray, XtF: np.ndarray | None = None) -> np.ndarray:
        # the dual form avoids the cancellation in F - XW when beta is tiny and XW ~ F
        if self.dual:
            return self.beta * self._solve(F)
        return F - self.X @ self.coef(F, XtF)

    def coef_and_residual(self, F: np.ndarray, XtF: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(coef(F), residual(F))`` with one solve instead of two (the same numbers)."""
        if self.dual:
            Z = self._solve(F)
            return self._XGinv.T @ Z, self.beta * Z
        W = self.coef(F, XtF)
        return W, F - self.X @ W
