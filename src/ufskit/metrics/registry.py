"""The metrics an experiment can ask for: one registered entry each (name, direction, function, options).

A metric is what an experiment's ``metrics:`` block names (``kmeans: {n_runs: 10}``). Its entry says

* ``values``: the values it reports in the summaries, each with its label, in the reports' order.
  Its function may report more: a value ``<value>_<suffix>`` (``knn_acc_k5``, the accuracy at K = 5;
  ``w11_literal``, a second reading of the diagrams) has the direction of ``<value>``;
* ``higher_is_better``: the direction of all its values;
* ``options``: the JSON schema of each option (type, limits, default), what the config is checked against
  (``check_metric_options``);
* its function, of one of two kinds: ``evaluate(job, options)`` gives rows for all counts at once;
  ``per_distance(D, DF, job, options)`` gives the values at one count from the normalised distance
  matrices of X and of the selected features, computed once per count for all such metrics.

A new metric is one ``Metric`` in ``METRICS`` and its test. This module is light (the metric code is
imported when a metric is evaluated), so the start-up checks can use it. It is the one place of the
options: the workflow's config schema takes any metrics block, and ``fill_metric_defaults`` checks it and
writes the defaults into the config at start-up, which the jobs' parameters hold.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..seeds import derive_seed

log = logging.getLogger("ufskit")

FIT_SECONDS = "fit_seconds"  # every run reports its selector's fit time: not a metric of the config
FIT_LABEL = "fit time"


@dataclass(frozen=True)
class Job:
    """What a metric function evaluates: one selection of X's features at each count, and the run's seed.

    ``prefix``: the ``count`` best features of ``sel.order`` are the selection at each count (else
    ``sel.features(count)``, one subset per count). ``full_diagram``: X's H1 diagram (persistence only).
    """

    X: np.ndarray
    y: np.ndarray
    sel: object
    counts: list[int]
    seed: int
    full_diagram: np.ndarray | None = None

    @property
    def prefix(self) -> bool:
        return not self.sel.subsets

    @property
    def n_classes(self) -> int:
        return int(np.unique(self.y).size)


def rows(count, values: dict) -> list[dict]:
    """Rows of the tidy metric table: one per value at ``count``."""
    return [{"n_features": count, "metric": k, "value": float(v)} for k, v in values.items()]


def path_rows(counts, series: dict) -> list[dict]:
    """Rows from values given along the counts (``series[value][i]`` at ``counts[i]``)."""
    return [row for i, count in enumerate(counts) for row in rows(count, {k: v[i] for k, v in series.items()})]


@dataclass(frozen=True)
class Metric:
    """One metric: see the module's docstring. Exactly one of ``evaluate`` and ``per_distance`` is given."""

    name: str
    values: dict[str, str]
    higher_is_better: bool
    options: dict
    evaluate: Callable | None = None
    per_distance: Callable | None = None
    schema: dict = field(init=False, repr=False)

    def __post_init__(self):
        if (self.evaluate is None) == (self.per_distance is None):
            raise TypeError(f"metric {self.name!r}: give exactly one of evaluate and per_distance.")
        object.__setattr__(self, "schema", {"type": "object", "additionalProperties": False,
                                            "properties": self.options})

    def defaults(self) -> dict:
        """The options' defaults (an option without a default is left to the function)."""
        return {k: s["default"] for k, s in self.options.items() if "default" in s}


def _kmeans(job: Job, opts: dict) -> list[dict]:
    from .clustering import kmeans_scores

    out = []
    for count in job.counts:
        res = kmeans_scores(job.X[:, job.sel.features(count)], job.y, job.n_classes, n_runs=opts["n_runs"],
                            n_init=opts["n_init"], max_iter=opts["max_iter"], nmi_average=opts["nmi_average"],
                            init=opts.get("init", "k-means++"), random_state=derive_seed(job.seed, "kmeans", count))
        out += rows(count, {"kmeans_acc": res["acc_mean"], "kmeans_nmi": res["nmi_mean"]})
        log.info("kmeans at %d features: ACC %.4f, NMI %.4f", count, res["acc_mean"], res["nmi_mean"])
    return out


