"""Iterative Laplacian Score (Zhu, Miao & Zhang 2012): the paper's own studies, tables, claims and figures.

The UCI study (Fig. 1) and ORL clustering with all 40 people (Fig. 2, 40
clusters) run on the generic select -> evaluate path. This module adds what
that path does not cover:

* ``cluster_subsets_study``: Fig. 2 with fewer clusters - per repetition draw
  c people, select features on their images, K-means (best objective of
  ``n_init`` starts), ACC and NMI;
* ``train_size_study``: Fig. 3 - per split t training images per person, select
  on the training images, 1-NN accuracy on the rest;
* Table 1 beside the published statistics, the IterativeLS-1 / -2 comparison,
  the claims report and the three figures.

An experiment names its study by its config ``role`` (one of ``ROLES``), its settings in ``protocol``.
Choices the paper leaves open: docs/fidelity/ils-paper.md.
"""

from __future__ import annotations

import numbers
import re

import numpy as np
import pandas as pd

# matplotlib and scipy.stats are imported by the functions using them: the workflow's start-up loads neither
from ... import metrics as M
from ...experiments import method_settings, params_slug
from ...graph import pairwise_sq_dists
from ...plots import count_axis, finish, panel_grid, plot_line, shade_band
from ...runs import fit_run
from ...seeds import derive_seed
from ...tables import markdown_table
from .. import EXTRA_MARK, verdict
from ..benchmark_stats import random_band
from ..spec import PaperSpec, Published

# study (config `role` of an experiment) -> the protocol keys it needs (each an int or a list of ints)
STUDIES = {
    "uci": {},
    "orl_clusters": {"cluster_counts": list},
    "orl_train_size": {"train_per_class": list, "n_splits": int},
}
ILS, ILS2, LS, VARIANCE = "IterativeLS-1", "IterativeLS-2", "LS", "Variance"
UCI_METHODS = (ILS, ILS2, LS, VARIANCE)
UCI_METRIC = "cv1nn_acc"
ROLES = tuple(STUDIES)  # config `role` of its experiments: the UCI study (Table 1, Fig. 1), Fig. 2, Fig. 3


def check_protocol(study: str, protocol: dict | None) -> str:
    """``study`` (an experiment's ``role``), after checking the keys and values of its ``protocol``."""
    protocol = dict(protocol or {})
    if study not in STUDIES:
        raise ValueError(f"role must be one of {list(STUDIES)}, got {study!r}.")
    wanted = STUDIES[study]
    if set(protocol) != set(wanted):
        raise ValueError(f"study {study!r} takes protocol keys {sorted(wanted)}, got {sorted(protocol)}.")
    for key, kind in wanted.items():
        values = protocol[key] if kind is list else [protocol[key]]
        if (kind is list and not isinstance(protocol[key], list)) or not values or not all(
            isinstance(v, numbers.Integral) and not isinstance(v, bool) and v >= 1 for v in values
        ):
            raise ValueError(f"protocol.{key} must be {'a non-empty list of ' if kind is list else 'an '}"
                             f"integer(s) >= 1, got {protocol[key]!r}.")
    return study


# ---------------------------------------------------------------- selection on a subset of the samples


def method_runs(methods: dict) -> list[tuple[str, str, str, dict]]:
    """(label, params slug, selector name, params) for every method setting of an experiment."""
    return [(label, params_slug(params), methods[label]["selector"], params)
            for label, settings in method_settings({"methods": methods}).items() for params in settings]


def selected_sets(X, selector: str, params: dict, counts, *, n_classes: int, seed: int) -> dict[int, np.ndarray]:
    """Feature indices per count: the selector's own subsets where it has them, else its order's prefixes."""
    sel = fit_run(X, {"selector": selector, "params": params}, seed, n_classes=n_classes, n_features=list(counts))
    return {c: sel.features(c) for c in counts}


