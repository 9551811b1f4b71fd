"""What produced a results folder, in words: the facts the report captions (workflow/report/*.rst) print.

Snakemake renders each caption as a Jinja template with the rule's params; the paper rules pass
``run_facts(...)`` as ``params.run``, so every caption states the protocol, the datasets, the
methods with their settings, the feature counts and the repetitions of the run it describes,
instead of the full protocol's.
"""

from __future__ import annotations

from .papers import reference_labels
from .readings import PREFIX as READINGS_PREFIX

PROTOCOLS = ("full", "quick", "smoke")


def counts_text(spec) -> str:
    """The feature counts of an experiment's ``n_features`` entry, as a reader would write them."""
    if spec == "all":
        return "1, 2, ..., d (every count)"
    if isinstance(spec, dict) and "upto" in spec:
        return f"{spec['step']}, {2 * spec['step']}, ... up to min({spec['upto']}, d)"
    if isinstance(spec, dict) and "fractions" in spec:
        return "ceil(f x d) for f = " + ", ".join(f"{f:g}" for f in spec["fractions"])
    if isinstance(spec, (list, tuple)):
        return ", ".join(str(c) for c in spec)
    raise ValueError(f"n_features must be a list, 'all', {{upto, step}} or {{fractions}}, got {spec!r}.")


def _settings(values: dict) -> str:
    return ", ".join(f"{k} = {v}" for k, v in sorted(values.items()))


def _method_text(label: str, spec: dict) -> str:
    fixed = _settings(spec.get("params", {}))
    grid = ", ".join(f"{k} in {{{', '.join(map(str, v))}}}" for k, v in sorted(spec.get("grid", {}).items()))
    inner = "; ".join(part for part in (fixed, grid) if part)
    text = f"{label} ({spec['selector']}{': ' + inner if inner else ''})"
    if spec.get("reps") is not None:
        text += f" x {spec['reps']} rep."
    if spec.get("metrics"):
        text += " with " + ", ".join(f"{m} {_settings(o)}" for m, o in spec["metrics"].items())
    return text


def band_text(experiment: dict) -> str:
    """The sentence on the grey band of random features that a curve figure of ``experiment`` shades ("" if none)."""
    labels = reference_labels(experiment["methods"])
    if not labels:
        return ""
    runs = []
    for label in labels:
        spec = experiment["methods"][label]
        reps = spec.get("reps", experiment.get("reps", 1))
        own = "".join(f"; {m} {_settings(o)}" for m, o in (spec.get("metrics") or {}).items())
        runs.append(f"{label}'s runs ({reps} repetition{'s' * (reps > 1)}{own})")
    return (f"The grey band (\"Random features, 5-95 %\") spans the 5 % to 95 % quantiles of {' and '.join(runs)}: "
            "uniformly random feature subsets of each size, so a curve inside it does no better than chance.")


def experiment_facts(name: str, experiment: dict) -> dict:
    """One experiment's datasets, methods, counts, repetitions and metric settings (validated config entry).

    ``role`` is its config ``role`` (what it is for in its paper: its rules find their experiments by it, e.g.
    kernel UDFS's ``fig2``, ILS's ``uci``; None without one); ``summary`` is all of it in one sentence.
    """
    protocol = experiment.get("protocol") or {}
    reps = experiment.get("reps", 1)
    metrics = "; ".join(f"{m}" + (f" ({_settings(o)})" if o else "") for m, o in experiment["metrics"].items())
    methods = "; ".join(_method_text(label, spec) for label, spec in experiment["methods"].items())
    datasets = list(experiment["datasets"])
    summary = (f"Experiment ``{name}``: dataset{'s' * (len(datasets) > 1)} {', '.join(datasets)}; "
               f"methods {methods}; feature counts {counts_text(experiment['n_features'])}; "
               f"{reps} repetition{'s' * (reps > 1)}; metrics {metrics}")
    if protocol:
        summary += f"; protocol {_settings(protocol)}"
    return {"name": name, "role": experiment.get("role"),
            "datasets": datasets, "n_datasets": len(datasets),
            "reps": reps, "counts": counts_text(experiment["n_features"]), "methods": list(experiment["methods"]),
            "metrics": experiment["metrics"], "protocol": protocol, "band": band_text(experiment),
            "summary": summary + "."}


def run_facts(config: dict, experiments: list[str]) -> dict:
    """The facts of a report folder built from ``experiments`` under ``config`` (for ``params.run``).

    ``extent`` reads "reproduced" for the full protocol and "reproduced in reduced form (quick
    protocol)" otherwise, and names the alternative reading of a folder whose experiments derive from
    one (``readings/<name>/...``, ufskit.readings); ``produced_by`` lists every experiment's settings
    in one sentence each; ``band`` says what the curve figures' band of random features is ("" when no
    experiment has one).
    """
    protocol = config.get("protocol", "full")
    if protocol not in PROTOCOLS:
        raise ValueError(f"protocol must be one of {PROTOCOLS}, got {protocol!r}.")
    facts = [experiment_facts(name, config["experiments"][name]) for name in experiments]
    datasets = list(dict.fromkeys(d for f in facts for d in f["datasets"]))
    extent = "reproduced" if protocol == "full" else f"reproduced in reduced form ({protocol} protocol)"
    readings = sorted({n.split("/")[1] for n in experiments if n.startswith(f"{READINGS_PREFIX}/")})
    if readings:
        extent += f" under the alternative reading {', '.join(readings)} (docs/fidelity/readings.md)"
    return {"protocol": protocol, "full": protocol == "full", "readings": readings, "extent": extent,
            "experiments": facts, "datasets": datasets, "n_datasets": len(datasets),
            "band": " ".join(f["band"] for f in facts if f["band"]),
            "produced_by": " ".join(f["summary"] for f in facts) or "No experiment of this folder ran."}
