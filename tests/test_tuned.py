"""The tuned-versus-chance table (ufskit.papers.tuned): a method's best of G settings against Random's best of G."""

from __future__ import annotations

import pandas as pd
import pytest

from ufskit.papers import tuned


def long_table(values: dict[tuple[str, str, int], float], counts=(2, 4)) -> pd.DataFrame:
    """A metrics table: (method, params, rep) -> K-means ACC at every count (the same value at each)."""
    return pd.DataFrame([{"dataset": "a", "method": m, "params": p, "rep": r, "n_features": c,
                          "metric": "kmeans_acc", "value": v}
                         for (m, p, r), v in values.items() for c in counts])


def pool(n=20):
    return {("Random", "default", r): r / 100 for r in range(n)}  # draw r scores r / 100


def test_best_setting_against_the_expected_best_of_g_random_draws():
    """Random's best of 5 of the draws 0..19 (a uniform 5-subset per group) has mean 5 (20 + 1) / 6 - 1 = 16.5."""
    strong = {("Strong", f"beta={b}", 0): v for b, v in zip([1, 2, 3, 4, 5], [0.1, 0.3, 0.2, 0.05, 0.0], strict=True)}
    level = {("Level", f"beta={b}", 0): v for b, v in zip([1, 2, 3, 4, 5], [0.1, 0.17, 0.15, 0.1, 0.1], strict=True)}
    table = tuned.tuned_versus_chance(long_table({**pool(), **strong, **level}), identity="t").set_index("method")
    assert table.loc["Strong", "setting"] == "beta=2" and table.loc["Strong", "value"] == pytest.approx(0.3)
    assert (table["G"] == 5).all() and (table["groups"] == 4).all()
    assert table["chance_best_of_g"].iloc[0] == pytest.approx(0.165, abs=0.006)
    assert 0.01 < table["chance_std"].iloc[0] < 0.04  # max of 5 of 20 spaced 0.01 apart
    assert table.loc["Strong", "verdict"] == "better" and table.loc["Level", "verdict"] == "not distinguishable"
    md = tuned.tuned_markdown(table.reset_index(), {"Strong": {"grid": {"beta": [1, 2, 3, 4, 5]}}})
    assert "| Level | 5 | 0 / 1 / 0 |" in md and "| Strong | 5 | **1 / 0 / 0** |" in md
    assert "| a | Strong | 5 | K-means ACC | 0.3000 | beta=2 | 0.16" in md


def test_a_setting_is_shown_by_the_parameters_its_grid_varies():
    methods = {"LLCFS": {"selector": "LLCFS", "params": {"n_clusters": "n_classes", "max_iter": 5},
                         "grid": {"beta": [0.01, 100.0]}}, "Random": {"selector": "Random", "reps": 4}}
    assert tuned.grid_settings(methods) == {("LLCFS", "beta=0.01_max_iter=5_n_clusters=n_classes"): "beta=0.01",
                                            ("LLCFS", "beta=100.0_max_iter=5_n_clusters=n_classes"): "beta=100.0",
                                            ("Random", "default"): "default"}


def test_the_same_identity_gives_the_same_chance_value():
    values = long_table({**pool(), **{("M", f"p={i}", 0): 0.1 for i in range(3)}})
    a = tuned.tuned_versus_chance(values, identity="t")
    assert a.equals(tuned.tuned_versus_chance(values, identity="t"))
    assert not a.equals(tuned.tuned_versus_chance(values, identity="u"))


def test_a_pool_too_small_for_the_grid_and_a_missing_pool_are_errors():
    grid = {("M", f"p={i}", 0): 0.1 for i in range(15)}
    with pytest.raises(ValueError, match="G=15 .* needs .* 30 draws; the pool has 20"):
        tuned.tuned_versus_chance(long_table({**pool(), **grid}), identity="t")
    with pytest.raises(ValueError, match="no Random draws"):
        tuned.tuned_versus_chance(long_table(grid), identity="t")
