"""Loaders of a user's own data files: CSV/TSV tables with a label column, NumPy .npy and .npz.

The data must be complete and numeric: a missing or non-numeric cell is an error naming its
column (impute or encode before, the workflow never guesses). Labels may be any values; they are
coded 0..c-1 in sorted order, as every loader does.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..data import Dataset
from ._common import check_options, check_rows, data_file, index_like_columns, select_rows

SEPARATORS = {".csv": ",", ".tsv": "\t", ".tab": "\t", ".txt": None}


def _numeric(frame: pd.DataFrame, path: Path) -> np.ndarray:
    """The frame as float64, or ValueError naming the non-numeric and incomplete columns."""
    bad = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]
    if bad:
        raise ValueError(f"{path.name}: column(s) {bad[:10]} are not numeric; encode them or list them in 'drop'.")
    X = frame.to_numpy(dtype=np.float64)
    missing = ~np.isfinite(X)
    if missing.any():
        cols = frame.columns[missing.any(axis=0)].tolist()
        raise ValueError(f"{path.name}: {int(missing.sum())} missing or infinite value(s) in column(s) {cols[:10]}; "
                         "impute or drop them first.")
    return X


def load_table(paths: list[Path], options: dict, seed: int) -> Dataset:
    """A CSV or TSV file with a header row: the column ``label`` holds the classes, the others are features.

    Options: ``label`` (required), ``drop`` (columns to ignore, e.g. an id), ``sep`` (default by
    the extension: ',' for .csv, tab for .tsv/.tab, sniffed for .txt), ``classes``, ``per_class``.
    """
    opts = check_options(options, "table", required=("label",), optional=("drop", "sep", "classes", "per_class"))
    path = data_file(paths, tuple(SEPARATORS), "table")
    sep = opts.get("sep", SEPARATORS[path.suffix.lower()])
    try:
        frame = pd.read_csv(path, sep=sep, engine="python" if sep is None else "c")
    except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError) as e:
        raise ValueError(f"{path.name} is not a readable table ({type(e).__name__}: {e}).") from e
    check_rows(len(frame), path, header=True)
    wanted = [opts["label"], *opts.get("drop", [])]
    absent = [c for c in wanted if c not in frame.columns]
    if absent:
        raise ValueError(f"{path.name} has no column(s) {absent}; its columns are {frame.columns.tolist()[:20]}.")
    labels = frame[opts["label"]]
    if labels.isna().any():
        raise ValueError(f"{path.name}: label column {opts['label']!r} has {int(labels.isna().sum())} empty cell(s).")
    features = frame.drop(columns=wanted)
    X = _numeric(features, path)
    rows, y, info = select_rows(labels.to_numpy(), classes=opts.get("classes"), per_class=opts.get("per_class"),
                                seed=seed)
    info.update(label_column=opts["label"], dropped_columns=list(opts.get("drop", [])),
                index_like_columns=[str(features.columns[i]) for i in index_like_columns(X)])
    return Dataset(X[rows], y, np.asarray(features.columns, dtype=str), info)


def load_npy(paths: list[Path], options: dict, seed: int) -> Dataset:
    """A 2-D .npy array whose column ``label`` (an index; -1 = the last) holds the classes."""
    opts = check_options(options, "npy", required=("label",), optional=("classes", "per_class"))
    path = data_file(paths, (".npy",), "npy")
    array = np.load(path, allow_pickle=False)
    if array.ndim != 2 or array.shape[1] < 2:
        raise ValueError(f"{path.name}: expected a 2-D array with a label column and features, got {array.shape}.")
    column = opts["label"]
    if isinstance(column, bool) or not isinstance(column, int) or not -array.shape[1] <= column < array.shape[1]:
        raise ValueError(f"loader 'npy': label must be a column index in [{-array.shape[1]}, {array.shape[1] - 1}], "
                         f"got {column!r}.")
    X = np.delete(array, column, axis=1).astype(np.float64)
    return _from_arrays(X, array[:, column], opts, seed, path, {"label_column": column})


def load_npz(paths: list[Path], options: dict, seed: int) -> Dataset:
    """A .npz archive with the data matrix under key ``x`` (default 'X') and the labels under ``y`` (default 'y')."""
    opts = check_options(options, "npz", optional=("x", "y", "classes", "per_class"))
    path = data_file(paths, (".npz",), "npz")
    keys = {"x": opts.get("x", "X"), "y": opts.get("y", "y")}
    with np.load(path, allow_pickle=False) as archive:
        absent = [k for k in keys.values() if k not in archive.files]
        if absent:
            raise ValueError(f"{path.name} has no array(s) {absent}; it has {archive.files}.")
        X, labels = archive[keys["x"]], archive[keys["y"]]
    if X.ndim != 2:
        raise ValueError(f"{path.name}: {keys['x']} must be 2-D (samples x features), got shape {X.shape}.")
    return _from_arrays(np.asarray(X, dtype=np.float64), labels, opts, seed, path, {"x_key": keys["x"], "y_key": keys["y"]})


def _from_arrays(X, labels, opts, seed, path: Path, info: dict) -> Dataset:
    labels = np.asarray(labels).ravel()
    check_rows(X.shape[0], path)
    if labels.size != X.shape[0]:
        raise ValueError(f"{path.name}: {X.shape[0]} samples but {labels.size} labels.")
    bad = ~np.isfinite(X)
    if bad.any():
        raise ValueError(f"{path.name}: {int(bad.sum())} missing or infinite value(s), first in column "
                         f"{int(np.nonzero(bad)[1][0])}; impute or drop them first.")
    rows, y, row_info = select_rows(labels, classes=opts.get("classes"), per_class=opts.get("per_class"), seed=seed)
    index_like = [f"feature {i}" for i in index_like_columns(X)]  # feature columns, counted from 0
    return Dataset(X[rows], y, None, {**info, **row_info, "index_like_columns": index_like})
