"""GLSPFS (Liu, Wang, Zhang, Yin & Liu, IEEE TNNLS 2014): global and local structure preserving feature selection.

The quartic similarity fit ||XW(XW)' - S||^2 is replaced, as in SPFS and the
authors' code, by the linear surrogate

    min_W ||XW - Y||_F^2 + mu tr(W'X'LXW) + lam ||W||_{2,1},    S = YY',

where S is a Gaussian kernel on the samples (global structure) and L a local
structure matrix (LPP graph Laplacian or LLE reconstruction matrix). It is
solved by iteratively reweighted least squares with q_i = 2||w_i||, and the
features are ranked by the row norms ||w_i||.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import StrOptions

from ..graph import knn_graph, knn_indices, pairwise_sq_dists
from ..validation import centred, power_of_two, resolve_n_neighbors
from .base import ScoreSelector
from .constraints import AUTO, NON_NEGATIVE, POSITIVE, POSITIVE_INT

LOCAL_STRUCTURES = ("lpp", "lle")
FORMS = ("samples", "features")


def global_kernel(D2: np.ndarray) -> tuple[np.ndarray, float]:
    """S = exp(-||xi - xj||^2 / t), t = mean squared distance over all n^2 pairs (self-pairs included).

    This is the authors' ``mysvmkernel(X, X, 'gaussian', 0)``. Returns (S, t).
    """
    t = float(D2.mean())
    if t <= 0:
        raise ValueError("all samples coincide: the Gaussian kernel width is 0.")
    return np.exp(-D2 / t), t


def kernel_factor(S: np.ndarray) -> np.ndarray:
    """Y with YY' = S, from the eigenpairs of S above the numerical-rank threshold (Y = U Lambda^{1/2})."""
    vals, vecs = np.linalg.eigh(S)
    keep = vals > vals[-1] * S.shape[0] * np.finfo(float).eps
    return vecs[:, keep] * np.sqrt(vals[keep])


def lpp_laplacian(D2: np.ndarray, width: float, n_neighbors: int) -> sp.csr_matrix:
    """L = D - W of the kNN graph weighted by the global kernel exp(-d^2 / width) (the authors' ``myadjacency``)."""
    W = knn_graph(None, n_neighbors=n_neighbors, weight="heat", sigma=np.sqrt(width / 2.0), D2=D2)
    return (sp.diags(np.asarray(W.sum(axis=1)).ravel()) - W).tocsr()


def lle_matrix(D2: np.ndarray, n_neighbors: int, n_features: int) -> sp.csr_matrix:
    """M = (I - R)'(I - R), R the LLE weights reconstructing each sample from its k nearest neighbours.

    The local Gram matrices come from the distances, <xa - xi, xb - xi> =
    (D2[i,a] + D2[i,b] - D2[a,b]) / 2, regularised by tol * trace with tol =
    1e-3 if k > d else 1e-12, as in the authors' ``computeM`` (Roweis & Saul's LLE).
    """
    n = D2.shape[0]
    nbr = knn_indices(D2, n_neighbors)  # n x k
    k = nbr.shape[1]
    di = np.take_along_axis(D2, nbr, axis=1)
    C = 0.5 * (di[:, :, None] + di[:, None, :] - D2[nbr[:, :, None], nbr[:, None, :]])
    tol = 1e-3 if k > n_features else 1e-12
    C += (tol * np.trace(C, axis1=1, axis2=2))[:, None, None] * np.eye(k)
    w = np.linalg.solve(C, np.ones((n, k, 1)))[:, :, 0]
    w /= w.sum(axis=1, keepdims=True)
    R = sp.csr_matrix((w.ravel(), (np.repeat(np.arange(n), k), nbr.ravel())), shape=(n, n))
    IR = sp.identity(n, format="csr") - R
    return (IR.T @ IR).tocsr()


def _w_solver(X, Y, L, mu, lam, form):
    """The reweighted least-squares step q -> W = argmin ||XW - Y||^2 + mu tr(W'X'LXW) + lam tr(W' diag(1/q) W).

    "features": W = (Q X'AX + lam I_d)^{-1} Q X'Y, with A = I + mu L (d x d; X'AX and X'Y computed once).
    "samples":  W = Q X'(A X Q X' + lam I_n)^{-1} Y (the push-through identity; n x n, for d > n).
    Neither system is symmetric, so both are solved by LU (np.linalg.solve), never inverted.
    A zero q_i gives w_i = 0 in both forms, so no 1/q is ever formed.
    """
    n, d = X.shape

    def apply_A(M):
        return M if L is None else M + mu * (L @ M)

    if form == "features":
        XtAX = X.T @ apply_A(X)
        XtY = X.T @ Y
        eye = lam * np.eye(d)
        return lambda q: np.linalg.solve(q[:, None] * XtAX + eye, q[:, None] * XtY)
    eye = lam * np.eye(n)
    return lambda q: q[:, None] * (X.T @ np.linalg.solve(apply_A((X * q) @ X.T) + eye, Y))


