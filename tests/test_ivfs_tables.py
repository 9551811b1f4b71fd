"""IVFS paper code: protocol checks, placeholders, batched fits and evaluation, stability, tables, figures, claims."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from ufskit.experiments import method_settings, params_slug, resolve_params, settings_by_slug
from ufskit.papers import ivfs as P
from ufskit.papers.ivfs import report as R
from ufskit.runs import fit_selector, run_batched, to_selection
from ufskit.seeds import derive_seed

METHODS = {
    "SPEC": {"selector": "SPEC", "params": {"style": 2}},
    "MCFS": {"selector": "MCFS", "params": {"max_nonzero": 4}, "grid": {"n_clusters": [2, 3]}},
    "IVFS-linf": {"selector": "IVFS", "params": {"subset_features": 0.5},
                  "grid": {"n_subsets": [20, 40], "subset_samples": ["upto100", 0.1, 0.5]}},
}
PROTOCOL = {
    "table_filter": {"IVFS-linf": {"subset_samples": "ivfs_table"}},
    "fixed": {"SPEC": {}, "MCFS": {"n_clusters": 3}, "IVFS-linf": {"n_subsets": 20, "subset_samples": 0.1}},
    "persistence_counts": [2, 4],
    "literal_min_persistence": 0.1,
    "stability_features": 3,
    "stability_reps": 2,
}
IVFS_SLUG = "n_subsets=20_subset_features=0.5_subset_samples=0.1"


# ---------------------------------------------------------------- placeholders and protocol


@pytest.mark.parametrize(("value", "n", "expected"), [
    ("upto100", 96, 96), ("upto100", 1440, 100), ("upto7", 5, 5),
    ("ivfs_table", 999, 0.1), ("ivfs_table", 1000, 100), (0.3, 10, 0.3), ("linf", 10, "linf"),
])
def test_sample_placeholders_resolve_per_dataset(value, n, expected):
    assert resolve_params({"a": value, "k": "n_classes"}, n_classes=4, n_samples=n) == {"a": expected, "k": 4}


def test_sample_placeholders_need_the_sample_count():
    with pytest.raises(ValueError, match="n_samples"):
        resolve_params({"subset_samples": "ivfs_table"}, n_classes=2)
    assert resolve_params({"s": "upto0"}, n_classes=2, n_samples=5) == {"s": "upto0"}  # not a placeholder


def test_protocol_is_checked():
    assert P.check_protocol(PROTOCOL, METHODS) == PROTOCOL
    with pytest.raises(ValueError, match="keys"):
        P.check_protocol({**PROTOCOL, "extra": 1}, METHODS)
    with pytest.raises(ValueError, match="unknown method"):
        P.check_protocol({**PROTOCOL, "table_filter": {"LS": {}}}, METHODS)
    with pytest.raises(ValueError, match="missing"):
        P.check_protocol({**PROTOCOL, "fixed": {"SPEC": {}}}, METHODS)
    with pytest.raises(ValueError, match="matches 2 settings"):
        P.check_protocol({**PROTOCOL, "fixed": {**PROTOCOL["fixed"], "MCFS": {}}}, METHODS)
    with pytest.raises(ValueError, match="persistence_counts"):
        P.check_protocol({**PROTOCOL, "persistence_counts": []}, METHODS)


def test_table_settings_follow_the_papers_n_rule():
    small = P.table_slugs(METHODS, PROTOCOL, "IVFS-linf", 500)
    large = P.table_slugs(METHODS, PROTOCOL, "IVFS-linf", 1500)
    assert small == [IVFS_SLUG, "n_subsets=40_subset_features=0.5_subset_samples=0.1"]
    assert large == ["n_subsets=20_subset_features=0.5_subset_samples=upto100",
                     "n_subsets=40_subset_features=0.5_subset_samples=upto100"]
    assert P.table_slugs(METHODS, PROTOCOL, "MCFS", 500) == ["max_nonzero=4_n_clusters=2", "max_nonzero=4_n_clusters=3"]
    assert P.fixed_slug(METHODS, PROTOCOL, "IVFS-linf") == IVFS_SLUG


# ---------------------------------------------------------------- batched fits and evaluation


def _data(rng, n=40, d=12):
    X = rng.standard_normal((n, d))
    X[:, :3] *= 3.0  # a few dominant features
    return X, np.repeat([0, 1], n // 2)


def _shard(selector, settings, reps, seed_of, metrics=None):
    return P.shard_runs(selector, settings, reps, seed_of=seed_of, metrics=metrics or {"knn": {"ks": [1], "n_splits": 2}})


def _orders(X, runs):
    """(slug, rep) -> the order each run's selection has, fitted as run_batched fits it."""
    fits = {}
    out = {}
    for run in runs:
        key = (run["spec"]["params"]["n_subsets"], run["fit_seed"])
        if key not in fits:
            fits[key] = fit_selector(run["spec"], X, seed=run["fit_seed"], n_classes=2,
                                     **({"checkpoints": run["checkpoints"]} if run["checkpoints"] else {}))
        out[run["params"], run["rep"]] = to_selection(*fits[key], run["spec"], X, checkpoint=run["checkpoint"])
    return out


