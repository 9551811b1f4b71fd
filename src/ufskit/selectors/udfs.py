"""UDFS, unsupervised discriminative feature selection (Yang, Shen, Ma, Huang & Zhou, IJCAI 2011).

Problem (rows of X are samples, W is d x c):

    min_{W'W = I}  Tr(W' M W) + gamma ||W||_{2,1},   M = X' L X,
    L = sum_i S_i H B_i H S_i',   B_i = (X~_i X~_i' + lam I)^-1,

where X_i holds sample i and its k nearest neighbours (k + 1 rows), S_i
selects those rows, H = I - 11'/(k+1) centres them and X~_i = H X_i. It is
solved by reweighting: W = the c eigenvectors of M + gamma G with the
smallest eigenvalues, G = diag(1 / (2 ||w_i||)) from the previous W,
starting from G = I. Features are ranked by ||w_i||.

Symbols of the kernel-UDFS paper (Section 2 there): its lambda is ``lam``
(the local ridge inside B_i), its gamma is ``gamma`` (the l2,1 weight).

Three exact solvers: the d x d one (``DenseSpectrum``, LAPACK on M + gamma G)
when d <= n; its variant ``ShiftInvertSpectrum`` (a Cholesky factor of
M + gamma G - sigma I and shift-invert Lanczos: a third of LAPACK's
tridiagonal reduction, about 2x faster from d ~ 512 on; SOGFS uses it);
and for d > n ``LowRankSpectrum``, which writes M = U U' with
U = X' L^1/2 (d x n) and finds the c smallest eigenpairs of the diagonal
plus low-rank matrix gamma G + U U' by shift-invert Lanczos, the inverse
applied through the Woodbury identity (O(nd) per product, no d x d matrix).
"""

from __future__ import annotations

import logging

import numpy as np
import scipy.linalg
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..blas import single_threaded_blas
from ..graph import knn_indices, pairwise_sq_dists
from ..lanczos import checked_eigsh
from ..sparse_regression import EPS, has_converged, l21_norm, reweight, row_sq_norms
from ..validation import auto_or_int, centred, check_int, check_positive
from .base import ScoreSelector
from .constraints import AUTO, POSITIVE, POSITIVE_INT
from .progress import Progress

# the shift-invert pole sits this fraction below the smallest diagonal entry of M + gamma G
SHIFT_MARGIN = 1e-3
# ShiftInvertSpectrum hands matrices smaller than this to LAPACK: below it ARPACK's ~20 reverse-communication
# steps cost more than the tridiagonal reduction they save (crossover measured on COIL20's M: d = 256 eigh 3 ms,
# Lanczos 4 ms; d = 512 eigh 14-19 ms, Lanczos 11-16 ms; d = 1024 eigh 94 ms, Lanczos 42 ms, one thread)
SHIFT_INVERT_MIN_DIM = 512
# ARPACK's restarts per shift-invert eigenproblem before the exact LAPACK answer is taken instead: a call needs 1
# to 7 (21 to 119 products on 20NewsgroupB's SOGFS); at tol = 0 a near-degenerate spectrum can keep it from ever
# converging (20NewsgroupA's SOGFS spent over 20 min in one call under ARPACK's own limit of 10 d restarts)
ARPACK_MAX_RESTARTS = 300
# LowRankSpectrum's exact fallback forms the d x d matrix: refused above this d (8 bytes x d^2: 3.2 GB)
DENSE_FALLBACK_MAX_DIM = 20_000
# lam = "auto": Yang's lambda = 1e3 for data of unit mean square (z-scored), scaled with X's square
LAM_ON_UNIT_SCALE = 1e3

logger = logging.getLogger(__name__)


def local_discriminative_laplacian(X: np.ndarray, n_neighbors: int, lam: float) -> sp.csr_matrix:
    """L = sum_i S_i H B_i H S_i' (n x n, sparse, symmetric positive semidefinite) for the samples X."""
    return laplacian_from_sq_dists(pairwise_sq_dists(X), n_neighbors, lam)