def glspfs_fit(X, Y, L, mu, lam, max_iter=100, tol=1e-4, form=None):
    """Run the iteration from q = 1; returns (W, objective values, one per iteration).

    Stops when the relative decrease |J_{t-1} - J_t| / J_t falls below ``tol`` or
    after ``max_iter`` iterations. ``form`` picks the linear system ("samples"
    when d > n by default, as the authors do); both give the same W.
    """
    n, d = X.shape
    form = ("samples" if d > n else "features") if form is None else form
    if form not in FORMS:
        raise ValueError(f"unknown form {form!r}; use one of {FORMS}.")
    solve = _w_solver(X, Y, L, mu, lam, form)
    q = np.ones(d)
    objective = []
    for _ in range(max_iter):
        W = solve(q)
        norms = np.sqrt(np.einsum("ij,ij->i", W, W))
        q = 2.0 * norms
        XW = X @ W
        value = np.sum((XW - Y) ** 2) + lam * norms.sum()
        if L is not None:
            value += mu * np.sum(XW * (L @ XW))
        objective.append(float(value))
        if len(objective) > 1 and abs(objective[-2] - value) <= tol * abs(value):
            break
    return W, np.asarray(objective)


class GLSPFS(ScoreSelector):
    """Global and Local Structure Preserving Feature Selection.

    Parameters
    ----------
    n_features_to_select : int, float or None
        Features kept by ``transform`` (count, fraction of d, or None for half).
    mu : float >= 0
        Weight of the local-structure term; 0 keeps only the global kernel fit (SPFS-like).
    lam : float > 0 or None
        Weight of the l2,1 penalty, in the units of the unscaled objective above
        (the authors' unsupervised code). None (default) = n s, resolved at fit
        (``lam_``), with s the median column standard deviation rounded to a
        power of 2 (s = 1 on z-scored data): ||XW - Y||^2 and X'X grow with n while ||W||_{2,1} does not,
        so a fixed lam fades on large or z-scored data (X'X ~ n I); lam = n is
        lambda = 1 of the first author's supervised demo, which divides the fit
        term by n. The factor s keeps the default meaningful at any scale (W
        scales as 1/s): without it X at 1e-90 gets W = 0, every score equal.
        mu is not scaled: tr(W'X'LXW) sums over the graph's edges and grows
        with n like the fit term.
    local : {"lpp", "lle"}
        Local structure: Laplacian of the kNN graph weighted by the global kernel
        (LPP), or the LLE reconstruction matrix (I - R)'(I - R).
    n_neighbors : int or "auto"
        k of the local structure (unused when mu = 0); "auto" (default) = min(5, n - 1).
    max_iter, tol : int, float
        Iteration cap and relative-objective-change stopping rule (the authors: 100, 1e-4).

    Attributes
    ----------
    coef_ : d x c matrix W; ``scores_`` are its row norms ||w_i|| (rows of
        flat columns, which ``fit`` leaves unscored, are 0).
    objective_ : objective value after each iteration (non-increasing).
    n_iter_ : number of iterations run.
    kernel_width_ : t of the global kernel exp(-d^2 / t).
    lam_ : the l2,1 weight used (``lam``, or n s when lam is None).
    n_neighbors_ : the k used (``n_neighbors`` resolved; None when mu = 0).

    X is centred first (the fit term gets an intercept; z-scored data is
    centred already), so an offset on a column changes nothing, and the
    iteration runs on X / s with lam / s, the same problem at unit scale
    (s as for lam=None).
    GLSPFS is scale-sensitive (a small column needs a large row w_i): a
    ``ScaleWarning`` when standardising the columns changes the head of its
    ranking (``ScoreSelector``'s scale check). A fit in
    which every row of W is 0 (lam outweighs the fit entirely) is an error,
    not a ranking.
    """

    _parameter_constraints: dict = {
        **ScoreSelector._parameter_constraints, "mu": [NON_NEGATIVE], "lam": [None, POSITIVE],
        "local": [StrOptions(set(LOCAL_STRUCTURES))], "n_neighbors": [AUTO, POSITIVE_INT],
        "max_iter": [POSITIVE_INT], "tol": [NON_NEGATIVE],
    }

    def __init__(self, n_features_to_select=None, mu=1.0, lam=None, local="lpp", n_neighbors="auto", max_iter=100, tol=1e-4):
        super().__init__(n_features_to_select=n_features_to_select)
        self.mu = mu
        self.lam = lam
        self.local = local
        self.n_neighbors = n_neighbors
        self.max_iter = max_iter
        self.tol = tol

    def local_structure(self, X: np.ndarray, D2: np.ndarray, width: float):
        """The n x n sparse local-structure matrix for ``self.local`` (None when mu = 0)."""
        if self.mu == 0:
            return None
        k = resolve_n_neighbors(self.n_neighbors, D2.shape[0])
        if self.local == "lpp":
            return lpp_laplacian(D2, width, k)
        return lle_matrix(D2, k, X.shape[1])

    def _score(self, X):
        self.n_neighbors_ = None if self.mu == 0 else resolve_n_neighbors(self.n_neighbors, X.shape[0])
        X = centred(X)
        s = power_of_two(np.median(X.std(axis=0)))
        X = X / s  # exact; W of the scaled problem is s W
        D2 = pairwise_sq_dists(X)
        S, width = global_kernel(D2)
        self.kernel_width_ = width * s**2
        L = self.local_structure(X, D2, width)
        self.lam_ = float(X.shape[0] * s if self.lam is None else self.lam)
        W, self.objective_ = glspfs_fit(X, kernel_factor(S), L, self.mu, self.lam_ / s, self.max_iter, self.tol)
        W /= s
        self.coef_ = self._to_full(W, 0.0)
        self.n_iter_ = self.objective_.size
        scores = np.sqrt(np.einsum("ij,ij->i", W, W))
        if not scores.any():
            raise ValueError(
                f"GLSPFS: every row of W is 0, so no feature is preferred: lam={self.lam_:.3g} outweighs the fit "
                f"at X's scale (median feature std about {s:.3g}); lower lam or standardise X."
            )
        return scores
