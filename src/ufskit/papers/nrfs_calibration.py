"""Calibrating the NRFS synthetic generator to the paper's baselines, and its sensitivity (issue 22).

The paper's Fig. 1 leaves the noise features' scale and distribution and the clusters' spread and
placement unstated (``ufskit.synthetic``). A generator setting is scored by running Table I's
baselines on data generated with it and comparing their NMI with the published values:

    objective = sum over the baselines b and the columns v (all / normal instances) where the paper
                gives a value of (NMI_b,v - published_b,v)^2

The baselines are K-means and NJW on all features and SPEC, LS, MCFS and NDFS; NRFS itself is
never part of the objective, so its NMI on the calibrated data is a prediction, not a fit.
``search`` tries a coarse grid, then refines the best point by a pattern search (each continuous
parameter up and down by a step, steps halved when nothing improves). Every point it tries is
returned, so the search can be read and rerun (scripts/calibrate_nrfs_synthetic.py).
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from ..seeds import derive_seed
from ..synthetic import nrfs_synthetic
from .nrfs import REFERENCES, fit_subset, table1_runs

BASELINES = ("K-means", "NJW", "SPEC", "LS", "MCFS", "NDFS")
GENERATOR_PARAMETERS = ("noise_scale", "noise_distribution", "cluster_spread", "cluster_separation")
CONTINUOUS = ("noise_scale", "cluster_spread", "cluster_separation")
# The coarse grid: the noise features' range (Fig. 1c's 150 up to ten times it), both distributions,
# clusters half to twice as wide, centres halfway to the middle of the axes or where Fig. 1 reads them.
COARSE_GRID = {
    "noise_distribution": ("uniform", "gaussian"),
    "noise_scale": (150.0, 200.0, 300.0, 400.0, 600.0, 800.0, 1200.0, 1600.0),
    "cluster_spread": (0.5, 1.0, 2.0),
    "cluster_separation": (0.5, 1.0),
}
# Pattern-search start steps, as factors (noise_scale, multiplicative) or increments (the others).
START_STEPS = {"noise_scale": 1.25, "cluster_spread": 0.25, "cluster_separation": 0.125}
BOUNDS = {"noise_scale": (10.0, 5000.0), "cluster_spread": (0.1, 3.0), "cluster_separation": (0.1, 1.5)}


def baseline_nmi(setting: dict, methods: dict, *, sizes: dict | None = None, data_seeds=(0,),
                 kmeans: dict | None = None, seed: int = 0) -> pd.DataFrame:
    """Mean NMI (on the normal instances) per method and variant on data generated with ``setting``.

    ``methods`` maps a Table I row to None (K-means, NJW: all features) or {selector, params}
    (4 features, the count of Table I). Each generator seed in ``data_seeds`` gives one data set;
    every method is fitted once on it (and once on its normal rows) and clustered once with
    ``kmeans`` ({n_init, max_iter}); the rows are the means over the data sets.
    """
    kmeans = {"n_init": 10, "max_iter": 100, **(kmeans or {})}
    frames = []
    for data_seed in data_seeds:
        ds = nrfs_synthetic(**(sizes or {}), **setting, random_state=int(data_seed))
        noise = ds.info["noise_indices"]
        for method, spec in methods.items():
            run_seed = derive_seed(seed, data_seed, method)
            selections = () if method in REFERENCES else [
                fit_subset(spec["selector"], spec["params"], ds.X, 4, seed=run_seed)]
            frames.append(table1_runs(ds.X, ds.y, noise, method, count=4, spec=spec, selections=selections,
                                      total_runs=1, kmeans=kmeans, seed=run_seed))
    runs = pd.concat(frames, ignore_index=True)
    return runs.groupby(["method", "variant"], sort=False)["nmi"].mean().reset_index()


def objective(nmi: pd.DataFrame, published: pd.DataFrame) -> float:
    """Sum of squared differences between the baselines' NMI and the published values (NRFS excluded).

    ``nmi`` has columns method, variant ("all" / "normal"), nmi; ``published`` is Table I as in
    config/published/nrfs_table1.csv (method, nmi_all_instances, nmi_normal_instances). Every
    baseline must be in ``nmi``; a published cell that is empty does not count.
    """
    pub = published.set_index("method")
    got = nmi.set_index(["method", "variant"])["nmi"]
    total = 0.0
    for method in BASELINES:
        for variant, column in (("all", "nmi_all_instances"), ("normal", "nmi_normal_instances")):
            target = pub.loc[method, column] if method in pub.index else np.nan
            if pd.isna(target):
                continue
            if (method, variant) not in got.index:
                raise ValueError(f"objective: no NMI for {method!r} ({variant} instances).")
            total += (float(got[(method, variant)]) - float(target)) ** 2
    return total


def _row(stage: str, setting: dict, nmi: pd.DataFrame, published: pd.DataFrame) -> dict:
    cells = {f"{r.method}_{r.variant}": r.nmi for r in nmi.itertuples()}
    return {"stage": stage, **setting, "objective": objective(nmi, published), **cells}


def grid_points(grid: dict) -> list[dict]:
    """Every combination of the grid's values, as generator settings."""
    keys = list(grid)
    return [dict(zip(keys, values)) for values in itertools.product(*(grid[k] for k in keys))]


def _neighbours(point: dict, steps: dict) -> list[dict]:
    out = []
    for name, step in steps.items():
        for direction in (-1, 1):
            value = point[name] * step ** direction if name == "noise_scale" else point[name] + direction * step
            low, high = BOUNDS[name]
            if low <= value <= high:
                out.append({**point, name: round(float(value), 4)})
    return out


def search(evaluate, published: pd.DataFrame, *, grid: dict = COARSE_GRID, rounds: int = 4, log=None) -> pd.DataFrame:
    """Coarse grid, then pattern search from its best point; one row per point tried.

    ``evaluate(setting)`` returns ``baseline_nmi``'s frame. The refinement tries each continuous
    parameter one step up and down from the best point so far, moves to the best improvement,
    and halves the steps when none improves; it stops after ``rounds`` halvings. Points already
    tried are not evaluated twice. The ``stage`` column says "grid" or "refine".
    """
    rows, seen = [], {}

    def visit(stage, setting):
        key = tuple(sorted(setting.items()))
        if key not in seen:
            seen[key] = _row(stage, setting, evaluate(setting), published)
            rows.append(seen[key])
            if log:
                log(seen[key])
        return seen[key]["objective"]

    for setting in grid_points(grid):
        visit("grid", setting)
    best = dict(min(rows, key=lambda r: r["objective"]))
    best = {k: best[k] for k in GENERATOR_PARAMETERS}
    best_value = visit("grid", best)
    steps = dict(START_STEPS)
    halvings = 0
    while halvings < rounds:
        scored = [(visit("refine", p), p) for p in _neighbours(best, steps)]
        value, point = min(scored, key=lambda t: t[0], default=(np.inf, None))
        if value < best_value:
            best, best_value = point, value
        else:
            steps = {k: (np.sqrt(v) if k == "noise_scale" else v / 2) for k, v in steps.items()}
            halvings += 1
    frame = pd.DataFrame(rows)
    frame["chosen"] = False
    frame.loc[frame["objective"].idxmin(), "chosen"] = True
    return frame
