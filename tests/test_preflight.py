"""A newcomer's mistakes caught at start-up (ufskit.preflight), index-like columns, what a run says at its end
(ufskit.run_end) and outputs readable by others (issue 40)."""

from __future__ import annotations

import os
import stat

import numpy as np
import pandas as pd
import pytest

from conftest import ROOT
from ufskit.configio import ConfigError
from ufskit.data import atomic_path
from ufskit.loaders import index_like_columns, load
from ufskit.preflight import (
    check_local_data,
    check_offline,
    check_run_names,
    scan_local_tables,
    with_local_shapes,
)
from ufskit.results import dataset_table
from ufskit.run_end import failure_summary, plan_summary


def _local(path, **options):
    return {"path": str(path), "loader": "table", "options": {"label": "class", **options}}


def test_an_unknown_experiment_in_run_names_the_close_one_and_the_known_ones():
    config = {"experiments": {"ils_uci": {}, "ils_orl": {}}, "run": ["ils_uci", "ils_orll"]}
    with pytest.raises(ConfigError, match=r"config run: unknown experiment 'ils_orll' \(did you mean 'ils_orl'\?\)"
                                          r"\. Known experiments: ils_orl, ils_uci"):
        check_run_names(config)
    with pytest.raises(ConfigError, match=r"separate names with commas"):
        check_run_names({**config, "run": ["ils_uci ils_orl"]})


def test_an_offline_config_without_a_mirror_stops_while_sources_are_missing(tmp_path, monkeypatch):
    monkeypatch.delenv("UFS_DATA_MIRROR", raising=False)
    registry = {"datasets": {"wine": {"source": "wine_uci"}}}
    config = {"data": {"offline": True, "mirror": None}}
    raw = tmp_path / "raw"
    with pytest.raises(ConfigError, match=r"data.offline is true .* no data mirror is set .*wine_uci.*"
                                          r"Set UFS_DATA_MIRROR=/path/to/mirror"):
        check_offline(config, registry, ["wine"], raw)
    check_offline({"data": {"offline": False, "mirror": None}}, registry, ["wine"], raw)  # online: downloads
    raw.mkdir()
    (raw / "wine_uci.manifest.json").write_text("{}")
    check_offline(config, registry, ["wine"], raw)  # downloaded already: nothing to fetch
    monkeypatch.setenv("UFS_DATA_MIRROR", str(tmp_path / "nowhere"))
    with pytest.raises(ConfigError, match="is not a folder"):
        check_offline(config, registry, ["wine"], raw)


def test_local_loader_names_and_label_columns_are_checked_from_the_header(tmp_path):
    data = tmp_path / "mine.csv"
    pd.DataFrame({"a": [1.0, 2.5, 0.1], "b": [0.3, 0.2, 0.9], "class": [0, 1, 0]}).to_csv(data, index=False)
    registry = {"datasets": {"mine": {**_local(data), "loader": "tabel"}}}
    with pytest.raises(ConfigError, match=r"datasets.mine.loader: unknown loader 'tabel' \(did you mean 'table'\?\)"):
        check_local_data(registry, ["mine"])
    registry = {"datasets": {"mine": {**_local(data), "options": {"label": "klass"}}}}
    with pytest.raises(ConfigError, match=r"datasets.mine.options.label: column\(s\) \['klass'\] not in the header "
                                          r"of mine.csv \(did you mean 'class'\?\)"):
        check_local_data(registry, ["mine"])
    registry = {"datasets": {"mine": _local(data, drop=["c"])}}
    with pytest.raises(ConfigError, match=r"datasets.mine.options.drop: column\(s\) \['c'\]"):
        check_local_data(registry, ["mine"])
    registry = {"datasets": {"mine": _local(data, drop=["b"])}}
    counts = check_local_data(registry, ["mine"])
    assert counts == {"mine": 1}
    assert with_local_shapes(registry, counts)["datasets"]["mine"]["shape"] == [None, 1]
    assert "shape" not in registry["datasets"]["mine"]  # the registry the jobs get is unchanged


def test_d_of_npy_and_npz_files_is_read_from_their_headers(tmp_path):
    np.save(tmp_path / "m.npy", np.zeros((5, 7)))
    np.savez(tmp_path / "m.npz", X=np.zeros((5, 4)), y=np.zeros(5))
    registry = {"datasets": {"a": {"path": str(tmp_path / "m.npy"), "loader": "npy", "options": {"label": -1}},
                             "b": {"path": str(tmp_path / "m.npz"), "loader": "npz"}}}
    assert check_local_data(registry, ["a", "b"]) == {"a": 6, "b": 4}


