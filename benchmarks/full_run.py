"""Run the full reproduction part by part and record what each part cost (not a test).

Each part is one Snakemake invocation restricted to some experiments of the config's ``run`` list
(``--config run=[...]``), so its wall time is that part's alone; a last invocation builds the default
target (whatever the parts left: the scorecard, cross-paper aggregates). Per part it records the
wall time, the number of jobs Snakemake ran and, from the jobs' ``benchmark:`` files written during
the part, the peak RSS of any one job and the slowest rules (summed seconds).

    python benchmarks/full_run.py [--cores 2] [--configfile config/offline.yaml]
                                  [--snakemake-args="--profile profiles/slurm"] [PART ...]

A PART is ``name=exp1,exp2`` or ``default_target`` (default: one part per paper, in the order of
``DEFAULT_PARTS``, then ``default_target``). ``results/full_run.md`` and ``results/full_run.csv`` are
rewritten after every part, keeping the rows of parts measured by earlier invocations, so an
interrupted run is resumed by naming the parts still to do (Snakemake itself resumes the jobs).
Run it from the repository root, with UFS_DATA_MIRROR set when offline.
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
import yaml
from slurm_resources import benchmark_patterns, read_benchmarks

REPO = Path(__file__).resolve().parents[1]
DEFAULT_PARTS = ["kudfs", "ils", "generic", "nrfs_synthetic_microarray", "ivfs", "benchmark", "nrfs_text"]
DONE = re.compile(r"^(\d+) of (\d+) steps \(\d+%\) done", re.MULTILINE)


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


def run_part(label: str, experiments: list[str] | None, args, log_dir: Path) -> dict:
    """One Snakemake invocation; its wall time, jobs run, and the benchmark files it wrote."""
    cmd = snakemake_command(experiments, args)
    log_path = log_dir / f"{label}.log"
    print(f"[{time.strftime('%H:%M:%S')}] {label}: {' '.join(cmd[3:])} (log: {log_path})", flush=True)
    started_wall, t0 = time.time(), time.perf_counter()
    with open(log_path, "w") as log:
        code = subprocess.run(cmd, cwd=REPO, stdout=log, stderr=subprocess.STDOUT, check=False).returncode
    seconds = time.perf_counter() - t0
    text = log_path.read_text()
    steps = DONE.findall(text)
    jobs = int(steps[-1][0]) if steps else 0
    frame, _ = read_benchmarks([REPO], benchmark_patterns(REPO), newer_than=started_wall)
    row = {"part": label, "experiments": " ".join(experiments or ["(default target)"]), "exit_code": code,
           "wall_s": round(seconds, 1), "jobs": jobs,
           "peak_rss_mb": float(frame["max_rss"].max()) if len(frame) else float("nan")}
    if len(frame):
        by_rule = frame.groupby("rule")["s"].sum().sort_values(ascending=False)
        row["slowest_rules"] = ", ".join(f"{r} {s / 60:.0f} min" for r, s in by_rule.head(3).items())
    print(f"[{time.strftime('%H:%M:%S')}] {label}: exit {code}, {seconds / 60:.1f} min, {jobs} jobs", flush=True)
    return row


def snakemake_command(experiments: list[str] | None, args) -> list[str]:
    """The Snakemake call of one part: the `run` list restricted to its experiments (None: the config's)."""
    cmd = [sys.executable, "-m", "snakemake", "--cores", str(args.cores), "--keep-going"]
    for path in args.configfile:
        cmd += ["--configfile", path]
    cmd += shlex.split(args.snakemake_args)
    if experiments is not None:
        cmd += ["--config", f"run=[{','.join(experiments)}]"]
    return cmd


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cores", default="2")
    parser.add_argument("--configfile", action="append", default=[], help="repeatable, e.g. config/offline.yaml")
    parser.add_argument("--snakemake-args", default="",
                        help="more arguments for every Snakemake invocation, e.g. '--profile profiles/slurm'")
    parser.add_argument("parts", nargs="*", help="name=exp1,exp2 or default_target (default: all)")
    args = parser.parse_args(argv)
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    for path in args.configfile:  # overlays may replace `run`
        config.update({k: v for k, v in yaml.safe_load(Path(path).read_text()).items() if k == "run"})
    parts = parse_parts(args.parts, config)
    log_dir = REPO / "logs" / "full_run"
    log_dir.mkdir(parents=True, exist_ok=True)
    code = 0
    for label, exps in parts.items():
        row = run_part(label, exps, args, log_dir)
        table = write_table(row, args.cores)
        code = max(code, abs(int(row["exit_code"])))
    print(table.drop(columns="wall_s").to_string(index=False))
    return int(code)


def parse_parts(specs: list[str], config: dict) -> dict[str, list[str] | None]:
    """PART arguments as {label: experiments}; None is the default target (it runs last by default)."""
    if not specs:
        return {**default_parts(config), "default_target": None}
    parts: dict[str, list[str] | None] = {}
    for spec in specs:
        label, _, experiments = spec.partition("=")
        if label == "default_target" and not experiments:
            parts[label] = None
            continue
        names = [e for e in experiments.split(",") if e]
        unknown = [e for e in names if e not in config["experiments"]]
        if not names or unknown:
            raise SystemExit(f"bad part {spec!r}: give name=exp1,exp2 with experiments of the config"
                             + (f" (unknown: {', '.join(unknown)})" if unknown else ""))
        parts[label] = names
    return parts


def write_table(row: dict, cores: str, out: Path = REPO / "results") -> pd.DataFrame:
    """Merge one part's row into full_run.{csv,md} under ``out`` (replacing an earlier row of that part)."""
    out.mkdir(parents=True, exist_ok=True)
    csv = out / "full_run.csv"
    table = pd.read_csv(csv) if csv.exists() else pd.DataFrame()
    if len(table):
        table = table[~table["part"].isin([row["part"], "total"])]
    table = pd.concat([table, pd.DataFrame([row])], ignore_index=True).drop(columns="wall", errors="ignore")
    total = {"part": "total", "wall_s": table["wall_s"].sum(), "jobs": table["jobs"].sum(),
             "peak_rss_mb": table["peak_rss_mb"].max(), "exit_code": int(table["exit_code"].abs().max())}
    table = pd.concat([table, pd.DataFrame([total])], ignore_index=True)
    table["wall"] = [f"{s // 3600:.0f} h {s % 3600 / 60:.0f} min" if s >= 3600 else f"{s / 60:.1f} min"
                     for s in table["wall_s"]]
    table.to_csv(csv, index=False)
    shown = table.drop(columns="wall_s").fillna("")
    lines = ["| " + " | ".join(shown.columns) + " |", "|" + "---|" * shown.shape[1]]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in shown.itertuples(index=False)]
    (out / "full_run.md").write_text(f"# Full run, part by part ({cores} cores)\n\n" + "\n".join(lines) + "\n")
    return table


if __name__ == "__main__":
    sys.exit(main())
