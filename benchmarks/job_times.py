"""The job time of a run, per rule and per job, from its Snakemake benchmark files and logs (not a test).

    python benchmarks/job_times.py RUN_DIR [RUN_DIR ...] --out reference/all_selectors/job_times.csv
    python benchmarks/job_times.py RUN_DIR --records RUN_DIR/results/job_records.csv [--log FILE ...]

For a run made of several invocations (resumed after a stop, or beside other work), whose wall time says little,
the sum of its jobs' own times does: per kind of job (the folder of ``logs/times/`` its rule's ``benchmark:``
writes to: select, evaluate, batched, ...) the jobs seen and their seconds (wall, one core each as the workflow's
jobs run), and a total row. ``benchmarks/run_docs.py`` states the total beside the all-selector table.

``--records`` writes the run's per-job record (``job_records``): one row per job, with its rule, wildcards, wall
and CPU seconds and peak RSS from its benchmark file, and the jobs of rules without one (tables, figures) with
their wall time from Snakemake's own log (``--log``, default the run's ``.snakemake/log/*.snakemake.log``: the
job's start and "Finished" lines, to the second). ``benchmarks/full_run.py`` writes it after every part from its
parts' logs; ``benchmarks/simulate_scaling.py`` schedules it on N cores; ``ufskit reference`` ships it.
"""

from __future__ import annotations

import argparse
import re
import sys
from datetime import datetime
from pathlib import Path

import pandas as pd
from slurm_resources import REPO, TIMES, benchmark_patterns, read_benchmarks

from ufskit.reference import job_times_table

# a job's block in Snakemake's output (a run's or a dry run's): a time stamp line, "rule NAME:" (or localrule,
# checkpoint), then indented "key: value" lines (input, output, log, jobid, benchmark, wildcards, threads, ...)
STAMP = re.compile(r"^\[(\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4})\]$")
HEAD = re.compile(r"^(?:local)?(?:rule|checkpoint) (\w+):$")
FIELD = re.compile(r"^ {4}(\w+): ?(.*)$")
FINISHED = re.compile(r"^Finished job(?:id:)? (\d+)")  # Snakemake 9: "Finished jobid: 12 (Rule: x)"; 7: "Finished job 12."
RECORD_COLUMNS = ["rule", "wildcards", "part", "source", "wall_seconds", "cpu_seconds", "max_rss_mb", "benchmark",
                  "finished"]


def job_times(runs: list[Path]) -> pd.DataFrame:
    """Per kind of job: jobs and job-seconds, the slowest first, then a total row."""
    rows = [{"benchmark": path.relative_to(run).as_posix(), "wall_seconds": s}
            for run in runs for path in sorted((run / TIMES).rglob("*.tsv"))
            for s in pd.read_csv(path, sep="\t", na_values=["-", "NA"])["s"]]
    if not rows:
        raise ValueError(f"no benchmark file under {[str(r / TIMES) for r in runs]}")
    return job_times_table(pd.DataFrame(rows))


def _stamp(text: str) -> datetime:
    return datetime.strptime(text, "%a %b %d %H:%M:%S %Y")


def parse_jobs(text: str) -> list[dict]:
    """The jobs of Snakemake's output (a run's log or a dry run's plan), in the order printed: per job its jobid,
    rule, input and output (lists of paths), wildcards (as printed: "name=value, ..."), benchmark path ("" for
    none), threads, and from the time stamps its start and, when a "Finished" line follows, its end (None)."""
    jobs: dict[int, dict] = {}
    order: list[int] = []
    stamp: datetime | None = None
    current: dict | None = None
    for line in text.splitlines():
        if m := STAMP.match(line):
            stamp, current = _stamp(m.group(1)), None
        elif m := HEAD.match(line):
            current = {"rule": m.group(1), "input": [], "output": [], "wildcards": "", "benchmark": "", "threads": 1,
                       "start": stamp, "end": None}
        elif current is not None and (m := FIELD.match(line)):
            key, value = m.groups()
            if key in ("input", "output"):
                current[key] = [v for v in value.split(", ") if v]
            elif key in ("wildcards", "benchmark"):
                current[key] = value
            elif key == "threads":
                current["threads"] = int(value)
            elif key == "jobid":
                current["jobid"] = int(value)
                if current["jobid"] not in jobs:
                    order.append(current["jobid"])
                jobs[current["jobid"]] = current  # a job printed again (a retry): its latest start
        elif m := FINISHED.match(line):
            current = None
            if int(m.group(1)) in jobs:
                jobs[int(m.group(1))]["end"] = stamp
        elif line and not line.startswith(" "):
            current = None
    return [jobs[i] for i in order]


