"""A run kept as the reference: what a reader looks at, what it cost, and where it came from.

``ufskit reference RESULTS --config config/config.yaml --config config/offline.yaml`` copies every table, text
and figure of RESULTS (CSV, markdown, PNG: ``compare.output_files``; no per-run files, PDFs, parquet or raw
data) into ``reference/``, with the run's part-by-part time table (``full_run.csv``, written by
``benchmarks/full_run.py``), its per-job record (``job_records.csv``: rule, wildcards, wall and CPU seconds, peak
RSS of every job) and the times per kind of job made from it (``job_times.csv``), and ``provenance.json``: the
commit the run's parts ran on (and the building checkout's, when later), package versions, a hash of the merged
config, the machine and its BLAS kernel, the date, and the scorecard tolerances ``ufskit compare`` then holds
other runs to. The two time files are RESULTS' own (``results/full_run.csv``, ``results/job_records.csv``, as
``benchmarks/full_run.py`` writes them) unless named.
The folder is written anew (nothing of an older reference is left in it but the references kept inside it,
such as ``reference/all_selectors``, each a run of its own) and refused above ``MAX_MB``, so that it can live in
git. Users compare their run with it: ``ufskit compare results/``.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import tempfile
import time
from pathlib import Path

import pandas as pd

from .compare import output_files

MAX_MB = 30  # the reference lives in git: tables, texts and PNGs only
PROVENANCE = "provenance.json"
FULL_RUN = "full_run.csv"
JOB_RECORDS = "job_records.csv"  # one row per job of the run (benchmarks/job_times.py's job_records)
JOB_TIMES = "job_times.csv"  # per kind of job: jobs and their seconds (job_times_table)


def _cpu() -> str:
    """The processor's model name (Linux), else what ``platform`` knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def merged_config(configs: list[Path]) -> dict:
    """The config files merged in order as the workflow merges them (``ufskit.protocols``: a later file's keys
    update the earlier ones, recursively; the papers' full-protocol files after the first, their files of a
    reduced protocol after the file setting ``protocol``)."""
    from .configio import load_yaml
    from .papers import registry
    from .protocols import add_paper_protocols, deep_update

    layers = [load_yaml(path) or {} for path in configs]
    merged: dict = {}
    for layer in layers:
        deep_update(merged, layer)
    add_paper_protocols(merged, layers, registry())
    return merged


def _config_name(path: Path, run_dir: Path | None) -> str:
    """A config file as the provenance names it: relative to the run's folder (``config/offline.yaml``) when it
    lies inside it, else its name alone; never a path of the building machine."""
    if run_dir is not None and path.resolve().is_relative_to(run_dir.resolve()):
        return path.resolve().relative_to(run_dir.resolve()).as_posix()
    return path.as_posix() if not path.is_absolute() else path.name


def provenance(configs: list[Path], repo: Path, full_run: Path | None = None, run_dir: Path | None = None) -> dict:
    """Where a run came from: ``results.provenance`` (packages, commit, whether the tree had changes, the hash of
    the merged config), the config files, the machine and its BLAS kernel, the date, the scorecard tolerances.

    With the run's ``full_run.csv`` the commit is the one its parts ran (``parts``: each part's commit and whether
    it was resumed), and ``repo``'s, when another, is kept as ``built_with``: the reference may be built by later
    code than the run's. ``run_dir``: the folder the run ran in, which the config files are named relative to.
    Raises ValueError when the parts ran on different commits (one reference, one code)."""
    from .blas import blas_kernel
    from .results import provenance as run_provenance

    config = merged_config(configs)
    tolerances = (config.get("scorecard") or {}).get("tolerances")
    if not tolerances:
        raise ValueError("none of the configs has scorecard.tolerances: give the run's config.yaml with --config.")
    record = run_provenance(repo, config)
    if full_run is not None:
        record.update(_run_commit(full_run, record["git_commit"]))
    return {
        **record,
        "configs": [_config_name(Path(p), run_dir) for p in configs],
        "machine": {"cpu": _cpu(), "cores": os.cpu_count(), "blas_kernel": blas_kernel()},
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
        "tolerances": tolerances,
    }


def _run_commit(full_run: Path, built_with: str) -> dict:
    """The commit (and changes) the run's parts ran on, their list, and the building checkout's commit when it
    differs; nothing when ``full_run.csv`` does not record commits (an older table)."""
    table = pd.read_csv(full_run, keep_default_na=False, dtype=str)
    parts = table[table["part"] != "total"]
    if "commit" not in parts or parts.empty:
        return {}
    commits = sorted(set(parts["commit"]))
    if len(commits) > 1:
        listed = ", ".join(c[:10] for c in commits)
        raise ValueError(f"{full_run}: the run's parts ran on {len(commits)} commits ({listed}): a reference is one "
                         "commit's run; rerun the parts of the others on one commit.")
    dirty = parts["dirty"].str.lower() if "dirty" in parts else pd.Series("", index=parts.index)
    record = {"git_commit": commits[0],
              "git_modified": True if dirty.eq("true").any() else False if dirty.eq("false").all() else None,
              "parts": [{"part": r.part, "commit": r.commit, "resumed": str(getattr(r, "resumed", "")) == "True"}
                        for r in parts.itertuples()]}
    if built_with != commits[0]:
        record["built_with"] = built_with
    return record