def draw_classes(y, n_classes: int, rng: np.random.Generator) -> np.ndarray:
    """Sorted indices of the samples of ``n_classes`` classes drawn without replacement."""
    classes = np.unique(y)
    if not 1 <= n_classes <= classes.size:
        raise ValueError(f"cannot draw {n_classes} classes out of {classes.size}.")
    return np.flatnonzero(np.isin(y, rng.choice(classes, n_classes, replace=False)))


def per_class_split(y, n_train: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(train, test) sorted indices: ``n_train`` random samples of every class for training, the rest for test."""
    y = np.asarray(y)
    classes, sizes = np.unique(y, return_counts=True)
    if not 1 <= n_train < sizes.min():
        raise ValueError(f"n_train={n_train} per class must leave a test sample in every class "
                         f"(smallest: {sizes.min()}).")
    order = np.lexsort((rng.random(y.size), y))  # by class, in random order within each class
    y_sorted = y[order]
    rank = np.arange(y.size) - np.searchsorted(y_sorted, y_sorted)  # position within its class
    train = np.zeros(y.size, dtype=bool)
    train[order[rank < n_train]] = True
    return np.flatnonzero(train), np.flatnonzero(~train)


def nn_accuracy(X_train, y_train, X_test, y_test) -> float:
    """Test accuracy of the Euclidean 1-NN classifier (ties to the lower training index)."""
    pred = M.knn_predict(pairwise_sq_dists(X_test, X_train), y_train, 1)
    return float(np.mean(pred == np.asarray(y_test)))


def cluster_subsets_study(X, y, methods: dict, *, n_clusters: int, reps: int, counts, n_init: int,
                          nmi_average: str, seed: int) -> pd.DataFrame:
    """Fig. 2 for ``n_clusters`` people: per repetition draw them, select on their images, K-means ACC and NMI.

    Every method sees the same draw; K-means keeps the lowest-objective of
    ``n_init`` starts (the paper's "best of 10 initialisations"). Returns rows
    (n_clusters, rep, method, params, n_features, metric, value).
    """
    rows = []
    for rep in range(reps):
        idx = draw_classes(y, n_clusters, np.random.default_rng(derive_seed(seed, "draw", n_clusters, rep)))
        Xs, ys = X[idx], y[idx]
        for label, slug, selector, params in method_runs(methods):
            sets = selected_sets(Xs, selector, params, counts, n_classes=n_clusters,
                                 seed=derive_seed(seed, "select", n_clusters, rep, label, slug))
            for count, features in sets.items():
                labels = M.kmeans_labels(Xs[:, features], n_clusters, n_init=n_init,
                                         random_state=derive_seed(seed, "kmeans", n_clusters, rep, count))
                base = {"n_clusters": n_clusters, "rep": rep, "method": label, "params": slug, "n_features": count}
                rows.append({**base, "metric": "kmeans_acc", "value": M.clustering_accuracy(ys, labels)})
                rows.append({**base, "metric": "kmeans_nmi", "value": M.nmi(ys, labels, average_method=nmi_average)})
    return pd.DataFrame(rows)


def train_size_study(X, y, methods: dict, *, n_train: int, n_splits: int, counts, seed: int) -> pd.DataFrame:
    """Fig. 3 for ``n_train`` images per person: per split select on the training images, 1-NN test accuracy.

    Every method setting sees the same splits. Returns rows (n_train, split,
    method, params, n_features, metric = "nn_acc", value).
    """
    n_classes = int(np.unique(y).size)
    rows = []
    for split in range(n_splits):
        train, test = per_class_split(y, n_train, np.random.default_rng(derive_seed(seed, "split", n_train, split)))
        for label, slug, selector, params in method_runs(methods):
            sets = selected_sets(X[train], selector, params, counts, n_classes=n_classes,
                                 seed=derive_seed(seed, "select", n_train, split, label, slug))
            rows += [{"n_train": n_train, "split": split, "method": label, "params": slug, "n_features": count,
                      "metric": "nn_acc",
                      "value": nn_accuracy(X[np.ix_(train, f)], y[train], X[np.ix_(test, f)], y[test])}
                     for count, f in sets.items()]
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- tables


def table1(prepared: dict[str, dict], published: pd.DataFrame) -> str:
    """Markdown: each dataset as loaded and as prepared (constant columns dropped) beside the paper's Table 1."""
    pub = published.set_index("dataset")
    missing = sorted(set(prepared) - set(pub.index))
    if missing:
        raise ValueError(f"no published Table 1 row for {missing}.")
    rows = []
    for name, s in prepared.items():
        p = pub.loc[name]
        dropped = sum(step.get("n_removed", 0) for step in s.get("preprocessing", []))
        ours = (s["n_samples"], s["n_features"], s["n_classes"])
        theirs = (int(p["n"]), int(p["d"]), int(p["classes"]))
        rows.append([name, p["paper_name"], f"{theirs[0]} x {theirs[1]}, {theirs[2]}",
                     f"{ours[0]} x {ours[1] + dropped}", dropped, f"{ours[0]} x {ours[1]}, {ours[2]}",
                     "yes" if ours == theirs else "**no**"])
    return markdown_table(rows, ["dataset", "paper name", "paper n x d, C", "loaded n x d",
                                 "constant features dropped", "prepared n x d, C", "matches the paper"])


def mean_curves(frame: pd.DataFrame, keys) -> pd.DataFrame:
    """Mean and standard deviation of ``value`` over repetitions, per ``keys`` + method, params, count, metric."""
    keys = list(keys) + ["method", "params", "n_features", "metric"]
    out = frame.dropna(subset=["n_features"]).groupby(keys, sort=True)["value"].agg(["mean", "std"])
    return out.reset_index().astype({"n_features": int})


def cluster_curves(summary: pd.DataFrame, parts: list[pd.DataFrame], n_classes: int, reference=()) -> pd.DataFrame:
    """Fig. 2's curves: the drawn-people studies (mean over draws) plus all ``n_classes`` people.

    The all-people panel comes from the generic path (``summary``: selection on
    every image, K-means ACC/NMI averaged over its ``n_runs`` runs), since with
    every person drawn a repetition differs only in K-means' starts. The methods
    in ``reference`` (Random) get no curve: ``cluster_band`` draws them.
    """
    summary = summary[~summary["method"].isin(reference)]
    parts = [p[~p["method"].isin(reference)] for p in parts]
    custom = mean_curves(pd.concat(parts, ignore_index=True), ["n_clusters"])
    if (custom["n_clusters"] == n_classes).any():
        raise ValueError(f"the {n_classes}-cluster panel comes from the generic path; drop it from cluster_counts.")
    full = summary[summary["metric"].isin(["kmeans_acc", "kmeans_nmi"])]
    full = full[["method", "params", "n_features", "metric", "mean", "std"]].assign(n_clusters=n_classes)
    return pd.concat([custom, full[custom.columns]], ignore_index=True).astype({"n_features": int})


def cluster_band(parts: list[pd.DataFrame], metrics: pd.DataFrame, n_classes: int, reference) -> pd.DataFrame:
    """Fig. 2's band: per number of clusters, metric and count the 5-95 % quantiles of the ``reference``
    methods' runs (Random's draws): over the repetitions of the drawn-people studies (``parts``; each draws
    people and a random subset) and, for all ``n_classes`` people, over the generic path's repetitions
    (``metrics``, the experiment's long table)."""
    runs = pd.concat([*parts, metrics.assign(n_clusters=n_classes)], ignore_index=True)
    runs = runs[runs["metric"].isin(["kmeans_acc", "kmeans_nmi"])]
    bands = [random_band(runs, label, by=("n_clusters",)) for label in reference]
    return pd.concat(bands, ignore_index=True) if bands else random_band(runs.iloc[0:0], by=("n_clusters",))


def fig1_values(summary: pd.DataFrame) -> pd.DataFrame:
    """Fig. 1's values per dataset and method (1-NN accuracy, mean over the counts; the best setting of a method
    with several) for the statistics over its datasets."""
    best = _setting_means(summary[summary["metric"] == UCI_METRIC]).groupby(["dataset", "method"], sort=False).max()
    return best.rename("value").reset_index().assign(metric=UCI_METRIC)[["dataset", "method", "metric", "value"]]


def _setting_means(rows: pd.DataFrame) -> pd.Series:
    """Mean of ``rows``' accuracy over the counts per dataset, method and setting (params)."""
    return rows.groupby(["dataset", "method", "params"], sort=False)["mean"].mean()


def _best_setting(frame: pd.DataFrame, method: str, metric: str = UCI_METRIC) -> pd.DataFrame:
    """``method``'s rows of ``frame`` (one dataset) at its setting of the best mean accuracy over the counts, the rule
    of ``fig1_values``: one curve per method, as the paper draws each."""
    rows = frame[(frame["method"] == method) & (frame["metric"] == metric)]
    means = _setting_means(rows)
    return rows if means.empty else rows[rows["params"] == means.idxmax()[2]]


def _curve(frame: pd.DataFrame, method: str, metric: str = UCI_METRIC) -> pd.Series:
    rows = frame[(frame["method"] == method) & (frame["metric"] == metric)]
    if rows["params"].nunique() > 1:
        raise ValueError(f"method {method!r} has several settings; the comparison needs one.")
    curve = rows.set_index("n_features")["mean"].sort_index()
    curve.index = curve.index.astype(int)
    return curve


def variants_table(curves: pd.DataFrame, orders: dict[str, tuple[np.ndarray, dict]]) -> pd.DataFrame:
    """Per dataset: IterativeLS-1 vs -2 accuracy differences over counts and how alike their selections are.

    ``curves``: mean accuracy per (dataset, method, n_features); ``orders``:
    dataset -> (IterativeLS-1's order, IterativeLS-2's {count: kept set}).
    Jaccard compares the selected sets at each count; Spearman compares
    IterativeLS-1's order with IterativeLS-2's features ranked by the number of
    its kept sets that hold them (for nested sets that is the order itself).
    """
    from scipy.stats import spearmanr

    rows = []
    for dataset, group in curves.groupby("dataset", sort=True):
        a, b = _curve(group, ILS), _curve(group, ILS2)
        diff = (a - b).dropna()
        order1, subsets2 = orders[dataset]
        d = order1.size
        jaccard = [len(set(order1[:c]) & set(subsets2[c])) / len(set(order1[:c]) | set(subsets2[c]))
                   for c in sorted(subsets2)]
        # IterativeLS-2's kept sets are not nested: rank its features by how many kept sets hold them
        membership = np.zeros(d)
        for kept in subsets2.values():
            membership[kept] += 1
        rho = float(spearmanr(-np.argsort(order1), membership).statistic)
        rows.append({"dataset": dataset, "n_counts": diff.size, "mean_abs_diff": float(diff.abs().mean()),
                     "max_abs_diff": float(diff.abs().max()), "count_of_max": int(diff.abs().idxmax()),
                     "mean_diff_1_minus_2": float(diff.mean()), "share_equal": float(np.mean(np.isclose(diff, 0))),
                     "mean_jaccard": float(np.mean(jaccard)), "spearman_orders": rho})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- claims


def _verdict(ok: bool, partly: bool = False) -> str:
    return f"**{verdict(ok, partly)}**"


def claim_variants(variants: pd.DataFrame, *, tol: float) -> str:
    worst = variants.loc[variants["mean_abs_diff"].idxmax()]
    ok = bool((variants["mean_abs_diff"] <= tol).all())
    partly = bool((variants["mean_abs_diff"] <= tol).mean() >= 0.5)
    per = ", ".join(f"{r.dataset} {r.mean_abs_diff:.4f}" for r in variants.itertuples())
    return (f"{_verdict(ok, partly)}: mean |ACC(IterativeLS-1) - ACC(IterativeLS-2)| over feature counts is at most "
            f"{tol} on {int((variants['mean_abs_diff'] <= tol).sum())} of {len(variants)} datasets ({per}); largest "
            f"single gap {variants['max_abs_diff'].max():.4f}; worst dataset {worst['dataset']}. Mean Jaccard of the "
            f"selected sets {variants['mean_jaccard'].mean():.3f}.")


def uci_gaps(curves: pd.DataFrame, low: int, high: int) -> pd.DataFrame:
    """Per dataset: where IterativeLS-1 is at least as good as LS / Variance, and its mean gap at ``low``..``high``."""
    rows = []
    for dataset, group in curves.groupby("dataset", sort=True):
        ils, ls, var = (_curve(group, m) for m in (ILS, LS, VARIANCE))
        below_d = ils.index < ils.index.max()  # at d every method keeps all features
        band = (ils.index >= low) & (ils.index <= high) & below_d
        gap_ls, gap_var = (ils - ls)[below_d], (ils - var)[below_d]
        rows.append({"dataset": dataset, "counts": int(below_d.sum()),
                     "share_ge_ls": float((gap_ls >= 0).mean()), "share_ge_var": float((gap_var >= 0).mean()),
                     "share_ge_both": float(((gap_ls >= 0) & (gap_var >= 0)).mean()),
                     "mean_gap_ls": float(gap_ls.mean()), "mean_gap_var": float(gap_var.mean()),
                     "band_gap_ls": float((ils - ls)[band].mean()) if band.any() else np.nan,
                     "band_gap_var": float((ils - var)[band].mean()) if band.any() else np.nan})
    return pd.DataFrame(rows)


def claim_uci(gaps: pd.DataFrame, *, low: int, high: int, share: float, margin: float) -> list[str]:
    """Fig. 1's two claims from ``uci_gaps``: 'almost always above' and 'clearly so for low..high features'."""
    overall = gaps["share_ge_both"].mean()
    always = (f"{_verdict(overall >= share, overall >= 0.5)}: IterativeLS-1 is at least as accurate as both LS "
              f"and Variance at {overall:.0%} of the feature counts below d (mean over datasets; criterion "
              f">= {share:.0%}); vs LS alone {gaps['share_ge_ls'].mean():.0%}, vs Variance alone "
              f"{gaps['share_ge_var'].mean():.0%}. Per dataset (both): "
              + ", ".join(f"{r.dataset} {r.share_ge_both:.0%}" for r in gaps.itertuples()) + ".")
    band = gaps.dropna(subset=["band_gap_ls"])
    clear = band["band_gap_ls"] > margin
    band_text = (f"{_verdict(bool(clear.all()), bool(clear.mean() >= 0.5))}: at {low}-{high} features the mean "
                 f"accuracy gap IterativeLS-1 - LS exceeds {margin} on {int(clear.sum())} of {len(band)} datasets "
                 f"(mean gap {band['band_gap_ls'].mean():+.4f}; vs Variance {band['band_gap_var'].mean():+.4f}). "
                 f"Per dataset: " + ", ".join(f"{r.dataset} {r.band_gap_ls:+.4f}" for r in band.itertuples()) + ".")
    return [always, band_text]


def claim_orl_clusters(curves: pd.DataFrame, *, below: int, margin: float) -> str:
    """Fig. 2: IterativeLS-1 above LS on ACC and NMI, clearly so below ``below`` features."""
    parts, shares, low_gaps = [], [], []
    for metric in ("kmeans_acc", "kmeans_nmi"):
        for c, group in curves[curves["metric"] == metric].groupby("n_clusters", sort=True):
            ils, ls = _curve(group, ILS, metric), _curve(group, LS, metric)
            gap = ils - ls
            low = gap[gap.index < below]
            shares.append((gap > 0).mean())
            low_gaps.append(low.mean())
            parts.append(f"{metric} c={c}: above at {(gap > 0).mean():.0%} of counts, mean gap below {below} "
                         f"{low.mean():+.4f}, from {below} on {gap[gap.index >= below].mean():+.4f}")
    ok = np.mean(shares) >= 0.8 and min(low_gaps) > margin
    partly = np.mean(shares) >= 0.5 and np.mean(low_gaps) > 0
    return (f"{_verdict(bool(ok), bool(partly))} (criterion: above LS at >= 80% of counts and mean gap below {below} "
            f"features > {margin} in every panel): " + "; ".join(parts) + ".")


def claim_train_size(curves: pd.DataFrame, *, tol: float) -> str:
    """Fig. 3: the accuracy spread over d (IterativeLS settings) per training size, mean and worst over counts."""
    parts, worst = [], []
    for t, group in curves[curves["method"] == ILS].groupby("n_train", sort=True):
        table = group.pivot(index="n_features", columns="params", values="mean")
        spread = table.max(axis=1) - table.min(axis=1)
        worst.append(spread.mean())
        parts.append(f"{t} per person: mean spread {spread.mean():.4f}, largest {spread.max():.4f} "
                     f"(at {int(spread.idxmax())} features)")
    ok = max(worst) <= tol
    return (f"{_verdict(bool(ok), bool(np.mean(worst) <= tol))} (criterion: the 1-NN accuracy spread over d, max - "
            f"min per feature count, averages at most {tol} for every training size): "
            + "; ".join(parts) + ".")


# Judgement thresholds of the verdicts (accuracy/NMI as fractions); printed in claims.md with the numbers.
CLAIM_CRITERIA = {
    "variants_tol": 0.01,  # "almost the same": mean |ACC gap| over counts at most 1 point
    "share": 0.8,  # "almost always above": at >= 80 % of the feature counts below d
    "band": (5, 10),  # "clearly so for 5 to 10 features"
    "margin": 0.01,  # "clearly"/"significantly": a mean gap above 1 point
    "orl_below": 400,  # "when selected feature number is smaller than 400"
    "d_tol": 0.02,  # "d does not matter much": mean spread over d at most 2 points
}


def claims(*, uci: pd.DataFrame, variants: pd.DataFrame, clusters: pd.DataFrame, train_size: pd.DataFrame,
           criteria: dict = CLAIM_CRITERIA) -> list[dict]:
    """Every ILS claim of reference/claims.md with its verdict: dicts of id (config/published/claims.csv),
    claim, verdict (the text's leading bold words) and numbers (the rest of the text)."""
    low, high = criteria["band"]
    gaps = uci_gaps(uci[uci["metric"] == UCI_METRIC], low, high)
    always, band = claim_uci(gaps, low=low, high=high, share=criteria["share"], margin=criteria["margin"])
    found = [
        ("ILS/variants", "IterativeLS-1 and IterativeLS-2 give almost the same results.",
         claim_variants(variants, tol=criteria["variants_tol"])),
        ("ILS/Fig1", "Fig. 1: IterativeLS almost always above LS and Variance (1-NN, 10 x 10-fold CV, 8 UCI sets).",
         always),
        ("ILS/Fig1", f"Fig. 1: clearly above LS for {low} to {high} selected features.", band),
        ("ILS/Fig2", "Fig. 2: K-means ACC and NMI on ORL (5, 10, 15, 40 clusters): IterativeLS above LS, clearly below "
         f"{criteria['orl_below']} features.",
         claim_orl_clusters(clusters, below=criteria["orl_below"], margin=criteria["margin"])),
        ("ILS/Fig3", "Fig. 3: the number of features dropped per iteration (d) barely matters when the dimension is "
         "large.", claim_train_size(train_size, tol=criteria["d_tol"])),
    ]
    records = []
    for cid, claim, text in found:
        _, verdict, numbers = text.split("**", 2)
        records.append({"id": cid, "claim": claim, "verdict": verdict, "numbers": numbers.lstrip(": ")})
    return records


def claims_report(claims: list[dict], criteria: dict = CLAIM_CRITERIA) -> str:
    """Markdown: every claim of ``claims``, the verdict and the numbers behind it."""
    lines = ["# Iterative Laplacian Score: the paper's claims against this reproduction", "",
             "Computed from the reproduced tables (summary of the UCI experiment, variants.csv, fig2.csv, "
             f"fig3.csv). Thresholds: {criteria}.", ""]
    for i, claim in enumerate(claims, 1):
        lines += [f"## {i}. {claim['claim']}", "", f"**{claim['verdict']}**: {claim['numbers']}", ""]
    return "\n".join(lines)


# ---------------------------------------------------------------- figures


def _style(ax, title: str, ylabel: str) -> None:
    ax.set_title(title, fontsize=9)
    count_axis(ax.xaxis)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)


def _plot_method(ax, group: pd.DataFrame, method: str, metric: str, layer: int, label: str | None = None,
                 added: int | None = None) -> None:
    curve = _curve(group, method, metric)
    plot_line(ax, curve.index, curve.values, method, layer, label=label or method, added=added)


def _with_drops(frame: pd.DataFrame) -> str:
    """", IterativeLS with d = ..." for the d values (features dropped per iteration) its settings set, else ""."""
    slugs = frame.loc[frame["method"] == ILS, "params"].unique()
    if len(slugs) == 0 or not all(re.search(r"(?:^|_)n_drop=\d+", s) for s in slugs):
        return ""
    return ", IterativeLS with d = " + ", ".join(str(d) for d in sorted({_n_drop(s) for s in slugs}))


def figure1(curves: pd.DataFrame, titles: dict[str, str], *, n_folds: int, n_repeats: int, protocol: str = "full",
            extra=()):
    """Fig. 1: one panel per dataset, 1-NN accuracy against the number of features (IterativeLS-1, LS, Variance).

    ``n_folds`` x ``n_repeats`` is the cross-validation that produced the accuracies (the paper's
    10 x 10); it labels the y axis. ``extra``: labels of added methods (``extra_methods``), drawn after the
    paper's in their added style with ``EXTRA_MARK`` (not in the paper). An added method with a grid is drawn at
    its best setting per dataset, the one of the best mean accuracy over the counts (the rule of ``fig1_values``,
    which feeds the statistics): one curve per method, as the paper draws its methods, "(best setting)" in its label.
    """
    datasets = sorted(curves["dataset"].unique())
    fig, axes = panel_grid(len(datasets))
    cv = f"1-NN accuracy ({n_folds}-fold CV" + (f" x {n_repeats})" if n_repeats > 1 else ")")
    tuned = {m: curves.loc[curves["method"] == m, "params"].nunique() > 1 for m in extra}
    for ax, dataset in zip(axes, datasets):
        group = curves[curves["dataset"] == dataset]
        for layer, (method, label) in enumerate(((ILS, "IterativeLS"), (LS, LS), (VARIANCE, VARIANCE))):
            _plot_method(ax, group, method, UCI_METRIC, layer, label)
        for added, method in enumerate(extra):
            label = method + EXTRA_MARK + (" (best setting)" if tuned[method] else "")
            _plot_method(ax, _best_setting(group, method), method, UCI_METRIC, 3 + added, label, added)
        _style(ax, titles.get(dataset, dataset), cv)
    title = (f"Fig. 1 reproduced: 1-NN accuracy on {len(datasets)} UCI data set{'s' * (len(datasets) > 1)}"
             + _with_drops(curves))
    return finish(fig, axes, title=title, protocol=protocol)


def figure2(curves: pd.DataFrame, *, runs: int, band: pd.DataFrame | None = None, protocol: str = "full"):
    """Fig. 2: K-means ACC (top row) and NMI (bottom row) on ORL per number of clusters, LS vs IterativeLS.

    ``runs``: the repetitions (people drawn, selection, K-means) each point averages; ``band``: Random's
    5-95 % band per number of clusters, metric and count (``cluster_band``), shaded behind the curves.
    """
    clusters = sorted(curves["n_clusters"].unique())
    fig, axes = panel_grid(2 * len(clusters), ncols=len(clusters))
    for row, (metric, name) in enumerate((("kmeans_acc", "clustering accuracy"), ("kmeans_nmi", "NMI (max)"))):
        for ax, c in zip(axes[row * len(clusters):], clusters):
            if band is not None:
                shade_band(ax, band[(band["n_clusters"] == c) & (band["metric"] == metric)])
            group = curves[(curves["n_clusters"] == c)]
            for layer, (method, label) in enumerate(((ILS, "IterativeLS"), (LS, LS))):
                _plot_method(ax, group, method, metric, layer, label)
            _style(ax, f"ORL, {c} clusters: {name}", name)
    title = f"Fig. 2 reproduced: K-means on ORL{_with_drops(curves)} (mean over {runs} runs)"
    return finish(fig, axes, title=title, protocol=protocol)


def figure3(curves: pd.DataFrame, *, n_splits: int, protocol: str = "full"):
    """Fig. 3: 1-NN test accuracy per training size, one curve per d (IterativeLS settings) plus LS.

    ``n_splits``: the random training/test splits each point averages.
    """
    from matplotlib import colormaps

    sizes = sorted(curves["n_train"].unique())
    fig, axes = panel_grid(len(sizes), ncols=len(sizes))
    settings = sorted(curves.loc[curves["method"] == ILS, "params"].unique(), key=_n_drop)
    colours = colormaps["autumn"](np.linspace(0.0, 0.8, len(settings)))  # warm shades; LS stays blue
    for ax, t in zip(axes, sizes):
        group = curves[curves["n_train"] == t]
        for layer, (colour, slug) in enumerate(zip(colours, settings)):
            curve = group[(group["method"] == ILS) & (group["params"] == slug)].set_index("n_features")["mean"]
            plot_line(ax, curve.index, curve.values, ILS, layer, color=colour, label=f"IterativeLS d={_n_drop(slug)}")
        _plot_method(ax, group, LS, "nn_acc", len(settings))
        _style(ax, f"ORL, {t} training images per person", "1-NN test accuracy")
    title = f"Fig. 3 reproduced: 1-NN accuracy on ORL for several d (mean over {n_splits} random splits)"
    return finish(fig, axes, title=title, protocol=protocol)


def _n_drop(slug: str) -> int:
    """n_drop of a params slug such as 'n_drop=5_variant=1'."""
    found = re.search(r"(?:^|_)n_drop=(\d+)", slug)
    if found is None:
        raise ValueError(f"params {slug!r} set no n_drop.")
    return int(found.group(1))


# ---------------------------------------------------------------- the paper as one unit (ufskit.papers.registry)

PAPER = PaperSpec(
    name="ils",
    title="Iterative Laplacian Score (Zhu, Miao & Zhang, CCPR 2012)",
    roles=ROLES,
    published=(Published("ils_table1.csv", "Table 1",
                         {"n": ("n_samples", ""), "d": ("n_features", ""), "classes": ("n_classes", "")}),),
    claims="claims.csv",
    tables={"table1.md": "ils_table1", "variants.csv": "ils_variants", "claims.md": "ils_claims"},
    figures={"fig1.png": "ils_fig1", "fig2.png": "ils_orl_figure", "fig3.png": "ils_orl_figure"},
)
