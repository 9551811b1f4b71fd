"""The in-memory dataset and its on-disk form (resources/prepared/...npz + a JSON summary)."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .intermediates import IntegrityError as IntegrityError  # re-exported: raised for the data's files
from .intermediates import check_identity, read_npz
from .intermediates import reading as reading  # re-exported: the readers of other intermediates use it
from .validation import column_extremes, flat_features, spread_ratio


@dataclass
class Dataset:
    """A labelled data matrix: X (n x d float64), y (n ints 0..c-1), optional feature names.

    ``info`` collects provenance and every cleaning decision (rows dropped,
    features removed, floors applied), so that the JSON summary tells what was done.
    """

    X: np.ndarray
    y: np.ndarray
    feature_names: np.ndarray | None = None
    info: dict = field(default_factory=dict)

    def __post_init__(self):
        self.X = np.ascontiguousarray(self.X, dtype=np.float64)
        self.y = np.asarray(self.y).astype(np.int64)
        if self.X.ndim != 2 or self.y.shape != (self.X.shape[0],):
            raise ValueError(f"X must be n x d and y length n; got {self.X.shape} and {self.y.shape}.")
        if self.feature_names is not None:
            self.feature_names = np.asarray(self.feature_names, dtype=str)
            if self.feature_names.shape != (self.X.shape[1],):
                raise ValueError("feature_names must have one entry per column of X.")

    @property
    def n_classes(self) -> int:
        return int(np.unique(self.y).size)

    def summary(self) -> dict:
        """n, d, classes and class sizes, the flat columns and the spread ratio, plus everything in ``info``.

        ``n_flat``: columns flat by the library's rule (``validation.flat_features``:
        every selector leaves them unscored); ``spread_ratio``: largest over smallest
        range of the other columns (None without a varying column), a description:
        the scale check of a scale-sensitive selector compares standard deviations
        (``validation.SCALE_CHECK_FACTOR``).
        """
        _, counts = np.unique(self.y, return_counts=True)
        extremes = column_extremes(self.X) if self.X.size else (np.zeros(0), np.zeros(0))
        flat = flat_features(None, extremes)
        ratio = spread_ratio((extremes[0][~flat], extremes[1][~flat])) if (~flat).any() else None
        return {
            "n_samples": int(self.X.shape[0]),
            "n_features": int(self.X.shape[1]),
            "n_classes": self.n_classes,
            "class_sizes": counts.tolist(),
            "n_flat": int(flat.sum()),
            "spread_ratio": ratio,
            **self.info,
        }


def check_classes(ds: Dataset, name: str) -> None:
    """Refuse a labelling no score can be judged against: fewer than 2 classes, or one class per sample.

    Called when a dataset is prepared, so a wrong label column stops the run
    before any fit: against one class every clustering scores ACC = NMI = 1,
    and with as many classes as samples no class has a second member to find.
    The message names the dataset and its label column (as its loader records it).
    """
    column = ds.info.get("label_column", ds.info.get("y_key", "the labels"))
    n, c = ds.y.size, ds.n_classes
    if c < 2:
        raise ValueError(f"dataset {name!r}: label column {column!r} has a single class over its {n} samples; "
                         "clustering and classification scores need at least 2 classes. Check the label column.")
    if c == n:
        raise ValueError(f"dataset {name!r}: label column {column!r} has as many classes as samples ({n}): "
                         "every sample is its own class. Is it an identifier rather than the label?")


def atomic_path(path: str | os.PathLike):
    """A temporary sibling of ``path`` to write to before ``os.replace`` (no half-written outputs).

    ``mkstemp`` creates it private (0600); it gets the mode of an ordinary new file under the user's umask
    (0644 under the usual 022), so that collaborators can read the outputs on a shared file system."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    os.fchmod(fd, 0o666 & ~_umask())
    os.close(fd)
    return Path(tmp)


def _umask() -> int:
    """The process's umask (reading it means setting it: set back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def save_dataset(ds: Dataset, npz_path, json_path=None) -> None:
    """Write X, y and feature names to ``npz_path`` (and the summary to ``json_path``), atomically."""
    arrays = {"X": ds.X, "y": ds.y}
    if ds.feature_names is not None:
        arrays["feature_names"] = ds.feature_names
    arrays["info"] = np.array(json.dumps(ds.info, default=str))
    tmp = atomic_path(npz_path)
    with open(tmp, "wb") as fh:
        np.savez(fh, **arrays)
    os.replace(tmp, npz_path)
    if json_path is not None:
        write_json(ds.summary(), json_path)


def load_dataset(npz_path) -> Dataset:
    """Read a dataset written by ``save_dataset``; a corrupt file, or one recording another dataset or chain
    than its path, is an ``IntegrityError`` naming it."""
    arrays = read_npz(npz_path, "prepared dataset")
    with reading(npz_path, "prepared dataset"):
        info = json.loads(str(arrays["info"])) if "info" in arrays else {}
        ds = Dataset(arrays["X"], arrays["y"], arrays.get("feature_names"), info)
    check_identity(npz_path, info)
    return ds


def write_json(obj, path) -> None:
    """Pretty JSON written atomically."""
    tmp = atomic_path(path)
    tmp.write_text(json.dumps(obj, indent=2, sort_keys=True, default=str) + "\n")
    os.replace(tmp, path)
