"""The long-format results table and the generic tables pivoted from it."""

from __future__ import annotations

import json
import platform
import subprocess
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd

from . import __version__
from .configio import config_hash
from .intermediates import read_parquet
from .metrics.registry import LOWER_IS_BETTER, higher_is_better
from .selection_io import BEYOND_RANKED_MARK, BEYOND_RANKED_NOTE
from .tables import markdown_table

__all__ = ["KEYS", "LOWER_IS_BETTER", "best_over_settings", "concat_metrics", "dataset_table", "higher_is_better",
           "provenance", "summarize", "to_markdown"]

KEYS = ["dataset", "method", "params", "n_features", "metric"]
_PACKAGES = ("numpy", "scipy", "scikit-learn", "gudhi", "pandas")


def provenance(repo: str | Path | None = None, config: dict | None = None) -> dict:
    """Package versions, Python, platform, the git commit of ``repo`` and the run's config.

    ``version_ufskit`` is that of the package imported (also without an installed distribution, as in an
    unpacked ``git archive``). ``git_commit`` is HEAD, 'no git' when ``repo`` has no ``.git`` (an export:
    the version is then the only record of the code), 'unknown' without ``repo`` or when git fails;
    ``git_modified`` is True when ``git status --porcelain`` lists any change (tracked or untracked: the
    commit then does not hold everything the run used), None when unknown. ``config_sha256`` hashes the
    resolved ``config``.
    """
    info = {"version_ufskit": __version__, **{f"version_{p}": _version(p) for p in _PACKAGES}}
    info["python"] = platform.python_version()
    info["platform"] = platform.platform()
    git_dir = repo is not None and (Path(repo) / ".git").exists()
    commit, status = (_git(repo, "rev-parse", "HEAD"), _git(repo, "status", "--porcelain")) if git_dir else (None, None)
    info["git_commit"] = commit.strip() if commit else ("no git" if repo is not None and not git_dir else "unknown")
    info["git_modified"] = None if status is None else bool(status.strip())
    info["config_sha256"] = config_hash(config) if config is not None else "unknown"
    return info


def _git(repo, *args) -> str | None:
    """The output of ``git -C repo args``, or None when git fails."""
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
    frames = [read_parquet(path, what="metrics table") for path in paths]
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
    """Mean, standard deviation and count over repetitions for every (dataset, method, params, count, metric).

    With a ``beyond_ranked`` column (evaluation marks counts past the selector's truly ranked features),
    a cell is beyond ranked when any of its repetitions is.
    """
    grouped = frame.groupby(KEYS, dropna=False, sort=True)
    summary = grouped["value"].agg(mean="mean", std="std", reps="count")
    if "beyond_ranked" in frame:
        flags = frame["beyond_ranked"].astype("boolean").fillna(False)  # tables of older runs: not marked
        summary["beyond_ranked"] = flags.groupby([frame[k] for k in KEYS], dropna=False, sort=True).any()
    return summary.reset_index()


def best_over_settings(summary: pd.DataFrame) -> pd.DataFrame:
    """Per dataset, method and metric: the best mean over parameters and feature counts (the papers' tables)."""
    rows = []
    for (dataset, method, metric), group in summary.groupby(["dataset", "method", "metric"], sort=True):
        pick = group["mean"].idxmax() if higher_is_better(metric) else group["mean"].idxmin()
        best = group.loc[pick]
        rows.append({"dataset": dataset, "method": method, "metric": metric, "value": best["mean"],
                     "params": best["params"], "n_features": best["n_features"],
                     "beyond_ranked": bool(best.get("beyond_ranked", False))})
    return pd.DataFrame(rows)


def to_markdown(summary: pd.DataFrame) -> str:
    """A markdown table per dataset: methods as rows, metrics as columns (best over settings); a value
    taken at a count beyond the method's truly ranked features is marked, with a footnote."""
    best = best_over_settings(summary)
    best["cell"] = [_fmt(v) + BEYOND_RANKED_MARK * m for v, m in zip(best["value"], best["beyond_ranked"])]
    parts = []
    for dataset, group in best.groupby("dataset", sort=True):
        table = group.pivot(index="method", columns="metric", values="cell")
        note = f"\n{BEYOND_RANKED_NOTE}\n" if group["beyond_ranked"].any() else ""
        parts.append(f"## {dataset}\n\n{markdown_table(table.reset_index())}{note}")
    return "\n".join(parts)


def _fmt(value) -> str:
    """A number to 4 significant digits, '–' when missing; a cell already formatted passes unchanged."""
    if isinstance(value, str):
        return value
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "–"
    return f"{value:.4g}"


def _ratio_cell(summary: dict) -> str:
    """The spread ratio of a dataset summary, 3 significant digits ("n/a" for a summary written before it existed)."""
    ratio = summary.get("spread_ratio")
    return "n/a" if ratio is None else f"{ratio:.3g}"


def dataset_table(summaries: dict[str, dict]) -> str:
    """Markdown table of prepared datasets: n, d, classes, class sizes, flat columns, the ratio of the largest
    to the smallest column range (descriptive: scale-sensitive selectors check their ranking against the
    standardised columns when the standard deviations differ by more than 4x) and the preprocessing applied."""
    rows = [[name, s["n_samples"], s["n_features"], s["n_classes"], "/".join(str(c) for c in s["class_sizes"]),
             s.get("n_flat", "n/a"), _ratio_cell(s),
             ", ".join(p.get("step", "?") for p in s.get("preprocessing", [])) or "none"]
            for name, s in summaries.items()]
    table = markdown_table(rows, ["dataset", "n", "d", "classes", "class sizes", "flat columns", "spread ratio",
                                  "preprocessing"])
    index_like = [f"{name}: {', '.join(map(str, s['index_like_columns']))}"
                  for name, s in summaries.items() if s.get("index_like_columns")]
    if index_like:
        table += ("\nColumns that look like a row index (integers, all distinct, in file order), used as features: "
                  f"{'; '.join(index_like)}. If they are ids, list them in the loader's `drop` option "
                  "(docs/own-data.md).\n")
    return table
