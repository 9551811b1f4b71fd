"""IVFS (Li, Wu & Li, AAAI 2020): the paper's protocol, its batched runs, and Table 2.

The grid of the paper is large (IVFS alone: 5 d~ x 4 n~ x 3 k x 5 repetitions
per dataset), so the workflow does not run one job per run. A method's settings
on one dataset are cut into shards (``selection_shards``: IVFS one per (d~, n~),
whose k values share one fit; any other method one shard; ``batch_shards``: the
largest IVFS shards cut further by repetition), and one job of the
generic batched rule fits and evaluates every setting and repetition of a shard
(``shard_runs``: the runs as data for ``ufskit.runs.run_batched``; ``run_metrics``:
the protocol's persistence options). The tables, figures and claims are in
``ufskit.papers.ivfs.report``.

An IVFS experiment's ``protocol`` (checked by ``check_protocol``):

* ``table_filter``: method label -> {param: value}; the settings Table 1 takes
  the best over (IVFS: n~ = "ivfs_table", i.e. 0.1n when n < 1000, else 100);
* ``fixed``: method label -> {param: value}; the paper's single setting per
  method, used for the running-time column and for Table 2 (not needed for a
  ``Random`` method: the chance reference is only drawn as a band in Figs. 2-3);
* ``persistence_counts``: the feature counts at which the H1 diagrams are
  compared (the expensive metric), for the Table 1 settings only;
* ``literal_min_persistence``: the paper's epsilon = 0.1, applied to the
  diagrams as a second reading (metrics ``w11_literal``, ``winf_literal``);
* ``stability_features``, ``stability_reps``: Table 2's 300 features, 5 repetitions.

Choices the paper leaves open: docs/fidelity/ivfs-paper.md.
"""

from __future__ import annotations

import logging
import numbers

import numpy as np
import pandas as pd

from ... import chance as C
from ...experiments import method_settings, params_slug, resolve_params
from ...runs import fit_run, is_random
from ...seeds import derive_seed
from .. import extra_labels, paper_methods
from ..spec import PaperSpec, Published, reader_rows

log = logging.getLogger("ufskit")

PROTOCOL_KEYS = {"table_filter", "fixed", "persistence_counts", "literal_min_persistence",
                 "stability_features", "stability_reps"}


def check_protocol(protocol, methods: dict) -> dict:
    """The experiment's IVFS protocol after checking its keys and values against its methods."""
    protocol = dict(protocol or {})
    if set(protocol) != PROTOCOL_KEYS:
        raise ValueError(f"an IVFS protocol takes keys {sorted(PROTOCOL_KEYS)}, got {sorted(protocol)}.")
    for key in ("table_filter", "fixed"):
        if not isinstance(protocol[key], dict):
            raise ValueError(f"protocol.{key} must map method labels to parameter dicts.")
        unknown = sorted(set(protocol[key]) - set(methods))
        if unknown:
            raise ValueError(f"protocol.{key} names unknown method(s) {unknown}; methods: {sorted(methods)}.")
    missing = sorted(set(paper_methods(methods)) - set(protocol["fixed"]) - set(extra_labels(methods)))
    if missing:
        raise ValueError(f"protocol.fixed needs a setting for every method but Random; missing {missing}.")
    for label in [*protocol["fixed"], *(m for m in extra_labels(methods) if m not in protocol["fixed"])]:
        wanted = fixed_setting(protocol, label)
        found = [p for p in method_settings({"methods": methods})[label] if matches(p, wanted)]
        if len(found) != 1:
            raise ValueError(f"protocol.fixed.{label} = {wanted} matches {len(found)} settings of the grid, not 1.")
    counts = protocol["persistence_counts"]
    if not isinstance(counts, list) or not counts or not all(_positive_int(c) for c in counts):
        raise ValueError(f"protocol.persistence_counts must be a non-empty list of ints >= 1, got {counts!r}.")
    for key in ("stability_features", "stability_reps"):
        if not _positive_int(protocol[key]):
            raise ValueError(f"protocol.{key} must be an int >= 1, got {protocol[key]!r}.")
    eps = protocol["literal_min_persistence"]
    if not isinstance(eps, numbers.Real) or eps < 0:
        raise ValueError(f"protocol.literal_min_persistence must be a number >= 0, got {eps!r}.")
    return protocol


