"""Run the full reproduction part by part and record what each part and each job cost (not a test).

Each part is one Snakemake invocation restricted to some experiments of the config's ``run`` list
(``--config run=[...]``), so its wall time is that part's alone; a last invocation builds the default
target (whatever the parts left: the scorecard, cross-paper aggregates). Per part it records the wall time, the
job-CPU (the sum of the CPU seconds of the jobs it ran, from their ``benchmark:`` files), the number of jobs
Snakemake ran, the peak RSS of any one job and the slowest rules (summed wall seconds), whether the part was
resumed, and the commit it ran (``git rev-parse HEAD``) and whether the checkout had changes.

    python benchmarks/full_run.py [--cores 2] [--configfile config/offline.yaml] [--workdir DIR]
                                  [--snakemake-args="--profile profiles/slurm"] [PART ...]

A PART is ``name=exp1,exp2`` or ``default_target`` (default: one part per paper, in the order of
``DEFAULT_PARTS``, then ``default_target``). ``results/full_run.md`` and ``results/full_run.csv`` are
rewritten after every part, keeping the rows of parts measured by earlier invocations, so an
interrupted run is resumed by naming the parts still to do (Snakemake itself resumes the jobs).
A part is marked *resumed* when it is named again (an earlier invocation of it left its log) or when jobs of it
were already done before its invocation, other than by an earlier part (a dry run with ``--forceall`` before the
part, not counted in its time, lists its jobs; data jobs, whose outputs are under ``resources/``, aside): its wall
time then covers only what was left.
After every part ``results/job_records.csv`` is rewritten: the run's per-job record (``job_times.job_records``:
rule, wildcards, wall and CPU seconds, peak RSS per job; the jobs of rules without a benchmark file with their
wall time from the parts' logs, ``logs/full_run/<part>-<time>.log``), which ``benchmarks/simulate_scaling.py``
schedules on more cores and ``ufskit reference`` ships.
Run it from the repository root, with UFS_DATA_MIRROR set when offline; ``--workdir`` runs the workflow in
another folder (its ``results/``, ``resources/`` and ``logs/`` there).
"""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
from job_times import job_key, job_records, parse_jobs
from slurm_resources import benchmark_patterns, read_benchmarks

from ufskit.protocols import load_config

REPO = Path(__file__).resolve().parents[1]
DEFAULT_PARTS = ["kudfs", "ils", "generic", "nrfs_synthetic_microarray", "ivfs", "benchmark", "nrfs_text"]
LOG_NAME = re.compile(r"^(?P<part>.+)-\d{8}-\d{6}$")  # logs/full_run/<part>-<YYYYmmdd-HHMMSS>.log
LOCKED = "Directory cannot be locked"  # Snakemake's message when another run (or a killed one) holds the lock
DATA = "resources/"  # where data jobs write (downloads, prepared matrices): a copied resources/ has them done
SHOWN = ["part", "experiments", "exit_code", "wall", "job_cpu", "jobs", "peak_rss_mb", "slowest_rules", "resumed",
         "commit"]  # the columns of full_run.md


def default_parts(config: dict) -> dict[str, list[str]]:
    """Experiments of `run` grouped by paper; NRFS split into its synthetic/microarray and text parts."""
    parts: dict[str, list[str]] = {}
    for name in config["run"]:
        paper = config["experiments"][name]["paper"]
        if paper == "nrfs":
            paper = "nrfs_text" if "text" in name else "nrfs_synthetic_microarray"
        parts.setdefault(paper, []).append(name)
    order = {p: i for i, p in enumerate(DEFAULT_PARTS)}
    return dict(sorted(parts.items(), key=lambda item: order.get(item[0], len(order))))


def git_state(repo: Path = REPO) -> tuple[str, bool | None]:
    """The checkout's commit (``git rev-parse HEAD``; "unknown" without git) and whether ``git status --porcelain``
    lists any change (tracked or untracked, as ``ufskit.results.provenance`` says; None when unknown)."""
    def git(*args):
        try:
            return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True,
                                  timeout=60).stdout
        except (OSError, subprocess.SubprocessError):
            return None

    commit, status = git("rev-parse", "HEAD"), git("status", "--porcelain")
    return (commit.strip() if commit else "unknown"), (None if status is None else bool(status.strip()))


