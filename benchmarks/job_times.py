"""The job time of a run, per rule, from its Snakemake benchmark files (not a test).

    python benchmarks/job_times.py RUN_DIR [RUN_DIR ...] --out reference/all_selectors/job_times.csv

For a run made of several invocations (resumed after a stop, or beside other work), whose wall time says little,
the sum of its jobs' own times does: per kind of job (the folder of ``logs/times/`` its rule's ``benchmark:``
writes to: select, evaluate, batched, ...) the jobs seen and their seconds (wall, one core each as the workflow's
jobs run), and a total row. ``benchmarks/run_docs.py`` states the total beside the all-selector table.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd
from slurm_resources import TIMES


def job_times(runs: list[Path]) -> pd.DataFrame:
    """Per kind of job: jobs and job-seconds, the slowest first, then a total row."""
    rows = [{"kind": path.relative_to(run / TIMES).parts[0], "s": s}
            for run in runs for path in sorted((run / TIMES).rglob("*.tsv"))
            for s in pd.read_csv(path, sep="\t", na_values=["-", "NA"])["s"]]
    if not rows:
        raise ValueError(f"no benchmark file under {[str(r / TIMES) for r in runs]}")
    table = pd.DataFrame(rows).groupby("kind").agg(jobs=("s", "size"), job_seconds=("s", "sum")).reset_index()
    table = table.sort_values("job_seconds", ascending=False)
    total = pd.DataFrame([{"kind": "total", "jobs": table["jobs"].sum(), "job_seconds": table["job_seconds"].sum()}])
    return pd.concat([table, total], ignore_index=True).round({"job_seconds": 1})


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="run directories holding logs/times/")
    parser.add_argument("--out", type=Path, required=True, help="the CSV to write")
    args = parser.parse_args(argv)
    table = job_times(args.runs)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out, index=False)
    print(table.to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
