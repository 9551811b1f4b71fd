"""Rewrite the run's tables in README.md, docs/performance.md and docs/results.md from the reference (not a test).

    python benchmarks/run_docs.py [--results reference]

Reads the shipped reference folder (``ufskit reference`` writes it from a finished full run): its
``full_run.csv`` (benchmarks/full_run.py: wall time, jobs, peak memory and slowest rules per part),
``scorecard.csv`` (every published number and claim beside the run's) and ``provenance.json`` (commit, machine,
date), and replaces, in each page, the block between ``<!-- run:NAME -->`` and ``<!-- /run:NAME -->`` with the
table made from them, so that no page types a number of the run by hand. A file the folder lacks leaves its
block as it is (and says so). Run it from the repository root.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import pandas as pd

from ufskit.papers import scored

REPO = Path(__file__).resolve().parents[1]
# benchmarks/full_run.py's part labels, as the tables name them
PART_NAMES = {
    "ivfs": "IVFS",
    "benchmark": "benchmark",
    "nrfs_synthetic_microarray": "NRFS synthetic and microarray (+ 2 readings)",
    "nrfs_text": "NRFS text",
    "nrfs_text_l2": "NRFS text, plain L2 reading",
    "ils": "ILS",
    "kudfs": "kernel UDFS (+ 2 readings)",
    "generic": "baselines",
    "default_target": "default target (scorecard, benchmark tables, the rest)",
}
MAIN = "main"
# the all-selector table's trivial baseline beside Random: its majorities are shown but not counted
TRIVIAL = "Variance"
CLAIM_VERDICTS = ("holds", "partly holds", "does not hold")


def markdown(header: list[str], rows: list[list]) -> str:
    """A markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(str(c) for c in row) + " |" for row in rows])


def full_run_table(table: pd.DataFrame, folder: Path | None = None) -> str:
    """The parts of a full run, slowest first, and their total: wall time, jobs, peak RSS, slowest rules."""
    parts = table[table["part"] != "total"].sort_values("wall_s", ascending=False)
    rows = [[PART_NAMES.get(p.part, p.part), p.wall, f"{p.jobs:,}", f"{p.peak_rss_mb / 1024:.2f} GB",
             re.sub(r" min\b", "", p.slowest_rules)]
            for p in parts.itertuples(index=False)]
    total = table[table["part"] == "total"].iloc[0]
    rows.append(["**total**", f"**{total['wall']}**", f"**{int(total['jobs']):,}**",
                 f"**{total['peak_rss_mb'] / 1024:.2f} GB**", ""])
    return markdown(["part", "wall", "jobs", "peak RSS", "slowest rules (job-minutes)"], rows)


def _paper_counts(card: pd.DataFrame, paper: str) -> dict:
    """A paper's published numbers under the main reading (within tolerance, compared, not compared), under the
    closest computed reading per number, and its claims' verdicts under the main reading."""
    part = card[card["paper"] == paper]
    numbers = part[part["kind"] == "number"]
    main = numbers[numbers["reading"] == MAIN]
    closest = numbers["closest_reading"]
    best = numbers[(numbers["reading"] == closest) | ((closest == "") & (numbers["reading"] == MAIN))]
    best = best.drop_duplicates(["base", "table", "dataset", "method", "metric"])
    claims = part[(part["kind"] == "claim") & (part["reading"] == MAIN)]["outcome"]
    return {"within": f"{(main['outcome'] == 'within tolerance').sum()} of {len(main)}",
            "not_compared": int((~main["outcome"].isin(["within tolerance", "outside tolerance"])).sum()),
            "closest": f"{(best['outcome'] == 'within tolerance').sum()} of {len(best)}",
            "claims": " / ".join(str(int((claims == v).sum())) for v in CLAIM_VERDICTS)}


