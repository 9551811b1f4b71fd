"""The long-format results table and the generic tables pivoted from it."""

from __future__ import annotations

import json
import platform
import subprocess
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd

from .configio import config_hash
from .data import reading
from .metrics.registry import LOWER_IS_BETTER, higher_is_better
from .tables import markdown_table

__all__ = ["KEYS", "LOWER_IS_BETTER", "best_over_settings", "concat_metrics", "dataset_table", "higher_is_better",
           "provenance", "summarize", "to_markdown"]

KEYS = ["dataset", "method", "params", "n_features", "metric"]
_PACKAGES = ("ufskit", "numpy", "scipy", "scikit-learn", "gudhi", "pandas")


def provenance(repo: str | Path | None = None, config: dict | None = None) -> dict:
    """Package versions, Python, platform, the git commit of ``repo`` and the run's config.

    ``git_commit`` is HEAD ('unknown' outside a git checkout); ``git_modified`` is True when
    ``git status --porcelain`` lists any change (tracked or untracked: the commit then does not hold
    everything the run used), None when unknown. ``config_sha256`` hashes the resolved ``config``.
    """
    info = {f"version_{p}": _version(p) for p in _PACKAGES}
    info["python"] = platform.python_version()
    info["platform"] = platform.platform()
    commit, status = _git(repo, "rev-parse", "HEAD"), _git(repo, "status", "--porcelain")
    info["git_commit"] = commit.strip() if commit is not None else "unknown"
    info["git_modified"] = None if status is None else bool(status.strip())
    info["config_sha256"] = config_hash(config) if config is not None else "unknown"
    return info


def _git(repo, *args) -> str | None:
    """The output of ``git -C repo args``, or None without a repository or git."""
    if repo is None:
        return None
    try:
        return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True,
                              timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def concat_metrics(paths, *, experiment: str, repo=None, config: dict | None = None) -> pd.DataFrame:
    """One table from the per-run parquet files, with the experiment and provenance columns.

    The resolved ``config`` itself goes into the table's metadata (``frame.attrs["config"]``, kept by
    parquet), so that ``config_sha256`` can be checked against it.
    """
    frames = []
    for path in paths:
        with reading(path, "metrics table"):
            frames.append(pd.read_parquet(path))
    if not frames:
        raise ValueError(f"experiment {experiment!r} has no metric files to aggregate.")
    frame = pd.concat(frames, ignore_index=True)
    frame.insert(0, "experiment", experiment)
    for key, value in provenance(repo, config).items():
        frame[key] = value
    if config is not None:
        frame.attrs["config"] = json.dumps(config, sort_keys=True, default=str)
    return frame


def summarize(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean, standard deviation and count over repetitions for every (dataset, method, params, count, metric)."""
    grouped = frame.groupby(KEYS, dropna=False, sort=True)["value"]
    return grouped.agg(mean="mean", std="std", reps="count").reset_index()


def best_over_settings(summary: pd.DataFrame) -> pd.DataFrame:
    """Per dataset, method and metric: the best mean over parameters and feature counts (the papers' tables)."""
    rows = []
    for (dataset, method, metric), group in summary.groupby(["dataset", "method", "metric"], sort=True):
        pick = group["mean"].idxmax() if higher_is_better(metric) else group["mean"].idxmin()
        best = group.loc[pick]
        rows.append({"dataset": dataset, "method": method, "metric": metric, "value": best["mean"],
                     "params": best["params"], "n_features": best["n_features"]})
    return pd.DataFrame(rows)


def to_markdown(summary: pd.DataFrame) -> str:
    """A markdown table per dataset: methods as rows, metrics as columns (best over settings)."""
    best = best_over_settings(summary)
    parts = []
    for dataset, group in best.groupby("dataset", sort=True):
        table = group.pivot(index="method", columns="metric", values="value")
        parts.append(f"## {dataset}\n\n{markdown_table(table.map(_fmt).reset_index())}")
    return "\n".join(parts)


def _fmt(value) -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "–"
    return f"{value:.4g}"


def dataset_table(summaries: dict[str, dict]) -> str:
    """Markdown table of prepared datasets: n, d, classes, class sizes and the preprocessing applied."""
    rows = [[name, s["n_samples"], s["n_features"], s["n_classes"], "/".join(str(c) for c in s["class_sizes"]),
             ", ".join(p.get("step", "?") for p in s.get("preprocessing", [])) or "none"]
            for name, s in summaries.items()]
    return markdown_table(rows, ["dataset", "n", "d", "classes", "class sizes", "preprocessing"])
