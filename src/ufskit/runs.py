"""A selector run and its evaluation: the one place a selector is fitted for a run, and the one place a
selection is evaluated.

``fit_selector`` fits (parameters resolved on the data, seed, timing); ``to_selection`` turns the fitted
selector into the ``Selection`` that is saved and evaluated (its ranking checked against the selector
contract); ``fit_run`` is the two in one. The workflow's jobs (``select_features``, the batched jobs of
``run_batched``, NRFS's sampling figure) and the paper modules (ILS's studies, NRFS's Table I refits,
IVFS's bootstrap, the NRFS calibration) all fit through them, so a change to how a run is fitted,
seeded, timed or checked is made once. BLAS threads are capped per process by ``ufskit.runlog.start``
(a job's ``threads:``) and inside the iterative selectors.

``run_batched`` runs many settings and repetitions of a method in one job with the seeds their separate
jobs would get: a method marked ``batch: true`` (one job per dataset) or an IVFS shard (settings that
share one fit, IVFS's smaller ``n_subsets`` being checkpoints of the largest).
"""

from __future__ import annotations

import json
import logging
import time

import numpy as np
import pandas as pd

from . import metrics as M
from .evaluation import evaluate_selection
from .experiments import feature_counts, resolve_params
from .selection_io import Selection
from .selectors import make_selector
from .selectors.plugins import fitted_ranking
from .selectors.ties import order_from_ranking, rank_with_ties  # not .base: it imports scikit-learn
from .validation import scale_check_off

log = logging.getLogger("ufskit")


def fit_selector(spec: dict, X, *, seed: int, n_classes: int, label: str = "", y=None, **extra):
    """Fit ``spec`` ({selector, params}) on X for one run; (fitted selector, fit seconds).

    Placeholders of the parameters are resolved on X (``n_classes``, X's sample count); ``extra``
    are further constructor arguments (IVFS's ``checkpoints``); a selector that draws gets
    ``random_state=seed``, a deterministic one ignores the seed. ``y``, the class labels, is passed to
    ``fit`` only for a selector that uses them (``uses_labels = True``: the benchmark's positive control);
    the unsupervised selectors never see it.
    """
    params = resolve_params(spec["params"], n_classes=n_classes, n_samples=X.shape[0])
    selector = make_selector(spec["selector"], **params, **extra)
    if "random_state" in selector.get_params():
        selector.set_params(random_state=seed)
    log.info("fitting %s%s on %s (%d x %d)", spec["selector"], params, label, *X.shape)
    supervised = getattr(selector, "uses_labels", False)
    t0 = time.perf_counter()
    with scale_check_off():  # the chains are the protocols'; the dataset tables report the spread ratio
        selector.fit(X, y) if supervised else selector.fit(X)
    seconds = time.perf_counter() - t0
    log.info("fit took %.3f s", seconds)
    return selector, seconds


def is_random(spec: dict) -> bool:
    """Whether ``spec``'s selector draws (takes a ``random_state``): its repetitions need fits of their own."""
    return "random_state" in make_selector(spec["selector"], **spec["params"]).get_params()


