"""NRFS on wide data (d >> n): the same numbers with less work, and single-feature subspaces by default.

The feature-neighbour search reuses one products buffer per block and the
shift and norms of the whole; the representatives' subspace distances serve
both the widths and the layers. Each is checked against the direct
computation it replaces (docs/performance.md, "Defaults on wide data").
"""

from __future__ import annotations

import numpy as np
from numpy.testing import assert_array_equal

import ufskit.selectors.nrfs as nrfs_module
from ufskit.graph import pairwise_sq_dists
from ufskit.selectors import NRFS


def test_neighbour_search_slices_are_the_direct_distances_in_one_reused_buffer(monkeypatch):
    """The products keep pairwise_sq_dists' blocks (BLAS may round a row differently in a product of another
    height: 68 rows of Prostate-GE did with 87-row blocks); the rest runs in small slices of one buffer."""
    X = np.random.default_rng(0).standard_normal((30, 400)) * np.linspace(0.5, 3.0, 400) + 1e3
    monkeypatch.setattr(nrfs_module, "BLOCK_BYTES", 8 * 400 * 150)  # products of 150 rows
    monkeypatch.setattr(nrfs_module, "NEIGHBOR_BLOCK_BYTES", 8 * 400 * 64)  # distances in slices of 64 rows
    F = np.ascontiguousarray(X.T)
    slices = [(a, D2.copy(), D2) for a, D2 in nrfs_module._feature_sq_dists(X)]
    assert [a for a, _, _ in slices] == [0, 64, 128, 150, 214, 278, 300, 364]
    direct = np.vstack([pairwise_sq_dists(F[a : a + 150], F) for a in range(0, 400, 150)])
    assert_array_equal(np.vstack([D2 for _, D2, _ in slices]), direct)  # bit for bit
    buffer = slices[0][2].base
    assert buffer is not None and all(D2.base is buffer for _, _, D2 in slices)  # no fresh memory per block


def _count_subspace_distances(monkeypatch):
    calls = []
    real = nrfs_module._LocalSimilarity._sq_dists

    def spy(self, block):
        calls.append(block.size)
        return real(self, block)

    monkeypatch.setattr(nrfs_module._LocalSimilarity, "_sq_dists", spy)
    return calls


def test_subspace_distances_are_computed_once_per_representative(monkeypatch):
    X = np.random.default_rng(1).standard_normal((40, 300))
    calls = _count_subspace_distances(monkeypatch)
    fast = NRFS(random_state=0).fit(X)
    assert sum(calls) == fast.representatives_.size  # once for the widths, reused by the layers
    calls.clear()
    monkeypatch.setattr(nrfs_module, "CACHE_BYTES", 0)  # nothing kept: computed again for the layers
    direct = NRFS(random_state=0).fit(X)
    assert sum(calls) == 2 * direct.representatives_.size
    assert_array_equal(fast.coef_, direct.coef_)
    assert_array_equal(fast.ranking_, direct.ranking_)


def test_auto_subspaces_are_single_features_above_the_wide_limit(monkeypatch):
    """q > 1 needs all m x m feature distances (over 15x the median selector on 50 x 20,000): "auto" is 1 above
    AUTO_SUBSPACE_MAX_FEATURES, the paper's rule up to it, and an explicit q is kept."""
    monkeypatch.setattr(nrfs_module, "AUTO_SUBSPACE_MAX_FEATURES", 120)
    X = np.random.default_rng(2).standard_normal((20, 121))
    assert NRFS(random_state=0).fit(X[:, :120]).n_neighbors_features_ == 3  # 120 // 40
    wide = NRFS(random_state=0).fit(X)
    assert wide.n_neighbors_features_ == 1
    assert_array_equal(wide.ranking_, NRFS(random_state=0, n_neighbors_features=1).fit(X).ranking_)
    assert NRFS(random_state=0, n_neighbors_features=3).fit(X).n_neighbors_features_ == 3
