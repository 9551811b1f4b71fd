"""A method marked `batch: true` runs every grid point and repetition in one job, with the numbers of separate jobs."""

from __future__ import annotations

import pandas as pd
import pytest
from test_workflow import snakemake

from conftest import ROOT

pytestmark = pytest.mark.workflow

OVERLAY = """
run: [batch_check]
experiments:
  batch_check:
    description: Random draws, batched or not, on wine.
    paper: generic
    preprocess: default
    datasets: [wine]
    n_features: [2, 5]
    methods:
      Random: {{selector: Random, reps: 3, batch: {batch}}}
      LS: {{selector: LaplacianScore, grid: {{n_neighbors: [3, 5]}}, batch: {batch}}}
      SPEC: {{selector: SPEC, params: {{style: 2}}}}
    metrics:
      kmeans: {{n_runs: 2, n_init: 2}}
      knn: {{ks: [1, 3], n_splits: 2}}
      persistence: {{max_edge: 0.5, min_persistence: 0}}
"""
PROVENANCE = ["git_commit", "git_modified", "config_sha256"]


def run(tmp_path, batch: bool):
    folder = tmp_path / f"batch_{batch}"
    folder.mkdir()
    (folder / "overlay.yaml").write_text(OVERLAY.format(batch=str(batch).lower()))
    args = ("results/batch_check/metrics.parquet", "--configfile", str(ROOT / "config/smoke.yaml"), "overlay.yaml")
    dry = snakemake("-n", *args, cwd=folder).stdout
    snakemake("--cores", "2", *args, cwd=folder)
    frame = pd.read_parquet(folder / "results/batch_check/metrics.parquet").drop(columns=PROVENANCE, errors="ignore")
    keys = ["dataset", "method", "params", "rep", "metric", "n_features"]
    return dry, frame.sort_values(keys, na_position="first").reset_index(drop=True), folder


def test_batched_runs_give_the_numbers_of_separate_jobs(tmp_path):
    dry_batched, batched, folder = run(tmp_path, batch=True)
    dry_separate, separate, _ = run(tmp_path, batch=False)
    assert "run_batched_method" in dry_batched and "run_batched_method" not in dry_separate
    # one job per method instead of 3 select + 3 evaluate jobs for Random and 2 + 2 for LS's grid; SPEC unchanged
    jobs = {dry: int(dry.split("\ntotal")[1].split()[0]) for dry in (dry_batched, dry_separate)}
    assert jobs[dry_separate] - jobs[dry_batched] == 8
    assert sorted(batched.loc[batched.method == "Random", "rep"].unique()) == [0, 1, 2]
    assert batched.loc[batched.method == "LS", "params"].nunique() == 2
    timing = batched["metric"] == "fit_seconds"
    pd.testing.assert_frame_equal(batched[~timing], separate[~timing])
    for method in ("Random", "LS"):  # documented: no selection files
        assert not (folder / f"results/batch_check/selections/wine/{method}").exists()


def test_batch_is_refused_in_ivfs_experiments(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("experiments:\n  smoke_ivfs:\n    methods:\n      Random: {selector: Random, reps: 2, batch: true}\n")
    proc = snakemake("-n", "--configfile", str(ROOT / "config/smoke.yaml"), str(bad), cwd=tmp_path, check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "`batch` is not supported in IVFS experiments" in out, out[-3000:]
