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


def _pool(values: dict[int, dict[int, float]], metric: str = "L2", seed: int = 3) -> pd.DataFrame:
    """A hand-made pool: draw -> {count: value}, with the pool's seed."""
    return pd.DataFrame([{"params": f"draw{i}", "n_features": c, "metric": metric, "value": v, C.SEED_COLUMN: seed}
                         for i, by_count in values.items() for c, v in by_count.items()])


# the three partitions of draws 0..3 into two pairs (G = 1 setting of R = 2 repetitions per group): all of them
ALL_PAIRINGS = np.array([[[[0, 1]], [[2, 3]]], [[[0, 2]], [[1, 3]]], [[[0, 3]], [[1, 2]]]])


def test_partition_average_over_every_partition_is_the_mean_over_all_pairs_and_the_spread_is_within_partitions():
    # KNN accuracy (higher is better) of 4 draws at two counts; a pair's value: the best count of its 2-draw mean
    pool = _pool({0: {5: 0.1, 10: 0.0}, 1: {5: 0.2, 10: 0.0}, 2: {5: 0.3, 10: 0.0}, 3: {5: 0.0, 10: 0.4}}, "knn_acc")
    best = C.grouped_best(pool, ALL_PAIRINGS)
    # pairs 01: max(0.15, 0) = 0.15; 23: max(0.15, 0.2) = 0.2; 02: 0.2; 13: max(0.1, 0.2) = 0.2; 03: 0.2; 12: 0.25
    assert best.sort_values(["partition", "group"])["best"].tolist() == pytest.approx([0.15, 0.2, 0.2, 0.2, 0.2, 0.25])
    one = C.spread(best).iloc[0]
    all_pairs = [0.15, 0.2, 0.2, 0.2, 0.2, 0.25]  # every 2-subset of the 4 draws once: the mean over all pairs
    assert one["chance_best_of_g"] == pytest.approx(np.mean(all_pairs))
    # one try's variance: the mean of the partitions' within variances (ddof 1): (0.00125 + 0 + 0.00125) / 3
    assert one["chance_std"] == pytest.approx(np.sqrt(0.0025 / 3))
    assert one["chance_se"] == pytest.approx(one["chance_std"] / np.sqrt(2))  # k = 2 groups per partition
    assert (one["groups"], one["partitions"]) == (2, 3)
    # lower is better for L2: the smallest mean
    low = C.grouped_best(_pool({i: {5: float(i)} for i in range(4)}), ALL_PAIRINGS[:1])
    assert low["best"].tolist() == [0.5, 2.5]


def test_partitions_are_seeded_permutations_of_the_pool_cut_into_groups():
    parts = C.partitions(11, 2, 2, seed=5, count=4)
    assert parts.shape == (4, 2, 2, 2)  # k = 11 // 4 = 2 groups of G x R = 2 x 2 draws
    flat = parts.reshape(4, -1)
    assert all(len(set(row)) == 8 and set(row) <= set(range(11)) for row in flat)  # no draw twice in a partition
    assert len({tuple(row) for row in flat}) == 4  # the partitions differ
    assert np.array_equal(parts, C.partitions(11, 2, 2, seed=5, count=4))  # deterministic
    assert not np.array_equal(parts, C.partitions(11, 2, 2, seed=6, count=4))  # from the pool's seed
    assert np.array_equal(parts[:2], C.partitions(11, 2, 2, seed=5, count=2))  # partition p: its own seed
    with pytest.raises(ValueError, match=r"needs >= 1 partition into >= 2 groups, i.e. 8 draws; the pool has 7"):
        C.partitions(7, 2, 2, seed=5)


def test_best_of_g_uses_the_whole_pool_partitioned_from_its_seed():
    values = {i: {5: float(i % 7), 10: float(i % 5)} for i in range(20)}
    pool = _pool(values, seed=9)
    best = C.best_of_g(pool, g=2, reps=2, count=6)
    expected = C.grouped_best(pool, C.partitions(20, 2, 2, seed=9, count=6))  # 5 groups of 4 per partition
    pd.testing.assert_frame_equal(best, expected)
    assert C.spread(best).iloc[0]["groups"] == 5
    assert C.best_of_g(pool, g=2, reps=2, count=6).equals(best)  # deterministic
    other = C.best_of_g(_pool(values, seed=10), g=2, reps=2, count=6)
    assert not other["best"].equals(best["best"])  # another pool seed, other partitions
    assert C.spread(C.best_of_g(pool, g=2, reps=2))["partitions"].iloc[0] == C.PARTITIONS