def test_shard_runs_share_one_fit_across_k_and_match_single_fits(rng):
    X, _ = _data(rng)
    base = {"subset_samples": 0.5, "subset_features": 0.5}
    settings = [{**base, "n_subsets": k} for k in (10, 30, 20)]
    seeds = []
    runs = _shard("IVFS", settings, 2, lambda slug, rep: seeds.append(slug) or 100 + rep)
    assert [(r["params"], r["rep"]) for r in runs] == [(params_slug(q), rep) for q in settings for rep in (0, 1)]
    assert {r["spec"]["params"]["n_subsets"] for r in runs} == {30} and {r["fit_seed"] for r in runs} == {100, 101}
    assert {tuple(r["checkpoints"]) for r in runs} == {(10, 20)}
    assert params_slug(base) in seeds  # the fit's seed: the setting without k
    from ufskit.selectors import IVFS
    selections = _orders(X, runs)
    for q in settings:
        for rep in (0, 1):
            alone = IVFS(**q, random_state=100 + rep).fit(X)
            sel = selections[params_slug(q), rep]
            np.testing.assert_array_equal(sel.order, alone.order_)
            np.testing.assert_allclose(sel.scores, alone.scores_, atol=1e-12)
    assert selections[params_slug(settings[0]), 0].seconds <= selections[params_slug(settings[1]), 0].seconds


def test_shards_split_ivfs_by_subset_sizes_and_give_the_same_runs(rng):
    settings = method_settings({"methods": METHODS})
    shards = P.selection_shards("IVFS", settings["IVFS-linf"])
    assert len(shards) == 3  # one per n~ (d~ fixed): the two k values share a shard
    assert sorted(map(params_slug, sum(shards.values(), []))) == sorted(map(params_slug, settings["IVFS-linf"]))
    for members in shards.values():
        assert len({q["subset_samples"] for q in members}) == 1 and len(members) == 2
    assert P.selection_shards("MCFS", settings["MCFS"]) == {"all": settings["MCFS"]}

    def seed_of(slug, rep):
        return derive_seed(0, slug, rep)

    whole = {(r["params"], r["rep"]): r for r in _shard("IVFS", settings["IVFS-linf"], 2, seed_of)}
    for members in shards.values():  # a shard planned alone gives the whole grid's runs, seeds included
        for run in _shard("IVFS", members, 2, seed_of):
            assert run == whole[run["params"], run["rep"]]


def test_the_largest_fits_are_cut_by_repetition_into_the_same_runs():
    settings = [{"loss": "linf", "subset_features": f, "subset_samples": m, "n_subsets": k}
                for f in (0.1, 0.5) for m in ("upto100", 0.5) for k in (1000, 5000)]
    relathe = (1427, 4322)
    big = {"loss": "linf", "subset_features": 0.5, "subset_samples": 0.5, "n_subsets": 5000}
    assert P.fit_tflop(big, relathe) == pytest.approx(5000 * 2 * 714**2 * 2161 / 1e12)  # k 2 n~^2 d~: 11 TFLOP
    shards = P.batch_shards("IVFS", settings, 5, relathe)
    cut = {name: reps for name, (group, reps) in shards.items() if group[0]["subset_features"] == 0.5
           and group[0]["subset_samples"] == 0.5}
    assert sorted(cut.values(), key=lambda r: r[0]) == [range(r, r + 1) for r in range(5)]  # 11 TFLOP: one each
    assert all(name.endswith(f"_reps{r[0]}-{r[-1]}") for name, r in cut.items())
    assert len(shards) == 2 + 3 + 5  # n~ = 100: whole; (0.1, 0.5): 2.2 TFLOP a repetition, two a job
    assert P.batch_shards("IVFS", settings, 5, None) == {
        name: (group, range(5)) for name, group in P.selection_shards("IVFS", settings).items()}  # no shape: no cut
    assert list(P.batch_shards("IVFS", settings, 5, [1427, None])) == list(P.selection_shards("IVFS", settings))

    def seed_of(slug, rep):
        return derive_seed(0, slug, rep)

    whole = sorted((r["params"], r["rep"], r["fit_seed"], r["evaluation_seed"], tuple(r["checkpoints"]))
                   for r in _shard("IVFS", settings, 5, seed_of))
    parts = sorted((r["params"], r["rep"], r["fit_seed"], r["evaluation_seed"], tuple(r["checkpoints"]))
                   for group, reps in shards.values() for r in _shard("IVFS", group, reps, seed_of))
    assert parts == whole  # the same runs, seeds and fits: the numbers do not depend on the cut


