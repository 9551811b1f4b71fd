"""What one workflow job costs before it does any work, and that cost's share of each rule's time.

Measured in this run (not a test):

* start-up: a fresh interpreter importing what the select/evaluate job scripts import
  (``ufskit.runs``, which pulls in scikit-learn, scipy and pandas), the median of ``--repeats``, wall
  and CPU (on a loaded machine the wall time grows, the CPU time does not); a lower bound, as
  Snakemake's `script:` preamble (importing snakemake to unpickle the job's object) comes on top;
* loading: ``load_dataset`` on each prepared matrix of ``--run-dir`` (mean over the files);
* Snakemake: the scheduler's own time per job, from running ``--jobs`` no-op shell jobs.

With ``--per-script``, also each job script's own start-up: a fresh interpreter importing what Snakemake's
`script:` preamble imports (snakemake) and then the script's top-level imports (its import lines, nothing run),
median CPU seconds of ``--repeats``, so that a script importing more than it uses stands out.

Then, from the run's ``logs/times/`` files (Snakemake's ``s`` of a script job includes its start-up),
per rule: jobs, mean seconds per job, and the overhead's share of it, flagging rules above
``--threshold`` (the issue's 20 %), which are the candidates for batching (config ``batch: true``):

    python benchmarks/job_overhead.py --run-dir . [--repeats 5] [--jobs 20] [--threshold 0.2] [--per-script]
"""

from __future__ import annotations

import argparse
import ast
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from slurm_resources import TIMES, benchmark_patterns, read_benchmarks

from ufskit.data import load_dataset

REPO = Path(__file__).resolve().parents[1]
IMPORTS = "import ufskit.runs, ufskit.metrics, ufskit.runlog, ufskit.selection_io"
PREAMBLE = "import snakemake.script"  # what a `script:` job imports before the script's first line


def start_up_seconds(repeats: int, imports: str = IMPORTS) -> tuple[float, float]:
    """Median wall and CPU time of a fresh interpreter running ``imports`` (CPU: robust to load)."""
    walls, cpus = [], []
    for _ in range(repeats):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", imports], check=True)
        walls.append(time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def import_lines(script: Path) -> str:
    """The top-level import statements of a script, as source (``__future__`` ones left out)."""
    tree = ast.parse(script.read_text())
    nodes = [n for n in tree.body if isinstance(n, ast.Import)
             or isinstance(n, ast.ImportFrom) and n.module != "__future__"]
    return "\n".join(ast.unparse(n) for n in nodes)


def script_start_ups(repeats: int) -> dict[str, float]:
    """Job script -> median CPU seconds of the preamble and its import lines in a fresh interpreter."""
    return {path.name: start_up_seconds(repeats, f"{PREAMBLE}\n{import_lines(path)}")[1]
            for path in sorted((REPO / "scripts").glob("*.py"))}


def loading_seconds(run_dir: Path) -> tuple[float, int]:
    """Mean time to load one prepared matrix of the run, and how many were timed."""
    files = sorted((run_dir / "resources" / "prepared").glob("*/*.npz"))
    times = []
    for path in files:
        t0 = time.perf_counter()
        load_dataset(path)
        times.append(time.perf_counter() - t0)
    return (statistics.fmean(times) if times else 0.0), len(times)


def scheduler_seconds(jobs: int) -> float:
    """Snakemake's wall time per job for ``jobs`` no-op shell jobs on one core (its start-up excluded)."""
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "Snakefile").write_text(textwrap.dedent(f"""
            rule all:
                input: expand("out/{{i}}.txt", i=range({jobs}))
            rule noop:
                output: "out/{{i}}.txt"
                shell: "touch {{output}}"
            """))
        cmd = [sys.executable, "-m", "snakemake", "--cores", "1", "--quiet", "all"]
        t0 = time.perf_counter()
        subprocess.run([*cmd, "-n"], cwd=tmp, check=True, capture_output=True)
        dry = time.perf_counter() - t0
        t0 = time.perf_counter()
        subprocess.run(cmd, cwd=tmp, check=True, capture_output=True)
        return max(0.0, time.perf_counter() - t0 - dry) / jobs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run-dir", type=Path, default=REPO)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=20)
    parser.add_argument("--threshold", type=float, default=0.2)
    parser.add_argument("--per-script", action="store_true", help="also time each job script's imports")
    args = parser.parse_args()
    if args.per_script:
        seconds = script_start_ups(args.repeats)
        preamble = start_up_seconds(args.repeats, PREAMBLE)[1]
        print(f"per script: CPU s of `{PREAMBLE}` ({preamble:.2f} s alone) + the script's import lines")
        for name, cpu in sorted(seconds.items(), key=lambda item: -item[1]):
            print(f"  {name:<32} {cpu:5.2f}")
        print(f"  {'mean':<32} {statistics.fmean(seconds.values()):5.2f}")
    start, start_cpu = start_up_seconds(args.repeats)
    load, n_loaded = loading_seconds(args.run_dir)
    sched = scheduler_seconds(args.jobs)
    overhead = start + load + sched
    print(f"per job: start-up {start:.2f} s (CPU {start_cpu:.2f} s) + loading {load:.3f} s (mean of {n_loaded} "
          f"prepared matrices) + scheduler {sched:.2f} s = {overhead:.2f} s wall")
    frame, _ = read_benchmarks([args.run_dir], benchmark_patterns(REPO))
    if frame.empty:
        print(f"no benchmark files under {args.run_dir / TIMES}")
        return
    stats = frame.groupby("rule")["s"].agg(jobs="size", mean_s="mean", total_s="sum")
    stats["overhead_share"] = (overhead / (stats["mean_s"] + sched)).clip(upper=1.0)
    stats["batch?"] = ["yes" if s > args.threshold else "" for s in stats["overhead_share"]]
    stats = stats.sort_values("total_s", ascending=False)
    print(stats.to_string(float_format=lambda v: f"{v:.2f}"))
    flagged = stats[stats["batch?"] == "yes"]
    print(f"rules above {args.threshold:.0%} overhead: {len(flagged)} ({int(flagged['jobs'].sum())} jobs, "
          f"{flagged['total_s'].sum() / 60:.1f} job-minutes of {stats['total_s'].sum() / 60:.1f})")


if __name__ == "__main__":
    main()