def scorecard_table(card: pd.DataFrame, folder: Path | None = None) -> str:
    """Per registered paper: published numbers within tolerance under the main reading and under the closest
    computed reading per number, and the claims' verdicts under the main reading."""
    rows = [[spec.title, *(_paper_counts(card, name)[k] for k in ("within", "not_compared", "closest", "claims"))]
            for name, spec in scored().items()]
    return markdown(["paper", "within tolerance, main reading", "not compared", "closest reading per number",
                     "claims: hold / partly / do not hold"], rows)


def status_table(card: pd.DataFrame, folder: Path) -> str:
    """The README's status: which run (date, commit, machine, wall time) and per paper its numbers and claims."""
    record = json.loads((folder / "provenance.json").read_text())
    times = pd.read_csv(folder / "full_run.csv", keep_default_na=False) if (folder / "full_run.csv").exists() else None
    wall = times.loc[times["part"] == "total", "wall"].iat[0] if times is not None else "not measured"
    machine = record["machine"]
    head = (f"The reference run (`reference/`, every row in `reference/scorecard.md`): {record['date']}, commit "
            f"`{record['git_commit'][:10]}`, {wall} on {machine['cores']} cores ({machine['cpu']}, OpenBLAS "
            f"{machine['blas_kernel']} kernel).")
    rows = []
    for name, spec in scored().items():
        counts = _paper_counts(card, name)
        page = f"docs/fidelity/{name}-paper.md"
        rows.append([spec.title, f"{counts['within']} ({counts['not_compared']} not compared)", counts["claims"],
                     f"[{name}-paper.md]({page})" if (REPO / page).exists() else ""])
    return head + "\n\n" + markdown(["paper", "published numbers within tolerance",
                                      "claims: hold / partly / do not hold", "fidelity"], rows)


def run_time(folder: Path) -> str:
    """A run's time: the total wall of its ``full_run.csv`` (benchmarks/full_run.py), else the sum of its jobs'
    times from ``job_times.csv`` (benchmarks/job_times.py: a run made of several invocations)."""
    if (folder / "full_run.csv").exists():
        return pd.read_csv(folder / "full_run.csv", keep_default_na=False).set_index("part").at["total", "wall"]
    if (folder / "job_times.csv").exists():
        total = pd.read_csv(folder / "job_times.csv").set_index("kind").loc["total"]
        hours, minutes = divmod(round(total["job_seconds"] / 60), 60)
        return f"{int(total['jobs']):,} jobs taking {hours} h {minutes} min of one core each"
    return "run time not recorded"


def all_selectors_table(table: pd.DataFrame, folder: Path) -> str:
    """The benchmark of every selector against Random (``reference/all_selectors/``): which run, then per method
    and metric on how many datasets it is better / not distinguishable / worse than Random (Holm), and per
    metric how many of the non-trivial selectors (all but Random and Variance) are better on a majority."""
    from ufskit.papers import benchmark as B
    from ufskit.papers.benchmark_stats import TESTED_METRICS, VERDICTS, verdict_counts

    record = json.loads((folder / "provenance.json").read_text())
    machine = record["machine"]
    counts = verdict_counts(table).set_index(["method", "metric"])
    metrics = [m for m in TESTED_METRICS if m in set(table["metric"])]
    methods = list(dict.fromkeys(table["method"]))
    datasets = table.groupby(["method", "metric"])["dataset"].nunique()
    majority = {m: [] for m in metrics}
    rows = []
    for method in methods:
        row = [method]
        for metric in metrics:
            if (method, metric) not in counts.index:
                row.append("–")
                continue
            c = counts.loc[(method, metric)]
            cell = " / ".join(str(int(c[v])) for v in VERDICTS)
            if c["better"] > datasets[(method, metric)] / 2:
                cell = f"**{cell}**"
                if method != TRIVIAL:
                    majority[metric].append(method)
            row.append(cell)
        rows.append(row)
    n_selectors = len([m for m in methods if m != TRIVIAL])
    head = (f"Run of {record['date']}, commit `{record['git_commit'][:10]}`, {run_time(folder)} on {machine['cores']} cores "
            f"({machine['cpu']}, OpenBLAS {machine['blas_kernel']} kernel); {table['dataset'].nunique()} datasets. "
            "Each cell: datasets where the method is better / not distinguishable / worse than Random (Holm-corrected "
            "p < 0.05); **bold**: better on a majority of the datasets it ran on.")
    tally = "; ".join(f"{B.METRIC_LABELS[m]} {len(majority[m])} of {n_selectors}" for m in metrics)
    return (head + "\n\n" + markdown(["method"] + [B.METRIC_LABELS[m] for m in metrics], rows)
            + f"\n\nNon-trivial selectors (all but {TRIVIAL}) better than Random on a majority of datasets: {tally}.")


