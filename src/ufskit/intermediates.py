"""The workflow's intermediate files read back: one error for a corrupt file, and identities checked.

A job trusts that the file at a path is the one Snakemake built for that path. Two things break that
trust: a file cut short or overwritten (an interrupted run, a full disk, a bad copy) and a file copied
onto another run's path (its content is then another method's, dataset's or repetition's). Both are an
``IntegrityError`` "corrupt file <path>: <problem>; delete it and rerun", raised by the readers here
(json, npz, parquet, csv), so that every kind of intermediate fails the same way and names the file.

The identity of a file (experiment, dataset, method, params slug, rep; a prepared dataset's chain) is
what its path says under the workflow's layout (``identity_of``); a file records the identity it was
written for, and ``check_identity`` compares the two when it is read.
"""

from __future__ import annotations

import json
import re
import zipfile
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["IntegrityError", "check_identity", "corrupt", "identity_of", "read_csv", "read_json", "read_npz",
           "read_parquet", "reading"]


class IntegrityError(RuntimeError):
    """An input changed after it was checked, or an intermediate file is unreadable; says what to do."""


_RUN = r"(?P<dataset>[^/]+)/(?P<method>[^/]+)/(?P<params>[^/]+)/rep(?P<rep>\d+)"
# the workflow's layout; an experiment name may hold '/' (readings/<reading>/<experiment>)
_LAYOUTS = [re.compile(r"(?:^|.*/)results/(?P<experiment>.+)/" + tail + "$") for tail in (
    rf"selections/{_RUN}\.npz",
    rf"metrics/{_RUN}\.parquet",
    r"metrics/(?P<dataset>[^/]+)/(?P<method>[^/]+)/batch\.parquet",
    r"metrics\.parquet",
)] + [re.compile(r"(?:^|.*/)resources/prepared/(?P<chain>[^/]+)/(?P<dataset>[^/]+)\.(?:npz|json)$")]


def corrupt(path, problem: str) -> IntegrityError:
    """The error for an intermediate that cannot be used: names the file, the problem and the fix."""
    return IntegrityError(f"corrupt file {path}: {problem}; delete it and rerun (Snakemake builds it again).")


@contextmanager
def reading(path, what: str = "file"):
    """Turn a truncated or corrupt file read inside the block into the ``corrupt`` error naming it.

    A missing file stays a ``FileNotFoundError`` (Snakemake reports a missing input itself).
    """
    try:
        yield
    except FileNotFoundError:
        raise
    except (zipfile.BadZipFile, EOFError, OSError, KeyError, ValueError) as e:  # JSON, Arrow, CSV errors included
        raise corrupt(path, f"unreadable as a {what} ({type(e).__name__}: {e}), probably cut short by an "
                            "interrupted run or a full disk") from e


def identity_of(path) -> dict[str, str]:
    """What the workflow's layout says a file at ``path`` holds, e.g. {experiment, dataset, method, params, rep};
    empty for a path outside the layout (nothing to check)."""
    text = Path(path).as_posix()
    for layout in _LAYOUTS:
        match = layout.match(text)
        if match:
            return match.groupdict()
    return {}


def check_identity(path, recorded: dict) -> None:
    """Fail if the identity ``recorded`` in a file differs from the one its path gives, naming both.

    Keys recorded in only one of them are not compared (a file written before identities were recorded
    passes).
    """
    expected = identity_of(path)
    keys = [k for k in expected if k in recorded]
    if any(str(recorded[k]) != expected[k] for k in keys):
        raise corrupt(path, f"it records {_describe(recorded, keys)} but its path is that of "
                            f"{_describe(expected, keys)}; it was copied or moved onto this path")


def _describe(identity: dict, keys: list[str]) -> str:
    return ", ".join(f"{k}={identity[k]}" for k in keys)


def read_json(path):
    """A JSON intermediate; an object recording identity keys (a prepared dataset's summary) is checked."""
    with reading(path, "JSON file"):
        obj = json.loads(Path(path).read_text())
    if isinstance(obj, dict):
        check_identity(path, obj)
    return obj


def read_npz(path, what: str = "NumPy archive") -> dict[str, np.ndarray]:
    """Every array of an npz intermediate, read in full (so a cut-off member fails here, not later)."""
    with reading(path, what), np.load(path, allow_pickle=False) as archive:
        return {key: archive[key] for key in archive.files}


def read_parquet(path, *, what: str = "parquet table", **kwargs) -> pd.DataFrame:
    """A parquet intermediate; the identity columns its path names (dataset, method, params, rep,
    experiment) must hold only the values of that path."""
    with reading(path, what):
        frame = pd.read_parquet(path, **kwargs)
    recorded = {}
    for key in identity_of(path).keys() & set(frame.columns):
        values = sorted(frame[key].dropna().astype(str).unique())
        if values:
            recorded[key] = "/".join(values)
    check_identity(path, recorded)
    return frame


def read_csv(path, *, what: str = "table", **kwargs) -> pd.DataFrame:
    """A CSV intermediate (a summary or a paper's table)."""
    with reading(path, what):
        return pd.read_csv(path, **kwargs)
