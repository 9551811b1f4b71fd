"""What the Random method (the curve figures' band of random features) costs, measured in a finished run.

Sums the wall-clock seconds of the selection and evaluation jobs recorded in ``logs/times/`` (the
``select``/``evaluate`` rules, the ``batched`` jobs of methods marked ``batch: true`` and the IVFS
paper's ``ivfs/select``/``ivfs/evaluate``), per experiment, for the methods whose selector is Random and for all methods, and prints Random's
share of the jobs and of the job-seconds:

    python benchmarks/random_cost.py --configfile config/quick.yaml [--run-dir .]

Jobs that run every method at once (the ILS paper's ORL cluster studies) are not split by method and
are left out; Random is one more method of each of their repetitions.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd
from slurm_resources import TIMES

from ufskit.papers import reference_labels
from ufskit.protocols import load_config

REPO = Path(__file__).resolve().parents[1]
# folders of logs/times/ (the rules' `benchmark:` files) whose paths are <kind>/<experiment>/<dataset>/<method>[/...].tsv
KINDS = ("select", "evaluate", "batched", "ivfs/select", "ivfs/evaluate")


def job_seconds(run_dir: Path) -> pd.DataFrame:
    """One row per selection/evaluation job of the run: kind, experiment, dataset, method, seconds."""
    rows = []
    for kind in KINDS:
        root = run_dir / TIMES / kind
        for path in sorted(root.rglob("*.tsv")) if root.is_dir() else []:
            experiment, dataset, method = path.relative_to(root).with_suffix("").parts[:3]
            seconds = float(pd.read_csv(path, sep="\t")["s"].iloc[0])
            rows.append({"kind": kind, "experiment": experiment, "dataset": dataset, "method": method,
                         "seconds": seconds})
    return pd.DataFrame(rows, columns=["kind", "experiment", "dataset", "method", "seconds"])


def random_share(jobs: pd.DataFrame, experiments: dict) -> pd.DataFrame:
    """Per experiment with a Random method: its jobs and job-seconds beside the experiment's, and the shares."""
    rows = []
    for name, exp in experiments.items():
        labels = reference_labels(exp["methods"])
        mine = jobs[jobs["experiment"] == name]
        if not labels or mine.empty:
            continue
        random = mine[mine["method"].isin(labels)]
        rows.append({"experiment": name, "random_jobs": len(random), "jobs": len(mine),
                     "random_s": random["seconds"].sum(), "all_s": mine["seconds"].sum()})
    table = pd.DataFrame(rows, columns=["experiment", "random_jobs", "jobs", "random_s", "all_s"])
    table["job_share"] = table["random_jobs"] / table["jobs"]
    table["seconds_share"] = table["random_s"] / table["all_s"]
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configfile", action="append", default=[], help="overlays on config/config.yaml")
    parser.add_argument("--run-dir", type=Path, default=Path("."), help="working directory of the run")
    args = parser.parse_args()
    experiments = load_config(REPO, *args.configfile)["experiments"]  # with the papers' protocol files
    table = random_share(job_seconds(args.run_dir), experiments)
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    total = table[["random_jobs", "jobs", "random_s", "all_s"]].sum()
    print(f"all: Random {int(total['random_jobs'])} of {int(total['jobs'])} jobs, "
          f"{total['random_s']:.0f} of {total['all_s']:.0f} job-seconds ({total['random_s'] / total['all_s']:.1%})")


if __name__ == "__main__":
    main()
