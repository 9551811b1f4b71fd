"""Your own data and selector through Snakemake: the worked example end to end, the scorecard left alone
by a run without paper experiments, a changed local file and config mistakes stopped at start-up."""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest
from test_workflow import snakemake

from conftest import ROOT

pytestmark = pytest.mark.workflow

EXAMPLE = ROOT / "config/examples/own_data.yaml"


def test_own_data_example_end_to_end_leaves_the_scorecard_alone(tmp_path):
    scorecard = tmp_path / "results/scorecard.md"
    scorecard.parent.mkdir(parents=True)
    scorecard.write_text("the papers' scorecard of an earlier run\n")
    dry = snakemake("-n", "--configfile", str(EXAMPLE), cwd=tmp_path).stdout
    assert "rule scorecard" not in dry and "record_local_file" in dry
    snakemake("--cores", "2", "--configfile", str(EXAMPLE), cwd=tmp_path)

    assert scorecard.read_text() == "the papers' scorecard of an earlier run\n"
    assert not (tmp_path / "results/scorecard.csv").exists()
    summary = pd.read_csv(tmp_path / "results/own_benchmark/summary.csv")
    assert set(summary["method"]) == {"ClusterSeparation", "LS", "SPEC", "MCFS", "NDFS", "Random"}
    assert set(summary["dataset"]) == {"own_blobs", "own_blobs_b"}
    # the configured metrics only (kmeans, knn, distance_norms), each with a value wherever the method ran
    assert list(dict.fromkeys(summary["metric"])) == ["kmeans_acc", "kmeans_nmi", "knn_acc", "Linf", "L1_over_n2",
                                                      "L2", "fit_seconds"]
    assert summary.loc[summary["status"] == "ok", "value"].notna().all()
    acc = summary.query("metric == 'kmeans_acc' and dataset == 'own_blobs'").set_index("method")["value"]
    assert acc["ClusterSeparation"] > 0.6  # f1-f3 carry three well-separated classes
    for name in ("summary", "stats", "vs_random"):  # headed by the user's experiment, not the papers' benchmark
        assert (tmp_path / f"results/own_benchmark/{name}.md").read_text().startswith("# Benchmark: own_data")
        assert "<h1>Benchmark: own_data" in (tmp_path / f"results/own_benchmark/{name}.html").read_text()
    for name in ("heatmap.png", "cd.png"):
        assert (tmp_path / "results/own_benchmark" / name).stat().st_size > 0
    vs_random = pd.read_csv(tmp_path / "results/own_benchmark/vs_random.csv")
    assert set(vs_random["method"]) == {"ClusterSeparation", "LS", "SPEC", "MCFS", "NDFS"}
    metrics = pd.read_parquet(tmp_path / "results/own_data/metrics.parquet")
    assert {"git_commit", "git_modified", "config_sha256"} <= set(metrics.columns)
    assert (tmp_path / "resources/local/own_blobs.json").is_file()
    assert "Nothing to be done" in snakemake("-n", "--configfile", str(EXAMPLE), cwd=tmp_path).stdout


