"""This version's tests against Random recomputed from a shipped comparison table, without rerunning (issue 49).

    python benchmarks/rejudge_vs_random.py [--table reference/all_selectors/vs_random.csv] [--out DIR]

The shipped ``vs_random.csv`` of a run (reference/all_selectors/: the 12-hour run of every selector) holds, per
dataset, method and metric, the method's value and runs, Random's mean and number of draws, the percentile and
the prediction t-test's t and p; Random's draws themselves are not there, but the test needs only their mean, sd
and number, and the sd follows from t (``benchmark_stats.random_sd_from_t``; the methods of one dataset and metric
agree on it to the table's 6 digits). So the new statistics are recomputed exactly (to that rounding):

* the per-dataset verdicts with Holm over each method's datasets within a metric (``benchmark_stats.judge``; the
  p-values are the run's), and the power columns ``min_diff`` / ``min_diff_sd``;
* the Wilcoxon signed-rank test of each method against Random's means across the datasets, Holm over the methods
  (``benchmark_stats.across_datasets``);
* per metric, what the test can detect (``benchmark_stats.power_summary``).

What needs a rerun is what the shipped run did not compute: the positive control, Inf-FS on d > 10,000 and Variance
on the sets where it was not run. Writes ``vs_random.csv``, ``vs_random_across.csv`` and ``vs_random.md`` to
``--out`` (never into reference/) and prints per metric the verdict counts of the non-trivial selectors.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from ufskit.papers import benchmark as B
from ufskit.papers import benchmark_stats as S

REPO = Path(__file__).resolve().parents[1]
TRIVIAL = "Variance"  # the trivial baseline beside Random: shown, not counted among the non-trivial selectors


def rejudged(path: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The shipped table at ``path`` judged by this version, and the test across datasets."""
    table = S.rejudge(pd.read_csv(path, keep_default_na=False))
    return table, S.across_datasets(table)


def tally(table: pd.DataFrame, across: pd.DataFrame) -> pd.DataFrame:
    """Per metric: the non-trivial selectors (not Random, not Variance, not a positive control), how many are better
    than Random on a majority of their datasets (Holm over their datasets), and how many across the datasets
    (Wilcoxon, Holm over the methods)."""
    supervised = set(B.controls(table))
    majority = S.majority_better(table)
    rows = []
    for metric in [m for m in S.TESTED_METRICS if m in set(table["metric"])]:
        methods = [m for m in dict.fromkeys(table["method"]) if m != TRIVIAL and m not in supervised]
        part = across[(across["metric"] == metric) & across["method"].isin(methods)]
        rows.append({"metric": metric, "selectors": len(methods),
                     "majority_better": int(sum(majority.get((m, metric), False) for m in methods)),
                     "across_better": int((part["verdict"] == "better").sum()),
                     "across_worse": int((part["verdict"] == "worse").sum())})
    return pd.DataFrame(rows)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", type=Path, default=REPO / "reference/all_selectors/vs_random.csv")
    parser.add_argument("--out", type=Path, default=REPO / "results/rejudged_all_selectors")
    args = parser.parse_args(argv)
    if (REPO / "reference") in args.out.resolve().parents or args.out.resolve() == REPO / "reference":
        parser.error("--out must not be in reference/: the shipped tables stay as the run wrote them.")
    table, across = rejudged(args.table)
    args.out.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out / "vs_random.csv", index=False, float_format="%.6g")
    across.to_csv(args.out / "vs_random_across.csv", index=False, float_format="%.6g")
    (args.out / "vs_random.md").write_text(S.versus_random_markdown(table, heading=f"{B.TITLE} (rejudged)",
                                                                    across=across))
    print(tally(table, across).to_markdown(index=False))
    print(f"\nwritten to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
