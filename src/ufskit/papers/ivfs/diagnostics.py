"""Why IVFS's claims fail where they do: how much its feature scores agree between independent seeds.

IVFS scores a feature by the mean loss of the random subsets that drew it. If those means are dominated by
the draw, two seeds rank the features independently: Spearman's correlation of their scores is near 0 and
their top-s sets overlap about as two random s-subsets of d features do (s / d). ``seed_agreement`` measures
both for the paper's fixed setting (Table 2's) at every k of its grid, one fit per seed, the smaller k
being checkpoints of the largest (as the workflow's runs). docs/fidelity/ivfs-paper.md reads the numbers.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

# scipy.stats is imported by the function using it: the workflow's DAG (ivfs_seed_plan) loads none
from ...experiments import method_settings, params_slug
from ...runs import fit_selector, to_selection
from ...tables import markdown_table
from . import matches


def fit_group(methods: dict, protocol: dict, label: str) -> tuple[str, dict, list[int]]:
    """The fit that gives every k of ``label``'s fixed setting: (its slug without k, its parameters at the
    largest k of the grid, the grid's k ascending; [] when the setting leaves k to the selector's default)."""
    settings = method_settings({"methods": methods})[label]
    fixed = next(p for p in settings if matches(p, protocol["fixed"][label]))
    others = {key: value for key, value in fixed.items() if key != "n_subsets"}
    ks = sorted({p["n_subsets"] for p in settings if "n_subsets" in p and matches(p, others)})
    return params_slug(others), ({**others, "n_subsets": ks[-1]} if ks else others), ks


def pairwise_agreement(scores: list[np.ndarray], orders: list[np.ndarray], top: int) -> dict:
    """Over every pair of seeds: Spearman's correlation of their scores (mean, min, max) and the mean share of
    their ``top`` first features in common."""
    from scipy.stats import spearmanr

    if len(scores) < 2:
        raise ValueError(f"the agreement between seeds needs at least 2 of them, got {len(scores)}.")
    if not 1 <= top <= len(orders[0]):
        raise ValueError(f"top={top} must lie in [1, {len(orders[0])}] (the ranked features).")
    rho = [spearmanr(a, b).statistic for a, b in combinations(scores, 2)]
    shared = [np.intersect1d(a[:top], b[:top]).size / top for a, b in combinations(orders, 2)]
    return {"pairs": len(rho), "spearman_mean": float(np.mean(rho)), "spearman_min": float(np.min(rho)),
            "spearman_max": float(np.max(rho)), "top": top, "overlap_mean": float(np.mean(shared)),
            "overlap_chance": top / len(orders[0])}


def seed_agreement(X, params: dict, ks: list[int], seeds, *, n_classes: int, top: int) -> pd.DataFrame:
    """IVFS fitted on X with ``params`` once per seed (checkpoints at the smaller ``ks``); per k, how much
    the seeds' scores and top-``top`` sets agree (``pairwise_agreement``)."""
    spec = {"selector": "IVFS", "params": params}
    scores: dict[int, list] = {}
    orders: dict[int, list] = {}
    for seed in seeds:
        selector, seconds = fit_selector(spec, X, seed=seed, n_classes=n_classes, checkpoints=list(ks[:-1]))
        for k in ks or [selector.n_subsets]:
            sel = to_selection(selector, seconds, spec, X, checkpoint=k if k < selector.n_subsets else None)
            scores.setdefault(k, []).append(sel.scores)
            orders.setdefault(k, []).append(sel.order)
    return pd.DataFrame([{"n_subsets": k, "seeds": len(seeds), **pairwise_agreement(scores[k], orders[k], top)}
                         for k in sorted(scores)])


def seed_markdown(table: pd.DataFrame) -> str:
    """The seed agreement per dataset and k, chance levels beside."""
    lines = ["# IVFS: agreement of the feature scores between seeds",
             "",
             "IVFS's fixed setting (Table 2's) fitted with independent seeds: Spearman's correlation of the feature "
             "scores over every pair of seeds (mean, and min-max), and the mean share of their top-s features in "
             "common, beside that of two random s-subsets (s / d). Near 0 and near chance: the ranking is the "
             "draw's, not the data's.", ""]
    rows = [[r.dataset, r.method, r.n_subsets, r.seeds, f"{r.spearman_mean:.3f}",
             f"{r.spearman_min:.3f} – {r.spearman_max:.3f}", r.top, f"{r.overlap_mean:.3f}", f"{r.overlap_chance:.3f}"]
            for r in table.itertuples()]
    return "\n".join(lines) + "\n" + markdown_table(rows, ["dataset", "method", "k", "seeds", "Spearman",
                                                           "range", "s", "top-s overlap", "chance"])
