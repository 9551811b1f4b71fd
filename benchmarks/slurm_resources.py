"""Per-rule time and memory observed in a run's Snakemake benchmark files, and the SLURM
runtime/mem_mb that profiles/slurm/config.yaml should request for them.

Each ``logs/times/**.tsv`` file (``TIMES``) is attributed to the rule whose ``benchmark:`` pattern it matches
(patterns are read from the workflow's rule files, so the mapping follows the workflow). For every
rule the script prints the number of jobs seen, the largest wall-clock seconds and peak RSS (MB), and
a suggestion: ``factor`` x the maximum, rounded up to whole minutes / multiples of ``--mem-step`` MB
and never below the floors (SLURM's scheduling granularity makes smaller requests pointless).

    python benchmarks/slurm_resources.py RUN_DIR [RUN_DIR ...] [--factor 2] [--yaml]

RUN_DIR is a working directory of a finished run (the folder holding ``logs/times/``); several
runs are pooled. ``--yaml`` prints the suggestion as a ``set-resources`` block for the profile.
Rules without a ``benchmark:`` directive are light (tables, figures, claims) and keep the
profile's default resources.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from itertools import pairwise
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
TIMES = Path("logs/times")  # where the rules' `benchmark:` directives write, under the run directory
RULE = re.compile(r"^rule (\w+):", re.MULTILINE)
BENCHMARK = re.compile(r"^\s+benchmark:\s*\n\s+[rf]?\"([^\"]+)\"", re.MULTILINE)
WILDCARD = re.compile(r"\{(\w+)(?:,[^}]*)?\}")
# as the workflow constrains them: a reading's derived experiment (common.smk) and its NRFS report folder
# (nrfs.smk's NRFS_FOLDERS) are readings/<name>/<exp>
READING = r"(?:readings/[^/]+/)?[^/]+"
WILDCARD_REGEX = {"experiment": READING, "folder": READING}


def workflow_rules(repo: Path) -> dict[str, str | None]:
    """{rule: its benchmark path pattern, or None}, read from the Snakefile and the rule files (the papers' in their
    folders, src/ufskit/papers/<name>/)."""
    rules = {}
    for path in [repo / "Snakefile", *sorted((repo / "workflow" / "rules").glob("*.smk")),
                 *sorted((repo / "src" / "ufskit" / "papers").glob("*/*.smk"))]:
        text = path.read_text()
        starts = [(m.start(), m.group(1)) for m in RULE.finditer(text)] + [(len(text), None)]
        for (start, name), (end, _) in pairwise(starts):
            found = BENCHMARK.search(text, start, end)
            rules[name] = found.group(1) if found else None
    return rules


def benchmark_patterns(repo: Path) -> dict[str, re.Pattern]:
    """{rule: regex of its benchmark path relative to the run directory} for benchmarked rules; each wildcard is a
    named group (``pattern.match(path).groupdict()``: the job's wildcards)."""
    patterns = {}
    for name, pattern in workflow_rules(repo).items():
        if pattern:
            parts = WILDCARD.split(pattern)  # literals at even places, wildcard names at odd ones
            seen: set[str] = set()
            regex = ""
            for i, part in enumerate(parts):
                if i % 2 == 0:
                    regex += re.escape(part)
                elif part in seen:  # a wildcard named twice in the path: the same value
                    regex += f"(?P={part})"
                else:
                    seen.add(part)
                    regex += f"(?P<{part}>{WILDCARD_REGEX.get(part, '[^/]+')})"
            patterns[name] = re.compile(regex + "$")
    return patterns


BENCHMARK_COLUMNS = ["rule", "s", "cpu_time", "max_rss", "path", "wildcards", "mtime"]


def read_benchmarks(run_dirs: list[Path], patterns: dict[str, re.Pattern],
                    newer_than: float | None = None) -> tuple[pd.DataFrame, list[str]]:
    """One row per benchmark file and repeat: rule, s (wall seconds), cpu_time (CPU seconds, NaN in a file without
    the column), max_rss (MB), path (relative to its run directory), wildcards ("name=value, ...", in the order of
    the benchmark path) and mtime (when the file was written: the job's end); also the paths that match no rule.
    A file that matches several rules' patterns (rules sharing one,
    told apart by wildcard constraints that depend on the config: ``run_batched_method`` and
    ``nrfs_synthetic_batch``) is kept under their names joined by "|" (``split_rules``). ``newer_than`` (a POSIX
    time) keeps only files written since then."""
    rows, unmatched = [], []
    for run in run_dirs:
        for path in sorted((run / TIMES).rglob("*.tsv")):
            mtime = path.stat().st_mtime
            if newer_than is not None and mtime < newer_than:
                continue
            rel = path.relative_to(run).as_posix()
            matches = {name: m for name, pattern in patterns.items() if (m := pattern.match(rel))}
            if not matches:
                unmatched.append(rel)
                continue
            rule, match = "|".join(sorted(matches)), next(iter(matches.values()))
            wildcards = ", ".join(f"{k}={v}" for k, v in match.groupdict().items())
            table = pd.read_csv(path, sep="\t", na_values=["-", "NA"])
            cpu = table["cpu_time"] if "cpu_time" in table else [float("nan")] * len(table)
            for s, c, rss in zip(table["s"], cpu, table["max_rss"]):
                rows.append({"rule": rule, "s": s, "cpu_time": c, "max_rss": rss, "path": rel, "wildcards": wildcards,
                             "mtime": mtime})
    return pd.DataFrame(rows, columns=BENCHMARK_COLUMNS), unmatched


def split_rules(rule: str) -> list[str]:
    """The rules a row of ``read_benchmarks`` may belong to ("a|b": a file that matches both patterns)."""
    return rule.split("|")


def suggest(frame: pd.DataFrame, factor: float, mem_step: int, min_mem: int, min_minutes: int) -> pd.DataFrame:
    """Per rule: jobs, max seconds, max RSS (MB) and the suggested runtime (min) and mem_mb."""
    stats = frame.groupby("rule").agg(jobs=("s", "size"), max_s=("s", "max"), max_rss_mb=("max_rss", "max"))
    stats["runtime"] = [max(min_minutes, math.ceil(factor * s / 60)) for s in stats["max_s"]]
    stats["mem_mb"] = [
        max(min_mem, mem_step * math.ceil(factor * (0 if math.isnan(m) else m) / mem_step))
        for m in stats["max_rss_mb"]
    ]
    return stats


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help=f"run directories holding {TIMES}/")
    parser.add_argument("--factor", type=float, default=2.0, help="headroom over the maximum observed")
    parser.add_argument("--mem-step", type=int, default=500, help="round mem_mb up to a multiple of this")
    parser.add_argument("--min-mem", type=int, default=1000, help="smallest mem_mb suggested")
    parser.add_argument("--min-minutes", type=int, default=10, help="smallest runtime (minutes) suggested")
    parser.add_argument("--yaml", action="store_true", help="print a set-resources block")
    args = parser.parse_args(argv)
    missing = [str(run) for run in args.runs if not (run / TIMES).is_dir()]
    if missing:
        parser.error(f"no {TIMES}/ folder in: {', '.join(missing)}")

    frame, unmatched = read_benchmarks(args.runs, benchmark_patterns(REPO))
    if frame.empty:
        parser.error("no benchmark file matches a rule of this workflow")
    stats = suggest(frame, args.factor, args.mem_step, args.min_mem, args.min_minutes)
    if args.yaml:
        print("set-resources:")
        for row in stats.itertuples():
            for rule in split_rules(row.Index):  # rules sharing a benchmark pattern get what their jobs needed
                print(f"  {rule}:\n    runtime: {row.runtime}\n    mem_mb: {row.mem_mb}")
    else:
        print(stats.to_string(float_format=lambda v: f"{v:.1f}"))
    if unmatched:
        print(f"\n{len(unmatched)} benchmark files match no rule of this workflow, e.g. {unmatched[0]}",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