def _knn(job: Job, opts: dict) -> list[dict]:
    from .classification import knn_accuracy, knn_accuracy_path

    kwargs = dict(ks=tuple(opts["ks"]), n_splits=opts["n_splits"], test_size=opts["test_size"],
                  random_state=derive_seed(job.seed, "knn"))
    if job.prefix:
        path = knn_accuracy_path(job.X, job.y, job.sel.order, job.counts, **kwargs)
    else:
        per_count = [knn_accuracy(job.X[:, job.sel.features(c)], job.y, **kwargs) for c in job.counts]
        path = {key: np.array([r[key] for r in per_count]) for key in per_count[0]}
    return path_rows(job.counts, {("knn_acc" if key == "best" else f"knn_acc_{key}"): v for key, v in path.items()})


def _cv1nn(job: Job, opts: dict) -> list[dict]:
    from .classification import cv_1nn_accuracy, cv_1nn_accuracy_path

    kwargs = dict(n_folds=opts["n_folds"], n_repeats=opts["n_repeats"], random_state=derive_seed(job.seed, "cv1nn"))
    accs = (cv_1nn_accuracy_path(job.X, job.y, job.sel.order, job.counts, **kwargs) if job.prefix else
            [cv_1nn_accuracy(job.X[:, job.sel.features(c)], job.y, **kwargs) for c in job.counts])
    return path_rows(job.counts, {"cv1nn_acc": accs})


def _distance_norms(D, DF, job: Job, opts: dict) -> dict:
    from .distances import distance_norms

    return distance_norms(D, DF)


def _persistence(D, DF, job: Job, opts: dict) -> dict:
    from .persistence import diagram_distances, h1_diagram

    if job.full_diagram is None:
        raise ValueError("the persistence metric needs the full-data diagram (rule full_diagram).")
    return diagram_distances(job.full_diagram, h1_diagram(DF, max_edge=opts["max_edge"],
                                                          min_persistence=opts["min_persistence"]))


POSITIVE_INT = {"type": "integer", "minimum": 1}

# In the order of the reports' columns: clustering, classification, geometry, topology.
METRICS = {m.name: m for m in (
    # K-means on the selected features: ACC (Hungarian matching) and NMI, mean over runs
    Metric("kmeans", {"kmeans_acc": "K-means ACC", "kmeans_nmi": "K-means NMI"}, True, evaluate=_kmeans,
           options={
               "n_runs": {**POSITIVE_INT, "default": 10},
               "n_init": {**POSITIVE_INT, "default": 10},
               "max_iter": {**POSITIVE_INT, "default": 300,
                            "description": 'Lloyd iterations per start (the NRFS paper\'s "inner loops")'},
               "nmi_average": {"enum": ["sqrt", "geometric", "arithmetic", "max", "min"], "default": "sqrt",
                               "description": "NMI normalisation (NRFS - sqrt, Strehl and Ghosh; Iterative LS - max, "
                                              "Xu et al.)."},
               # no default: a default is written into every config by the validation, changing the jobs' params
               "init": {"enum": ["k-means++", "random"],
                        "description": "Seeding of each start - k-means++ (scikit-learn's, used when absent) or "
                                       "random centres drawn among the samples (the kernel-UDFS paper's \"random "
                                       "initializations\"; reading kudfs_kmeans_random)."},
           }),
    # KNN accuracy over random train/test splits: best mean over K (knn_acc) and per K
    Metric("knn", {"knn_acc": "KNN acc."}, True, evaluate=_knn,
           options={
               "ks": {"type": "array", "items": POSITIVE_INT, "default": [1, 3, 5, 10]},
               "n_splits": {**POSITIVE_INT, "default": 10},
               "test_size": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1, "default": 0.2},
           }),
    # repeated stratified K-fold 1-NN accuracy
    Metric("cv1nn", {"cv1nn_acc": "1-NN CV acc."}, True, evaluate=_cv1nn,
           options={
               "n_folds": {"type": "integer", "minimum": 2, "default": 10},
               "n_repeats": {**POSITIVE_INT, "default": 10},
           }),
    # L_inf, L1/n^2 and L2 of D - D_F (pairwise distances scaled to [0, 1])
    Metric("distance_norms", {"Linf": "dist. L∞", "L1_over_n2": "dist. L1/n²", "L2": "dist. L2"}, False,
           per_distance=_distance_norms,
           options={"normalize_subset": {"type": "boolean", "default": True}}),
    # w_1^1 and bottleneck distances between the H1 diagrams of X and X_F
    Metric("persistence", {"w11": "persist. W1", "winf": "persist. W∞"}, False, per_distance=_persistence,
           options={
               "max_edge": {"type": "number", "exclusiveMinimum": 0, "default": 0.5},
               "min_persistence": {"type": "number", "minimum": 0, "default": 0.1},
           }),
)}