def _positive_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= 1


def matches(params: dict, wanted: dict) -> bool:
    """True if the config parameters ``params`` hold every key = value of ``wanted``."""
    return all(key in params and params[key] == value for key, value in wanted.items())


def fixed_setting(protocol: dict, label: str) -> dict:
    """The parameters ``protocol.fixed`` gives ``label``; an added method (``extra_methods``) without one has
    none, so its only setting is the fixed one (a grid needs the entry)."""
    return protocol["fixed"].get(label, {})


def fixed_slug(methods: dict, protocol: dict, label: str) -> str:
    """The slug of the paper's fixed setting of ``label`` (running time, Table 2)."""
    settings = method_settings({"methods": methods})[label]
    return params_slug(next(p for p in settings if matches(p, fixed_setting(protocol, label))))


def table_slugs(methods: dict, protocol: dict, label: str, n_samples: int) -> list[str]:
    """Slugs of the settings Table 1 takes the best over on a dataset of ``n_samples`` rows.

    A filter value and a setting's value are compared after resolving both
    placeholders for this dataset, so n~ = "ivfs_table" picks 0.1 on n < 1000
    and "upto100" on n >= 1000.
    """
    wanted = resolve_params(protocol["table_filter"].get(label, {}), n_classes=0, n_samples=n_samples)
    return [params_slug(p) for p in method_settings({"methods": methods})[label]
            if matches(resolve_params(p, n_classes=0, n_samples=n_samples), wanted)]


# ---------------------------------------------------------------- batched runs



def table1_shapes(methods: dict, protocol: dict, reps: dict, n_samples: int) -> dict[str, tuple[int, int]]:
    """Per method of ``reps`` (label -> repetitions): (G, reps), G = the Table 1 settings it takes the best over."""
    return {m: (len(table_slugs(methods, protocol, m, n_samples)), r) for m, r in reps.items()}


# Sample counts the chance pool is sized over, one on each side of the "ivfs_table" placeholder's threshold
# (0.1 n below 1000 samples, 100 from 1000 on; ufskit.experiments): the workflow sizes a pool before its data is read.
POOL_SAMPLE_COUNTS = (100, 10_000)


def chance_pool_size(methods: dict, protocol: dict, reps: dict) -> int:
    """Draws of a dataset's chance pool: ``ufskit.chance.draws_needed`` of the largest G R on a small or large set."""
    return max(C.draws_needed(table1_shapes(methods, protocol, reps, n).values()) for n in POOL_SAMPLE_COUNTS)

def selection_shards(selector: str, settings: list[dict]) -> dict[str, list[dict]]:
    """A method's settings cut into the workflow's jobs, keyed by a path-safe name.

    IVFS: one shard per group of settings sharing one fit (its (d~, n~); the k
    values are checkpoints of that fit), so a cluster runs a dataset's grid at
    once and an interrupted run keeps every finished shard. The other methods'
    grids take minutes: one shard, ``all``. Runs are seeded by their setting, so
    the numbers do not depend on the sharding.
    """
    if selector == "IVFS":
        return _settings_sharing_draws(selector, settings)
    return {"all": list(settings)}


SHARD_TFLOP = 5.0  # a batched IVFS job's Gram products, at most (about 2 min at the kernel's 45-64 GFLOP/s)


def fit_tflop(params: dict, shape) -> float:
    """The Gram products of one IVFS fit of ``params`` (up to its ``n_subsets``) on ``shape`` = (n, d) data:
    k x 2 n~^2 d~ floating-point operations, in TFLOP (docs/performance.md: they are most of a fit)."""
    from ...selectors import IVFS

    n, d = shape
    sizes = {key: value for key, value in resolve_params(params, n_classes=2, n_samples=n).items()
             if key in ("n_subsets", "subset_features", "subset_samples")}
    k, m, p = IVFS(**sizes)._subset_sizes(n, d)
    return k * 2.0 * m * m * p / 1e12


