"""The kernel-UDFS paper's smoke experiments through Snakemake: Table 1, Figs. 1-2, claims; on the same run, the
scorecard and the HTML report (one run of the default target shared by the tests of this file)."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile

import numpy as np
import pandas as pd
import pytest
from test_scorecard import n_published

from conftest import ROOT
from ufskit import chance as C

pytestmark = pytest.mark.workflow

SMOKE = ["smoke_kudfs_udfs", "smoke_kudfs_table1", "smoke_kudfs_fig1", "smoke_kudfs_fig2"]
TARGETS = [f"results/smoke_kudfs/{f}" for f in
           ("table1.csv", "table1.md", "fig1.png", "fig1.pdf", "fig2.csv", "fig2.png", "fig2.pdf", "claims.md")]


def snakemake(*args, cwd, env):
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"), *args,
           "--configfile", str(ROOT / "config/smoke.yaml"), "--config", f"run=[{','.join(SMOKE)}]"]
    proc = subprocess.run(cmd, cwd=cwd, env={**os.environ, **env}, capture_output=True, text=True)
    if proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout[-4000:]}\n"
                             f"{proc.stderr[-6000:]}")
    return proc


def test_kudfs_targets_are_part_of_the_default_target(tmp_path):
    env = {"UFS_DATA_MIRROR": str(tmp_path)}  # a dry run reads no data
    out = snakemake("-n", "--quiet", "rules", cwd=tmp_path, env=env).stdout
    for rule in ("kudfs_kernel_pca", "kudfs_kernel_kmeans", "kudfs_distance_ratio", "kudfs_table1",
                 "kudfs_fig1", "kudfs_fig2_data", "kudfs_fig2", "kudfs_claims"):
        assert rule in out, f"rule {rule} missing from the DAG:\n{out}"


@pytest.fixture(scope="module")
def smoke(tmp_path_factory, mirror):
    """The smoke protocol's default target with the kernel-UDFS experiments only: their report, the two cheap
    readings and the scorecard, run once for this file."""
    workdir = tmp_path_factory.mktemp("smoke_kudfs")
    env = {"UFS_DATA_MIRROR": str(mirror), "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    snakemake("--cores", "2", cwd=workdir, env=env)
    return workdir, env


def test_kudfs_smoke_end_to_end(smoke):
    tmp_path, env = smoke
    report = tmp_path / "results/smoke_kudfs"

    table = pd.read_csv(report / "table1.csv").set_index("dataset")
    row = table.loc["thyroid"]
    assert row["d"] == 5
    assert (row["all_features_published"], row["udfs_published"], row["kernel_udfs_published"]) == (78.7, 78.5, 92.8)
    for col in ("all_features", "udfs", "kernel_udfs"):
        assert 50.0 <= row[col] <= 100.0, col
    assert row["udfs"] >= row["all_features"]  # UDFS's count 5 = all features, and the best is over 1..5
    assert 1 <= row["kernel_udfs_n_features"] <= 5  # count 6 is evaluated but lies beyond d = 5
    assert row["kernel_udfs_setting"] in ("kernel_const=0.1", "kernel_const=0.5")
    assert f"{row['kernel_udfs']:.1f} (92.8)" in (report / "table1.md").read_text()
    # Random under the same selection: G = 1 for UDFS, the grid's 2 widths for kernel UDFS, ACC (%) with a spread
    assert (row["udfs_G"], row["kernel_udfs_G"]) == (1, 2)
    for col in ("udfs_chance", "kernel_udfs_chance"):
        assert 30.0 <= row[col] <= 100.0 and row[f"{col}_std"] >= 0, col
        g = row[col.replace("_chance", "_G")]
        k = C.draws_needed([(g, 1)]) // g  # groups per partition of the pool (one repetition per setting)
        assert row[f"{col}_se"] == pytest.approx(row[f"{col}_std"] / np.sqrt(k), abs=1e-3), col  # csv: 3 decimals
    pool = pd.read_parquet(tmp_path / "results/smoke_kudfs_table1/kudfs/chance/thyroid.parquet")
    acc = pool[pool["metric"] == "kmeans_acc"]
    # 2 x G R = 4 draws would do; a pool holds at least MIN_DRAWS = 20
    assert pool["params"].nunique() == C.MIN_DRAWS and sorted(acc["n_features"].unique()) == [1, 2, 3, 4, 5]
    assert "## Random, best of G" in (report / "table1.md").read_text()

    curves = pd.read_csv(report / "fig2.csv")
    assert set(curves["method"]) == {"KernelUDFS", "KernelPCA", "KernelKMeans"}
    counted = curves[curves["method"] != "KernelKMeans"]
    assert counted["n_features"].between(1, 5).all() and len(counted) == 10
    assert curves["acc"].between(0.5, 1.0).all()

    claims = (report / "claims.md").read_text()
    verdict_rows = [line for line in claims.splitlines() if line.startswith("| Table 1") or line.startswith("| Fig.")]
    assert len(verdict_rows) == 3
    assert all(("| holds |" in line) != ("| does not hold |" in line) for line in verdict_rows)
    assert f"thyroid: {row['kernel_udfs']:.1f} vs UDFS {row['udfs']:.1f}" in claims
    assert "Kernel UDFS beats Random, best of G = 2 (the same selection), on" in claims

    for name in ("fig1", "fig2"):
        assert (report / f"{name}.png").stat().st_size > 10_000
        assert (report / f"{name}.pdf").read_bytes()[:4] == b"%PDF"
    assert list((tmp_path / "logs/kudfs").rglob("*.log")) and list((tmp_path / "logs/times/kudfs").rglob("*.tsv"))
    assert "Nothing to be done" in snakemake("-n", *TARGETS, cwd=tmp_path, env=env).stdout


def test_scorecard_and_report_end_to_end(smoke):
    tmp_path, env = smoke

    claims = pd.read_csv(tmp_path / "results/smoke_kudfs/claims.csv")
    assert claims["id"].tolist() == ["KUDFS/T1", "KUDFS/Fig1", "KUDFS/Fig2"]
    assert set(claims["verdict"]) <= {"holds", "does not hold"}
    card = pd.read_csv(tmp_path / "results/scorecard.csv", keep_default_na=False)
    numbers = card[(card["kind"] == "number") & (card["reading"] == "main")]
    assert len(numbers) == n_published()
    kudfs_rows = numbers[numbers["paper"] == "kudfs"].set_index(["dataset", "method"])
    # the cheap readings of the kernel-UDFS paper, derived from the smoke experiments, beside the main reading
    alternatives = card[(card["kind"] == "number") & (card["reading"] != "main")]
    assert set(alternatives["reading"]) == {"kudfs_width_sigma2", "kudfs_kmeans_random"}
    assert len(alternatives) == 2 * 18 and (alternatives["base"] == "smoke_kudfs").all()
    for reading in ("kudfs_width_sigma2", "kudfs_kmeans_random"):
        alt = pd.read_csv(tmp_path / f"results/readings/{reading}/smoke_kudfs/table1.csv").set_index("dataset")
        row = alternatives[(alternatives["reading"] == reading) & (alternatives["dataset"] == "thyroid")
                           & (alternatives["method"] == "KernelUDFS")]
        assert float(row["reproduced"].iloc[0]) == pytest.approx(alt.loc["thyroid", "kernel_udfs"])
    thyroid_rows = card[(card["kind"] == "number") & (card["dataset"] == "thyroid")]
    gaps = (thyroid_rows["reproduced"].astype(float) - 92.8).abs()[thyroid_rows["method"] == "KernelUDFS"]
    nearest = thyroid_rows.loc[gaps.idxmin(), "reading"] if gaps.nunique() == len(gaps) else None
    closest = set(thyroid_rows.loc[thyroid_rows["method"] == "KernelUDFS", "closest_reading"])
    assert len(closest) == 1 and (nearest is None or closest in ({nearest}, {"too close to call"}))
    md_text = (tmp_path / "results/scorecard.md").read_text()
    assert "| kudfs_kmeans_random | kudfs_width_sigma2 | closest |" in md_text
    assert "| results/readings/kudfs_width_sigma2/smoke_kudfs/ | kudfs_width_sigma2 |" in md_text
    table1 = pd.read_csv(tmp_path / "results/smoke_kudfs/table1.csv").set_index("dataset")
    thyroid = kudfs_rows.loc[("thyroid", "KernelUDFS")]
    assert float(thyroid["reproduced"]) == pytest.approx(table1.loc["thyroid", "kernel_udfs"])
    assert float(thyroid["difference"]) == pytest.approx(table1.loc["thyroid", "kernel_udfs"] - 92.8)
    assert thyroid["within_tolerance"] in ("yes", "no")
    assert (kudfs_rows.drop(index="thyroid", level=0)["outcome"] == "not in this run").all()
    assert (numbers.loc[numbers["paper"] != "kudfs", "outcome"] == "not run").all()
    verdicts = card[(card["kind"] == "claim") & (card["reading"] == "main")].set_index("claim_id")["outcome"]
    assert set(card.loc[card["kind"] == "claim", "reading"]) == {"main", "kudfs_width_sigma2", "kudfs_kmeans_random"}
    assert verdicts.loc["KUDFS/T1"] == "smoke: " + claims.loc[0, "verdict"]  # a smoke run reproduces nothing
    assert verdicts.loc["KUDFS/Fig2"] == "smoke: " + claims.loc[2, "verdict"]
    assert (card["protocol"] == "smoke").all()
    assert (verdicts.drop(["KUDFS/T1", "KUDFS/Fig1", "KUDFS/Fig2"]) == "not run").all()
    assert "results/smoke_kudfs/" in (tmp_path / "results/scorecard.md").read_text()

    report = snakemake("--report", "report.zip", cwd=tmp_path, env=env)
    assert "RuntimeWarning" not in report.stderr  # profiles/default's constant disk_mb
    assert "warning" not in (report.stdout + report.stderr).lower()  # "Missing metadata" came from another config
    with zipfile.ZipFile(tmp_path / "report.zip") as z:
        names = z.namelist()
        html = z.read(next(n for n in names if n.endswith("report.html"))).decode()
    for item in ("fig1.png", "fig2.png", "table1.html", "claims.html", "scorecard.html"):  # tables: their HTML pages
        assert any(n.endswith("/" + item) for n in names), f"{item} missing from the report: {names}"
    assert "Kernel UDFS paper, <strong>Fig. 1</strong> reproduced" in html  # the captions, rendered
    assert "Kernel UDFS paper, <strong>Table 1</strong> reproduced" in html
    assert "<strong>Fig. 1</strong> reproduced in reduced form (smoke protocol)" in html  # captions from the run
    assert "on thyroid (the paper: ionosphere" in html and "Experiment <tt" in html
    assert "Scorecard of this run" in html and "reproduces unsupervised feature selection papers, the registered papers" in html
