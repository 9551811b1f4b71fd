"""Raw files -> ``Dataset``: one loader per file format, chosen by the registry entry's ``loader``.

A registry entry names a ``source`` (its files, as paths relative to the raw
root), a ``loader``, the loader's ``options`` and, optionally, the expected
``shape`` and ``n_classes``, which are checked. Every loader codes the labels
0..c-1 (sorted label values, or the order of the ``classes`` option) and records
the original values and each cleaning decision in ``Dataset.info``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..data import Dataset
from ..registry import source_files as registry_source_files
from ..synthetic import FIGURE_READING, nrfs_synthetic
from ._common import check_options, index_like_columns
from .matrices import load_mat, load_rdata_list
from .newsgroups import load_newsgroups_raw
from .tables import load_npy, load_npz, load_table
from .uci import load_uci


def load_nrfs_synthetic(paths: list[Path], options: dict, seed: int) -> Dataset:
    """The NRFS paper's Fig. 1 data, generated from ``seed`` (no files)."""
    opts = check_options(options, "nrfs_synthetic", optional=("n_per_cluster", "n_noise", "n_features",
                                                              *GENERATOR_OPTIONS))
    if paths:
        raise ValueError("loader 'nrfs_synthetic' reads no files, but the entry lists some.")
    return nrfs_synthetic(**opts, random_state=seed)


GENERATOR_OPTIONS = tuple(FIGURE_READING)  # the generator's readings of Fig. 1 (ufskit.synthetic)


LOADERS = {
    "mat": load_mat,
    "rdata_list": load_rdata_list,
    "uci": load_uci,
    "newsgroups_raw": load_newsgroups_raw,
    "nrfs_synthetic": load_nrfs_synthetic,
    # a user's own files (config overlay, `path:`); `mat` reads local .mat files too
    "table": load_table,
    "npy": load_npy,
    "npz": load_npz,
}


def source_files(entry: dict, sources: dict | None = None) -> list[str]:
    """The entry's file paths relative to the raw root: ``entry["files"]``, else its source's files.

    ``sources`` is the registry's ``sources`` mapping; a source's ``file_list`` comes last,
    as in ``ufskit.registry.source_files``. Files may be strings or mappings with a ``path``.
    """
    if "files" in entry:
        files = entry["files"]
    elif entry.get("source") is None:
        files = []
    elif sources and entry["source"] in sources:
        files = registry_source_files({"sources": sources}, entry["source"])
    else:
        raise ValueError(
            f"the entry's source {entry['source']!r} is not among the sources given; "
            "pass the registry's sources (sources=...) or list the files in entry['files']."
        )
    return [f["path"] if isinstance(f, dict) else str(f) for f in files]


def _check_expected(ds: Dataset, entry: dict) -> None:
    """Compare the loaded data with the registry's ``shape`` (null = not checked) and ``n_classes``."""
    shape = entry.get("shape")
    if shape is not None and any(want is not None and got != want for got, want in zip(ds.X.shape, shape)):
        raise ValueError(
            f"loaded {ds.X.shape[0]} x {ds.X.shape[1]} but the registry says {shape[0]} x {shape[1]}; "
            "check the loader options or the registry's shape."
        )
    n_classes = entry.get("n_classes")
    if n_classes is not None and ds.n_classes != n_classes:
        raise ValueError(f"loaded {ds.n_classes} classes but the registry says {n_classes}.")


def load(name: str, entry: dict, raw_root, *, seed: int = 0, sources: dict | None = None) -> Dataset:
    """Load dataset ``name`` as its registry ``entry`` describes, from files under ``raw_root``.

    The files are ``entry["files"]`` or, given the registry's ``sources``, those of
    ``entry["source"]`` (see ``source_files``). ``seed`` drives any sampling and is
    recorded in ``info``. Errors name the dataset.
    """
    kind = entry.get("loader")
    if kind not in LOADERS:
        raise ValueError(f"dataset {name!r}: unknown loader {kind!r}; known loaders: {sorted(LOADERS)}.")
    relative = source_files(entry, sources)
    paths = [Path(raw_root) / p for p in relative]
    absent = [p for p, full in zip(relative, paths) if not full.exists()]
    if absent:
        raise FileNotFoundError(f"dataset {name!r}: missing raw file(s) {absent} under {raw_root}; fetch them first.")
    try:
        ds = LOADERS[kind](paths, entry.get("options") or {}, seed)
        _check_expected(ds, entry)
    except ValueError as err:
        raise ValueError(f"dataset {name!r}: {err}") from err
    constant = int(np.count_nonzero(np.ptp(ds.X, axis=0) == 0)) if ds.X.size else 0
    ds.info = {
        "dataset": name,
        "loader": kind,
        "files": relative,
        **ds.info,
        "n_constant_columns": constant,
        "constant_columns_note": "kept here; the 'drop_constant' preprocessing step removes them",
    }
    return ds


__all__ = ["LOADERS", "index_like_columns", "load", "load_mat", "load_newsgroups_raw", "load_npy", "load_npz", "load_nrfs_synthetic",
           "load_rdata_list", "load_table", "load_uci", "source_files"]
