"""Defaults on wide data: long fits say how far they are (the iterative selectors whose defaults take more
than a few seconds on wide data log through ``ufskit.selectors.progress``), and a selector whose cost cannot
fit such data refuses clearly (docs/performance.md, "Defaults on wide data")."""

from __future__ import annotations

import logging

import numpy as np
import pytest

import ufskit.selectors.progress as progress_module
from ufskit.selectors import SELECTORS

# selector -> its logger and a phrase of its progress line
LONG_FITS = {
    "SPFS": ("ufskit.selectors.spfs", "SPFS: 1 of 30 features added"),
    "FSASL": ("ufskit.selectors.fsasl", "FSASL: lasso step 1 "),
    "DGUFS": ("ufskit.selectors.dgufs", "DGUFS: iteration 1 of at most 100"),
    "SOGFS": ("ufskit.selectors.sogfs", "SOGFS: reweighting 1 of at most"),
    "NRFS": ("ufskit.selectors.nrfs", "NRFS: global spectra of 20 instances done"),
    "IterativeLaplacianScore": ("ufskit.selectors.iterative_ls", "IterativeLS-1: round 1, "),
    "UDFS": ("ufskit.selectors.udfs", "UDFS: reweighting 1 of at most"),
}


@pytest.mark.parametrize("name", sorted(LONG_FITS))
def test_a_long_fit_logs_its_progress(name, monkeypatch, caplog):
    logger, phrase = LONG_FITS[name]
    monkeypatch.setattr(progress_module, "PROGRESS_SECONDS", 0.0)  # every step counts as long
    with caplog.at_level(logging.INFO, logger=logger):
        SELECTORS[name]().fit(np.random.default_rng(0).standard_normal((20, 30)))
    assert phrase in caplog.text


def test_lines_are_at_least_progress_seconds_apart(monkeypatch, caplog):
    """A short fit says nothing; a long one one line per PROGRESS_SECONDS, with the seconds since its start."""
    clock = iter([0.0, 1.0, 4.9, 5.0, 6.0, 10.5])
    monkeypatch.setattr(progress_module.time, "perf_counter", lambda: next(clock))
    progress = progress_module.Progress(logging.getLogger("ufskit.test"), "M")
    with caplog.at_level(logging.INFO, logger="ufskit.test"):
        for step in range(1, 6):
            progress.step("step %d", step)
    assert [r.getMessage() for r in caplog.records] == ["M: step 3 (5 s)", "M: step 5 (10 s)"]


def test_inffs_refuses_more_features_than_its_limit_with_the_limit_named(monkeypatch):
    """Inf-FS's d x d matrices and d^3 solve do not fit wide data (20,000 features: > 10 GB): a clear refusal."""
    import ufskit.selectors.inffs as inffs_module

    monkeypatch.setattr(inffs_module, "MAX_FEATURES", 12)
    X = np.random.default_rng(0).standard_normal((20, 13))
    with pytest.raises(ValueError, match=r"n_features=13 exceeds its limit MAX_FEATURES=12"):
        SELECTORS["InfFS"]().fit(X)
    assert SELECTORS["InfFS"]().fit(X[:, :12]).scores_.shape == (12,)
