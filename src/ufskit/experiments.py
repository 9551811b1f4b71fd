"""Experiment protocols from the config: parameter grids, run identities and their path slugs.

An experiment (config ``experiments.<name>``) names datasets, methods with
parameter grids, repetitions and feature counts. This module turns it into the
list of selector runs the workflow schedules; it is plain Python so that it is
tested without Snakemake.
"""

from __future__ import annotations

import itertools
import re
from contextlib import contextmanager
from dataclasses import dataclass

from .validation import resolve_count

_SLUG_SAFE = re.compile(r"^[A-Za-z0-9_.+-]+$")


def format_value(value) -> str:
    """Short, stable text for a parameter value in a path (0.1 -> '0.1', 1e-06 -> '1e-06', True -> 'true',
    [200, 300] -> '200+300')."""
    if isinstance(value, list):
        return "+".join(format_value(v) for v in value)
    return str(value).lower() if isinstance(value, bool) else str(value)


def params_slug(params: dict) -> str:
    """'a=1_b=0.5' with keys sorted; 'default' for no parameters. Refuses characters unsafe in paths."""
    if not params:
        return "default"
    parts = []
    for key in sorted(params):
        text = f"{key}={format_value(params[key])}"
        if not _SLUG_SAFE.match(text.replace("=", "")):
            raise ValueError(f"parameter {key}={params[key]!r} cannot be written into a path.")
        parts.append(text)
    return "_".join(parts)


def expand_grid(fixed: dict | None, grid: dict | None) -> list[dict]:
    """Every combination of the grid's lists, each merged over the fixed parameters (sorted, deterministic)."""
    fixed = dict(fixed or {})
    grid = dict(grid or {})
    overlap = set(fixed) & set(grid)
    if overlap:
        raise ValueError(f"parameter(s) {sorted(overlap)} given both as fixed and in the grid.")
    keys = sorted(grid)
    for key in keys:
        if not isinstance(grid[key], list) or not grid[key]:
            raise ValueError(f"grid entry {key!r} must be a non-empty list, got {grid[key]!r}.")
    return [{**fixed, **dict(zip(keys, combo))} for combo in itertools.product(*(grid[k] for k in keys))]


@dataclass(frozen=True)
class Run:
    """One selector run: the unit of one `select` job and one `evaluate` job."""

    experiment: str
    dataset: str
    method: str
    params: str  # the slug
    rep: int


def method_settings(experiment: dict) -> dict[str, list[dict]]:
    """Method label -> list of parameter dicts (the grid expanded) for one experiment."""
    return {
        label: expand_grid(spec.get("params"), spec.get("grid"))
        for label, spec in experiment["methods"].items()
    }


def settings_by_slug(experiment: dict, method: str) -> dict[str, dict]:
    """Slug -> parameter dict for one method of an experiment."""
    spec = experiment["methods"][method]
    out = {}
    for params in expand_grid(spec.get("params"), spec.get("grid")):
        slug = params_slug(params)
        if slug in out:
            raise ValueError(f"method {method!r}: two grid points give the same slug {slug!r}.")
        out[slug] = params
    return out


def method_metrics(experiment: dict, method: str) -> dict:
    """The experiment's metrics with ``method``'s own ``metrics`` options merged over them.

    A method may change the options of metrics the experiment evaluates (e.g.
    ``Random: {metrics: {kmeans: {n_runs: 1}}}``: one K-means run per random
    draw, since its R draws already give the spread). Overriding a metric the
    experiment does not evaluate, an option the metric does not have, or an
    option with a value of another type is an error naming them.
    """
    base = experiment.get("metrics") or {}
    merged = {name: dict(opts or {}) for name, opts in base.items()}
    for name, opts in (experiment["methods"][method].get("metrics") or {}).items():
        if name not in base:
            raise ValueError(f"method {method!r}: metrics.{name} overrides a metric the experiment does not "
                             f"evaluate; it evaluates {sorted(base)}.")
        for key, value in (opts or {}).items():
            if key not in merged[name]:
                raise ValueError(f"method {method!r}: metrics.{name}.{key} is not an option of the experiment's "
                                 f"{name} (options: {sorted(merged[name])}).")
            if type(value) is not type(merged[name][key]):
                raise ValueError(f"method {method!r}: metrics.{name}.{key} = {value!r} must be of type "
                                 f"{type(merged[name][key]).__name__}, as the experiment's {merged[name][key]!r}.")
            merged[name][key] = value
    return merged


