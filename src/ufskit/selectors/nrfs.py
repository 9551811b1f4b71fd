"""NRFS, noise-resistant unsupervised feature selection (Huang, Yoo, Yu & Qin, ICDM 2014).

Algorithm 1 of the paper, with its symbols (docs/fidelity/nrfs.md has every choice):

1-3. a similarity matrix W on all n instances (Gaussian, Eq. 1, with the
     adaptive width of Sec. VI-A, or cosine, Eq. 2) on the k = 5 nearest-neighbour
     graph of Sec. VI-A (or on all pairs), L_sym = I - D^-1/2 W D^-1/2 and its c
     eigenvectors of smallest eigenvalue: the global spectra Y (n x c);
4.   the noisy observations (the ``noise_fraction`` most anomalous by FDD) are dropped;
5.   DPS (``dps_levels`` halvings) of the rest; one fold, drawn with
     ``random_state``, gives the p representatives (all of the rest when
     ``sampling=False``, the paper's NRFS-2);
6.   for representative x_i and feature f_j, B_i[:, j] holds x_i's similarity to
     all n instances within the subspace of f_j and its q - 1 nearest features;
     a column of ones (the intercept) completes each layer B_i (n x (m + 1));
7.   A_i = argmin ||B_i A - Y||^2 + ridge ||A||^2 (Eq. 8), |A_i| normalised to unit
     L2 norm over the features for each spectrum (Eq. 9), and the maximum over
     the representatives (Eq. 10) gives the m x c matrix ``coef_``;
8.   h features: h/c per spectrum, never one already chosen; the spectra take
     turns (``round_robin_order``), so the selection for h is the first h of one order.

The cube B is never held whole: representatives are processed in blocks,
each layer solved in the smaller of its n x n (dual, a symmetric BLAS product)
and (m + 1) x (m + 1) (primal) forms, so no m x m system appears when m > n.
Features whose subspaces hold the same features have identical columns in
every B_i: each distinct subspace is computed and regressed once, weighted by
its number of features (``distinct_subspaces``, ``ridge_coefficients``). On
text, the cosine layers' Gram matrices are assembled from terms of the words
in most subspaces, computed once (``nrfs_hubs``).
"""

from __future__ import annotations

import logging
from numbers import Integral, Real

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval, StrOptions

from ..graph import knn_graph, pairwise_sq_dists, sq_dists_from_products
from ..sampling import DPS, FDD
from ..sparse_input import is_sparse, row_sq_norms
from ..spectral import degrees, fix_signs, rbf_affinity
from ..validation import auto_or_int, check_int, shifted_to_minimum
from .base import ScoreSelector
from .constraints import AUTO, POSITIVE, POSITIVE_INT, RANDOM_STATE
from .nrfs_hubs import HubGram
from .progress import Progress
from .ties import snap_round_off

SIMILARITIES = ("gaussian", "cosine")
# working memory of one block of n x m similarity layers (and of the sparse feature-neighbour search)
BLOCK_BYTES = 64 * 2**20
# the dense feature-neighbour search turns each block's products into distances and neighbours in slices of
# this size: recycled by the allocator (below glibc's 32 MB mmap limit) and near the cache, where 64 MB temporaries
# spent more time in fresh pages than the products themselves
NEIGHBOR_BLOCK_BYTES = 4 * 2**20
# the representatives' subspace distances are computed once for the widths and the layers when they fit in this
CACHE_BYTES = 4 * BLOCK_BYTES
# n_neighbors_features="auto" is 1 above this many features: q > 1 needs the distances between all m features
# (2 m^2 n flops; 4e10, over 15x the median selector's time, at n = 50, m = 20,000); the paper's q = 50 is then explicit
AUTO_SUBSPACE_MAX_FEATURES = 10_000
# at or below this fraction of non-zeros (text: ~1 %) the features' dot products come from a sparse product
SPARSE_DENSITY = 0.1

log = logging.getLogger(__name__)


def knn_mean_distance(D2: np.ndarray, k: int, axis: int = -1) -> np.ndarray:
    """Mean Euclidean distance to the k nearest along ``axis``; excluded entries (self) must be +inf."""
    near = np.take(np.partition(D2, k - 1, axis=axis), np.arange(k), axis=axis)
    return np.sqrt(near).mean(axis=axis)


