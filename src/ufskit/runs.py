"""One selector run and its evaluation, as the workflow's jobs do them.

``select_features`` and ``evaluate_selection`` call these once per job; a method marked
``batch: true`` in the config runs every grid point and repetition on a dataset in one job
(``run_batched_method``), calling them once per run with the same seeds, so its numbers are
those of separate jobs without a Python start-up per run.
"""

from __future__ import annotations

import logging
import time

import numpy as np
import pandas as pd

from .data import Dataset
from .evaluation import evaluate_selection
from .experiments import feature_counts, resolve_params
from .selection_io import Selection
from .selectors import make_selector
from .selectors.plugins import fitted_ranking

log = logging.getLogger("ufskit")


def fit_run(ds: Dataset, spec: dict, seed: int, n_features, label: str = "") -> Selection:
    """Fit ``spec`` ({selector, params}) on ``ds`` with ``seed``; the full ranking and what evaluation needs.

    Selectors whose choice depends on the count (IterativeLS-2) give one subset per count;
    kernel UDFS ranks kernel features, so the matrix of those features is kept with the ranking.
    """
    params = resolve_params(spec["params"], n_classes=ds.n_classes, n_samples=ds.X.shape[0])
    selector = make_selector(spec["selector"], **params)
    if "random_state" in selector.get_params():
        selector.set_params(random_state=seed)
    log.info("fitting %s%s on %s (%d x %d)", spec["selector"], params, label, *ds.X.shape)
    t0 = time.perf_counter()
    selector.fit(ds.X)
    seconds = time.perf_counter() - t0
    log.info("fit took %.3f s", seconds)
    order, scores = fitted_ranking(selector, ds.X.shape[1])  # any selector of the contract (README)
    counts = feature_counts(n_features, scores.size)
    subsets = selector.subsets(counts) if hasattr(selector, "subsets") else {}
    space = selector.kernel_features(ds.X) if hasattr(selector, "kernel_features") else None
    return Selection(order=order, scores=scores, seconds=seconds,
                     params={**selector.get_params(), "selector": spec["selector"]}, subsets=subsets, space=space)


def evaluate_run(ds: Dataset, sel: Selection, n_features, metrics: dict, seed: int, *, dataset: str, method: str,
                 params: str, rep: int, diagram: np.ndarray | None = None) -> pd.DataFrame:
    """Every metric at every count of ``sel``, as a tidy table keyed by the run's identity; ``beyond_ranked``
    marks the counts past the features the selector truly ranked."""
    width = ds.X.shape[1] if sel.space is None else sel.space.shape[1]
    counts = feature_counts(n_features, width)
    frame = evaluate_selection(ds.X, ds.y, sel, counts, metrics, seed=seed, full_diagram=diagram)
    for column, value in (("rep", int(rep)), ("params", params), ("method", method), ("dataset", dataset)):
        frame.insert(0, column, value)
    frame["beyond_ranked"] = sel.beyond_ranked(frame["n_features"])
    return frame
