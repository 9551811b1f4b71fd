"""The benchmark's protocol pieces: feature counts as fractions of d, excluded (dataset, method) pairs, and
the configured families covering every selector and every dataset of the papers."""

from __future__ import annotations

import numpy as np
import pytest
import yaml

from conftest import ROOT
from ufskit import experiments as ex
from ufskit.protocols import load_config
from ufskit.selectors import SELECTORS, SUPERVISED

FRACTIONS = {"fractions": [0.005, 0.01, 0.02, 0.05, 0.1]}


def test_fractions_give_rounded_counts_of_each_datasets_d():
    assert ex.feature_counts(FRACTIONS, 617) == [3, 6, 12, 31, 62]
    assert ex.feature_counts(FRACTIONS, 12290) == [61, 123, 246, 614, 1229]
    # at least one feature, duplicates merged; 0.5 of 5 rounds to 2 as resolve_count does (half to even)
    assert ex.feature_counts(FRACTIONS, 13) == [1]
    assert ex.feature_counts({"fractions": [0.1, 0.5, 0.9, 1.0]}, 5) == [1, 2, 4, 5]


@pytest.mark.parametrize("bad", [[], [0.0], [1.5], [1], [-0.1], [True]])
def test_fractions_must_be_floats_in_the_unit_interval(bad):
    with pytest.raises(ValueError, match="fraction"):
        ex.feature_counts({"fractions": bad}, 100)


def test_excluded_pairs_are_not_run_and_are_reported():
    exp = {"datasets": ["a", "b"], "reps": 2,
           "methods": {"M": {"selector": "SPEC", "exclude": {"b": "too slow"}}, "N": {"selector": "LaplacianScore"}}}
    runs = ex.experiment_runs("e", exp, ["a", "b"])
    assert {(r.dataset, r.method) for r in runs} == {("a", "M"), ("a", "N"), ("b", "N")}
    assert len(runs) == 3 * 2
    assert ex.not_run(exp) == {("b", "M"): "too slow"}
    with pytest.raises(ValueError, match="'c', which is not a dataset"):
        ex.not_run({**exp, "methods": {"M": {"selector": "SPEC", "exclude": {"c": "typo"}}}})


def _config():
    return load_config(ROOT)  # the full protocol: config/config.yaml with the papers' protocols/full.yaml


def papers_selectors(experiments: dict) -> set[str]:
    """The selectors the papers' experiments run (the benchmark's methods; the others are the library's own)."""
    return {spec["selector"] for e in experiments.values() if e["paper"] != "benchmark"
            for spec in e.get("methods", {}).values()}


def _controls(family: str) -> set[str]:
    """The positive controls a benchmark family runs: every supervised selector, the wrapper only on d <= 34."""
    return set(SUPERVISED) - (set() if family == "benchmark_lowdim" else {"ForwardKNN"})


def test_benchmark_families_cover_every_papers_selector_and_every_papers_dataset():
    experiments = _config()["experiments"]
    families = {n: e for n, e in experiments.items() if e["paper"] == "benchmark"}
    assert families, "no benchmark experiment in the full protocol"
    wanted_selectors = papers_selectors(experiments)
    assert wanted_selectors < set(SELECTORS)
    for name, exp in families.items():
        used = {spec["selector"] for spec in exp["methods"].values()}
        # beside the papers' selectors the positive controls (supervised, never ranked): the filters on every
        # dataset, the wrapper on the low-dimensional family only (its d^2 / 2 neighbour searches)
        assert used == wanted_selectors | _controls(name), f"{name} misses selectors {wanted_selectors - used}"
        assert all(len(ex.method_settings(exp)[m]) == 1 for m in exp["methods"]), f"{name}: one setting each"
        assert exp.get("report_dir") == "benchmark"
        assert not [m for (_, m) in ex.not_run(exp) if m in ("Variance", "ANOVA-F")]  # on every dataset
    papers = {"ils", "kudfs", "nrfs", "ivfs"}
    registry = yaml.safe_load((ROOT / "config" / "datasets.yaml").read_text())["datasets"]
    alternatives = {d for d, entry in registry.items() if not entry["papers"]}  # e.g. Fig. 1's face-value reading
    wanted = {d for e in experiments.values() if e["paper"] in papers for d in e["datasets"]} - alternatives
    covered = [d for e in families.values() for d in e["datasets"]]
    assert len(covered) == len(set(covered)), "a dataset in two families"
    assert wanted == set(covered)


def test_the_all_selector_overlay_runs_every_registered_selector_in_every_family():
    """config/all_selectors.yaml: the benchmark's families with every selector of the library, its own report."""
    from ufskit.protocols import load_config

    config = load_config(ROOT, ROOT / "config/all_selectors.yaml")
    families = {n: e for n, e in config["experiments"].items() if e["paper"] == "benchmark"}
    tuned = {n: e for n, e in config["experiments"].items() if e["paper"] == "tuned"}
    assert sorted(config["run"]) == sorted([*families, *tuned])
    for name, exp in families.items():
        used = {spec["selector"] for spec in exp["methods"].values()}
        assert used == set(SELECTORS) | _controls(name), f"{name} misses {set(SELECTORS) - used}"
        assert exp["report_dir"] == "all_selectors" and exp["methods"]["Random"]["reps"] == 20
        # Variance and Inf-FS in every Friedman block: Variance selects on the unscaled data, Inf-FS runs where its
        # matrices fit in memory (only RCV1-4Class, of unknown width offline and not in the mirror, is excluded)
        assert exp["methods"]["Variance"].get("select_preprocess", exp["preprocess"]) in (ex.UNSCALED, "nrfs_text")
        skipped = ex.not_run(exp)
        assert not [m for (_, m) in skipped if m in ("Variance", "ANOVA-F")], skipped
        assert {d for (d, m) in skipped if m == "InfFS"} <= {"RCV1-4Class"}
    # beside them, the grid methods tuned with the labels on the low-dimensional family, against Random's best of G
    (exp,) = tuned.values()
    assert exp["datasets"] == families["benchmark_lowdim"]["datasets"] and exp["report_dir"] == "all_selectors_tuned"
    grids = {label: spec["grid"] for label, spec in exp["methods"].items() if label != "Random"}
    assert all(len(values) == 5 for grid in grids.values() for values in grid.values())
    assert exp["methods"]["Random"]["reps"] >= 2 * 5 and set(exp["metrics"]) == {"kmeans", "knn"}


def test_diagonal_bars_do_not_reach_hera():
    """Four binary SPECT features give 15 distinct points whose H1 bars are all born at max_edge and capped
    there, i.e. on the diagonal; hera's Wasserstein crashed the benchmark's evaluation on them (SIGSEGV).
    They cost nothing, so both distances equal those to the diagram without them."""
    from ufskit.metrics import diagram_distances

    full = np.array([[0.1, 0.3], [0.2, 0.25], [0.05, 0.5]])
    diagonal = np.full((14, 2), 0.5)
    assert diagram_distances(full, diagonal) == diagram_distances(full, np.empty((0, 2)))
    assert diagram_distances(full, np.vstack([diagonal, [[0.1, 0.3]]]))["w11"] == pytest.approx(0.05 + 0.45)
