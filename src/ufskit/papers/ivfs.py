"""IVFS (Li, Wu & Li, AAAI 2020): the paper's protocol, batched selection and evaluation, and Table 2.

The grid of the paper is large (IVFS alone: 5 d~ x 4 n~ x 3 k x 5 repetitions
per dataset), so the workflow does not run one job per run. A method's settings
on one dataset are cut into shards (``selection_shards``: IVFS one per (d~, n~),
whose k values share one fit; any other method one shard); one job fits every
setting and repetition of a shard (``fit_runs``, stored as one bundle), and one
job evaluates that bundle (``evaluate_bundle``), sharing the full-data H1
diagram. The tables, figures and claims are in
``ufskit.papers.ivfs_report``.

An IVFS experiment's ``protocol`` (checked by ``check_protocol``):

* ``table_filter``: method label -> {param: value}; the settings Table 1 takes
  the best over (IVFS: n~ = "ivfs_table", i.e. 0.1n when n < 1000, else 100);
* ``fixed``: method label -> {param: value}; the paper's single setting per
  method, used for the running-time column and for Table 2 (not needed for a
  ``Random`` method: the chance reference is only drawn as a band in Figs. 2-3);
* ``persistence_counts``: the feature counts at which the H1 diagrams are
  compared (the expensive metric), for the Table 1 settings only;
* ``literal_min_persistence``: the paper's epsilon = 0.1, applied to the
  diagrams as a second reading (metrics ``w11_literal``, ``winf_literal``);
* ``stability_features``, ``stability_reps``: Table 2's 300 features, 5 repetitions.

Choices the paper leaves open: docs/fidelity/ivfs-paper.md.
"""

from __future__ import annotations

import json
import logging
import numbers
import os
import time

import numpy as np
import pandas as pd

from .. import metrics as M
from ..data import atomic_path, reading
from ..evaluation import evaluate_selection
from ..experiments import method_settings, params_slug, resolve_params
from ..seeds import derive_seed
from ..selection_io import Selection
from ..selectors import make_selector
from ..selectors.base import order_from_ranking, ranking_from_scores
from . import paper_methods
from .spec import PaperSpec, Published, reader_rows

log = logging.getLogger("ufskit")

PROTOCOL_KEYS = {"table_filter", "fixed", "persistence_counts", "literal_min_persistence",
                 "stability_features", "stability_reps"}


def check_protocol(protocol, methods: dict) -> dict:
    """The experiment's IVFS protocol after checking its keys and values against its methods."""
    protocol = dict(protocol or {})
    if set(protocol) != PROTOCOL_KEYS:
        raise ValueError(f"an IVFS protocol takes keys {sorted(PROTOCOL_KEYS)}, got {sorted(protocol)}.")
    for key in ("table_filter", "fixed"):
        if not isinstance(protocol[key], dict):
            raise ValueError(f"protocol.{key} must map method labels to parameter dicts.")
        unknown = sorted(set(protocol[key]) - set(methods))
        if unknown:
            raise ValueError(f"protocol.{key} names unknown method(s) {unknown}; methods: {sorted(methods)}.")
    missing = sorted(set(paper_methods(methods)) - set(protocol["fixed"]))
    if missing:
        raise ValueError(f"protocol.fixed needs a setting for every method but Random; missing {missing}.")
    for label, wanted in protocol["fixed"].items():
        found = [p for p in method_settings({"methods": methods})[label] if matches(p, wanted)]
        if len(found) != 1:
            raise ValueError(f"protocol.fixed.{label} = {wanted} matches {len(found)} settings of the grid, not 1.")
    counts = protocol["persistence_counts"]
    if not isinstance(counts, list) or not counts or not all(_positive_int(c) for c in counts):
        raise ValueError(f"protocol.persistence_counts must be a non-empty list of ints >= 1, got {counts!r}.")
    for key in ("stability_features", "stability_reps"):
        if not _positive_int(protocol[key]):
            raise ValueError(f"protocol.{key} must be an int >= 1, got {protocol[key]!r}.")
    eps = protocol["literal_min_persistence"]
    if not isinstance(eps, numbers.Real) or eps < 0:
        raise ValueError(f"protocol.literal_min_persistence must be a number >= 0, got {eps!r}.")
    return protocol


