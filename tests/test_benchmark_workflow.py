"""The cross-paper benchmark's smoke protocol through Snakemake: summary, ranks, heat-map, statistics and the
comparison with Random, with their contents."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_benchmark_protocol import papers_selectors
from test_workflow import snakemake

from conftest import ROOT
from ufskit.protocols import load_config

pytestmark = pytest.mark.workflow

RUN = "run=[smoke_benchmark_lowdim,smoke_benchmark_highdim,smoke_tuned]"


def test_benchmark_smoke_builds_summary_ranks_heatmap_and_statistics(tmp_path, mirror):
    """Also the tuned-against-chance unit beside it (smoke_tuned: two grids of two settings, Random's 4 draws)."""
    # CLL-SUB-111 is listed but excluded (as offline runs do): it must stay in the tables as "not obtained"
    extra = tmp_path / "extra.yaml"
    extra.write_text("data:\n  exclude:\n    CLL-SUB-111: not in the mirror\n"
                     "experiments:\n  smoke_benchmark_highdim:\n    datasets: [CLL-SUB-111, lymphoma]\n")
    args = ("--configfile", str(ROOT / "config/smoke.yaml"), str(extra), "--config", RUN)
    snakemake("--cores", "2", *args, cwd=tmp_path, env={"UFS_DATA_MIRROR": str(mirror)})
    out = tmp_path / "results/smoke_benchmark"

    summary = pd.read_csv(out / "summary.csv")
    pairs = summary.drop_duplicates(["dataset", "method"]).set_index(["dataset", "method"])
    assert set(summary["dataset"]) == {"wine", "lymphoma", "CLL-SUB-111"}
    assert set(pairs["selector"]) == papers_selectors(load_config(ROOT)["experiments"])
    assert pairs.loc[("lymphoma", "Variance"), "status"].startswith("not run: z-scored")
    assert set(pairs.loc["CLL-SUB-111", "status"]) == {"not obtained: not in the mirror"}
    assert (pairs.drop(index=[("lymphoma", "Variance")]).loc[["wine", "lymphoma"], "status"] == "ok").all()
    # counts are fractions of each dataset's d (13, 4026), of n for the kernel features (178)
    assert pairs.loc[("wine", "LS"), "counts"] == "3,6"
    assert pairs.loc[("lymphoma", "LS"), "counts"] == "20,40"
    assert pairs.loc[("wine", "KernelUDFS"), ["space", "counts"]].tolist() == ["kernel", "36,89"]

    # each value is the mean over counts of the run's metrics; ranks are 1..m per dataset and metric
    metrics = pd.read_parquet(tmp_path / "results/smoke_benchmark_lowdim/metrics.parquet")
    nmi = metrics.query("method == 'MCFS' and metric == 'kmeans_nmi'")["value"].mean()
    assert summary.query("dataset == 'wine' and method == 'MCFS' and metric == 'kmeans_nmi'")["value"].item() == \
        pytest.approx(nmi, rel=1e-5)
    ok = summary[summary["status"] == "ok"]
    assert ok["value"].notna().all()
    ranked = ok[ok["space"] == "original"]
    for (dataset, metric), group in ranked.groupby(["dataset", "metric"]):
        m = len(group)
        assert m == (11 if dataset == "wine" else 10)
        assert group["rank"].sum() == pytest.approx(m * (m + 1) / 2), (dataset, metric)
    assert summary.loc[summary["space"] == "kernel", "rank"].isna().all()
    assert ok.query("metric == 'knn_acc'")["value"].between(0, 1).all()
    assert (ok.query("metric == 'fit_seconds'")["value"] > 0).all()
    assert (ok.query("metric in ['w11', 'winf', 'L2']")["value"] >= 0).all()

    ranks = pd.read_csv(out / "ranks.csv").set_index(["method", "metric"])
    assert "KernelUDFS" not in ranks.index.get_level_values(0)
    assert ranks.loc[("Variance", "knn_acc"), "n_datasets"] == 1 and ranks.loc[("LS", "knn_acc"), "n_datasets"] == 2
    by_hand = ranked.query("method == 'LS' and metric == 'kmeans_acc'")["rank"].mean()
    assert ranks.loc[("LS", "kmeans_acc"), "mean_rank"] == pytest.approx(by_hand, abs=1e-3)

    md = (out / "summary.md").read_text()
    assert "| smoke_benchmark_highdim | lymphoma | Variance | not run: z-scored" in md
    assert "| smoke_benchmark_highdim | CLL-SUB-111 | every method | not obtained: not in the mirror |" in md
    assert "Not ranked (features of a derived space, not original features): KernelUDFS" in md
    assert (out / "heatmap.png").stat().st_size > 50_000 and (out / "heatmap.pdf").exists()
    assert np.isfinite(ranks["mean_rank"]).all()

    # Random: 4 draws, its value the mean of their summaries
    assert pairs.loc[("wine", "Random"), "reps"] == 4
    draws = metrics.query("method == 'Random' and metric == 'kmeans_acc'").groupby("rep")["value"].mean()
    assert len(draws) == 4 and draws.nunique() > 1  # different seeds, different subsets
    assert summary.query("dataset == 'wine' and method == 'Random' and metric == 'kmeans_acc'")["value"].item() == \
        pytest.approx(draws.mean(), rel=1e-5)

    # Friedman + Nemenyi on the complete block: Variance (not run on lymphoma) is left out, 10 methods, 2 datasets
    stats = pd.read_csv(out / "stats.csv")
    acc = stats[stats["metric"] == "kmeans_acc"]
    assert acc[["n_datasets", "n_methods"]].drop_duplicates().values.tolist() == [[2, 10]]
    assert "Variance" not in set(acc["method"]) and "Random" in set(acc["method"])
    assert len(acc) == 10 * 9 and acc["nemenyi_p"].between(0, 1).all() and acc["friedman_p"].between(0, 1).all()
    stats_md = (out / "stats.md").read_text()
    assert "| K-means ACC | 2 | 10 |" in stats_md and "Variance" in stats_md
    assert (out / "cd.png").stat().st_size > 50_000 and (out / "cd.pdf").exists()

    # every ranked method against Random's draws on both datasets; Random and KernelUDFS are not tested
    vs = pd.read_csv(out / "vs_random.csv")
    assert set(vs["dataset"]) == {"wine", "lymphoma"} and not {"Random", "KernelUDFS"} & set(vs["method"])
    assert set(vs["verdict"]) <= {"better", "not distinguishable", "worse"}
    assert (vs["draws"] == 4).all() and (vs["random_p05"] <= vs["random_p95"]).all()
    assert len(vs.query("dataset == 'wine'")) == 10 * 8 and "fit_seconds" not in set(vs["metric"])
    assert "# Cross-paper benchmark: every method against Random" in (out / "vs_random.md").read_text()

    # tuned against chance: each grid method's best of its 2 settings beside Random's best of 2 of its 4 draws
    tuned = pd.read_csv(tmp_path / "results/smoke_tuned_report/tuned.csv")
    assert set(tuned["method"]) == {"LLCFS", "InfFS"} and set(tuned["metric"]) == {"kmeans_acc", "kmeans_nmi", "knn_acc"}
    assert (tuned["G"] == 2).all() and (tuned["groups"] == 2).all() and set(tuned["verdict"]) <= {
        "better", "not distinguishable", "worse"}
    runs = pd.read_parquet(tmp_path / "results/smoke_tuned/metrics.parquet").query("metric == 'kmeans_acc'")
    best = runs[runs["method"] == "InfFS"].groupby("params")["value"].mean().max()
    assert tuned.query("method == 'InfFS' and metric == 'kmeans_acc'")["value"].item() == pytest.approx(best, rel=1e-5)
    draws = runs[runs["method"] == "Random"].groupby("rep")["value"].mean().sort_values()
    chance = tuned.query("method == 'InfFS' and metric == 'kmeans_acc'")["chance_best_of_g"].item()
    assert draws.iloc[1] - 1e-9 <= chance <= draws.iloc[-1] + 1e-9  # a best of 2 of 4 draws: never the lowest
    assert "| InfFS | 2 |" in (tmp_path / "results/smoke_tuned_report/tuned.md").read_text()