def laplacian_from_sq_dists(D2: np.ndarray, n_neighbors: int, lam: float) -> sp.csr_matrix:
    """UDFS's L from squared distances; kernel distances give the kernel version.

    Each sample's neighbourhood is itself plus its k nearest other samples.
    All n local problems are solved as one batch: the centred local Gram
    matrices X~_i X~_i' come from the squared distances within each
    neighbourhood (H K_i H = -1/2 H D2_i H), are inverted together, and the
    (k+1) x (k+1) blocks H B_i H are summed into L by one sparse COO sum.
    """
    n = D2.shape[0]
    hood = np.column_stack([np.arange(n), knn_indices(D2, n_neighbors)])  # n x (k+1)
    m = hood.shape[1]
    H = np.eye(m) - 1.0 / m
    local_gram = -0.5 * (H @ D2[hood[:, :, None], hood[:, None, :]] @ H)
    try:
        blocks = H @ np.linalg.inv(local_gram + lam * np.eye(m)) @ H
    except np.linalg.LinAlgError:
        raise ValueError(
            f"lam={lam:g} is below rounding against the local Gram matrices (largest entry "
            f"{np.abs(local_gram).max():.3g}): the local problems are singular; scale lam with X's squared magnitude."
        ) from None
    rows = np.broadcast_to(hood[:, :, None], blocks.shape).ravel()
    cols = np.broadcast_to(hood[:, None, :], blocks.shape).ravel()
    L = sp.coo_matrix((blocks.ravel(), (rows, cols)), shape=(n, n)).tocsr()
    return (L + L.T) * 0.5


def _zero_tolerance(values: np.ndarray, d: int) -> float:
    """Eigenvalues of a d x d matrix within this of each other are tied (numpy's matrix_rank rule)."""
    return d * EPS * max(np.abs(values).max(), np.finfo(np.float64).tiny)


def _start_row_norms(values, vectors, n_clusters, null_rows=None, null_count=0):
    """Squared row norms of the c smallest eigenvectors of M (the G = I step, since M + gamma I shares them).

    ``values`` / ``vectors`` are eigenpairs of M; optionally a further
    eigenvalue 0 of multiplicity ``null_count`` whose eigenspace projector has
    diagonal ``null_rows``. When the c-th smallest eigenvalue is tied (M is
    rank-deficient whenever d > n, so G = I leaves any c of its null vectors
    equally optimal), the tied eigenspace contributes its projector diagonal
    scaled by (number still needed) / (its dimension): the mean row norms over
    all choices, independent of the basis LAPACK happens to return.
    """
    vals = np.concatenate([np.zeros(1 if null_count else 0), values])
    counts = np.concatenate([np.full(1 if null_count else 0, null_count), np.ones(values.size)])
    order = np.argsort(vals, kind="stable")
    boundary = vals[order][np.searchsorted(np.cumsum(counts[order]), n_clusters)]
    tol = _zero_tolerance(vals, vectors.shape[0])
    below, tied = vals < boundary - tol, np.abs(vals - boundary) <= tol
    contrib = vectors**2
    if null_count:
        contrib = np.column_stack([null_rows, contrib])
    share = (n_clusters - counts[below].sum()) / counts[tied].sum()
    return contrib[:, below].sum(axis=1) + share * contrib[:, tied].sum(axis=1)


def robust_eigh(A: np.ndarray, n_smallest: int | None = None):
    """Eigenpairs of symmetric A (the ``n_smallest`` lowest, or all), ascending.

    LAPACK's MRRR driver (syevr, scipy's default) can stop with "Internal Error"
    on matrices with tightly clustered eigenvalues, as near-diagonal kernel
    matrices give; divide and conquer (syevd) is then used on the whole matrix.
    """
    subset = None if n_smallest is None else [0, n_smallest - 1]
    try:
        return scipy.linalg.eigh(A, subset_by_index=subset)
    except np.linalg.LinAlgError:
        values, vectors = scipy.linalg.eigh(A, driver="evd")
        return (values, vectors) if n_smallest is None else (values[:n_smallest], vectors[:, :n_smallest])


class DenseSpectrum:
    """M as a d x d matrix; eigenpairs of M + gamma G by LAPACK (exact, O(d^3) per iteration)."""

    def __init__(self, M: np.ndarray):
        self.M = (M + M.T) * 0.5

    def start_row_norms(self, n_clusters: int) -> np.ndarray:
        values, vectors = robust_eigh(self.M)
        return _start_row_norms(values, vectors, n_clusters)

    def smallest(self, shift: np.ndarray, n_clusters: int) -> np.ndarray:
        """The c eigenvectors of M + diag(shift) with the smallest eigenvalues."""
        A = self.M.copy()
        A[np.diag_indices_from(A)] += shift
        return robust_eigh(A, n_clusters)[1]

    def quadratic(self, W: np.ndarray) -> float:
        return float(np.einsum("ij,ij->", W, self.M @ W))