def all_selectors_block(table: pd.DataFrame, folder: Path) -> str:
    """``all_selectors_table`` of the reference's ``all_selectors/`` folder (its own provenance and times)."""
    return all_selectors_table(table, folder / "all_selectors")


def tuned_table(table: pd.DataFrame, folder: Path) -> str:
    """The tuned variant (``reference/all_selectors_tuned/``): per method its G and, per label metric, on how many
    datasets its best setting is better / not distinguishable / worse than Random's best of G."""
    from ufskit.papers import benchmark as B
    from ufskit.papers import tuned

    folder = folder / "all_selectors_tuned"
    record = json.loads((folder / "provenance.json").read_text())
    rows = tuned.summary_rows(table)
    majority = tuned.majority_better(table).groupby(level="metric").sum()
    n = table["method"].nunique()
    head = (f"Run of {record['date']}, commit `{record['git_commit'][:10]}`, {run_time(folder)}; "
            f"{table['dataset'].nunique()} low-dimensional datasets. Each cell: datasets where the method's best "
            "setting of its grid of G is better / not distinguishable / worse than Random's best of G draws (beyond "
            f"{tuned.MARGIN:g} standard deviations of one try); **bold**: better on a majority.")
    tally = "; ".join(f"{B.METRIC_LABELS[m]} {int(majority[m])} of {n}" for m in B.LABEL_METRICS if m in majority)
    return (head + "\n\n" + markdown(list(rows.columns), rows.values.tolist())
            + f"\n\nTuned methods better than Random tuned the same way on a majority of datasets: {tally}.")


def replace_block(text: str, name: str, body: str) -> str:
    """``text`` with the block ``<!-- run:name -->`` ... ``<!-- /run:name -->`` holding ``body``."""
    pattern = re.compile(rf"(<!-- run:{name} -->\n).*?(<!-- /run:{name} -->)", re.S)
    if not pattern.search(text):
        raise ValueError(f"no block <!-- run:{name} --> ... <!-- /run:{name} --> in the page")
    return pattern.sub(lambda m: m.group(1) + body + "\n" + m.group(2), text)


BLOCKS = [  # (page, block, file of the reference, table maker)
    ("docs/performance.md", "full-run", "full_run.csv", full_run_table),
    ("docs/results.md", "scorecard", "scorecard.csv", scorecard_table),
    ("README.md", "status", "scorecard.csv", status_table),
    ("docs/results.md", "all-selectors", "all_selectors/vs_random.csv", all_selectors_block),
    ("docs/results.md", "all-selectors-tuned", "all_selectors_tuned/tuned.csv", tuned_table),
]


def rewritten(folder: Path) -> dict[str, str]:
    """Page -> its text with every block whose file ``folder`` has rewritten from that file."""
    pages = {}
    for page, block, source, make in BLOCKS:
        path = folder / source
        if not path.exists():
            print(f"{page}: {block} left as it is ({path} not found)")
            continue
        table = pd.read_csv(path, keep_default_na=False)  # an empty cell is "", not NaN
        pages[page] = replace_block(pages.get(page) or (REPO / page).read_text(), block, make(table, folder))
    return pages


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=REPO / "reference", help="the reference folder")
    args = parser.parse_args(argv)
    for page, text in rewritten(args.results).items():
        (REPO / page).write_text(text)
        print(f"{page}: rewritten from {args.results}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
