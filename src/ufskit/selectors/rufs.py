"""RUFS, robust unsupervised feature selection (Qian & Zhai, IJCAI 2013).

Cost (rows of X are samples; G n x c cluster indicators, F c x d, W d x c):

    min_{F >= 0, G >= 0, W}  ||X - G F||_{2,1} + nu tr(G'LG) + alpha ||XW - G||_{2,1} + beta ||W||_{2,1}

with G'G = I relaxed, as in the first author's code, to the penalty
zeta / 4 ||G'G - I||_F^2 (zeta = 1e7), and the code's two small extra terms
gamma ||F'||_{2,1} (gamma = 1e-4, column norms of F) and mu 1'G1 (mu = 0.1).
The l2,1 loss on the rows of X - GF (robust label learning: an outlying
sample costs its residual norm, not its square) and on XW - G (robust
feature learning) are solved jointly; L = (I - A)'(I - A) is the local
learning regulariser: row i of A predicts sample i's indicator from its kNN
by a kernel ridge regression on the heat-kernel graph (Cai's ``constructW``
weights as kernel, ridge 0.1), the toolbox's ``localLearnMx_KRR``.

Each round updates W, G and F in turn, each block by (projected, for the
nonnegative F and G) limited-memory BFGS with an Armijo backtracking, run
until the block's value changes by less than 0.1 (the code's inner rules).
The start is K-means on X (10 restarts, seeded) as one-hot G, F = the
cluster means clipped at 0 plus 0.2 times their mean positive entry, and the
ridge W = (X'X + beta/alpha I)^-1 X'G. Features are ranked by ||w_i||.
``variant="authors"`` keeps two defects of the code that ``"paper"``
corrects (docs/fidelity/selectors-rufs.md).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from sklearn.cluster import KMeans
from sklearn.utils._param_validation import StrOptions

from ..graph import knn_graph, mean_distance, pairwise_sq_dists
from ..sparse_regression import EPS, row_sq_norms
from ..validation import auto_or_int, centred, check_distinct_rows, power_of_two, resolve_n_neighbors
from .base import ScoreSelector
from .constraints import AUTO, POSITIVE, POSITIVE_INT, RANDOM_STATE

VARIANTS = ("paper", "authors")
# the code's fixed constants: orthogonality penalty, l2,1 weight on F's columns, l1 weight on G
ZETA, GAMMA, MU = 1e7, 1e-4, 0.1
# the code's L-BFGS: memory, Armijo fraction, backtracking factor, and the block's stopping change in value
MEMORY, ARMIJO, SHRINK, CHANGE_TOL = 10, 0.2, 0.5, 0.1
# the G block also stops at this fraction of its first gradient's norm; the W block at this gradient norm
G_GRAD_FRACTION, W_GRAD_TOL = 0.1, 0.1
# a backtracking step below this leaves the block where it is (the code would shrink t forever)
MIN_STEP = 1e-20


def local_learning_matrix(X: np.ndarray, n_neighbors: int, ridge: float) -> sp.csr_matrix:
    """L = (I - A)'(I - A), A the local kernel ridge predictors on the symmetric heat-kernel kNN graph K.

    Row i of A is K(i, N_i) (K(N_i, N_i) + ridge I)^-1 on the neighbours N_i
    of i in K (either among the other's k nearest); the heat kernel's width
    is the toolbox's mean distance over all n^2 pairs. The n systems are solved
    as one batch, each neighbourhood padded to the largest with entries that
    have no edge (their block of the system is ridge I, their weight 0). With
    every sample a neighbour of every other (k = n - 1) the code's deformed
    kernel is used instead: I - K (K + ridge I)^-1, rows scaled by its diagonal.
    """
    n = X.shape[0]
    D2 = pairwise_sq_dists(X)
    # the width as in constructW: mean(mean(D)), the n zero self-distances included
    K = knn_graph(X, n_neighbors=n_neighbors, weight="heat", sigma=mean_distance(D2) * (n - 1) / n, D2=D2)
    if n_neighbors >= n - 1:
        Kd = K.toarray()
        T = np.eye(n) - sla.solve(Kd + ridge * np.eye(n), Kd, assume_a="sym").T
        T /= np.diag(T)[:, None]
        return sp.csr_matrix(T.T @ T)
    K = K.tocsr()
    K.sort_indices()
    counts = np.diff(K.indptr)
    width = int(counts.max())
    slot = np.arange(width)[None, :] < counts[:, None]  # n x width: a real neighbour in that slot
    hood = np.zeros((n, width), dtype=np.int64)
    hood[slot] = K.indices
    Kd = K.toarray()
    blocks = Kd[hood[:, :, None], hood[:, None, :]] * (slot[:, :, None] & slot[:, None, :])
    blocks[:, np.arange(width), np.arange(width)] += ridge
    rhs = np.where(slot, Kd[np.arange(n)[:, None], hood], 0.0)
    rows = np.linalg.solve(blocks, rhs[:, :, None])[:, :, 0]
    A = sp.csr_matrix((rows[slot], (np.repeat(np.arange(n), counts), hood[slot])), shape=(n, n))
    residual = sp.identity(n, format="csr") - A
    return (residual.T @ residual).tocsr()


def _unit_rows(R: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(row norms of R, R with every nonzero row scaled to unit norm): the gradient of sum_i ||r_i||."""
    norms = np.sqrt(row_sq_norms(R))
    return norms, R / np.where(norms > 0, norms, 1.0)[:, None]


def _descend(fun, grad, x, *, nonneg: bool, stop):
    """Minimise fun from x by (projected onto x >= 0 when ``nonneg``) L-BFGS; return (x, projected gradient).

    The first author's solver: two-loop recursion over the last MEMORY steps,
    scaled by s'y / y'y; with ``nonneg``, the direction is the projected
    quasi-Newton one if it descends, else the projected gradient, and trial
    points are clipped at 0. Armijo backtracking on g'(x_t - x); the block
    stops when ``stop(projected gradient)`` holds or a step changes the value
    by less than CHANGE_TOL (that last step is not taken).
    """
    history: list[tuple[np.ndarray, np.ndarray, float]] = []
    f, g = fun(x), grad(x)
    while True:
        pg = np.where((g < 0) | (x > 0), g, 0.0) if nonneg else g
        if stop(pg):
            break
        q = g.copy()
        coefs = []
        for s, y, rho in reversed(history):
            coefs.append(rho * np.vdot(s, q))
            q -= coefs[-1] * y
        if history:  # the initial inverse Hessian: s'y / y'y of the last step, else 1
            s, y, _ = history[-1]
            q *= np.vdot(s, y) / np.vdot(y, y)
        r = q
        for (s, y, rho), a in zip(history, reversed(coefs)):
            r += (a - rho * np.vdot(y, r)) * s
        if nonneg:
            phg = np.where((r < 0) | (x > 0), r, 0.0)
            p = -pg if np.vdot(phg, g) <= 0 else -phg
        else:
            p = -r
        t = 1.0
        while True:
            x_t = np.maximum(x + t * p, 0.0) if nonneg else x + t * p
            f_t = fun(x_t)
            if f_t <= f + ARMIJO * np.vdot(g, x_t - x):
                break
            t *= SHRINK
            if t < MIN_STEP:
                return x, pg
        if abs(f_t - f) < CHANGE_TOL:
            break
        g_t = grad(x_t)
        s, y = x_t - x, g_t - g
        history = [*history[-(MEMORY - 1):], (s, y, 1.0 / np.vdot(y, s))]
        x, f, g = x_t, f_t, g_t
    return x, pg


class _Blocks:
    """The cost of RUFS split into its W, G and F blocks, with their gradients."""

    def __init__(self, X, L, alpha, beta, variant):
        self.X, self.L, self.alpha, self.beta, self.variant = X, L, alpha, beta, variant

    def w_value(self, W, G):
        return self.alpha * np.sqrt(row_sq_norms(self.X @ W - G)).sum() + self.beta * np.sqrt(row_sq_norms(W)).sum()

    def w_grad(self, W, G, sign=1.0):
        unit = _unit_rows(self.X @ W - G)[1]
        return sign * self.alpha * (self.X.T @ unit) + self.beta * W / (np.sqrt(row_sq_norms(W)) + EPS)[:, None]

    def g_value(self, G, F, W):
        c = G.shape[1]
        gram = G.T @ G - np.eye(c)
        return (np.sqrt(row_sq_norms(G @ F - self.X)).sum() + MU * G.sum() + np.vdot(G, self.L @ G)
                + self.alpha * np.sqrt(row_sq_norms(G - self.X @ W)).sum() + ZETA / 4.0 * np.vdot(gram, gram))

    def g_grad(self, G, F, W):
        c = G.shape[1]
        return (_unit_rows(G @ F - self.X)[1] @ F.T + MU + 2.0 * (self.L @ G)
                + self.alpha * _unit_rows(G - self.X @ W)[1] + ZETA * G @ (G.T @ G - np.eye(c)))

    def f_value(self, F, G):
        return np.sqrt(row_sq_norms(G @ F - self.X)).sum() + GAMMA * np.sqrt(row_sq_norms(F.T)).sum()

    def f_grad(self, F, G, norms=None):
        """With ``norms`` (the authors' code) the residual rows are divided by those fixed norms, not their own."""
        R = G @ F - self.X
        unit = R / np.where(norms > 0, norms, 1.0)[:, None] if norms is not None else _unit_rows(R)[1]
        return G.T @ unit + GAMMA * F / (np.sqrt(row_sq_norms(F.T)) + EPS)[None, :]

    def objective(self, W, G, F):
        """The whole cost: the G block's value plus the penalties on F and W it does not hold."""
        return (self.g_value(G, F, W) + GAMMA * np.sqrt(row_sq_norms(F.T)).sum()
                + self.beta * np.sqrt(row_sq_norms(W)).sum())

    def update_w(self, W, G):
        return _descend(lambda V: self.w_value(V, G), lambda V: self.w_grad(V, G), W, nonneg=False,
                        stop=lambda g: np.linalg.norm(g) <= W_GRAD_TOL)

    def update_g(self, G, F, W):
        tol = G_GRAD_FRACTION * np.linalg.norm(self.g_grad(G, F, W), 2)
        return _descend(lambda H: self.g_value(H, F, W), lambda H: self.g_grad(H, F, W), G, nonneg=True,
                        stop=lambda g: np.linalg.norm(g) <= tol)

    def update_f(self, F, G):
        norms = np.sqrt(row_sq_norms(G @ F - self.X)) if self.variant == "authors" else None
        return _descend(lambda E: self.f_value(E, G), lambda E: self.f_grad(E, G, norms), F, nonneg=True,
                        stop=lambda g: False)


def initial_factors(X: np.ndarray, labels: np.ndarray, n_clusters: int, alpha: float, beta: float):
    """(G, F, W) of the code's start: one-hot labels, clipped and lifted cluster means, the ridge W."""
    n, d = X.shape
    G = np.zeros((n, n_clusters))
    G[np.arange(n), labels] = 1.0
    F = np.maximum(sla.solve(G.T @ G, G.T @ X, assume_a="pos"), 0.0)
    positive = np.count_nonzero(F)
    if positive:
        F += 0.2 * F.sum() / positive
    ridge = beta / alpha
    if d > n:  # (X'X + r I)^-1 X' = X'(XX' + r I)^-1
        W = X.T @ sla.solve(X @ X.T + ridge * np.eye(n), G, assume_a="pos")
    else:
        W = sla.solve(X.T @ X + ridge * np.eye(d), X.T @ G, assume_a="pos")
    return G, F, W


def rufs_fit(X, L, labels, n_clusters, *, nu, alpha, beta, max_iter, tol, variant="paper"):
    """Run RUFS on X from the K-means ``labels``; return (W, G, F, objective after each round).

    A round updates W, then G, then F. The run stops after ``max_iter``
    rounds, or once the norm of the stacked (projected) block gradients falls
    to ``tol`` times its value at the start (the code's spectral norm over
    its Frobenius norm at the start). "authors" keeps the code's sign error in
    that starting W gradient and its fixed residual norms in the F gradient.
    """
    blocks = _Blocks(X, nu * L, alpha, beta, variant)
    G, F, W = initial_factors(X, labels, n_clusters, alpha, beta)
    start = np.vstack([blocks.f_grad(F, G).T, blocks.g_grad(G, F, W),
                       blocks.w_grad(W, G, sign=-1.0 if variant == "authors" else 1.0)])
    threshold = tol * np.linalg.norm(start)
    objective: list[float] = []
    for round_ in range(1, max_iter + 1):
        W, w_grad = blocks.update_w(W, G)
        G, g_grad = blocks.update_g(G, F, W)
        F, f_grad = blocks.update_f(F, G)
        objective.append(float(blocks.objective(W, G, F)))
        stacked = np.vstack([f_grad.T, g_grad, w_grad])
        if round_ < max_iter and np.sqrt(np.linalg.eigvalsh(stacked.T @ stacked)[-1]) <= threshold:
            break
    return W, G, F, objective


def kmeans_labels(X: np.ndarray, n_clusters: int, random_state) -> np.ndarray:
    """K-means labels of the samples (10 restarts), seeded by an int or a Generator (the code's litekmeans start)."""
    if isinstance(random_state, np.random.Generator):
        random_state = int(random_state.integers(2**32 - 1))
    return KMeans(n_clusters=n_clusters, n_init=10, random_state=random_state).fit_predict(X)


class RUFS(ScoreSelector):
    """Robust Unsupervised Feature Selection: features with the largest rows of W first.

    Qian, M. & Zhai, C. (2013). Robust unsupervised feature selection. IJCAI,
    1621-1627.

    Cluster indicators G are learnt by a nonnegative factorisation X ~ GF with
    an l2,1 loss (outlying samples cost their residual norm) and local
    learning regularisation, and at the same time predicted from X by a
    row-sparse W under an l2,1 loss: the features W keeps are those the
    robustly learnt clusters need. Cost (docs/fidelity/selectors-rufs.md
    gives the small terms the authors' code adds and the choices)::

        ||X - GF||_{2,1} + nu tr(G'LG) + alpha ||XW - G||_{2,1} + beta ||W||_{2,1},  F, G >= 0, G'G ~ I

    Parameters
    ----------
    n_features_to_select : int, float or None
        Features kept by ``transform`` (count, fraction of d, or None for half).
    n_clusters : int or "auto"
        c, the columns of G (the number of classes in the authors' runs);
        "auto" = min(5, n - 1). At most n - 1, and at most the number of
        distinct samples (rows of X), else a ValueError naming both.
    nu, alpha, beta : float > 0
        Weights of the local learning term, of the robust regression and of
        its row sparsity (the authors' grid: 10^-5 ... 10^5 each).
    n_neighbors : int or "auto"
        k of the heat-kernel kNN graph of the local learning; "auto" = min(5, n - 1).
    ridge : float > 0
        Ridge of each local kernel regression (the authors' 0.1).
    variant : {"paper", "authors"}
        "authors" keeps two defects of the code (a stale residual norm in the
        F gradient, a sign error in the starting W gradient); "paper" corrects them.
    max_iter : int
        Rounds (W, G, F each updated once). The code's MaxIter = 20 runs 21.
    tol : float > 0
        Stop once the stacked block gradients fall to tol times their start (the code's 1e-2).
    random_state : None, int or numpy Generator
        Seed of the K-means start.

    Attributes
    ----------
    scores_ : ||w_i|| (flat columns, which ``fit`` does not score: -inf).
    W_ : d x c regression matrix (rows of flat columns 0).
    G_ : n x c, the learnt (relaxed, nonnegative) cluster indicators.
    objective_ : the cost after each round.
    n_iter_, n_clusters_, n_neighbors_ : rounds run and resolved sizes.

    X is centred (the ranking does not depend on an offset; z-scored data is
    centred already) and the rounds run on X / s, s the root mean square
    entry rounded to a power of 2 (1 on z-scored data), since the code's
    inner stopping rules are absolute changes in value. RUFS is
    scale-sensitive (a small column needs a large row w_i). On the planted
    tests it finds 3-4 of the 5 redundant planted features, as the authors'
    code does from the same start (docs/fidelity/selectors-rufs.md).

    Cost: the graph and L, O(n^2 d + n k'^3) (k' the largest neighbourhood);
    each round a few tens of L-BFGS steps of O(n d c + nnz(L) c) each, and the
    ridge start O(min(n, d)^2 max(n, d)); memory O(n^2 + nd). COIL20 (1440 x
    1024, z-scored, defaults): 5.8 s of CPU per fit, the authors' code under
    Octave 6.0 s (one BLAS and one OpenMP thread each; docs/performance.md);
    the run stops after 1-2 rounds (docs/fidelity/selectors-rufs.md).
    """

    _parameter_constraints: dict = {
        **ScoreSelector._parameter_constraints, "n_clusters": [AUTO, POSITIVE_INT],
        "nu": [POSITIVE], "alpha": [POSITIVE], "beta": [POSITIVE], "n_neighbors": [AUTO, POSITIVE_INT],
        "ridge": [POSITIVE], "variant": [StrOptions(set(VARIANTS))], "max_iter": [POSITIVE_INT],
        "tol": [POSITIVE], "random_state": RANDOM_STATE,
    }

    single_threaded = True  # many small BLAS/LAPACK calls: see ufskit.blas

    def __init__(self, n_features_to_select=None, n_clusters="auto", nu=1.0, alpha=1.0, beta=1.0,
                 n_neighbors="auto", ridge=0.1, variant="paper", max_iter=20, tol=1e-2, random_state=None):
        super().__init__(n_features_to_select=n_features_to_select)
        self.n_clusters = n_clusters
        self.nu = nu
        self.alpha = alpha
        self.beta = beta
        self.n_neighbors = n_neighbors
        self.ridge = ridge
        self.variant = variant
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def _score(self, X):
        n = X.shape[0]
        c = auto_or_int(self.n_clusters, "n_clusters", min(5, n - 1))
        if c > n - 1:
            raise ValueError(f"n_clusters={c} must be at most n_samples - 1 = {n - 1}.")
        self.n_clusters_ = c
        self.n_neighbors_ = resolve_n_neighbors(self.n_neighbors, n)
        X = centred(X)
        s = power_of_two(float(np.sqrt(np.einsum("ij,ij->", X, X) / X.size)))
        X = X / s
        check_distinct_rows(X, c, "RUFS")  # K-means on fewer distinct points leaves a cluster empty: G'G singular
        L = local_learning_matrix(X, self.n_neighbors_, self.ridge)
        labels = kmeans_labels(X, c, self.random_state)
        W, self.G_, _, self.objective_ = rufs_fit(
            X, L, labels, c, nu=self.nu, alpha=self.alpha, beta=self.beta, max_iter=self.max_iter, tol=self.tol,
            variant=self.variant,
        )
        self.n_iter_ = len(self.objective_)
        W /= s  # the weights of X in its own units
        self.W_ = self._to_full(W, fill=0.0)
        return np.sqrt(row_sq_norms(W))
