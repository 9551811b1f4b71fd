"""LLCFS, local learning-based clustering with feature selection (Zeng & Cheung, IEEE TPAMI 33(8) 2011).

Local learning-based clustering (Wu & Schoelkopf 2006) asks that each
sample's cluster indicator be predicted by a ridge regression fitted on its
k nearest neighbours. LLCFS puts a weight tau_j >= 0, sum_j tau_j = 1, on
every feature inside that regression's regulariser, w' diag(tau)^-1 w, which
makes each local model a kernel ridge regression with the weighted linear
kernel K = X diag(tau) X'. Alternating:

1. neighbourhoods N_i: the k nearest neighbours of x_i in the weighted space
   X diag(tau)^1/2 (recomputed every iteration);
2. the local predictors: for N_i with centring H and local kernel K_i, the
   prediction of x_i is a_i' y_{N_i} with
   a_i' = (k_i - 1'K_i / k) H (H K_i H + I / beta)^-1 + 1' / k,
   giving A (n x n, row i = a_i on N_i);
3. Y = the c eigenvectors of M = (I - A)'(I - A) with the smallest
   eigenvalues (the relaxed indicator; the objective is their sum);
4. the weights in closed form: the local models' primal weights are
   w_i = diag(tau) X_{N_i}' C_i Y_{N_i}, C_i = H (H K_i H + I / beta)^-1, and
   tau_j is proportional to sqrt(sum_i ||row j of w_i||^2).

Features are ranked by tau. All n local problems are solved as one batch
from the squared distances of the weighted samples (the local Gram matrices
by double centring, as in ``ufskit.selectors.udfs``), and the weight update
is sum_i ||row j of w_i||^2 = tau_j^2 x_j' S x_j with S = sum_i C_i Y_i Y_i' C_i'
scattered onto N_i x N_i: one sparse n x n matrix, no loop over samples.
"""

from __future__ import annotations

import logging

import numpy as np
import scipy.linalg
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..blas import single_threaded_blas
from ..graph import knn_indices, pairwise_sq_dists
from ..lanczos import checked_eigsh, negative_count
from ..sparse_regression import EPS, has_converged
from ..validation import auto_or_int, centred, check_int, check_positive, power_of_two, resolve_n_neighbors
from .base import ScoreSelector
from .constraints import AUTO, POSITIVE, POSITIVE_INT

# up to this many samples the c smallest eigenvectors of M come from dense LAPACK (robust when 0 is a multiple
# eigenvalue: a kNN graph in several pieces makes ARPACK crawl), above from sparse shift-invert Lanczos
DENSE_MAX_SAMPLES = 2000
# the shift-invert pole sits this fraction of M's mean diagonal below 0 (M is semidefinite, 0 its smallest value)
SHIFT = 1e-6

logger = logging.getLogger(__name__)


def _scatter(hood: np.ndarray, blocks: np.ndarray, n: int) -> sp.csr_matrix:
    """sum_i of the k x k ``blocks[i]`` placed on rows and columns ``hood[i]`` (duplicates add)."""
    rows = np.broadcast_to(hood[:, :, None], blocks.shape).ravel()
    cols = np.broadcast_to(hood[:, None, :], blocks.shape).ravel()
    return sp.coo_matrix((blocks.ravel(), (rows, cols)), shape=(n, n)).tocsr()


