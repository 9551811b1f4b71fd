"""Named readings: a choice a paper leaves open, as a config overlay of the main experiments.

A reading (config ``readings.<name>``) names its paper, a description, a cost
class and either

* ``experiments`` + ``overrides``: the main experiments it changes and what it
  changes in them, merged into a copy of each: ``preprocess`` (a chain name),
  ``methods.<label>.params`` / ``.grid``, ``metrics.<metric>.<option>`` or
  ``protocol.<key>``. The derived experiment is ``readings/<name>/<experiment>``
  (results under ``results/readings/<name>/<experiment>/``) and the report
  folder ``readings/<name>/<report>`` holds the paper's tables as this reading
  sees them: the derived experiments, plus the report's other experiments
  shared with the main reading (not recomputed); or
* ``beside``: metric -> metric of the main report's tables that already holds
  this reading's value (IVFS's literal epsilon is computed beside the main
  reading, ``w11_literal``), so it costs nothing.

``run_readings`` (``cheap``, ``all``, ``none`` or a list of names) says which
readings the default target derives; a reading derives only the experiments of
``run`` it names. Everything is checked here, before the first job, with the
reading and the key in the message; the derived experiments then go through the
same schema and selector checks as the main ones.
"""

from __future__ import annotations

import copy

READING_KEYS = {"paper", "description", "cost", "experiments", "overrides", "beside"}
COST_CLASSES = ("cheap", "expensive")  # cheap: under 15 % of the full run, so the default target computes it
OVERRIDE_KEYS = {"preprocess", "methods", "metrics", "protocol"}
METHOD_OVERRIDE_KEYS = {"params", "grid"}
PREFIX = "readings"
MAIN = "main"


def _fail(name, message):
    raise ValueError(f"config readings.{name}: {message}")


def check_reading(name: str, reading, experiments: dict, papers) -> None:
    """Validate one reading's keys, cost and overrides against the experiments it names."""
    if not isinstance(reading, dict):
        _fail(name, f"must be a mapping, got {reading!r}.")
    unknown = sorted(set(reading) - READING_KEYS)
    if unknown:
        _fail(name, f"unknown key(s) {unknown}; known: {sorted(READING_KEYS)}.")
    if reading.get("paper") not in papers:
        _fail(name, f"paper must be one of {sorted(papers)}, got {reading.get('paper')!r}.")
    cost = reading.get("cost") or {}
    if cost.get("class") not in COST_CLASSES or not cost.get("estimate"):
        _fail(name, f"cost needs class ({' or '.join(COST_CLASSES)}) and an estimate (text), got {cost!r}.")
    if ("beside" in reading) == ("experiments" in reading):
        _fail(name, "give either experiments (with overrides) or beside (metrics computed in the main run).")
    if "beside" in reading:
        if not isinstance(reading["beside"], dict) or not reading["beside"]:
            _fail(name, "beside must map published metrics to the main tables' metrics of this reading.")
        return
    overrides = reading.get("overrides")
    if not isinstance(overrides, dict) or not overrides:
        _fail(name, "overrides must be a non-empty mapping.")
    unknown = sorted(set(overrides) - OVERRIDE_KEYS)
    if unknown:
        _fail(name, f"unknown override key(s) {unknown}; known: {sorted(OVERRIDE_KEYS)}.")
    for exp_name in reading["experiments"]:
        if exp_name not in experiments:
            _fail(name, f"unknown experiment {exp_name!r}; defined: {sorted(experiments)}.")
        exp = experiments[exp_name]
        if exp.get("paper") != reading["paper"]:
            _fail(name, f"experiment {exp_name!r} belongs to paper {exp.get('paper')!r}, not {reading['paper']!r}.")
        _check_overrides(name, exp_name, exp, overrides)


def _check_overrides(name, exp_name, exp, overrides) -> None:
    for label, change in (overrides.get("methods") or {}).items():
        if label not in exp["methods"]:
            _fail(name, f"override of method {label!r}: experiment {exp_name!r} has methods {sorted(exp['methods'])}.")
        bad = sorted(set(change) - METHOD_OVERRIDE_KEYS)
        if bad:
            _fail(name, f"override of method {label!r}: unknown key(s) {bad}; known: {sorted(METHOD_OVERRIDE_KEYS)}.")
        clash = sorted(set(change.get("params", {})) & set(exp["methods"][label].get("grid", {})))
        if clash:
            _fail(name, f"override of {label!r} params {clash}: experiment {exp_name!r} has them in its grid; "
                  "override the grid instead.")
    for metric in overrides.get("metrics") or {}:
        if metric not in exp["metrics"]:
            _fail(name, f"override of metric {metric!r}: experiment {exp_name!r} has metrics {sorted(exp['metrics'])}.")


def selected(config: dict) -> list[str]:
    """The readings ``run_readings`` selects: cheap, all, none or a list of names (checked)."""
    readings = config.get("readings") or {}
    choice = config.get("run_readings", "cheap")
    if choice == "none":
        return []
    if choice in ("cheap", "all"):
        return [n for n, r in readings.items() if choice == "all" or r["cost"]["class"] == "cheap"]
    names = [choice] if isinstance(choice, str) else list(choice)
    unknown = sorted(set(names) - set(readings))
    if unknown:
        raise ValueError(f"config run_readings: unknown reading(s) {unknown}; defined: {sorted(readings)}, "
                         "or cheap, all, none.")
    return names


def seed_identity(experiment: str) -> str:
    """The experiment whose seeds a derived one shares, so a reading differs from the main run by its choices alone."""
    parts = experiment.split("/")
    return parts[2] if len(parts) == 3 and parts[0] == PREFIX else experiment


def _merged(exp: dict, overrides: dict, report: str) -> dict:
    out = copy.deepcopy(exp)
    out["report_dir"] = report
    if "preprocess" in overrides:
        out["preprocess"] = overrides["preprocess"]
    for label, change in (overrides.get("methods") or {}).items():
        for key, values in change.items():
            out["methods"][label][key] = {**out["methods"][label].get(key, {}), **values}
    for metric, options in (overrides.get("metrics") or {}).items():
        out["metrics"][metric] = {**(out["metrics"][metric] or {}), **options}
    if "protocol" in overrides:
        out["protocol"] = {**out.get("protocol", {}), **overrides["protocol"]}
    return out


def derive(config: dict, papers) -> dict[str, dict]:
    """Check every reading, add the derived experiments of the selected ones to ``experiments`` and ``run``.

    Returns the derived report folders: ``readings/<name>/<report>`` ->
    ``{"reading", "paper", "base", "experiments"}`` (its experiments in the
    order of the base report's, derived or shared). Mutates ``config``.
    """
    experiments, run = config["experiments"], list(config["run"])
    readings = config.get("readings") or {}
    for name, reading in readings.items():
        check_reading(name, reading, experiments, papers)
    report_of = {n: experiments[n].get("report_dir", experiments[n]["paper"]) for n in run}
    folders = {}
    for name in selected(config):
        reading = readings[name]
        changed = [e for e in reading.get("experiments", []) if e in run]
        for base in sorted({report_of[e] for e in changed}):
            folder = f"{PREFIX}/{name}/{base}"
            members = []
            for exp_name in (e for e in run if report_of[e] == base):
                if exp_name in changed:
                    derived = f"{PREFIX}/{name}/{exp_name}"
                    experiments[derived] = _merged(experiments[exp_name], reading["overrides"], folder)
                    config["run"].append(derived)
                    members.append(derived)
                else:
                    members.append(exp_name)
            folders[folder] = {"reading": name, "paper": reading["paper"], "base": base, "experiments": members}
    return folders
