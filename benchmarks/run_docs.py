"""Rewrite the run's tables in docs/performance.md and docs/results.md from the run's own files (not a test).

    python benchmarks/run_docs.py [--results results]

Reads ``results/full_run.csv`` (written by benchmarks/full_run.py: wall time, jobs, peak memory and slowest
rules per part) and ``results/scorecard.csv`` (rule ``scorecard``: every published number and claim beside
the run's) and replaces, in each page, the block between ``<!-- run:NAME -->`` and ``<!-- /run:NAME -->``
with the table made from that file. A file the run did not write leaves its block as it is (and says so).
Run it from the repository root after a full run (``benchmarks/full_run.py``, then the scorecard).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import pandas as pd

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
PAPER_NAMES = {"ivfs": "IVFS", "nrfs": "NRFS", "ils": "Iterative Laplacian Score", "kudfs": "Kernel UDFS"}
MAIN = "main"


def markdown(header: list[str], rows: list[list]) -> str:
    """A markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(str(c) for c in row) + " |" for row in rows])


def full_run_table(table: pd.DataFrame) -> str:
    """The parts of a full run, slowest first, and their total: wall time, jobs, peak RSS, slowest rules."""
    parts = table[table["part"] != "total"].sort_values("wall_s", ascending=False)
    rows = [[PART_NAMES.get(p.part, p.part), p.wall, f"{p.jobs:,}", f"{p.peak_rss_mb / 1024:.2f} GB",
             re.sub(r" min\b", "", p.slowest_rules)]
            for p in parts.itertuples(index=False)]
    total = table[table["part"] == "total"].iloc[0]
    rows.append(["**total**", f"**{total['wall']}**", f"**{int(total['jobs']):,}**",
                 f"**{total['peak_rss_mb'] / 1024:.2f} GB**", ""])
    return markdown(["part", "wall", "jobs", "peak RSS", "slowest rules (job-minutes)"], rows)


def scorecard_table(card: pd.DataFrame) -> str:
    """Per paper: published numbers within tolerance under the main reading and under the closest computed
    reading per number, and the claims' verdicts under the main reading."""
    rows = []
    for paper, name in PAPER_NAMES.items():
        part = card[card["paper"] == paper]
        numbers = part[part["kind"] == "number"]
        main = numbers[numbers["reading"] == MAIN]
        closest = numbers["closest_reading"]
        best = numbers[(numbers["reading"] == closest) | ((closest == "") & (numbers["reading"] == MAIN))]
        best = best.drop_duplicates(["base", "table", "dataset", "method", "metric"])
        claims = part[(part["kind"] == "claim") & (part["reading"] == MAIN)]["outcome"]
        not_compared = int((~main["outcome"].isin(["within tolerance", "outside tolerance"])).sum())
        rows.append([name, f"{(main['outcome'] == 'within tolerance').sum()} of {len(main)}", not_compared,
                     f"{(best['outcome'] == 'within tolerance').sum()} of {len(best)}",
                     " / ".join(str(int((claims == v).sum())) for v in ("holds", "partly holds", "does not hold"))])
    return markdown(["paper", "within tolerance, main reading", "not compared", "closest reading per number",
                     "claims: hold / partly / do not hold"], rows)


def replace_block(text: str, name: str, body: str) -> str:
    """``text`` with the block ``<!-- run:name -->`` ... ``<!-- /run:name -->`` holding ``body``."""
    pattern = re.compile(rf"(<!-- run:{name} -->\n).*?(<!-- /run:{name} -->)", re.S)
    if not pattern.search(text):
        raise ValueError(f"no block <!-- run:{name} --> ... <!-- /run:{name} --> in the page")
    return pattern.sub(lambda m: m.group(1) + body + "\n" + m.group(2), text)


BLOCKS = [  # (page, block, run file, table maker)
    ("docs/performance.md", "full-run", "full_run.csv", full_run_table),
    ("docs/results.md", "scorecard", "scorecard.csv", scorecard_table),
]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=REPO / "results", help="the run's results folder")
    args = parser.parse_args(argv)
    for page, block, source, make in BLOCKS:
        path = args.results / source
        if not path.exists():
            print(f"{page}: {block} left as it is ({path} not found)")
            continue
        target = REPO / page
        table = pd.read_csv(path, keep_default_na=False)  # an empty cell is "", not NaN
        target.write_text(replace_block(target.read_text(), block, make(table)))
        print(f"{page}: {block} rewritten from {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