def _positive_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= 1


def matches(params: dict, wanted: dict) -> bool:
    """True if the config parameters ``params`` hold every key = value of ``wanted``."""
    return all(key in params and params[key] == value for key, value in wanted.items())


def fixed_slug(methods: dict, protocol: dict, label: str) -> str:
    """The slug of the paper's fixed setting of ``label`` (running time, Table 2)."""
    settings = method_settings({"methods": methods})[label]
    return params_slug(next(p for p in settings if matches(p, protocol["fixed"][label])))


def table_slugs(methods: dict, protocol: dict, label: str, n_samples: int) -> list[str]:
    """Slugs of the settings Table 1 takes the best over on a dataset of ``n_samples`` rows.

    A filter value and a setting's value are compared after resolving both
    placeholders for this dataset, so n~ = "ivfs_table" picks 0.1 on n < 1000
    and "upto100" on n >= 1000.
    """
    wanted = resolve_params(protocol["table_filter"].get(label, {}), n_classes=0, n_samples=n_samples)
    return [params_slug(p) for p in method_settings({"methods": methods})[label]
            if matches(resolve_params(p, n_classes=0, n_samples=n_samples), wanted)]


# ---------------------------------------------------------------- batched selection


def fit_runs(X, *, selector: str, settings: list[dict], reps: int, n_classes: int, seed_of) -> dict:
    """Fit every setting x repetition of one method on X; a bundle of orders, scores and fit seconds.

    ``seed_of(slug, rep)`` gives each run its seed (the workflow's run identity),
    so a run's result does not depend on which other runs share its job.
    Deterministic selectors are fitted once per setting and that fit is reused
    for every repetition (same order; the time is measured once). IVFS settings
    that differ only in k (``n_subsets``) share one fit with the largest k: the
    smaller ones are its checkpoints (the first k subsets of one stream, seeded
    by the setting without k), with the seconds measured when each was reached.
    """
    results = {}  # (slug, rep) -> (order, scores, seconds)
    groups = _settings_sharing_draws(selector, settings)
    for i, (group_slug, group) in enumerate(groups.items(), 1):
        largest = max(group, key=lambda q: q.get("n_subsets", 0))
        smaller = sorted({q["n_subsets"] for q in group} - {largest["n_subsets"]}) if len(group) > 1 else []
        params = resolve_params(largest, n_classes=n_classes, n_samples=X.shape[0])
        est = make_selector(selector, **params, **({"checkpoints": smaller} if smaller else {}))
        random = "random_state" in est.get_params()
        for rep in range(reps):
            if random or rep == 0:
                if random:
                    est.set_params(random_state=seed_of(group_slug, rep))
                t0 = time.perf_counter()
                est.fit(X)
                elapsed = time.perf_counter() - t0
                log.info("fit %d/%d %s rep %d: %.2f s", i, len(groups), group_slug, rep, elapsed)
            results[params_slug(largest), rep] = (est.order_, est.scores_, elapsed)
            for q in group:
                if q is not largest:
                    k = q["n_subsets"]
                    scores = est.checkpoint_scores_[k]
                    order = order_from_ranking(ranking_from_scores(scores))
                    results[params_slug(q), rep] = (order, scores, est.checkpoint_seconds_[k])
    keys = [(params_slug(q), rep) for q in settings for rep in range(reps)]
    return {"slugs": np.array([k[0] for k in keys]), "reps": np.array([k[1] for k in keys]),
            "orders": np.array([results[k][0] for k in keys]), "scores": np.array([results[k][1] for k in keys]),
            "seconds": np.array([results[k][2] for k in keys]),
            "params": {params_slug(q): q for q in settings}, "selector": selector}


def selection_shards(selector: str, settings: list[dict]) -> dict[str, list[dict]]:
    """A method's settings cut into the workflow's jobs, keyed by a path-safe name.

    IVFS: one shard per group of settings sharing one fit (its (d~, n~); the k
    values are checkpoints of that fit), so a cluster runs a dataset's grid at
    once and an interrupted run keeps every finished shard. The other methods'
    grids take minutes: one shard, ``all``. Runs are seeded by their setting, so
    the numbers do not depend on the sharding.
    """
    if selector == "IVFS":
        return _settings_sharing_draws(selector, settings)
    return {"all": list(settings)}


