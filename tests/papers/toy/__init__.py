"""A toy paper, the worked example of docs/extending.md: a whole paper in one folder.

It claims that the Laplacian Score beats Variance in K-means accuracy on wine (Table 1, two
published numbers, one claim) and publishes LS's accuracy at two feature counts (Fig. 1: numbers keyed
by a count, ``Published.keys``). Its rules (``rules.smk``) build ``results/<report>/table1.csv``,
``table1.html`` (in the report), ``curve.csv``, ``fig1.png`` (in the report), ``claims.csv`` and ``claims.md``
from its ``table1`` experiment's summary; the scorecard compares them with ``published/`` and groups its
number outside tolerance by ``groups.csv``. It lives outside the package (its folder's parent named by config
``paper_folders``) or, copied there, in ``src/ufskit/papers/``: its scripts find it either way
(``ufskit.papers.paper_package``). Its experiments of each protocol are ``protocols/full.yaml``, ``quick.yaml``
and ``smoke.yaml``.
"""

from __future__ import annotations

import pandas as pd

from ufskit.papers import PaperSpec, Published, claims_frame
from ufskit.papers.spec import reader_rows
from ufskit.plots import count_axis, finish, panel_grid, plot_line
from ufskit.results import best_over_settings

METRIC = "kmeans_acc"
CLAIM = "TOY/LS-beats-Variance"


def table1(summary: pd.DataFrame) -> pd.DataFrame:
    """Per dataset and method: the best K-means accuracy (%) over the settings and counts of the run."""
    best = best_over_settings(summary[summary["metric"] == METRIC])
    return best.assign(**{METRIC: 100 * best["value"]})[["dataset", "method", METRIC]]


def curve(summary: pd.DataFrame) -> pd.DataFrame:
    """Per dataset, method and feature count: the K-means accuracy (%), best over the settings (Fig. 1's points)."""
    rows = summary[summary["metric"] == METRIC]
    best = rows.groupby(["dataset", "method", "n_features"], as_index=False)["mean"].max()
    return best.assign(**{METRIC: 100 * best["mean"]})[["dataset", "method", "n_features", METRIC]]


def figure1(curve: pd.DataFrame, protocol: str = "full"):
    """Fig. 1 from ``curve``'s points: K-means accuracy (%) against the number of selected features, a panel per
    dataset, a line per method."""
    datasets = list(dict.fromkeys(curve["dataset"]))
    fig, axes = panel_grid(len(datasets))
    for ax, dataset in zip(axes, datasets):
        rows = curve[curve["dataset"] == dataset].sort_values("n_features")
        for layer, (method, line) in enumerate(rows.groupby("method", sort=False)):
            plot_line(ax, line["n_features"], line[METRIC], method, layer)
        ax.set_title(dataset)
        ax.set_ylabel("K-means accuracy (%)")
        count_axis(ax.xaxis)
    return finish(fig, axes, title="Toy paper, Fig. 1: K-means accuracy against the number of features",
                  protocol=protocol)


def claims(table: pd.DataFrame) -> pd.DataFrame:
    """The claim's verdict: LS above Variance on every dataset of the table."""
    wide = table.pivot(index="dataset", columns="method", values=METRIC)
    numbers = "; ".join(f"{d}: LS {r.LS:.1f} %, Variance {r.Variance:.1f} %" for d, r in wide.iterrows())
    return claims_frame([{"id": CLAIM, "claim": "LS beats Variance in K-means accuracy.",
                          "verdict": bool((wide["LS"] > wide["Variance"]).all()), "numbers": numbers}])


def claims_markdown(verdicts: pd.DataFrame) -> str:
    """claims.md, the scorecard's evidence of each verdict."""
    lines = ["# Toy paper: claims and verdicts", "", "| claim | verdict | numbers |", "|---|---|---|"]
    return "\n".join(lines + [f"| {c.claim} | {c.verdict} | {c.numbers} |" for c in verdicts.itertuples()]) + "\n"


def table1_markdown(table: pd.DataFrame) -> str:
    """Table 1 as the report shows it."""
    lines = ["# Toy paper, Table 1: K-means accuracy (%)", "", "| dataset | method | K-means accuracy |", "|---|---|---|"]
    return "\n".join(lines + [f"| {r.dataset} | {r.method} | {getattr(r, METRIC):.1f} |" for r in table.itertuples()]) + "\n"


def _read_table1(table: pd.DataFrame) -> pd.DataFrame:
    return reader_rows(table.rename(columns={METRIC: "reproduced"}), "Table 1", metric=METRIC)


def _read_curve(table: pd.DataFrame) -> pd.DataFrame:
    return reader_rows(table.rename(columns={METRIC: "reproduced"}), "Fig. 1", keys=("n_features",), metric=METRIC)


PAPER = PaperSpec(
    name="toy",
    title="Toy paper (tests)",
    roles=("table1",),
    published=(Published("toy_table1.csv", "Table 1", {"kmeans_acc_pct": (METRIC, None)}),
               Published("toy_curve.csv", "Fig. 1", {"kmeans_acc_pct": (METRIC, None)}, keys=("n_features",))),
    readers={"table1": _read_table1, "curve": _read_curve},
    claims="claims.csv",
    tables={"table1.html": "toy_table1"},
    figures={"fig1.png": "toy_fig1"},
)