def smallest_by_shift_invert(product, apply_inverse, sigma: float, d: int, n_clusters: int, only_these_below,
                             exact):
    """The c eigenvectors with the smallest eigenvalues of the symmetric d x d operator A (``product``: v -> Av),
    all above sigma, by Lanczos on (A - sigma I)^-1 (``apply_inverse``), ascending.

    Near sigma the largest eigenvalues of the inverse are well separated, so ARPACK needs few products. The
    start is ``ufskit.lanczos``'s fixed random vector and the answer is checked there:
    ``only_these_below(mu, values, vectors)`` (all Ritz pairs) says whether A has no eigenvalue below mu (just
    under the c-th Ritz value) besides the Ritz values there. When it has, or ARPACK has not converged after
    ``ARPACK_MAX_RESTARTS`` restarts, ``exact()`` (LAPACK on the d x d matrix) answers. Eigenvalues tied with
    the c-th leave W free within their eigenspace; any basis found is as optimal as another.
    """
    A = spla.LinearOperator((d, d), matvec=lambda v: product(v.ravel()), dtype=np.float64)
    Ainv = spla.LinearOperator((d, d), matvec=lambda v: apply_inverse(v.ravel()), dtype=np.float64)
    pairs = checked_eigsh(A, n_clusters, largest=False, check=only_these_below, logger=logger,
                          what="shift-invert Lanczos", sigma=sigma, OPinv=Ainv, which="LM", tol=0.0,
                          maxiter=ARPACK_MAX_RESTARTS)
    return exact() if pairs is None else pairs[1]


class ShiftInvertSpectrum(DenseSpectrum):
    """M as a d x d matrix; eigenpairs of M + diag(shift) by a Cholesky factor and shift-invert Lanczos.

    M is semidefinite, so every eigenvalue of A = M + diag(shift) is >= min(shift) and A - sigma I with
    sigma just below min(shift) is positive definite: one Cholesky factor (d^3 / 3 flops against LAPACK's
    4 d^3 / 3 for the tridiagonal reduction) and two triangular solves per Lanczos step. The eigenvectors
    agree with LAPACK's to rounding (both are backward stable on A). Below ``SHIFT_INVERT_MIN_DIM``, for
    c >= d - 1 (beyond ARPACK) or when rounding makes M + diag(shift - sigma) indefinite, LAPACK decides.
    """

    def smallest(self, shift: np.ndarray, n_clusters: int) -> np.ndarray:
        d = shift.size
        if d < SHIFT_INVERT_MIN_DIM or n_clusters >= d - 1:
            return super().smallest(shift, n_clusters)
        sigma = (1.0 - SHIFT_MARGIN) * shift.min()
        B = self.M.copy()
        B[np.diag_indices_from(B)] += shift - sigma
        try:
            factor = scipy.linalg.cho_factor(B, lower=True, check_finite=False)
        except np.linalg.LinAlgError:
            return super().smallest(shift, n_clusters)

        def only_these_below(mu, values, vectors):
            """A - mu I with the found eigenvalues moved above mu is positive definite iff none other is below."""
            below = values < mu
            C = B + (vectors[:, below] * (2.0 * (mu - values[below]))) @ vectors[:, below].T
            C[np.diag_indices_from(C)] += sigma - mu
            try:
                scipy.linalg.cholesky(C, lower=True, overwrite_a=True, check_finite=False)
            except np.linalg.LinAlgError:
                return False
            return True

        return smallest_by_shift_invert(
            lambda v: self.M @ v + shift * v, lambda v: scipy.linalg.cho_solve(factor, v, check_finite=False),
            sigma, d, n_clusters, only_these_below, exact=lambda: super(ShiftInvertSpectrum, self).smallest(shift, n_clusters))