def _settings_sharing_draws(selector: str, settings: list[dict]) -> dict[str, list[dict]]:
    """Settings grouped by one fit: IVFS settings equal but for ``n_subsets`` share one (keyed by the slug
    without it); every other setting is its own group (keyed by its slug)."""
    groups: dict[str, list[dict]] = {}
    for q in settings:
        if selector == "IVFS" and "n_subsets" in q:
            key = params_slug({k: v for k, v in q.items() if k != "n_subsets"})
        else:
            key = params_slug(q)
        groups.setdefault(key, []).append(q)
    return groups


def save_bundle(bundle: dict, path) -> None:
    """Write a bundle atomically (npz; parameters as a JSON string)."""
    tmp = atomic_path(path)
    with open(tmp, "wb") as fh:
        np.savez(fh, slugs=bundle["slugs"], reps=bundle["reps"], orders=bundle["orders"].astype(np.int64),
                 scores=bundle["scores"], seconds=bundle["seconds"],
                 meta=np.array(json.dumps({"params": bundle["params"], "selector": bundle["selector"]})))
    os.replace(tmp, path)


def load_bundle(path) -> dict:
    """Read a bundle written by ``save_bundle``; a corrupt file is an ``IntegrityError`` naming it."""
    with reading(path, "selection bundle"), np.load(path, allow_pickle=False) as z:
        meta = json.loads(str(z["meta"]))
        return {"slugs": z["slugs"].astype(str), "reps": z["reps"], "orders": z["orders"], "scores": z["scores"],
                "seconds": z["seconds"], **meta}


# ---------------------------------------------------------------- evaluation


def persistence_rows(X, order, counts, full_diagram, *, max_edge: float, min_persistence: float,
                     literal_min_persistence: float) -> list[dict]:
    """w11/winf of the H1 diagram of each prefix against the full one, in two readings.

    ``w11``, ``winf``: bars shorter than ``min_persistence`` dropped (the main
    reading); ``w11_literal``, ``winf_literal``: the same diagrams with the
    paper's literal epsilon. One Rips computation serves both, since dropping
    bars commutes with computing them.
    """
    rows = []
    literal_full = _long_bars(full_diagram, literal_min_persistence)
    for count, DF in M.prefix_distance_matrices(X, order, counts):
        dgm = M.h1_diagram(DF, max_edge=max_edge, min_persistence=min_persistence)
        for suffix, (a, b) in {"": (full_diagram, dgm),
                               "_literal": (literal_full, _long_bars(dgm, literal_min_persistence))}.items():
            for metric, value in M.diagram_distances(a, b).items():
                rows.append({"n_features": count, "metric": metric + suffix, "value": value})
    return rows


def _long_bars(dgm: np.ndarray, eps: float) -> np.ndarray:
    return dgm[dgm[:, 1] - dgm[:, 0] >= eps]


def evaluate_bundle(X, y, bundle: dict, counts: list[int], metrics: dict, *, seed_of, persist: set,
                    persistence_counts: list[int], full_diagram, literal_min_persistence: float) -> pd.DataFrame:
    """Every metric of every run of a bundle: the generic knn / distance norms at ``counts``, plus
    persistence (see ``persistence_rows``) at ``persistence_counts`` for the runs whose slug is in ``persist``.

    Returns the tidy rows (params, rep, n_features, metric, value).
    """
    bad = sorted(set(persistence_counts) - set(counts))
    if bad:
        raise ValueError(f"persistence counts {bad} are not among the evaluated counts {counts}.")
    generic = {k: v for k, v in metrics.items() if k != "persistence"}
    opts = metrics.get("persistence")
    frames = []
    runs = list(zip(bundle["slugs"], bundle["reps"], bundle["orders"], bundle["scores"], bundle["seconds"]))
    for i, (slug, rep, order, scores, seconds) in enumerate(runs, 1):
        sel = Selection(order=order, scores=scores, seconds=float(seconds), params=bundle["params"][slug])
        frame = evaluate_selection(X, y, sel, counts, generic, seed=seed_of(slug, int(rep)))
        if opts is not None and slug in persist:
            extra = persistence_rows(X, order, sorted(persistence_counts), full_diagram,
                                     max_edge=opts.get("max_edge", 0.5),
                                     min_persistence=opts.get("min_persistence", 0.1),
                                     literal_min_persistence=literal_min_persistence)
            frame = pd.concat([frame, pd.DataFrame(extra)], ignore_index=True)
        frame.insert(0, "rep", int(rep))
        frame.insert(0, "params", slug)
        frames.append(frame)
        log.info("evaluated %d/%d: %s rep %d%s", i, len(runs), slug, rep, " (with persistence)" * (slug in persist))
    out = pd.concat(frames, ignore_index=True)
    out["n_features"] = out["n_features"].astype("Int64")
    return out


