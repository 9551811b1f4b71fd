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
