"""The NRFS paper's rules: the smoke experiments end to end, and the full protocol's DAG."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from conftest import ROOT

pytestmark = pytest.mark.workflow

SMOKE = ["smoke_nrfs_synthetic", "smoke_nrfs_microarray", "smoke_nrfs_nrfs"]
FULL = ["nrfs_synthetic", "nrfs_microarray", "nrfs_microarray_nrfs", "nrfs_microarray_q", "nrfs_text",
        "nrfs_text_nrfs", "nrfs_text_q"]


def snakemake(*args, cwd, env=None):
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"), *args]
    proc = subprocess.run(cmd, cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-6000:]}")
    return proc.stdout


def test_full_protocol_dag(tmp_path):
    jobs = snakemake("-n", "--configfile", str(ROOT / "config/offline.yaml"),
                     "--config", f"run=[{','.join(FULL)}]", cwd=tmp_path)
    for rule in ("nrfs_table1_runs", "nrfs_table1", "nrfs_table2", "nrfs_fig1", "nrfs_sampling", "nrfs_fig4",
                 "nrfs_kmeans_all", "nrfs_fig5", "nrfs_fig6", "nrfs_fig7", "nrfs_claims", "nrfs_sensitivity",
                 "nrfs_sensitivity_figure"):
        assert f"rule {rule}:" in jobs, f"{rule} missing from the NRFS DAG"
    # NRFS is fitted once per DPS fold (4) per dataset and q, MCFS on text once for every cardinality;
    # RCV1-4Class is excluded offline
    for fold in range(4):
        assert f"selections/11_Tumors/NRFS/dps_levels=2_fold={fold}_n_clusters=n_classes_n_neighbors=5_n_neighbors_features=50/rep0.npz" in jobs
    assert "11_Tumors/NRFS/dps_levels=2_fold=0_n_clusters=n_classes_n_neighbors=5_n_neighbors_features=50/rep1.npz" not in jobs
    assert "20NewsgroupA/MCFS/max_nonzero=200+300+500+800+1000+1200+1500+1800_n_clusters=n_classes_n_neighbors=5_weight=cosine/" in jobs
    assert "RCV1-4Class/" not in jobs


def test_smoke_nrfs_end_to_end(tmp_path, mirror):
    env = {"UFS_DATA_MIRROR": str(mirror)}
    # one of the smoke protocol's two NRFS readings: the path is the same for both, each costs a third of the run
    args = ("--configfile", str(ROOT / "config/smoke.yaml"), "--config", f"run=[{','.join(SMOKE)}]",
            "run_readings=[nrfs_q50]")
    snakemake("--cores", "2", *args, cwd=tmp_path, env=env)
    res = tmp_path / "results" / "smoke_nrfs"

    # Table I: every method, both variants, published values beside; NRFS finds the informative features
    t1 = pd.read_csv(res / "table1.csv").set_index("method")
    assert list(t1.index) == ["K-means", "NJW", "LS", "NRFS"]
    assert t1[["nmi_all", "nmi_normal"]].stack().between(0, 1).all()
    assert t1.loc["NRFS", "published_nmi_all"] == 1.0 and t1.loc["NJW", "published_nmi_normal"] == 0.1097
    assert (t1["runs"] == 2).all() and t1.loc["NRFS", "informative_share_all_fig"] > 0
    # beside the calibrated data, the figure reading (Fig. 1's axes at face value): every method separates it
    assert t1[["nmi_all_fig", "nmi_normal_fig"]].stack().between(0.8, 1).all()
    assert "| NRFS |" in (res / "table1.md").read_text()
    assert "| Brain_Tumor2 | 50 (50) |" in (res / "table2.md").read_text()

    # Fig. 4's sampling: one DPS fold of the 90 % kept, about 0.9 n / 4 instances
    s = np.load(res / "nrfs_sampling.npz")
    assert s["removed"].size == 128 and abs(s["representatives"].size - 288) <= 1
    assert not np.intersect1d(s["removed"], s["representatives"]).size

    # Fig. 5: NRFS at q = 50, MCFS at min{M, n} (n = 50: 20 non-zeros at M = 20, the path end at M = 60)
    curves = pd.read_csv(res / "fig5.csv").set_index(["method", "n_features"])
    assert {"NRFS", "NRFS-2", "LS", "MCFS", "NDFS"} == set(curves.index.get_level_values(0))
    metrics = pd.read_parquet(tmp_path / "results/smoke_nrfs_microarray/metrics.parquet")
    mcfs = metrics.query("method == 'MCFS' and metric == 'kmeans_nmi'").set_index(["params", "n_features"])["value"]
    assert curves.loc[("MCFS", 20), "nmi"] == pytest.approx(mcfs[("max_nonzero=20_n_clusters=n_classes_n_neighbors=5", 20)])
    assert curves.loc[("MCFS", 60), "nmi"] == pytest.approx(mcfs[("max_nonzero=100_n_clusters=n_classes_n_neighbors=5", 60)])
    nrfs = pd.read_parquet(tmp_path / "results/smoke_nrfs_nrfs/metrics.parquet")
    q50 = nrfs.query("metric == 'kmeans_nmi' and params.str.endswith('=50') and n_features == 20")["value"]
    assert curves.loc[("NRFS", 20), "nmi"] == pytest.approx(q50.mean())
    q = pd.read_csv(res / "fig6.csv")
    assert sorted(q["q"].unique()) == [30, 50] and set(q["dataset"]) == {"Brain_Tumor2"}
    times = pd.read_csv(res / "fig7.csv")
    assert {"NRFS", "NRFS-2", "MCFS", "NDFS", "LS"} <= set(times["method"]) and (times["seconds"] > 0).all()
    # the sensitivity sweep: every Table I row at each swept value, NRFS's robustness judged from it
    sweep = pd.read_csv(res / "sensitivity.csv")
    assert set(sweep["method"]) == {"K-means", "NJW", "LS", "NRFS"}
    assert sweep.groupby(["parameter", "value"]).ngroups == 4 and len(sweep) == 4 * 4 * 2
    for fig in ("fig1", "fig4", "fig5", "fig6", "fig7", "sensitivity"):
        assert (res / f"{fig}.png").stat().st_size > 10_000 and (res / f"{fig}.pdf").stat().st_size > 1_000

    # the diagnostics (rule nrfs_diagnostics): the spectrum separates the calibrated data from the figure
    # reading, the oracle finds f1-f4
    spectrum = pd.read_csv(res / "nrfs_spectrum.csv")
    target = spectrum[(spectrum["graph"] == "all features") & spectrum["in_target"] & (spectrum["index"] > 1)]
    r2 = target.groupby("dataset")["cluster_r2"].mean()
    assert r2["nrfs_synthetic"] < 0.2 and r2["nrfs_synthetic_fig"] > 0.8
    oracle = pd.read_csv(res / "nrfs_oracle.csv").set_index(["dataset", "target"])
    assert oracle.loc[("nrfs_synthetic", "indicators"), "mean_informative"] == 4
    assert oracle.loc[("nrfs_synthetic", "spectra"), "runs"] == 2

    # the reading: Table I again with q = 50 (capped at m = 34), in the scorecard beside the main reading
    reading = pd.read_csv(tmp_path / "results/readings/nrfs_q50/smoke_nrfs/table1.csv").set_index("method")
    assert list(reading.index) == list(t1.index) and reading.loc["NRFS", "runs"] == 2
    card = pd.read_csv(tmp_path / "results/scorecard.csv", keep_default_na=False)
    assert set(card.loc[card["paper"] == "nrfs", "reading"]) == {"main", "nrfs_q50"}

    claims = (res / "claims.md").read_text()
    assert claims.count("**Verdict: ") == 6 and "Table I" in claims and "Fig. 7" in claims
    assert "noisy features and noisy instances" in claims

    # nothing left to do, and the Table I runs are reproducible
    assert "Nothing to be done" in snakemake("-n", *args, cwd=tmp_path, env=env)
    runs = "results/smoke_nrfs_synthetic/nrfs_table1/nrfs_synthetic/NRFS.parquet"
    first = pd.read_parquet(tmp_path / runs)
    snakemake("--cores", "2", *args, "--force", runs, cwd=tmp_path, env=env)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / runs), first)
