"""Intermediate files read back (ufskit.intermediates): corrupt files named, identities checked against
their paths, n_ranked kept with a selection, provenance of an export without git."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pytest

import ufskit
from ufskit.data import Dataset, load_dataset, save_dataset
from ufskit.intermediates import IntegrityError, identity_of, read_csv, read_json, read_parquet
from ufskit.results import concat_metrics, provenance, summarize, to_markdown
from ufskit.runs import evaluate_run
from ufskit.selection_io import Selection, load_selection, save_selection

SEL = "results/{exp}/selections/wine/{method}/default/rep{rep}.npz"


def test_identity_of_follows_the_workflow_layout():
    assert identity_of("results/smoke/selections/wine/LS/k5/rep3.npz") == {
        "experiment": "smoke", "dataset": "wine", "method": "LS", "params": "k5", "rep": "3"}
    assert identity_of("/x/results/y/results/readings/r1/e/metrics/wine/MCFS/default/rep0.parquet")[
        "experiment"] == "readings/r1/e"
    assert identity_of("results/e/metrics/wine/Random/batch.parquet") == {
        "experiment": "e", "dataset": "wine", "method": "Random"}
    assert identity_of("results/e/metrics.parquet") == {"experiment": "e"}
    assert identity_of("resources/prepared/zscore/wine.json") == {"chain": "zscore", "dataset": "wine"}
    assert identity_of("results/e/summary.csv") == {} and identity_of("elsewhere/rep0.npz") == {}


def test_a_selection_copied_onto_another_runs_path_is_refused(tmp_path):
    ls = tmp_path / SEL.format(exp="e", method="LS", rep=0)
    ls.parent.mkdir(parents=True)
    save_selection(Selection(np.arange(4), np.zeros(4), 0.1, {"selector": "LaplacianScore"}), ls)
    assert load_selection(ls).order.tolist() == [0, 1, 2, 3]
    for target in (SEL.format(exp="e", method="MCFS", rep=0), SEL.format(exp="e", method="LS", rep=1),
                   SEL.format(exp="other", method="LS", rep=0)):
        swapped = tmp_path / target
        swapped.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ls, swapped)
        with pytest.raises(IntegrityError, match=rf"corrupt file {swapped}: it records experiment=e, dataset=wine, "
                                                 r"method=LS, params=default, rep=0 but its path is that of .*copied"):
            load_selection(swapped)


def test_selection_keeps_n_ranked_and_old_files_load_as_all_ranked(tmp_path):
    sel = Selection(np.arange(6), np.array([3.0, 2, 1, 0, 0, 0]), 0.1, {}, n_ranked=3)
    save_selection(sel, tmp_path / "s.npz")
    back = load_selection(tmp_path / "s.npz")
    assert back.n_ranked == 3
    assert back.beyond_ranked(pd.array([pd.NA, 2, 3, 4, 6], dtype="Int64")).tolist() == [False] * 3 + [True] * 2
    old = {"order": np.arange(6), "scores": np.zeros(6), "meta": np.array(json.dumps({"seconds": 1, "params": {}}))}
    np.savez(tmp_path / "old.npz", **old)
    assert load_selection(tmp_path / "old.npz").n_ranked == 6
    with pytest.raises(ValueError, match=r"n_ranked must be in \[0, 6\].*got 7"):
        Selection(np.arange(6), np.zeros(6), 0.1, {}, n_ranked=7)


def test_a_prepared_dataset_on_another_datasets_path_is_refused(tmp_path, rng):
    ds = Dataset(rng.standard_normal((6, 3)), np.arange(6) % 2, info={"dataset": "wine", "chain": "zscore"})
    npz, summary = tmp_path / "resources/prepared/zscore/wine.npz", tmp_path / "resources/prepared/zscore/wine.json"
    save_dataset(ds, npz, summary)
    assert load_dataset(npz).X.shape == (6, 3) and read_json(summary)["dataset"] == "wine"
    for ext, reader in (("npz", load_dataset), ("json", read_json)):
        for other in (f"zscore/iris.{ext}", f"default/wine.{ext}"):
            moved = tmp_path / "resources/prepared" / other
            moved.parent.mkdir(exist_ok=True)
            shutil.copy(npz if ext == "npz" else summary, moved)
            with pytest.raises(IntegrityError, match=rf"corrupt file {moved}: it records chain=zscore, dataset=wine "
                                                     r"but its path is that of chain="):
                reader(moved)


def test_truncated_json_and_garbage_csv_name_the_file(tmp_path):
    summary = tmp_path / "resources/prepared/zscore/wine.json"
    summary.parent.mkdir(parents=True)
    summary.write_text('{"dataset": "wine", "n_sam')
    with pytest.raises(IntegrityError, match=rf"corrupt file {summary}: unreadable as a JSON file "
                                             r"\(JSONDecodeError: .*delete it and rerun"):
        read_json(summary)
    table = tmp_path / "summary.csv"
    table.write_bytes(b"a,b\n1,2\n\xff\xfe\x00garbage")
    with pytest.raises(IntegrityError, match=rf"corrupt file {table}: unreadable as a table"):
        read_csv(table)


def test_metrics_tables_garbage_and_foreign_rows_are_refused(tmp_path):
    run = tmp_path / "results/e/metrics/wine/LS/default/rep0.parquet"
    run.parent.mkdir(parents=True)
    rows = pd.DataFrame({"dataset": "wine", "method": "LS", "params": "default", "rep": 0, "n_features": [2, 5],
                         "metric": "knn_acc", "value": [0.5, 0.6]})
    rows.to_parquet(run)
    assert len(concat_metrics([run], experiment="e")) == 2
    rows.assign(method="MCFS").to_parquet(run)
    with pytest.raises(IntegrityError, match=rf"corrupt file {run}: it records dataset=wine, method=MCFS, "
                                             r"params=default, rep=0 but its path is that of .*method=LS"):
        concat_metrics([run], experiment="e")
    run.write_bytes(b"not a parquet file at all")
    with pytest.raises(IntegrityError, match=rf"corrupt file {run}: unreadable as a metrics table \(ArrowInvalid"):
        concat_metrics([run], experiment="e")
    whole = tmp_path / "results/e2/metrics.parquet"
    whole.parent.mkdir()
    rows.assign(experiment="e").to_parquet(whole)
    with pytest.raises(IntegrityError, match=r"records experiment=e but its path is that of experiment=e2"):
        read_parquet(whole)


def test_provenance_of_an_export_without_git_records_the_package_version(tmp_path):
    info = provenance(tmp_path, {"seed": 1})
    assert info["git_commit"] == "no git" and info["git_modified"] is None
    assert info["version_ufskit"] == ufskit.__version__
    assert provenance()["git_commit"] == "unknown"


def test_counts_beyond_the_ranked_features_are_marked_up_to_the_summary_table(rng):
    X = rng.standard_normal((30, 6))
    sel = Selection(np.arange(6), np.array([2.0, 1, 0, 0, 0, 0]), 0.1, {}, n_ranked=2)
    frame = evaluate_run(X, np.arange(30) % 2, sel, [1, 2, 4], {"distance_norms": {}}, 0, dataset="d", method="MCFS", params="p",
                         rep=0)
    assert frame.groupby("n_features", dropna=False)["beyond_ranked"].all().to_dict() == {1: False, 2: False,
                                                                                           4: True, pd.NA: False}
    other = frame.assign(method="LS", beyond_ranked=False)
    summary = summarize(pd.concat([frame, frame.assign(rep=1, beyond_ranked=False), other]))
    assert summary.query("method == 'MCFS' and n_features == 4")["beyond_ranked"].all()  # any repetition
    assert not summary.query("method == 'LS'")["beyond_ranked"].any()
    md = to_markdown(summary)
    best_l2 = summary.query("method == 'MCFS' and metric == 'L2'").sort_values("mean").iloc[0]
    assert best_l2["n_features"] == 4 and f"{best_l2['mean']:.4g}†" in md  # all features: the smallest L2
    assert "† at a feature count beyond" in md
    assert "†" not in to_markdown(summarize(frame.drop(columns="beyond_ranked")))