def experiment_runs(name: str, experiment: dict, datasets: list[str]) -> list[Run]:
    """All runs of an experiment over the given (already filtered) datasets.

    A method's ``exclude`` ({dataset: reason}) leaves those pairs out; the
    reports list them with the reason (``not_run``).
    """
    slugs = {method: list(settings_by_slug(experiment, method)) for method in experiment["methods"]}
    runs = []
    for dataset in datasets:
        for method, spec in experiment["methods"].items():
            if dataset in spec.get("exclude", {}):
                continue
            for slug in slugs[method]:
                runs.extend(Run(name, dataset, method, slug, r) for r in range(method_reps(experiment, method)))
    return runs


def method_reps(experiment: dict, method: str) -> int:
    """Repetitions of ``method``: its own ``reps``, else the experiment's, else 1."""
    return int(experiment["methods"][method].get("reps", experiment.get("reps", 1)))


def is_batched(experiment: dict, method: str) -> bool:
    """Whether every repetition of ``method`` on a dataset runs in one job (config ``batch: true``)."""
    return bool(experiment["methods"][method].get("batch", False))


# A method's ``select_preprocess``: the chain it selects on when it is not the experiment's (its selection is
# evaluated on the experiment's chain, column for column). ``UNSCALED``: each dataset's registry chain without a
# final z-scoring, the natural input of a selector that measures scale (Variance) where the experiment standardises.
UNSCALED = "default_unscaled"
SCALING_STEPS = ("zscore",)
COLUMN_SUBSET_STEPS = ("drop_constant",)  # steps that only drop columns: the same after a scaling step or before it


def step_name(step) -> str:
    """A chain item's step name (items are names or single-key maps name -> options)."""
    return step if isinstance(step, str) else next(iter(step))


def unscaled_steps(steps: list) -> list:
    """``steps`` without their last scaling step (``SCALING_STEPS``) when only column-dropping steps follow it: the
    same columns, not standardised. Unchanged when the chain does not end by scaling."""
    steps = list(steps)
    for i in range(len(steps) - 1, -1, -1):
        name = step_name(steps[i])
        if name in SCALING_STEPS:
            return steps[:i] + steps[i + 1:]
        if name not in COLUMN_SUBSET_STEPS:
            break
    return steps


def selection_chain(experiment: dict, method: str) -> str:
    """The chain ``method`` selects on: its ``select_preprocess``, else the experiment's ``preprocess``."""
    return experiment["methods"][method].get("select_preprocess") or experiment.get("preprocess", "default")


def check_same_columns(selected, evaluated, selected_path="", evaluated_path="") -> None:
    """Refuse a selection made on data (``selected``, a Dataset) whose columns are not those of the data it is
    evaluated on (``evaluated``): a ``select_preprocess`` chain must keep the same columns in the same order."""
    a, b = selected.feature_names, evaluated.feature_names
    same = selected.X.shape[1] == evaluated.X.shape[1] and (a is None or b is None or list(a) == list(b))
    if not same:
        raise ValueError(f"the selection's data {selected_path} ({selected.X.shape[1]} columns) and the data it is "
                         f"evaluated on {evaluated_path} ({evaluated.X.shape[1]} columns) differ in their columns: a "
                         "method's select_preprocess chain must drop the same columns as the experiment's.")


def not_run(experiment: dict) -> dict[tuple[str, str], str]:
    """``{(dataset, method): reason}`` of the pairs an experiment's methods exclude.

    An excluded dataset must be one of the experiment's datasets (a typo would
    otherwise exclude nothing, silently).
    """
    out = {}
    for method, spec in experiment["methods"].items():
        for dataset, reason in spec.get("exclude", {}).items():
            if dataset not in experiment["datasets"]:
                raise ValueError(f"method {method!r} excludes {dataset!r}, which is not a dataset of the "
                                 f"experiment ({', '.join(experiment['datasets'])}).")
            out[(dataset, method)] = str(reason)
    return out


