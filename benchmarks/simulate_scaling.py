"""How a finished run would scale with cores: its recorded jobs scheduled on N cores, by simulation (not a test).

    python benchmarks/simulate_scaling.py RUN_DIR [--configfile config/offline.yaml ...] [--plan PLAN]
                                          [--records RUN_DIR/results/job_records.csv] [--cores 2 8 32 128]

The DAG is Snakemake's own plan of the run, every job done or not: ``snakemake --dry-run --forceall`` with the
run's config files, run in RUN_DIR (or a saved plan: ``--plan``, e.g. ``logs/full_run/default_target-*.plan``,
which ``benchmarks/full_run.py`` writes before its last part); a job depends on the jobs whose outputs are its
inputs. Each job lasts the wall seconds of its row in the per-job record (``results/job_records.csv``, written by
``benchmarks/full_run.py`` or ``benchmarks/job_times.py --records``: a benchmark file's, or the run's log's for
rules without one); a job the record lacks lasts, if it is a shard cut by repetition (``<shard>_reps<a>-<b>``)
after the record was made, its share of its whole shard's seconds, else the mean of its rule's recorded jobs, else
``--unrecorded-seconds``; ``--seconds cpu`` takes the CPU seconds of the jobs whose benchmark files have them
instead (for a record made on a loaded machine, where a job's wall time includes its wait for a core).

The jobs are list-scheduled in the DAG's order: a topological order of the plan, taking among the jobs whose
inputs are done the one printed first; whenever a core is free the first ready job that fits starts (its threads
from the plan, 1 unless the rule declares more, at most N). Printed: the predicted wall time on each N (with
the speed-up over one core, and the bound no N can beat: the critical path), the measured wall time of the run
beside the prediction for its own cores when ``results/full_run.csv`` has it (that of one part for a part's
saved plan, ``logs/full_run/<part>-<time>.plan``), and the critical path: the longest
chain of jobs, with their rules and seconds. What it leaves out: Snakemake's own time (building the DAG, its
scheduling of each job), the barriers between the parts of a run made part by part, resources other than cores
(two downloads at a time) and the slowdown of jobs sharing memory bandwidth; so it is a lower bound, closest on
few cores.
"""

from __future__ import annotations

import argparse
import heapq
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pandas as pd
from job_times import job_key, parse_jobs

REPO = Path(__file__).resolve().parents[1]
CORES = (2, 8, 32, 128)
DEFAULT_TARGET = "default_target"  # full_run.py's last part: no --config run=, every job of the run
PART_PLAN = re.compile(r"^(?P<part>.+)-\d{8}-\d{6}\.plan$")  # a part's plan, saved by benchmarks/full_run.py
REPS_CUT = re.compile(r"^(.*)_reps(\d+)-(\d+)(\.tsv)$")  # the benchmark file of a shard cut by repetition
UNRECORDED_SECONDS = 3.0  # a light job (a table, a figure): Python's start-up with pandas or matplotlib and little more


def plan_text(run_dir: Path, configfiles: list[str], snakemake_args: list[str]) -> str:
    """Snakemake's plan of every job of the run in ``run_dir`` (a dry run with ``--forceall``)."""
    cmd = [sys.executable, "-m", "snakemake", "--dry-run", "--forceall", "--cores", "1024",
           "--snakefile", str(REPO / "Snakefile")]
    if configfiles:  # one flag, every file after it: Snakemake keeps only the last of repeated --configfile flags
        cmd += ["--configfile", *(str(Path(path).resolve()) for path in configfiles)]
    proc = subprocess.run(cmd + snakemake_args, cwd=run_dir, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"the dry run failed ({' '.join(cmd)}):\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")
    return proc.stdout


def dag(jobs: list[dict]) -> list[set[int]]:
    """Per job (by its place in ``jobs``) the jobs it depends on: those whose outputs are its inputs."""
    made_by = {path: i for i, job in enumerate(jobs) for path in job["output"]}
    return [{made_by[path] for path in job["input"] if path in made_by and made_by[path] != i}
            for i, job in enumerate(jobs)]