@pytest.mark.parametrize(("reps", "per_rep", "sizes"), [(5, 0.1, [5]), (5, 2.0, [2, 2, 1]), (5, 11.0, [1] * 5),
                                                        (20, 0.0, [20]), (1, 50.0, [1]), (4, 3.0, [1] * 4)])
def test_repetitions_are_cut_into_contiguous_chunks_under_the_budget(reps, per_rep, sizes):
    chunks = P.rep_chunks(reps, per_rep, budget=5.0)
    assert sorted(map(len, chunks), reverse=True) == sizes
    assert [r for chunk in chunks for r in chunk] == list(range(reps))


def test_run_metrics_restrict_persistence_to_the_protocol():
    metrics = {"knn": {"ks": [1]}, "persistence": {"max_edge": 0.5, "min_persistence": 0.0}}
    got = P.run_metrics(metrics, PROTOCOL, "IVFS-linf")["persistence"]
    assert got == {"max_edge": 0.5, "min_persistence": 0.0, "counts": [2, 4], "literal_min_persistence": 0.1,
                   "settings": {"subset_samples": "ivfs_table"}}
    assert P.run_metrics(metrics, PROTOCOL, "SPEC")["persistence"]["settings"] == {}  # every setting
    assert P.run_metrics({"knn": {}}, PROTOCOL, "SPEC") == {"knn": {}}


def test_batched_shard_rows_and_persistence_only_where_asked(rng):
    X, y = _data(rng)
    settings = [{"n_subsets": 10, "subset_samples": 0.5, "subset_features": 0.5},
                {"n_subsets": 20, "subset_samples": 0.5, "subset_features": 0.5}]
    persistence = {"max_edge": 0.5, "min_persistence": 0.0, "counts": [4], "literal_min_persistence": 0.1,
                   "settings": {"n_subsets": 10}}
    metrics = {"knn": {"ks": [1], "n_splits": 2}, "distance_norms": {}, "persistence": persistence}
    runs = _shard("IVFS", settings, 2, lambda s, r: r, metrics)
    frame = run_batched(X, y, runs, [2, 4, 6], {}, n_classes=2, dataset="d", method="IVFS-linf",
                        diagram=np.empty((0, 2)))
    assert set(frame["rep"]) == {0, 1} and list(frame.columns[:4]) == ["dataset", "method", "params", "rep"]
    pers = frame[frame["metric"].isin(["w11", "winf", "w11_literal", "winf_literal"])]
    assert set(pers["params"]) == {params_slug(settings[0])} and set(pers["n_features"]) == {4} and len(pers) == 2 * 4
    norms = frame[(frame["metric"] == "Linf")]
    assert len(norms) == 4 * 3 and norms["value"].between(0, 1).all()
    with pytest.raises(ValueError, match="not among"):
        run_batched(X, y, runs, [2, 6], {}, n_classes=2, dataset="d", method="IVFS-linf", diagram=np.empty((0, 2)))


def test_a_shard_cut_by_repetition_gives_the_rows_of_the_whole_shard(rng):
    X, y = _data(rng)
    settings = [{"n_subsets": k, "subset_samples": 0.5, "subset_features": 0.5} for k in (10, 20)]
    metrics = {"knn": {"ks": [1], "n_splits": 2}, "distance_norms": {}}

    def rows(reps):
        frame = run_batched(X, y, _shard("IVFS", settings, reps, lambda s, r: derive_seed(3, s, r), metrics),
                            [2, 4], {}, n_classes=2, dataset="d", method="IVFS-linf", diagram=np.empty((0, 2)))
        return frame[frame["metric"] != "fit_seconds"].drop(columns=["seconds"], errors="ignore")

    whole = rows(3).sort_values(["params", "rep", "metric", "n_features"]).reset_index(drop=True)
    cut = pd.concat([rows(range(0, 2)), rows(range(2, 3))]).sort_values(["params", "rep", "metric", "n_features"])
    pd.testing.assert_frame_equal(cut.reset_index(drop=True), whole)