def dropped_columns(info: dict) -> str:
    """What the preprocessing of a dataset (its ``info``) removed, and why, as a sentence ("" if nothing).

    Read from the log ``apply_chain`` keeps, so that an error about the
    prepared width (a feature count above it) can say where the columns went.
    """
    parts = []
    for entry in info.get("preprocessing", []):
        if entry.get("n_removed"):
            names = entry.get("removed_names", entry.get("first_removed", []))
            more = ", ..." if entry["n_removed"] > len(names) else ""
            parts.append(f"step {entry['step']!r} removed {entry['n_removed']} column(s) as constant or varying "
                         f"only by rounding ({', '.join(map(str, names))}{more})")
    return "; ".join(parts)


class FeatureCountError(ValueError):
    """A feature count of the config does not fit the prepared dataset's width."""


@contextmanager
def counts_explained(info: dict):
    """Add to a ``FeatureCountError`` raised inside which columns the dataset's preprocessing (``info``) removed.

    A count above the prepared width is most often a count that fitted the
    raw file before ``drop_constant``; the message then says so, by name.
    """
    try:
        yield
    except FeatureCountError as err:
        dropped = dropped_columns(info)
        if not dropped:
            raise
        raise FeatureCountError(f"{err} The dataset's preprocessing changed its width: {dropped}.") from None


def feature_counts(spec, n_features: int) -> list[int]:
    """The numbers of selected features to evaluate on a dataset with ``n_features`` columns.

    ``spec`` is a list of ints, ``"all"`` (1..d), ``{"upto": m, "step": s}``
    (s, 2s, ..., m, and m itself) or ``{"fractions": [f, ...]}`` (each float
    0 < f <= 1 gives round(f d), at least 1, as ``resolve_count`` does; duplicates
    merged: one protocol for datasets of any d).
    A count above d is an error, never a silent clip.
    """
    if spec == "all":
        return list(range(1, n_features + 1))
    if isinstance(spec, dict) and set(spec) == {"fractions"}:
        fractions = spec["fractions"]
        if not fractions or not all(isinstance(f, float) for f in fractions):
            raise ValueError(f"n_features fractions must be a non-empty list of floats in (0, 1], got {fractions!r}.")
        counts = sorted({resolve_count(f, n_features, name="feature fraction") for f in fractions})
    elif isinstance(spec, dict):
        upto, step = int(spec["upto"]), int(spec["step"])
        counts = list(range(step, upto + 1, step))
        if not counts or counts[-1] != upto:
            counts.append(upto)
    elif isinstance(spec, list):
        counts = sorted({int(c) for c in spec})
    else:
        raise ValueError(f"n_features must be a list, 'all', {{upto, step}} or {{fractions}}, got {spec!r}.")
    too_many = [c for c in counts if c > n_features or c < 1]
    if too_many:
        raise FeatureCountError(
            f"feature counts {too_many} are outside [1, {n_features}] (the dataset has {n_features} features)."
        )
    return counts


def resolve_params(params: dict, *, n_classes: int, n_samples: int | None = None) -> dict:
    """Replace the config placeholders by values of the dataset they run on.

    * ``"n_classes"``: the number of classes;
    * ``"upto<m>"`` (e.g. ``"upto100"``): min(m, n_samples), a sample count that
      cannot exceed the data (the IVFS grid's n~ = 100 on data with n < 100);
    * ``"ivfs_table"``: the IVFS Table 1 sub-sample size, 0.1 (a fraction of n)
      when n_samples < 1000, else 100 samples.

    The sample placeholders need ``n_samples``.
    """
    return {k: _resolve_value(v, n_classes, n_samples) for k, v in params.items()}


PLACEHOLDERS = ("n_classes", "upto<m>", "ivfs_table")  # parameter values replaced on each dataset


def is_placeholder(value) -> bool:
    """True for a config placeholder that ``resolve_params`` replaces on each dataset ("n_classes", "upto<m>",
    "ivfs_table"): its value is only known per dataset."""
    return isinstance(value, str) and (value in ("n_classes", "ivfs_table") or bool(_UPTO.match(value)))


def _resolve_value(value, n_classes: int, n_samples: int | None):
    if value == "n_classes":
        return n_classes
    if not isinstance(value, str) or not (value == "ivfs_table" or _UPTO.match(value)):
        return value
    if n_samples is None:
        raise ValueError(f"parameter value {value!r} depends on the number of samples; pass n_samples.")
    if value == "ivfs_table":
        return 0.1 if n_samples < 1000 else 100
    return min(int(_UPTO.match(value).group(1)), n_samples)


_UPTO = re.compile(r"^upto([1-9][0-9]*)$")