def test_a_non_numeric_column_of_a_small_table_stops_at_start_up(tmp_path):
    data = tmp_path / "mine.csv"
    pd.DataFrame({"name": ["x", "y", "z"], "a": [0.1, 0.5, 0.2], "class": [0, 1, 0]}).to_csv(data, index=False)
    with pytest.raises(ConfigError, match=r"column\(s\) \['name'\] of mine.csv are not numeric.*options.drop"):
        scan_local_tables({"datasets": {"mine": _local(data)}}, ["mine"])
    assert scan_local_tables({"datasets": {"mine": _local(data, drop=["name"])}}, ["mine"]) == []


def test_an_id_column_is_flagged_at_start_up_in_the_loaded_dataset_and_in_the_dataset_table(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"id": np.arange(1, 41), "f1": rng.normal(size=40), "f2": rng.integers(0, 5, 40),
                          "class": np.repeat([0, 1], 20)})
    data = tmp_path / "mine.csv"
    frame.to_csv(data, index=False)
    warnings = scan_local_tables({"datasets": {"mine": _local(data)}}, ["mine"])
    assert len(warnings) == 1 and "['id'] look like a row index" in warnings[0]
    assert "datasets.mine.options.drop" in warnings[0]
    assert scan_local_tables({"datasets": {"mine": _local(data, drop=["id"])}}, ["mine"]) == []
    ds = load("mine", {**_local(data), "files": [str(data)]}, "/")
    assert ds.info["index_like_columns"] == ["id"]
    table = dataset_table({"mine": ds.summary()})
    assert "look like a row index" in table and "mine: id" in table and "`drop`" in table


def test_index_like_columns_needs_integers_in_strict_order():
    X = np.column_stack([np.arange(10.0), np.arange(10.0)[::-1] * 3, np.arange(10.0) + 0.5,
                         np.r_[0, 0, np.arange(8.0)], np.random.default_rng(1).permutation(10).astype(float)])
    assert index_like_columns(X) == [0, 1]
    assert index_like_columns(X[:2]) == []


def test_outputs_written_atomically_are_readable_under_the_umask(tmp_path):
    previous = os.umask(0o022)
    try:
        assert stat.S_IMODE(atomic_path(tmp_path / "a.json").stat().st_mode) == 0o644
        os.umask(0o027)
        assert stat.S_IMODE(atomic_path(tmp_path / "b.json").stat().st_mode) == 0o640
    finally:
        os.umask(previous)


def test_the_failed_jobs_are_summed_up_with_their_errors(tmp_path):
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs/p.log").write_text("Traceback ...\n  File x\nValueError: dataset 'b': column(s) ['s'] are "
                                         "not numeric\n\n")
    jobs = [{"rule": "prepare_dataset", "dataset": "b", "log": "logs/p.log"},
            {"rule": "scorecard", "dataset": None, "log": None}]
    out = failure_summary(jobs, tmp_path).splitlines()
    assert out[0].startswith("2 job(s) failed")
    assert out[1] == ("  - rule prepare_dataset, dataset b: ValueError: dataset 'b': column(s) ['s'] are not "
                      "numeric  [log: logs/p.log]")
    assert out[2] == "  - rule scorecard: (no log file)  [log: -]"
    assert failure_summary([]) == ""


def test_a_dry_run_ends_with_jobs_per_rule_and_an_estimate():
    text = plan_summary(["select_features"] * 100 + ["ivfs_select"] * 10 + ["all"], cores=2)
    assert text.startswith("Dry run summary: 111 jobs (select_features 100, ivfs_select 10, all 1)")
    assert "about 8 min" in text  # (100 x 5.6 + 10 x 45 + 5.6) s / 2 cores
    assert "about 4 min" in plan_summary(["select_features"] * 100 + ["ivfs_select"] * 10 + ["all"], cores=4)


def test_the_shipped_offline_overlay_declares_itself_offline():
    assert "offline: true" in (ROOT / "config/offline.yaml").read_text()


@pytest.mark.parametrize(("config", "says", "never"), [
    ({"protocol": "full", "run": ["own"], "datasets": {"a": {}, "b": {}},
      "experiments": {"own": {"paper": "benchmark", "datasets": ["a", "b"]}}},
     ["your own data", "``own`` (benchmark:\na, b)"], "*full*"),
    ({"protocol": "quick", "run": ["ils_uci"], "experiments": {"ils_uci": {"paper": "ils", "datasets": ["wine"]}}},
     ["the *quick* protocol;", "``ils_uci`` (ils:\nwine)"], "own data"),
])
def test_the_reports_landing_page_states_the_runs_own_config(config, says, never):
    import jinja2

    page = jinja2.Environment().from_string((ROOT / "workflow/report/workflow.rst").read_text()).render(
        snakemake=type("S", (), {"config": config}), categories=[])
    assert all(s in page for s in says) and never not in page, page[:600]
