"""Helpers shared by the loaders: option checks, picking source files, label coding, sampling."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def check_options(options, loader: str, *, required=(), optional=()) -> dict:
    """``options`` as a dict, or ValueError naming unknown or missing option names."""
    options = dict(options or {})
    known = set(required) | set(optional)
    unknown = sorted(set(options) - known)
    if unknown:
        raise ValueError(f"loader {loader!r}: unknown option(s) {unknown}; it takes {sorted(known)}.")
    missing = [k for k in required if k not in options]
    if missing:
        raise ValueError(f"loader {loader!r}: missing required option(s) {missing}.")
    return options


def pick_files(paths: list[Path], wanted, loader: str) -> list[Path]:
    """The source files named in ``wanted`` (a path, or its trailing part such as a file name), in that order."""
    if isinstance(wanted, (str, Path)):
        wanted = [wanted]
    picked = []
    for name in wanted:
        parts = Path(name).parts
        hits = [p for p in paths if p.parts[-len(parts):] == parts]
        if len(hits) != 1:
            raise ValueError(
                f"loader {loader!r}: {'no' if not hits else 'several'} source file(s) match {str(name)!r}; "
                f"the source has {[p.name for p in paths]}."
            )
        picked.append(hits[0])
    return picked


def data_file(paths: list[Path], suffixes: tuple[str, ...], loader: str) -> Path:
    """The source's data file: its first file (the registry's convention), with one of ``suffixes``."""
    if not paths or not paths[0].name.lower().endswith(suffixes):
        raise ValueError(
            f"loader {loader!r} reads the source's first file, which must end with {'/'.join(suffixes)}; "
            f"the source has {[p.name for p in paths]}."
        )
    return paths[0]


def index_like_columns(X: np.ndarray) -> list[int]:
    """The columns of ``X`` (rows in file order) that look like a row index: integer-valued and strictly monotone,
    so all distinct. Such a column (an id 1..n in a file sorted by class) carries the file's order, not a feature.
    Fewer than 3 rows tell nothing."""
    if X.shape[0] < 3:
        return []
    with np.errstate(invalid="ignore"):
        integral = np.all(X == np.round(X), axis=0)
        steps = np.diff(X, axis=0)
        monotone = np.all(steps > 0, axis=0) | np.all(steps < 0, axis=0)
    return np.flatnonzero(integral & monotone).tolist()


def check_rows(n_rows: int, path: Path, *, header: bool = False) -> None:
    """ValueError naming ``path`` when it holds fewer than 2 samples (rows): nothing to select features on.

    Said here, at the file, rather than later as a flat or non-numeric feature. ``header``: the file is a table
    whose header row was read.
    """
    if n_rows == 0 and header:
        raise ValueError(f"{path.name} has a header but no data rows; it must hold at least 2 samples, one per row "
                         "below the header.")
    if n_rows == 0:
        raise ValueError(f"{path.name} has no data rows (only a header, or nothing); it must hold at least 2 samples.")
    if n_rows < 2:
        raise ValueError(f"{path.name} has only 1 data row; it must hold at least 2 samples (one row per sample).")


def _check_positive_int(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be an int >= 1, got {value!r}.")
    return int(value)


def sample_per_class(y: np.ndarray, per_class: int, seed) -> np.ndarray:
    """Sorted row indices: ``per_class`` rows of each code 0..c-1 of ``y``, drawn without replacement.

    One ``numpy.random.default_rng(seed)`` draws the classes in code order, so the
    same seed gives the same rows.
    """
    per_class = _check_positive_int(per_class, "per_class")
    rng = np.random.default_rng(seed)
    picks = []
    for code in range(int(y.max()) + 1 if y.size else 0):
        rows = np.flatnonzero(y == code)
        if rows.size < per_class:
            raise ValueError(f"per_class={per_class} but class code {code} has only {rows.size} rows.")
        picks.append(rng.choice(rows, size=per_class, replace=False))
    return np.sort(np.concatenate(picks)) if picks else np.zeros(0, dtype=np.intp)


def select_rows(labels, *, classes=None, per_class=None, seed=0) -> tuple[np.ndarray, np.ndarray, dict]:
    """Rows to keep, their labels coded 0..c-1, and what was done (for ``Dataset.info``).

    Without ``classes`` every row is kept and codes follow the sorted label values;
    with ``classes`` only rows of those labels are kept, coded in the given order.
    ``per_class`` then samples that many rows of each class (sorted indices).
    """
    labels = np.asarray(labels).ravel()
    if classes is None:
        values, y = np.unique(labels, return_inverse=True)
        rows = np.arange(labels.size)
        y = y.ravel()
    else:
        values = np.asarray(list(classes))
        if values.size == 0 or np.unique(values).size != values.size:
            raise ValueError(f"classes must be a non-empty list without repeats, got {list(classes)!r}.")
        match = labels[:, None] == values[None, :]
        absent = values[~match.any(axis=0)]
        if absent.size:
            raise ValueError(
                f"classes {absent.tolist()} are not among the labels {np.unique(labels).tolist()[:30]}."
            )
        rows = np.flatnonzero(match.any(axis=1))
        y = match[rows].argmax(axis=1)
    info = {"label_values": values.tolist()}
    if classes is not None:
        info["rows_kept_by_class"] = int(rows.size)
    if per_class is not None:
        pick = sample_per_class(y, per_class, seed)
        rows, y = rows[pick], y[pick]
        info.update(per_class=int(per_class), sample_seed=int(seed), sampled_rows=rows.tolist())
    return rows, y, info
