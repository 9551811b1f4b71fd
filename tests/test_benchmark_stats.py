"""The benchmark's statistics on hand-made tables: Friedman and Nemenyi against the formulas, the complete block,
and the verdicts against Random on constructed draws (one method clearly better, one equal, one worse)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ufskit.papers import benchmark as B
from ufskit.papers import benchmark_stats as S

# K-means ACC of 3 methods on 4 datasets; ranks (1 = best, higher is better):
#   d1: A 1, B 2, C 3;  d2: A 1, B 3, C 2;  d3: A 1, B 2, C 3;  d4: A 2, B 1, C 3
VALUES = {"d1": [0.9, 0.8, 0.7], "d2": [0.6, 0.4, 0.5], "d3": [0.7, 0.6, 0.5], "d4": [0.8, 0.85, 0.3]}
METHODS = ["A", "B", "C"]


def _summary(values=VALUES, methods=METHODS, metric="kmeans_acc", missing=()):
    rows = []
    for dataset, row in values.items():
        for method, value in zip(methods, row):
            status = "not run: why" if (dataset, method) in missing else "ok"
            rows.append({"family": "f", "dataset": dataset, "method": method, "selector": "X", "space": "original",
                         "metric": metric, "value": np.nan if status != "ok" else value, "status": status})
    return pd.DataFrame(rows)


def test_friedman_and_nemenyi_match_the_formulas_computed_by_hand():
    ranks, left_out = S.rank_block(_summary(), "kmeans_acc")
    assert left_out == [] and ranks.to_numpy().tolist() == [[1, 2, 3], [1, 3, 2], [1, 2, 3], [2, 1, 3]]
    res = S.friedman_nemenyi(ranks)
    # mean ranks R = (5/4, 8/4, 11/4); N = 4, k = 3
    n, k, r = 4, 3, np.array([1.25, 2.0, 2.75])
    assert res["mean_ranks"].tolist() == pytest.approx(r.tolist())
    # Friedman: chi2_F = 12 N / (k (k + 1)) [sum R_j^2 - k (k + 1)^2 / 4] = 12 * 4 / 12 * (12.125 - 12) = 4.5
    assert res["chi2"] == pytest.approx(12 * n / (k * (k + 1)) * ((r ** 2).sum() - k * (k + 1) ** 2 / 4))
    assert res["chi2"] == pytest.approx(4.5)
    assert res["p"] == pytest.approx(np.exp(-4.5 / 2))  # chi-square with 2 df: sf(x) = exp(-x / 2)
    # Nemenyi: z = |R_i - R_j| / sqrt(k (k + 1) / (6 N)) = |R_i - R_j| / sqrt(0.5); p from the studentized
    # range of k means, q = z sqrt(2)
    se = np.sqrt(k * (k + 1) / (6 * n))
    assert se == pytest.approx(np.sqrt(0.5))
    for a, b, diff in [("A", "B", 0.75), ("A", "C", 1.5), ("B", "C", 0.75)]:
        p = stats.studentized_range.sf(diff / se * np.sqrt(2), k, np.inf)
        assert res["nemenyi"].loc[a, b] == pytest.approx(p, rel=1e-3), (a, b)
    # CD at alpha 0.05 for k = 3: q_0.05 = 2.343 (Demsar 2006, Table 5a) times sqrt(0.5)
    assert res["cd"] == pytest.approx(2.343 * np.sqrt(0.5), abs=1e-3)


def test_lower_is_better_metrics_rank_the_other_way():
    ranks, _ = S.rank_block(_summary(metric="L2"), "L2")
    assert ranks.loc["d1"].tolist() == [3, 2, 1]


def test_methods_missing_a_dataset_are_left_out_and_ranks_recomputed():
    values = {**VALUES, "d5": [0.1, 0.2, 0.3]}
    summary = _summary(values, missing={("d5", "A")})
    # a dataset without any value (not obtained) drops out
    gone = pd.DataFrame([{"family": "f", "dataset": "d6", "method": m, "selector": "X", "space": "original",
                          "metric": "kmeans_acc", "value": np.nan, "status": "not obtained: x"} for m in METHODS])
    ranks, left_out = S.rank_block(pd.concat([summary, gone]), "kmeans_acc")
    assert left_out == ["A"] and list(ranks.columns) == ["B", "C"]
    assert list(ranks.index) == ["d1", "d2", "d3", "d4", "d5"]
    assert ranks.loc["d2"].tolist() == [2, 1]  # B 0.4 < C 0.5 once A is out
    res = S.friedman_nemenyi(ranks)
    assert np.isnan(res["chi2"]) and (res["nemenyi"] == 1).all().all()  # 2 methods: no test


def test_stats_table_report_and_figure(tmp_path):
    summary = _summary()
    table, results = S.benchmark_stats(summary)
    acc = table[table["metric"] == "kmeans_acc"]
    assert len(acc) == 3 * 2 and acc["friedman_chi2"].iloc[0] == pytest.approx(4.5)
    assert acc.set_index(["method", "other"]).loc[("A", "C"), "nemenyi_p"] == pytest.approx(
        results["kmeans_acc"]["nemenyi"].loc["A", "C"])
    assert (table["metric"] == "L2").sum() == 0  # no values, no rows
    assert list(results) == ["kmeans_acc"]  # the summary's one metric: one test, one CD panel, no blank ones
    text = S.stats_markdown(results)
    assert "| K-means ACC | 4 | 3 | 4.5 | 0.11 | 0.018 |" in text
    assert "- K-means ACC: none." in text  # Friedman p 0.105 > 0.05: no pair is declared different
    from ufskit.plots import save_figure

    fig = S.cd_figure(results)
    assert len(fig.axes) == 1
    save_figure(fig, tmp_path / "cd.png")
    assert (tmp_path / "cd.png").stat().st_size > 10_000


def test_prediction_t_test_follows_its_formula_and_holds_its_level():
    rng = np.random.default_rng(0)
    x, draws = rng.normal(1, 1, 5), rng.normal(0, 1, 20)
    t, p = S.prediction_t_test(x, draws)
    assert t == pytest.approx((x.mean() - draws.mean()) / (draws.std(ddof=1) * np.sqrt(1 / 5 + 1 / 20)))
    assert p == pytest.approx(2 * stats.t.sf(abs(t), 19))
    # under the null (the method's value is one more draw) it rejects 5 % of the time at alpha 0.05
    p_null = [S.prediction_t_test(rng.normal(size=1), rng.normal(size=20))[1] for _ in range(4000)]
    assert np.mean(np.array(p_null) < 0.05) == pytest.approx(0.05, abs=0.01)
    assert S.prediction_t_test(np.array([2.0]), np.full(5, 2.0)) == (0.0, 1.0)
    assert S.prediction_t_test(np.array([3.0]), np.full(5, 2.0)) == (np.inf, 0.0)
    assert np.isnan(S.prediction_t_test(np.array([3.0]), np.array([2.0]))[1])


def _long(dataset, method, metric, reps):
    return [{"experiment": "f", "dataset": dataset, "method": method, "params": "default", "rep": r,
             "n_features": 2, "metric": metric, "value": v} for r, v in enumerate(reps)]


def test_verdicts_against_random_on_constructed_draws():
    """Random's 20 draws ~ 0.5 +- 0.02; Good 0.7 is better, Same 0.5 is not distinguishable, Bad 0.3 is worse
    on ACC; on L2 (lower is better) the same values turn Good into worse and Bad into better."""
    draws = 0.5 + 0.02 * np.random.default_rng(1).standard_normal(20)
    rows = []
    for metric in ("kmeans_acc", "L2"):
        rows += _long("d", "Rand", metric, draws)
        rows += _long("d", "Good", metric, [0.7]) + _long("d", "Same", metric, [draws.mean()])
        rows += _long("d", "Bad", metric, [0.3, 0.31])
    metrics = pd.DataFrame(rows)
    planned = B.plan({"f": {"datasets": ["d"], "methods": {
        "Rand": {"selector": "Random"}, "Good": {"selector": "SPEC"}, "Same": {"selector": "LaplacianScore"},
        "Bad": {"selector": "Variance"}, "K": {"selector": "KernelUDFS"}}}}, {})
    with pytest.raises(ValueError, match="missing"):  # K planned but absent: the summary refuses, as before
        B.summary_table(metrics, planned)
    planned = planned[planned["method"] != "K"]
    table = S.versus_random(metrics, planned).set_index(["method", "metric"])
    assert set(table.index.get_level_values(0)) == {"Good", "Same", "Bad"}  # not Random against itself
    assert table.loc[("Good", "kmeans_acc"), "verdict"] == "better"
    assert table.loc[("Same", "kmeans_acc"), "verdict"] == "not distinguishable"
    assert table.loc[("Bad", "kmeans_acc"), "verdict"] == "worse"
    assert table.loc[("Good", "L2"), "verdict"] == "worse" and table.loc[("Bad", "L2"), "verdict"] == "better"
    good = table.loc[("Good", "kmeans_acc")]
    assert good["draws"] == 20 and good["runs"] == 1 and good["percentile"] == 1.0
    assert good["random_p05"] == pytest.approx(np.quantile(draws, 0.05))
    assert table.loc[("Bad", "kmeans_acc"), "runs"] == 2 and table.loc[("Bad", "kmeans_acc"), "percentile"] == 0.0
    # Holm over the three methods: the smallest p is multiplied by 3, then capped by the order
    acc = table.xs("kmeans_acc", level="metric")
    assert acc["p_holm"].min() == pytest.approx(min(1.0, 3 * acc["p"].min()))
    counts = S.verdict_counts(table.reset_index()).set_index(["method", "metric"])
    assert counts.loc[("Good", "kmeans_acc")].tolist() == [1, 0, 0]
    text = S.versus_random_markdown(table.reset_index())
    assert "| Good | 1 / 0 / 0 | 0 / 0 / 1 |" in text
    assert "| f | d | 0.5" in text and "0.7 ▲" in text and "0.305 ▼" in text


def test_a_single_random_draw_is_untested_not_a_verdict():
    metrics = pd.DataFrame(_long("d", "Rand", "kmeans_acc", [0.5]) + _long("d", "M", "kmeans_acc", [0.9]))
    planned = B.plan({"f": {"datasets": ["d"], "methods": {"Rand": {"selector": "Random"},
                                                           "M": {"selector": "SPEC"}}}}, {})
    table = S.versus_random(metrics, planned)
    assert table["verdict"].tolist() == ["untested (1 Random draw)"]


def test_random_band_gives_the_quantiles_of_the_draws_per_count():
    rows = []
    for count in (1, 2):
        rows += _long("d", "Rand", "knn_acc", np.arange(21) / 20 + count)
        for row in rows[-21:]:
            row["n_features"] = count
    rows += _long("d", "M", "knn_acc", [5.0])
    band = S.random_band(pd.DataFrame(rows), "Rand").set_index("n_features")
    assert band.loc[1, ["low", "median", "high", "draws"]].tolist() == pytest.approx([1.05, 1.5, 1.95, 21])
    assert band.loc[2, "median"] == pytest.approx(2.5) and set(band["dataset"]) == {"d"}


def test_without_a_random_method_there_is_nothing_to_compare():
    metrics = pd.DataFrame(_long("d", "M", "kmeans_acc", [0.9]) + _long("d", "N", "kmeans_acc", [0.8]))
    planned = B.plan({"f": {"datasets": ["d"], "methods": {"M": {"selector": "SPEC"},
                                                           "N": {"selector": "LaplacianScore"}}}}, {})
    table = S.versus_random(metrics, planned)
    assert table.empty and list(table.columns) == S.VS_COLUMNS
    assert "No dataset has a Random method with results" in S.versus_random_markdown(table)
    two = B.plan({"f": {"datasets": ["d"], "methods": {"R1": {"selector": "Random"}, "R2": {"selector": "Random"}}}},
                 {})
    with pytest.raises(ValueError, match="one Random method per dataset"):
        S.versus_random(metrics, two)


def test_too_few_datasets_to_reject_are_said_in_the_table_the_report_and_the_figure():
    # the shipped own-data example's shape: 6 methods on 2 datasets, ranked alike (the strongest data there is)
    assert S.smallest_friedman_p(2, 6) == pytest.approx(stats.chi2.sf(10, 5)) == pytest.approx(0.0752, abs=1e-4)
    assert S.datasets_needed(6) == 3 and S.datasets_needed(3) == 3 and S.datasets_needed(2) == 4
    values = {"d1": [0.9, 0.8, 0.7, 0.6, 0.5, 0.4], "d2": [0.95, 0.85, 0.75, 0.65, 0.55, 0.45]}
    table, results = S.benchmark_stats(_summary(values, list("ABCDEF")))
    res = results["kmeans_acc"]
    assert res["p"] == pytest.approx(res["min_p"]) and table["friedman_min_p"].iloc[0] == pytest.approx(0.0752, 1e-3)
    text = S.stats_markdown(results)
    assert "0.075 (cannot decide)" in text
    assert ("**The test cannot decide**: cannot decide: with 2 datasets and 6 methods the Friedman p is at least "
            "0.075 whatever the data (alpha 0.05); it needs 3 datasets or more.") in text
    title = S.cd_figure(results).axes[0].get_title()
    assert "cannot decide" in title and "needs 3 datasets" in title and "no difference shown" not in title
    assert S.undecidable(S.benchmark_stats(_summary())[1]["kmeans_acc"]) == ""  # 3 methods, 4 datasets: it can