def adaptive_sigma(D2: np.ndarray, n_nearest: int) -> float:
    """Sec. VI-A's width from squared distances: the average distance of each instance to its ``n_nearest``
    nearest others."""
    D2 = D2.copy()
    np.fill_diagonal(D2, np.inf)
    return float(knn_mean_distance(D2, n_nearest).mean())


def cosine_similarity(X: np.ndarray) -> np.ndarray:
    """Eq. 2 on all pairs; an all-zero instance has similarity 0 to everything."""
    if is_sparse(X):
        norms = np.sqrt(row_sq_norms(X))
        scale = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
        Xn = sp.diags(scale) @ X.tocsr().astype(np.float64)
        return (Xn @ Xn.T).toarray()
    norms = np.linalg.norm(X, axis=1)
    Xn = np.divide(X, norms[:, None], out=np.zeros_like(X), where=norms[:, None] > 0)
    return Xn @ Xn.T


def global_similarity(X, D2, similarity: str, sigma: float, n_neighbors) -> np.ndarray:
    """W on the whole feature space: Eq. 1 (width sigma) or Eq. 2, on the symmetric kNN graph or all pairs (None)."""
    if n_neighbors is None:
        return rbf_affinity(D2, sigma) if similarity == "gaussian" else cosine_similarity(X)
    weight = "heat" if similarity == "gaussian" else "cosine"
    return knn_graph(X, n_neighbors=n_neighbors, weight=weight, sigma=sigma, D2=D2).toarray()