class LowRankSpectrum:
    """M = U U' with U d x r (r <= n); eigenpairs of diag(shift) + U U' without any d x d matrix."""

    def __init__(self, U: np.ndarray):
        self.U = U

    def start_row_norms(self, n_clusters: int) -> np.ndarray:
        d = self.U.shape[0]
        s2, Q = scipy.linalg.eigh(self.U.T @ self.U)
        keep = s2 > _zero_tolerance(s2, d)
        Y = self.U @ (Q[:, keep] / np.sqrt(s2[keep]))  # orthonormal eigenvectors of M, eigenvalues s2
        null_rows = np.clip(1.0 - row_sq_norms(Y), 0.0, 1.0)
        return _start_row_norms(s2[keep], Y, n_clusters, null_rows=null_rows, null_count=d - int(keep.sum()))

    def smallest(self, shift: np.ndarray, n_clusters: int) -> np.ndarray:
        """The c smallest eigenvectors of A = diag(shift) + U U' (shift > 0) by shift-invert Lanczos.

        Every eigenvalue of A is >= min(shift) (U U' is semidefinite), so with
        sigma just below min(shift) the matrix A - sigma I = S + U U',
        S = diag(shift - sigma) > 0, stays positive definite and its inverse is
        S^-1 - S^-1 U (I + U' S^-1 U)^-1 U' S^-1 (Woodbury): one r x r Cholesky
        factor, then O(d r) per product. The smallest eigenvalues of A are the
        largest of (A - sigma I)^-1, and the shift spreads them apart. The
        check costs O(d r^2): A - mu I has as many negative eigenvalues
        as diag(shift) - mu I, less those of I + U' (diag(shift) - mu I)^-1 U
        (the two Schur complements of [[diag(shift) - mu I, U], [U', -I]]).
        """
        U = self.U
        sigma = (1.0 - SHIFT_MARGIN) * shift.min()
        inv_diag = 1.0 / (shift - sigma)
        core = U.T @ (inv_diag[:, None] * U)
        core[np.diag_indices_from(core)] += 1.0
        factor = scipy.linalg.cho_factor(core, lower=True, check_finite=False)

        def apply_inverse(v):
            v = inv_diag * v
            return v - inv_diag * (U @ scipy.linalg.cho_solve(factor, U.T @ v, check_finite=False))

        def only_these_below(mu, values, vectors):
            """Sylvester's count of A's eigenvalues below mu equals the Ritz values found there."""
            gaps = shift - mu
            if not gaps.all():
                return only_these_below(np.nextafter(mu, -np.inf), values, vectors)
            core = U.T @ (U / gaps[:, None])
            core[np.diag_indices_from(core)] += 1.0
            return int((gaps < 0).sum()) - int((np.linalg.eigvalsh(core) < 0).sum()) == int((values < mu).sum())

        return smallest_by_shift_invert(lambda v: shift * v + U @ (U.T @ v), apply_inverse, sigma, shift.size,
                                        n_clusters, only_these_below, exact=lambda: self._dense_smallest(shift, n_clusters))

    def _dense_smallest(self, shift: np.ndarray, n_clusters: int) -> np.ndarray:
        """The exact answer by LAPACK on diag(shift) + U U', formed (d x d); refused above DENSE_FALLBACK_MAX_DIM."""
        d = shift.size
        if d > DENSE_FALLBACK_MAX_DIM:
            raise RuntimeError(f"the shift-invert Lanczos did not converge in {ARPACK_MAX_RESTARTS} restarts, and "
                               f"its exact fallback would form a {d} x {d} matrix (limit {DENSE_FALLBACK_MAX_DIM}).")
        A = self.U @ self.U.T
        A[np.diag_indices_from(A)] += shift
        return robust_eigh(A, n_clusters)[1]

    def quadratic(self, W: np.ndarray) -> float:
        UW = self.U.T @ W
        return float(np.einsum("ij,ij->", UW, UW))


def spectrum_of(X: np.ndarray, L, *, low_rank: bool | None = None, shift_invert: bool = False):
    """M = X'LX as a ``DenseSpectrum`` (d <= n; a ``ShiftInvertSpectrum`` if ``shift_invert``) or a
    ``LowRankSpectrum`` (d > n); ``low_rank`` forces one."""
    n, d = X.shape
    if not (d > n if low_rank is None else low_rank):
        return (ShiftInvertSpectrum if shift_invert else DenseSpectrum)(X.T @ (L @ X))
    values, V = scipy.linalg.eigh(L.toarray())
    return LowRankSpectrum(X.T @ (V * np.sqrt(np.clip(values, 0.0, None))))


def udfs_iterations(spectrum, n_clusters: int, gamma: float, max_iter: int, tol: float, progress=None):
    """The reweighted eigen-iteration; returns (W, objective per iteration).

    The start G = I yields only the first weights (see ``_start_row_norms``);
    then each iteration takes W = the c smallest eigenvectors of
    M + gamma G and records Tr(W'MW) + gamma sum_i sqrt(||w_i||^2 + eps),
    which does not increase (Nie et al. 2010). ``progress`` (a
    ``progress.Progress`` or None) hears of every iteration.
    """
    sq = spectrum.start_row_norms(n_clusters)
    objective: list[float] = []
    for _ in range(max_iter):
        W = spectrum.smallest(gamma * reweight(sq), n_clusters)
        sq = row_sq_norms(W)
        objective.append(spectrum.quadratic(W) + gamma * l21_norm(W))
        if progress is not None:
            progress.step("reweighting %d of at most %d, objective %.6g", len(objective), max_iter, objective[-1])
        if has_converged(objective, tol):
            break
    return W, objective


