"""SPFS, similarity preserving feature selection (Zhao, Wang, Liu & Ye, IEEE TKDE 25(3) 2013).

The combinatorial formulation: choose the features F whose linear kernel
best reproduces the sample similarity K,

    min_F  || X_F X_F' - K ||_F^2,

solved by sequential forward selection (SPFS-SFS): with the residual
R = K - X_F X_F', adding feature f changes the objective by
(f'f)^2 - 2 f'Rf, so each step adds the f with the largest gain
2 f'Rf - (f'f)^2 and subtracts f f' from R. Redundancy is what the residual
removes: a feature correlated with one already chosen has f'Rf reduced by
(f'x_j)^2 for every chosen x_j.

Vectorised: f'Rf = f'Kf - sum_{j in F} (f'x_j)^2, so q = diag(X'KX) is
computed once (O(n^2 d)) and each step subtracts one column of the Gram
matrix X'X squared (formed once when d <= GRAM_MAX_FEATURES, else one
O(nd) product per step); ranking all d features costs O(n^2 d + n d^2) and
no n x n residual is ever updated.
"""

from __future__ import annotations

import logging

import numpy as np

from ..graph import pairwise_sq_dists
from ..validation import centred
from .base import ScoreSelector
from .constraints import AUTO, POSITIVE
from .progress import Progress

# up to this many features the d x d Gram matrix X'X (at most 200 MB) is formed once; above, one column per step
GRAM_MAX_FEATURES = 5000

logger = logging.getLogger(__name__)


def median_sq_width(D2: np.ndarray) -> float:
    """The authors' protocol width t = s^2, s the median of all n^2 pairwise distances (zero diagonal included)."""
    t = float(np.median(np.sqrt(D2))) ** 2
    if not t > 0:
        raise ValueError("SPFS: at least half of the sample pairs coincide, so the median distance (kernel width) is 0; "
                         "set t explicitly.")
    return t


def forward_selection(X: np.ndarray, K: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Greedy min ||X_F X_F' - K||_F^2 over all d features; (order, gain of each feature when it was added).

    Gains never increase along the order (each feature's gain only loses
    (f'x_j)^2 terms as features are added), so they are scores whose order is
    the selection order. Ties go to the lower index. Logs its progress
    (``progress.Progress``, logger ``ufskit.selectors.spfs``).
    """
    d = X.shape[1]
    norms2 = np.einsum("ij,ij->j", X, X)
    gain = 2.0 * np.einsum("ij,ij->j", X, K @ X) - norms2**2
    gram = X.T @ X if d <= GRAM_MAX_FEATURES else None  # one BLAS-3 product instead of d matrix-vector passes
    order = np.empty(d, dtype=np.int64)
    added = np.empty(d)
    free = np.ones(d, dtype=bool)
    progress = Progress(logger, "SPFS")
    for step in range(d):
        j = int(np.argmax(np.where(free, gain, -np.inf)))
        order[step], added[step], free[j] = j, gain[j], False
        gain -= 2.0 * (gram[:, j] if gram is not None else X.T @ X[:, j]) ** 2
        progress.step("%d of %d features added", step + 1, d)
    scores = np.empty(d)
    scores[order] = added
    return order, scores


class SPFS(ScoreSelector):
    """SPFS-SFS feature ranking: features in the order forward selection adds them to preserve K.

    Parameters
    ----------
    t : float or "auto"
        Width of the Gaussian similarity K_ij = exp(-||x_i - x_j||^2 / t), on X
        at unit mean square (see Notes).
        "auto" = the square of the median pairwise distance over all n^2
        pairs, the centre of the authors' grid t in 2^{-3..3} s^2 (FSASL
        ``fs_unsup_spfs_single_func``).

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        The gain 2 f'Rf - (f'f)^2 of each feature at the step that added it
        (non-increasing in the selection order).
    selection_order_ : ndarray of shape (n_features,)
        Feature indices in the order forward selection added them.
    t_ : float
        The kernel width used, in the units of X divided by ``scale_``.
    scale_ : float
        The root mean square of the centred X, by which X is divided.

    Notes
    -----
    Of the paper's three solvers (SFS for the combinatorial problem, LAR and
    NES for its l2,1 relaxation) this is SFS: it optimises the formulation
    the framework is defined by, ranks every feature, and is the default of
    the authors' toolbox, whose LAR wrappers are disabled because they "did
    not return enough features" (docs/fidelity/selectors-llcfs-spfs-traceratio.md).
    X is centred first. The objective compares X_F X_F' with K, whose
    entries lie in [0, 1], so the scale of X sets the balance between
    similarity (f'Kf, quadratic in f) and redundancy ((f'x_j)^2, quartic):
    scaling X would change the ranking. The authors' protocol applies it to
    the data as given (z-scored in the protocols here); this class divides X
    by its root mean square first, which leaves z-scored data as it is and
    makes SPFS(s X) = SPFS(X), so the default means the same at any scale. A column of
    negligible scale gains about 0 while real features gain less than 0 on
    z-scored data, so a ``ScaleWarning`` when standardising the columns
    changes the head of its ranking (``ScoreSelector``'s scale check).

    Cost: O(n^2 d + n d^2) for the full ranking (the kernel, diag(X'KX) and
    X'X once, then O(d) per step); 0.47 s of CPU on COIL20 (1440 x 1024).
    Above ``GRAM_MAX_FEATURES`` (5,000) X'X (8 d^2 bytes) is not held and
    each step computes its column X'x_j, one pass over X: on n = 50,
    d = 20,000 about 6 s of CPU (``benchmarks/defaults_wide.py``). A fit
    logs its progress every 5 s (INFO, logger ``ufskit.selectors.spfs``).

    References
    ----------
    Z. Zhao, L. Wang, H. Liu and J. Ye, "On Similarity Preserving Feature
    Selection", IEEE Transactions on Knowledge and Data Engineering 25(3),
    pp. 619-632, 2013.
    """

    _parameter_constraints: dict = {**ScoreSelector._parameter_constraints, "t": [AUTO, POSITIVE]}

    def __init__(self, n_features_to_select=None, t="auto"):
        self.n_features_to_select = n_features_to_select
        self.t = t

    def _score(self, X):
        X = centred(X)
        self.scale_ = float(np.sqrt(np.mean(X**2)))
        X = X / self.scale_  # unit mean square: z-scored data as it is, any other X brought to that scale
        D2 = pairwise_sq_dists(X)
        self.t_ = median_sq_width(D2) if isinstance(self.t, str) else float(self.t)
        order, scores = forward_selection(X, np.exp(-D2 / self.t_))
        self.selection_order_ = self._scored[order]
        return scores