def metric(name: str) -> Metric:
    """The registered metric ``name``; a ValueError naming the known ones otherwise."""
    if name not in METRICS:
        raise ValueError(f"unknown metric {name!r}; known: {', '.join(METRICS)}.")
    return METRICS[name]


def metric_options_schema(name: str) -> dict:
    """The JSON schema of metric ``name``'s options (an object of known options, each typed, with its default)."""
    return metric(name).schema


def check_metric_options(name: str, options: dict | None, *, where: str | None = None) -> dict:
    """``options`` of metric ``name`` checked against its schema, with the defaults filled in (a new dict).

    A ValueError names where the options are (``where``, default ``metrics.<name>``), the option and the
    rule it breaks.
    """
    import jsonschema  # a dependency of snakemake; imported only here, where options are checked

    where = where or f"metrics.{name}"
    entry = metric(name)
    options = {} if options is None else options
    errors = sorted(jsonschema.Draft202012Validator(entry.schema).iter_errors(options), key=lambda e: list(e.path))
    if errors:
        e = errors[0]
        at = ".".join([where, *map(str, e.path)])
        raise ValueError(f"{at}: {e.message} (options of {name}: {', '.join(entry.options)}).")
    # the given options first, then the missing defaults in the registry's order (as a schema validation fills them)
    return {**options, **{k: copy.deepcopy(v) for k, v in entry.defaults().items() if k not in options}}


def check_metrics(block: dict, *, where: str = "metrics") -> dict:
    """An experiment's ``metrics:`` block checked (known names, each one's options), with the defaults filled in."""
    unknown = sorted(set(block) - set(METRICS))
    if unknown:
        raise ValueError(f"{where}: unknown metric(s) {unknown}; known: {', '.join(METRICS)}.")
    return {name: check_metric_options(name, options, where=f"{where}.{name}") for name, options in block.items()}


def fill_metric_defaults(experiments: dict) -> None:
    """Check every experiment's ``metrics`` block (``check_metrics``) and write its defaults into it, in place.

    Called once at start-up, before the readings derive experiments from these: the jobs' parameters hold
    the filled blocks, and a method's ``metrics`` may override only options its experiment has.
    """
    for name, exp in experiments.items():
        exp["metrics"] = check_metrics(exp["metrics"], where=f"experiments.{name}.metrics")


def reported_values(names) -> list[str]:
    """The summary values of the metrics ``names`` (config keys), in the registry's order, then the fit time."""
    chosen = {metric(n).name for n in names}
    return [v for name, m in METRICS.items() if name in chosen for v in m.values] + [FIT_SECONDS]


def value_labels() -> dict[str, str]:
    """Label of every summary value (and of the fit time) for tables and figures."""
    return {v: label for m in METRICS.values() for v, label in m.values.items()} | {FIT_SECONDS: FIT_LABEL}


def _metric_of_value(value: str) -> Metric | None:
    """The metric reporting ``value``, or ``<base>_<suffix>`` with the longest such base; None for the fit time."""
    if value == FIT_SECONDS:
        return None
    owner = {v: m for m in METRICS.values() for v in m.values}
    base = value
    while base not in owner:
        if "_" not in base:
            raise ValueError(f"{value!r} is no value of a registered metric; they are "
                             f"{', '.join(list(owner) + [FIT_SECONDS])} (and <value>_<suffix>).")
        base = base.rsplit("_", 1)[0]
    return owner[base]


def higher_is_better(value: str) -> bool:
    """The direction of a reported value (``kmeans_acc``, ``knn_acc_k5``, ``w11_literal``, ``fit_seconds``)."""
    entry = _metric_of_value(value)
    return False if entry is None else entry.higher_is_better


LOWER_IS_BETTER = tuple(v for m in METRICS.values() if not m.higher_is_better for v in m.values) + (FIT_SECONDS,)
