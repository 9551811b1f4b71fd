"""Evaluate one selection at every feature count with the metrics an experiment asks for.

Returns a tidy table (one row per count x metric value) so that every paper table is
a pivot of the concatenated results. Metric names and options come from the
config's ``metrics:`` block of an experiment; what each metric is, reports and
accepts is its entry in ``metrics.registry`` (kmeans, knn, cv1nn, distance_norms,
persistence), which this module dispatches through.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from .metrics.distances import normalized_distance_matrix, prefix_distance_matrices
from .metrics.registry import FIT_SECONDS, METRICS, Job, metric, rows
from .selection_io import Selection

log = logging.getLogger("ufskit")


def evaluate_selection(
    X: np.ndarray,
    y: np.ndarray,
    sel: Selection,
    counts: list[int],
    metrics: dict,
    *,
    seed: int,
    full_diagram: np.ndarray | None = None,
) -> pd.DataFrame:
    """All requested metrics of ``sel`` on (X, y) at each count, plus the fit time, as a tidy frame.

    Features are columns of ``sel.space`` when the selector ranked a derived
    space (kernel features), else of X; distance norms and persistence always
    compare against the geometry of that same matrix.
    """
    for name in metrics:
        metric(name)  # an unknown name fails here, naming the known ones
    chosen = [m for m in METRICS.values() if m.name in metrics]  # in the registry's order
    options = {m.name: {**m.defaults(), **(metrics[m.name] or {})} for m in chosen}
    if sel.space is not None:
        X = sel.space
    job = Job(X, y, sel, list(counts), seed, full_diagram)
    out = [{"n_features": pd.NA, "metric": FIT_SECONDS, "value": float(sel.seconds)}]
    for entry in chosen:
        if entry.evaluate is not None:
            out += entry.evaluate(job, options[entry.name])
            log.info("%s done on %d counts", entry.name, len(counts))
    geometric = [m for m in chosen if m.per_distance is not None]
    if geometric:
        out += _distance_rows(job, geometric, options)
        log.info("distances done on %d counts", len(counts))
    frame = pd.DataFrame(out)
    frame["n_features"] = frame["n_features"].astype("Int64")
    return frame


def _distance_rows(job: Job, entries: list, options: dict) -> list[dict]:
    """The values of the distance-based metrics ``entries``, from one normalised distance matrix per count.

    The subset's distances are scaled as ``distance_norms.normalize_subset`` says (default: to [0, 1]),
    also for persistence alone.
    """
    normalize = options.get("distance_norms", METRICS["distance_norms"].defaults())["normalize_subset"]
    X, sel = job.X, job.sel
    D = normalized_distance_matrix(X)
    if job.prefix:
        subset_distances = (DF for _, DF in prefix_distance_matrices(X, sel.order, job.counts, normalize_subset=normalize))
    else:
        subset_distances = (DF for c in job.counts
                            for _, DF in prefix_distance_matrices(X, sel.features(c), [c], normalize_subset=normalize))
    out = []
    for count, DF in zip(job.counts, subset_distances):
        for entry in entries:
            out += rows(count, entry.per_distance(D, DF, job, options[entry.name]))
    return out