def part_logs(log_dir: Path) -> list[tuple[str, Path]]:
    """(part, log) of every invocation ``log_dir`` holds, the oldest first (by when the log was last written)."""
    logs = sorted(log_dir.glob("*.log"), key=lambda p: (p.stat().st_mtime, p.name))
    return [((m.group("part") if (m := LOG_NAME.match(p.stem)) else p.stem), p) for p in logs]


def plan_keys(plan_text: str) -> set[str]:
    """The jobs of a dry run's plan (``job_times.job_key``) but data jobs (every output under ``resources/``) and
    jobs without outputs (the target rule, run by every invocation)."""
    return {job_key(j["rule"], j["wildcards"], j["benchmark"]) for j in parse_jobs(plan_text)
            if j["output"] and not all(o.startswith(DATA) for o in j["output"])}


def done_before(planned: set[str] | None, ran: set[str], recorded: dict[str, str], label: str) -> int | None:
    """Jobs of a part's plan found done at its start other than by an earlier part: neither run by this
    invocation nor recorded (``recorded``: job -> the part that ran it, "" for a job no part's log names) as run
    by another part (None: no plan)."""
    if planned is None:
        return None
    return sum(1 for key in planned - ran if recorded.get(key, "") in ("", label))


def part_row(label: str, experiments: list[str] | None, code: int, seconds: float, log_text: str,
             benchmarks: pd.DataFrame, *, planned: set[str] | None, recorded: dict[str, str], named_again: bool,
             commit: tuple[str, bool | None]) -> dict:
    """One part's row of full_run.csv from its invocation's log (the jobs it finished) and the run's benchmark
    files (``slurm_resources.read_benchmarks``: those of these jobs give its job-CPU, peak RSS and slowest rules)."""
    finished = [j for j in parse_jobs(log_text) if j["end"] is not None]
    ran = {job_key(j["rule"], j["wildcards"], j["benchmark"]) for j in finished}
    rule_of = {j["benchmark"]: j["rule"] for j in finished if j["benchmark"]}  # the log names each file's rule
    mine = benchmarks[benchmarks["path"].isin(rule_of)]
    mine = mine.assign(rule=mine["path"].map(rule_of))
    before = done_before(planned, ran, recorded, label)
    row = {"part": label, "experiments": " ".join(experiments or ["(default target)"]), "exit_code": code,
           "wall_s": round(seconds, 1), "job_cpu_s": round(float(mine["cpu_time"].sum()), 1), "jobs": len(finished),
           "peak_rss_mb": float(mine["max_rss"].max()) if len(mine) else float("nan"),
           "slowest_rules": "", "resumed": bool(named_again or (before or 0) > 0),
           "done_before": before, "commit": commit[0], "dirty": commit[1]}
    if len(mine):
        by_rule = mine.groupby("rule")["s"].sum().sort_values(ascending=False)
        row["slowest_rules"] = ", ".join(f"{r} {s / 60:.0f} min" for r, s in by_rule.head(3).items())
    return row


def run_part(label: str, experiments: list[str] | None, args, log_dir: Path, records: Path) -> dict:
    """One Snakemake invocation, after a dry run listing its jobs; its row of full_run.csv."""
    workdir = Path(args.workdir)
    earlier = [log for part, log in part_logs(log_dir) if part == label]
    commit = git_state()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    plan = subprocess.run(plan_command(experiments, args), cwd=workdir, capture_output=True, text=True, check=False)
    (log_dir / f"{label}-{stamp}.plan").write_text(plan.stdout + plan.stderr)
    planned = plan_keys(plan.stdout) if plan.returncode == 0 else None
    recorded = {}
    if records.exists():
        table = pd.read_csv(records, keep_default_na=False, dtype=str)
        recorded = {job_key(r.rule, r.wildcards, r.benchmark): r.part for r in table.itertuples()}
    log_path = log_dir / f"{label}-{stamp}.log"
    cmd = snakemake_command(experiments, args)
    print(f"[{time.strftime('%H:%M:%S')}] {label}: {' '.join(cmd[3:])} (log: {log_path})", flush=True)
    t0 = time.perf_counter()
    with open(log_path, "w") as log:
        code = subprocess.run(cmd, cwd=workdir, stdout=log, stderr=subprocess.STDOUT, check=False).returncode
    seconds = time.perf_counter() - t0
    frame, _ = read_benchmarks([workdir], benchmark_patterns(REPO))
    row = part_row(label, experiments, code, seconds, log_path.read_text(errors="replace"), frame, planned=planned,
                   recorded=recorded, named_again=bool(earlier), commit=commit)
    row["cores"] = args.cores
    job_records(workdir, part_logs(log_dir)).to_csv(records, index=False)
    print(f"[{time.strftime('%H:%M:%S')}] {label}: exit {code}, {seconds / 60:.1f} min, {row['jobs']} jobs, "
          f"job-CPU {row['job_cpu_s'] / 60:.1f} min" + (", resumed" if row["resumed"] else ""), flush=True)
    if code and (hint := failure_hint(log_path.read_text(errors="replace"), workdir)):
        print(f"{label}: {hint}", flush=True)
    return row