def test_bootstrap_differences_counts_features_that_leave_the_top(rng):
    X, _ = _data(rng, n=50, d=10)
    X[:, :3] *= 10.0  # variance dominates SPEC-free selectors; Variance-like choice is stable
    diffs = P.bootstrap_differences(X, selector="Variance", params={}, n_selected=3, n_reps=3, n_classes=2, seed=1)
    assert diffs == [0, 0, 0]
    # a hand-checked unstable case: all features equal in law, so the top changes after resampling
    Y = rng.standard_normal((30, 10))
    diffs = P.bootstrap_differences(Y, selector="Variance", params={}, n_selected=3, n_reps=4, n_classes=2, seed=1)
    assert all(0 <= v <= 3 for v in diffs) and sum(diffs) > 0
    assert diffs == P.bootstrap_differences(Y, selector="Variance", params={}, n_selected=3, n_reps=4,
                                            n_classes=2, seed=1)
    with pytest.raises(ValueError, match="n_selected"):
        P.bootstrap_differences(Y, selector="Variance", params={}, n_selected=11, n_reps=1, n_classes=2, seed=1)


def test_bootstrap_leaves_out_features_constant_on_the_sample():
    X = np.zeros((20, 4))
    X[0, 0] = 50.0  # one huge value in one row: the top feature on X, constant on most bootstraps
    X[:, 1:] = np.random.default_rng(3).standard_normal((20, 3))
    diffs = P.bootstrap_differences(X, selector="Variance", params={}, n_selected=1, n_reps=5, n_classes=2, seed=0)
    assert set(diffs) <= {0, 1} and 1 in diffs


# ---------------------------------------------------------------- tables


def _summary():
    """Hand-made summary of one dataset (n = 100): SPEC, two MCFS settings, IVFS table and non-table settings."""
    rows = []

    def add(method, params, count, metric, mean):
        rows.append({"dataset": "lymphoma", "method": method, "params": params, "n_features": count,
                     "metric": metric, "mean": mean, "std": 0.0, "reps": 1})

    for count, (acc, l2, winf) in {10: (0.80, 9.0, 0.05), 20: (0.85, 8.0, 0.04)}.items():
        add("SPEC", "style=2", count, "knn_acc", acc)
        add("SPEC", "style=2", count, "L2", l2)
        add("SPEC", "style=2", count, "winf", winf)
        add("MCFS", "max_nonzero=4_n_clusters=2", count, "knn_acc", acc + 0.05)
        add("MCFS", "max_nonzero=4_n_clusters=3", count, "knn_acc", acc + 0.01)
        add("MCFS", "max_nonzero=4_n_clusters=2", count, "L2", l2 - 1)
        add("MCFS", "max_nonzero=4_n_clusters=3", count, "L2", l2 - 2)
        add("IVFS-linf", IVFS_SLUG, count, "knn_acc", acc + 0.1)
        add("IVFS-linf", IVFS_SLUG, count, "L2", l2 - 5)
        add("IVFS-linf", IVFS_SLUG, count, "winf", winf / 2)
        add("IVFS-linf", "n_subsets=40_subset_features=0.5_subset_samples=0.5", count, "L2", 0.1)  # not Table 1
    for method, slug, sec in (("SPEC", "style=2", 0.5), ("MCFS", "max_nonzero=4_n_clusters=3", 2.0),
                              ("MCFS", "max_nonzero=4_n_clusters=2", 9.0), ("IVFS-linf", IVFS_SLUG, 1.0)):
        add(method, slug, pd.NA, "fit_seconds", sec)
    return pd.DataFrame(rows)


PUBLISHED = pd.DataFrame({
    "dataset": ["lymphoma"] * 3, "method": ["SPEC", "MCFS", "IVFS-linf"], "knn_acc_pct": [81.5, 92.5, 94.0],
    "w11": [0.31, 0.09, 0.06], "winf": [0.05, 0.02, 0.01], "Linf": [0.25, 0.14, 0.08],
    "L1_over_n2_x1e-2": [6.38, 2.46, 1.9], "L2": [7.64, 2.95, 2.3], "time_s": [0.28, 1.51, 1.28]})
