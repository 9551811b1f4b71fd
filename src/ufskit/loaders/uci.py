"""Delimited UCI tables: join the files, take the label column, encode nominal columns, handle missing values.

Columns are referred to by their 0-based position in the raw file (negative counts
from the end) or, for files with a header row, by name. Feature names are the
header names, or ``c<position>`` for files without a header, so every column of X
can be traced back to the raw file.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..data import Dataset
from ._common import check_options, pick_files, select_rows

SEPARATORS = {",": ",", "whitespace": r"\s+"}
MISSING_POLICIES = ("drop_rows", "drop_columns", "impute_mean", "none")
_OPTIONAL = ("sep", "header", "drop", "missing", "missing_policy", "categorical", "ordinal", "label_map")


def _read_table(files: list[Path], sep: str, header: bool) -> tuple[pd.DataFrame, list[int]]:
    """All files as one table of stripped strings (rows in file order), and the row count of each file."""
    if sep not in SEPARATORS:
        raise ValueError(f"sep must be one of {sorted(SEPARATORS)}, got {sep!r}.")
    frames = [
        pd.read_csv(f, sep=SEPARATORS[sep], header=0 if header else None, dtype=str,
                    keep_default_na=False, skipinitialspace=True)
        for f in files
    ]
    if len({tuple(map(str, t.columns)) if header else t.shape[1] for t in frames}) != 1:
        raise ValueError(f"the files {[f.name for f in files]} do not have the same columns.")
    table = pd.concat(frames, ignore_index=True)
    short = table.isna().any(axis=1).to_numpy()
    if short.any():
        raise ValueError(f"row {np.flatnonzero(short)[0]} of the joined files has too few fields.")
    return table.apply(lambda col: col.str.strip()), [len(t) for t in frames]


def _position(ref, names: list[str], header: bool) -> int:
    """0-based column position of ``ref`` (an int position, or a header name)."""
    n = len(names)
    if isinstance(ref, (int, np.integer)) and not isinstance(ref, bool):
        if -n <= ref < n:
            return int(ref) % n
        raise ValueError(f"column {ref} is out of range for a table of {n} columns.")
    if header and isinstance(ref, str) and ref in names:
        return names.index(ref)
    raise ValueError(f"unknown column {ref!r}; use a position 0..{n - 1}" + (f" or one of {names}." if header else "."))


def _values(col: pd.Series) -> np.ndarray:
    """Numbers if every entry parses as one (ints when all integral), else the strings."""
    num = pd.to_numeric(col, errors="coerce")
    if num.notna().all():
        arr = num.to_numpy(dtype=np.float64)
        return arr.astype(np.int64) if np.all(arr == np.round(arr)) else arr
    return col.to_numpy(dtype=str)


def _labels(col: pd.Series, is_missing: np.ndarray, label_map) -> np.ndarray:
    if is_missing.any():
        raise ValueError(f"the label column is missing in rows {np.flatnonzero(is_missing)[:10].tolist()}.")
    if label_map:
        mapping = {str(k): str(v) for k, v in label_map.items()}
        col = col.map(lambda v: mapping.get(v, v))
    return _values(col)


def _numeric(col: pd.Series, is_missing: np.ndarray, name: str) -> np.ndarray:
    """A numeric column with NaN at the missing cells; a non-numeric cell is an error naming it."""
    num = pd.to_numeric(col.where(~is_missing), errors="coerce").to_numpy(dtype=np.float64)
    bad = np.flatnonzero(np.isnan(num) & ~is_missing)
    if bad.size:
        raise ValueError(
            f"column {name} has non-numeric value {col.iloc[bad[0]]!r} (row {bad[0]}); "
            "declare it in 'categorical' or 'ordinal', or its marker in 'missing'."
        )
    return num


def _encode(table, positions, names, markers, categorical, ordinal, info):
    """Feature matrix (NaN where missing) and names.

    A ``categorical`` column becomes one 0/1 column per observed value, a missing cell
    giving all zeros; an ``ordinal`` column becomes the codes 0..m-1 of its sorted values
    (one column, as in data sets that count each nominal attribute once).
    """
    blocks, out_names = [], []
    for j in positions:
        col, name = table.iloc[:, j], names[j]
        is_missing = col.isin(markers).to_numpy()
        values = col.to_numpy(dtype=str)
        if j in categorical:
            cats = np.unique(values[~is_missing])
            blocks.append((values[:, None] == cats[None, :]).astype(np.float64))
            out_names += [f"{name}={c}" for c in cats]
            info.setdefault("one_hot", {})[name] = cats.tolist()
        elif j in ordinal:
            cats, codes = np.unique(values[~is_missing], return_inverse=True)
            column = np.full(values.size, np.nan)
            column[~is_missing] = codes
            blocks.append(column[:, None])
            out_names.append(name)
            info.setdefault("ordinal_codes", {})[name] = cats.tolist()
        else:
            blocks.append(_numeric(col, is_missing, name)[:, None])
            out_names.append(name)
    return np.hstack(blocks), np.asarray(out_names)


def _handle_missing(X, labels, names, policy, info):
    """Apply the missing-value policy to the NaN cells of X; record what was done."""
    nan = np.isnan(X)
    if not nan.any():
        return X, labels, names
    counts = {str(n): int(c) for n, c in zip(names, nan.sum(axis=0)) if c}
    if policy == "none":
        raise ValueError(f"missing values in columns {counts}; choose a missing_policy from {list(MISSING_POLICIES)}.")
    if policy == "drop_rows":
        bad = nan.any(axis=1)
        info["rows_dropped"] = {"rows": np.flatnonzero(bad).tolist(), "reason": f"missing value in {counts}"}
        return X[~bad], labels[~bad], names
    if policy == "drop_columns":
        bad = nan.any(axis=0)
        info["columns_dropped_missing"] = names[bad].tolist()
        return X[:, ~bad], labels, names[~bad]
    empty = [str(n) for n in names[nan.all(axis=0)]]
    if empty:
        raise ValueError(f"columns {empty} are entirely missing; drop them instead of imputing.")
    X = X.copy()
    X[nan] = np.take(np.nanmean(X, axis=0), np.nonzero(nan)[1])
    info["imputed_mean"] = counts
    return X, labels, names


def load_uci(paths: list[Path], options: dict, seed: int) -> Dataset:
    """A delimited table (UCI style), possibly split over several files joined in order."""
    opts = check_options(options, "uci", required=("files", "label"), optional=_OPTIONAL)
    policy = opts.get("missing_policy", "none")
    if policy not in MISSING_POLICIES:
        raise ValueError(f"missing_policy must be one of {list(MISSING_POLICIES)}, got {policy!r}.")
    header = bool(opts.get("header", False))
    files = pick_files(paths, opts["files"], "uci")
    table, rows_per_file = _read_table(files, opts.get("sep", ","), header)
    names = [str(c) for c in table.columns] if header else [f"c{j}" for j in range(table.shape[1])]
    markers = opts.get("missing") or []
    markers = [markers] if isinstance(markers, str) else [str(m) for m in markers]

    def positions(key):
        return {_position(r, names, header) for r in (opts.get(key) or [])}

    label = _position(opts["label"], names, header)
    drop, categorical, ordinal = positions("drop"), positions("categorical"), positions("ordinal")
    if label in drop | categorical | ordinal or categorical & ordinal:
        raise ValueError("the label column may not be dropped or encoded, nor a column both categorical and ordinal.")
    if (categorical | ordinal) & drop:
        raise ValueError("a dropped column cannot also be categorical or ordinal.")
    features = [j for j in range(len(names)) if j != label and j not in drop]
    if not features:
        raise ValueError("no feature columns left after taking the label and the dropped columns.")

    info = {
        "data_files": [f.name for f in files],
        "rows_per_file": rows_per_file,
        "label_column": names[label],
        "columns_dropped": [names[j] for j in sorted(drop)],
        "missing_markers": markers,
        "missing_policy": policy,
    }
    if opts.get("label_map"):
        info["label_map"] = {str(k): v for k, v in opts["label_map"].items()}
    labels = _labels(table.iloc[:, label], table.iloc[:, label].isin(markers).to_numpy(), opts.get("label_map"))
    X, feat_names = _encode(table, features, names, markers, categorical, ordinal, info)
    X, labels, feat_names = _handle_missing(X, labels, feat_names, policy, info)
    _, y, label_info = select_rows(labels)
    info.update(label_info)
    return Dataset(X, y, feat_names, info)
