"""The LARS-lasso homotopy (Efron, Hastie, Johnstone & Tibshirani 2004), stopped at a cardinality.

MCFS solves K lasso regressions on one X per fit, each up to a few hundred
non-zeros. scikit-learn's ``lars_path`` computes the same knots but stores the
whole path, swaps columns of X on every step and must be told its length in
advance; on the papers' data it was slower than scikit-feature's plain LAR.
Here a step costs one pass over X (or, when the Gram matrix pays for itself,
over the active rows of X'X), two triangular solves against the Cholesky factor
of the active Gram matrix (grown by one row per entering variable, downdated by
Givens rotations when the lasso drops one) and vectorised step lengths.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg.blas import dtrsv

_EPS = float(np.finfo(np.float64).eps)


def use_gram(n: int, d: int, n_steps: int, max_gram_features: int = 12_000) -> bool:
    """Whether forming X'X (n d^2 flops, BLAS-3) is cheaper than ``n_steps`` passes over X (n d each).

    Always when d <= n; for wide data when d <= 4 n_steps (the Gram product runs
    several times faster per flop than a pass over X) and its d x d matrix stays
    below ``max_gram_features`` squared (1.2 GB at the default).
    """
    return d <= n or (d <= 4 * n_steps and d <= max_gram_features)


def _delete_column(R: np.ndarray, k: int) -> np.ndarray:
    """Upper Cholesky factor of a Gram matrix without variable k, from the factor R with it.

    R without column k still satisfies R'R = G of the others but is upper
    Hessenberg from column k on; Givens rotations on consecutive rows restore
    the triangle without forming G again.
    """
    H = np.asfortranarray(np.delete(R, k, axis=1))
    for i in range(k, H.shape[1]):
        a, b = H[i, i], H[i + 1, i]
        r = np.hypot(a, b)
        H[i : i + 2, i:] = np.array([[a, b], [-b, a]]) / r @ H[i : i + 2, i:]
    return np.asfortranarray(H[:-1])


class _ActiveSet:
    """Active variables, their signs, the upper Cholesky factor R of their Gram matrix (R'R = G_AA),
    and per variable the vector a step needs: its Gram row G[j] when the Gram matrix is given, its
    column x_j otherwise. Vectors live in slots of one buffer (a dropped variable frees its slot),
    so a step multiplies by the buffer without copying the active columns out.
    """

    def __init__(self, X: np.ndarray, Gram: np.ndarray | None, capacity: int):
        self.X, self.Gram = X, Gram
        self.index: list[int] = []  # active variables in factor order
        self.sign: list[float] = []
        self.R = np.empty((0, 0), order="F")  # Fortran order: BLAS takes it without a copy
        self._slot_of: dict[int, int] = {}
        self._vectors = np.empty((capacity, X.shape[0] if Gram is None else Gram.shape[1]))
        self._free_slots: list[int] = []
        self._n_slots = 0

    def _vector(self, j: int) -> np.ndarray:
        return self.X[:, j] if self.Gram is None else self.Gram[j]

    def _by_slot(self, values: np.ndarray) -> np.ndarray:
        out = np.zeros(self._n_slots)
        out[[self._slot_of[j] for j in self.index]] = values
        return out

    def try_add(self, j: int, sign: float) -> bool:
        """Append variable j; False (and no change) if it is collinear with the active ones."""
        vector = self._vector(j)
        if self.Gram is not None:
            g_jj, g = vector[j], vector[self.index]
        else:
            g_jj = vector @ vector
            by_slot = self._vectors[: self._n_slots] @ vector
            g = by_slot[[self._slot_of[i] for i in self.index]]
        z = dtrsv(self.R, g, trans=1) if self.index else g
        pivot_sq = g_jj - z @ z
        if pivot_sq <= 1e-12 * max(g_jj, _EPS):
            return False
        m = len(self.index)
        R = np.zeros((m + 1, m + 1), order="F")
        R[:m, :m], R[:m, m], R[m, m] = self.R, z, np.sqrt(pivot_sq)
        self.R = R
        self.index.append(j)
        self.sign.append(sign)
        slot = self._free_slots.pop() if self._free_slots else self._new_slot()
        self._vectors[slot] = vector
        self._slot_of[j] = slot
        return True

    def _new_slot(self) -> int:
        if self._n_slots == self._vectors.shape[0]:
            self._vectors = np.concatenate([self._vectors, np.empty_like(self._vectors)])
        self._n_slots += 1
        return self._n_slots - 1

    def drop(self, position: int) -> None:
        """Remove the active variable at ``position`` (of the factor order)."""
        self._free_slots.append(self._slot_of.pop(self.index.pop(position)))
        self.sign.pop(position)
        self.R = _delete_column(self.R, position)

    def equiangular(self) -> tuple[np.ndarray, float]:
        """Weights w of the equiangular direction X_A w and its correlation A_A with each active variable."""
        s = np.asarray(self.sign)
        v = dtrsv(self.R, dtrsv(self.R, s, trans=1))
        AA = 1.0 / np.sqrt(s @ v)
        return AA * v, AA

    def correlations(self, w: np.ndarray) -> np.ndarray:
        """X' X_A w: how every variable's correlation with the residual changes per unit step."""
        combined = self._by_slot(w) @ self._vectors[: self._n_slots]  # G_A' w, or X_A w
        return combined if self.Gram is not None else self.X.T @ combined


def _min_positive(values: np.ndarray) -> tuple[float, int]:
    """Smallest strictly positive entry and its position ((inf, -1) when there is none)."""
    if values.size == 0:
        return np.inf, -1
    values = np.where(values > 0, values, np.inf)
    pos = int(np.argmin(values))
    return float(values[pos]), pos


def lasso_lars_at_cardinality(X: np.ndarray, y: np.ndarray, max_nonzero: int, Gram=None) -> np.ndarray:
    """Coefficients of min ||y - X a||^2 + beta ||a||_1 at the first LARS-lasso knot with ``max_nonzero`` non-zeros.

    The penalty beta is set implicitly by the cardinality, as in the MCFS paper
    ("LARS ... stopping when d coefficients are non-zero"). If the path ends
    first (the fit is exact, or every variable left is collinear with the active
    ones: at most about n of them when d >> n), its end point is returned. The
    knots are those of scikit-learn's ``lars_path(method="lasso")``: a variable
    enters when its absolute correlation with the residual reaches the active
    ones', and leaves when its coefficient crosses zero. A step costs one pass
    over X (n x d), or over the active rows of the Gram matrix X'X if it is
    passed (``use_gram`` says when that pays).
    """
    return lasso_lars_at_cardinalities(X, y, [max_nonzero], Gram)[:, 0]


def lasso_lars_at_cardinalities(X: np.ndarray, y: np.ndarray, cardinalities, Gram=None) -> np.ndarray:
    """``lasso_lars_at_cardinality`` for several cardinalities from one path: a d x len(cardinalities) array."""
    n, d = X.shape
    targets = np.asarray(cardinalities, dtype=np.int64)
    order = np.argsort(targets, kind="stable")
    snapshots = np.zeros((d, targets.size))
    coef = np.zeros(d)
    c = X.T @ y  # correlations of every variable with the current residual
    excluded = np.zeros(d, dtype=bool)  # active, or found collinear with the active set
    active = _ActiveSet(X, Gram, capacity=int(min(targets.max(), n, d)) + 8)
    entering = int(np.argmax(np.abs(c)))
    C = abs(c[entering])
    tol = 100 * _EPS * max(C, _EPS)
    left = -1  # the variable that left the active set at the last knot, if any
    taken = 0  # snapshots taken, in increasing cardinality
    while C > tol and taken < targets.size:
        if entering >= 0:
            excluded[entering] = True  # a collinear variable can never enter: it stays excluded
            if not active.try_add(entering, np.sign(c[entering])) and not active.index:
                break
        w, AA = active.equiangular()
        a = active.correlations(w)
        idx = np.asarray(active.index)
        with np.errstate(divide="ignore", invalid="ignore"):
            up = (C - c) / (AA - a)
            down = (C + c) / (AA + a)
            # a variable that just left sits on the boundary it crossed (its step there is 0 up to
            # rounding): only the opposite boundary can bring it back
            if left >= 0:
                (up if c[left] > 0 else down)[left] = np.inf
            steps = np.fmin(np.where(up > 0, up, np.inf), np.where(down > 0, down, np.inf))
            cross, cross_pos = _min_positive(-coef[idx] / w)
        # once the active set spans the samples, the least-squares step ends the path
        steps[excluded if len(idx) < n else slice(None)] = np.inf
        entering = int(np.argmin(steps))
        enter_step = float(steps[entering])
        full = C / AA  # the step to the least-squares fit of the active set
        if enter_step >= full * (1 - 1e-10):  # entering only as the residual vanishes: the path ends
            enter_step = np.inf
        step = min(enter_step, cross, full)
        coef[idx] += step * w
        c -= step * a
        C -= step * AA
        if step == cross:  # the lasso modification: a coefficient reached zero, its variable leaves
            left = idx[cross_pos]
            coef[left], excluded[left] = 0.0, False
            active.drop(cross_pos)
            entering = -1
        elif step == enter_step:
            left = -1
        else:
            break  # the end of the path: nothing can enter any more
        nonzero = np.count_nonzero(coef)
        while taken < targets.size and targets[order[taken]] <= nonzero:
            snapshots[:, order[taken]] = coef
            taken += 1
    for pending in order[taken:]:  # the path ended first: its end point
        snapshots[:, pending] = coef
    return snapshots
