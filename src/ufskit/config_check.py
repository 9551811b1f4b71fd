"""The cross-references of a config, checked once before the first job (called from workflow/rules/common.smk).

The schemas check each file's structure (workflow/schemas/config.schema.yaml, and datasets.schema.yaml for the
registry); this module checks what a schema cannot, the names one part of the config gives another:

* ``run`` names experiments, experiments name datasets, chains and selectors; ``data.exclude`` names datasets;
* every method's selector (built in, import path or entry point), its parameter names and values (a misspelled
  placeholder is named as such), its grid and its own metric options;
* the experiments and the methods and metrics a reading overrides (``check_readings``, before derivation);
* explicit feature counts against each dataset's d where the registry knows it;
* the protocol: no method whose ranking the experiment's preprocessing leaves undefined;
* local data files against the hash recorded at their first use.

Every message names the config key at fault. The module imports the selectors (and so scikit-learn) only
inside ``check_methods`` and ``check_counts``, which ``check_config`` skips when nothing they read has changed
since they last passed: a repeated ``snakemake -n`` does not pay for them.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from importlib import metadata
from pathlib import Path

from .configio import ConfigError
from .experiments import (
    PLACEHOLDERS,
    UNSCALED,
    is_batched,
    is_placeholder,
    method_metrics,
    method_settings,
    not_run,
    selection_chain,
    settings_by_slug,
    unscaled_steps,
)
from .metrics.registry import check_metrics
from .registry import dataset_entry, is_local

READING_KEYS = {"paper", "description", "cost", "experiments", "overrides", "beside"}
COST_CLASSES = ("cheap", "expensive")  # cheap: under 15 % of the full run, so the default target computes it
OVERRIDE_KEYS = {"preprocess", "methods", "metrics", "protocol"}
METHOD_OVERRIDE_KEYS = {"params", "grid"}

ENTRY_POINT_GROUP = "ufskit.selectors"  # selectors.plugins.ENTRY_POINT_GROUP, not imported: it imports scikit-learn
# Selectors whose scores a preprocessing step makes equal on every feature, so that their ranking is one of
# round-off: selector -> {step: why}. Steps in COLUMN_SUBSET_STEPS after it keep the scores equal.
EQUALISED_BY = {"Variance": {"zscore": "z-scoring gives every feature variance 1 (every score 1 within 1e-15)"}}
COLUMN_SUBSET_STEPS = {"drop_constant"}  # as experiments.COLUMN_SUBSET_STEPS


def check_config(config: dict, registry: dict, local_records="resources/local",
                 hash_cache="resources/hashcache/local", checked_record=None) -> None:
    """Check every cross-reference of the (validated, reading-derived) ``config`` against ``registry``.

    The selector checks import scikit-learn (seconds): with ``checked_record`` (a file), they are skipped when
    nothing they read has changed since they last passed (``selector_fingerprint``), and recorded when they pass.
    Raises ``ValueError`` (``ConfigError`` for the method, count and protocol checks) naming the key at fault.
    """
    experiments = config["experiments"]
    excluded = config["data"]["exclude"]
    for name in config["run"]:
        if name not in experiments:
            raise ValueError(f"config run: unknown experiment {name!r}; defined: {sorted(experiments)}.")
    for name, exp in experiments.items():
        _check_experiment(name, exp, config["chains"], registry)
    for dataset in excluded:
        dataset_entry(registry, dataset)
    check_not_emptied(config["run"], experiments, excluded)
    record = Path(checked_record) if checked_record else None
    fingerprint = selector_fingerprint(experiments, registry, excluded) if record else None
    if fingerprint is None or not record.is_file() or record.read_text() != fingerprint:
        check_methods(experiments)
        check_counts(experiments, registry, excluded)
        if fingerprint:
            record.parent.mkdir(parents=True, exist_ok=True)
            record.write_text(fingerprint)
    check_protocols(experiments, config["chains"], registry, excluded)
    used = {d for n in config["run"] for d in experiments[n]["datasets"] if d not in excluded}
    check_local_files(sorted(used), registry, local_records, hash_cache)


def check_not_emptied(run, experiments: dict, excluded: dict) -> None:
    """Refuse an experiment to run whose every dataset is excluded (``data.exclude``), naming both.

    It would otherwise fail at the end, with no metric files to aggregate and no word of the exclusion.
    """
    for name in run:
        datasets = experiments[name]["datasets"]
        if datasets and all(d in excluded for d in datasets):
            why = "; ".join(f"{d}: {excluded[d]}" for d in datasets)
            raise ConfigError(f"config data.exclude removes every dataset of experiment {name!r} ({why}); "
                              f"take {name!r} out of `run`, or the dataset(s) out of data.exclude.")


def check_experiment_schema(experiments: dict, names, schema_path) -> None:
    """Check the experiments ``names`` against the experiment schema of the config schema at ``schema_path``:
    those a reading derives after the config was validated (its overrides merged into a main experiment)."""
    from .schema import load_schema, problem

    schema = load_schema(schema_path)["properties"]["experiments"]["additionalProperties"]
    for name in names:
        why = problem(experiments[name], schema, where=("experiments", name))
        if why:
            raise ConfigError(why)


def selector_fingerprint(experiments: dict, registry: dict, excluded=()) -> str | None:
    """SHA-256 of everything ``check_methods`` and ``check_counts`` read: the experiments' methods, metrics,
    counts and datasets, the datasets' shapes, the package's code (file sizes and times), the installed selector
    entry points and scikit-learn's version. None when a selector is named by import path: its code is not known
    without importing it, so it is checked every time."""
    if any(":" in m["selector"] for exp in experiments.values() for m in exp["methods"].values()):
        return None
    package = Path(__file__).parent
    code = sorted((str(p.relative_to(package)), p.stat().st_mtime_ns, p.stat().st_size) for p in package.rglob("*.py"))
    points = sorted((p.name, p.value, p.dist.version if p.dist else "")
                    for p in metadata.entry_points(group=ENTRY_POINT_GROUP))
    read = {name: [exp.get(k) for k in ("methods", "metrics", "n_features", "datasets")]
            for name, exp in experiments.items()}
    shapes = {d: registry["datasets"][d].get("shape") for exp in experiments.values() for d in exp["datasets"]}
    text = json.dumps([read, shapes, sorted(excluded), code, points, metadata.version("scikit-learn")],
                      sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _check_experiment(name: str, exp: dict, chains: dict, registry: dict) -> None:
    """The datasets, chain, grids, excluded datasets and batching of one experiment."""
    for dataset in exp["datasets"]:
        dataset_entry(registry, dataset)  # raises with close matches
    chain = exp["preprocess"]
    if chain != "default" and chain not in chains:
        raise ValueError(
            f"experiment {name!r}: unknown preprocessing chain {chain!r}; defined: {sorted(chains)} or 'default'."
        )
    check_metrics(exp["metrics"], where=f"experiments.{name}.metrics")  # names and options, by the registry
    for label, spec in exp["methods"].items():
        settings_by_slug(exp, label)  # grid sanity and slug uniqueness
        check_metrics(spec.get("metrics") or {}, where=f"experiments.{name}.methods.{label}.metrics")
        own = spec.get("select_preprocess")
        if own is not None and own not in ("default", UNSCALED) and own not in chains:
            raise ValueError(f"experiments.{name}.methods.{label}.select_preprocess: unknown chain {own!r}; defined: "
                             f"{sorted(chains)}, 'default' or {UNSCALED!r}.")
        if own is not None and spec.get("batch"):
            raise ValueError(f"experiments.{name}.methods.{label}: select_preprocess is not supported with "
                             "`batch: true` (a batched job selects and evaluates on one matrix); remove one.")
    not_run(exp)  # a method's excluded datasets are datasets of the experiment
    batched = [m for m in exp["methods"] if is_batched(exp, m)]
    if batched and exp["paper"] == "ivfs":
        raise ValueError(
            f"experiment {name!r}: `batch` is not supported in IVFS experiments, whose repetitions run as "
            f"selection shards (methods {batched}); remove it."
        )


def check_methods(experiments: dict) -> None:
    """Resolve every method's selector, check its parameter names and values (fixed and grid; placeholders such
    as ``n_classes`` are checked on each dataset by ``fit``) and its own metric options, naming the experiment
    and the method."""
    from .selectors import check_selector  # heavy import, only when checking
    from .selectors.plugins import check_param_values

    for name, exp in experiments.items():
        for label, settings in method_settings(exp).items():
            selector = exp["methods"][label]["selector"]
            try:
                method_metrics(exp, label)
                for params in settings:
                    cls = check_selector(selector, params)
                    values = {k: v for k, v in params.items() if not is_placeholder(v)}
                    try:
                        check_param_values(cls, selector, values)
                    except ValueError as e:
                        raise _misspelled_placeholder(selector, values) or e from None
            except ValueError as e:
                raise ConfigError(f"experiments.{name}.methods.{label}: {e}") from None


def _misspelled_placeholder(selector: str, params: dict) -> ValueError | None:
    """The error for a refused string value that looks like a placeholder (``n_clases``, ``upto 100``), or None."""
    for key, value in params.items():
        if not isinstance(value, str):
            continue
        close = difflib.get_close_matches(value, ["n_classes", "ivfs_table"], n=1, cutoff=0.75)
        if close or value.lower().startswith("upto"):
            hint = f"did you mean {close[0]!r}?" if close else "'upto<m>' takes an integer m >= 1, e.g. 'upto100'"
            return ValueError(
                f"parameter {key!r} of selector {selector!r} = {value!r} is not a placeholder ({hint}). The "
                f"placeholders, replaced on each dataset, are {', '.join(map(repr, PLACEHOLDERS))}."
            )
    return None


def _largest_count(spec) -> int | None:
    """The largest count an ``n_features`` value names outright (None for 'all' and fractions)."""
    if isinstance(spec, list):
        return max(spec)
    if isinstance(spec, dict) and "upto" in spec:
        return spec["upto"]
    return None


def check_counts(experiments: dict, registry: dict, excluded=()) -> None:
    """Fail when an experiment asks for more features than a dataset has (d from the registry, where known).

    Methods that rank derived features (``kernel_features``: one per sample) are not compared with d.
    """
    from .selectors import selector_class

    for name, exp in experiments.items():
        largest = _largest_count(exp["n_features"])
        if largest is None:
            continue
        on_inputs = [m for m, spec in exp["methods"].items()
                     if not hasattr(selector_class(spec["selector"]), "kernel_features")]
        for dataset in exp["datasets"]:
            shape = registry["datasets"][dataset].get("shape") or [None, None]
            if dataset in excluded or shape[1] is None or largest <= shape[1] or not on_inputs:
                continue
            raise ConfigError(
                f"experiments.{name}.n_features = {exp['n_features']!r} asks for up to {largest} features, but "
                f"dataset {dataset!r} has d = {shape[1]} (registry, or the local file's header) for method(s) {on_inputs}. Use counts <= d, "
                "or fractions of d ({fractions: [...]})."
            )


def _step_names(chain) -> list[str]:
    """The step names of a chain (items are names or single-key maps name -> options)."""
    return [item if isinstance(item, str) else next(iter(item)) for item in chain]


def check_protocols(experiments: dict, chains: dict, registry: dict, excluded=()) -> None:
    """Refuse a method whose ranking the experiment's preprocessing leaves undefined (``EQUALISED_BY``).

    Variance after z-scoring ranks by round-off; a method's ``exclude`` (with its reason) or another chain
    avoids it. Datasets in ``excluded`` are not checked.
    """
    for name, exp in experiments.items():
        for label, spec in exp["methods"].items():
            equalising = EQUALISED_BY.get(spec["selector"], {})
            for dataset in exp["datasets"] if equalising else []:
                if dataset in excluded or dataset in spec.get("exclude", {}):
                    continue
                chain = selection_chain(exp, label)
                registered = registry["datasets"][dataset].get("preprocess", [])
                steps = _step_names(registered if chain == "default" else unscaled_steps(registered)
                                    if chain == UNSCALED else chains[chain])
                last = [s for s in steps if s not in COLUMN_SUBSET_STEPS][-1:]
                if last and last[0] in equalising:
                    where = ("the registry's default chain" if chain == "default" else f"chain {chain!r}"
                             + (f" (methods.{label}.select_preprocess)" if chain != exp["preprocess"] else ""))
                    raise ConfigError(
                        f"experiments.{name}.methods.{label}: the ranking of selector {spec['selector']!r} is "
                        f"undefined on dataset {dataset!r} after the preprocessing {' -> '.join(steps)} ({where}): "
                        f"{equalising[last[0]]}, so the features tie and round-off orders them. Drop the method, "
                        f"exclude the dataset with the reason (methods.{label}.exclude) or select on a chain without "
                        f"{last[0]} (methods.{label}.select_preprocess: {UNSCALED})."
                    )


def check_local_files(names, registry: dict, record_dir, cache_dir) -> None:
    """Check the local data file of every dataset in ``names`` against its recorded hash (if recorded)."""
    for name in names:
        entry = registry["datasets"][name]
        if is_local(entry):
            from .integrity import verify_local  # hashing: imported only when a local dataset is used

            verify_local(name, entry["path"], Path(record_dir) / f"{name}.json", Path(cache_dir) / f"{name}.json")


# ---- readings ---------------------------------------------------------------------------


def _reading_fail(name, message):
    raise ValueError(f"config readings.{name}: {message}")


def check_readings(config: dict, papers) -> None:
    """Check every reading (config ``readings``) against the experiments it names; ``papers``: the papers a
    reading may belong to."""
    for name, reading in (config.get("readings") or {}).items():
        check_reading(name, reading, config["experiments"], papers)


def check_reading(name: str, reading, experiments: dict, papers) -> None:
    """Validate one reading's keys, cost and overrides against the experiments it names."""
    if not isinstance(reading, dict):
        _reading_fail(name, f"must be a mapping, got {reading!r}.")
    unknown = sorted(set(reading) - READING_KEYS)
    if unknown:
        _reading_fail(name, f"unknown key(s) {unknown}; known: {sorted(READING_KEYS)}.")
    if reading.get("paper") not in papers:
        _reading_fail(name, f"paper must be one of {sorted(papers)}, got {reading.get('paper')!r}.")
    cost = reading.get("cost") or {}
    if cost.get("class") not in COST_CLASSES or not cost.get("estimate"):
        _reading_fail(name, f"cost needs class ({' or '.join(COST_CLASSES)}) and an estimate (text), got {cost!r}.")
    if ("beside" in reading) == ("experiments" in reading):
        _reading_fail(name, "give either experiments (with overrides) or beside (metrics computed in the main run).")
    if "beside" in reading:
        if not isinstance(reading["beside"], dict) or not reading["beside"]:
            _reading_fail(name, "beside must map published metrics to the main tables' metrics of this reading.")
        return
    overrides = reading.get("overrides")
    if not isinstance(overrides, dict) or not overrides:
        _reading_fail(name, "overrides must be a non-empty mapping.")
    unknown = sorted(set(overrides) - OVERRIDE_KEYS)
    if unknown:
        _reading_fail(name, f"unknown override key(s) {unknown}; known: {sorted(OVERRIDE_KEYS)}.")
    for exp_name in reading["experiments"]:
        if exp_name not in experiments:
            _reading_fail(name, f"unknown experiment {exp_name!r}; defined: {sorted(experiments)}.")
        exp = experiments[exp_name]
        if exp.get("paper") != reading["paper"]:
            _reading_fail(name, f"experiment {exp_name!r} belongs to paper {exp.get('paper')!r}, "
                          f"not {reading['paper']!r}.")
        _check_overrides(name, exp_name, exp, overrides)


def _check_overrides(name, exp_name, exp, overrides) -> None:
    for label, change in (overrides.get("methods") or {}).items():
        if label not in exp["methods"]:
            _reading_fail(name, f"override of method {label!r}: experiment {exp_name!r} has methods "
                          f"{sorted(exp['methods'])}.")
        bad = sorted(set(change) - METHOD_OVERRIDE_KEYS)
        if bad:
            _reading_fail(name, f"override of method {label!r}: unknown key(s) {bad}; "
                          f"known: {sorted(METHOD_OVERRIDE_KEYS)}.")
        clash = sorted(set(change.get("params", {})) & set(exp["methods"][label].get("grid", {})))
        if clash:
            _reading_fail(name, f"override of {label!r} params {clash}: experiment {exp_name!r} has them in its "
                          "grid; override the grid instead.")
    for metric in overrides.get("metrics") or {}:
        if metric not in exp["metrics"]:
            _reading_fail(name, f"override of metric {metric!r}: experiment {exp_name!r} has metrics "
                          f"{sorted(exp['metrics'])}.")
