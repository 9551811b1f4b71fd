"""The ILS paper's smoke experiments through Snakemake: every table and figure of results/smoke_ils/, by content."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from test_workflow import snakemake

from conftest import ROOT

pytestmark = pytest.mark.workflow

RUN = "run=[smoke_ils_uci,smoke_ils_orl,smoke_ils_orl_d]"


@pytest.fixture(scope="module")
def smoke(tmp_path_factory, mirror):
    """One smoke run of the three ILS experiments in a scratch folder."""
    cwd = tmp_path_factory.mktemp("ils")
    snakemake("--cores", "2", "--configfile", str(ROOT / "config/smoke.yaml"), "--config", RUN, cwd=cwd,
              env={"UFS_DATA_MIRROR": str(mirror)})
    return cwd


def test_table1_sets_wine_beside_the_paper(smoke):
    text = (smoke / "results/smoke_ils/table1.md").read_text()
    assert "| wine | Wine | 178 x 13, 3 | 178 x 13 | 0 | 178 x 13, 3 | yes |" in text


def test_variants_compare_the_two_selections(smoke):
    row = pd.read_csv(smoke / "results/smoke_ils/variants.csv").iloc[0]
    assert row["dataset"] == "wine" and row["n_counts"] == 13
    assert 0 <= row["mean_abs_diff"] <= row["max_abs_diff"] <= 1
    assert 0 < row["mean_jaccard"] <= 1 and -1 <= row["spearman_orders"] <= 1
    # IterativeLS-2's selection holds one kept set per count, each of that size
    sel = next((smoke / "results/smoke_ils_uci/selections/wine/IterativeLS-2").rglob("rep0.npz"))
    with np.load(sel) as z:
        sizes = sorted(int(k.split("_")[1]) for k in z.files if k.startswith("subset_"))
        assert sizes == list(range(1, 14)) and all(z[f"subset_{s}"].size == s for s in sizes)


def test_orl_curves_cover_drawn_and_all_people(smoke):
    fig2 = pd.read_csv(smoke / "results/smoke_ils/fig2.csv")
    assert set(fig2["n_clusters"]) == {5, 40} and set(fig2["method"]) == {"LS", "IterativeLS-1"}
    assert set(fig2["metric"]) == {"kmeans_acc", "kmeans_nmi"} and set(fig2["n_features"]) == {20, 200}
    assert fig2["mean"].between(0, 1).all()
    assert fig2.query("n_clusters == 5 and metric == 'kmeans_acc'")["mean"].min() > 0.4  # 5 faces: well above chance
    fig3 = pd.read_csv(smoke / "results/smoke_ils/fig3.csv")
    assert set(fig3["params"]) == {"n_neighbors=5", "n_drop=200_n_neighbors=5_variant=1", "n_drop=400_n_neighbors=5_variant=1"}
    assert fig3["mean"].between(1 / 40, 1).all()  # 1-NN on faces beats guessing among 40 people


def test_claims_give_a_verdict_with_numbers_for_every_claim(smoke):
    text = (smoke / "results/smoke_ils/claims.md").read_text()
    assert text.count("\n## ") == 5
    verdicts = re.findall(r"\*\*(holds|partly holds|does not hold)\*\*", text)
    assert len(verdicts) == 5
    assert "wine" in text and "c=5" in text and "2 per person" in text


def test_figures_and_logs_are_written(smoke):
    for name in ("fig1", "fig2", "fig3"):
        for ext in ("png", "pdf"):
            assert (smoke / f"results/smoke_ils/{name}.{ext}").stat().st_size > 5000, name
    assert list((smoke / "logs/ils").rglob("*.log")) and list((smoke / "logs/times/ils").rglob("*.tsv"))


def test_nothing_left_to_do_after_the_run(smoke, mirror):
    out = snakemake("-n", "--configfile", str(ROOT / "config/smoke.yaml"), "--config", RUN, cwd=smoke,
                    env={"UFS_DATA_MIRROR": str(mirror)}).stdout
    assert "Nothing to be done" in out
