"""Loaders of stored matrices: MATLAB v5 ``.mat`` files and R lists in ``.RData`` files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import scipy.io
import scipy.sparse as sp

from ..data import Dataset
from ._common import check_options, data_file, select_rows

# A dense float64 copy larger than this (800 MB) is refused: subset sparse data first.
MAX_DENSE_CELLS = 100_000_000
_SUBSET_OPTIONS = ("classes", "per_class")


def _dense_rows(X, rows: np.ndarray) -> np.ndarray:
    """Rows of X as dense float64; a sparse X is subset first and densified only if small enough."""
    if sp.issparse(X):
        if rows.size * X.shape[1] > MAX_DENSE_CELLS:
            raise ValueError(
                f"refusing to densify {rows.size} x {X.shape[1]} sparse rows; "
                "keep fewer rows with the options 'classes' and 'per_class'."
            )
        return np.asarray(X.tocsr()[rows].toarray(), dtype=np.float64)
    return np.asarray(X, dtype=np.float64)[rows]


def _build(X, labels, names, opts: dict, seed, info: dict) -> Dataset:
    """Subset rows (classes, per_class), code labels, densify and record what was done."""
    if X.ndim != 2 or X.shape[0] != np.size(labels):
        raise ValueError(f"X is {X.shape} but there are {np.size(labels)} labels.")
    rows, y, row_info = select_rows(
        labels, classes=opts.get("classes"), per_class=opts.get("per_class"), seed=seed
    )
    info.update(row_info, sparse_source=bool(sp.issparse(X)))
    return Dataset(_dense_rows(X, rows), y, names, info)


def _entry(container: dict, key: str, what: str, path: Path):
    try:
        return container[key]
    except KeyError:
        keys = sorted(str(k) for k in container if not str(k).startswith("__"))
        raise ValueError(f"{path.name} has no {what} {key!r}; it has {keys}.") from None


def load_mat(paths: list[Path], options: dict, seed: int) -> Dataset:
    """A v5 .mat file: X = file[x] (dense or sparse), labels = file[y]; optional class subset and sampling."""
    opts = check_options(options, "mat", required=("x", "y"), optional=_SUBSET_OPTIONS)
    path = data_file(paths, (".mat",), "mat")
    contents = scipy.io.loadmat(path)
    X = _entry(contents, opts["x"], "variable", path)
    labels = np.asarray(_entry(contents, opts["y"], "variable", path)).ravel()
    return _build(X, labels, None, opts, seed, {"x_key": opts["x"], "y_key": opts["y"]})


def _column_names(x):
    """Column names of an xarray DataArray (second dimension's coordinate) or a DataFrame, else None."""
    if hasattr(x, "dims") and len(x.dims) == 2 and x.dims[1] in getattr(x, "coords", {}):
        return np.asarray(x.coords[x.dims[1]].values, dtype=str)
    if hasattr(x, "columns"):
        return np.asarray(x.columns, dtype=str)
    return None


def load_rdata_list(paths: list[Path], options: dict, seed: int) -> Dataset:
    """An R list saved in .RData (e.g. datamicroarray's ``gordon``): X = obj$x with column names, labels = obj$y."""
    import rdata  # imported here: only this loader needs it

    opts = check_options(options, "rdata_list", required=("object", "x", "y"), optional=_SUBSET_OPTIONS)
    path = data_file(paths, (".rdata", ".rda"), "rdata_list")
    obj = _entry(rdata.read_rda(path), opts["object"], "object", path)
    x = _entry(obj, opts["x"], f"element of {opts['object']}", path)
    raw_y = _entry(obj, opts["y"], f"element of {opts['object']}", path)
    labels = np.asarray(raw_y, dtype=object)
    if pd.isna(labels).any():
        raise ValueError(f"{path.name}: {opts['object']}${opts['y']} has missing labels.")
    labels = labels.astype(str) if isinstance(labels[0], str) else labels.astype(np.float64)
    info = {"r_object": opts["object"], "x_key": opts["x"], "y_key": opts["y"]}
    return _build(np.asarray(x, dtype=np.float64), labels, _column_names(x), opts, seed, info)
