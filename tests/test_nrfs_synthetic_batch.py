"""The NRFS synthetic experiment runs batched (one job per method and dataset) and keeps the selections Table I reads.

Its numbers are those of the separate select and evaluate jobs it replaces: each run keeps its own seeds
(``method_runs`` in workflow/rules/common.smk), and the selection it keeps is the one a select job would save.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest

from conftest import ROOT
from ufskit import runs as R
from ufskit.selection_io import load_selection, save_selection

METRICS = {"kmeans": {"n_runs": 1, "n_init": 2}}


def test_batched_runs_keep_the_selections_of_separate_select_jobs(rng, tmp_path):
    X = rng.standard_normal((40, 10))
    X[:20, :3] += 3.0
    y = np.repeat([0, 1], 20)
    specs = {"NRFS": {"n_clusters": 2, "n_neighbors_features": 1, "n_neighbors": 5},
             "MCFS": {"n_clusters": 2, "n_neighbors": 5, "max_nonzero": 4}}
    runs = [{"params": name, "rep": rep, "spec": {"selector": name, "params": params}, "fit_seed": 100 + rep,
             "evaluation_seed": 7} for name, params in specs.items() for rep in (0, 1)]
    kept = list(R.batched_runs(X, y, runs, [4], METRICS, n_classes=2, dataset="d", method="m"))
    assert [run for run, _, _ in kept] == runs
    for run, sel, table in kept:
        alone = R.fit_run(X, run["spec"], run["fit_seed"], n_classes=2, n_features=[4])
        np.testing.assert_array_equal(sel.order, alone.order)
        np.testing.assert_array_equal(sel.features(4), alone.features(4))
        assert set(table["rep"]) == {run["rep"]} and set(table["params"]) == {run["params"]}
        path = tmp_path / run["params"] / f"rep{run['rep']}.npz"
        path.parent.mkdir(exist_ok=True)
        save_selection(sel, path)
        np.testing.assert_array_equal(load_selection(path).features(4), alone.features(4))
    nrfs = [sel.order for run, sel, _ in kept if run["params"] == "NRFS"]
    assert not np.array_equal(*nrfs)  # each repetition its own seed


@pytest.mark.workflow
def test_the_synthetic_experiment_has_one_job_per_method_and_dataset(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"), "-n",
           "results/smoke_nrfs/table1.csv", "results/smoke_nrfs_synthetic/metrics.parquet",
           "--configfile", str(ROOT / "config/smoke.yaml")]
    proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    jobs = dict(re.findall(r"^(\w+) +(\d+)$", proc.stdout.split("Job stats:")[1].split("\n\n")[0], re.MULTILINE))
    assert "select_features" not in jobs and "evaluate_selection" not in jobs and "run_batched_method" not in jobs
    assert jobs["nrfs_synthetic_batch"] == "4"  # NRFS and one baseline, on the two synthetic datasets
    assert "selections/nrfs_synthetic/NRFS/batch/all" in proc.stdout
