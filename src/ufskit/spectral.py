"""Spectral helpers shared by Laplacian Score, SPEC and MCFS.

Notation (rows are samples): W is a symmetric affinity matrix (sparse kNN graph
or dense kernel), d = W1 the degrees, D = diag(d), L = D - W, and the
normalised Laplacian L^ = D^-1/2 L D^-1/2 = I - S with S = D^-1/2 W D^-1/2.
L^'s first eigenvector is xi_1 = D^1/2 1 / ||D^1/2 1|| (eigenvalue 0), called
"trivial" below. Everything is vectorised over all features at once and no
d x d matrix is ever formed.
"""

from __future__ import annotations

import logging

import numpy as np

# scipy (and ufskit.lanczos) is imported by the eigensolver below: the workflow's start-up, through the papers,
# loads none
# above this many samples a sparse graph's eigenvectors come from ARPACK
# (Lanczos) instead of a dense LAPACK decomposition of an n x n matrix
DENSE_EIGEN_MAX_SAMPLES = 2000
# eigenvalues of the normalised Laplacian (in [0, 2]) closer than this are one repeated eigenvalue, whose
# eigenvectors are given a basis fixed by their eigenspace (``canonical_eigenbasis``), from this seed
EIGEN_TIE = 1e-10
EIGENSPACE_SEED = 0

logger = logging.getLogger(__name__)


def rbf_affinity(D2: np.ndarray, sigma: float) -> np.ndarray:
    """Dense RBF kernel matrix exp(-||xi - xj||^2 / (2 sigma^2)) on all pairs, diagonal 1 included.

    This is the full similarity matrix of Zhao & Liu's SPEC (a kernel matrix,
    so every sample is its own most similar point).
    """
    if not sigma > 0:
        raise ValueError(f"sigma={sigma!r}: the RBF width must be positive.")
    return np.exp(-D2 / (2.0 * sigma**2))


def degrees(W) -> np.ndarray:
    """Degree vector d = W1 as a 1-D array; zero-degree (isolated) samples are an error."""
    d = np.asarray(W.sum(axis=1), dtype=np.float64).ravel()
    if not np.all(d > 0):
        bad = np.flatnonzero(~(d > 0))
        raise ValueError(
            f"the affinity graph has {bad.size} isolated samples (degree 0; first: {bad[:5].tolist()}); "
            "every weight of their edges is 0 (heat-kernel weights underflow when sigma is small): use a larger "
            "sigma or more neighbours."
        )
    return d


def rayleigh_quotients(W, X: np.ndarray, *, centred: bool) -> np.ndarray:
    """f'Lf / f'Df for every column f of X, all columns at once (cost O(nnz(W) d)).

    With ``centred=True`` each f is first replaced by its D-weighted centring
    f~ = f - (f'd / 1'd) 1: this is He et al.'s Laplacian score, and also SPEC's
    phi2 (see ``ufskit.selectors.spec``). Without centring it is SPEC's phi1,
    f^' L^ f^ with f^ = D^1/2 f / ||D^1/2 f||.
    """
    d = degrees(W)
    if centred:
        X = X - (d @ X) / d.sum()
    den = np.einsum("i,ij,ij->j", d, X, X)
    # f'Lf = f'Df - f'Wf: one n x d product and no further n x d temporaries; the
    # subtraction costs about eps / (f'Lf / f'Df) in relative accuracy, far below any score gap
    num = den - np.einsum("ij,ij->j", X, W @ X)
    if not np.all(den > 0):
        bad = np.flatnonzero(~(den > 0))
        raise ValueError(f"features {bad[:5].tolist()} are zero after centring: remove constant features first.")
    return num / den