INFO = {"lymphoma": {"n_samples": 96, "n_features": 4026, "n_classes": 9}}


def _table1(datasets=("lymphoma",)):
    return R.table1(_summary(), datasets=list(datasets), info=INFO, excluded={"CLL-SUB-111": "not in the mirror"},
                    methods=METHODS, protocol=PROTOCOL, published=PUBLISHED)


def test_table1_takes_the_best_over_table_settings_and_counts():
    t = _table1().set_index(["method", "metric"])
    assert t.loc[("SPEC", "knn_acc"), "reproduced"] == pytest.approx(85.0)  # in %
    assert t.loc[("SPEC", "knn_acc"), "published"] == 81.5
    assert t.loc[("MCFS", "knn_acc"), "reproduced"] == pytest.approx(90.0)
    assert t.loc[("MCFS", "knn_acc"), "params"] == "max_nonzero=4_n_clusters=2"
    assert t.loc[("MCFS", "L2"), "reproduced"] == pytest.approx(6.0)
    # the n~ = 0.5n setting (L2 = 0.1) is outside Table 1 on n < 1000: not picked
    assert t.loc[("IVFS-linf", "L2"), "reproduced"] == pytest.approx(3.0)
    assert t.loc[("IVFS-linf", "winf"), "reproduced"] == pytest.approx(0.02)
    assert t.loc[("IVFS-linf", "winf"), "n_features"] == 20
    # time = the fixed setting (MCFS n_clusters = 3), not the best
    assert t.loc[("MCFS", "fit_seconds"), "reproduced"] == pytest.approx(2.0)
    assert t.loc[("MCFS", "w11"), "status"] == "no value"


def test_table1_keeps_datasets_not_obtained():
    t = _table1(("CLL-SUB-111", "lymphoma"))
    cll = t[t["dataset"] == "CLL-SUB-111"]
    assert set(cll["status"]) == {"not obtained: not in the mirror"} and cll["reproduced"].isna().all()
    md = R.table1_markdown(t)
    assert "| CLL-SUB-111 | | | | SPEC | not obtained: not in the mirror |" in md
    assert "| lymphoma | 96 | 4026 | 9 | SPEC | 85.0 (81.5) |" in md


def test_table1_marks_values_beyond_the_ranked_features():
    summary = _summary()
    summary["beyond_ranked"] = (summary["method"] == "MCFS") & (summary["n_features"] == 20).fillna(False)
    t = R.table1(summary, datasets=["lymphoma"], info=INFO, excluded={}, methods=METHODS, protocol=PROTOCOL,
                 published=PUBLISHED)
    marked = t.set_index(["method", "metric"])["beyond_ranked"]
    assert marked[("MCFS", "knn_acc")] and not marked[("MCFS", "fit_seconds")] and not marked[("SPEC", "knn_acc")]
    md = R.table1_markdown(t)
    assert "| MCFS | 90.0 (92.5)† |" in md and "| SPEC | 85.0 (81.5) |" in md
    assert "† at a feature count beyond those the method truly ranked" in md
    assert "†" not in R.table1_markdown(_table1())  # older summaries without the column: nothing marked


def test_table2_means_and_layout():
    stab = pd.DataFrame({"dataset": ["lymphoma"] * 4, "method": ["SPEC", "SPEC", "IVFS-linf", "IVFS-linf"],
                         "differences": [150, 160, 3, 6]})
    pub = pd.DataFrame({"dataset": ["lymphoma"], "SPEC": [156.6], "IVFS-linf": [4.4]})
    t = R.table2(stab, datasets=["SMK-CAN-187", "lymphoma"], excluded={"SMK-CAN-187": "offline"},
                 methods=["SPEC", "IVFS-linf"], published=pub)
    row = t[(t["dataset"] == "lymphoma") & (t["method"] == "IVFS-linf")].iloc[0]
    assert row["reproduced"] == 4.5 and row["reps"] == 2 and row["published"] == 4.4
    md = R.table2_markdown(t, 300)
    assert "| lymphoma | 155.0 (156.6) | 4.5 (4.4) |" in md and "not obtained: offline" in md


