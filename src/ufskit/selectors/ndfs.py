"""NDFS, nonnegative discriminative feature selection (Li, Yang, Liu, Zhou & Lu, AAAI 2012).

Objective (rows of X are samples, F is n x c, W is d x c):

    min_{F >= 0, W}  Tr(F'LF) + alpha (||XW - F||^2 + beta ||W||_{2,1}) + (gamma/4) ||F'F - I||^2

with L = I - D^-1/2 S D^-1/2 the normalised Laplacian of the kNN heat-kernel
graph S; the orthogonality constraint F'F = I is relaxed to the gamma
penalty. One iteration, with G = diag(1 / (2 ||w_i||)) from the previous W
(G = I at the start, F from spectral clustering):

1. M F = L F + alpha (I - X (X'X + beta G)^-1 X') F   (M is never formed);
2. F <- F * (gamma F) / (M F + gamma F F'F), the paper's rule (where MF < 0
   its negative part moves to the numerator, so that F stays nonnegative),
   then unit-norm columns as in the authors' code;
3. W = (X'X + beta G)^-1 X'F for the new F, and G from W.

Steps 1 and 3 share one factorisation, in the n x n Woodbury form when d > n
(``ufskit.sparse_regression.DiagonalRidge``). Features are ranked by ||w_i||.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.cluster import KMeans

from ..graph import knn_graph
from ..sparse_regression import EPS, DiagonalRidge, has_converged, l21_norm, reweight, row_sq_norms
from ..spectral import degrees, smallest_nontrivial_eigenpairs
from ..validation import auto_or_int, centred, check_distinct_rows, check_int, check_positive
from .base import ScoreSelector
from .constraints import AUTO, POSITIVE, POSITIVE_INT, RANDOM_STATE

# F0 = column-normalised (Y + INIT_OFFSET) for the one-hot cluster indicator Y:
# every entry must start positive or the multiplicative update keeps it at 0
INIT_OFFSET = 0.2
# above this many samples the initial embedding's eigenvectors come from Lanczos on the sparse kNN
# graph instead of a dense n x n LAPACK call (only the K-means labels of the embedding are used, and
# they agree: tested); below it LAPACK is as fast
LANCZOS_MIN_SAMPLES = 300
# beta = "auto": this x the root mean square column norm of X (see NDFS)
BETA_PER_COLUMN_NORM = 1.5


def normalized_adjacency(S) -> sp.csr_matrix:
    """D^-1/2 S D^-1/2, so that the normalised Laplacian is L = I - this."""
    s = 1.0 / np.sqrt(degrees(S))
    return sp.csr_matrix(sp.diags(s) @ S @ sp.diags(s))


def spectral_init(S, n_clusters: int, random_state=None) -> np.ndarray:
    """Initial F (n x c) from spectral clustering of the graph S (as in the authors' code).

    The c smallest eigenvectors of L (the trivial one D^1/2 1 included),
    rows scaled to unit length (Ng, Jordan & Weiss), clustered by K-means with
    10 restarts; F0 is the one-hot labels plus INIT_OFFSET, columns normalised.
    """
    d = degrees(S)
    embedding = np.sqrt(d / d.sum())[:, None]
    if n_clusters > 1:
        vectors = smallest_nontrivial_eigenpairs(S, n_clusters - 1, dense_max_samples=LANCZOS_MIN_SAMPLES)[1]
        embedding = np.hstack([embedding, vectors])
    embedding /= np.sqrt(row_sq_norms(embedding))[:, None]
    if isinstance(random_state, np.random.Generator):
        random_state = int(random_state.integers(2**32 - 1))
    labels = KMeans(n_clusters=n_clusters, n_init=10, random_state=random_state).fit_predict(embedding)
    F = np.full((S.shape[0], n_clusters), INIT_OFFSET)
    F[np.arange(labels.size), labels] += 1.0
    return F / np.linalg.norm(F, axis=0)


def ndfs_iterations(X, A_norm, F, *, alpha, beta, gamma, max_iter, tol, dual=None):
    """Run the NDFS updates from F; return (W, F, objective per iteration).

    ``A_norm`` is D^-1/2 S D^-1/2 (so L F = F - A_norm F). The objective
    recorded after each iteration is the full one above (l2,1 smoothed by
    eps) at the new (F, W). The reweighted W-step cannot increase it (Nie et
    al. 2010); the multiplicative F-step and the column normalisation carry
    no such proof, but the objective is observed to decrease monotonically
    for gamma >= 1 (checked by the tests). ``dual`` forces the Woodbury (True)
    or the d x d (False) form; None picks by shape.
    """
    n, d = X.shape
    dual = d > n if dual is None else bool(dual)
    XtX = None if dual else X.T @ X
    # X'F of the current F: the residual of one iteration's first step and the W of the previous
    # iteration's last step use the same F, so one product serves both (primal form only)
    XtF = None if dual else X.T @ F
    g = np.ones(d)
    AF = A_norm @ F
    objective: list[float] = []
    for _ in range(max_iter):
        ridge = DiagonalRidge(X, beta, g, dual=dual, XtX=XtX)
        MF = F - AF + alpha * ridge.residual(F, XtF)
        # the paper's rule F * (gamma F) / (MF + gamma FF'F), with MF split into its positive and negative
        # parts so that F stays positive where MF < 0 (identical where MF >= 0); eps as in the authors' code
        FFtF = F @ (F.T @ F)
        F = F * (gamma * F + np.maximum(-MF, 0.0) + EPS) / (np.maximum(MF, 0.0) + gamma * FFtF + EPS)
        F /= np.linalg.norm(F, axis=0)
        XtF = None if dual else X.T @ F
        W, R = ridge.coef_and_residual(F, XtF)
        AF = A_norm @ F
        g = reweight(row_sq_norms(W))
        gram = F.T @ F
        gram[np.diag_indices_from(gram)] -= 1.0
        value = (
            np.einsum("ij,ij->", F, F - AF)
            + alpha * (np.einsum("ij,ij->", R, R) + beta * l21_norm(W))
            + 0.25 * gamma * np.einsum("ij,ij->", gram, gram)
        )
        objective.append(float(value))
        if has_converged(objective, tol):
            break
    return W, F, objective


class NDFS(ScoreSelector):
    """NDFS feature ranking: features with the largest rows of the regression matrix W first.

    Parameters: ``n_clusters`` (c, the number of pseudo-labels; the number of
    classes in the papers; "auto" = min(5, n - 1); at most the number of
    distinct samples, else a ValueError), ``alpha`` and ``beta``
    (the paper's trade-offs, searched over a grid there; NRFS uses
    alpha = beta = 1e-6), ``gamma`` (orthogonality penalty, 1e8 as in the
    authors' code), ``n_neighbors`` and ``sigma`` (the heat-kernel kNN graph
    of ``ufskit.graph.knn_graph``; n_neighbors "auto" = min(5, n - 1), sigma
    None = mean pairwise distance), ``max_iter`` and ``tol`` (stop when the
    objective changes by less than tol relative), ``random_state`` (the
    K-means of the spectral initialisation).

    beta weighs ||W||_{2,1} against ||XW - F||^2. For a feature x_i and the
    soft labels F the reweighted step soft-thresholds: row w_i stays non-zero
    only while beta < 2 ||x_i' F||, i.e. beta / (2 ||x_i||) is the smallest
    (cosine) correlation with F a feature needs to keep a weight. So the
    default beta = "auto" is BETA_PER_COLUMN_NORM (1.5) x the root mean square
    column norm of X (sqrt(n) on z-scored data): features need a correlation
    norm of about 0.75 with F. beta = 1 (the old default) is negligible on
    z-scored data and beta >= 2 x column norm zeroes every row
    (docs/fidelity/baselines-ndfs-udfs.md). Scaling X by s scales beta_ by s,
    which selects the same features. X is centred first (the regression gets
    an intercept; z-scored data is centred already), so an offset on a column
    changes nothing. NDFS is scale-sensitive (a small column needs a large row
    w_i): a ``ScaleWarning`` when standardising the columns changes the head
    of its ranking (``ScoreSelector``'s scale check).

    Attributes: ``scores_`` = ||w_i||, ``W_`` (d x c), ``F_`` (n x c, the
    nonnegative soft cluster indicator), ``objective_`` (one value per
    iteration, non-increasing up to rounding), ``n_iter_``, and the resolved
    ``n_clusters_``, ``n_neighbors_`` and ``beta_``.
    """

    _parameter_constraints: dict = {
        **ScoreSelector._parameter_constraints, "n_clusters": [AUTO, POSITIVE_INT],
        "n_neighbors": [AUTO, POSITIVE_INT], "alpha": [POSITIVE], "beta": [AUTO, POSITIVE],
        "gamma": [POSITIVE], "max_iter": [POSITIVE_INT], "tol": [POSITIVE],
        "sigma": [None, POSITIVE], "random_state": RANDOM_STATE,
    }

    single_threaded = True  # many small BLAS/LAPACK calls: see ufskit.blas

    def __init__(
        self,
        n_features_to_select=None,
        n_clusters="auto",
        alpha=1.0,
        beta="auto",
        gamma=1e8,
        n_neighbors="auto",
        sigma=None,
        max_iter=100,
        tol=1e-8,
        random_state=None,
    ):
        self.n_features_to_select = n_features_to_select
        self.n_clusters = n_clusters
        self.alpha = alpha
        self.beta = beta
        self.gamma = gamma
        self.n_neighbors = n_neighbors
        self.sigma = sigma
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def _score(self, X):
        n = X.shape[0]
        self.n_clusters_ = c = auto_or_int(self.n_clusters, "n_clusters", min(5, n - 1))
        if c >= n:
            raise ValueError(f"n_clusters={c} must be smaller than the number of samples ({n}).")
        check_distinct_rows(X, c, "NDFS")  # c cluster indicators (K-means start) need c distinct points
        self.n_neighbors_ = k = auto_or_int(self.n_neighbors, "n_neighbors", min(5, n - 1))
        if k >= n:
            raise ValueError(f"n_neighbors={k} must be smaller than the number of samples ({n}).")
        alpha, gamma = (check_positive(getattr(self, p), p) for p in ("alpha", "gamma"))
        X = centred(X)
        auto_beta = isinstance(self.beta, str) and self.beta == "auto"
        column_norm = float(np.sqrt(np.einsum("ij,ij->", X, X) / X.shape[1]))
        self.beta_ = beta = BETA_PER_COLUMN_NORM * column_norm if auto_beta else check_positive(self.beta, "beta")
        tol = check_positive(self.tol, "tol")
        S = knn_graph(X, n_neighbors=k, weight="heat", sigma=self.sigma)
        F0 = spectral_init(S, c, self.random_state)
        W, self.F_, self.objective_ = ndfs_iterations(
            X,
            normalized_adjacency(S),
            F0,
            alpha=alpha,
            beta=beta,
            gamma=gamma,
            max_iter=check_int(self.max_iter, "max_iter"),
            tol=tol,
        )
        self.n_iter_ = len(self.objective_)
        self.W_ = self._to_full(W, fill=0.0)
        return np.sqrt(row_sq_norms(W))
