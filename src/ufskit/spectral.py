"""Spectral helpers shared by Laplacian Score, SPEC and MCFS.

Notation (rows are samples): W is a symmetric affinity matrix (sparse kNN graph
or dense kernel), d = W1 the degrees, D = diag(d), L = D - W, and the
normalised Laplacian L^ = D^-1/2 L D^-1/2 = I - S with S = D^-1/2 W D^-1/2.
L^'s first eigenvector is xi_1 = D^1/2 1 / ||D^1/2 1|| (eigenvalue 0), called
"trivial" below. Everything is vectorised over all features at once and no
d x d matrix is ever formed.
"""

from __future__ import annotations

import numpy as np

# scipy is imported by the eigensolver below: the workflow's start-up, through the papers, loads none
# above this many samples a sparse graph's eigenvectors come from ARPACK
# (Lanczos) instead of a dense LAPACK decomposition of an n x n matrix
DENSE_EIGEN_MAX_SAMPLES = 2000


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


def smallest_nontrivial_eigenpairs(W, k: int, dense_max_samples: int = DENSE_EIGEN_MAX_SAMPLES) -> tuple[np.ndarray, np.ndarray]:
    """The k smallest eigenpairs of L^ other than the trivial one: (lambdas ascending, n x k xi).

    Computed as the k largest eigenpairs of S - 2 xi_1 xi_1' (the deflation
    moves the trivial eigenvalue of S from 1 to -1, the bottom of S's
    spectrum), so a disconnected graph's further eigenvalue-0 vectors are kept,
    orthogonal to xi_1, as in Deng Cai's ``Eigenmap``. Dense LAPACK (only the
    wanted eigenpairs) for dense W or n <= ``dense_max_samples``, ARPACK for
    larger sparse graphs. All n - 1 non-trivial pairs may be asked for (the
    dense path): then the deflation goes to -2, below S's spectrum, so that a
    bipartite graph's eigenvalue -1 (e.g. n = 2) does not tie with the
    trivial one; k <= n - 2 keeps the shift of 2 (bit-identical to before).
    Signs are fixed so that each eigenvector's entry of largest magnitude is
    positive, which makes the output deterministic.
    """
    import scipy.linalg
    import scipy.sparse as sp
    import scipy.sparse.linalg as spla

    n = W.shape[0]
    if not 1 <= k <= n - 1:
        raise ValueError(f"asked for {k} non-trivial eigenvectors; a graph on {n} samples has at most {n - 1}.")
    shift = 2.0 if k <= n - 2 else 3.0
    d = degrees(W)
    s = 1.0 / np.sqrt(d)
    xi1 = np.sqrt(d / d.sum())
    if sp.issparse(W) and n > dense_max_samples:
        S = sp.diags(s) @ W @ sp.diags(s)
        op = spla.LinearOperator((n, n), matvec=lambda v: S @ v - shift * xi1 * (xi1 @ v), dtype=np.float64)
        mu, V = spla.eigsh(op, k=k, which="LA", v0=np.full(n, 1.0 / np.sqrt(n)), tol=0.0)
    else:
        Wd = W.toarray() if sp.issparse(W) else np.asarray(W)
        S = s[:, None] * Wd * s[None, :]
        S -= shift * np.outer(xi1, xi1)
        mu, V = scipy.linalg.eigh(S, subset_by_index=[n - k, n - 1])
    order = np.argsort(-mu, kind="stable")
    lam, V = 1.0 - mu[order], V[:, order]
    peak = np.argmax(np.abs(V), axis=0)
    V *= np.sign(V[peak, np.arange(k)])
    return lam, V