def test_a_changed_local_file_stops_the_run(tmp_path):
    data = tmp_path / "mine.csv"
    shutil.copy(ROOT / "config/examples/own_data.csv", data)
    shutil.copy(ROOT / "config/examples/own_data_b.csv", tmp_path)
    overlay = tmp_path / "mine.yaml"
    overlay.write_text(
        EXAMPLE.read_text().replace("path: own_data.csv", "path: mine.csv").replace("python_path: [.]",
                                                                                     f"python_path: [{EXAMPLE.parent}]")
    )
    snakemake("resources/local/own_blobs.json", "--cores", "1", "--configfile", str(overlay), cwd=tmp_path)
    data.write_text(data.read_text().replace("-2.3597", "-2.3598", 1))
    proc = snakemake("-n", "--configfile", str(overlay), cwd=tmp_path, check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "changed since its first use" in out and "own_blobs.json and rerun" in out


@pytest.mark.parametrize(("overlay", "message"), [
    ("experiments:\n  smoke:\n    methods:\n      LS: {selector: LaplacianScore}\n      LS: {selector: SPEC}\n",
     "line 5: duplicate key 'LS' (first at line 4)"),
    ("experiments:\n  smoke:\n    n_features: [0, 2]\n", "0 is not an integer >= 1. Expected a list"),
    ("experiments:\n  smoke:\n    methods:\n      LS: {selector: LaplacianScore, params: {n_neighbour: 5}}\n",
     "has no parameter(s) ['n_neighbour'] ('n_neighbour': did you mean 'n_neighbors'?)"),
    ("experiments:\n  smoke:\n    n_features: [2, 50]\n", "dataset 'wine' has d = 13"),
])
def test_config_mistakes_stop_before_any_job(tmp_path, overlay, message):
    bad = tmp_path / "bad.yaml"
    bad.write_text(overlay)
    proc = snakemake("-n", "--configfile", str(ROOT / "config/smoke.yaml"), str(bad), cwd=tmp_path, check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and message in out, out[-3000:]
    assert "steps" not in out and "Job stats" not in out


@pytest.mark.parametrize(("overlay", "message"), [
    ("run: [own_data, own_dta]\n", "unknown experiment 'own_dta' (did you mean 'own_data'?)"),
    ("experiments:\n  own_data:\n    n_features: [2, 11]\n", "dataset 'own_blobs' has d = 10"),
    ("datasets:\n  own_blobs:\n    loader: tabel\n", "datasets.own_blobs.loader: unknown loader 'tabel'"),
    ("datasets:\n  own_blobs:\n    options: {label: klass}\n",
     "datasets.own_blobs.options.label: column(s) ['klass'] not in the header of own_data.csv"),
    ("datasets:\n  own_blobs_b:\n    options: {label: class, drop: []}\n",
     "column(s) ['sample'] of own_data_b.csv are not numeric"),
])
def test_own_data_mistakes_stop_before_any_job(tmp_path, overlay, message):
    bad = tmp_path / "bad.yaml"
    bad.write_text(overlay)
    proc = snakemake("-n", "--configfile", str(EXAMPLE), str(bad), cwd=tmp_path, check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and message in out, out[-3000:]


def test_offline_config_without_a_mirror_stops_at_start_up(tmp_path):
    proc = snakemake("-n", "--configfile", str(ROOT / "config/offline.yaml"), cwd=tmp_path,
                     env={"UFS_DATA_MIRROR": ""}, check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "data.offline is true" in out and "Set UFS_DATA_MIRROR=" in out, out[-3000:]


def test_an_id_column_warns_a_dataset_without_description_runs_and_a_dry_run_ends_with_its_estimate(tmp_path):
    frame = pd.read_csv(ROOT / "config/examples/own_data.csv")
    frame.insert(0, "id", range(1, len(frame) + 1))
    frame.sort_values("class", kind="stable").to_csv(tmp_path / "ids.csv", index=False)
    overlay = tmp_path / "ids.yaml"
    # a complete entry of its own (the example's own_blobs has a description; this one has none)
    overlay.write_text("datasets:\n  own_ids:\n    path: ids.csv\n    loader: table\n    options: {label: class}\n"
                       "experiments:\n  own_data:\n    datasets: [own_ids, own_blobs_b]\n")
    proc = snakemake("-n", "--configfile", str(EXAMPLE), str(overlay), cwd=tmp_path)
    out = proc.stdout + proc.stderr
    assert "dataset 'own_ids' (ids.csv): column(s) ['id'] look like a row index" in out
    assert "datasets.own_ids.options.drop" in out
    assert "Dry run summary: 35 jobs (" in out and "Estimated time on 2 cores: about" in out


def test_a_failed_job_is_repeated_at_the_end_of_the_run(tmp_path):
    X = np.random.default_rng(0).normal(size=(30, 6))
    X[3, 1] = np.nan
    np.save(tmp_path / "gaps.npy", np.column_stack([X, np.repeat([0, 1, 2], 10)]))
    overlay = tmp_path / "gaps.yaml"
    overlay.write_text("datasets:\n  own_blobs:\n    path: gaps.npy\n    loader: npy\n    options: {label: -1}\n")
    proc = snakemake("resources/prepared/zscore/own_blobs.npz", "--cores", "1", "--configfile", str(EXAMPLE),
                     str(overlay), cwd=tmp_path, check=False)
    tail = (proc.stdout + proc.stderr).split("Exiting because a job execution failed", 1)[-1]
    assert proc.returncode != 0
    assert ("1 job(s) failed" in tail and "rule prepare_dataset, dataset own_blobs: ValueError: dataset 'own_blobs': "
            "gaps.npy: 1 missing or infinite value(s)" in tail and "[log: logs/prepare/zscore/own_blobs.log]" in tail), tail
