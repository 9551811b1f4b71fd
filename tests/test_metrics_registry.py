"""The metrics registry: directions, options checked against their schema, and evaluation dispatching through it."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import yaml

from conftest import ROOT
from ufskit import evaluation, results
from ufskit.metrics import registry as R
from ufskit.selection_io import Selection


def test_every_reported_value_has_the_direction_of_its_metric():
    assert [m for m in R.METRICS] == ["kmeans", "knn", "cv1nn", "distance_norms", "persistence"]
    for entry in R.METRICS.values():
        for value in entry.values:
            assert R.higher_is_better(value) is entry.higher_is_better, value
    assert not R.higher_is_better("fit_seconds")


def test_a_suffixed_value_has_the_direction_of_its_base_and_an_unknown_one_is_refused():
    assert R.higher_is_better("knn_acc_k5") and R.higher_is_better("kmeans_nmi")
    assert not R.higher_is_better("w11_literal") and not R.higher_is_better("L1_over_n2")
    with pytest.raises(ValueError, match=r"'silhouette' is no value of a registered metric; they are kmeans_acc"):
        R.higher_is_better("silhouette")


def test_lower_is_better_is_derived_from_the_registry():
    assert results.LOWER_IS_BETTER == ("Linf", "L1_over_n2", "L2", "w11", "winf", "fit_seconds")
    assert results.higher_is_better is R.higher_is_better


def test_reported_values_follow_the_registry_order_and_end_with_the_fit_time():
    assert R.reported_values(["persistence", "kmeans"]) == ["kmeans_acc", "kmeans_nmi", "w11", "winf", "fit_seconds"]
    assert R.reported_values(["cv1nn"]) == ["cv1nn_acc", "fit_seconds"]
    assert set(R.value_labels()) == {v for m in R.METRICS.values() for v in m.values} | {"fit_seconds"}
    with pytest.raises(ValueError, match=r"unknown metric 'knn_acc'; known: kmeans, knn, cv1nn"):
        R.reported_values(["knn_acc"])


def test_options_are_checked_and_completed_with_their_defaults():
    assert R.check_metric_options("kmeans", {"n_runs": 1}) == {"n_runs": 1, "n_init": 10, "max_iter": 300,
                                                               "nmi_average": "sqrt"}
    assert R.check_metric_options("distance_norms", None) == {"normalize_subset": True}
    with pytest.raises(ValueError, match=r"^metrics\.kmeans\.n_runs: 0 is less than the minimum of 1 "
                                         r"\(options of kmeans: n_runs, n_init"):
        R.check_metric_options("kmeans", {"n_runs": 0})
    with pytest.raises(ValueError, match=r"^experiments\.e\.metrics\.knn: Additional properties .*'k' was unexpected"):
        R.check_metric_options("knn", {"k": [1]}, where="experiments.e.metrics.knn")
    with pytest.raises(ValueError, match=r"metrics\.knn\.test_size: 1 is greater than or equal to the maximum of 1"):
        R.check_metric_options("knn", {"test_size": 1})
    with pytest.raises(ValueError, match="unknown metric 'kmean'"):
        R.metric_options_schema("kmean")


def test_a_metrics_block_is_checked_name_by_name():
    assert R.check_metrics({"knn": {"ks": [1]}, "distance_norms": {}}) == {
        "knn": {"ks": [1], "n_splits": 10, "test_size": 0.2}, "distance_norms": {"normalize_subset": True}}
    with pytest.raises(ValueError, match=r"^experiments\.e\.metrics: unknown metric\(s\) \['acc'\]; known: kmeans"):
        R.check_metrics({"acc": {}, "knn": {}}, where="experiments.e.metrics")
    with pytest.raises(ValueError, match=r"^experiments\.e\.metrics\.cv1nn\.n_folds: 1 is less than the minimum of 2"):
        R.check_metrics({"cv1nn": {"n_folds": 1}}, where="experiments.e.metrics")


def test_the_registry_is_the_one_source_of_the_options_and_writes_their_defaults_into_the_config():
    """The config schema takes any metrics block; the start-up fill checks it and writes the defaults, given options
    first, then the missing defaults in the registry's order (the order a schema validation gave the jobs' params)."""
    schema = yaml.safe_load((ROOT / "workflow/schemas/config.schema.yaml").read_text())
    block = schema["properties"]["experiments"]["additionalProperties"]["properties"]["metrics"]
    assert "properties" not in block and block["additionalProperties"] == {"type": "object"}
    experiments = {"e": {"metrics": {"knn": {"test_size": 0.5}, "kmeans": {"init": "random", "n_runs": 2}}}}
    R.fill_metric_defaults(experiments)
    filled = experiments["e"]["metrics"]
    assert list(filled) == ["knn", "kmeans"] and list(filled["knn"].items()) == [
        ("test_size", 0.5), ("ks", [1, 3, 5, 10]), ("n_splits", 10)]
    assert list(filled["kmeans"]) == ["init", "n_runs", "n_init", "max_iter", "nmi_average"]
    filled["knn"]["ks"].append(20)  # a config's default is its own copy
    assert R.METRICS["knn"].defaults()["ks"] == [1, 3, 5, 10]
    with pytest.raises(ValueError, match=r"^experiments\.f\.metrics\.kmeans: Additional properties are not "
                                         r"allowed \('n_rums' was unexpected\) \(options of kmeans: n_runs, "):
        R.fill_metric_defaults({"f": {"metrics": {"kmeans": {"n_rums": 3}}}})


def _selection(d: int, seconds: float = 0.25) -> Selection:
    return Selection(order=np.arange(d)[::-1].copy(), scores=np.arange(d, dtype=float), seconds=seconds, params={})


def test_evaluation_dispatches_through_the_registry_so_a_new_metric_is_one_entry(monkeypatch):
    def spread(job, opts):
        return R.rows(job.counts[0], {"spread": job.X[:, job.sel.features(job.counts[0])].std() * opts["scale"]})

    entry = R.Metric("spread", {"spread": "spread"}, False, options={"scale": {"type": "number", "default": 2.0}},
                     evaluate=spread)
    monkeypatch.setitem(R.METRICS, "spread", entry)
    X = np.arange(24.0).reshape(6, 4)
    frame = evaluation.evaluate_selection(X, np.array([0, 0, 0, 1, 1, 1]), _selection(4), [2], {"spread": {}}, seed=1)
    assert frame["metric"].tolist() == ["fit_seconds", "spread"]
    assert frame["value"].tolist() == [0.25, X[:, [3, 2]].std() * 2.0]
    assert not results.higher_is_better("spread") and R.reported_values(["spread"]) == ["spread", "fit_seconds"]
    with pytest.raises(ValueError, match=r"metrics\.spread\.scale: 'x' is not of type 'number'"):
        R.check_metric_options("spread", {"scale": "x"})


def test_an_unknown_metric_is_refused_before_anything_is_evaluated():
    with pytest.raises(ValueError, match="unknown metric 'knn_acc'; known: kmeans, knn, cv1nn, distance_norms"):
        evaluation.evaluate_selection(np.eye(4), np.arange(4), _selection(4), [2], {"knn_acc": {}}, seed=0)


def test_a_metric_entry_has_exactly_one_kind_of_function():
    with pytest.raises(TypeError, match="metric 'x': give exactly one of evaluate and per_distance"):
        R.Metric("x", {"x": "x"}, True, options={})
    with pytest.raises(TypeError, match="exactly one"):
        replace(R.METRICS["kmeans"], per_distance=lambda *a: {})


def test_persistence_needs_the_full_diagram():
    X = np.random.default_rng(0).standard_normal((20, 5))
    with pytest.raises(ValueError, match="the persistence metric needs the full-data diagram"):
        evaluation.evaluate_selection(X, np.arange(20) % 2, _selection(5), [3], {"persistence": {}}, seed=0)