def to_selection(selector, seconds: float, spec: dict, X, n_features=(), *, checkpoint: int | None = None) -> Selection:
    """The ``Selection`` of a fitted selector: full ranking, scores, what evaluation at ``n_features`` needs
    (a list of counts or the config's forms, resolved on the ranked width).

    Selectors whose choice depends on the count (IterativeLS-2, MCFS) give one subset per count;
    kernel UDFS ranks kernel features, so the matrix of those features is kept with the ranking.
    ``checkpoint``: the selection an IVFS fit had reached after that many subsets (its scores and
    seconds then). ``n_ranked`` is how many features have a truly determined rank (the selector's
    ``n_ranked_``, else all; an IVFS checkpoint's ties are broken and counted as the full fit's).
    """
    params = {**selector.get_params(), "selector": spec["selector"]}
    if checkpoint is None:
        order, scores = fitted_ranking(selector, X.shape[1])  # any selector of the contract (docs/own-selector.md)
        counts = feature_counts(n_features, scores.size) if len(n_features) else []
        subsets = selector.subsets(counts) if hasattr(selector, "subsets") else {}
        space = selector.kernel_features(X) if hasattr(selector, "kernel_features") else None
    else:
        scores, seconds = selector.checkpoint_scores_[checkpoint], selector.checkpoint_seconds_[checkpoint]
        ranking, n_ranked = rank_with_ties(scores, getattr(selector, "random_state", None))  # as the fit's own
        order, subsets, space = order_from_ranking(ranking), {}, None
        params = {**params, "n_subsets": checkpoint, "checkpoints": None}
    if checkpoint is None:
        n_ranked = int(getattr(selector, "n_ranked_", scores.size))
    return Selection(order=order, scores=scores, seconds=seconds, params=params, subsets=subsets, space=space,
                     n_ranked=n_ranked)


def fit_run(X, spec: dict, seed: int, *, n_classes: int, n_features=(), label: str = "", y=None) -> Selection:
    """Fit ``spec`` on X with ``seed`` (``fit_selector``; ``y`` for a selector that uses the labels) and return its
    ``Selection`` (``to_selection``)."""
    selector, seconds = fit_selector(spec, X, seed=seed, n_classes=n_classes, label=label, y=y)
    return to_selection(selector, seconds, spec, X, n_features)


def evaluate_run(X, y, sel: Selection, n_features, metrics: dict, seed: int, *, dataset: str, method: str,
                 params: str, rep: int, diagram: np.ndarray | None = None) -> pd.DataFrame:
    """Every metric of ``sel`` at every count, as a tidy table keyed by the run's identity; ``beyond_ranked``
    marks the counts past the features the selector truly ranked.

    The persistence metric (the expensive one) takes three options beyond its own: ``counts``
    (only these of the evaluated counts), ``literal_min_persistence`` (the same diagrams read a second
    time with that epsilon: ``w11_literal``, ``winf_literal``) and ``settings`` ({param: value}: only
    for runs whose parameters, resolved on X, hold these values), as IVFS's protocol asks.
    """
    width = X.shape[1] if sel.space is None else sel.space.shape[1]
    counts = feature_counts(n_features, width)
    opts = metrics.get("persistence") or {}
    own = bool(set(opts) & RUN_PERSISTENCE_OPTIONS)
    frame = evaluate_selection(X, y, sel, counts, {k: v for k, v in metrics.items() if not (own and k == "persistence")},
                               seed=seed, full_diagram=diagram)
    if own and _holds(sel.params, opts.get("settings", {}), X.shape[0]):
        at = sorted(opts.get("counts", counts))
        bad = sorted(set(at) - set(counts))
        if bad:
            raise ValueError(f"persistence counts {bad} are not among the evaluated counts {counts}.")
        rows = persistence_rows(X if sel.space is None else sel.space, sel, at, diagram,
                                max_edge=opts.get("max_edge", 0.5), min_persistence=opts.get("min_persistence", 0.1),
                                literal_min_persistence=opts.get("literal_min_persistence"))
        frame = pd.concat([frame, pd.DataFrame(rows)], ignore_index=True)
        frame["n_features"] = frame["n_features"].astype("Int64")
    for column, value in (("rep", int(rep)), ("params", params), ("method", method), ("dataset", dataset)):
        frame.insert(0, column, value)
    frame["beyond_ranked"] = sel.beyond_ranked(frame["n_features"])
    return frame


RUN_PERSISTENCE_OPTIONS = {"counts", "literal_min_persistence", "settings"}


def _holds(params: dict, wanted: dict, n_samples: int) -> bool:
    """Whether a run's parameters hold every key = value of ``wanted`` (placeholders resolved on the data)."""
    wanted = resolve_params(wanted, n_classes=0, n_samples=n_samples)
    return all(key in params and params[key] == value for key, value in wanted.items())


