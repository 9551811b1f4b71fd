"""Time `snakemake -n` of the default target: how long a user waits before the first job starts.

Runs the dry run ``--runs`` times (in a scratch working directory, so no results are found and the whole DAG is
built) and prints the median wall time and CPU time (user + sys, less sensitive to other load on the machine),
for two targets: the default one, and ``results/excluded_datasets.md``, whose DAG is one job, so that its time is
that of start-up and parsing (imports, config checks); and ``snakemake --version``, Snakemake's own start-up, the
floor of both. With ``--baseline REV`` the same is timed for the git revision REV (exported to a scratch folder),
for before/after numbers.

    python benchmarks/dry_run.py --runs 5 --baseline main
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PARSE_ONLY = "results/excluded_datasets.md"


def time_dry_run(tree: Path, configfiles: list[str], target: str | None, workdir: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one ``snakemake -n`` of ``target`` (None: the default) of the tree's Snakefile."""
    cmd = [sys.executable, "-m", "snakemake", *([target] if target else []), "--snakefile", str(tree / "Snakefile"),
           "-n", "--quiet", "--configfile", *[str(tree / c) for c in configfiles]]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree / "src"), os.environ.get("PYTHONPATH", "")])}
    return time_command(cmd, workdir, env)


def time_command(cmd: list[str], workdir: Path, env: dict | None = None) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of running ``cmd`` in ``workdir``; a failure stops the benchmark with its error."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stderr[-3000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(tree: Path, configfiles: list[str], runs: int) -> dict[str, tuple[float, float]]:
    """Target label -> (median wall, median CPU) over ``runs`` dry runs, the targets interleaved."""
    times = {"default target": [], "start-up only": []}
    with tempfile.TemporaryDirectory(prefix="dry_run_") as scratch:
        for _ in range(runs):
            for label, target in (("default target", None), ("start-up only", PARSE_ONLY)):
                times[label].append(time_dry_run(tree, configfiles, target, Path(scratch)))
    return {label: tuple(statistics.median(t[i] for t in ts) for i in (0, 1)) for label, ts in times.items()}


def export(rev: str, folder: Path) -> Path:
    """The files of git revision ``rev`` of this repository, written under ``folder``."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="dry runs per target (default 5); medians are printed")
    parser.add_argument("--configfile", nargs="+", default=["config/offline.yaml"],
                        help="config overlays, relative to the repository (default config/offline.yaml)")
    parser.add_argument("--baseline", metavar="REV", help="also time this git revision (e.g. main), for comparison")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error(f"--runs must be >= 1, got {args.runs}")
    trees = {"this checkout": ROOT}
    with tempfile.TemporaryDirectory(prefix="dry_run_base_") as base:
        if args.baseline:
            trees = {f"baseline {args.baseline}": export(args.baseline, Path(base)), **trees}
        print(f"snakemake -n --configfile {' '.join(args.configfile)}: median of {args.runs} runs "
              f"(load average {os.getloadavg()[0]:.1f} at the start)")
        print(f"{'tree':<24} {'target':<16} {'wall s':>7} {'CPU s':>7}")
        floor = [time_command([sys.executable, "-m", "snakemake", "--version"], ROOT) for _ in range(args.runs)]
        print(f"{'snakemake alone':<24} {'--version':<16} {statistics.median(t[0] for t in floor):7.2f} "
              f"{statistics.median(t[1] for t in floor):7.2f}")
        for name, tree in trees.items():
            for label, (wall, cpu) in measure(tree, args.configfile, args.runs).items():
                print(f"{name:<24} {label:<16} {wall:7.2f} {cpu:7.2f}")


if __name__ == "__main__":
    main()
