"""Methods tuned with the labels over a grid, against Random tuned the same way.

A paper that reports each method at the best of G settings, chosen with the labels (the FSASL toolbox's
``grid_search_fs``, the IVFS paper's Table 1), compares a best of G tries with baselines that had one. This unit
(experiments with ``paper: tuned``) runs such methods over their grids, with the Random selector's draws as a
pool, and gives per dataset, method and label metric (K-means ACC and NMI, KNN accuracy):

* the tuned value: the best over the G settings of a setting's summary (the mean over the evaluated counts, then
  over repetitions, as the cross-paper benchmark summarises a run), and the setting that gave it;
* Random's best of G under the same rule (``ufskit.chance``): G x reps of its draws play the settings; the mean
  over every group of random partitions of the pool, the standard deviation of one try and its standard error;
* a verdict: "better" when the tuned value beats that chance value by more than ``MARGIN`` standard deviations of
  one try, "worse" when it falls short by as much, else "not distinguishable" (one tuned value is one try, so
  its spread is the try's).
"""

from __future__ import annotations

import pandas as pd

from ... import chance as C
from ...experiments import expand_grid, params_slug
from ...results import higher_is_better
from ...seeds import derive_seed
from ...tables import markdown_table
from .. import REFERENCE
from ..benchmark import LABEL_METRICS, METRIC_LABELS, per_run
from ..spec import PaperSpec

TITLE = "Tuned with the labels, against Random tuned the same way"
MARGIN = 2.0  # standard deviations of one try of Random's best of G beyond which a tuned value differs
VERDICTS = ("better", "not distinguishable", "worse")
COLUMNS = ["dataset", "method", "G", "reps", "metric", "value", "setting", *C.COLUMNS, "groups", "verdict"]


def pool_values(runs: pd.DataFrame, seed: int) -> pd.DataFrame:
    """Random's runs of one dataset as a ``ufskit.chance`` pool: repetition r is draw r; a run's summary value
    stands at one pseudo count (0), so the best of G is the best over settings only."""
    pool = runs[runs["method"] == REFERENCE]
    return pool.assign(params=C.DRAW_PREFIX + pool["rep"].astype(str), n_features=0, **{C.SEED_COLUMN: seed})


def verdict(value: float, chance: float, std: float, metric: str) -> str:
    """``VERDICTS`` of a tuned value against Random's best of G (mean ``chance``, one try's ``std``)."""
    gain = (value - chance) if higher_is_better(metric) else (chance - value)
    return VERDICTS[0] if gain > MARGIN * std else VERDICTS[2] if gain < -MARGIN * std else VERDICTS[1]


def tuned_versus_chance(metrics: pd.DataFrame, *, identity: str) -> pd.DataFrame:
    """Per dataset, tuned method and label metric: the tuned value and setting, Random's best of G, the verdict.

    ``metrics``: the long table of the experiments (columns dataset, method, params, rep, n_features, metric,
    value); every dataset needs the Random selector's draws (at least 2 G reps of them, ``ufskit.chance``).
    ``identity`` (the report) seeds the partitions of each dataset's pool.
    """
    runs = per_run(metrics)
    runs = runs[runs["metric"].isin(LABEL_METRICS)]
    rows = []
    for dataset, one in runs.groupby("dataset", sort=True):
        if not (one["method"] == REFERENCE).any():
            raise ValueError(f"dataset {dataset!r} has no {REFERENCE} draws: the chance reference needs them.")
        pool = pool_values(one, derive_seed(identity, dataset, "tuned"))
        for method, runs_of in one[one["method"] != REFERENCE].groupby("method", sort=True):
            g = runs_of["params"].nunique()
            reps = int(runs_of.groupby("params")["rep"].nunique().max())
            chance = C.spread(C.best_of_g(pool, g=g, reps=reps)).set_index("metric")
            settings = runs_of.groupby(["metric", "params"])["value"].mean()
            for metric, values in settings.groupby(level="metric"):
                best = values.droplevel("metric")
                setting = best.idxmax() if higher_is_better(metric) else best.idxmin()
                ref = chance.loc[metric]
                rows.append({"dataset": dataset, "method": method, "G": g, "reps": reps, "metric": metric,
                             "value": best[setting], "setting": setting,
                             **{c: ref[c] for c in C.COLUMNS}, "groups": int(ref["groups"]),
                             "verdict": verdict(best[setting], ref["chance_best_of_g"], ref["chance_std"], metric)})
    return pd.DataFrame(rows, columns=COLUMNS)


