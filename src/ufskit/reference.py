"""A run kept as the reference: what a reader looks at, what it cost, and where it came from.

``ufskit reference RESULTS --config config/config.yaml --config config/offline.yaml`` copies every table, text
and figure of RESULTS (CSV, markdown, PNG: ``compare.output_files``; no per-run files, PDFs, parquet or raw
data) into ``reference/``, with the run's part-by-part time table (``full_run.csv``, written by
``benchmarks/full_run.py``) and ``provenance.json``: the commit, package versions, a hash of the merged config,
the machine and its BLAS kernel, the date, and the scorecard tolerances ``ufskit compare`` then holds other
runs to. The folder is
written anew (nothing of an older reference is left in it) and refused above ``MAX_MB``, so that it can live in
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

from .compare import output_files

MAX_MB = 30  # the reference lives in git: tables, texts and PNGs only
PROVENANCE = "provenance.json"
FULL_RUN = "full_run.csv"


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
    update the earlier ones, recursively; the papers' protocol files after the file setting ``protocol``)."""
    from .configio import load_yaml
    from .papers import registry
    from .protocols import add_paper_protocols, deep_update

    layers = [load_yaml(path) or {} for path in configs]
    merged: dict = {}
    for layer in layers:
        deep_update(merged, layer)
    add_paper_protocols(merged, layers, registry())
    return merged


def provenance(configs: list[Path], repo: Path) -> dict:
    """Where a run came from: ``results.provenance`` (packages, commit, whether the tree had changes, the hash of
    the merged config), the config files, the machine and its BLAS kernel, the date, the scorecard tolerances."""
    from .blas import blas_kernel
    from .results import provenance as run_provenance

    config = merged_config(configs)
    tolerances = (config.get("scorecard") or {}).get("tolerances")
    if not tolerances:
        raise ValueError("none of the configs has scorecard.tolerances: give the run's config.yaml with --config.")
    return {
        **run_provenance(repo, config),
        "configs": [Path(p).as_posix() for p in configs],
        "machine": {"cpu": _cpu(), "cores": os.cpu_count(), "blas_kernel": blas_kernel()},
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
        "tolerances": tolerances,
    }


def build(results: Path, out: Path, *, configs: list[Path], full_run: Path | None = None,
          repo: Path | None = None) -> dict:
    """Write ``out`` anew from ``results``: its outputs, ``full_run.csv`` and ``provenance.json``; their summary.

    ``results`` is a finished run's results folder (it has the scorecard), one benchmark report of it (it has
    ``vs_random.csv``: ``results/all_selectors/`` of config/all_selectors.yaml, kept as ``reference/all_selectors``)
    or one tuned-against-chance report (``tuned.csv``: ``results/all_selectors_tuned/``).
    Raises ValueError when it is neither or the folder would pass ``MAX_MB``.
    """
    results, out = Path(results), Path(out)
    if not any((results / name).is_file() for name in ("scorecard.csv", "vs_random.csv", "tuned.csv")):
        raise ValueError(f"{results} has no scorecard.csv (a run's results/), no vs_random.csv (a benchmark report "
                         "such as results/all_selectors/) and no tuned.csv (a tuned-against-chance report): build "
                         "the default target (the scorecard) first.")
    if full_run is not None and not Path(full_run).is_file():
        raise ValueError(f"--full-run: {full_run} does not exist (benchmarks/full_run.py writes results/full_run.csv).")
    files = output_files(results)
    size = sum((results / f).stat().st_size for f in files) + (Path(full_run).stat().st_size if full_run else 0)
    if size > MAX_MB * 2**20:
        raise ValueError(f"the reference would hold {size / 2**20:.1f} MB, above the {MAX_MB} MB it may take in git.")
    record = provenance(configs, Path(repo or Path.cwd()))
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    for name in files:
        (staging / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(results / name, staging / name)
    if full_run is not None:
        shutil.copyfile(full_run, staging / FULL_RUN)
    (staging / PROVENANCE).write_text(json.dumps(record, indent=2) + "\n")
    staging.chmod(0o755)
    if out.exists():
        shutil.rmtree(out)
    staging.rename(out)
    return {"files": len(files), "megabytes": round(size / 2**20, 2), **record}
