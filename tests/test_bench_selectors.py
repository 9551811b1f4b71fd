"""benchmarks/bench_selectors.py: the table of the nine selectors against their authors' code (no Octave needed)."""

from __future__ import annotations

import importlib.util

import pytest

from conftest import ROOT


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_selectors", ROOT / "benchmarks" / "bench_selectors.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ratio_is_ours_over_theirs_and_three_times_is_the_bound(bench):
    assert bench.authors_cells(1.0, 4.0) == ["1.00", "4.00", "0.25x", "yes"]
    assert bench.authors_cells(6.0, 2.0) == ["6.00", "2.00", "3.00x", "yes"]
    assert bench.authors_cells(6.5, 2.0) == ["6.50", "2.00", "3.25x", "no"]
    assert bench.authors_cells(0.06, 71.0)[2] == "0.0008x"  # not 0.00x


def test_bounds_decide_only_on_their_side_of_the_limit(bench):
    # their fit stopped at the timeout: their time is above it, so the ratio is below ours / timeout
    assert bench.authors_cells(30.0, None, timeout=200.0) == ["30.00", "> 200", "< 0.15x", "yes"]
    assert bench.authors_cells(900.0, None, timeout=200.0)[2:] == ["< 4.50x", "?"]
    # their fit did part of the work (SPFS's first share of features): the ratio is at most ours / theirs
    assert bench.authors_cells(1.0, 10.0, partial=True)[2:] == ["<= 0.10x", "yes"]
    assert bench.authors_cells(40.0, 10.0, partial=True)[2:] == ["<= 4.00x", "?"]


def test_table_orders_rows_by_selector_and_gives_shapes(bench):
    rows = [
        {"selector": "DGUFS", "dataset": "ORL", "shape": (200, 1024), "ours": 1.7, "theirs": 4.7, "note": "sub"},
        {"selector": "SPFS", "dataset": "lymphoma", "shape": [96, 4026], "ours": 1.0, "theirs": 23.5,
         "partial": True},
        {"selector": "LLCFS", "dataset": "COIL20", "shape": [1440, 1024], "ours": 7.9, "theirs": None,
         "timeout": 400.0},
    ]
    header, rule, *body = bench.authors_table(rows)
    assert header.count("|") == rule.count("|") == body[0].count("|")
    assert [line.split(" | ")[0] for line in body] == ["| LLCFS", "| SPFS", "| DGUFS"]
    assert body[0] == "| LLCFS | COIL20 (1440 x 1024) | 7.90 | > 400 | < 0.02x | yes |  |"
    assert body[2] == "| DGUFS | ORL (200 x 1024) | 1.70 | 4.70 | 0.36x | yes | sub |"


def test_dataset_spec_names_the_methods_to_run(bench):
    assert bench.dataset_spec("ORL") == ("ORL", None)
    assert bench.dataset_spec("COIL20:LLCFS,TraceRatio") == ("COIL20", ["LLCFS", "TraceRatio"])