def verdict_counts(table: pd.DataFrame) -> pd.DataFrame:
    """Per method and metric: the datasets of each verdict, and how many datasets."""
    counts = table.groupby(["method", "metric", "verdict"]).size().unstack("verdict", fill_value=0)
    return counts.reindex(columns=list(VERDICTS), fill_value=0).assign(datasets=counts.sum(axis=1)).reset_index()


def grid_settings(methods: dict) -> dict[tuple[str, str], str]:
    """(method, its run's ``params`` text) -> the part its grid varies ('beta=0.01'), for ``methods`` (config)."""
    shown = {}
    for label, spec in methods.items():
        grid = spec.get("grid") or {}
        for params in expand_grid(spec.get("params"), grid):
            shown[label, params_slug(params)] = params_slug({k: params[k] for k in grid})
    return shown


def majority_better(table: pd.DataFrame) -> pd.Series:
    """Per (method, metric): True when the method is better than Random's best of G on a majority of its datasets."""
    counts = verdict_counts(table).set_index(["method", "metric"])
    return counts["better"] > counts["datasets"] / 2


def summary_rows(table: pd.DataFrame) -> pd.DataFrame:
    """A row per method: its G and, per label metric, 'better / not distinguishable / worse' dataset counts, bold
    when better on a majority (the report's first table and docs/results.md's)."""
    metrics = [m for m in LABEL_METRICS if m in set(table["metric"])]
    counts = verdict_counts(table).set_index(["method", "metric"])
    majority = majority_better(table)
    rows = []
    for method, of in table.groupby("method", sort=True):
        row = {"method": method, "G": str(of["G"].iloc[0])}
        for metric in metrics:
            cell = " / ".join(str(int(counts.loc[(method, metric), v])) for v in VERDICTS)
            row[METRIC_LABELS[metric]] = f"**{cell}**" if majority[(method, metric)] else cell
        rows.append(row)
    return pd.DataFrame(rows)


def tuned_markdown(table: pd.DataFrame, methods: dict, heading: str = TITLE) -> str:
    """The report: the verdict counts per method and metric (bold: better on a majority), then every value, its
    setting shown by what the method's grid (config ``methods``) varies."""
    shown = grid_settings(methods)
    detail = pd.DataFrame({
        "dataset": table["dataset"], "method": table["method"], "G": table["G"].astype(str),
        "metric": table["metric"].map(METRIC_LABELS), "value": table["value"].map("{:.4f}".format),
        "best setting": [shown.get(key, key[1]) for key in zip(table["method"], table["setting"], strict=True)],
        "Random, best of G": [f"{m:.4f} ± {s:.4f}" for m, s in zip(table["chance_best_of_g"], table["chance_std"],
                                                                    strict=True)],
        "verdict": table["verdict"]})
    n = table["dataset"].nunique()
    return (
        f"# {heading}\n\nPer method and label metric, on how many of the {n} datasets its best setting of G (chosen "
        "with the labels) is better than / not distinguishable from / worse than Random's best of G random feature "
        f"orders: beyond {MARGIN:g} standard deviations of one such try from its mean. Bold: better on a majority "
        "of the datasets.\n\n" + markdown_table(summary_rows(table))
        + "\n## Every value\n\nvalue: the best setting's summary (the mean over the evaluated counts). Random, "
        "best of G: the mean over every group of random partitions of the dataset's Random draws into groups of G, "
        "± the standard deviation of one try (the mean's standard error is in tuned.csv).\n\n"
        + markdown_table(detail)
    )


PAPER = PaperSpec(name="tuned", title=TITLE, tables={"tuned.md": "tuned_vs_chance"})