def smallest_nontrivial_eigenpairs(W, k: int, dense_max_samples: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The k smallest eigenpairs of L^ other than the trivial one: (lambdas ascending, n x k xi).

    Computed as the k largest eigenpairs of S - 2 xi_1 xi_1' (the deflation
    moves the trivial eigenvalue of S from 1 to -1, the bottom of S's
    spectrum), so a disconnected graph's further eigenvalue-0 vectors are kept,
    orthogonal to xi_1, as in Deng Cai's ``Eigenmap``. Dense LAPACK (only the
    wanted eigenpairs) for dense W or n <= ``dense_max_samples`` (None:
    DENSE_EIGEN_MAX_SAMPLES, read at the call), checked ARPACK for larger
    sparse graphs (``_largest_by_lanczos``; LAPACK when the check fails).
    All n - 1 non-trivial pairs may be asked for (the dense path): then the
    deflation goes to -2, below S's spectrum, so that a bipartite graph's
    eigenvalue -1 (e.g. n = 2) does not tie with the trivial one; k <= n - 2
    keeps the shift of 2 (bit-identical to before).
    Signs are fixed by ``fix_signs``, which makes the output deterministic.
    """
    import scipy.linalg
    import scipy.sparse as sp

    n = W.shape[0]
    if not 1 <= k <= n - 1:
        raise ValueError(f"asked for {k} non-trivial eigenvectors; a graph on {n} samples has at most {n - 1}.")
    d = degrees(W)
    s = 1.0 / np.sqrt(d)
    xi1 = np.sqrt(d / d.sum())
    if dense_max_samples is None:
        dense_max_samples = DENSE_EIGEN_MAX_SAMPLES

    def solve(m: int) -> tuple[np.ndarray, np.ndarray]:
        """The m smallest non-trivial pairs, ascending."""
        shift = 2.0 if m <= n - 2 else 3.0
        pairs = _largest_by_lanczos(W, d, s, xi1, shift, m) if sp.issparse(W) and n > dense_max_samples else None
        if pairs is None:
            Wd = W.toarray() if sp.issparse(W) else np.asarray(W)
            S = s[:, None] * Wd * s[None, :]
            S -= shift * np.outer(xi1, xi1)
            pairs = scipy.linalg.eigh(S, subset_by_index=[n - m, n - 1])
        mu, V = pairs
        order = np.argsort(-mu, kind="stable")
        return 1.0 - mu[order], V[:, order]

    # one pair beyond the k-th, more while the last ones tie: a repeated eigenvalue is taken whole
    m = min(k + 1, n - 1)
    lam, V = solve(m)
    while m < n - 1 and lam[m - 1] - lam[k - 1] <= EIGEN_TIE:
        m = min(2 * m, n - 1)
        lam, V = solve(m)
    lam, V = lam[:k], canonical_eigenbasis(lam, V, k)
    return lam, fix_signs(V)


def fix_signs(V: np.ndarray) -> np.ndarray:
    """V (n x k eigenvectors) with each column's sign chosen so that its projection on a fixed seeded Gaussian
    vector (``EIGENSPACE_SEED``) is positive; in place, returned.

    An eigenvector's sign is arbitrary and LAPACK's follows the last bits of the matrix. "Largest entry positive"
    fixes it only when the largest entry is unique: an antisymmetric vector (a mirrored graph) has a mirrored pair
    of largest entries, and which wins follows the BLAS kernel. A Gaussian projection is zero with probability 0
    and about one in magnitude, so round-off cannot flip it. No selector's number depends on the sign (MCFS, NRFS
    and SPEC use |coefficients| or squares; NDFS's K-means is invariant to reflections); the fitted embeddings do.
    """
    g = np.random.default_rng(EIGENSPACE_SEED).standard_normal(V.shape[0])
    V *= np.where(g @ V < 0, -1.0, 1.0)
    return V


def canonical_eigenbasis(lam: np.ndarray, V: np.ndarray, k: int) -> np.ndarray:
    """The first k columns of V (eigenvectors of the ascending eigenvalues ``lam``), each repeated eigenvalue's
    vectors replaced by a basis its eigenspace alone determines.

    Within a repeated eigenvalue (a graph with several components has 0 several times; a face set's kNN graph
    often does) any orthonormal basis is an answer, and LAPACK's depends on the last bits of the matrix: another
    BLAS kernel returns another rotation, and MCFS's regressions on those vectors select other features. Here
    the eigenspace's vectors are the QR orthonormalisation of a fixed seeded Gaussian matrix projected on it
    (``EIGENSPACE_SEED``), which depends on the eigenspace only; a repeated eigenvalue cut by the k-th is taken
    whole in ``lam``/``V``, and its first vectors of that basis are kept. Eigenvalues within ``EIGEN_TIE`` of
    their neighbour are one repeated eigenvalue.
    """
    out = V[:, :k].copy()
    starts = np.r_[0, np.flatnonzero(np.diff(lam) > EIGEN_TIE) + 1]
    ends = np.r_[starts[1:], lam.size]
    reference = None
    for a, b in zip(starts, ends):
        if a >= k or b - a < 2:
            continue
        if reference is None:
            reference = np.random.default_rng(EIGENSPACE_SEED).standard_normal((V.shape[0], lam.size))
        block = V[:, a:b]
        Q, R = np.linalg.qr(block @ (block.T @ reference[:, : b - a]))
        Q *= np.sign(np.diag(R))
        out[:, a:min(b, k)] = Q[:, : min(b, k) - a]
    return out


def _largest_by_lanczos(W, d, s, xi1, shift: float, k: int):
    """The k largest eigenpairs of S - shift xi_1 xi_1' for the sparse W (degrees d, s = d^-1/2) by ARPACK,
    checked (``ufskit.lanczos.checked_eigsh``): (values ascending, vectors), or None when LAPACK must answer.

    The check counts S's eigenvalues above mu: mu I - S = D^-1/2 (mu D - W) D^-1/2 has as many negative
    eigenvalues as mu D - W (Sylvester), read off a sparse factor of mu D - W. Among them is S's trivial
    eigenvalue 1 when mu < 1, which the deflation has moved to 1 - shift <= -1 < mu: the operator has one
    fewer above mu, and must have no other than the Ritz values found there.
    """
    import scipy.sparse as sp
    import scipy.sparse.linalg as spla

    from .lanczos import checked_eigsh, negative_count

    n = W.shape[0]
    S = sp.diags(s) @ W @ sp.diags(s)
    # ravel: the operator also serves LinearOperator's column-by-column products ((n, 1) arrays)
    op = spla.LinearOperator((n, n), matvec=lambda v: S @ v.ravel() - shift * xi1 * (xi1 @ v.ravel()),
                             dtype=np.float64)

    def only_these_above(mu, values, vectors):
        count = negative_count(mu * sp.diags(d) - W)
        return None if count is None else count - int(mu < 1.0) == int(np.count_nonzero(values > mu))

    # S's eigenvalues lie in [-1, 1]: the margin is 1e-9 absolute
    return checked_eigsh(op, k, largest=True, check=only_these_above, logger=logger,
                         what="Lanczos on the normalised graph", scale=1.0, which="LA", tol=0.0)