def local_predictors(D2: np.ndarray, hood: np.ndarray, beta: float) -> tuple[sp.csr_matrix, np.ndarray]:
    """(A, C): the local ridge predictors of every sample from its neighbours ``hood`` (n x k).

    From the squared distances D2 of the (weighted) samples: inner products
    relative to each neighbourhood's mean come from double centring the
    (k + 1) x (k + 1) distance block of the sample and its neighbours.
    C[i] = H (H K_i H + I / beta)^-1 = beta H (beta H K_i H + I)^-1.
    """
    n, k = hood.shape
    aug = np.column_stack([np.arange(n), hood])
    centre = np.eye(k + 1) - np.concatenate([[0.0], np.full(k, 1.0 / k)])[None, :]
    inner = -0.5 * (centre @ D2[aug[:, :, None], aug[:, None, :]] @ centre.T)
    local_gram, cross = inner[:, 1:, 1:], inner[:, 0, 1:]
    H = np.eye(k) - 1.0 / k
    C = beta * (H @ np.linalg.inv(beta * local_gram + np.eye(k)))
    rows = np.einsum("ia,iab->ib", cross, C) + 1.0 / k
    A = sp.csr_matrix((rows.ravel(), (np.repeat(np.arange(n), k), hood.ravel())), shape=(n, n))
    return A, C


def smallest_eigenpairs(M: sp.csr_matrix, c: int) -> tuple[np.ndarray, np.ndarray]:
    """The c smallest eigenpairs of the sparse symmetric positive semidefinite n x n matrix M.

    Dense LAPACK (the authors' ``eig``) up to DENSE_MAX_SAMPLES samples;
    above, shift-invert Lanczos just below 0 on the sparse M (about k^2
    entries per row), whose eigenvalues nearest the pole are the smallest,
    checked (``ufskit.lanczos.checked_eigsh``: M must have no eigenvalue
    below mu, just under the c-th Ritz value, besides the Ritz values there,
    counted from a sparse factor of M - mu I); LAPACK when the check fails.
    Only the span of the c eigenvectors matters downstream (see ``llcfs_iterations``).
    """
    M = (M + M.T) * 0.5
    n = M.shape[0]
    pairs = None
    if n > DENSE_MAX_SAMPLES and c < n - 1:
        M = M.tocsc()

        def only_these_below(mu, values, vectors):
            count = negative_count(M - mu * sp.identity(n, format="csc"))
            return None if count is None else count == int(np.count_nonzero(values < mu))

        # the margin is at least 1e-9 of M's largest absolute row sum (>= ||M||): eigenvalues within it of a c-th
        # eigenvalue 0 (a kNN graph in c or more pieces) are ties, not skipped ones
        pairs = checked_eigsh(M, c, largest=False, check=only_these_below, logger=logger,
                              what="LLCFS's shift-invert Lanczos", scale=spla.norm(M, np.inf),
                              sigma=-SHIFT * M.diagonal().mean(), which="LM")
    return scipy.linalg.eigh(M.toarray(), subset_by_index=[0, c - 1]) if pairs is None else pairs


def llcfs_iterations(X: np.ndarray, *, n_clusters: int, n_neighbors: int, beta: float, max_iter: int, tol: float):
    """Run the alternation from tau = 1/d; return (tau, objective per iteration).

    The objective recorded is the sum of the c smallest eigenvalues of M at
    the iteration's tau; tau is floored at machine epsilon where it weights
    the samples, as in the authors' code.
    """
    n, d = X.shape
    tau = np.full(d, 1.0 / d)
    objective: list[float] = []
    for _ in range(max_iter):
        weight = np.maximum(tau, EPS)
        D2 = pairwise_sq_dists(X * np.sqrt(weight))
        hood = knn_indices(D2, n_neighbors)
        A, C = local_predictors(D2, hood, beta)
        residual = sp.identity(n, format="csr") - A
        values, Y = smallest_eigenpairs(residual.T @ residual, n_clusters)
        objective.append(float(values.sum()))
        B = C @ Y[hood]  # n x k x c
        S = _scatter(hood, B @ B.transpose(0, 2, 1), n)
        new = weight * np.sqrt(np.maximum(np.einsum("ij,ij->j", X, S @ X), 0.0))
        if not new.sum() > 0:  # no local model carries a weight (k = 1: a neighbourhood has nothing to fit)
            break
        tau = new / new.sum()
        if has_converged(objective, tol):
            break
    return tau, objective


