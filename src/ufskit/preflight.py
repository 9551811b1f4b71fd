"""Mistakes a newcomer makes, caught at start-up (called from workflow/rules/common.smk) rather than by a job.

* ``check_run_names``: every name of ``run`` is an experiment (with a did-you-mean), before anything reads it;
* ``check_offline``: a config that promises an offline run (``data.offline``) has a mirror for what is not
  downloaded yet;
* ``check_local_data``: each local dataset's ``loader`` exists, a table has data rows below its header, the
  loader's required options (a table's ``label``) are set, its label (and ``drop``) columns are in the file,
  whose header is read (not its data); returns the datasets' d for the feature-count check;
* ``scan_local_tables``: small local tables read whole: a non-numeric or empty cell is an error, columns that look
  like a row index a warning (see ``loaders.index_like_columns``).

Every message names the config key at fault and the fix.
"""

from __future__ import annotations

import difflib
import zipfile
from pathlib import Path

import numpy as np

from .configio import ConfigError
from .registry import is_local

OFFLINE_KEY = "data.offline"
# the options a local file's loader cannot do without (its own check_options says so too, but only in a job)
REQUIRED_OPTIONS = {"table": ("label",), "npy": ("label",), "mat": ("x", "y")}
# rows of a table read to name the candidates for a missing label option
LABEL_HINT_ROWS = 1000
# local files up to this size are read whole at start-up to look for index-like columns (a fraction of a second)
SCAN_BYTES = 20 * 2**20