def failure_hint(log_text: str, workdir: Path) -> str | None:
    """What to do about a part that failed on Snakemake's lock (None for any other failure: its log says why)."""
    if LOCKED not in log_text:
        return None
    return (f"Snakemake found {workdir} locked. If no other Snakemake runs there (a sitting killed mid-part leaves "
            "its lock), unlock it with `snakemake --unlock --cores 1` and the same config files, then name the parts "
            "still to do again.")


def snakemake_command(experiments: list[str] | None, args) -> list[str]:
    """The Snakemake call of one part: the `run` list restricted to its experiments (None: the config's)."""
    cmd = [sys.executable, "-m", "snakemake", "--cores", str(args.cores), "--keep-going"]
    if getattr(args, "workdir", None) is not None and Path(args.workdir).resolve() != REPO:
        cmd += ["--snakefile", str(REPO / "Snakefile")]
    if args.configfile:  # one flag, every file after it: Snakemake keeps only the last of repeated --configfile flags
        cmd += ["--configfile", *args.configfile]
    cmd += shlex.split(args.snakemake_args)
    if experiments is not None:
        cmd += ["--config", f"run=[{','.join(experiments)}]"]
    return cmd


def plan_command(experiments: list[str] | None, args) -> list[str]:
    """The dry run listing every job of a part, done or not (``--forceall``)."""
    cmd = snakemake_command(experiments, args)
    return cmd[:3] + ["--dry-run", "--forceall"] + cmd[3:]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cores", default="2")
    parser.add_argument("--configfile", action="append", default=[], help="repeatable, e.g. config/offline.yaml")
    parser.add_argument("--workdir", type=Path, default=REPO,
                        help="the folder Snakemake runs in (default: the repository's root)")
    parser.add_argument("--snakemake-args", default="",
                        help="more arguments for every Snakemake invocation, e.g. '--profile profiles/slurm'")
    parser.add_argument("parts", nargs="*",
                        help="a default part by name (ivfs, ..., default_target) or name=exp1,exp2 (default: all)")
    args = parser.parse_args(argv)
    args.configfile = [str(Path(p).resolve()) for p in args.configfile]  # Snakemake may run in another folder
    args.workdir = args.workdir.resolve()
    config = load_config(REPO, *args.configfile)  # the papers' protocols/full.yaml included; overlays may replace `run`
    parts = parse_parts(args.parts, config)
    log_dir = args.workdir / "logs" / "full_run"
    log_dir.mkdir(parents=True, exist_ok=True)
    out = args.workdir / "results"
    out.mkdir(parents=True, exist_ok=True)
    code = 0
    for label, exps in parts.items():
        row = run_part(label, exps, args, log_dir, out / "job_records.csv")
        table = write_table(row, args.cores, out)
        code = max(code, abs(int(row["exit_code"])))
    print(table[[c for c in SHOWN if c in table]].to_string(index=False))
    overlays = [c for c in args.configfile if Path(c) != REPO / "config" / "config.yaml"]
    configs = " ".join(f"--config {c}" for c in [str(REPO / "config" / "config.yaml"), *overlays])
    print(f"\nper-job record: {out / 'job_records.csv'}\nhow it scales: python {REPO / 'benchmarks/simulate_scaling.py'} "
          f"{args.workdir}" + "".join(f" --configfile {c}" for c in args.configfile)  # simulate_scaling's own flag
          + f"\nkept as the reference: ufskit reference {out} {configs} (then python benchmarks/run_docs.py)")
    return int(code)


