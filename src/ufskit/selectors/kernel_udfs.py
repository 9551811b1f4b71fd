"""Kernel UDFS (Liu & Wang): UDFS solved in a kernel space, selecting *kernel* features.

With W = phi(X) W~ (Eq. 3), UDFS's objective (Eq. 2) becomes (Eq. 4)

    min_{W~' W~ = I}  Tr(W~' M~ W~) + gamma ||W~||_{2,1},
    M~ = K [ sum_i S_i H (K~_i + lambda I)^{-1} H S_i' ] K,

where K is the n x n Gram matrix, S_i selects x_i and its k nearest neighbours
by the kernel distance K_ii + K_jj - 2 K_ij, H = I - 11'/(k+1) and
K~_i = H K_i H is the centred local Gram matrix (the kernel form of UDFS's
X~_i' X~_i). Algorithm 1 (Nie et al.'s reweighting): W~ = the c eigenvectors
of M~ + gamma D with the smallest eigenvalues, D_jj = 1 / (2 ||w~^j||), until
the objective stops decreasing. Kernel feature j is psi_j(x) = k(x, x_j), the
similarity to training instance j; it is scored by ||w~^j||_2 (larger = better).

Both steps are UDFS's code: ``udfs.laplacian_from_sq_dists`` on the kernel
distances (since H K_i H = -1/2 H D2_i H) and ``udfs.udfs_iterations`` on the
dense n x n M~. As there, the D = I step only yields the first weights (a tied
boundary eigenspace, frequent when K is nearly low rank, is averaged over) and
``objective_`` starts at the step after it.

Symbols: gamma -> ``gamma``, lambda -> ``lam``, k -> ``n_neighbors``,
c -> ``n_clusters``; sigma = ``kernel_const`` x (largest pairwise distance)
unless ``sigma`` is given (the paper's Sec. 4.1 and 4.3 use sigma = 1). The
paper prints the RBF denominator as "2 sigma"; ``width_form`` reads it as
2 sigma^2 (the default, exp(-||x - y||^2 / (2 sigma^2))) or sigma^2
(exp(-||x - y||^2 / sigma^2), the scorecard's reading ``kudfs_width_sigma2``).
"""

from __future__ import annotations

import numpy as np
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from ..kernels import kernel_sq_dists, rbf_kernel, rbf_width
from ..sparse_regression import row_sq_norms
from ..validation import auto_or_int, check_scale, column_extremes, flat_features, input_dtypes
from .base import ScaleCheck, ScoreSelector, refuse_sparse_unless_accepted
from .constraints import AUTO, NON_NEGATIVE, POSITIVE, POSITIVE_INT
from .ties import rank_with_ties
from .udfs import DenseSpectrum, laplacian_from_sq_dists, udfs_iterations

WIDTH_FORMS = {"2sigma2": 1.0, "sigma2": np.sqrt(2.0)}  # RBF denominator -> divisor of sigma in the 2 sigma^2 form