def _did_you_mean(name: str, known) -> str:
    close = difflib.get_close_matches(str(name), list(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def check_run_names(config: dict) -> None:
    """Fail unless every name of ``run`` is a defined experiment, naming the close matches and the known ones."""
    experiments = config.get("experiments") or {}
    for name in config.get("run") or []:
        if name in experiments:
            continue
        hint = _did_you_mean(name, experiments)
        if " " in str(name).strip():
            hint += "; separate names with commas: --config 'run=[a,b]'"
        raise ConfigError(f"config run: unknown experiment {name!r}{hint}. Known experiments: "
                          f"{', '.join(sorted(experiments))}.")


def check_offline(config: dict, registry: dict, datasets, raw_root="resources/raw") -> None:
    """With ``data.offline: true`` (config/offline.yaml), fail before any job when no mirror is set and a source of
    ``datasets`` is not downloaded yet, or when the mirror is a folder that does not exist."""
    if not config["data"].get("offline"):
        return
    from .download import MIRROR_ENV, resolve_mirror

    mirror = resolve_mirror(config["data"].get("mirror"))
    if mirror and "://" not in mirror and not Path(mirror).expanduser().is_dir():
        raise ConfigError(f"{OFFLINE_KEY} is true but the data mirror {mirror!r} ({MIRROR_ENV} or data.mirror) is "
                          "not a folder. Point it at the folder of the raw files (the registry's layout).")
    if mirror:
        return
    sources = sorted({registry["datasets"][d].get("source") for d in datasets
                      if not is_local(registry["datasets"][d])} - {None})
    missing = [s for s in sources if not (Path(raw_root) / f"{s}.manifest.json").is_file()]
    if missing:
        raise ConfigError(
            f"{OFFLINE_KEY} is true (an offline config such as config/offline.yaml) but no data mirror is set "
            f"({MIRROR_ENV} and data.mirror are empty) and {len(missing)} source(s) are not downloaded yet "
            f"({', '.join(missing[:5])}{', ...' if len(missing) > 5 else ''}). Set {MIRROR_ENV}=/path/to/mirror "
            "(a folder of the raw files) or data.mirror in the config, or run online without the offline config."
        )


def _read_table(path: Path, options: dict, **kwargs):
    """The table as ``loaders.tables.load_table`` reads it (``nrows=0``: its header alone), or None for a file
    that loader does not read."""
    import pandas as pd

    from .loaders.tables import SEPARATORS

    if path.suffix.lower() not in SEPARATORS:
        return None
    sep = options.get("sep", SEPARATORS[path.suffix.lower()])
    return pd.read_csv(path, sep=sep, engine="python" if sep is None else "c", **kwargs)


def _npz_columns(path: Path, key: str) -> int | None:
    """The column count of array ``key`` of a .npz archive, from its header alone (None if absent or not 2-D)."""
    with zipfile.ZipFile(path) as archive:
        if f"{key}.npy" not in archive.namelist():
            return None
        with archive.open(f"{key}.npy") as fh:
            version = np.lib.format.read_magic(fh)
            read = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}
            shape = read[version](fh)[0] if version in read else ()
    return shape[1] if len(shape) == 2 else None


def check_data_rows(name: str, entry: dict) -> None:
    """Fail, naming the file, when a local table holds a header and no data row (or nothing at all): said before
    anything else about it, since every later check (its d, its numeric columns) would mislead."""
    import pandas as pd

    path, options = Path(entry["path"]), entry.get("options") or {}
    if entry["loader"] != "table" or not path.is_file():
        return
    try:
        frame = _read_table(path, options, nrows=1)
    except pd.errors.EmptyDataError:
        raise ConfigError(f"datasets.{name}: {path.name} is empty (no header, no data rows); it must hold a header "
                          "row and at least 2 samples, one per row.") from None
    except (pd.errors.ParserError, UnicodeDecodeError):
        return  # the loader names the problem when the dataset is prepared
    if frame is not None and len(frame) == 0:
        raise ConfigError(f"datasets.{name}: {path.name} has a header but no data rows; it must hold at least 2 "
                          "samples, one per row below the header.")


def check_required_options(name: str, entry: dict) -> None:
    """Fail, naming the dataset and the option key, when a local dataset leaves out an option its loader needs;
    for a table without ``label``, with the non-numeric columns that could be the label (the table scan would
    otherwise call the label column a non-numeric feature)."""
    loader, options, path = entry["loader"], entry.get("options") or {}, Path(entry["path"])
    missing = [key for key in REQUIRED_OPTIONS.get(loader, ()) if key not in options]
    if not missing:
        return
    import pandas as pd

    key = f"datasets.{name}.options.{missing[0]}"
    if loader == "table":
        hint = ""
        try:
            frame = _read_table(path, options, nrows=LABEL_HINT_ROWS) if path.is_file() else None
        except (pd.errors.ParserError, UnicodeDecodeError):
            frame = None  # the loader names the problem when the dataset is prepared
        if frame is not None:
            frame = frame.drop(columns=list(options.get("drop") or []), errors="ignore")
            text = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]
            hint = (f" Non-numeric column(s) of {path.name} that could be the label: {text[:10]}." if text else
                    f" {path.name} has no non-numeric column; the label is one of {list(frame.columns)[:20]}.")
        raise ConfigError(f"dataset {name!r}: {key} is not set; the 'table' loader needs the column of class labels "
                          f"(options: {{label: <column>}}), all the others being features.{hint}")
    if loader == "npy":
        raise ConfigError(f"dataset {name!r}: {key} is not set; the 'npy' loader needs the index of the column of "
                          "class labels (options: {label: -1} for the last column).")
    raise ConfigError(f"dataset {name!r}: option(s) {missing} of datasets.{name}.options are not set; the "
                      f"{loader!r} loader needs them (docs/own-data.md).")


def local_feature_count(name: str, entry: dict) -> int | None:
    """d of a local dataset from its file's header (None where the loader's files cannot be read cheaply).

    Fails, naming the option, when the label or a ``drop`` column of a table is not in the header."""
    path, options, loader = Path(entry["path"]), entry.get("options") or {}, entry["loader"]
    if not path.is_file():
        return None  # said by the local-file check, with the key
    header = _read_table(path, options, nrows=0) if loader == "table" and "label" in options else None
    if header is not None:
        columns = list(header.columns)
        wanted = {"label": [options["label"]], "drop": list(options.get("drop") or [])}
        for key, names in wanted.items():
            absent = [c for c in names if c not in columns]
            if absent:
                raise ConfigError(
                    f"datasets.{name}.options.{key}: column(s) {absent} not in the header of {path.name}"
                    f"{_did_you_mean(absent[0], columns)}; its columns: {columns[:20]}. Name a column of the file.")
        return len(columns) - 1 - len(set(wanted["drop"]) - set(wanted["label"]))
    if loader == "npy" and path.suffix.lower() == ".npy":
        shape = np.load(path, mmap_mode="r", allow_pickle=False).shape
        return shape[1] - 1 if len(shape) == 2 else None
    if loader == "npz" and path.suffix.lower() == ".npz":
        return _npz_columns(path, options.get("x", "X"))
    return None


