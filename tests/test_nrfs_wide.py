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


def test_neighbour_search_blocks_are_the_direct_distances_in_one_reused_buffer(monkeypatch):
    X = np.random.default_rng(0).standard_normal((30, 400)) * np.linspace(0.5, 3.0, 400) + 1e3
    monkeypatch.setattr(nrfs_module, "NEIGHBOR_BLOCK_BYTES", 8 * 400 * 64)  # 64 rows per block
    F = np.ascontiguousarray(X.T)
    blocks = []
    for a, D2 in nrfs_module._feature_sq_dists(X):
        assert D2.shape[0] <= 64
        assert_array_equal(D2, pairwise_sq_dists(F[a : a + D2.shape[0]], F))  # bit for bit
        blocks.append(D2)
    assert sum(D2.shape[0] for D2 in blocks) == 400
    assert all(np.shares_memory(D2, blocks[0]) for D2 in blocks)  # no fresh memory per block


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
    """q > 1 needs all m x m feature distances (20x the median selector on 50 x 20,000): "auto" is 1 above
    AUTO_SUBSPACE_MAX_FEATURES, the paper's rule up to it, and an explicit q is kept."""
    monkeypatch.setattr(nrfs_module, "AUTO_SUBSPACE_MAX_FEATURES", 120)
    X = np.random.default_rng(2).standard_normal((20, 121))
    assert NRFS(random_state=0).fit(X[:, :120]).n_neighbors_features_ == 3  # 120 // 40
    wide = NRFS(random_state=0).fit(X)
    assert wide.n_neighbors_features_ == 1
    assert_array_equal(wide.ranking_, NRFS(random_state=0, n_neighbors_features=1).fit(X).ranking_)
    assert NRFS(random_state=0, n_neighbors_features=3).fit(X).n_neighbors_features_ == 3
