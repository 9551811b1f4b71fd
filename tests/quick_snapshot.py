"""The quick run's numbers, digested, to hold a refactor to "numbers unchanged".

Every CSV a reader looks at (the scorecard, each paper's tables, each experiment's summary; not the
per-run metric and selection files) becomes cells (file, row, column, value), values as exact text
(floats with 17 significant digits); times are left out (measured, not computed). The snapshot keeps
one SHA-256 per file and column of those cells, so a difference is named by file and column while the
snapshot stays small; ``cells`` gives the values themselves for a closer look.

    python tests/quick_snapshot.py RESULTS_DIR OUT.csv     # write a snapshot from a finished quick run

``tests/test_quick_workflow.py`` compares its run with ``tests/data/quick_snapshot.csv``.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import numpy as np
import pandas as pd

TIME_WORDS = ("seconds", "time")  # a column, metric or published-table column about time
INTERMEDIATE = {"metrics", "selections", "shared"}  # folders of per-run files, read through the tables


def _is_time(text: str) -> bool:
    return any(word in str(text).lower() for word in TIME_WORDS)


def _text(value) -> str:
    if isinstance(value, (float, np.floating)):
        return "nan" if np.isnan(value) else format(float(value), ".17g")
    return str(value)


def table_files(results: Path) -> list[Path]:
    """The CSV tables of a results folder, in a stable order."""
    return sorted(p for p in results.rglob("*.csv") if not INTERMEDIATE & set(p.relative_to(results).parts[:-1]))


def cells(results: Path) -> pd.DataFrame:
    """(file, row, column, value) for every cell of every table, time left out, rows keyed by their text."""
    rows = []
    for path in table_files(results):
        frame = pd.read_csv(path, keep_default_na=False, na_values=[""])
        numeric = [c for c in frame.columns if pd.api.types.is_float_dtype(frame[c])]
        keys = [c for c in frame.columns if c not in numeric]
        timed = frame[keys].map(_is_time).any(axis=1) if keys else pd.Series(False, index=frame.index)
        name = path.relative_to(results).as_posix()
        for i, record in frame[~timed].iterrows():
            key = "|".join(_text(record[k]) for k in keys) or str(i)
            rows += [(name, key, c, _text(record[c])) for c in frame.columns if c not in keys and not _is_time(c)]
    out = pd.DataFrame(rows, columns=["file", "row", "column", "value"])
    return out.sort_values(["file", "row", "column"], kind="stable").reset_index(drop=True)


def snapshot(results: Path) -> pd.DataFrame:
    """(file, column, cells, sha256): the digest of each column's cells, keyed by their rows."""
    digest = []
    for (name, column), part in cells(results).groupby(["file", "column"], sort=True):
        text = "\n".join(part["row"] + "\t" + part["value"])
        digest.append((name, column, len(part), hashlib.sha256(text.encode()).hexdigest()))
    return pd.DataFrame(digest, columns=["file", "column", "cells", "sha256"])


def differences(mine: pd.DataFrame, reference: pd.DataFrame) -> pd.DataFrame:
    """The (file, column) digests that differ, appear or disappear between two snapshots."""
    both = mine.merge(reference, on=["file", "column"], how="outer", suffixes=("", "_reference"), indicator=True)
    return both[(both["_merge"] != "both") | (both["sha256"] != both["sha256_reference"])].drop(columns="_merge")


if __name__ == "__main__":
    results_dir, out = map(Path, sys.argv[1:3])
    snapshot(results_dir).to_csv(out, index=False)
