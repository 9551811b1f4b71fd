"""Cross-paper benchmark: every selector on every dataset of the papers, ranked per dataset and metric.

The benchmark's experiments (one per dataset family, config ``paper: benchmark``)
run on the generic select -> evaluate -> aggregate path; this module turns
their long metric tables into the report of ``results/<report>/``:

* ``plan``: what was asked - every (family, dataset, method) with its status:
  ``ok``, ``not run: <reason>`` (the method's ``exclude`` in the config) or
  ``not obtained: <reason>`` (the dataset is in ``data.exclude``);
* ``summary_table``: per dataset, method and metric the mean over the
  evaluated feature counts (one number per run, the normalised area under the
  metric's curve), then the mean over repetitions, and its rank among the
  methods of that dataset (1 = best; ties share the mean rank; the direction
  from ``results.higher_is_better``);
* ``mean_ranks``: per method and metric the mean rank over the datasets where
  the method ran, and on how many it did;
* ``summary_markdown`` and ``heatmap``: the tables and the figure.

Selectors that rank a derived space (kernel UDFS's kernel features, one per
sample) are summarised but not ranked: their m features are not m of the
original features, and their distance and persistence metrics compare against
the geometry of the kernel features, not of X. Selectors that use the labels
(``uses_labels``: the positive controls, ANOVA F, mRMR, KNN forward selection) are summarised, tested against
Random and drawn apart, but not ranked either: they read the labels the metrics
are scored with, so they are no competitor of the unsupervised selectors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ...experiments import not_run
from ...metrics import registry
from ...plots import finish, panel_grid
from ...results import higher_is_better
from ...tables import markdown_table
from ..chance_band import MARK, NOTE, below_by_dataset, below_random
from ..spec import PaperSpec

if TYPE_CHECKING:  # matplotlib is imported where a figure is drawn: the workflow's start-up loads none
    from matplotlib.colors import Normalize

# The values a run can report, in the figure's column order (the registry's: clustering, classification,
# geometry, topology; then time); a report shows those of the configured metrics (``reported``).
METRICS = tuple(registry.reported_values(registry.METRICS))
METRIC_LABELS = registry.value_labels()
# The rows of the tables and the heat-map are sorted by these (what the papers rank selectors by).
LABEL_METRICS = ("kmeans_acc", "kmeans_nmi", "knn_acc")
OK = "ok"
TIE_DIGITS = 10
PLAN_COLUMNS = ["family", "dataset", "method", "selector", "space", "uses_labels", "status"]
# how tables and figures mark a method that uses the labels (never ranked, never counted with the others)
CONTROL = "positive control (uses labels)"
CONTROL_MARK = "⁺"


TITLE = "Cross-paper benchmark"  # the heading of the shipped benchmark (results/benchmark/)


def title(report: str, experiments: list[str], protocol: str) -> str:
    """The title of a benchmark report folder: its report category and the headings of its tables and figures.

    The shipped cross-paper benchmark (results/benchmark/, or <protocol>_benchmark in a reduced run) is
    ``TITLE``; a user's own ``paper: benchmark`` experiments are named by their experiments.
    """
    if report in ("benchmark", f"{protocol}_benchmark"):
        return TITLE
    return "Benchmark: " + ", ".join(experiments)


def selector_space(selector: str) -> str:
    """'kernel' for selectors that rank derived (kernel) features, else 'original'."""
    from ...selectors import SELECTORS

    return "kernel" if hasattr(SELECTORS[selector], "kernel_features") else "original"


def selector_uses_labels(selector: str) -> bool:
    """Whether ``selector`` reads the class labels (``uses_labels``): a positive control, not a competitor."""
    from ...selectors import SELECTORS

    return bool(getattr(SELECTORS[selector], "uses_labels", False))


def label_users(frame: pd.DataFrame) -> pd.Series:
    """Per row of ``frame`` (a plan, summary or comparison table) whether its method uses the labels; False for
    every row of a table written before the column existed."""
    if "uses_labels" not in frame:
        return pd.Series(False, index=frame.index)
    return frame["uses_labels"].astype(str).str.lower().isin(["true", "1"])


def controls(frame: pd.DataFrame) -> list[str]:
    """The methods of ``frame`` that use the labels (positive controls), in first-seen order."""
    return list(dict.fromkeys(frame.loc[label_users(frame), "method"]))


def plan(experiments: dict[str, dict], excluded: dict[str, str]) -> pd.DataFrame:
    """Every (family, dataset, method) the benchmark's experiments ask for, with its status.

    ``experiments`` maps experiment name (the family) to its config entry;
    ``excluded`` is the config's ``data.exclude``. A dataset may belong to one
    family only (its ranks would otherwise mix two preprocessings).
    """
    rows, family_of = [], {}
    for family, exp in experiments.items():
        skipped = not_run(exp)
        for dataset in exp["datasets"]:
            if dataset in family_of:
                raise ValueError(f"dataset {dataset!r} is in two benchmark experiments: "
                                 f"{family_of[dataset]!r} and {family!r}.")
            family_of[dataset] = family
            for method, spec in exp["methods"].items():
                if dataset in excluded:
                    status = f"not obtained: {excluded[dataset]}"
                elif (dataset, method) in skipped:
                    status = f"not run: {skipped[(dataset, method)]}"
                else:
                    status = OK
                rows.append({"family": family, "dataset": dataset, "method": method, "selector": spec["selector"],
                             "space": selector_space(spec["selector"]),
                             "uses_labels": selector_uses_labels(spec["selector"]), "status": status})
    return pd.DataFrame(rows, columns=PLAN_COLUMNS)


def reported(table: pd.DataFrame) -> list[str]:
    """The values of ``METRICS`` that ``table`` (a long metric table or a summary) holds, in their order.

    The experiments' configured metrics, and only those: a metric not configured has no row, so it gets
    no column, no panel and no test (not a column of blanks).
    """
    present = set(table["metric"])
    return [m for m in METRICS if m in present]


def per_run(metrics: pd.DataFrame) -> pd.DataFrame:
    """One value per run and metric: the mean over the evaluated counts (fit time has no count)."""
    keys = ["dataset", "method", "params", "rep", "metric"]
    frame = metrics[metrics["metric"].isin(METRICS)]
    return frame.groupby(keys, sort=False).agg(value=("value", "mean")).reset_index()


def _counts(metrics: pd.DataFrame) -> pd.Series:
    """The feature counts evaluated per (dataset, method), as text '4,7,13'."""
    counts = metrics.dropna(subset=["n_features"]).groupby(["dataset", "method"])["n_features"]
    return counts.agg(lambda c: ",".join(str(int(v)) for v in sorted(set(c)))).rename("counts")


def summary_table(metrics: pd.DataFrame, planned: pd.DataFrame) -> pd.DataFrame:
    """Per planned (dataset, method) and metric: value, repetitions, counts, rank, below Random's band, status.

    ``metrics`` is the concatenated long table of the experiments (columns
    dataset, method, params, rep, n_features, metric, value); each method has
    one parameter setting. A planned ``ok`` pair without results, or results
    that were not planned, are errors: nothing is dropped silently.
    """
    runs = per_run(metrics)
    settings = runs.groupby(["dataset", "method"])["params"].nunique()
    if (settings > 1).any():
        several = list(settings[settings > 1].index)
        raise ValueError(f"one parameter setting per method expected; several for {several}.")
    ran = set(zip(runs["dataset"], runs["method"]))
    ok = planned[planned["status"] == OK]
    expected = set(zip(ok["dataset"], ok["method"]))
    if ran != expected:
        raise ValueError(f"results do not match the plan: missing {sorted(expected - ran)}, "
                         f"unplanned {sorted(ran - expected)}.")
    values = runs.groupby(["dataset", "method", "metric"]).agg(
        params=("params", "first"), value=("value", "mean"), reps=("rep", "nunique")).reset_index()
    values = values.join(_counts(metrics), on=["dataset", "method"])
    grid = planned.merge(pd.DataFrame({"metric": reported(runs)}), how="cross")
    table = grid.merge(values, on=["dataset", "method", "metric"], how="left")
    table["rank"] = _ranks(table)
    table = table.merge(below_random(runs, planned, OK), on=["dataset", "method", "metric"], how="left")
    table["below_random"] = table["below_random"].astype("boolean").fillna(False)
    return table[PLAN_COLUMNS[:6] + ["params", "metric", "value", "reps", "counts", "rank", "below_random", "status"]]


def _ranks(table: pd.DataFrame) -> pd.Series:
    """Rank among the ranked methods (original space, run, unsupervised) of each dataset and metric; 1 = best.

    Ties as in ``rank_values`` (the same subset in another column order gives
    the same metrics up to rounding).
    """
    rankable = (table["status"] == OK) & (table["space"] == "original") & table["value"].notna() & ~label_users(table)
    ranks = pd.Series(np.nan, index=table.index)
    for (_, metric), group in table[rankable].groupby(["dataset", "metric"]):
        ranks[group.index] = rank_values(group["value"], metric)
    return ranks


def rank_values(values: pd.Series, metric: str) -> pd.Series:
    """Ranks of one dataset's values of ``metric`` (1 = best in the metric's direction).

    Values equal to ``TIE_DIGITS`` significant digits tie and share the mean of their ranks.
    """
    rounded = values.map(lambda v: float(f"{v:.{TIE_DIGITS}g}"))
    return rounded.rank(method="average", ascending=not higher_is_better(metric))


def mean_ranks(summary: pd.DataFrame) -> pd.DataFrame:
    """Per ranked method and metric: mean rank over datasets, the number of datasets, and wins (rank 1, ties shared)."""
    ranked = summary.dropna(subset=["rank"])
    best = ranked.groupby(["dataset", "metric"])["rank"].transform("min")
    ranked = ranked.assign(win=ranked["rank"] == best)
    out = ranked.groupby(["method", "metric"]).agg(
        mean_rank=("rank", "mean"), n_datasets=("rank", "size"), wins=("win", "sum")).reset_index()
    out["metric"] = pd.Categorical(out["metric"], METRICS, ordered=True)
    return out.sort_values(["metric", "mean_rank", "method"]).reset_index(drop=True).astype({"metric": str})


def method_order(ranks: pd.DataFrame) -> list[str]:
    """Methods by their average mean rank over the label-based metrics (K-means ACC, NMI, KNN), best first.

    The distance and persistence metrics are left out of the order (not of the
    tables): on unscaled data they favour the largest-variance features.
    """
    label = ranks[ranks["metric"].isin(LABEL_METRICS)].groupby("method")["mean_rank"].mean()
    return list(label.sort_values(kind="stable").index)


def protocol_markdown(experiments: dict[str, dict]) -> str:
    """One line per family: preprocessing, feature counts, repetitions and metric options, from the config."""
    intro = ("Each value is the mean over the evaluated feature counts (then over repetitions) of one selector "
             "setting; time is the selector's fit in seconds. Families (one experiment each):")
    lines = [intro, ""]
    for family, exp in experiments.items():
        reps = {m: int(s.get("reps", exp.get("reps", 1))) for m, s in exp["methods"].items()}
        more = ", ".join(f"{m} {r}" for m, r in reps.items() if r != exp.get("reps", 1))
        metrics = "; ".join(f"{k} {v}" for k, v in exp["metrics"].items())
        lines.append(f"- `{family}`: preprocessing `{exp['preprocess']}`, counts {exp['n_features']}, "
                     f"{exp.get('reps', 1)} repetition(s){f' ({more})' if more else ''}; {metrics}.")
    return "\n".join(lines) + "\n"


def _fmt(value, digits: int = 3) -> str:
    return "–" if pd.isna(value) else f"{value:.{digits}g}"


def _short_status(status: str) -> str:
    return status.split(":", 1)[0]


def summary_markdown(summary: pd.DataFrame, ranks: pd.DataFrame, protocol: str, heading: str = TITLE) -> str:
    """The report under ``heading``: the mean-rank table, what was not run or not obtained, one table per metric."""
    order = method_order(ranks)
    metrics = reported(summary)
    supervised = controls(summary)
    unranked = [m for m in dict.fromkeys(summary["method"]) if m not in order and m not in supervised]
    parts = [f"# {heading}\n", protocol.strip() + "\n"]
    cell = ranks.set_index(["method", "metric"])
    rows = [[m] + [f"{cell.loc[(m, k), 'mean_rank']:.2f} ({cell.loc[(m, k), 'n_datasets']})"
                   if (m, k) in cell.index else "–" for k in metrics] for m in order]
    parts += ["## Mean rank across datasets (number of datasets)\n",
              "Rank 1 = best on a dataset; rows sorted by the average over K-means ACC, NMI and KNN accuracy.\n",
              markdown_table(rows, ["method"] + [METRIC_LABELS[k] for k in metrics])]
    if unranked:
        parts.append(f"Not ranked (features of a derived space, not original features): {', '.join(unranked)}; "
                     "their values are in the tables below.\n")
    if supervised:
        parts.append(f"Not ranked, {CONTROL}: {', '.join(m + CONTROL_MARK for m in supervised)} (a supervised "
                     "selector: it reads the labels the label metrics are scored with, so it is no competitor of "
                     "the unsupervised ones; its values are the last columns of the tables below).\n")
    parts.append(_status_section(summary))
    below = below_by_dataset(summary)
    if below:
        parts += ["## Below Random's band\n", NOTE + "\n",
                  markdown_table([[d, "; ".join(m)] for d, m in below.items()], ["dataset", "method (metrics)"])]
    for metric in metrics:
        direction = "higher" if higher_is_better(metric) else "lower"
        parts += [f"## {METRIC_LABELS[metric]} (`{metric}`, {direction} is better)\n",
                  _metric_table(summary, metric, order + unranked + supervised)]
    return "\n".join(parts)


def _status_section(summary: pd.DataFrame) -> str:
    pairs = summary.drop_duplicates(["dataset", "method"])
    missing = pairs[pairs["status"] != OK]
    if missing.empty:
        return "Every selector ran on every dataset.\n"
    rows = []
    for (family, dataset, status), group in missing.groupby(["family", "dataset", "status"], sort=False):
        every = len(group) == (pairs["dataset"] == dataset).sum()
        rows.append([family, dataset, "every method" if every else ", ".join(group["method"]), status])
    return "## Not run or not obtained\n\n" + markdown_table(rows, ["family", "dataset", "method", "status"])


def _metric_table(summary: pd.DataFrame, metric: str, methods: list[str]) -> str:
    part = summary[summary["metric"] == metric].set_index(["dataset", "method"])
    rows = []
    for (family, dataset), _ in summary.groupby(["family", "dataset"], sort=False):
        row = [family, dataset]
        for method in methods:
            if (dataset, method) not in part.index:
                row.append("")
                continue
            r = part.loc[(dataset, method)]
            if r["status"] != OK:
                row.append(_short_status(r["status"]))
            else:
                row.append(_fmt(r["value"]) + ("" if pd.isna(r["rank"]) else f" ({r['rank']:g})")
                           + (f" {MARK}" if r.get("below_random") else ""))
        rows.append(row)
    supervised = controls(summary)
    return markdown_table(rows, ["family", "dataset"] + [m + CONTROL_MARK if m in supervised else m for m in methods])


# The per-dataset heat-maps, one figure per group of metrics (heatmap_<group>.png), so that each reads at the
# size a report shows it; heatmap.png is the overview of mean ranks.
HEATMAP_GROUPS = {
    "labels": ("kmeans_acc", "kmeans_nmi", "knn_acc"),
    "distances": ("Linf", "L1_over_n2", "L2"),
    "persistence": ("w11", "winf", "fit_seconds"),
}


def heatmap(summary: pd.DataFrame, ranks: pd.DataFrame, *, protocol: str = "full", heading: str = TITLE):
    """The overview (heatmap.png): the mean rank per ranked method and metric, the best per metric boxed.

    The ranks on every dataset are ``heatmap_group``'s figures, one per group of metrics (``HEATMAP_GROUPS``).
    """
    from matplotlib.colors import Normalize
    from matplotlib.patches import Rectangle

    order = method_order(ranks)
    datasets = list(dict.fromkeys(summary["dataset"]))
    metrics = reported(summary)
    fig, axes = panel_grid(1, ncols=1, panel_size=(max(6.5, 0.75 * len(metrics) + 3.0), 0.3 * len(order) + 1.6))
    norm = Normalize(vmin=1, vmax=max(_max_rank(summary), 2.0))
    mean = ranks.pivot(index="method", columns="metric", values="mean_rank").reindex(index=order, columns=metrics)
    image = _matrix(axes[0], mean.to_numpy(), norm, fmt="{:.2f}", fontsize=8)
    axes[0].set_xticks(range(len(metrics)), [METRIC_LABELS[k] for k in metrics], rotation=35, ha="right",
                       fontsize=9)
    axes[0].set_yticks(range(len(order)), order, fontsize=9)
    axes[0].set_title("Mean rank across datasets (1 = best; box = best per metric)", fontsize=10)
    values = mean.to_numpy()
    for j in np.flatnonzero(np.isfinite(values).any(axis=0)):
        for i in np.flatnonzero(values[:, j] == np.nanmin(values[:, j])):
            axes[0].add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="red", linewidth=1.8))
    fig.colorbar(image, ax=axes, shrink=0.6, label="rank (1 = best)")
    supervised = controls(summary)
    title = (f"{heading} on {len(datasets)} dataset{'s' * (len(datasets) > 1)}: mean ranks of the selectors "
             "(value = mean over the evaluated feature counts; rows: best K-means and KNN mean rank first; ranks on "
             "each dataset: heatmap_<group>.png)"
             + (f"; not ranked, {CONTROL}: {', '.join(supervised)}" if supervised else ""))
    return finish(fig, axes, title=title, protocol=protocol, legend=False)


def heatmap_group(summary: pd.DataFrame, ranks: pd.DataFrame, group: str, *, protocol: str = "full",
                  heading: str = TITLE):
    """Per metric of ``HEATMAP_GROUPS[group]`` the rank of every ranked method on every dataset (one panel each,
    stacked), by colour only so that it reads at a thumbnail's size (the values and ranks are in the summary);
    a positive control (a method that uses the labels) in a hatched row of its own below a rule, coloured by the
    rank its value would take among the ranked methods (it is never ranked)."""
    from matplotlib.colors import Normalize
    from matplotlib.patches import Rectangle

    order = method_order(ranks)
    supervised = controls(summary)
    rows = order + supervised
    datasets = list(dict.fromkeys(summary["dataset"]))
    absent = set(summary.loc[summary["status"].str.startswith("not obtained"), "dataset"])
    metrics = [m for m in reported(summary) if m in HEATMAP_GROUPS[group]]
    width = max(7.0, 0.3 * len(datasets) + 3.0)
    fig, axes = panel_grid(max(1, len(metrics)), ncols=1, panel_size=(width, 0.22 * len(rows) + 2.2))
    if not metrics:
        axes[0].set_axis_off()
        axes[0].set_title(f"no {group} metric in this run", fontsize=11)
        return finish(fig, axes, title=f"{heading}: {group}", protocol=protocol, legend=False)
    norm = Normalize(vmin=1, vmax=max(_max_rank(summary), 2.0))
    family = summary.drop_duplicates("dataset").set_index("dataset")["family"].reindex(datasets)
    breaks = [i - 0.5 for i in range(1, len(datasets)) if family.iloc[i] != family.iloc[i - 1]]
    image = None
    for ax, metric in zip(axes, metrics):
        part = summary[summary["metric"] == metric]
        grid = part.pivot(index="method", columns="dataset", values="rank").reindex(index=rows, columns=datasets)
        shown = grid.to_numpy()
        if supervised:  # the rank a control's value would take among the ranked methods: shown, hatched, not kept
            shown[len(order):] = _would_rank(part, supervised, order, datasets, metric)
        image = ax.imshow(np.ma.masked_invalid(shown), cmap="YlGnBu_r", norm=norm, aspect="auto")
        ax.set_facecolor("0.93")
        best = grid.to_numpy()[:len(order)]
        for i, j in zip(*np.nonzero(best == np.nanmin(best, axis=0, initial=np.inf))):  # rank 1 (ties too)
            ax.plot(j, i, marker="o", markersize=3.5, color="white", markeredgecolor="black", markeredgewidth=0.5)
        for i in range(len(order), len(rows)):
            for j in np.flatnonzero(np.isfinite(shown[i])):
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, hatch="///", edgecolor="0.4",
                                       linewidth=0))
        if supervised:
            ax.axhline(len(order) - 0.5, color="black", linewidth=2)
        below = part[part["below_random"].fillna(False).astype(bool)]
        for method, dataset in zip(below["method"], below["dataset"]):  # below Random's band: a red dashed box
            if method in order:
                ax.add_patch(Rectangle((datasets.index(dataset) - 0.42, order.index(method) - 0.42), 0.84, 0.84,
                                       fill=False, edgecolor="red", linestyle="--", linewidth=1.3))
        labels = [f"{d} (not obtained)" if d in absent else d for d in datasets]
        ax.set_xticks(range(len(datasets)), labels, rotation=60, ha="right", fontsize=9)
        ax.set_yticks(range(len(rows)), order + [f"{m}{CONTROL_MARK} (control)" for m in supervised], fontsize=9)
        for x in breaks:  # one block of columns per family
            ax.axvline(x, color="white", linewidth=3)
        direction = "higher" if higher_is_better(metric) else "lower"
        ax.set_title(f"{METRIC_LABELS[metric]} ({direction} is better): rank on each dataset", fontsize=11)
    fig.colorbar(image, ax=axes, shrink=0.5, label="rank (1 = best)")
    title = (f"{heading}, {group}, {len(datasets)} dataset{'s' * (len(datasets) > 1)}: rank of each selector by "
             "colour (dot: best; values: summary.md; grey: not run or not obtained; red dashed box: below Random's "
             "band)" + (f"; hatched: {CONTROL}, never ranked, coloured by the rank its value would take"
                        if supervised else ""))
    return finish(fig, axes, title=title, protocol=protocol, legend=False)


def _would_rank(part: pd.DataFrame, supervised: list[str], order: list[str], datasets: list[str],
                metric: str) -> np.ndarray:
    """Per control (rows) and dataset (columns) the rank its value would take among the ranked methods' values."""
    values = part.pivot(index="method", columns="dataset", values="value").reindex(columns=datasets)
    out = np.full((len(supervised), len(datasets)), np.nan)
    for i, control in enumerate(supervised):
        for j, dataset in enumerate(datasets):
            if control not in values.index or not np.isfinite(values.at[control, dataset]):
                continue
            others = values.loc[[m for m in order if m in values.index], dataset].dropna()
            if others.empty:
                continue
            ranked = rank_values(pd.concat([others, values.loc[[control], dataset]]), metric)
            out[i, j] = ranked.iloc[-1]
    return out


