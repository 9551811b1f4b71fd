"""The cross-paper benchmark's tables on hand-made frames: plan, per-count means, ranks, mean ranks, report."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ufskit.papers import benchmark as B

EXPERIMENTS = {
    "fam1": {
        "datasets": ["A", "B", "C"],
        "methods": {
            "M1": {"selector": "LaplacianScore"},
            "M2": {"selector": "SPEC"},
            "M3": {"selector": "Variance", "exclude": {"B": "unit variance"}},
            "K": {"selector": "KernelUDFS"},
        },
    },
}
EXCLUDED = {"C": "not in the mirror"}


def _rows(dataset, method, metric, values_by_rep, counts=(1, 2)):
    """Long-table rows; values_by_rep[r] lists the value at each count (one value for fit_seconds)."""
    rows = []
    for rep, values in enumerate(values_by_rep):
        for count, value in zip([pd.NA] if metric == "fit_seconds" else counts, values):
            rows.append({"experiment": "fam1", "dataset": dataset, "method": method, "params": "default",
                         "rep": rep, "n_features": count, "metric": metric, "value": value})
    return rows


def _metrics():
    rows = []
    for dataset, acc, l2, secs in [
        # dataset A: M1 0.6, M2 0.8, M3 0.6 (tie), K 0.9 (not ranked)
        ("A", {"M1": [[0.5, 0.7]], "M2": [[0.8, 0.8]], "M3": [[0.4, 0.8]], "K": [[0.9, 0.9]]},
         {"M1": [[0.3, 0.1]], "M2": [[0.15, 0.15]], "M3": [[0.1, 0.1]], "K": [[0.0, 0.0]]},
         {"M1": [[1.0]], "M2": [[2.0]], "M3": [[0.5]], "K": [[9.0]]}),
        # dataset B: M3 not run; M1 has two repetitions (means 0.5 and 0.7 -> 0.6)
        ("B", {"M1": [[0.4, 0.6], [0.6, 0.8]], "M2": [[0.9, 0.9]], "K": [[0.1, 0.1]]},
         {"M1": [[0.2, 0.2], [0.2, 0.2]], "M2": [[0.3, 0.3]], "K": [[0.5, 0.5]]},
         {"M1": [[3.0], [5.0]], "M2": [[1.0]], "K": [[1.0]]}),
    ]:
        for metric, table in (("kmeans_acc", acc), ("L2", l2), ("fit_seconds", secs)):
            for method, values in table.items():
                rows += _rows(dataset, method, metric, values)
    return pd.DataFrame(rows).astype({"n_features": "Int64"})


@pytest.fixture
def summary():
    return B.summary_table(_metrics(), B.plan(EXPERIMENTS, EXCLUDED))


def _cell(summary, dataset, method, metric):
    return summary.set_index(["dataset", "method", "metric"]).loc[(dataset, method, metric)]


def test_plan_gives_every_pair_a_status():
    plan = B.plan(EXPERIMENTS, EXCLUDED).set_index(["dataset", "method"])
    assert len(plan) == 3 * 4
    assert plan.loc[("A", "M1"), "status"] == "ok"
    assert plan.loc[("B", "M3"), "status"] == "not run: unit variance"
    assert (plan.loc["C", "status"] == "not obtained: not in the mirror").all()
    assert plan.loc[("A", "K"), "space"] == "kernel" and plan.loc[("A", "M1"), "space"] == "original"


def test_plan_refuses_a_dataset_in_two_families_and_a_typo_in_exclude():
    with pytest.raises(ValueError, match="two benchmark experiments"):
        B.plan({**EXPERIMENTS, "fam2": {"datasets": ["A"], "methods": {"M1": {"selector": "SPEC"}}}}, {})
    bad = {"fam1": {"datasets": ["A"], "methods": {"M1": {"selector": "SPEC", "exclude": {"Z": "why"}}}}}
    with pytest.raises(ValueError, match="'Z', which is not a dataset"):
        B.plan(bad, {})


def test_value_is_the_mean_over_counts_then_repetitions(summary):
    assert _cell(summary, "A", "M1", "kmeans_acc")["value"] == pytest.approx(0.6)
    m1b = _cell(summary, "B", "M1", "kmeans_acc")
    assert m1b["value"] == pytest.approx(0.6) and m1b["reps"] == 2 and m1b["counts"] == "1,2"
    assert _cell(summary, "B", "M1", "fit_seconds")["value"] == pytest.approx(4.0)


def test_ranks_follow_each_metrics_direction_and_share_ties(summary):
    acc = {m: _cell(summary, "A", m, "kmeans_acc")["rank"] for m in ("M1", "M2", "M3")}
    assert acc == {"M1": 2.5, "M2": 1.0, "M3": 2.5}  # higher is better; M1 and M3 tie at 0.6 (to rounding)
    l2 = {m: _cell(summary, "A", m, "L2")["rank"] for m in ("M1", "M2", "M3")}
    assert l2 == {"M1": 3.0, "M2": 2.0, "M3": 1.0}  # lower is better
    assert _cell(summary, "A", "M3", "fit_seconds")["rank"] == 1.0
    # the kernel-space selector has values but no rank; missing pairs have neither
    assert _cell(summary, "A", "K", "kmeans_acc")["value"] == pytest.approx(0.9)
    assert np.isnan(_cell(summary, "A", "K", "kmeans_acc")["rank"])
    not_run = _cell(summary, "B", "M3", "L2")
    assert np.isnan(not_run["value"]) and not_run["status"].startswith("not run")
    assert set(summary.loc[summary["dataset"] == "C", "status"]) == {"not obtained: not in the mirror"}
    # only the values the runs report (kmeans_acc, L2, fit time): no blank rows for metrics not configured
    assert list(dict.fromkeys(summary["metric"])) == ["kmeans_acc", "L2", "fit_seconds"]
    assert len(summary) == 12 * 3


def test_mean_ranks_average_over_the_datasets_each_method_ran_on(summary):
    ranks = B.mean_ranks(summary).set_index(["method", "metric"])
    assert set(ranks.index.get_level_values(0)) == {"M1", "M2", "M3"}
    # kmeans_acc: M1 2.5 on A and 2 on B (B ranks M2 0.9 > M1 0.6); M3 only on A
    assert ranks.loc[("M1", "kmeans_acc"), "mean_rank"] == pytest.approx(2.25)
    assert ranks.loc[("M3", "kmeans_acc"), ["mean_rank", "n_datasets"]].tolist() == [2.5, 1]
    assert ranks.loc[("M2", "kmeans_acc"), "wins"] == 2
    assert ranks.loc[("M3", "L2"), "wins"] == 1 and ranks.loc[("M1", "L2"), "wins"] == 1  # A and B
    # order: by the label-based metrics (kmeans_acc here: 1, 2.25, 2.5), not by L2 (where M3 is best)
    assert B.method_order(B.mean_ranks(summary)) == ["M2", "M1", "M3"]


def test_results_must_match_the_plan():
    plan = B.plan(EXPERIMENTS, EXCLUDED)
    metrics = _metrics()
    with pytest.raises(ValueError, match=r"missing \[\('A', 'M2'\)\]"):
        B.summary_table(metrics[~((metrics["dataset"] == "A") & (metrics["method"] == "M2"))], plan)
    extra = pd.DataFrame(_rows("B", "M3", "L2", [[0.1, 0.1]])).astype({"n_features": "Int64"})
    with pytest.raises(ValueError, match=r"unplanned \[\('B', 'M3'\)\]"):
        B.summary_table(pd.concat([metrics, extra]), plan)
    second = metrics[metrics["method"] == "M2"].assign(params="style=1")
    with pytest.raises(ValueError, match="one parameter setting"):
        B.summary_table(pd.concat([metrics, second]), plan)


def test_markdown_lists_ranks_statuses_and_every_metric(summary):
    text = B.summary_markdown(summary, B.mean_ranks(summary), B.protocol_markdown(
        {"fam1": {**EXPERIMENTS["fam1"], "preprocess": "default", "n_features": {"fractions": [0.5]}, "reps": 1,
                  "metrics": {"kmeans": {"n_runs": 2}}}}))
    assert "| M1 | 2.25 (2) |" in text
    assert "| fam1 | B | M3 | not run: unit variance |" in text
    assert "| fam1 | C | every method | not obtained: not in the mirror |" in text
    assert "Not ranked (features of a derived space, not original features): K" in text
    assert "| fam1 | A | 0.8 (1) | 0.6 (2.5) | 0.6 (2.5) | 0.9 |" in text  # kmeans_acc row of A: M2, M1, M3, K
    assert text.count("\n## ") == 2 + 3  # mean ranks, not run; kmeans_acc, L2, fit time
    assert "K-means NMI" not in text and "| method | K-means ACC | dist. L2 | fit time |" in text
    assert "`fam1`: preprocessing `default`, counts {'fractions': [0.5]}" in text


def test_heatmap_is_the_mean_rank_overview_and_one_figure_per_group_of_metrics(summary, tmp_path):
    from ufskit.plots import save_figure

    fig = B.heatmap(summary, B.mean_ranks(summary))
    panels = [ax for ax in fig.axes if ax.get_title()]
    assert len(panels) == 1  # the mean ranks; each dataset's ranks are in the groups' figures
    mean_panel = panels[0]
    assert [t.get_text() for t in mean_panel.get_yticklabels()] == ["M2", "M1", "M3"]
    assert len(mean_panel.patches) == 3  # the best cell of each metric with values (no ties here)
    texts = {t.get_text() for t in mean_panel.texts}
    assert {"2.25", "2.50", "1.00"} <= texts
    save_figure(fig, tmp_path / "h.png")
    assert (tmp_path / "h.png").stat().st_size > 10_000
    assert set(B.HEATMAP_GROUPS) == {"labels", "distances", "persistence"}
    assert {m for group in B.HEATMAP_GROUPS.values() for m in group} == set(B.METRICS) - {"cv1nn_acc"}
    titles = {}
    for group in B.HEATMAP_GROUPS:
        panels = [ax for ax in B.heatmap_group(summary, B.mean_ranks(summary), group).axes if ax.get_title()]
        titles[group] = [ax.get_title().split(" (")[0] for ax in panels]
    # kmeans_acc, L2 and fit time reported: one panel each, in its group's figure
    assert titles == {"labels": ["K-means ACC"], "distances": ["dist. L2"], "persistence": ["fit time"]}
    acc = B.heatmap_group(summary, B.mean_ranks(summary), "labels").axes[0]
    assert "C (not obtained)" in [t.get_text() for t in acc.get_xticklabels()]
    assert not acc.texts  # colour only, so that it reads at a thumbnail's size: values are in summary.md


def test_the_heatmaps_draw_the_positive_control_apart_never_ranked():
    experiments = {"fam1": {"datasets": ["A", "B"], "methods": {
        "M1": {"selector": "LaplacianScore"}, "M2": {"selector": "SPEC"}, "F": {"selector": "AnovaF"}}}}
    rows = []
    for dataset, values in [("A", (0.5, 0.6, 0.9)), ("B", (0.7, 0.4, 0.55))]:
        for method, value in zip(("M1", "M2", "F"), values):
            rows += _rows(dataset, method, "kmeans_acc", [[value, value]])
    summary = B.summary_table(pd.DataFrame(rows).astype({"n_features": "Int64"}), B.plan(experiments, {}))
    assert summary.loc[summary["method"] == "F", "rank"].isna().all()
    ranks = B.mean_ranks(summary)
    assert "F" in B.heatmap(summary, ranks)._suptitle.get_text()
    ax = B.heatmap_group(summary, ranks, "labels").axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[-1] == f"F{B.CONTROL_MARK} (control)" and labels[:2] == ["M1", "M2"]
    shown = ax.images[0].get_array()
    assert shown[2].tolist() == [1.0, 2.0]  # the rank its value would take: first on A, second on B; hatched
    assert sum(p.get_hatch() == "///" for p in ax.patches) == 2
    text = B.summary_markdown(summary, ranks, "protocol")
    assert "| fam1 | A | 0.5 (2) | 0.6 (1) | 0.9 |" in text and f"F{B.CONTROL_MARK} |" in text


def test_an_own_data_run_of_one_metric_reports_that_metric_only():
    """As an own-data config (one experiment, `metrics: {kmeans: ...}`): no blank rows, columns or panels."""
    from ufskit.evaluation import evaluate_selection
    from ufskit.papers import benchmark_stats as S
    from ufskit.selection_io import Selection

    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 10)
    experiments = {"own": {"datasets": ["a", "b", "c"], "metrics": {"kmeans": {"n_runs": 1, "n_init": 1}},
                           "methods": {m: {"selector": s} for m, s in
                                       [("LS", "LaplacianScore"), ("SPEC", "SPEC"), ("Var", "Variance")]}}}
    frames = []
    for dataset in experiments["own"]["datasets"]:
        X = rng.standard_normal((20, 6)) + np.outer(y, [2, 0, 0, 0, 0, 0])
        for method in experiments["own"]["methods"]:
            sel = Selection(order=rng.permutation(6), scores=np.zeros(6), seconds=0.1, params={})
            frame = evaluate_selection(X, y, sel, [2, 4], experiments["own"]["metrics"], seed=1)
            frames.append(frame.assign(dataset=dataset, method=method, params="default", rep=0))
    summary = B.summary_table(pd.concat(frames, ignore_index=True), B.plan(experiments, {}))
    assert list(dict.fromkeys(summary["metric"])) == ["kmeans_acc", "kmeans_nmi", "fit_seconds"]
    assert len(summary) == 3 * 3 * 3 and summary["value"].notna().all()
    _, results = S.benchmark_stats(summary)
    assert list(results) == ["kmeans_acc", "kmeans_nmi", "fit_seconds"]
    assert len(S.cd_figure(results).axes) == 3
    panels = [ax for ax in B.heatmap_group(summary, B.mean_ranks(summary), "labels").axes if ax.get_title()]
    assert len(panels) == 2  # kmeans_acc and kmeans_nmi; fit time is in the persistence group's figure
    assert "no distances metric in this run" in B.heatmap_group(summary, B.mean_ranks(summary), "distances").axes[
        0].get_title()


def test_a_users_benchmark_is_named_by_its_experiments_in_every_heading(summary):
    from ufskit.papers import benchmark_stats as S

    assert B.title("benchmark", ["benchmark_lowdim"], "full") == B.TITLE == "Cross-paper benchmark"
    assert B.title("quick_benchmark", ["quick_benchmark_lowdim"], "quick") == B.TITLE
    heading = B.title("own_benchmark", ["own_data", "own_text"], "full")
    assert heading == "Benchmark: own_data, own_text"
    ranks = B.mean_ranks(summary)
    assert B.summary_markdown(summary, ranks, "", heading=heading).startswith(f"# {heading}\n")
    assert B.heatmap(summary, ranks, heading=heading)._suptitle.get_text().startswith(f"{heading} on 3 datasets")
    _, results = S.benchmark_stats(summary)
    assert S.stats_markdown(results, heading=heading).startswith(f"# {heading}: Friedman and Nemenyi tests")
    assert S.cd_figure(results, heading=heading)._suptitle.get_text().startswith(f"{heading}: critical-difference")
    assert S.versus_random_markdown(pd.DataFrame(columns=["method", "metric", "verdict"]), heading=heading).startswith(
        f"# {heading}: every method against Random")


def test_methods_below_randoms_band_are_marked_in_the_summary_the_report_and_the_heatmap():
    experiments = {"fam1": {"datasets": ["A", "B"], "methods": {
        "M1": {"selector": "LaplacianScore"}, "M2": {"selector": "SPEC"}, "R": {"selector": "Random"}}}}
    draws = np.linspace(0.5, 0.7, 11)  # Random's band on kmeans_acc: [0.51, 0.69]; on L2 (lower is better) too
    rows = []
    for dataset, m1, m2 in [("A", 0.3, 0.8), ("B", 0.6, 0.9)]:
        for metric in ("kmeans_acc", "L2"):
            rows += _rows(dataset, "M1", metric, [[m1, m1]]) + _rows(dataset, "M2", metric, [[m2, m2]])
            rows += _rows(dataset, "R", metric, [[v, v] for v in draws])
        rows += _rows(dataset, "M1", "fit_seconds", [[100.0]]) + _rows(dataset, "R", "fit_seconds", [[0.0]] * 11)
    summary = B.summary_table(pd.DataFrame(rows).astype({"n_features": "Int64"}), B.plan(experiments, {}))
    below = summary[summary["below_random"]]
    # A: M1's ACC 0.3 is below the band; M2's L2 (0.8, 0.9) above it (lower is better); time is never compared
    assert sorted(zip(below["dataset"], below["method"], below["metric"])) == [("A", "M1", "kmeans_acc"),
                                                                              ("A", "M2", "L2"), ("B", "M2", "L2")]
    text = B.summary_markdown(summary, B.mean_ranks(summary), "protocol")
    assert "## Below Random's band" in text and "| A | M1 (kmeans_acc); M2 (L2) |" in text
    assert "docs/results.md" in text and "0.3 (3) ▽" in text
    fig = B.heatmap_group(summary, B.mean_ranks(summary), "labels")
    acc_panel = next(ax for ax in fig.axes if ax.get_title().startswith("K-means ACC"))
    boxes = [p for p in acc_panel.patches if p.get_linestyle() == "--"]
    assert len(boxes) == 1 and boxes[0].get_xy() == pytest.approx((0 - 0.42, 2 - 0.42))  # A, M1: the third row