def parse_parts(specs: list[str], config: dict) -> dict[str, list[str] | None]:
    """PART arguments as {label: experiments}; None is the default target (it runs last by default)."""
    defaults = {**default_parts(config), "default_target": None}
    if not specs:
        return defaults
    parts: dict[str, list[str] | None] = {}
    for spec in specs:
        label, eq, experiments = spec.partition("=")
        if not eq and label in defaults:  # a default part by its name alone, e.g. ``ivfs``
            parts[label] = defaults[label]
            continue
        names = [e for e in experiments.split(",") if e]
        unknown = [e for e in names if e not in config["experiments"]]
        if not names or unknown:
            raise SystemExit(f"bad part {spec!r}: give a default part ({', '.join(defaults)}) or name=exp1,exp2 "
                             "with experiments of the config"
                             + (f" (unknown: {', '.join(unknown)})" if unknown else ""))
        parts[label] = names
    return parts


def duration(seconds: float) -> str:
    """``1 h 51 min`` from an hour on, ``33.9 min`` below; "" for an unknown time."""
    if pd.isna(seconds):
        return ""
    return f"{seconds // 3600:.0f} h {seconds % 3600 / 60:.0f} min" if seconds >= 3600 else f"{seconds / 60:.1f} min"


def _commit(commit, dirty) -> str:
    if not isinstance(commit, str) or not commit:
        return ""
    short = commit if commit in ("unknown", "several") else commit[:10]
    return short + (" (with changes)" if dirty is True or str(dirty) == "True" else "")


def write_table(row: dict, cores: str, out: Path = REPO / "results") -> pd.DataFrame:
    """Merge one part's row into full_run.{csv,md} under ``out`` (replacing an earlier row of that part).

    The total row sums the wall times, job-CPU and jobs, takes the largest peak RSS and exit code, is resumed when
    a part is, and names the commit when every part ran the same one ("several" otherwise)."""
    out.mkdir(parents=True, exist_ok=True)
    csv = out / "full_run.csv"
    table = pd.read_csv(csv, keep_default_na=False, na_values=[""]) if csv.exists() else pd.DataFrame()
    if len(table):
        table = table[~table["part"].isin([row["part"], "total"])]
    table = pd.concat([table, pd.DataFrame([row])], ignore_index=True).drop(columns=["wall", "job_cpu"],
                                                                               errors="ignore")
    total = {"part": "total", "wall_s": table["wall_s"].sum(), "jobs": table["jobs"].sum(),
             "peak_rss_mb": table["peak_rss_mb"].max(), "exit_code": int(table["exit_code"].abs().max())}
    if "job_cpu_s" in table:
        total["job_cpu_s"] = table["job_cpu_s"].sum(min_count=1)
    if "resumed" in table:
        total["resumed"] = bool(table["resumed"].astype(str).eq("True").any())
        total["done_before"] = table["done_before"].sum(min_count=1) if "done_before" in table else float("nan")
    if "commit" in table:
        commits = set(table["commit"].dropna())
        total["commit"] = commits.pop() if len(commits) == 1 else "several"
        total["dirty"] = bool(table["dirty"].astype(str).eq("True").any())
    table = pd.concat([table, pd.DataFrame([total])], ignore_index=True)
    table["wall"] = [duration(s) for s in table["wall_s"]]
    if "job_cpu_s" in table:
        table["job_cpu"] = [duration(s) for s in table["job_cpu_s"]]
    table.to_csv(csv, index=False)
    shown = table[[c for c in SHOWN if c in table]].copy()
    if "commit" in shown:
        shown["commit"] = [_commit(c, d) for c, d in zip(table["commit"], table["dirty"])]
    shown = shown.astype(object).where(shown.notna(), "")
    lines = ["| " + " | ".join(shown.columns) + " |", "|" + "---|" * shown.shape[1]]
    lines += ["| " + " | ".join(str(v) for v in r) + " |" for r in shown.itertuples(index=False)]
    (out / "full_run.md").write_text(f"# Full run, part by part ({cores} cores)\n\n" + "\n".join(lines) + "\n")
    return table


if __name__ == "__main__":
    sys.exit(main())
