"""The IVFS paper's smoke protocol through Snakemake: every table, figure and the claims, with their contents."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from test_workflow import snakemake

from conftest import ROOT

pytestmark = pytest.mark.workflow


def test_ivfs_smoke_builds_every_output(tmp_path, mirror):
    # CLL-SUB-111 is listed but excluded (as offline runs do): it must stay in the tables as "not obtained"
    extra = tmp_path / "extra.yaml"
    extra.write_text("data:\n  exclude:\n    CLL-SUB-111: not in the mirror\n"
                     "experiments:\n  smoke_ivfs:\n    datasets: [CLL-SUB-111, lymphoma]\n")
    args = ("--cores", "2", "--configfile", str(ROOT / "config/smoke.yaml"), str(extra), "--config", "run=[smoke_ivfs]")
    snakemake(*args, cwd=tmp_path, env={"UFS_DATA_MIRROR": str(mirror)})
    out = tmp_path / "results/smoke_ivfs"

    t1 = pd.read_csv(out / "table1.csv")
    assert set(t1.loc[t1["dataset"] == "CLL-SUB-111", "status"]) == {"not obtained: not in the mirror"}
    lym = t1[t1["dataset"] == "lymphoma"].set_index(["method", "metric"])
    assert set(lym.index.get_level_values(0)) == {"SPEC", "MCFS", "GLSPFS", "IVFS-linf"}
    assert lym.loc[("IVFS-linf", "knn_acc"), "published"] == 94.0
    assert 0 < lym.loc[("IVFS-linf", "knn_acc"), "reproduced"] <= 100
    assert lym.xs("Linf", level=1)["reproduced"].between(0, 1).all()
    # Table 1's IVFS setting on n = 96 < 1000 is n~ = 0.1n
    assert lym.loc[("IVFS-linf", "L2"), "params"].endswith("subset_samples=0.1")
    assert lym.loc[("IVFS-linf", "fit_seconds"), "reproduced"] > 0
    md = (out / "table1.md").read_text()
    assert "| lymphoma | 96 | 4026 | 9 | IVFS-linf |" in md and "not obtained" in md
    # Random under the same selection (rule ivfs_chance): IVFS-linf's G = 2 settings (k in {30, 60} at n~ = 0.1n)
    assert lym.loc[("IVFS-linf", "knn_acc"), "G"] == 2 and 0 < lym.loc[("IVFS-linf", "knn_acc"), "chance_best_of_g"] < 100
    assert "## Random, best of G" in md and "| lymphoma | IVFS-linf | 2 |" in md
    chance = lym.loc[("IVFS-linf", "knn_acc")]
    assert 0 <= chance["chance_se"] <= chance["chance_std"]  # the mean's error: one try's sd / sqrt(k groups)

    t2 = pd.read_csv(out / "table2.csv")
    ok = t2[t2["status"] == "ok"]
    assert set(ok["method"]) == {"SPEC", "MCFS", "GLSPFS", "IVFS-linf"}
    assert ok["reproduced"].between(0, 5).all() and (ok["reps"] == 2).all()

    metrics = pd.read_parquet(out.parent / "smoke_ivfs/metrics.parquet")
    pers = metrics[metrics["metric"].isin(["w11", "winf", "w11_literal", "winf_literal"])]
    assert set(pers["n_features"]) == {5, 10}  # the protocol's persistence counts only
    assert not pers.empty and (pers["value"] >= 0).all()
    assert len(metrics.query("method == 'IVFS-linf' and metric == 'fit_seconds'")) == 6 * 2  # settings x reps

    f4 = pd.read_csv(out / "fig4.csv")
    ref = f4[(f4["n_subsets"] == 60) & (f4["subset_samples"] == 0.5)]
    assert len(ref) == 3 and (ref["relative"] == 1.0).all()
    for fig in ("fig2", "fig3", "fig4"):
        assert (out / f"{fig}.png").stat().st_size > 10_000 and (out / f"{fig}.pdf").exists()
    assert set(pd.read_csv(out / "fig2.csv")["method"]) == {"SPEC", "MCFS", "GLSPFS", "IVFS-linf"}
    # the diagnostic of the seeds (rule ivfs_seed_correlation): one row per dataset and k
    seeds = pd.read_csv(out / "ivfs_seed_correlation.csv")
    assert seeds[["dataset", "n_subsets", "seeds", "pairs"]].values.tolist() == [["lymphoma", 30, 2, 1],
                                                                                  ["lymphoma", 60, 2, 1]]
    assert seeds["spearman_mean"].between(-1, 1).all()
    claims = (out / "claims.md").read_text()
    assert claims.count("## ") == 7 and len(re.findall(r"\*\*(holds|partly holds|does not hold)\*\*", claims)) == 8  # T1 has two verdict lines