class LLCFS(ScoreSelector):
    """LLCFS feature ranking: features with the largest learned weights tau first.

    Parameters
    ----------
    n_clusters : int or "auto"
        c, the columns of the relaxed cluster indicator Y (the number of
        classes in the authors' protocol); "auto" = min(5, n - 1).
    n_neighbors : int or "auto"
        k, the size of each neighbourhood; "auto" = min(5, n - 1), 5 as in
        the authors' protocol.
    beta : float or "auto"
        The local ridge trade-off (the loss is weighted by beta against the
        regulariser); the authors' grid is 10^{-5..5}, their code's default
        1. "auto" = 1 / mean(X^2): 1 on z-scored data, and scaled with X so
        that LLCFS(s X) = LLCFS(X) (beta K is what matters).
    max_iter : int
        Iterations of the alternation (the authors' protocol runs 20 and has
        no other stopping rule).
    tol : float
        Also stop when the objective changes by less than tol relative.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        tau, the feature weights (non-negative, summing to 1 over the scored features).
    objective_ : list of float
        The sum of the c smallest eigenvalues of M, per iteration. The
        neighbourhoods change with tau, so it need not decrease.
    n_iter_, n_clusters_, n_neighbors_ : int
    beta_ : float
        The resolved parameters.

    Notes
    -----
    The authors' toolbox (FSASL ``fs_unsup_llcfs``) is followed in every
    step above, with the plain kNN neighbourhoods of its protocol (``kType``
    2); docs/fidelity/selectors-llcfs-spfs-traceratio.md. X is centred
    first (the local models have an intercept, so nothing changes but rounding).

    Cost per iteration: O(n^2 d) for the weighted distances, O(n k^3) for the
    local problems, O(nnz d) for the weights, and the c smallest eigenpairs of
    an n x n matrix (dense LAPACK up to 2000 samples); 20 iterations take
    7.9 s of CPU on COIL20 (1440 x 1024).

    References
    ----------
    H. Zeng and Y.-M. Cheung, "Feature Selection and Kernel Learning for Local
    Learning-Based Clustering", IEEE Transactions on Pattern Analysis and
    Machine Intelligence 33(8), pp. 1532-1547, 2011.
    """

    _parameter_constraints: dict = {
        **ScoreSelector._parameter_constraints, "n_clusters": [AUTO, POSITIVE_INT],
        "n_neighbors": [AUTO, POSITIVE_INT], "beta": [AUTO, POSITIVE], "max_iter": [POSITIVE_INT],
        "tol": [POSITIVE],
    }

    def __init__(self, n_features_to_select=None, n_clusters="auto", n_neighbors="auto", beta="auto", max_iter=20,
                 tol=1e-8):
        self.n_features_to_select = n_features_to_select
        self.n_clusters = n_clusters
        self.n_neighbors = n_neighbors
        self.beta = beta
        self.max_iter = max_iter
        self.tol = tol

    def _score(self, X):
        n = X.shape[0]
        self.n_clusters_ = c = auto_or_int(self.n_clusters, "n_clusters", min(5, n - 1))
        if c > n:
            raise ValueError(f"n_clusters={c} must be at most the number of samples ({n}).")
        self.n_neighbors_ = resolve_n_neighbors(self.n_neighbors, n)
        X = centred(X)
        mean_square = float(np.mean(X**2))
        auto_beta = isinstance(self.beta, str) and self.beta == "auto"
        self.beta_ = 1.0 / mean_square if auto_beta else check_positive(self.beta, "beta")
        s = power_of_two(np.sqrt(mean_square))  # unit scale inside (exact): K / s^2 pairs with beta s^2
        with single_threaded_blas():  # many small and medium BLAS calls per iteration: see ufskit.blas
            tau, self.objective_ = llcfs_iterations(
                X / s, n_clusters=c, n_neighbors=self.n_neighbors_, beta=self.beta_ * s**2,
                max_iter=check_int(self.max_iter, "max_iter"), tol=check_positive(self.tol, "tol"),
            )
        self.n_iter_ = len(self.objective_)
        return tau