def check_local_data(registry: dict, datasets) -> dict[str, int]:
    """Check the loader and the columns of every local dataset of ``datasets``; return d of those whose header
    tells it (for ``config_check.check_counts``)."""
    from .loaders import LOADERS  # imported only when the config has local data

    counts = {}
    for name in datasets:
        entry = registry["datasets"][name]
        if not is_local(entry):
            continue
        if entry["loader"] not in LOADERS:
            raise ConfigError(f"datasets.{name}.loader: unknown loader {entry['loader']!r}"
                              f"{_did_you_mean(entry['loader'], LOADERS)}; known loaders: {', '.join(sorted(LOADERS))} "
                              "(docs/own-data.md).")
        check_data_rows(name, entry)  # first: a header alone would otherwise be "d too small" or "not numeric"
        check_required_options(name, entry)
        d = local_feature_count(name, entry)
        if d is not None:
            counts[name] = d
    return counts


def with_local_shapes(registry: dict, counts: dict[str, int]) -> dict:
    """A copy of ``registry`` whose local datasets without a ``shape`` have d from ``counts`` (n unknown)."""
    datasets = dict(registry["datasets"])
    for name, d in counts.items():
        if not datasets[name].get("shape"):
            datasets[name] = {**datasets[name], "shape": [None, d]}
    return {**registry, "datasets": datasets}


def scan_local_tables(registry: dict, datasets) -> list[str]:
    """Read the local tables of ``datasets`` of at most ``SCAN_BYTES`` whole: fail on a non-numeric or empty
    feature cell (as their job would), and return one warning per table with feature columns that look like a
    row index: integers, all distinct, monotone in file order (``loaders.index_like_columns``)."""
    from .loaders import index_like_columns

    warnings = []
    for name in datasets:
        entry = registry["datasets"][name]
        path = Path(entry.get("path", ""))
        options = entry.get("options") or {}
        if not is_local(entry) or entry["loader"] != "table" or not path.is_file() or path.stat().st_size > SCAN_BYTES:
            continue
        frame = _read_table(path, options)
        if frame is None:
            continue
        features = frame.drop(columns=[options.get("label"), *(options.get("drop") or [])], errors="ignore")
        numeric = features.select_dtypes("number")
        text = [c for c in features.columns if c not in numeric.columns]
        if text:
            raise ConfigError(f"datasets.{name}: column(s) {text[:10]} of {path.name} are not numeric; encode them, "
                              f"or list them in datasets.{name}.options.drop if they are not features.")
        empty = numeric.columns[numeric.isna().any()].tolist()
        if empty:
            raise ConfigError(f"datasets.{name}: column(s) {empty[:10]} of {path.name} have empty cells; impute "
                              f"them, or list them in datasets.{name}.options.drop.")
        found = [numeric.columns[i] for i in index_like_columns(numeric.to_numpy(dtype=np.float64))]
        if found:
            warnings.append(index_like_message(name, path.name, found))
    return warnings


def index_like_message(name: str, file: str, columns) -> str:
    """The warning for ``columns`` of dataset ``name`` that look like a row index, with the ``drop`` fix."""
    return (f"dataset {name!r} ({file}): column(s) {list(columns)} look like a row index (integers, all distinct, "
            "in file order); as features they carry the file's order (often sorted by class) into the results. "
            f"If they are ids, list them in datasets.{name}.options.drop (docs/own-data.md).")
