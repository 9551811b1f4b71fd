"""`ufskit reference`: a finished run kept as the reference folder that `ufskit compare` reads by default."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from test_compare import make_run

from conftest import ROOT
from ufskit import reference
from ufskit.cli import main

CONFIGS = [ROOT / "config/config.yaml", ROOT / "config/offline.yaml"]


def full_run_csv(path):
    pd.DataFrame({"part": ["ivfs", "total"], "wall_s": [60.0, 61.0]}).to_csv(path, index=False)
    return path


def test_a_run_becomes_a_reference_it_is_identical_to(tmp_path, capsys):
    run = make_run(tmp_path / "results")
    (run / "ivfs/fig2.pdf").write_bytes(b"pdf")
    (run / "ivfs/metrics/rep0.parquet").write_bytes(b"parquet")
    out = tmp_path / "reference"
    args = ["reference", str(run), "--out", str(out), "--full-run", str(full_run_csv(tmp_path / "full_run.csv"))]
    assert main(args + [arg for c in CONFIGS for arg in ("--config", str(c))]) == 0
    kept = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert kept == ["benchmark/stats.csv", "full_run.csv", "ivfs/claims.csv", "ivfs/fig2.png", "ivfs/table1.csv",
                    "provenance.json", "scorecard.csv"]  # no PDF, parquet or per-run file
    record = json.loads((out / "provenance.json").read_text())
    assert len(record["git_commit"]) == 40 and record["machine"]["blas_kernel"] and record["date"]
    assert record["tolerances"]["knn_acc"] == {"absolute": 2.0}  # the config's, which compare then uses
    capsys.readouterr()
    assert main(["compare", str(run), str(out)]) == 0 and "overall: identical" in capsys.readouterr().out


def test_a_rebuilt_reference_keeps_nothing_of_the_old_one(tmp_path):
    out = tmp_path / "reference"
    reference.build(make_run(tmp_path / "a"), out, configs=CONFIGS[:1])
    (out / "stale.csv").write_text("x\n1\n")
    reference.build(make_run(tmp_path / "b"), out, configs=CONFIGS[:1])
    assert not (out / "stale.csv").exists() and (out / "scorecard.csv").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".reference")] == []  # no staging left


def test_a_later_config_updates_an_earlier_ones_tolerances(tmp_path):
    overlay = tmp_path / "overlay.yaml"
    overlay.write_text("scorecard:\n  tolerances:\n    knn_acc: {absolute: 3.0}\n")
    tolerances = reference.provenance(CONFIGS[:1] + [overlay], ROOT)["tolerances"]
    assert tolerances["knn_acc"] == {"absolute": 3.0} and tolerances["w11"] == {"relative": 0.25}


@pytest.mark.parametrize("problem", ["no scorecard", "too large", "no tolerances", "missing full run"])
def test_what_cannot_be_a_reference_is_refused(tmp_path, monkeypatch, problem):
    run, configs, full_run = make_run(tmp_path / "results"), CONFIGS[:1], None
    if problem == "no scorecard":
        (run / "scorecard.csv").unlink()
    elif problem == "too large":
        monkeypatch.setattr(reference, "MAX_MB", 1e-6)
    elif problem == "no tolerances":
        configs = [tmp_path / "bare.yaml"]
        configs[0].write_text("run: []\n")
    else:
        full_run = tmp_path / "nope.csv"
    match = {"no scorecard": "no scorecard.csv", "too large": "above the", "no tolerances": "scorecard.tolerances",
             "missing full run": "--full-run"}[problem]
    with pytest.raises(ValueError, match=match):
        reference.build(run, tmp_path / "reference", configs=configs, full_run=full_run)
    assert not (tmp_path / "reference").exists()


def test_a_benchmark_report_becomes_a_reference_of_its_own(tmp_path):
    """results/all_selectors/ (config/all_selectors.yaml: no scorecard) is kept as reference/all_selectors."""
    report = tmp_path / "results/all_selectors"
    report.mkdir(parents=True)
    pd.DataFrame({"dataset": ["wine"], "method": ["LS"], "metric": ["kmeans_acc"], "verdict": ["better"]}).to_csv(
        report / "vs_random.csv", index=False)
    (report / "vs_random.md").write_text("# Benchmark\n")
    (report / "cd.pdf").write_bytes(b"pdf")
    out = tmp_path / "reference/all_selectors"
    reference.build(report, out, configs=CONFIGS[:1])
    assert sorted(p.name for p in out.iterdir()) == ["provenance.json", "vs_random.csv", "vs_random.md"]