def persistence_rows(X, sel: Selection, counts, full_diagram, *, max_edge: float, min_persistence: float,
                     literal_min_persistence: float | None) -> list[dict]:
    """w11/winf of the H1 diagram of each count's features against the full one, in one or two readings.

    ``w11``, ``winf``: bars shorter than ``min_persistence`` dropped (the main reading);
    ``w11_literal``, ``winf_literal`` (when ``literal_min_persistence`` is given): the same diagrams
    with that epsilon. One Rips computation serves both, since dropping bars commutes with computing them.
    """
    if full_diagram is None:
        raise ValueError("the persistence metric needs the full-data diagram (rule full_diagram).")
    readings = {"": lambda dgm: dgm}
    if literal_min_persistence is not None:
        readings["_literal"] = lambda dgm: dgm[dgm[:, 1] - dgm[:, 0] >= literal_min_persistence]
    if sel.subsets:
        matrices = (pair for c in counts for pair in M.prefix_distance_matrices(X, sel.features(c), [c]))
    else:
        matrices = M.prefix_distance_matrices(X, sel.order, counts)
    rows = []
    for count, DF in matrices:
        dgm = M.h1_diagram(DF, max_edge=max_edge, min_persistence=min_persistence)
        for suffix, reading in readings.items():
            for metric, value in M.diagram_distances(reading(full_diagram), reading(dgm)).items():
                rows.append({"n_features": count, "metric": metric + suffix, "value": value})
    return rows


def run_batched(X, y, runs: list[dict], n_features, metrics: dict, *, n_classes: int, dataset: str, method: str,
                diagram: np.ndarray | None = None) -> pd.DataFrame:
    """Fit and evaluate many runs of one method on one dataset in one job; their tidy tables concatenated
    (``batched_runs``)."""
    tables = batched_runs(X, y, runs, n_features, metrics, n_classes=n_classes, dataset=dataset, method=method,
                          diagram=diagram)
    return pd.concat([table for _, _, table in tables], ignore_index=True)


def batched_runs(X, y, runs: list[dict], n_features, metrics: dict, *, n_classes: int, dataset: str, method: str,
                 diagram: np.ndarray | None = None):
    """Fit and evaluate many runs of one method on one dataset; yield (run, its ``Selection``, its tidy table).

    Each run: ``params`` (its setting's slug), ``rep``, ``spec`` (the setting fitted), ``fit_seed``,
    ``evaluation_seed``, and optionally ``checkpoints`` (the smaller ``n_subsets`` that fit records),
    ``checkpoint`` (this run is the fit's selection at that many subsets), ``prefixes`` (true: every
    count takes a prefix of the full order, even from a selector with per-count subsets such as MCFS)
    and ``metrics`` (its own evaluation options instead of ``metrics``). Runs that name the same fit share it (IVFS's k grid),
    and a deterministic selector is fitted once for all its repetitions; a run's numbers are those of
    its own job, whatever else shares the batch.
    """
    fits = {}
    for i, run in enumerate(runs, start=1):
        spec, checkpoints = run["spec"], run.get("checkpoints") or []
        key = json.dumps([spec, checkpoints, run["fit_seed"] if is_random(spec) else None], sort_keys=True)
        label = f"{dataset} ({run['params']}, rep {run['rep']})"
        if key not in fits:
            fits[key] = fit_selector(spec, X, seed=run["fit_seed"], n_classes=n_classes, label=label, y=y,
                                     **({"checkpoints": checkpoints} if checkpoints else {}))
        sel = to_selection(*fits[key], spec, X, () if run.get("prefixes") else n_features,
                           checkpoint=run.get("checkpoint"))
        table = evaluate_run(X, y, sel, n_features, run.get("metrics", metrics), run["evaluation_seed"],
                             dataset=dataset, method=method, params=run["params"], rep=run["rep"], diagram=diagram)
        log.info("run %d of %d done: %s", i, len(runs), label)
        yield run, sel, table