def _max_rank(summary: pd.DataFrame) -> float:
    ranks = summary.groupby(["dataset", "metric"])["rank"].max()
    return float(ranks.max()) if ranks.notna().any() else 1.0


def _matrix(ax, values: np.ndarray, norm: Normalize, *, fmt: str, labels: np.ndarray | None = None,
            fontsize: float = 6):
    """A rank matrix coloured from dark (rank 1) to light, each cell annotated with its rank (or with ``labels``,
    e.g. the values ranked); NaN cells stay blank."""
    image = ax.imshow(np.ma.masked_invalid(values), cmap="YlGnBu_r", norm=norm, aspect="auto")
    ax.set_facecolor("0.93")
    labels = values if labels is None else labels
    for (i, j), value in np.ndenumerate(values):
        if np.isfinite(value):
            dark = norm(value) < 0.45
            ax.text(j, i, fmt.format(labels[i, j]), ha="center", va="center", fontsize=fontsize,
                    color="white" if dark else "black")
    return image


# ---------------------------------------------------------------- the benchmark as a unit (ufskit.papers.registry)

# A cross-paper "paper": no published numbers or claims, so no scorecard rows; a report category of its own.
PAPER = PaperSpec(
    name="benchmark",
    title=TITLE,
    tables={"summary.md": "benchmark_summary", "stats.md": "benchmark_stats", "vs_random.md": "benchmark_vs_random"},
    figures={"heatmap.png": "benchmark_heatmap", "heatmap_labels.png": "benchmark_heatmap_labels",
             "heatmap_distances.png": "benchmark_heatmap_distances",
             "heatmap_persistence.png": "benchmark_heatmap_persistence", "cd.png": "benchmark_cd"},
)