def rep_chunks(reps: int, tflop_per_rep: float, budget: float = SHARD_TFLOP) -> list[range]:
    """The repetitions cut into as few contiguous chunks as keep each under ``budget`` TFLOP (a repetition is
    never cut: it is one fit)."""
    per_chunk = max(1, int(budget // tflop_per_rep)) if tflop_per_rep > 0 else reps
    chunks = -(-reps // per_chunk)  # ceil
    bounds = [round(i * reps / chunks) for i in range(chunks + 1)]
    return [range(a, b) for a, b in zip(bounds[:-1], bounds[1:])]


def batch_shards(selector: str, settings: list[dict], reps: int, shape=None) -> dict[str, tuple[list[dict], range]]:
    """The jobs of a method on a dataset: shard name -> (its settings, its repetitions).

    ``selection_shards`` cut by repetition where a shard's fits on data of ``shape`` (the registry's (n, d); None
    or an unknown d: no cut) pass ``SHARD_TFLOP`` (``fit_tflop`` of its largest k): RELATHE's (d~, n~) = (0.5, 0.5)
    runs one repetition per job, so no job holds the run's critical path. A cut shard is named
    ``<shard>_reps<first>-<last>``. Runs are seeded by setting and repetition: the numbers do not depend on it.
    """
    shards = {}
    for name, group in selection_shards(selector, settings).items():
        per_rep = 0.0
        if selector == "IVFS" and shape is not None and None not in shape:
            per_rep = fit_tflop(max(group, key=lambda q: q.get("n_subsets", 0)), shape)
        chunks = rep_chunks(reps, per_rep)
        for chunk in chunks:
            label = name if len(chunks) == 1 else f"{name}_reps{chunk[0]}-{chunk[-1]}"
            shards[label] = (group, chunk)
    return shards


def shard_runs(selector: str, settings: list[dict], reps: int | range, *, seed_of, metrics: dict) -> list[dict]:
    """The runs of one shard as ``ufskit.runs.run_batched`` takes them: every setting x repetition (``reps``: their
    number, or the range of them the shard runs).

    Settings sharing one fit (IVFS settings equal but for k = ``n_subsets``) all name the fit of the
    largest k, the smaller ones being its checkpoints (the first k subsets of one stream); that fit is
    seeded by ``seed_of(the setting without k, rep)``, and each run's evaluation by
    ``seed_of(its slug, rep)`` (the workflow's run identity), so a run's result does not depend on
    which other runs share its job. Every count is a prefix of the run's full ranking (``prefixes``),
    MCFS's too (the paper ranks the features once; MCFS's per-count subsets are not used here).
    """
    runs = []
    for group_slug, group in _settings_sharing_draws(selector, settings).items():
        largest = max(group, key=lambda q: q.get("n_subsets", 0))
        smaller = sorted({q["n_subsets"] for q in group} - {largest["n_subsets"]}) if len(group) > 1 else []
        for q in group:
            runs += [{"params": params_slug(q), "rep": rep, "spec": {"selector": selector, "params": largest},
                      "checkpoints": smaller, "checkpoint": None if q is largest else q["n_subsets"],
                      "fit_seed": seed_of(group_slug, rep), "evaluation_seed": seed_of(params_slug(q), rep),
                      "prefixes": True, "metrics": metrics} for rep in (range(reps) if isinstance(reps, int) else reps)]
    position = {params_slug(q): i for i, q in enumerate(settings)}
    return sorted(runs, key=lambda run: (position[run["params"]], run["rep"]))


def run_metrics(metrics: dict, protocol: dict, label: str) -> dict:
    """A method's evaluation options under the protocol: persistence (if asked) only at the protocol's
    ``persistence_counts``, read also with the literal epsilon, and only for the settings Table 1 takes
    the best over (``table_filter``; every setting of a method it does not name)."""
    if "persistence" not in metrics:
        return metrics
    return {**metrics, "persistence": {**metrics["persistence"], "counts": protocol["persistence_counts"],
                                       "literal_min_persistence": protocol["literal_min_persistence"],
                                       "settings": protocol["table_filter"].get(label, {})}}


def _settings_sharing_draws(selector: str, settings: list[dict]) -> dict[str, list[dict]]:
    """Settings grouped by one fit: IVFS settings equal but for ``n_subsets`` share one (keyed by the slug
    without it); every other setting is its own group (keyed by its slug)."""
    groups: dict[str, list[dict]] = {}
    for q in settings:
        if selector == "IVFS" and "n_subsets" in q:
            key = params_slug({k: v for k, v in q.items() if k != "n_subsets"})
        else:
            key = params_slug(q)
        groups.setdefault(key, []).append(q)
    return groups


# ---------------------------------------------------------------- Table 2: bootstrap stability


def bootstrap_differences(X, *, selector: str, params: dict, n_selected: int, n_reps: int, n_classes: int,
                          seed) -> list[int]:
    """Table 2: per repetition, |F_X minus F_B| for the top ``n_selected`` features on X and on a bootstrap of X.

    Repetition r draws n rows with replacement (seed derived from ``seed`` and
    r). A random selector gets the same ``random_state`` for both fits, so only
    the data differ. Features constant on the bootstrap sample (possible on
    sparse data) are left out of its fit and count as not selected.
    """
    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    if not 1 <= n_selected <= d:
        raise ValueError(f"n_selected={n_selected} must lie in [1, {d}].")
    spec = {"selector": selector, "params": params}
    random = is_random(spec)
    diffs, original = [], None
    for rep in range(n_reps):
        rng = np.random.default_rng(derive_seed(seed, "bootstrap", rep))
        Xb = X[rng.integers(0, n, size=n)]
        fit_seed = derive_seed(seed, "fit", rep)
        if random or original is None:  # a deterministic selector's choice on X is the same every repetition
            original = fit_run(X, spec, fit_seed, n_classes=n_classes).order[:n_selected]
        varying = np.flatnonzero(np.ptp(Xb, axis=0) > 0)
        boot = fit_run(Xb[:, varying], spec, fit_seed, n_classes=n_classes).order[:min(n_selected, varying.size)]
        diffs.append(int(np.setdiff1d(original, varying[boot]).size))
    return diffs


# ---------------------------------------------------------------- the paper as one unit (ufskit.papers.registry)


def _read_table1(table: pd.DataFrame) -> pd.DataFrame:
    return reader_rows(table, "Table 1")


def _read_table2(table: pd.DataFrame) -> pd.DataFrame:
    return reader_rows(table, "Table 2", metric="bootstrap_differences")


PAPER = PaperSpec(
    name="ivfs",
    title="IVFS (Li, Wu & Li, AAAI 2020)",
    published=(
        Published("ivfs_table1.csv", "Table 1", {
            "knn_acc_pct": ("knn_acc", None), "w11": ("w11", None), "winf": ("winf", None), "Linf": ("Linf", None),
            "L1_over_n2_x1e-2": ("L1_over_n2", None), "L2": ("L2", None), "time_s": ("fit_seconds", None)}),
        Published("ivfs_table1.csv", "Table 1 (datasets)",
                  {"n": ("n_samples", ""), "d": ("n_features", ""), "classes": ("n_classes", "")}),
        Published("ivfs_table2.csv", "Table 2",
                  {m: ("bootstrap_differences", m) for m in ("SPEC", "MCFS", "GLSPFS", "IVFS-linf")}),
    ),
    readers={"table1": _read_table1, "table2": _read_table2},
    claims="claims.csv",
    tables={"table1.md": "ivfs_table1", "table2.md": "ivfs_table2", "claims.md": "ivfs_claims",
            "ivfs_seed_correlation.md": "ivfs_seed_correlation"},
    figures={"fig2.png": "ivfs_curves", "fig3.png": "ivfs_curves", "fig4.png": "ivfs_fig4"},
)
