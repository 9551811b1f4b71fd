"""Lanczos eigensolves (ARPACK's ``scipy.sparse.linalg.eigsh``) that start at random and are checked.

ARPACK's converged Ritz pairs are true eigenpairs, but not necessarily the wanted ones at the end of the
spectrum: Lanczos cannot see an eigenvector its start vector barely touches (a structured start, such as the
constant vector or the previous row norms, can be orthogonal to whole eigenspaces), and it may find fewer
copies of a multiple eigenvalue than there are. So every call starts from one fixed pseudo-random vector (a
refit gives the same numbers), and its answer is checked: A must have no eigenvalue beyond mu (the c-th Ritz
value moved a hair towards the wanted end) besides the Ritz values found there. The check is the caller's,
as it depends on A's structure (Sylvester's law of inertia through a factor of A - mu I, sparse or
low-rank; a Cholesky factor; the Perron bound of a non-negative A). When it fails, or ARPACK does not
converge, ``checked_eigsh`` returns None, the caller's LAPACK solve answers, and the caller's logger says so.

Used by UDFS and SOGFS (``selectors.udfs``), the spectral embeddings of MCFS, SPEC and NDFS (``spectral``),
LLCFS and Inf-FS (docs/fidelity/numerics.md, "Eigensolvers").
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

# every Lanczos run starts from the standard normal vector of this seed (Brain_Tumor2's UDFS at a structured
# start: 3 of 4 eigenvectors wrong at tol 0)
LANCZOS_START_SEED = 0
# mu lies this far (relative to the c-th Ritz value, or to the caller's scale of A when that is larger) from the
# c-th Ritz value towards the wanted end: eigenvalues closer to it are ties, any of which is as good an answer
INERTIA_MARGIN = 1e-9


def start_vector(n: int) -> np.ndarray:
    """The start of every Lanczos run on an n x n operator: n standard normal numbers of seed LANCZOS_START_SEED."""
    return np.random.default_rng(LANCZOS_START_SEED).standard_normal(n)


def checked_eigsh(A, k: int, *, largest: bool, check, logger, what: str, scale: float = 0.0, **eigsh_options):
    """The k eigenpairs at one end of the symmetric n x n A's spectrum by ARPACK, checked: (values ascending,
    vectors), or None when LAPACK must answer.

    ``largest`` says which end the ``eigsh_options`` (``which``, ``sigma``, ...) ask for: the k largest
    eigenvalues or the k smallest. mu is the c-th Ritz value (c = k) moved INERTIA_MARGIN x max(|it|,
    ``scale``) towards that end, and ``check(mu, values, vectors)`` (all Ritz pairs, ascending) says whether
    A has no eigenvalue beyond mu (above it for the largest, below it for the smallest) besides the Ritz
    values there: True, False, or None when it cannot tell. A failed check, or ARPACK's
    ``ArpackNoConvergence`` (after its ``maxiter`` restarts), is logged at INFO on ``logger`` as
    "``what`` ...: LAPACK answers".
    """
    n = A.shape[0]
    try:
        values, vectors = spla.eigsh(A, k=k, v0=start_vector(n), **eigsh_options)
    except spla.ArpackNoConvergence:
        logger.info("%s did not converge in %s restarts (%d x %d): LAPACK answers", what,
                    eigsh_options.get("maxiter", 10 * n), n, n)
        return None
    order = np.argsort(values, kind="stable")
    values, vectors = values[order], vectors[:, order]
    edge = values[0] if largest else values[-1]
    step = INERTIA_MARGIN * max(abs(edge), scale)
    mu = edge + step if largest else edge - step
    verdict = check(mu, values, vectors)
    if verdict is None or not verdict:
        side = "above" if largest else "below"
        outcome = "could not check for an eigenvalue" if verdict is None else "skipped an eigenvalue"
        logger.info("%s %s %s its c-th (%d x %d, c = %d): LAPACK answers", what, outcome, side, n, n, k)
        return None
    return values, vectors


def negative_count(B) -> int | None:
    """The number of negative eigenvalues of the sparse symmetric matrix B, or None when it cannot be read off.

    Sylvester's law of inertia: SuperLU in its symmetric mode with diagonal pivots only (a fill-reducing
    ordering of B + B') factors P B P' = L U with U = diag(u) L', and B has as many negative eigenvalues as u
    has negative entries. Where a diagonal pivot is 0 SuperLU takes an off-diagonal one (the row and column
    orders then differ) or stops (B is singular there): no count. Without pivoting for size the factor is not
    backward stable on every indefinite B; its counts equal those of LAPACK's eigenvalues for mu D - W on the
    5-NN graphs of COIL20 and Isolet at mu from the median to the top of the spectrum, and on the synthetic
    matrices of tests/test_lanczos_checks.py. Cost: one sparse LU, 2-9 ms on COIL20's and Isolet's graphs
    (n ~ 1500, 1-3 % fill); on a 5-NN graph of 10,000 points in 50 dimensions 2.7 s (7.6 % fill), where the
    Lanczos run itself took 0.13 s.
    """
    try:
        lu = spla.splu(sp.csc_matrix(B), permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0,
                       options={"SymmetricMode": True})
    except RuntimeError:  # "Factor is exactly singular"
        return None
    if not np.array_equal(lu.perm_r, lu.perm_c):
        return None
    return int(np.count_nonzero(lu.U.diagonal() < 0))
