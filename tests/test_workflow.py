"""The Snakemake workflow itself: lint, the full DAG, and the smoke protocol end to end."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from conftest import ROOT

pytestmark = pytest.mark.workflow


def snakemake(*args, cwd=ROOT, env=None, check=True):
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"), *args]
    proc = subprocess.run(cmd, cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout[-4000:]}\n"
                             f"{proc.stderr[-6000:]}")
    return proc


@pytest.mark.parametrize("overlay", [[], ["--configfile", str(ROOT / "config/smoke.yaml"), "--config",
                                          f"paper_folders=[{ROOT / 'tests/papers'}]"]],
                         ids=["built-in papers", "with the toy paper"])
def test_lint_reports_nothing(tmp_path, overlay):
    proc = snakemake("--lint", *overlay, cwd=tmp_path, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_default_config_lists_the_whole_dag(tmp_path):
    out = snakemake("-n", "--quiet", "rules", cwd=tmp_path).stdout
    for rule in ("download_source", "prepare_dataset", "select_features", "evaluate_selection",
                 "aggregate_metrics", "summary_table", "dataset_table", "excluded_datasets", "all"):
        assert rule in out, f"rule {rule} missing from the default DAG:\n{out}"


def test_unknown_dataset_in_config_fails_early(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("experiments:\n  smoke:\n    datasets: [lymphomaa]\n")
    proc = snakemake("-n", "--configfile", str(ROOT / "config/smoke.yaml"), str(bad), cwd=tmp_path, check=False)
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "unknown dataset 'lymphomaa'" in output and "lymphoma" in output


def test_wrong_config_key_is_rejected(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("sed: 3\n")
    proc = snakemake("-n", "--configfile", str(bad), cwd=tmp_path, check=False)
    assert proc.returncode != 0 and "'sed'" in proc.stdout + proc.stderr


def test_smoke_run_end_to_end(tmp_path, mirror):
    env = {"UFS_DATA_MIRROR": str(mirror)}
    smoke = str(ROOT / "config/smoke.yaml")
    only_generic = ("--config", "run=[smoke]")  # each paper's smoke experiments have their own test
    snakemake("--cores", "2", "--configfile", smoke, *only_generic, cwd=tmp_path, env=env)

    results = tmp_path / "results"
    summary = pd.read_csv(results / "smoke/summary.csv")
    assert set(summary["dataset"]) == {"wine", "lymphoma"}
    assert {"LS", "SPEC", "MCFS", "NDFS", "UDFS"} <= set(summary["method"])
    for metric in ("kmeans_acc", "kmeans_nmi", "knn_acc", "cv1nn_acc", "L2", "Linf", "w11", "winf", "fit_seconds"):
        assert metric in set(summary["metric"]), metric
    assert summary.query("dataset == 'wine' and metric == 'w11'")["mean"].max() > 0
    acc = summary.query("metric == 'knn_acc'")["mean"]
    assert acc.between(0, 1).all() and acc.max() > 0.5
    assert (results / "smoke/summary.md").read_text().count("## ") == 2
    assert "| wine | 178 | 13 | 3 |" in (results / "smoke/datasets.md").read_text()
    assert list((tmp_path / "logs").rglob("*.log")), "no logs written"
    assert list((tmp_path / "logs/times").rglob("*.tsv")), "no timing files (benchmark: directives) written"

    # a rerun has nothing to do, and forcing the selections again gives identical rankings
    assert "Nothing to be done" in snakemake("-n", "--configfile", smoke, *only_generic, cwd=tmp_path, env=env).stdout
    first = {p: np.load(p)["order"] for p in (results / "smoke/selections").rglob("*.npz")}
    snakemake("--cores", "2", "--configfile", smoke, *only_generic, "--forcerun", "select_features",
              cwd=tmp_path, env=env)
    for path, order in first.items():
        np.testing.assert_array_equal(np.load(path)["order"], order, err_msg=str(path))