def topological_order(deps: list[set[int]]) -> list[int]:
    """The jobs in an order where each follows what it depends on, taking the first printed among the ready ones."""
    waiting = [len(d) for d in deps]
    children: list[list[int]] = [[] for _ in deps]
    for i, d in enumerate(deps):
        for j in d:
            children[j].append(i)
    ready = [i for i, w in enumerate(waiting) if w == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        i = heapq.heappop(ready)
        order.append(i)
        for c in children[i]:
            waiting[c] -= 1
            if waiting[c] == 0:
                heapq.heappush(ready, c)
    if len(order) != len(deps):
        raise ValueError("the plan's jobs form a cycle")
    return order


def record_seconds(records: pd.DataFrame, kind: str = "wall") -> pd.Series:
    """Each recorded job's seconds: its wall seconds, or with ``kind`` "cpu" its CPU seconds where its benchmark file
    has them (a job with a log's time only keeps its wall seconds)."""
    wall = records["wall_seconds"].astype(float)
    if kind == "wall":
        return wall
    return records["cpu_seconds"].astype(float).where(records["cpu_seconds"].notna(), wall)


def repetition_shares(keys: list[str]) -> dict[str, tuple[str, float]]:
    """Jobs of a shard cut by repetition (``<shard>_reps<a>-<b>``, ``ufskit.papers.ivfs.batch_shards``) -> the whole
    shard's key and their share of its repetitions (those of the cut shards of one whole in ``keys``)."""
    cut = {key: match for key in keys if (match := REPS_CUT.match(key))}
    whole = {key: m[1] + m[4] for key, m in cut.items()}
    reps = {key: int(m[3]) - int(m[2]) + 1 for key, m in cut.items()}
    total = pd.Series(reps).groupby(pd.Series(whole)).sum().to_dict() if cut else {}
    return {key: (whole[key], reps[key] / total[whole[key]]) for key in cut}


def durations(jobs: list[dict], records: pd.DataFrame, unrecorded: float = UNRECORDED_SECONDS,
              kind: str = "wall") -> tuple[list[float], list[str]]:
    """Per job its seconds (``record_seconds``) and where they come from: "record" (its row of the per-job record),
    "share" (a shard cut by repetition whose whole shard the record has: its share of the whole's seconds, for a
    record made before the cut), "rule mean" (the mean of its rule's recorded jobs) or "assumed" (``unrecorded``
    seconds)."""
    keys = [job_key(r, w, b) for r, w, b in zip(records["rule"], records["wildcards"], records["benchmark"])]
    measured = record_seconds(records, kind)
    seconds = dict(zip(keys, measured))
    rule_mean = measured.groupby(records["rule"]).mean().to_dict()
    job_keys = [job_key(job["rule"], job["wildcards"], job["benchmark"]) for job in jobs]
    shares = repetition_shares(job_keys)
    found = []
    for job, key in zip(jobs, job_keys):
        whole, share = shares.get(key, (None, 0.0))
        if key in seconds and pd.notna(seconds[key]):
            found.append((seconds[key], "record"))
        elif whole in seconds and pd.notna(seconds[whole]):
            found.append((share * seconds[whole], "share"))
        elif pd.notna(rule_mean.get(job["rule"], float("nan"))):
            found.append((float(rule_mean[job["rule"]]), "rule mean"))
        else:
            found.append((unrecorded, "assumed"))
    return [s for s, _ in found], [source for _, source in found]


def makespan(seconds: list[float], deps: list[set[int]], cores: int, threads: list[int] | None = None,
             order: list[int] | None = None) -> float:
    """The wall time of list scheduling on ``cores``: a job is ready when the jobs it depends on are done; whenever
    cores are free, the ready jobs start in ``order`` (default: ``topological_order``) as long as they fit (a job
    takes min(threads, cores) cores; one that does not fit lets the next ones by)."""
    n = len(seconds)
    threads = [min(max(1, t), cores) for t in (threads or [1] * n)]
    rank = {job: k for k, job in enumerate(order or topological_order(deps))}
    waiting = [len(d) for d in deps]
    children: list[list[int]] = [[] for _ in range(n)]
    for i, d in enumerate(deps):
        for j in d:
            children[j].append(i)
    ready = [(rank[i], i) for i in range(n) if waiting[i] == 0]
    heapq.heapify(ready)
    running: list[tuple[float, int]] = []
    free, now, done = cores, 0.0, 0
    while done < n:
        held = []
        while ready and free > 0:
            item = heapq.heappop(ready)
            if threads[item[1]] <= free:
                free -= threads[item[1]]
                heapq.heappush(running, (now + seconds[item[1]], item[1]))
            else:
                held.append(item)
        for item in held:
            heapq.heappush(ready, item)
        now = running[0][0]
        while running and running[0][0] <= now:  # every job ending now frees its cores before the next start
            _, i = heapq.heappop(running)
            free += threads[i]
            done += 1
            for c in children[i]:
                waiting[c] -= 1
                if waiting[c] == 0:
                    heapq.heappush(ready, (rank[c], c))
    return now


def critical_path(seconds: list[float], deps: list[set[int]]) -> tuple[float, list[int]]:
    """The longest chain of dependent jobs: its seconds and its jobs, the first one first."""
    finish, before = {}, {}
    for i in topological_order(deps):
        prior = max(deps[i], key=lambda j: finish[j], default=None)
        finish[i] = seconds[i] + (finish[prior] if prior is not None else 0.0)
        before[i] = prior
    if not finish:
        return 0.0, []
    job = max(finish, key=finish.get)
    path = []
    while job is not None:
        path.append(job)
        job = before[job]
    return finish[path[0]], path[::-1]


def _duration(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds // 3600:.0f} h {seconds % 3600 / 60:.0f} min"
    return f"{seconds / 60:.1f} min" if seconds >= 60 else f"{seconds:.1f} s"


def measured(run_dir: Path, part: str = "total") -> tuple[float, int] | None:
    """The measured wall time and cores of the run (its ``results/full_run.csv``'s total row), or of one of its
    parts, when the table has them."""
    path = run_dir / "results" / "full_run.csv"
    if not path.exists():
        return None
    table = pd.read_csv(path).set_index("part")
    if "cores" not in table or part not in table.index:
        return None
    rows = table["cores"].drop("total") if part == "total" else table.loc[[part], "cores"]
    cores = pd.to_numeric(rows, errors="coerce").dropna().unique()
    return (float(table.at[part, "wall_s"]), int(cores[0])) if len(cores) == 1 else None


def plan_part(plan: Path | None) -> str:
    """The part a saved plan belongs to (``logs/full_run/<part>-<YYYYmmdd-HHMMSS>.plan``, as full_run.py names
    them), else "total": the measurement its prediction is set beside. The default target's plan is the whole
    run's (a dry run with --forceall plans every part's jobs), so it is set beside the total too."""
    match = PART_PLAN.match(plan.name) if plan is not None else None
    return match["part"] if match and match["part"] != DEFAULT_TARGET else "total"


def report(jobs: list[dict], records: pd.DataFrame, cores: list[int], unrecorded: float = UNRECORDED_SECONDS,
           run: tuple[float, int] | None = None, kind: str = "wall", part: str = "total") -> str:
    """The text the script prints: the jobs and where their seconds come from, the predicted wall per number of
    cores (and the measured one), the critical path."""
    deps = dag(jobs)
    seconds, sources = durations(jobs, records, unrecorded, kind)
    order = topological_order(deps)
    threads = [job["threads"] for job in jobs]
    total = sum(s * t for s, t in zip(seconds, threads))
    length, path = critical_path(seconds, deps)
    counts = pd.Series(sources).value_counts()
    guessed = sorted({job["rule"] for job, s in zip(jobs, sources) if s != "record"})
    lines = [f"{len(jobs)} jobs, {_duration(total)} of job time ({total:.0f} s, {kind} seconds): "
             f"{counts.get('record', 0)} from the "
             f"record, " + (f"{counts['share']} a share of their whole shard's, " if counts.get("share") else "")
             + f"{counts.get('rule mean', 0)} at their rule's mean, {counts.get('assumed', 0)} assumed at "
             f"{unrecorded:g} s" + (f" (rules: {', '.join(guessed)})" if guessed else ""), "",
             "| cores | predicted wall | speed-up over 1 core | bound: max(job time / cores, critical path) |",
             "|---|---|---|---|"]
    wanted = sorted(set(cores) | ({run[1]} if run else set()))
    predicted = {}
    for n in wanted:
        predicted[n] = makespan(seconds, deps, n, threads, order)
        bound = max(total / n, length)
        lines.append(f"| {n} | {_duration(predicted[n])} ({predicted[n]:.0f} s) | {total / predicted[n]:.1f} | "
                     f"{_duration(bound)} |")
    if run:
        wall, n = run
        which = "" if part == "total" else f", part {part}"
        lines += ["", f"measured (results/full_run.csv{which}): {_duration(wall)} ({wall:.0f} s) on {n} cores; predicted "
                      f"{predicted[n]:.0f} s, {100 * (predicted[n] - wall) / wall:+.1f} %"]
    lines += ["", f"critical path: {_duration(length)} ({length:.0f} s), {len(path)} jobs",
              "| # | rule | wildcards | seconds |", "|---|---|---|---|"]
    lines += [f"| {k} | {jobs[i]['rule']} | {jobs[i]['wildcards']} | {seconds[i]:.1f} |" for k, i in enumerate(path, 1)]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", type=Path, help="the folder the run ran in (its results/ and logs/)")
    parser.add_argument("--configfile", action="append", default=[], help="the run's config files (repeatable)")
    parser.add_argument("--snakemake-args", default="", help="more arguments for the dry run, e.g. \"--config ...\"")
    parser.add_argument("--plan", type=Path, help="a saved dry run (--dry-run --forceall) instead of running one")
    parser.add_argument("--records", type=Path, help="the per-job record (default: RUN_DIR/results/job_records.csv)")
    parser.add_argument("--cores", type=int, nargs="+", default=list(CORES), help="numbers of cores (default: %(default)s)")
    parser.add_argument("--seconds", choices=["wall", "cpu"], default="wall",
                        help="a job's time: its wall seconds, or its CPU seconds where its benchmark file has them "
                        "(a record made on a loaded machine, whose walls waited for the CPU) (default: %(default)s)")
    parser.add_argument("--unrecorded-seconds", type=float, default=UNRECORDED_SECONDS,
                        help="seconds of a job the record lacks whose rule has no recorded job (default: %(default)s)")
    args = parser.parse_args(argv)
    records_path = args.records or args.run_dir / "results" / "job_records.csv"
    if not records_path.exists():
        parser.error(f"no per-job record {records_path}: benchmarks/full_run.py writes it, or "
                     "benchmarks/job_times.py RUN_DIR --records FILE")
    records = pd.read_csv(records_path, keep_default_na=False, na_values=[""])
    records[["wildcards", "benchmark"]] = records[["wildcards", "benchmark"]].fillna("")
    text = args.plan.read_text() if args.plan else plan_text(args.run_dir, args.configfile,
                                                             shlex.split(args.snakemake_args))
    jobs = parse_jobs(text)
    if not jobs:
        parser.error("the plan lists no job")
    part = plan_part(args.plan)
    print(report(jobs, records, args.cores, args.unrecorded_seconds, measured(args.run_dir, part), args.seconds, part))
    return 0


if __name__ == "__main__":
    sys.exit(main())
