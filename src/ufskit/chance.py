"""Chance under the same selection: Random's value when it is given the same "best over G settings" as a method.

A published number that is the best over a grid (IVFS Table 1: the best mean over the table's settings and
feature counts) is compared with a baseline that had one try. The fair chance reference is Random under the
same rule: G independent random feature orders play the G settings, each "setting" the mean of as many
random orders as the method has repetitions, and the best over the G settings and the counts is taken, in
the metric's direction. Its spread comes from disjoint groups of draws: group j uses draws
[j G R, (j + 1) G R), so ``groups`` groups give ``groups`` independent best-of-G values, reported as
mean and standard deviation (ddof 1).

A pool of draws serves every method of a table: draw i is the same random order whatever G and R ask for it
(its seeds depend on i only), so a method with a smaller G R uses a prefix of the pool.
"""

from __future__ import annotations

import pandas as pd

from .metrics.registry import higher_is_better
from .seeds import derive_seed

GROUPS = 5  # disjoint groups of draws per best-of-G value: its spread
DRAW_PREFIX = "draw"


def draws_needed(shapes, groups: int = GROUPS) -> int:
    """Random orders a pool needs so that every (G, reps) of ``shapes`` gets ``groups`` disjoint groups."""
    for g, reps in shapes:
        if g < 1 or reps < 1:
            raise ValueError(f"best-of-G needs G >= 1 and reps >= 1, got G={g}, reps={reps}.")
    if groups < 2:
        raise ValueError(f"groups must be >= 2 for a spread, got {groups}.")
    return groups * max((g * reps for g, reps in shapes), default=0)


def chance_runs(n_draws: int, spec: dict, *, seed: int, metrics: dict) -> list[dict]:
    """The pool's draws as runs of ``ufskit.runs.run_batched``: draw i is the setting ``draw<i>``, repetition 0.

    Its fit and evaluation seeds are derived from ``seed`` (the run's identity) and i only, so a larger pool
    keeps the draws of a smaller one.
    """
    return [{"params": f"{DRAW_PREFIX}{i}", "rep": 0, "spec": spec, "fit_seed": derive_seed(seed, "fit", i),
             "evaluation_seed": derive_seed(seed, "evaluation", i), "prefixes": True, "metrics": metrics}
            for i in range(n_draws)]


def best_of_g(values: pd.DataFrame, *, g: int, reps: int, groups: int = GROUPS) -> pd.DataFrame:
    """Per metric and group, the best over G settings and the counts of the mean over ``reps`` draws.

    ``values``: the tidy table of the pool (columns params = ``draw<i>``, n_features, metric, value).
    Group j, setting s, repetition r is draw j G R + s R + r. Returns columns metric, group, best.
    """
    need = draws_needed([(g, reps)], groups)
    draw = values["params"].str.removeprefix(DRAW_PREFIX).astype(int)
    have = int(draw.max()) + 1 if len(draw) else 0
    if have < need:
        raise ValueError(f"best of G={g} over reps={reps} in {groups} groups needs {need} draws, the pool has {have}.")
    part = values[draw < need].dropna(subset=["value"]).assign(group=draw // (g * reps), setting=draw % (g * reps) // reps)
    means = part.groupby(["metric", "group", "setting", "n_features"])["value"].mean().reset_index()
    rows = [{"metric": metric, "group": group,
             "best": float(one["value"].max() if higher_is_better(metric) else one["value"].min())}
            for (metric, group), one in means.groupby(["metric", "group"])]
    return pd.DataFrame(rows, columns=["metric", "group", "best"])


def spread(best: pd.DataFrame) -> pd.DataFrame:
    """Per metric, the mean and standard deviation (ddof 1) of the groups' best-of-G values."""
    out = best.groupby("metric")["best"].agg(chance_best_of_g="mean", chance_std="std", groups="count")
    return out.reset_index()


def beats(value, chance, metric: str):
    """Whether ``value`` is better than the chance value in ``metric``'s direction (None when either is missing)."""
    if value is None or chance is None or pd.isna(value) or pd.isna(chance):
        return None
    return bool(value > chance) if higher_is_better(metric) else bool(value < chance)