def test_best_of_g_needs_enough_draws_one_seed_and_valid_shapes():
    with pytest.raises(ValueError, match="i.e. 8 draws; the pool has 4"):
        C.best_of_g(_pool({i: {5: 1.0} for i in range(4)}), g=2, reps=2)
    with pytest.raises(ValueError, match="lacks draws: it has 2 of draw0..draw3"):
        C.best_of_g(_pool({0: {5: 1.0}, 3: {5: 1.0}}), g=1, reps=1)
    with pytest.raises(ValueError, match="one seed in column 'pool_seed'"):
        C.best_of_g(_pool({i: {5: 1.0} for i in range(4)}).drop(columns=C.SEED_COLUMN), g=1, reps=1)
    with pytest.raises(ValueError, match="G >= 1"):
        C.draws_needed([(0, 1)])
    with pytest.raises(ValueError, match="groups must be >= 2"):
        C.draws_needed([(1, 1)], groups=1)
    assert C.draws_needed([(5, 3), (3, 1)]) == 30  # POOL_GROUPS = 2 groups of the largest G R
    assert C.draws_needed([(5, 3), (3, 1)], groups=5) == 75
    assert C.draws_needed([(1, 1), (2, 2)]) == C.MIN_DRAWS == 20  # small G R: at least 20 tries


def test_chance_runs_keep_their_draws_when_the_pool_grows_or_is_sharded():
    small, large = (C.chance_runs(range(n), {"selector": "Random", "params": {}}, seed=7, metrics={}) for n in (3, 6))
    assert large[:3] == small and len({r["fit_seed"] for r in large}) == 6
    assert [r["params"] for r in small] == ["draw0", "draw1", "draw2"]
    assert C.shards(60, 25) == [range(0, 25), range(25, 50), range(50, 60)] and C.shards(50, 25)[-1] == range(25, 50)
    assert [run for part in C.shards(6, 4) for run in C.chance_runs(part, {"selector": "Random", "params": {}},
                                                                    seed=7, metrics={})] == large
    with pytest.raises(ValueError, match="size >= 1"):
        C.shards(6, 0)


def test_a_sharded_pool_equals_the_one_job_pool_row_for_row(rng):
    X, y = rng.standard_normal((30, 10)), np.repeat([0, 1, 2], 10)
    spec, metrics = {"selector": "Random", "params": {}}, {"knn": {"ks": [1], "n_splits": 2, "test_size": 0.3},
                                                          "distance_norms": {"normalize_subset": True}}

    def pool(draws):
        runs = C.chance_runs(draws, spec, seed=4, metrics=metrics)
        return run_batched(X, y, runs, [2, 5], metrics, n_classes=3, dataset="toy", method="Random")

    whole = pool(range(7))
    parts = [pool(part) for part in C.shards(7, 3)]  # draws 0-2, 3-5, 6
    sharded = C.concat_shards(parts, 7)
    timed = whole["metric"] == "fit_seconds"  # wall-clock times differ between any two runs
    pd.testing.assert_frame_equal(sharded[~timed.to_numpy()], whole[~timed])
    assert sharded.loc[timed.to_numpy(), ["params", "metric"]].equals(whole.loc[timed, ["params", "metric"]])
    with pytest.raises(ValueError, match="the shards hold 6 draws, the pool has 7"):
        C.concat_shards(parts[:2], 7)
    with pytest.raises(ValueError, match="lacks draws: it has 4 of draw0..draw6"):
        C.concat_shards([parts[0], parts[2]], 7)
    with pytest.raises(ValueError, match="repeat a draw"):
        C.concat_shards([*parts, parts[2]], 7)


def test_chance_verdict_follows_the_metric_direction_and_calls_nothing_within_one_std():
    assert C.chance_verdict(0.9, 0.8, 0.05, "knn_acc") == "yes" and C.chance_verdict(1.9, 2.0, 0.05, "L2") == "yes"
    assert C.chance_verdict(2.1, 2.0, 0.05, "L2") == "no" and C.chance_verdict(0.7, 0.8, 0.05, "knn_acc") == "no"
    # within one try's standard deviation of the chance value, on either side: neither yes nor no
    assert C.chance_verdict(0.84, 0.8, 0.05, "knn_acc") == C.TOO_CLOSE == C.chance_verdict(0.76, 0.8, 0.05, "knn_acc")
    assert C.chance_verdict(0.81, 0.8, np.nan, "knn_acc") == "yes"  # no spread known: no band
    assert C.chance_verdict(None, 2.0, 0.1, "L2") == "" and C.chance_verdict(1.0, np.nan, 0.1, "L2") == ""
    said = pd.Series(["yes", "no", C.TOO_CLOSE, "yes"])
    assert C.verdict_count(said) == "2/4 (1 too close to call)" and C.verdict_count(said[:2]) == "1/2"