# ---------------------------------------------------------------- Table 2: bootstrap stability


def bootstrap_differences(X, *, selector: str, params: dict, n_selected: int, n_reps: int, n_classes: int,
                          seed) -> list[int]:
    """Table 2: per repetition, |F_X minus F_B| for the top ``n_selected`` features on X and on a bootstrap of X.

    Repetition r draws n rows with replacement (seed derived from ``seed`` and
    r). A random selector gets the same ``random_state`` for both fits, so only
    the data differ. Features constant on the bootstrap sample (possible on
    sparse data) are left out of its fit and count as not selected.
    """
    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    if not 1 <= n_selected <= d:
        raise ValueError(f"n_selected={n_selected} must lie in [1, {d}].")
    params = resolve_params(params, n_classes=n_classes, n_samples=n)
    random = "random_state" in make_selector(selector, **params).get_params()
    diffs, original = [], None
    for rep in range(n_reps):
        rng = np.random.default_rng(derive_seed(seed, "bootstrap", rep))
        Xb = X[rng.integers(0, n, size=n)]
        fit_seed = derive_seed(seed, "fit", rep)
        if random or original is None:  # a deterministic selector's choice on X is the same every repetition
            original = _top(X, selector, params, n_selected, fit_seed)
        varying = np.flatnonzero(np.ptp(Xb, axis=0) > 0)
        boot = varying[_top(Xb[:, varying], selector, params, min(n_selected, varying.size), fit_seed)]
        diffs.append(int(np.setdiff1d(original, boot).size))
    return diffs


def _top(X, selector: str, params: dict, m: int, seed: int) -> np.ndarray:
    est = make_selector(selector, **params)
    if "random_state" in est.get_params():
        est.set_params(random_state=seed)
    return est.fit(X).order_[:m]


# ---------------------------------------------------------------- the paper as one unit (ufskit.papers.registry)


def _read_table1(table: pd.DataFrame) -> pd.DataFrame:
    return reader_rows(table, "Table 1")


def _read_table2(table: pd.DataFrame) -> pd.DataFrame:
    return reader_rows(table, "Table 2", metric="bootstrap_differences")


SPEC = PaperSpec(
    name="ivfs",
    title="IVFS (Li, Wu & Li, AAAI 2020)",
    published=(
        Published("ivfs_table1.csv", "Table 1", {
            "knn_acc_pct": ("knn_acc", None), "w11": ("w11", None), "winf": ("winf", None), "Linf": ("Linf", None),
            "L1_over_n2_x1e-2": ("L1_over_n2", None), "L2": ("L2", None), "time_s": ("fit_seconds", None)}),
        Published("ivfs_table1.csv", "Table 1 (datasets)",
                  {"n": ("n_samples", ""), "d": ("n_features", ""), "classes": ("n_classes", "")}),
        Published("ivfs_table2.csv", "Table 2",
                  {m: ("bootstrap_differences", m) for m in ("SPEC", "MCFS", "GLSPFS", "IVFS-linf")}),
    ),
    readers={"table1": _read_table1, "table2": _read_table2},
    claims="claims.csv",
    tables={"table1.md": "ivfs_table1", "table2.md": "ivfs_table2", "claims.md": "ivfs_claims"},
    figures={"fig2.png": "ivfs_curves", "fig3.png": "ivfs_curves", "fig4.png": "ivfs_fig4"},
)