def test_read_published_skips_the_source_comment(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("# Table 1 of the paper\ndataset,SPEC\nlymphoma,1.5\n")
    assert R.read_published(path).to_dict("list") == {"dataset": ["lymphoma"], "SPEC": [1.5]}


# ---------------------------------------------------------------- figures and claims


def test_curves_pick_each_methods_best_table_setting():
    frame = R.curves(_summary(), "L2", info=INFO, methods=METHODS, protocol=PROTOCOL)
    assert set(frame.loc[frame["method"] == "MCFS", "params"]) == {"max_nonzero=4_n_clusters=3"}
    assert set(frame.loc[frame["method"] == "IVFS-linf", "params"]) == {IVFS_SLUG}
    assert frame[frame["method"] == "SPEC"]["mean"].tolist() == [9.0, 8.0]
    fig = R.draw_curves(frame, ylabel="L2", title="t", reference={"lymphoma": 2.3})
    ax = fig.axes[0]
    assert ax.get_title() == "lymphoma" and ax.get_xlabel() == "number of selected features"
    assert len(ax.lines) == 4  # three methods and the published reference


def test_fig4_relative_to_the_largest_setting():
    settings = settings_by_slug({"methods": METHODS}, "IVFS-linf")
    rows = []
    for slug, p in settings.items():
        for count in (10, 20):
            k, s = p["n_subsets"], p["subset_samples"]
            rows.append({"dataset": "a", "method": "IVFS-linf", "params": slug, "n_features": count,
                         "metric": "L2", "mean": 4.0 if (k, s) == (40, 0.5) else 8.0})
            rows.append({"dataset": "a", "method": "IVFS-linf", "params": slug, "n_features": count,
                         "metric": "knn_acc", "mean": 0.8 if (k, s) == (40, 0.5) else 0.4})
    frame = R.fig4_frame(pd.DataFrame(rows), settings).set_index(["metric", "n_subsets", "subset_samples"])
    assert frame.loc[("L2", 40, 0.5), "relative"] == 1.0
    assert frame.loc[("L2", 20, 0.1), "relative"] == 0.5  # twice the norm: half the performance
    assert frame.loc[("knn_acc", 20, 0.5), "relative"] == 0.5
    assert "upto100" not in "".join(map(str, frame.index.get_level_values(2)))  # n~ = 100 is not a ratio
    assert frame.loc[("L2", 20, 0.1), "cells"] == 2
    fig = R.draw_fig4(frame.reset_index())
    assert [ax.get_title() for ax in fig.axes] == ["relative ||D - D_F||_2", "relative KNN accuracy"]


def test_claims_verdicts_follow_the_numbers():
    t1 = _table1()
    t2 = pd.DataFrame({"dataset": ["lymphoma"] * 3, "method": ["SPEC", "MCFS", "IVFS-linf"],
                       "reproduced": [150.0, 200.0, 5.0], "status": ["ok"] * 3})
    f2 = R.curves(_summary(), "L2", info=INFO, methods=METHODS, protocol=PROTOCOL)
    f3 = R.curves(_summary(), "winf", info=INFO, methods=METHODS, protocol=PROTOCOL)
    f4 = pd.DataFrame({"metric": ["L2"] * 4, "n_subsets": [20, 20, 40, 40], "subset_samples": [0.1, 0.5, 0.1, 0.5],
                       "relative": [0.95, 0.98, 0.97, 1.0]})
    text, records = R.claims(t1, t2, f2, f3, f4)
    assert [r["id"] for r in records] == ["IVFS/T1-topology-norms", "IVFS/T1-topology-norms", "IVFS/T1-knn",
                                          "IVFS/T2", "IVFS/Fig2", "IVFS/Fig3", "IVFS/Fig4"]
    assert len(re.findall(r"\*\*(holds|partly holds|does not hold)\*\*", text)) == len(records)
    assert "## T1: best KNN accuracy on all datasets\n- **holds**; knn_acc: best on 1/1" in text
    assert "T2" in text and "**holds**; IVFS-linf differences 5.0-5.0" in text
    assert "T1/time" not in text  # needs MCFS and GLSPFS times; this table has no GLSPFS
    assert "at the smallest setting 0.950; non-decreasing in n~ (tolerance 0.01): True, in k: True" in text
    worse = t2.assign(reproduced=[150.0, 2.0, 5.0])
    text, records = R.claims(t1, worse, f2, f3, f4)
    assert "**does not hold**; IVFS-linf differences" in text
    assert [r["verdict"] for r in records if r["id"] == "IVFS/T2"] == ["does not hold"]
