"""Chance under the same selection: Random's best of G, its groups and spread, and IVFS Table 1's column."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml

from conftest import ROOT
from ufskit import chance as C
from ufskit.experiments import method_reps
from ufskit.papers import ivfs as P
from ufskit.papers import paper_methods
from ufskit.papers.ivfs import report as R
from ufskit.protocols import load_config
from ufskit.runs import evaluate_run, fit_run, run_batched
from ufskit.seeds import derive_seed


def _pool(values: dict[int, dict[int, float]], metric: str = "L2") -> pd.DataFrame:
    """A hand-made pool: draw -> {count: value}."""
    return pd.DataFrame([{"params": f"draw{i}", "n_features": c, "metric": metric, "value": v}
                         for i, by_count in values.items() for c, v in by_count.items()])


def test_best_of_g_averages_reps_then_takes_the_best_setting_and_count_per_group():
    # G = 2 settings x 2 reps per group, 2 groups: draws 0-3 and 4-7; lower is better for L2
    pool = _pool({0: {5: 4.0, 10: 3.0}, 1: {5: 2.0, 10: 3.0},   # group 0, setting 0: means 3.0, 3.0
                  2: {5: 1.0, 10: 9.0}, 3: {5: 3.0, 10: 9.0},   # group 0, setting 1: means 2.0, 9.0
                  4: {5: 5.0, 10: 6.0}, 5: {5: 5.0, 10: 4.0},   # group 1, setting 0: means 5.0, 5.0
                  6: {5: 7.0, 10: 8.0}, 7: {5: 9.0, 10: 8.0},   # group 1, setting 1: means 8.0, 8.0
                  8: {5: 0.0, 10: 0.0}})                        # beyond the groups: unused
    best = C.best_of_g(pool, g=2, reps=2, groups=2)
    assert best["best"].tolist() == [2.0, 5.0]
    spread = C.spread(best).iloc[0]
    assert spread["chance_best_of_g"] == 3.5 and spread["chance_std"] == pytest.approx(np.std([2, 5], ddof=1))
    # higher is better for KNN accuracy: the largest mean
    acc = C.best_of_g(_pool({i: {5: i / 10} for i in range(4)}, "knn_acc"), g=1, reps=2, groups=2)
    assert acc["best"].tolist() == pytest.approx([0.05, 0.25])


def test_best_of_g_needs_enough_draws_and_valid_shapes():
    with pytest.raises(ValueError, match="needs 8 draws, the pool has 4"):
        C.best_of_g(_pool({i: {5: 1.0} for i in range(4)}), g=2, reps=2, groups=2)
    with pytest.raises(ValueError, match="G >= 1"):
        C.draws_needed([(0, 1)])
    with pytest.raises(ValueError, match="groups must be >= 2"):
        C.draws_needed([(1, 1)], groups=1)
    assert C.draws_needed([(2, 2), (3, 1)], groups=5) == 20


def test_chance_runs_keep_their_draws_when_the_pool_grows():
    small, large = (C.chance_runs(n, {"selector": "Random", "params": {}}, seed=7, metrics={}) for n in (3, 6))
    assert large[:3] == small and len({r["fit_seed"] for r in large}) == 6
    assert [r["params"] for r in small] == ["draw0", "draw1", "draw2"]


def test_beats_follows_the_metric_direction():
    assert C.beats(0.9, 0.8, "knn_acc") and not C.beats(2.1, 2.0, "L2") and C.beats(1.9, 2.0, "L2")
    assert C.beats(None, 2.0, "L2") is None and C.beats(1.0, np.nan, "L2") is None


def _ivfs_block(path: str, name: str) -> tuple[dict, dict, dict]:
    exp = load_config(ROOT, ROOT / path)["experiments"][name]
    methods = paper_methods(exp["methods"])
    return methods, P.check_protocol(exp["protocol"], exp["methods"]), {m: method_reps(exp, m) for m in methods}


def test_g_is_the_number_of_settings_table1_takes_the_best_over():
    # quick: IVFS-linf's n~ in {upto100, 0.1, 0.5} x k in {100, 300}, Table 1 keeps n~ = 0.1n (n < 1000): G = 2
    methods, protocol, reps = _ivfs_block("config/quick.yaml", "quick_ivfs")
    assert R.table1_shapes(methods, protocol, reps, 96) == {"SPEC": (1, 1), "MCFS": (2, 1), "GLSPFS": (2, 1),
                                                            "IVFS-linf": (2, 2)}
    # full: 5 d~ x 3 k at the table's n~; MCFS's 4 cluster counts; GLSPFS's 6 x 5 grid
    methods, protocol, reps = _ivfs_block("config/config.yaml", "ivfs")
    shapes = R.table1_shapes(methods, protocol, reps, 96)
    assert shapes == {"SPEC": (1, 1), "MCFS": (4, 1), "GLSPFS": (30, 1), "IVFS-linf": (15, 5)}
    assert R.table1_shapes(methods, protocol, reps, 1440)["IVFS-linf"] == (15, 5)  # n~ = 100 on n >= 1000


METHODS = {"SPEC": {"selector": "SPEC", "params": {"style": 2}},
           "IVFS-linf": {"selector": "IVFS", "params": {"subset_features": 0.5},
                         "grid": {"n_subsets": [20, 40], "subset_samples": ["upto100", 0.1, 0.5]}}}
PROTOCOL = {"table_filter": {"IVFS-linf": {"subset_samples": "ivfs_table"}},
            "fixed": {"SPEC": {}, "IVFS-linf": {"n_subsets": 20, "subset_samples": 0.1}},
            "persistence_counts": [2, 4], "literal_min_persistence": 0.1, "stability_features": 3, "stability_reps": 2}
METRICS = {"knn": {"ks": [1, 3], "n_splits": 2, "test_size": 0.25}, "distance_norms": {"normalize_subset": True}}


def test_table1_column_is_the_best_over_g_random_orders_computed_directly(rng):
    X, y = rng.standard_normal((40, 12)), np.repeat([0, 1], 20)
    reps, counts, seed, spec = {"SPEC": 1, "IVFS-linf": 2}, [2, 4, 6], 11, {"selector": "Random", "params": {}}
    shapes = R.table1_shapes(METHODS, PROTOCOL, reps, X.shape[0])
    assert shapes == {"SPEC": (1, 1), "IVFS-linf": (2, 2)}  # n = 40 < 1000: n~ = 0.1n, k in {20, 40}
    runs = C.chance_runs(C.draws_needed(shapes.values()), spec, seed=seed, metrics=METRICS)
    pool = run_batched(X, y, runs, counts, METRICS, n_classes=2, dataset="toy", method="Random")
    long = pd.DataFrame([{"dataset": "toy", "method": m, "metric": k, "reproduced": 1.0}
                         for m in METHODS for k in R.TABLE1])
    t = R.table1_chance(long, {"toy": pool}, methods=METHODS, protocol=PROTOCOL, reps=reps,
                        info={"toy": {"n_samples": 40}}).set_index(["method", "metric"])
    assert t.loc[("IVFS-linf", "knn_acc"), "G"] == 2 and t.loc[("SPEC", "L2"), "G"] == 1
    assert pd.isna(t.loc[("IVFS-linf", "fit_seconds"), "chance_best_of_g"])

    # directly: group j's setting s is the mean of reps fresh Random fits, then the best over settings and counts
    g, r = shapes["IVFS-linf"]
    bests = {"knn_acc": [], "L2": []}
    for j in range(C.GROUPS):
        frames = []
        for s in range(g):
            for k in range(r):
                i = (j * g + s) * r + k
                sel = fit_run(X, spec, derive_seed(seed, "fit", i), n_classes=2)
                frames.append(evaluate_run(X, y, sel, counts, METRICS, derive_seed(seed, "evaluation", i),
                                           dataset="toy", method="Random", params=f"s{s}", rep=k))
        means = pd.concat(frames).groupby(["metric", "params", "n_features"])["value"].mean()
        bests["knn_acc"].append(means["knn_acc"].max())
        bests["L2"].append(means["L2"].min())
    assert t.loc[("IVFS-linf", "knn_acc"), "chance_best_of_g"] == pytest.approx(100 * np.mean(bests["knn_acc"]))
    assert t.loc[("IVFS-linf", "knn_acc"), "chance_std"] == pytest.approx(100 * np.std(bests["knn_acc"], ddof=1))
    assert t.loc[("IVFS-linf", "L2"), "chance_best_of_g"] == pytest.approx(np.mean(bests["L2"]))
    # SPEC (G = 1, one repetition): group j is draw j alone, its best over the counts
    spec_l2 = pool[(pool["metric"] == "L2") & pool["params"].isin([f"draw{j}" for j in range(C.GROUPS)])]
    assert t.loc[("SPEC", "L2"), "chance_best_of_g"] == pytest.approx(spec_l2.groupby("params")["value"].min().mean())
    md = R.table1_chance_markdown(t.reset_index())
    assert "## Random, best of G" in md and "| toy | IVFS-linf | 2 |" in md


def test_claims_say_whether_ivfs_beats_random_under_the_same_selection():
    t1 = pd.DataFrame([{"dataset": d, "method": R.IVFS, "metric": m, "reproduced": v, "published": p,
                        "status": "ok", "G": 2, "chance_best_of_g": c}
                       for d, m, v, p, c in (("a", "knn_acc", 94.3, 94.0, 93.2), ("b", "knn_acc", 80.0, 90.0, 85.0),
                                             ("a", "L2", 2.49, 2.30, 2.38), ("b", "L2", 1.0, None, 2.0))])
    t2 = pd.DataFrame({"dataset": ["a"], "method": [R.IVFS], "reproduced": [1.0], "status": ["ok"]})
    curve = pd.DataFrame({"dataset": ["a"] * 2, "method": [R.IVFS] * 2, "n_features": [5, 10], "mean": [2.0, 1.0]})
    f4 = pd.DataFrame({"metric": ["L2"] * 2, "n_subsets": [20, 40], "subset_samples": [0.1, 0.1],
                       "relative": [0.95, 1.0]})
    _, records = R.claims(t1, t2, curve, curve, f4)
    numbers = {r["id"]: r["numbers"] for r in records}
    assert ("beats Random, best of G = 2 (the same selection), on knn_acc 1/2 datasets (the published values: "
            "knn_acc 2/2).") in numbers["IVFS/T1-knn"]
    norms = [r["numbers"] for r in records if r["id"] == "IVFS/T1-topology-norms"][1]
    assert norms.endswith("on L2 1/2 datasets (the published values: L2 1/2).")  # no published value: not beaten


def test_scorecard_says_whether_reproduced_and_published_beat_chance_under_the_same_selection():
    from ufskit import scorecard as S

    published = S.published_tables()
    tolerances = yaml.safe_load((ROOT / "config/config.yaml").read_text())["scorecard"]["tolerances"]
    # lymphoma, IVFS-linf, published KNN 94.0 and L2 2.30; Random best of 25: 93.2 and 2.38
    t1 = pd.DataFrame([{"dataset": "lymphoma", "method": "IVFS-linf", "metric": m, "reproduced": v, "status": "ok",
                        "G": g, "chance_best_of_g": c, "chance_std": 0.1}
                       for m, v, g, c in (("knn_acc", 94.3, 25, 93.2), ("L2", 2.49, 25, 2.38),
                                          ("fit_seconds", 1.0, None, None))])
    card = S.scorecard(published, S.read_reference(S.claim_lists()),
                       {"ivfs": [S.ReportResults("ivfs", {"table1": t1})]}, excluded={}, tolerances=tolerances)
    rows = card[(card["kind"] == "number") & (card["dataset"] == "lymphoma") & (card["method"] == "IVFS-linf")
                & (card["table"] == "Table 1")].set_index("metric")
    assert rows.loc["knn_acc", ["G", "chance_best_of_g"]].tolist() == [25, 93.2]
    assert rows.loc["knn_acc", ["reproduced_beats_chance", "published_beats_chance"]].tolist() == ["yes", "yes"]
    assert rows.loc["L2", ["reproduced_beats_chance", "published_beats_chance"]].tolist() == ["no", "yes"]
    assert rows.loc["fit_seconds", "reproduced_beats_chance"] == "" and pd.isna(rows.loc["fit_seconds", "G"])
    assert rows.loc["knn_acc", "outcome"] == "within tolerance"  # the existing columns are unchanged
    assert card.loc[card["kind"] == "claim", "published_beats_chance"].isna().all()  # claims have no number
    md = S.scorecard_markdown(card, excluded={}, tolerances=tolerances)
    assert "## Chance under the same selection" in md and "| IVFS-linf | 25 | 1/2 | 2/2 |" in md
