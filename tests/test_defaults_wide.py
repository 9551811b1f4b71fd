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


def test_inffs_refuses_a_fit_whose_matrices_exceed_the_memory_available_naming_both(monkeypatch):
    """Inf-FS's d x d matrices: a fit is refused only when they do not fit in the memory available, with the
    bytes needed and available in the message; no count limit (d = 12,360 needs 4.9 GB: it runs on 24 GB)."""
    import ufskit.selectors.inffs as inffs_module

    X = np.random.default_rng(0).standard_normal((20, 13))
    needed = inffs_module.fit_bytes(20, 13)
    assert needed == 4 * 8 * 13**2 + 2 * 8 * 20 * 13
    monkeypatch.setattr(inffs_module, "available_memory", lambda: needed - 1)
    with pytest.raises(ValueError, match=rf"n_features=13 needs .* GiB \({needed:,} bytes.* \({needed - 1:,} bytes\) "
                                         r"are available"):
        SELECTORS["InfFS"]().fit(X)
    monkeypatch.setattr(inffs_module, "available_memory", lambda: needed)
    assert SELECTORS["InfFS"]().fit(X).scores_.shape == (13,)
    monkeypatch.setattr(inffs_module, "available_memory", lambda: None)  # nothing tells: no refusal
    assert SELECTORS["InfFS"]().fit(X).scores_.shape == (13,)
    assert inffs_module.fit_bytes(181, 12_360) < 5e9  # lung, the widest mirrored set after its chain


def test_inffs_holds_three_numpy_matrices_at_its_peak_and_fit_bytes_counts_one_more():
    """tracemalloc's peak of one fit is 3 matrices of 8 d^2 bytes (numpy's arrays); fit_bytes counts
    MATRIX_COPIES = 4, the resident size measured (one more, outside numpy's accounting)."""
    import tracemalloc

    import ufskit.selectors.inffs as inffs_module

    n, d = 40, 600
    X = np.random.default_rng(1).standard_normal((n, d))
    tracemalloc.start()
    try:
        SELECTORS["InfFS"]().fit(X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert 3 * 8 * d**2 <= peak <= 3.1 * 8 * d**2
    assert inffs_module.MATRIX_COPIES == 4 and inffs_module.fit_bytes(n, d) > peak


def test_available_memory_reads_the_machine():
    import ufskit.selectors.inffs as inffs_module

    free = inffs_module.available_memory()
    assert free is None or free > 0
