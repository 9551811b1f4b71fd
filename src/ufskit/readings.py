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
``run`` it names. ``derive`` checks the readings first, naming the reading and
the key (``ufskit.config_check.check_readings``); the derived experiments then
go through the same checks as the main ones.
"""

from __future__ import annotations

import copy

from .config_check import check_readings

PREFIX = "readings"
MAIN = "main"


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
    check_readings(config, papers)
    experiments, run = config["experiments"], list(config["run"])
    readings = config.get("readings") or {}
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
