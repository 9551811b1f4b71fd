"""Evaluate one selection at every feature count with the metrics an experiment asks for.

Returns a tidy table (one row per count x metric) so that every paper table is
a pivot of the concatenated results. Metric names and options come from the
config's ``metrics:`` block of an experiment:

* ``kmeans``: K-means on the selected features, ACC (Hungarian) and NMI, mean over runs;
* ``knn``: KNN accuracy over random 80/20 splits, best mean over K (and per K);
* ``cv1nn``: repeated stratified K-fold 1-NN accuracy;
* ``distance_norms``: L_inf, L1/n^2 and L2 of D - D_F (distances scaled to [0, 1]);
* ``persistence``: w_1^1 and bottleneck between the H1 diagrams of X and X_F.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from . import metrics as M
from .seeds import derive_seed
from .selection_io import Selection

log = logging.getLogger("ufskit")

METRICS = ("kmeans", "knn", "cv1nn", "distance_norms", "persistence")


def _rows(count, values: dict) -> list[dict]:
    return [{"n_features": count, "metric": k, "value": float(v)} for k, v in values.items()]


def _path_rows(counts, series: dict) -> list[dict]:
    return [row for i, count in enumerate(counts) for row in _rows(count, {k: v[i] for k, v in series.items()})]


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
    unknown = sorted(set(metrics) - set(METRICS))
    if unknown:
        raise ValueError(f"unknown metric(s) {unknown}; known: {', '.join(METRICS)}.")
    if sel.space is not None:
        X = sel.space
    n_classes = int(np.unique(y).size)
    rows = [{"n_features": pd.NA, "metric": "fit_seconds", "value": float(sel.seconds)}]
    prefix = not sel.subsets  # count-dependent selections (IterativeLS-2, MCFS) store one subset per count
    order = sel.order

    if "knn" in metrics:
        opts = metrics["knn"]
        kwargs = dict(ks=tuple(opts.get("ks", (1, 3, 5, 10))), n_splits=opts.get("n_splits", 10),
                      test_size=opts.get("test_size", 0.2), random_state=derive_seed(seed, "knn"))
        if prefix:
            path = M.knn_accuracy_path(X, y, order, counts, **kwargs)
        else:
            per_count = [M.knn_accuracy(X[:, sel.features(c)], y, **kwargs) for c in counts]
            path = {key: np.array([r[key] for r in per_count]) for key in per_count[0]}
        rows += _path_rows(counts, {("knn_acc" if key == "best" else f"knn_acc_{key}"): v for key, v in path.items()})
        log.info("knn done on %d counts", len(counts))

    if "cv1nn" in metrics:
        opts = metrics["cv1nn"]
        kwargs = dict(n_folds=opts.get("n_folds", 10), n_repeats=opts.get("n_repeats", 10),
                      random_state=derive_seed(seed, "cv1nn"))
        accs = (M.cv_1nn_accuracy_path(X, y, order, counts, **kwargs) if prefix else
                [M.cv_1nn_accuracy(X[:, sel.features(c)], y, **kwargs) for c in counts])
        rows += _path_rows(counts, {"cv1nn_acc": accs})
        log.info("cv1nn done on %d counts", len(counts))

    if "distance_norms" in metrics or "persistence" in metrics:
        normalize = metrics.get("distance_norms", {}).get("normalize_subset", True)
        D = M.normalized_distance_matrix(X)
        if prefix:
            subset_distances = (DF for _, DF in
                                M.prefix_distance_matrices(X, order, counts, normalize_subset=normalize))
        else:
            subset_distances = (DF for c in counts for _, DF in
                                M.prefix_distance_matrices(X, sel.features(c), [c], normalize_subset=normalize))
        persistence = metrics.get("persistence")
        if persistence is not None and full_diagram is None:
            raise ValueError("the persistence metric needs the full-data diagram (rule full_diagram).")
        for count, DF in zip(counts, subset_distances):
            if "distance_norms" in metrics:
                rows += _rows(count, M.distance_norms(D, DF))
            if persistence is not None:
                dgm = M.h1_diagram(DF, max_edge=persistence.get("max_edge", 0.5),
                                   min_persistence=persistence.get("min_persistence", 0.1))
                rows += _rows(count, M.diagram_distances(full_diagram, dgm))
        log.info("distances done on %d counts", len(counts))

    if "kmeans" in metrics:
        opts = metrics["kmeans"]
        for count in counts:
            res = M.kmeans_scores(X[:, sel.features(count)], y, n_classes, n_runs=opts.get("n_runs", 10),
                                  n_init=opts.get("n_init", 10), max_iter=opts.get("max_iter", 300),
                                  nmi_average=opts.get("nmi_average", "sqrt"), init=opts.get("init", "k-means++"),
                                  random_state=derive_seed(seed, "kmeans", count))
            rows += _rows(count, {"kmeans_acc": res["acc_mean"], "kmeans_nmi": res["nmi_mean"]})
            log.info("kmeans at %d features: ACC %.4f, NMI %.4f", count, res["acc_mean"], res["nmi_mean"])

    frame = pd.DataFrame(rows)
    frame["n_features"] = frame["n_features"].astype("Int64")
    return frame
