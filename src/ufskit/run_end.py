"""What a run says at its end (called from workflow/rules/common.smk): the failed jobs' own messages, and the
plan of a dry run with an estimate of its time.

Snakemake ends a failed run with "At least one job did not complete successfully", the jobs' errors far above
in the middle of tracebacks; ``failure_summary`` repeats, one line per failed job, its rule, dataset, the last
line of its log (the error) and the log's path. A dry run lists every job (thousands of lines); ``plan_summary``
closes it with the jobs per rule and an estimate from the job times measured on the reference machine.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

# mean seconds of one job of a rule on the 2-core reference machine, from the full run of 2026-11-25
# (docs/performance.md: the IVFS part's 192 ivfs_select jobs of 45 s and 192 ivfs_evaluate jobs of 22 s)
JOB_SECONDS = {"ivfs_select": 45.0, "ivfs_evaluate": 22.0}
# any other job: the cross-paper benchmark part, 727 jobs in 33.9 min on 2 cores (start-up included)
TYPICAL_JOB_SECONDS = 5.6
REFERENCE_CORES = 2


def last_line(path) -> str:
    """The last non-blank line of a job's log (its error, for a Python job), or why there is none."""
    try:
        lines = [line.strip() for line in Path(path).read_text(errors="replace").splitlines() if line.strip()]
    except OSError as e:
        return f"(log not readable: {e.strerror})"
    return lines[-1] if lines else "(empty log)"


def failure_summary(jobs, workdir=".") -> str:
    """One line per failed job: rule, dataset, the error (its log's last line) and the log path ("" when none
    failed). ``jobs``: per failed job a mapping with its ``rule``, ``dataset`` (or None) and ``log`` (or None)."""
    if not jobs:
        return ""
    lines = [f"{len(jobs)} job(s) failed; each one's error (the last line of its log):"]
    for job in sorted(jobs, key=lambda j: (j["rule"], j["dataset"] or "", j["log"] or "")):
        where = f", dataset {job['dataset']}" if job["dataset"] else ""
        error = last_line(Path(workdir) / job["log"]) if job["log"] else "(no log file)"
        lines.append(f"  - rule {job['rule']}{where}: {error}  [log: {job['log'] or '-'}]")
    return "\n".join(lines)


def plan_summary(rules, cores=None, shown: int = 8) -> str:
    """The jobs of a dry run per rule (``rules``: one rule name per job) and the time they would take on ``cores``
    (default the reference machine's 2), from the measured mean job times; the rules with most time first."""
    counts = Counter(rules)
    if not counts:
        return "Dry run: nothing to be done."
    cores = cores if cores and cores > 1 else REFERENCE_CORES
    seconds = {r: n * JOB_SECONDS.get(r, TYPICAL_JOB_SECONDS) for r, n in counts.items()}
    order = sorted(counts, key=lambda r: (-seconds[r], r))
    parts = [f"{r} {counts[r]}" for r in order[:shown]]
    if len(order) > shown:
        parts.append(f"{len(order) - shown} other rule(s) {sum(counts[r] for r in order[shown:])}")
    minutes = sum(seconds.values()) / cores / 60
    return (f"Dry run summary: {sum(counts.values())} jobs ({', '.join(parts)}). Estimated time on {cores} cores: "
            f"about {_duration(minutes)}, from the mean job times measured on the 2-core reference machine "
            "(docs/performance.md); a slower or busier machine takes longer.")


def _duration(minutes: float) -> str:
    if minutes < 1:
        return "under a minute"
    if minutes < 90:
        return f"{minutes:.0f} min"
    return f"{minutes // 60:.0f} h {minutes % 60:.0f} min"