def global_spectra(W: np.ndarray, n_spectra: int, trivial: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The ``n_spectra`` smallest eigenpairs of L_sym = I - D^-1/2 W D^-1/2: (eigenvalues ascending, n x c vectors).

    ``trivial=True``: the first one (D^1/2 1, eigenvalue 0) is kept, as in Ng,
    Jordan & Weiss's "first c eigenvectors" that the paper cites for c;
    ``False``: it is skipped and the next c are used (MCFS-style code). Signs are
    fixed by ``ufskit.spectral.fix_signs``, so the output is deterministic.
    """
    n = W.shape[0]
    skip = 0 if trivial else 1
    s = 1.0 / np.sqrt(degrees(W))
    mu, V = scipy.linalg.eigh(s[:, None] * W * s[None, :], subset_by_index=[n - n_spectra - skip, n - 1 - skip])
    order = np.argsort(-mu, kind="stable")
    V = V[:, order]
    return 1.0 - mu[order], fix_signs(V)


def feature_neighbors(X: np.ndarray, q: int) -> np.ndarray:
    """m x q indices: each feature, then its q - 1 nearest other features (Euclidean between columns).

    Nearest first, ties by index. Computed in row blocks so no m x m matrix is
    ever held. On mostly-zero data (text) the columns' dot products come from
    a sparse product (words shared by few documents): 10x faster on the NRFS
    text sets, with the distances of ``pairwise_sq_dists``.
    """
    m = X.shape[1]
    if q == 1:  # each subspace is its feature alone: no distances needed (the feature itself always comes first)
        return np.arange(m, dtype=np.intp)[:, None]
    out = np.empty((m, q), dtype=np.intp)
    for a, D2 in _feature_sq_dists(X):
        rows = np.arange(D2.shape[0])[:, None]
        D2[rows[:, 0], a + rows[:, 0]] = -np.inf  # the feature itself always comes first
        part = np.argpartition(D2, q - 1, axis=1)[:, :q]
        out[a : a + D2.shape[0]] = part[rows, np.lexsort((part, D2[rows, part]), axis=1)]
    return out


def _feature_sq_dists(X):
    """Yield ``(a, D2)``: the squared distances of features a, a + 1, ... to all m features, by row blocks.

    Dense X: ``pairwise_sq_dists`` of each block of BLOCK_BYTES against all
    features, with its shift (the features' common minimum, the same for
    every block) and squared norms computed once, the products written into
    one reused buffer, and the rest done in slices of NEIGHBOR_BLOCK_BYTES,
    so no block allocates fresh memory: the same numbers as one
    ``pairwise_sq_dists`` call per block (the products keep its blocks: BLAS
    may round a row differently in a product of another height): a q = 50
    fit on n = 50, m = 20,000 takes 5.4 s of CPU instead of 9.7
    (docs/performance.md, "Defaults on wide data"). Mostly-zero or sparse
    X: the products from a sparse product.
    """
    m = X.shape[1]
    step = max(1, BLOCK_BYTES // (8 * m))
    if is_sparse(X):  # sparse X: the columns' products and norms all sparse (pairwise_sq_dists)
        F = Fs = X.T.tocsr()
    else:
        F = np.ascontiguousarray(X.T)
        Fs = sp.csr_matrix(F) if np.count_nonzero(F) <= SPARSE_DENSITY * F.size else None
    if Fs is None:
        (F,) = shifted_to_minimum(F)
        sq_norms = np.einsum("ij,ij->i", F, F)
        buffer = np.empty((min(step, m), m))
        piece = max(1, NEIGHBOR_BLOCK_BYTES // (8 * m))
        for a in range(0, m, step):
            rows = F[a : a + step]
            products = np.matmul(rows, F.T, out=buffer[: rows.shape[0]])
            for b in range(0, rows.shape[0], piece):
                part = products[b : b + piece]
                yield a + b, sq_dists_from_products(part, sq_norms[a + b : a + b + part.shape[0]], sq_norms)
        return
    for a in range(0, m, step):
        if Fs is F:
            yield a, pairwise_sq_dists(F[a : a + step], F)
        else:
            yield a, pairwise_sq_dists(F[a : a + step], F, products=(Fs[a : a + step] @ Fs.T).toarray())


def subspace_operator(subspaces: np.ndarray, n_features: int) -> sp.csr_matrix:
    """Sparse S (one row per subspace, ``n_features`` columns) with S[j, t] = 1 when feature t is in subspace j.

    ``S @ V`` sums the rows of V (one per feature) over every subspace.
    """
    r, q = subspaces.shape
    return sp.csr_matrix((np.ones(r * q), (np.repeat(np.arange(r), q), subspaces.ravel())), shape=(r, n_features))


def distinct_subspaces(neighbors: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct feature sets among the subspaces: (sets, r x q sorted; index, m: each feature's set; counts, r).

    Features whose subspaces hold the same features have identical layer rows
    B_i[:, j] for every representative, so each set is computed and regressed
    once (on the NRFS text sets 29 % of the subspaces repeat one of another
    feature: two words present in almost every document are in nearly all).
    """
    sets, index, counts = np.unique(np.sort(neighbors, axis=1), axis=0, return_inverse=True, return_counts=True)
    return sets, index.ravel(), counts


class _LocalSimilarity:
    """The layers of the similarity cube over the distinct subspaces, transposed (B_i' rows, intercept
    excluded), by blocks of instances. Row r stands for the ``counts[r]`` features of ``index == r`` and is
    scaled by ``root[r]`` = sqrt(counts[r]), so that the ridge problem in these rows has the minimiser of the
    problem in all m features, divided by ``root`` (``ridge_coefficients``)."""

    def __init__(self, X, neighbors, similarity, reps, n_nearest):
        # sparse X: the features' rows (XT) and the instances (X_rows) kept sparse, densified a few rows at a time
        self.sparse = is_sparse(X)
        self.XT = X.T.tocsr().astype(np.float64) if self.sparse else np.ascontiguousarray(X.T)
        self.X_rows = X.tocsr() if self.sparse else None
        sets, self.index, counts = distinct_subspaces(neighbors)
        self.root = np.sqrt(counts)
        self.S = subspace_operator(sets, X.shape[1])
        # q = 1: the subspaces are the single features in order, S is the identity and its products are skipped
        self.singletons = sets.shape[1] == 1
        self.similarity = similarity
        self._kept = {}  # the first representative of a block -> its subspace distances (_subspace_sigma)
        if similarity == "gaussian":
            self.sigma = self._subspace_sigma(reps, n_nearest)
        else:
            # r x n: 1 / norm of every instance in every subspace (0 for an all-zero one, whose similarity is 0)
            squares = self.XT.multiply(self.XT) if self.sparse else self.XT**2
            norms = np.sqrt(self.S @ squares)
            norms = norms.toarray() if self.sparse else norms
            self.inv_norms = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
            self.S_columns = self.S.tocsc()  # column slices for the sparse dot products

    def _per_subspace(self, pairs: np.ndarray) -> np.ndarray:
        """m x b x n per-feature terms -> b x r x n sums over each subspace."""
        m, b, n = pairs.shape
        if self.singletons:
            return np.ascontiguousarray(pairs.transpose(1, 0, 2))
        r = self.S.shape[0]
        return np.ascontiguousarray((self.S @ pairs.reshape(m, b * n)).reshape(r, b, n).transpose(1, 0, 2))

    def _sq_dists(self, block):
        """b x r x n squared distances from the instances ``block`` to all n instances, per subspace."""
        if not self.sparse:
            return self._per_subspace((self.XT[:, None, :] - self.XT[:, block, None]) ** 2)
        m, n = self.XT.shape
        out = np.zeros((block.size, self.S.shape[0], n))
        step = max(1, BLOCK_BYTES // (8 * n * block.size))
        S = self.S.tocsc()
        for a in range(0, m, step):  # a slice of the features at a time, dense
            F = self.XT[a : a + step].toarray()
            pairs = (F[:, None, :] - F[:, block, None]) ** 2
            out += (S[:, a : a + step] @ pairs.reshape(F.shape[0], -1)).reshape(-1, block.size, n).transpose(1, 0, 2)
        return out

    def rows(self, features: np.ndarray) -> np.ndarray:
        """The dense rows of X' for ``features`` (each one feature's values on all n instances)."""
        return self.XT[features].toarray() if self.sparse else self.XT[features]

    def instance(self, i: int) -> np.ndarray:
        """x_i on all m features, dense."""
        return self.X_rows[[i]].toarray().ravel() if self.sparse else self.XT[:, i]

    def _subspace_sigma(self, reps, n_nearest):
        """Sec. VI-A's adaptive width per subspace, averaged over the representatives (r,).

        The subspace distances are the layers' too: when all representatives'
        (p r n values) fit in CACHE_BYTES they are kept for ``layers``, which
        then does not compute them again (half of a wide fit's layer work).
        """
        total = np.zeros(self.S.shape[0])
        keep = reps.size * self.S.shape[0] * self.XT.shape[1] * 8 <= CACHE_BYTES
        for block in self.blocks(reps):
            D2 = self._sq_dists(block)
            own = (np.arange(block.size), slice(None), block)
            D2[own] = np.inf  # a representative is not its own neighbour
            total += knn_mean_distance(D2, n_nearest).sum(axis=0)
            if keep:
                D2[own] = 0.0  # its distance to itself: a sum of (x - x)^2 = 0, exactly what _sq_dists gave
                self._kept[int(block[0])] = D2
        return total / reps.size

    def blocks(self, reps):
        m, n = self.XT.shape
        step = max(1, BLOCK_BYTES // (8 * n * m))
        return (reps[a : a + step] for a in range(0, reps.size, step))

    def _subspace_cosines(self, block) -> np.ndarray:
        """b x r x n cosines of x_i and x_l within each subspace. Only the features where x_i is
        non-zero contribute to the dot products, so on text (about 1 % non-zero) this touches a few
        columns of S instead of all m (4-5x faster per representative on 20NewsgroupA)."""
        out = np.empty((block.size,) + self.inv_norms.shape)
        for r, i in enumerate(block):
            x = self.instance(i)
            used = np.flatnonzero(x)
            out[r] = self.S_columns[:, used] @ (self.rows(used) * x[used, None])
            out[r] *= self.inv_norms
            out[r] *= (self.inv_norms[:, i] * self.root)[:, None]
        return out

    def layers(self, block) -> np.ndarray:
        """b x r x n: entry [i, j, l] = similarity of x_i and x_l on subspace j, times root[j]."""
        if self.similarity == "cosine":
            return self._subspace_cosines(block)
        D2 = self._kept.pop(int(block[0]), None)
        D2 = self._sq_dists(block) if D2 is None else D2
        flat = self.sigma == 0  # the representatives' neighbours coincide with them: the sigma -> 0 limit
        coincide = D2[:, flat, :] == 0
        B = np.negative(D2, out=D2)  # in place: the same operations as exp(-D2 / (2 sigma^2)), no temporaries
        B /= 2.0 * np.where(flat, 1.0, self.sigma)[:, None] ** 2
        np.exp(B, out=B)
        B[:, flat, :] = coincide
        B *= self.root[:, None]
        return B


def ridge_coefficients(Bt: np.ndarray, Y: np.ndarray, ridge: float) -> np.ndarray:
    """Eq. 8 for a stack of transposed layers Bt (b x m x n): argmin_A ||[B_i 1] A - Y||^2 + ridge ||A||^2.

    Returns the feature rows of every A_i (b x m x c). The intercept column is
    penalised like the others (it is a column of the paper's B_i). Solved in
    the dual n x n form A = [B 1]' ([B 1][B 1]' + ridge I)^-1 Y when m + 1 > n,
    one layer at a time so the Gram matrix is a symmetric product (BLAS syrk,
    half the work of a general one) solved by Cholesky, else in the primal
    (m + 1) x (m + 1) form; both give the same minimiser.

    k identical columns of B_i get equal coefficients (the problem is strictly
    convex and symmetric in them), so they can be replaced by one column scaled
    by sqrt(k): its coefficient is sqrt(k) times theirs.
    """
    b, m, n = Bt.shape
    if m + 1 > n:
        A = np.empty((b, m, Y.shape[1]))
        for r in range(b):
            G = Bt[r].T @ Bt[r]
            G += 1.0
            G[np.arange(n), np.arange(n)] += ridge
            A[r] = Bt[r] @ scipy.linalg.cho_solve(scipy.linalg.cho_factor(G, check_finite=False), Y, check_finite=False)
        return A
    Bt1 = np.concatenate([Bt, np.ones((b, 1, n))], axis=1)
    G = Bt1 @ Bt1.transpose(0, 2, 1)
    G[:, np.arange(m + 1), np.arange(m + 1)] += ridge
    return np.linalg.solve(G, Bt1 @ Y)[:, :m, :]


def normalized_abs(A: np.ndarray) -> np.ndarray:
    """Eq. 9: |A| with unit L2 norm over the features (axis 1) for each layer and spectrum."""
    A = np.abs(A)
    norms = np.sqrt(np.einsum("bmc,bmc->bc", A, A))[:, None, :]
    return np.divide(A, norms, out=np.zeros_like(A), where=norms > 0)


def round_robin_order(coef: np.ndarray) -> np.ndarray:
    """Sec. III-C step 3 as one nested order: the spectra take turns, each its best feature still free.

    Turn t belongs to spectrum t mod c, which takes the feature of largest
    coef[:, k] not chosen before (the paper zeroes chosen features). The first
    h of the order give every spectrum its paper's quota, h // c features and
    one more for the first h mod c spectra, so every prefix is a selection
    with the paper's per-spectrum counts, and the selection for h is a subset
    of the one for h + 1. Ties, round-off apart included (``ties.snap_round_off``:
    words of identical patterns), go to the lower feature index. Returns all m
    indices, best first.
    """
    m, c = coef.shape
    snapped = np.column_stack([snap_round_off(coef[:, k]) for k in range(c)]) if m else coef
    ranked = np.argsort(-snapped, axis=0, kind="stable").T  # c x m: each spectrum's features, best first
    taken = np.zeros(m, dtype=bool)
    cursor = np.zeros(c, dtype=np.intp)
    order = np.empty(m, dtype=np.intp)
    for t in range(m):  # amortised O(m c): each spectrum's cursor only moves forward
        k = t % c
        while taken[ranked[k, cursor[k]]]:
            cursor[k] += 1
        order[t] = ranked[k, cursor[k]]
        taken[order[t]] = True
    return order


class NRFS(ScoreSelector):
    """Noise-resistant feature selection via multi-perspective correlations.

    Parameters (paper symbol in brackets; defaults from Sec. VI-A where it has one)
    ----------
    n_clusters : int or "auto", default "auto"
        [c] number of global spectra; the paper sets it to the number of
        clusters. "auto": min(5, n - 1).
    n_neighbors_features : int or "auto", default "auto"
        [q] size of each local feature subspace, the feature itself included.
        "auto": min(50, max(1, m // 40)), resolved at fit: the paper's q = 50
        (Sec. VI-A) on its microarrays and texts (m >= 2000) and q = 1 on its
        synthetic data (m = 34). A q near m gives every feature nearly the
        whole space as its subspace, so all layers coincide and the ranking
        degrades to column order (the old "auto", min(50, m), did that for
        m <= 50). Above ``AUTO_SUBSPACE_MAX_FEATURES`` (10,000) features
        "auto" is 1 (Sec. V-A's single-feature subspaces): any q > 1 needs
        the distances between all m features, 2 m^2 n flops, which on
        n = 50, m = 20,000 made a default fit over 15x the median selector's time
        (0.9 s of CPU with q = 1; docs/performance.md, "Defaults on wide
        data"). Set 50 for the paper's subspaces there; the workflow's
        NRFS experiments set q explicitly.
    n_neighbors : int, None or "auto", default "auto"
        [k] W keeps the edges of the symmetric k-nearest-neighbour graph
        (Sec. VI-A: k = 5 for kNN-based similarities); None = all pairs;
        "auto": min(5, n - 1).
    similarity : "gaussian" (microarrays) or "cosine" (text)
        [Eq. 1 / Eq. 2] for W and for the layers B_i.
    noise_fraction : float, default 0.1
        share of the instances dropped as noisy by FDD (Sec. IV-A); 0 keeps all.
    sampling : bool, default True
        True: one DPS fold as representatives (NRFS-1); False: every kept instance (NRFS-2).
    dps_levels : int or "auto", default "auto"
        DPS halvings, 2 ** dps_levels folds [p ~ 0.9 n / 4]. "auto": 2, or
        fewer when fewer than 4 instances are kept (each fold needs one).
    ridge : float, default 1e-3
        [lambda] of Eq. 8 (the paper gives no value).
    fold : int or None, default None
        the DPS fold used as representatives, 0 <= fold < 2 ** dps_levels;
        None draws it with ``random_state``. The averages over the paper's 30
        random runs are averages over the folds, so a fixed fold per run needs
        2 ** dps_levels fits instead of 30 (the draw is the only random step).
    random_state : int, Generator or None
        draws which DPS fold is used when ``fold`` is None.
    trivial_spectrum : bool, default True
        True: the c global spectra are L_sym's first c eigenvectors, the
        constant-like D^1/2 1 included (the paper's "first c eigenvectors");
        False: it is skipped for the next c (as MCFS-style code does; needs
        c <= n - 2). The reading ``nrfs_no_trivial_spectrum`` of the scorecard.
    target : array-like of shape (n_samples, c) or None, default None
        the regression target Y of Eq. 8 in place of the global spectra
        (which are still computed into ``embedding_``); None (the paper) uses
        the spectra. A diagnostic hook: with the cluster indicators it shows
        what the local regressions pick when the target knows the clusters.

    Attributes: ``coef_`` (m x c, Eq. 10), ``embedding_`` and ``eigenvalues_``
    (Y and its L_sym eigenvalues), ``sigma_`` (the adaptive width on all
    features), ``noisy_`` (dropped instances, most anomalous first),
    ``representatives_``, ``fold_`` (the DPS fold used, or None),
    ``feature_neighbors_`` (m x q, feature indices of X), and the resolved
    ``n_clusters_``, ``n_neighbors_features_``, ``n_neighbors_`` and
    ``dps_levels_``.

    Step 8 as a ranking: ``ranking_`` is ``round_robin_order(coef_)``, the
    spectra taking turns, so the first h features give every spectrum the
    paper's quota (h / c, the first h mod c spectra one more) for every h,
    and ``get_support``/``transform`` and the workflow's count h all use
    those same first h features (docs/fidelity/nrfs.md, "Step 8").
    ``scores_`` = m - (position in that order).

    Cost (n instances, m features, p representatives, c spectra, r <= m
    distinct subspaces): FDD's full eigendecomposition of an n x n matrix
    (about 9 n^3 flops, when ``noise_fraction`` > 0) and the c global
    spectra (about 4/3 n^3); for q > 1 the distances between all features
    (2 m^2 n flops and a selection over m per feature); per representative
    one n x r layer and its ridge solve (2 n r^2 flops in the primal form,
    r + 1 <= n, else n^2 r in the dual). On digits (n = 1797, m = 61, q = 1,
    p = 405) that is about 5e10 flops in the two eigenproblems and 6e9 in the
    regressions; on n = 50, d = 20,000 (q = 50, explicit: "auto" is 1 there) 4e10 flops in the feature
    distances, the rest below 1e9, where a Laplacian score needs about 1e8:
    the paper's construction, not an accident of this code
    (benchmarks/nrfs_speed.py measures it; docs/performance.md). Its
    BLAS and LAPACK run on one thread (``ufskit.blas``): with two threads on
    busy shared cores the eigenproblems and the hundreds of per-representative
    solves stalled (90 s instead of 18 s on digits), and the workflow's jobs
    run on one thread too, so the numbers are the workflow's. A fit longer
    than ``progress.PROGRESS_SECONDS`` logs its progress (INFO, logger
    ``ufskit.selectors.nrfs``). Sparse X (CSR/CSC) is accepted: distances,
    graphs, FDD, DPS and the feature neighbours come from sparse products and
    the layers from a few dense rows of X' at a time; the layers themselves
    are dense (n x r per representative), as the paper defines them.
    """

    _parameter_constraints: dict = {
        **ScoreSelector._parameter_constraints, "n_clusters": [AUTO, POSITIVE_INT],
        "n_neighbors": [None, AUTO, POSITIVE_INT], "n_neighbors_features": [AUTO, POSITIVE_INT],
        "similarity": [StrOptions(set(SIMILARITIES))],
        "noise_fraction": [Interval(Real, 0, 1, closed="left")], "ridge": [POSITIVE],
        "sampling": ["boolean"], "dps_levels": [AUTO, POSITIVE_INT],
        "fold": [None, Interval(Integral, 0, None, closed="left")], "trivial_spectrum": ["boolean"],
        "target": [None, "array-like"], "random_state": RANDOM_STATE,
    }
    accepts_sparse = True

    # hundreds of LAPACK/BLAS calls: one thread, as the workflow's jobs run (ufskit.blas; on shared cores a
    # two-thread BLAS made a digits fit 90 s instead of 18 s), so the library's numbers are the workflow's
    single_threaded = True

    def __init__(
        self,
        n_features_to_select=None,
        n_clusters="auto",
        n_neighbors_features="auto",
        n_neighbors="auto",
        similarity="gaussian",
        noise_fraction=0.1,
        sampling=True,
        dps_levels="auto",
        ridge=1e-3,
        fold=None,
        random_state=None,
        trivial_spectrum=True,
        target=None,
    ):
        self.n_features_to_select = n_features_to_select
        self.n_clusters = n_clusters
        self.n_neighbors_features = n_neighbors_features
        self.n_neighbors = n_neighbors
        self.similarity = similarity
        self.noise_fraction = noise_fraction
        self.sampling = sampling
        self.dps_levels = dps_levels
        self.ridge = ridge
        self.fold = fold
        self.random_state = random_state
        self.trivial_spectrum = trivial_spectrum
        self.target = target

    def _check_params(self, n: int, m: int) -> tuple[float, float]:
        """Validate the parameters, resolve the "auto" ones into ``*_`` attributes; returns (noise, ridge)."""
        self.n_clusters_ = auto_or_int(self.n_clusters, "n_clusters", min(5, n - 1))
        if self.n_clusters_ > n - 1:
            raise ValueError(f"n_clusters={self.n_clusters_} must be below n_samples={n}.")
        auto_q = min(50, max(1, m // 40)) if m <= AUTO_SUBSPACE_MAX_FEATURES else 1
        self.n_neighbors_features_ = auto_or_int(self.n_neighbors_features, "n_neighbors_features", auto_q)
        if self.n_neighbors_features_ > m:
            raise ValueError(f"n_neighbors_features={self.n_neighbors_features_} exceeds the number of features ({m}).")
        noise, ridge = self.noise_fraction, self.ridge  # their values are checked by the constraints (fit)
        if not self.trivial_spectrum and self.n_clusters_ > n - 2:
            raise ValueError(f"n_clusters={self.n_clusters_} must be below n_samples - 1 = {n - 1} "
                             "when trivial_spectrum=False (the first eigenvector is skipped).")
        self.n_neighbors_ = None if self.n_neighbors is None else auto_or_int(self.n_neighbors, "n_neighbors", min(5, n - 1))
        if self.n_neighbors_ is not None and self.n_neighbors_ > n - 1:
            raise ValueError(f"n_neighbors={self.n_neighbors_} must be below n_samples={n} (or None for all pairs).")
        n_kept = n - round(noise * n)
        self.dps_levels_ = auto_or_int(self.dps_levels, "dps_levels", min(2, int(np.log2(n_kept))))
        return float(noise), float(ridge)

    def _target(self, n: int) -> np.ndarray:
        """Eq. 8's Y: the global spectra, or ``target`` checked to be n x c finite values."""
        if self.target is None:
            return self.embedding_
        Y = np.asarray(self.target, dtype=np.float64)
        if Y.shape != (n, self.n_clusters_) or not np.isfinite(Y).all():
            raise ValueError(f"target must be finite of shape (n_samples, n_clusters) = ({n}, {self.n_clusters_}), "
                             f"got shape {Y.shape}.")
        return Y

    def _representatives(self, X, D2: np.ndarray, noise: float) -> np.ndarray:
        """Steps 4-5: drop the most anomalous instances (FDD on the squared distances D2 of X), then keep one
        DPS fold of the rest."""
        n = X.shape[0]
        n_noisy = round(noise * n)
        self.noisy_ = np.empty(0, dtype=np.intp)
        if n_noisy:
            # as many fermions as instances to drop, on the kernel of the adaptive width
            fdd = FDD(n_particles=min(n_noisy, n - 1), sigma=self.sigma_).fit_sq_dists(D2)
            self.noisy_ = fdd.outliers(noise)
        kept = np.setdiff1d(np.arange(n), self.noisy_)
        self.fold_ = None
        if not self.sampling:
            return kept
        dps = DPS(levels=self.dps_levels_).fit_sq_dists(pairwise_sq_dists(X[kept]))
        if self.fold is None:
            self.fold_ = int(np.random.default_rng(self.random_state).integers(dps.n_folds_))
        else:
            self.fold_ = check_int(self.fold, "fold", low=0, high=dps.n_folds_ - 1)
        return kept[dps.subset(self.fold_)]

    def _score(self, X):
        n, m = X.shape
        progress = Progress(log, "NRFS")
        noise, ridge = self._check_params(n, m)
        c = self.n_clusters_
        n_nearest = min(max(1, round(n / c)), n - 1)  # K^ = round(n / c), the average cluster size
        D2 = pairwise_sq_dists(X)
        self.sigma_ = adaptive_sigma(D2, n_nearest)
        if self.sigma_ == 0:
            raise ValueError("the instances coincide with their nearest neighbours: the adaptive width is 0.")
        W = global_similarity(X, D2, self.similarity, self.sigma_, self.n_neighbors_)
        self.eigenvalues_, self.embedding_ = global_spectra(W, c, bool(self.trivial_spectrum))
        Y = self._target(n)
        progress.step("global spectra of %d instances done", n)
        self.representatives_ = self._representatives(X, D2, noise)
        progress.step("%d representatives chosen", self.representatives_.size)
        neighbors = feature_neighbors(X, self.n_neighbors_features_)
        progress.step("the %d nearest features of each of %d found", self.n_neighbors_features_, m)
        cube = _LocalSimilarity(X, neighbors, self.similarity, self.representatives_, n_nearest)
        done = 0
        coef = np.zeros((m, c))
        # cosine layers in the dual form: each system from the shared words' precomputed Gram terms (nrfs_hubs)
        hubs = HubGram(cube) if self.similarity == "cosine" and cube.S.shape[0] + 1 > n else None
        for block in cube.blocks(self.representatives_):
            if hubs is None:
                A = ridge_coefficients(cube.layers(block), Y, ridge)
            else:
                A = np.stack([hubs.coefficients(i, Y, ridge) for i in block])
            A /= cube.root[:, None]
            np.maximum(coef, normalized_abs(A[:, cube.index]).max(axis=0), out=coef)
            done += block.size
            progress.step("%d of %d representatives' regressions solved", done, self.representatives_.size)
        self.coef_ = self._to_full(coef, fill=0.0)
        self.feature_neighbors_ = self._to_full(self._scored[neighbors], fill=-1)
        scores = np.empty(m)
        scores[round_robin_order(coef)] = m - np.arange(m)
        return scores
