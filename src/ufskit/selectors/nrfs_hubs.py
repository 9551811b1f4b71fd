"""NRFS's cosine layers on text: each representative's dual ridge system from precomputed "hub" terms.

On the NRFS text sets a few words occur in almost every document and so sit in
almost every subspace (on 20NewsgroupA three words are in 75-87 % of them).
For a representative x_i, a subspace j whose words shared with x_i are hubs
only has the layer row (``_LocalSimilarity.layers``, weighted by root_j)

    b_j[l] = root_j inv_norm_j(x_l) (x_l,q . x_i,q) / ||x_i,q||,   q = the hubs of x_i in subspace j,

that is Rw_j * w_q with Rw = root * inv_norms the same for every representative
and w_q = X_q x_i,q / ||x_i,q|| one n-vector per hub set q. The rows of one hub
pattern p therefore add D_w T_p D_w to the Gram matrix, with T_p the sum of
their Rw_j Rw_j' computed once. Only the rows that x_i's other words touch are
built, added as they are and subtracted in their hub-only form. Per
representative this costs (patterns + 2 x touched rows) n^2 instead of
(all rows) n^2. The terms cancel in part, so one step of iterative refinement
against the rows themselves follows: the coefficients then differ from a
direct solve's by less than a direct solve's own rounding (on Reuters21578A,
at most 1.5e-10 against 2.9e-10 for the direct solve with its rows permuted;
tests/test_nrfs.py compares it with the direct solution).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

# a word in at least this share of the distinct subspaces is a hub; the largest patterns, of at least
# MIN_ROWS subspaces, are kept as Gram terms (a term costs about as much per representative as 50 rows)
HUB_SHARE = 0.5
MAX_HUBS = 8
MAX_PATTERNS = 8
MIN_ROWS = 64


class HubGram:
    """Dual ridge solutions (Eq. 8) of the cosine layers of ``cube`` (a cosine ``_LocalSimilarity``)."""

    def __init__(self, cube):
        self.cube = cube
        S = cube.S
        r, n = cube.inv_norms.shape
        share = np.bincount(S.indices, minlength=S.shape[1]) / r
        hubs = np.flatnonzero(share >= HUB_SHARE)
        self.hubs = hubs[np.argsort(-share[hubs], kind="stable")[:MAX_HUBS]]
        self.hub_bit = np.zeros(S.shape[1], dtype=np.int64)
        self.hub_bit[self.hubs] = 2 ** np.arange(self.hubs.size)
        self.bits = (S @ self.hub_bit).astype(np.int64)  # each subspace's hub pattern
        self.weighted = cube.inv_norms * cube.root[:, None]  # Rw
        patterns, sizes = np.unique(self.bits[self.bits > 0], return_counts=True)
        self.terms = []  # (pattern, rows, T_p) for the largest patterns
        self.covered = np.zeros(r, dtype=bool)
        for p in patterns[np.argsort(-sizes, kind="stable")[:MAX_PATTERNS]]:
            if np.count_nonzero(self.bits == p) < MIN_ROWS:
                break
            rows = np.flatnonzero(self.bits == p)
            Rw = self.weighted[rows]
            self.terms.append((p, rows, Rw.T @ Rw))
            self.covered[rows] = True

    def _hub_vector(self, x, q: int) -> np.ndarray:
        """w_q = X_q x_q / ||x_q|| for the hubs of bit set q."""
        h = self.hubs[(q >> np.arange(self.hubs.size)) & 1 == 1]
        v = x[h]
        return (self.cube.rows(h).T @ v) / np.sqrt(v @ v)

    def coefficients(self, i: int, Y: np.ndarray, ridge: float) -> np.ndarray:
        """r x c: the feature rows of argmin ||[B_i 1] A - Y||^2 + ridge ||A||^2 for the weighted layer of x_i."""
        cube = self.cube
        x = cube.instance(i)
        used = np.flatnonzero(x)
        own = int(self.hub_bit[used].sum())  # x_i's hubs
        others = used[self.hub_bit[used] == 0]
        explicit = np.zeros(self.bits.size, dtype=bool)
        explicit[cube.S_columns[:, others].indices] = True
        explicit |= ~self.covered & (self.bits & own != 0)
        n = cube.XT.shape[1]
        G = np.ones((n, n))
        G[np.arange(n), np.arange(n)] += ridge
        vectors, hub_rows, subtract = {}, [], []
        for p, rows, T in self.terms:
            q = int(p) & own
            if q == 0:
                continue
            w = vectors.setdefault(q, self._hub_vector(x, q))
            G += T * np.outer(w, w)
            hub_rows.append((rows[~explicit[rows]], w))
            subtract.append(self.weighted[rows[explicit[rows]]] * w)
        E = np.concatenate(subtract) if subtract else np.empty((0, n))
        rows = np.flatnonzero(explicit)
        C = cube.S[rows][:, used] @ (cube.rows(used) * x[used, None])
        C *= self.weighted[rows]
        C *= cube.inv_norms[rows, i, None]
        G -= E.T @ E
        G += C.T @ C

        def feature_rows(Z):  # B_i' Z, r x c, row by row as the layer holds them
            A = np.zeros((self.bits.size, Z.shape[1]))
            for own_rows, w in hub_rows:
                A[own_rows] = self.weighted[own_rows] @ (w[:, None] * Z)
            A[rows] = C @ Z
            return A

        def system(Z):  # ([B 1][B 1]' + ridge I) Z with B_i's rows, not G's terms
            A = feature_rows(Z)
            BA = C.T @ A[rows] + Z.sum(axis=0) + ridge * Z
            for own_rows, w in hub_rows:
                BA += w[:, None] * (self.weighted[own_rows].T @ A[own_rows])
            return BA

        # G's terms cancel in part (T_p holds the explicit rows, subtracted again): one step of iterative
        # refinement against the rows themselves brings the solution back to a direct solve's rounding
        factor = scipy.linalg.cho_factor(G, check_finite=False)
        Z = scipy.linalg.cho_solve(factor, Y, check_finite=False)
        Z += scipy.linalg.cho_solve(factor, Y - system(Z), check_finite=False)
        return feature_rows(Z)