class UDFS(ScoreSelector):
    """UDFS feature ranking: features with the largest rows of the orthonormal W first.

    Parameters: ``n_clusters`` (c, the columns of W; the number of classes in
    the papers; "auto" = min(5, d, n - 1); at most n - 1), ``n_neighbors`` (k; each local problem
    has k + 1 samples; "auto" = min(5, n - 1)), ``lam`` (the local ridge
    lambda of B_i; 1e3 in the kernel-UDFS paper and Yang's code; "auto" =
    1e3 x the mean square of X, i.e. 1e3 on z-scored data, and scaled with
    X so that UDFS(s X) = UDFS(X)), ``gamma``
    (the l2,1 weight; 1e-3 as in the kernel-UDFS paper: with gamma = 1 the
    reweighting leaves only about c non-zero rows on microarrays, so the
    ranking past the first c is index order, docs/fidelity/baselines-ndfs-udfs.md),
    ``max_iter`` and ``tol`` (stop when the objective changes by less than
    tol relative).

    Attributes: ``scores_`` = ||w_i||, ``W_`` (d x c, orthonormal columns),
    ``objective_`` (one value per iteration, non-increasing up to rounding),
    ``n_iter_``, and the resolved ``n_clusters_``, ``n_neighbors_`` and ``lam_``.
    Scaling X by s leaves the result unchanged when lam is scaled by s^2 (M
    depends on X and lam only through X / sqrt(lam)). Shifting a column changes
    nothing (L 1 = 0; X is centred first). Scaling one column is not neutral:
    a small column's axis is nearly a null direction of M and wins, so
    a ``ScaleWarning`` when standardising the columns changes the head of
    its ranking (``ScoreSelector``'s scale check).
    On n = 50, d = 20,000 a default fit takes about 5 s of CPU; a fit logs
    its progress every 5 s (INFO, logger ``ufskit.selectors.udfs``).
    """

    _parameter_constraints: dict = {
        **ScoreSelector._parameter_constraints, "n_clusters": [AUTO, POSITIVE_INT],
        "n_neighbors": [AUTO, POSITIVE_INT], "gamma": [POSITIVE], "lam": [AUTO, POSITIVE],
        "max_iter": [POSITIVE_INT], "tol": [POSITIVE],
    }

    def __init__(
        self,
        n_features_to_select=None,
        n_clusters="auto",
        n_neighbors="auto",
        lam="auto",
        gamma=1e-3,
        max_iter=100,
        tol=1e-8,
    ):
        self.n_features_to_select = n_features_to_select
        self.n_clusters = n_clusters
        self.n_neighbors = n_neighbors
        self.lam = lam
        self.gamma = gamma
        self.max_iter = max_iter
        self.tol = tol

    def _score(self, X):
        n, d = X.shape
        self.n_clusters_ = c = auto_or_int(self.n_clusters, "n_clusters", min(5, d, n - 1))
        if c > d:
            raise ValueError(f"n_clusters={c} exceeds n_features = {d}: W (d x c) cannot have orthonormal columns.")
        if c > n - 1:  # M = X'LX has rank <= n - 1 (L 1 = 0): more columns of W come from its null space
            raise ValueError(f"n_clusters={c} must be at most n_samples - 1 = {n - 1}: W's further columns would "
                             "be arbitrary directions of the null space of X'LX.")
        self.n_neighbors_ = auto_or_int(self.n_neighbors, "n_neighbors", min(5, n - 1))
        gamma, tol = (check_positive(getattr(self, p), p) for p in ("gamma", "tol"))
        X = centred(X)  # M = X'LX is shift-invariant (L annihilates constants); centring keeps it exact
        auto_lam = isinstance(self.lam, str) and self.lam == "auto"
        self.lam_ = LAM_ON_UNIT_SCALE * float(np.mean(X**2)) if auto_lam else check_positive(self.lam, "lam")
        L = local_discriminative_laplacian(X, self.n_neighbors_, self.lam_)
        with single_threaded_blas():  # an eigensolver call per iteration: see ufskit.blas
            W, self.objective_ = udfs_iterations(
                spectrum_of(X, L, low_rank=n < d and c < d), c, gamma, check_int(self.max_iter, "max_iter"), tol,
                Progress(logger, "UDFS"),
            )
        self.n_iter_ = len(self.objective_)
        self.W_ = self._to_full(W, fill=0.0)
        return np.sqrt(row_sq_norms(W))
