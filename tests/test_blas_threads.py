"""Selectors marked ``single_threaded`` score on one BLAS thread (ufskit.blas: shared cores stall the many small
calls of their iterations), and the thread count is restored after the fit."""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_info

from ufskit.selectors import SELECTORS


def blas_threads() -> set[int]:
    return {pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"}


@pytest.mark.parametrize("name", sorted(n for n, cls in SELECTORS.items() if cls.single_threaded))
def test_single_threaded_selectors_score_on_one_blas_thread(name, monkeypatch):
    cls, seen = SELECTORS[name], []
    real = cls._score

    def spy(self, X):
        seen.append(blas_threads())
        return real(self, X)

    monkeypatch.setattr(cls, "_score", spy)
    before = blas_threads()
    est = cls()
    if "random_state" in est.get_params():
        est.set_params(random_state=0)
    est.fit(np.random.default_rng(0).standard_normal((30, 8)))
    assert seen == [{1}] and blas_threads() == before


def test_the_iterative_selectors_are_marked():
    assert {n for n, cls in SELECTORS.items() if cls.single_threaded} >= {"NDFS", "NRFS", "JELSR", "FSASL", "RUFS"}
