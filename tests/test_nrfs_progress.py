"""NRFS on shared cores: its BLAS runs on one thread (as the workflow's jobs do), q = 1 skips the subspace
work, and a long fit logs its progress."""

from __future__ import annotations

import logging

import numpy as np
from numpy.testing import assert_array_equal
from threadpoolctl import threadpool_info

import ufskit.selectors.nrfs as nrfs_module
import ufskit.selectors.progress as progress_module
from ufskit.selectors import NRFS


def test_blas_runs_on_one_thread_inside_the_fit(monkeypatch):
    """Two BLAS threads on busy cores made a digits fit 90 s instead of 18 s (benchmarks/nrfs_speed.py)."""
    seen = []
    real = nrfs_module.feature_neighbors

    def spy(X, q):
        seen.append({pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"})
        return real(X, q)

    monkeypatch.setattr(nrfs_module, "feature_neighbors", spy)
    NRFS(random_state=0).fit(np.random.default_rng(0).standard_normal((40, 12)))
    assert seen == [{1}]


def test_single_feature_subspaces_need_no_feature_distances(monkeypatch):
    """q = 1: each subspace is its own feature, so no m x m distances are computed."""
    monkeypatch.setattr(nrfs_module, "pairwise_sq_dists", None)  # any call would fail
    assert_array_equal(nrfs_module.feature_neighbors(np.ones((5, 7)), 1), np.arange(7)[:, None])


def test_a_long_fit_logs_its_progress_and_a_short_one_nothing(monkeypatch, caplog):
    X = np.random.default_rng(2).standard_normal((40, 12))
    with caplog.at_level(logging.INFO, logger="ufskit.selectors.nrfs"):
        NRFS(random_state=0).fit(X)
        assert not caplog.records  # well under PROGRESS_SECONDS
        monkeypatch.setattr(progress_module, "PROGRESS_SECONDS", 0.0)  # every step counts as long
        NRFS(random_state=0).fit(X)
    messages = [r.getMessage() for r in caplog.records]
    assert any("global spectra" in m for m in messages)
    assert any("representatives' regressions solved" in m for m in messages), messages
