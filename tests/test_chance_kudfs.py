"""Kernel UDFS Table 1 beside Random under the same selection: G from the config, the columns against Random's best
of G computed directly, the markdown section, the claim's evidence and the scorecard's chance columns."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml
from sklearn.datasets import load_iris

from conftest import ROOT
from ufskit import chance as C
from ufskit.metrics.registry import check_metrics
from ufskit.papers import kudfs as K
from ufskit.protocols import load_config
from ufskit.runs import evaluate_run, fit_run, run_batched
from ufskit.seeds import derive_seed

RANDOM = {"selector": "Random", "params": {}}


def _experiment(path: str, name: str) -> dict:
    """Experiment ``name`` of config.yaml with the overlay ``path`` (its papers' protocol files included)."""
    overlays = [ROOT / path] if path != "config/config.yaml" else []
    return load_config(ROOT, *overlays)["experiments"][name]


def test_g_is_the_number_of_settings_of_the_configured_grid():
    # full: kernel UDFS over the paper's 8 widths, UDFS at one setting; quick: 3 of the 8 widths
    assert K.chance_shape(_experiment("config/config.yaml", "kudfs_table1"), K.KUDFS) == (8, 1)
    assert K.chance_shape(_experiment("config/config.yaml", "kudfs_udfs"), K.UDFS) == (1, 1)
    assert K.chance_shape(_experiment("config/quick.yaml", "quick_kudfs_table1"), K.KUDFS) == (3, 1)
    assert K.chance_shape(_experiment("config/quick.yaml", "quick_kudfs_udfs"), K.UDFS) == (1, 1)
    with pytest.raises(ValueError, match="Table 1 takes 'KernelUDFS' from an experiment without it"):
        K.chance_shape(_experiment("config/config.yaml", "kudfs_udfs"), K.KUDFS)


def _pool(X, y, shape, seed, metrics):
    runs = C.chance_runs(range(C.draws_needed([shape])), RANDOM, seed=seed, metrics=metrics)
    pool = run_batched(X, y, runs, "all", metrics, n_classes=3, dataset="iris", method="Random")
    return pool.assign(**{C.SEED_COLUMN: seed})


def _acc(X, y, draw: int, seed: int, metrics: dict, d: int) -> pd.Series:
    """K-means ACC at counts 1..d of one fresh Random order, seeded as draw ``draw`` of the pool."""
    sel = fit_run(X, RANDOM, derive_seed(seed, "fit", draw), n_classes=3)
    table = evaluate_run(X, y, sel, list(range(1, d + 1)), metrics, derive_seed(seed, "evaluation", draw),
                         dataset="iris", method="Random", params="direct", rep=0)
    return table[table["metric"] == K.METRIC].set_index("n_features")["value"]


def _direct(X, y, shape, seed, metrics, d):
    """Random's best of G computed without the pool: every draw a fresh Random order; in each of the pool's
    partitions (seeded by the pool's seed) group j's setting s is the mean over its reps of its draws, then the best
    over the settings and the counts 1..d; the mean over all groups, one try's sd (the root of the mean
    within-partition variance, ddof 1) and the mean's standard error (sd / sqrt(k)), in percent."""
    g, r = shape
    n = C.draws_needed([shape])
    acc = np.stack([_acc(X, y, i, seed, metrics, d).to_numpy() for i in range(n)])  # (draws, counts)
    bests = acc[C.partitions(n, g, r, seed=seed)].mean(axis=3).max(axis=(2, 3))  # (partitions, k)
    std = np.sqrt(bests.var(axis=1, ddof=1).mean())
    return 100 * bests.mean(), 100 * std, 100 * std / np.sqrt(bests.shape[1])


@pytest.fixture(scope="module")
def iris_chance():
    X, y = load_iris(return_X_y=True)
    metrics = check_metrics({"kmeans": {"n_runs": 2, "n_init": 1}}, where="test")
    shapes = {K.UDFS: (1, 1), K.KUDFS: (2, 2)}
    seeds = {K.UDFS: 3, K.KUDFS: 5}
    pools = {m: {"iris": _pool(X, y, shape, seeds[m], metrics)} for m, shape in shapes.items()}
    table = pd.DataFrame({"dataset": ["iris"], "d": [4], "all_features": [70.0], "all_features_published": [np.nan],
                          "udfs": [80.0], "udfs_published": [np.nan], "udfs_n_features": [2], "kernel_udfs": [99.0],
                          "kernel_udfs_published": [10.0], "kernel_udfs_setting": ["kernel_const=1"],
                          "kernel_udfs_n_features": [3]})
    return X, y, metrics, shapes, seeds, pools, table


def test_table1_columns_are_the_best_over_g_random_orders_computed_directly(iris_chance):
    X, y, metrics, shapes, seeds, pools, table = iris_chance
    dims = {"iris": 3}  # counts beyond d are left out, as Table 1 leaves them out
    t = K.table1_chance(table, pools, shapes, dims).iloc[0]
    for column, method in (("udfs", K.UDFS), ("kernel_udfs", K.KUDFS)):
        mean, std, se = _direct(X, y, shapes[method], seeds[method], metrics, d=3)
        assert t[f"{column}_G"] == shapes[method][0]
        assert t[f"{column}_chance"] == pytest.approx(mean) and t[f"{column}_chance_std"] == pytest.approx(std)
        assert t[f"{column}_chance_se"] == pytest.approx(se)
    assert t["udfs"] == 80.0 and "all_features_G" not in t  # the values are unchanged; all features is no selection


def test_markdown_claim_and_reader_carry_random_best_of_g(iris_chance):
    _, _, _, shapes, _, pools, table = iris_chance
    t = K.table1_chance(table, pools, shapes, {"iris": 4})
    chance = t.loc[0, "kernel_udfs_chance"]
    md = K.table1_markdown(t)
    assert "## Random, best of G" in md and "| dataset | UDFS (G = 1) | Kernel UDFS (G = 2) |" in md
    assert f"99.0 vs {chance:.1f} ± {t.loc[0, 'kernel_udfs_chance_std']:.1f}" in md
    evidence = K.claim_table1(t)["evidence"]
    assert evidence.endswith("Kernel UDFS beats Random, best of G = 2 (the same selection), on 1/1 datasets "
                             "(the published values: 0/1)")  # 99 % beats Random, the (made-up) published 10 % not
    rows = K.PAPER.readers["table1"](t).set_index("method")
    assert rows.loc[K.KUDFS, "chance_best_of_g"] == chance and rows.loc[K.UDFS, "G"] == 1
    assert pd.isna(rows.loc["All Features", "G"])
    # a Table 1 without the columns (no pools) reads, renders and claims as before
    assert "Random, best of G" not in K.table1_markdown(table) and "Random" not in K.claim_table1(table)["evidence"]
    assert "G" not in K.PAPER.readers["table1"](table)


def test_bad_shapes_and_pools_are_errors(iris_chance):
    _, _, _, _, _, pools, table = iris_chance
    with pytest.raises(ValueError, match="G >= 1"):
        K.table1_chance(table, pools, {K.KUDFS: (0, 1)}, {"iris": 4})
    with pytest.raises(ValueError, match="reps >= 1"):
        K.table1_chance(table, pools, {K.KUDFS: (1, 0)}, {"iris": 4})
    with pytest.raises(ValueError, match="i.e. 22 draws; the pool has 20"):  # MIN_DRAWS = 20 draws in the pool
        K.table1_chance(table, pools, {K.KUDFS: (11, 1)}, {"iris": 4})
    with pytest.raises(ValueError, match=r"no chance column for method\(s\) \['KernelPCA'\]"):
        K.table1_chance(table, pools, {K.KPCA: (1, 1)}, {"iris": 4})
    with pytest.raises(ValueError, match="no original dimension given"):
        K.table1_chance(table, pools, {K.KUDFS: (2, 2)}, {"wine": 4})


def test_scorecard_kudfs_rows_say_whether_reproduced_and_published_beat_chance():
    from ufskit import scorecard as S

    published = S.published_tables()
    tolerances = yaml.safe_load((ROOT / "config/config.yaml").read_text())["scorecard"]["tolerances"]
    # thyroid published: all features 78.7, UDFS 78.5, kernel UDFS 92.8
    t1 = pd.DataFrame([{"dataset": "thyroid", "d": 5, "all_features": 78.0, "udfs": 79.5, "kernel_udfs": 89.0,
                        "udfs_G": 1, "udfs_chance": 80.0, "udfs_chance_std": 1.0, "udfs_chance_se": 0.5,
                        "kernel_udfs_G": 8, "kernel_udfs_chance": 91.0, "kernel_udfs_chance_std": 1.0,
                        "kernel_udfs_chance_se": 0.5}])
    card = S.scorecard(published, S.read_reference(S.claim_lists()),
                       {"kudfs": [S.ReportResults("kudfs", {"table1": t1})]}, excluded={}, tolerances=tolerances)
    rows = card[(card["kind"] == "number") & (card["paper"] == "kudfs") & (card["dataset"] == "thyroid")]
    rows = rows.set_index("method")
    assert rows.loc[K.KUDFS, ["G", "chance_best_of_g"]].tolist() == [8, 91.0]
    assert rows.loc[K.KUDFS, ["reproduced_beats_chance", "published_beats_chance"]].tolist() == ["no", "yes"]
    # UDFS's 79.5 is within one std (1.0) of Random's 80.0: neither yes nor no; the published 78.5 is below
    assert rows.loc[K.UDFS, ["reproduced_beats_chance", "published_beats_chance"]].tolist() == ["too close to call", "no"]
    assert rows.loc["All Features", "reproduced_beats_chance"] == "" and pd.isna(rows.loc["All Features", "G"])
    md = S.scorecard_markdown(card, excluded={}, tolerances=tolerances)
    assert "| KernelUDFS | 8 | 0/1 | 1/1 |" in md
