"""Shared test setup: where the raw-data mirror is, and small helpers."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


def find_mirror() -> Path | None:
    """The data mirror: $UFS_DATA_MIRROR, else the shared folder beside the checkout."""
    env = os.environ.get("UFS_DATA_MIRROR")
    candidates = [Path(env)] if env else []
    candidates.append(ROOT.parent / "shared" / "data")
    for c in candidates:
        if c.is_dir():
            return c.resolve()
    return None


@pytest.fixture(scope="session")
def mirror() -> Path:
    """The local mirror folder; tests that read real data are skipped, with a reason, without it."""
    path = find_mirror()
    if path is None:
        pytest.skip("no data mirror: set UFS_DATA_MIRROR to a folder holding the raw files")
    return path


@pytest.fixture
def rng():
    return np.random.default_rng(0)


LONGEST = "test_quick_workflow.py"  # the quick protocol end to end: about half of the suite's time


def pytest_collection_modifyitems(config, items):
    """Longest first: the quick run, then the other workflow tests, then the rest (a stable sort).

    With ``-n auto --dist loadfile --no-loadscope-reorder`` (the README's command) each worker takes whole
    files in this order as it frees up, so that no long file starts last and ends the run alone.
    """
    def rank(item) -> int:
        return 0 if item.path.name == LONGEST else 1 if item.get_closest_marker("workflow") else 2

    items.sort(key=rank)