def job_times_table(records: pd.DataFrame) -> pd.DataFrame:
    """Per kind of job (the folder of ``logs/times/`` its benchmark file is in: select, evaluate, batched, ...) the
    jobs and their wall seconds, the slowest first, then a total row; from the rows of a per-job record (or any
    frame with ``benchmark`` paths and ``wall_seconds``) that have a benchmark file."""
    timed = records[records["benchmark"].fillna("").astype(str).str.startswith("logs/times/")]
    kinds = timed["benchmark"].str.split("/").str[2]
    table = (timed.groupby(kinds)["wall_seconds"].agg(jobs="size", job_seconds="sum").rename_axis("kind")
             .reset_index().sort_values("job_seconds", ascending=False))
    total = pd.DataFrame([{"kind": "total", "jobs": table["jobs"].sum(), "job_seconds": table["job_seconds"].sum()}])
    return pd.concat([table, total], ignore_index=True).round({"job_seconds": 1})


def _time_file(given: Path | None, results: Path, name: str, option: str, writer: str) -> Path | None:
    """The time file to ship: the one named (it must exist), else RESULTS' own when it has one, else None."""
    if given is not None:
        if not Path(given).is_file():
            raise ValueError(f"{option}: {given} does not exist ({writer} writes results/{name}).")
        return Path(given)
    return results / name if (results / name).is_file() else None


def nested_references(out: Path) -> list[Path]:
    """The folders of ``out`` that are references of their own (they hold a provenance), e.g.
    ``reference/all_selectors``: a rebuild of ``out`` from another run keeps them."""
    return sorted(p for p in out.iterdir() if p.is_dir() and (p / PROVENANCE).is_file())


def build(results: Path, out: Path, *, configs: list[Path], full_run: Path | None = None,
          job_records: Path | None = None, repo: Path | None = None) -> dict:
    """Write ``out`` anew from ``results``: its outputs, ``full_run.csv``, ``job_records.csv`` with ``job_times.csv``
    made from it, and ``provenance.json``; their summary.

    ``results`` is a finished run's results folder (it has the scorecard), one benchmark report of it (it has
    ``vs_random.csv``: ``results/all_selectors/`` of config/all_selectors.yaml, kept as ``reference/all_selectors``)
    or one tuned-against-chance report (``tuned.csv``: ``results/all_selectors_tuned/``). ``full_run`` and
    ``job_records`` default to RESULTS' ``full_run.csv`` and ``job_records.csv`` when it has them.
    Raises ValueError when it is neither or the folder would pass ``MAX_MB``.
    """
    results, out = Path(results), Path(out)
    if not any((results / name).is_file() for name in ("scorecard.csv", "vs_random.csv", "tuned.csv")):
        raise ValueError(f"{results} has no scorecard.csv (a run's results/), no vs_random.csv (a benchmark report "
                         "such as results/all_selectors/) and no tuned.csv (a tuned-against-chance report): build "
                         "the default target (the scorecard) first.")
    full_run = _time_file(full_run, results, FULL_RUN, "--full-run", "benchmarks/full_run.py")
    job_records = _time_file(job_records, results, JOB_RECORDS, "--job-records",
                             "benchmarks/full_run.py (or benchmarks/job_times.py --records)")
    shipped = {FULL_RUN: full_run, JOB_RECORDS: job_records}
    files = [f for f in output_files(results) if f not in (*shipped, JOB_TIMES)]
    size = sum((results / f).stat().st_size for f in files) + sum(p.stat().st_size for p in shipped.values() if p)
    if size > MAX_MB * 2**20:
        raise ValueError(f"the reference would hold {size / 2**20:.1f} MB, above the {MAX_MB} MB it may take in git.")
    record = provenance(configs, Path(repo or Path.cwd()), full_run, run_dir=results.parent)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    for name in files:
        (staging / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(results / name, staging / name)
    for name, path in shipped.items():
        if path is not None:
            shutil.copyfile(path, staging / name)
    if job_records is not None:
        job_times_table(pd.read_csv(job_records, keep_default_na=False, na_values=[""])).to_csv(
            staging / JOB_TIMES, index=False)
    (staging / PROVENANCE).write_text(json.dumps(record, indent=2) + "\n")
    staging.chmod(0o755)
    if out.exists():
        for nested in nested_references(out):
            if not (staging / nested.name).exists():  # another run's reference kept inside this one
                nested.rename(staging / nested.name)
        shutil.rmtree(out)
    staging.rename(out)
    return {"files": len(files), "megabytes": round(size / 2**20, 2), **record}