def _ivfs_block(path: str, name: str) -> tuple[dict, dict, dict]:
    exp = load_config(ROOT, ROOT / path)["experiments"][name]
    methods = paper_methods(exp["methods"])
    return methods, P.check_protocol(exp["protocol"], exp["methods"]), {m: method_reps(exp, m) for m in methods}


def test_g_is_the_number_of_settings_table1_takes_the_best_over():
    # quick: IVFS-linf's n~ in {upto100, 0.1, 0.5} x k in {100, 300}, Table 1 keeps n~ = 0.1n (n < 1000): G = 2
    methods, protocol, reps = _ivfs_block("config/quick.yaml", "quick_ivfs")
    assert P.table1_shapes(methods, protocol, reps, 96) == {"SPEC": (1, 1), "MCFS": (2, 1), "GLSPFS": (2, 1),
                                                            "IVFS-linf": (2, 2)}
    # full: 5 d~ x 3 k at the table's n~; MCFS's 4 cluster counts; GLSPFS's 6 x 5 grid
    methods, protocol, reps = _ivfs_block("config/config.yaml", "ivfs")
    shapes = P.table1_shapes(methods, protocol, reps, 96)
    assert shapes == {"SPEC": (1, 1), "MCFS": (4, 1), "GLSPFS": (30, 1), "IVFS-linf": (15, 5)}
    assert P.table1_shapes(methods, protocol, reps, 1440)["IVFS-linf"] == (15, 5)  # n~ = 100 on n >= 1000
    assert P.chance_pool_size(methods, protocol, reps) == 150  # 2 x IVFS-linf's 15 x 5, on small and large sets
    assert P.chance_pool_size(*_ivfs_block("config/quick.yaml", "quick_ivfs")) == C.MIN_DRAWS  # 2 x 2 x 2 < 20


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
    shapes = P.table1_shapes(METHODS, PROTOCOL, reps, X.shape[0])
    assert shapes == {"SPEC": (1, 1), "IVFS-linf": (2, 2)}  # n = 40 < 1000: n~ = 0.1n, k in {20, 40}
    runs = C.chance_runs(range(C.draws_needed(shapes.values())), spec, seed=seed, metrics=METRICS)
    pool = run_batched(X, y, runs, counts, METRICS, n_classes=2, dataset="toy", method="Random")
    pool[C.SEED_COLUMN] = seed
    long = pd.DataFrame([{"dataset": "toy", "method": m, "metric": k, "reproduced": 1.0}
                         for m in METHODS for k in R.TABLE1])
    t = R.table1_chance(long, {"toy": pool}, methods=METHODS, protocol=PROTOCOL, reps=reps,
                        info={"toy": {"n_samples": 40}}).set_index(["method", "metric"])
    assert t.loc[("IVFS-linf", "knn_acc"), "G"] == 2 and t.loc[("SPEC", "L2"), "G"] == 1
    assert pd.isna(t.loc[("IVFS-linf", "fit_seconds"), "chance_best_of_g"])

    # directly: every draw a fresh Random fit; partition p's group j, setting s: the mean of its reps draws, then the
    # best over settings and counts; the mean over every group, one try's sd from the within-partition variances
    draws = pd.concat([evaluate_run(X, y, fit_run(X, spec, derive_seed(seed, "fit", i), n_classes=2), counts, METRICS,
                                    derive_seed(seed, "evaluation", i), dataset="toy", method="Random",
                                    params=f"d{i}", rep=0) for i in range(C.draws_needed(shapes.values()))])
    g, r = shapes["IVFS-linf"]
    n = C.draws_needed(shapes.values())  # MIN_DRAWS = 20 here (2 G R = 8): k = 5 groups of G R = 4 per partition
    groups = C.partitions(n, g, r, seed=seed)  # the pool's seed is the rule's: written on its rows
    for metric, pick, factor in (("knn_acc", np.max, 100), ("L2", np.min, 1)):
        table = draws[draws["metric"] == metric].pivot(index="params", columns="n_features", values="value")
        table = table.loc[[f"d{i}" for i in range(n)]].to_numpy()
        bests = np.array([[pick(table[group].mean(axis=1)) for group in part] for part in groups])  # (P, k)
        assert t.loc[("IVFS-linf", metric), "chance_best_of_g"] == pytest.approx(factor * bests.mean())
        assert t.loc[("IVFS-linf", metric), "chance_std"] == pytest.approx(
            factor * np.sqrt(bests.var(axis=1, ddof=1).mean()))
        assert t.loc[("IVFS-linf", metric), "chance_se"] == pytest.approx(
            t.loc[("IVFS-linf", metric), "chance_std"] / np.sqrt(n // (g * r)))
    # SPEC (G = 1, one repetition): every draw of the pool is a group, its best over the counts
    spec_l2 = draws[draws["metric"] == "L2"].groupby("params")["value"].min()
    assert t.loc[("SPEC", "L2"), "chance_best_of_g"] == pytest.approx(spec_l2.mean())
    assert t.loc[("SPEC", "L2"), "chance_std"] == pytest.approx(spec_l2.std(ddof=1))
    md = R.table1_chance_markdown(t.reset_index())
    assert "## Random, best of G" in md and "| toy | IVFS-linf | 2 |" in md


def test_claims_say_whether_ivfs_beats_random_under_the_same_selection():
    t1 = pd.DataFrame([{"dataset": d, "method": R.IVFS, "metric": m, "reproduced": v, "published": p,
                        "status": "ok", "G": 2, "chance_best_of_g": c, "chance_std": sd}
                       for d, m, v, p, c, sd in (("a", "knn_acc", 94.3, 94.0, 93.2, 0.5),
                                                 ("b", "knn_acc", 80.0, 90.0, 85.0, 0.5),
                                                 ("a", "L2", 2.49, 2.30, 2.38, 0.2), ("b", "L2", 1.0, None, 2.0, 0.2))])
    t2 = pd.DataFrame({"dataset": ["a"], "method": [R.IVFS], "reproduced": [1.0], "status": ["ok"]})
    curve = pd.DataFrame({"dataset": ["a"] * 2, "method": [R.IVFS] * 2, "n_features": [5, 10], "mean": [2.0, 1.0]})
    f4 = pd.DataFrame({"metric": ["L2"] * 2, "n_subsets": [20, 40], "subset_samples": [0.1, 0.1],
                       "relative": [0.95, 1.0]})
    _, records = R.claims(t1, t2, curve, curve, f4)
    numbers = {r["id"]: r["numbers"] for r in records}
    assert ("beats Random, best of G = 2 (the same selection), on knn_acc 1/2 datasets (the published values: "
            "knn_acc 2/2).") in numbers["IVFS/T1-knn"]
    norms = [r["numbers"] for r in records if r["id"] == "IVFS/T1-topology-norms"][1]
    # dataset a is within one std of Random's best of G (0.2) on both sides; b has no published value
    assert norms.endswith("on L2 1/2 (1 too close to call) datasets (the published values: L2 0/2 (1 too close to call)).")


def test_scorecard_says_whether_reproduced_and_published_beat_chance_under_the_same_selection():
    from ufskit import scorecard as S

    published = S.published_tables()
    tolerances = yaml.safe_load((ROOT / "config/config.yaml").read_text())["scorecard"]["tolerances"]
    # lymphoma, IVFS-linf, published KNN 94.0 and L2 2.30; Random best of 25: 93.2 and 2.38
    t1 = pd.DataFrame([{"dataset": "lymphoma", "method": "IVFS-linf", "metric": m, "reproduced": v, "status": "ok",
                        "G": g, "chance_best_of_g": c, "chance_std": 0.05, "chance_se": 0.02}
                       for m, v, g, c in (("knn_acc", 94.3, 25, 93.2), ("L2", 2.49, 25, 2.38),
                                          ("fit_seconds", 1.0, None, None))])
    card = S.scorecard(published, S.read_reference(S.claim_lists()),
                       {"ivfs": [S.ReportResults("ivfs", {"table1": t1})]}, excluded={}, tolerances=tolerances)
    rows = card[(card["kind"] == "number") & (card["dataset"] == "lymphoma") & (card["method"] == "IVFS-linf")
                & (card["table"] == "Table 1")].set_index("metric")
    assert rows.loc["knn_acc", ["G", "chance_best_of_g", "chance_std", "chance_se"]].tolist() == [25, 93.2, 0.05, 0.02]
    assert rows.loc["knn_acc", ["reproduced_beats_chance", "published_beats_chance"]].tolist() == ["yes", "yes"]
    assert rows.loc["L2", ["reproduced_beats_chance", "published_beats_chance"]].tolist() == ["no", "yes"]
    assert rows.loc["fit_seconds", "reproduced_beats_chance"] == "" and pd.isna(rows.loc["fit_seconds", "G"])
    assert rows.loc["knn_acc", "outcome"] == "within tolerance"  # the existing columns are unchanged
    assert card.loc[card["kind"] == "claim", "published_beats_chance"].isna().all()  # claims have no number
    md = S.scorecard_markdown(card, excluded={}, tolerances=tolerances)
    assert "## Chance under the same selection" in md and "| IVFS-linf | 25 | 1/2 | 2/2 |" in md