def job_key(rule: str, wildcards: str, benchmark: str = "") -> str:
    """What names one job across invocations and plans: its benchmark path, else its rule and wildcards."""
    return benchmark or f"{rule}[{wildcards}]"


def job_records(run_dir: Path, logs: list[tuple[str, Path]], repo: Path = REPO) -> pd.DataFrame:
    """The per-job record of a run: one row per job (``RECORD_COLUMNS``).

    A job with a benchmark file (``logs/times/``) has its wall and CPU seconds and peak RSS (MB) from it (the mean
    over its rows when it has several); a job of a rule without one, found finished in a Snakemake log, its wall
    seconds from the log's time stamps (to the second). ``logs``: (part, log file) in the order they ran; ``part``
    of a job is the last one that ran it ("" for a benchmark file no log names: a job run outside them).
    ``source`` says where the seconds come from (``benchmark`` or ``log``); ``finished``: when it ended.
    """
    ran: dict[str, dict] = {}
    for part, log in logs:
        for job in parse_jobs(Path(log).read_text(errors="replace")):
            if job["end"] is not None and job["start"] is not None:
                ran[job_key(job["rule"], job["wildcards"], job["benchmark"])] = {**job, "part": part}
    frame, _ = read_benchmarks([Path(run_dir)], benchmark_patterns(repo))
    rows = []
    if len(frame):
        files = frame.groupby("path", sort=True).agg(rule=("rule", "first"), wildcards=("wildcards", "first"),
                                                     wall=("s", "mean"), cpu=("cpu_time", "mean"),
                                                     rss=("max_rss", "mean"), mtime=("mtime", "first"))
        for path, f in files.iterrows():
            job = ran.pop(path, None)  # the log names the rule of a file whose path several rules' patterns match
            rows.append({"rule": job["rule"] if job else f["rule"], "wildcards": job["wildcards"] if job else f["wildcards"],
                         "part": job["part"] if job else "", "source": "benchmark", "wall_seconds": f["wall"],
                         "cpu_seconds": f["cpu"], "max_rss_mb": f["rss"], "benchmark": path,
                         "finished": datetime.fromtimestamp(f["mtime"]).isoformat(timespec="seconds")})
    for job in ran.values():  # rules without a benchmark file (or a file since removed)
        rows.append({"rule": job["rule"], "wildcards": job["wildcards"], "part": job["part"], "source": "log",
                     "wall_seconds": (job["end"] - job["start"]).total_seconds(), "cpu_seconds": float("nan"),
                     "max_rss_mb": float("nan"), "benchmark": "", "finished": job["end"].isoformat(timespec="seconds")})
    return pd.DataFrame(rows, columns=RECORD_COLUMNS).round({"wall_seconds": 2, "cpu_seconds": 2, "max_rss_mb": 1})


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="run directories holding logs/times/")
    parser.add_argument("--out", type=Path, help="the CSV of times per kind of job to write")
    parser.add_argument("--records", type=Path, help="the per-job record to write (one run directory)")
    parser.add_argument("--log", type=Path, action="append", default=[],
                        help="a Snakemake log of the run, in the order they ran (repeatable; default: the run's "
                             ".snakemake/log/*.snakemake.log)")
    args = parser.parse_args(argv)
    if not args.out and not args.records:
        parser.error("give --out, --records or both")
    if args.out:
        table = job_times(args.runs)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(args.out, index=False)
        print(table.to_string(index=False))
    if args.records:
        if len(args.runs) != 1:
            parser.error("--records reads one run directory")
        logs = args.log or sorted((args.runs[0] / ".snakemake" / "log").glob("*.snakemake.log"))
        records = job_records(args.runs[0], [(Path(log).name, Path(log)) for log in logs])
        args.records.parent.mkdir(parents=True, exist_ok=True)
        records.to_csv(args.records, index=False)
        print(f"{args.records}: {len(records)} jobs ({(records['source'] == 'benchmark').sum()} with a benchmark file)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