class KernelUDFS(ScoreSelector):
    """Unsupervised discriminative feature selection in a kernel space (Liu & Wang), Eq. 4 / Algorithm 1.

    ``fit(X)`` scores the n kernel features of the training set (``scores_``,
    ``ranking_``, ``get_support()`` and ``n_features_to_select`` all refer to
    these n kernel features; ``n_features_in_`` is X's d). ``transform(Xnew)``
    returns the selected kernel features of new data, i.e. the kernel between
    Xnew and the selected training instances; ``kernel_features(Xnew)`` returns
    all n of them. kernel: "rbf" or "linear" (the latter reduces Eq. 4 to UDFS
    in the instance basis; used to check the derivation).
    Attributes: ``W_`` (n x c), ``objective_`` (per iteration), ``n_iter_``,
    ``sigma_`` (RBF width used, None for the linear kernel), ``X_fit_``,
    ``n_neighbors_`` (k resolved: "auto" = min(5, n - 1)), ``n_ranked_`` (kernel
    features tied with no other; equal scores are ordered by ``ties.tie_keys``).
    """

    _parameter_constraints: dict = {
        **ScoreSelector._parameter_constraints, "n_clusters": [POSITIVE_INT],
        "n_neighbors": [AUTO, POSITIVE_INT], "gamma": [NON_NEGATIVE], "lam": [POSITIVE],
        "max_iter": [POSITIVE_INT], "tol": [NON_NEGATIVE], "kernel": [StrOptions({"rbf", "linear"})],
        "kernel_const": [POSITIVE], "sigma": [None, POSITIVE],
        "width_form": [StrOptions(set(WIDTH_FORMS))],
    }

    def __init__(
        self,
        n_features_to_select=None,
        n_neighbors="auto",
        gamma=1e-3,
        lam=1e3,
        kernel="rbf",
        kernel_const=1.0,
        sigma=None,
        n_clusters=2,
        max_iter=100,
        tol=1e-6,
        width_form="2sigma2",
    ):
        super().__init__(n_features_to_select=n_features_to_select)
        self.n_neighbors = n_neighbors
        self.gamma = gamma
        self.lam = lam
        self.kernel = kernel
        self.kernel_const = kernel_const
        self.sigma = sigma
        self.n_clusters = n_clusters
        self.max_iter = max_iter
        self.tol = tol
        self.width_form = width_form

    def _check_params(self, n: int) -> None:
        self.n_neighbors_ = auto_or_int(self.n_neighbors, "n_neighbors", min(5, n - 1))
        if self.n_clusters > n:  # the values themselves are checked by the constraints (fit)
            raise ValueError(f"n_clusters={self.n_clusters} exceeds the number of samples {n}.")

    def _gram(self, X: np.ndarray) -> np.ndarray:
        if self.kernel == "linear":
            return X @ self.X_fit_.T
        # exp(-d^2 / sigma^2) is the 2 sigma^2 form at sigma / sqrt(2)
        return rbf_kernel(X, self.X_fit_, sigma=self.sigma_ / WIDTH_FORMS[self.width_form])

    def fit(self, X, y=None):
        """Score the kernel features of X (y is ignored).

        The input checks are the base class's, on the kernel features: X's
        magnitudes within [1e-100, 1e100], ``n_features_to_select`` within the
        n kernel features, and X not all one point (every kernel feature would
        be constant). Flat columns of X need no special case: they add nothing
        to any kernel distance; when the others' standard deviations differ by
        more than 10x, a second fit on the column-standardised X checks whether
        the top kernel features change, and a ``ScaleWarning`` says so (the
        kernel is then the widest columns'; ``ScoreSelector``).
        Duplicate samples give equal kernel features,
        whose scores may differ (any c of a tied eigenspace are optimal).
        """
        self._validate_params()
        refuse_sparse_unless_accepted(self, X)
        dtype = input_dtypes(X)
        X = validate_data(self, X, dtype=np.float64, ensure_min_samples=2, reset=True)
        extremes = column_extremes(X)
        check_scale(X, extremes=extremes)
        n = X.shape[0]
        self._n_selected(n)
        flat = flat_features(X, extremes, dtype=dtype)
        if flat.all():
            raise ValueError(f"all {n} samples of X coincide (up to rounding): every kernel feature is constant.")
        self._check_params(n)
        scale_check = ScaleCheck(self, X, np.flatnonzero(~flat))
        self.X_fit_ = X
        if self.kernel == "linear":
            self.sigma_ = None
        else:
            self.sigma_ = rbf_width(X, self.kernel_const) if self.sigma is None else float(self.sigma)
        K = self._gram(X)
        # UDFS's local matrix from kernel distances (K~_i = H K_i H = -1/2 H D2_i H), M~ = K L K
        L = laplacian_from_sq_dists(kernel_sq_dists(K), self.n_neighbors_, self.lam)
        spectrum = DenseSpectrum(K @ (L @ K))
        self.W_, self.objective_ = udfs_iterations(spectrum, self.n_clusters, self.gamma, self.max_iter, self.tol)
        self.n_iter_ = len(self.objective_)
        self.scores_ = np.sqrt(row_sq_norms(self.W_))
        self.ranking_, self.n_ranked_ = rank_with_ties(self.scores_)
        scale_check.finish(X, y, self.ranking_, n)
        return self

    def kernel_features(self, X) -> np.ndarray:
        """All n kernel features of X: k(x, x_j) for every training instance j (n_new x n)."""
        check_is_fitted(self, "X_fit_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self._gram(X)

    def transform(self, X) -> np.ndarray:
        """The selected kernel features of X (n_new x number selected)."""
        return self.kernel_features(X)[:, self.get_support()]

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        """Names "kernel<j>" of the selected kernel features (j = training instance)."""
        return np.asarray([f"kernel{j}" for j in np.flatnonzero(self.get_support())], dtype=object)
