"""The dataset registry (config/datasets.yaml): its structure, checked on load, and look-ups.

``sources`` are download jobs (files with url and sha256 or git blob id, or a file-list TSV);
``datasets`` say which source, loader and options give each dataset, its shape and class count,
its default preprocessing chain and the papers that use it. The YAML file's header documents the
keys. A malformed entry fails on load with a message naming the entry and the key.

A config overlay adds ``sources`` and ``datasets`` of the same form (``merge_overlay``), and local
datasets: ``path`` (a file on this machine) instead of ``source``, with ``shape`` and ``n_classes``
optional. The registry file and overlays are read with the strict YAML loader (no duplicate keys).
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path, PurePosixPath

from .configio import ConfigError, load_yaml

SOURCE_KEYS = {"mirrored", "files", "file_list"}
FILE_KEYS = {"path", "url", "sha256", "git_blob"}
DATASET_KEYS = ("source", "loader", "options", "shape", "n_classes", "preprocess", "papers", "description")
LOCAL_KEYS = ("path",) + DATASET_KEYS[1:]
LOCAL_REQUIRED = ("path", "loader", "description")
# what an overlay dataset may leave out (a registry entry of config/datasets.yaml states every key)
OVERLAY_DEFAULTS = {"options": {}, "preprocess": [], "papers": []}
CHECKSUM_DIGITS = {"sha256": 64, "git_blob": 40}


class RegistryError(ValueError):
    """The registry file is malformed; the message names the entry and the key."""


def _fail(where: str, message: str):
    raise RegistryError(f"{where}: {message}")


def _check_keys(where: str, entry, required, allowed) -> None:
    if not isinstance(entry, dict):
        _fail(where, f"must be a mapping, got {type(entry).__name__}")
    missing = [k for k in required if k not in entry]
    if missing:
        _fail(where, f"missing key(s) {', '.join(map(repr, missing))}")
    unknown = sorted(set(entry) - set(allowed))
    if unknown:
        _fail(where, f"unknown key(s) {', '.join(map(repr, unknown))}; allowed: {', '.join(sorted(allowed))}")


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_str_list(where: str, value) -> None:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        _fail(where, f"must be a list of names, got {value!r}")


def _check_file(where: str, entry: dict, mirrored: bool) -> None:
    _check_keys(where, entry, ["path", "url"], FILE_KEYS)
    path = entry["path"]
    parts = PurePosixPath(path).parts if isinstance(path, str) else ()
    if not parts or path.startswith("/") or ".." in parts or "\\" in path:
        _fail(f"{where}.path", f"must be a relative path with '/' separators and no '..', got {path!r}")
    url = entry["url"]
    if url is not None and not (isinstance(url, str) and re.match(r"https?://\S+$", url)):
        _fail(f"{where}.url", f"must be an http(s) URL or null, got {url!r}")
    if url is None and not mirrored:
        _fail(f"{where}.url", "a file that is not in the mirror needs an upstream URL")
    sums = [k for k in CHECKSUM_DIGITS if k in entry]
    if len(sums) != 1:
        _fail(where, f"needs exactly one of 'sha256' or 'git_blob', has {sums or 'neither'}")
    value = entry[sums[0]]
    if not (isinstance(value, str) and re.fullmatch(f"[0-9a-f]{{{CHECKSUM_DIGITS[sums[0]]}}}", value)):
        _fail(f"{where}.{sums[0]}", f"must be {CHECKSUM_DIGITS[sums[0]]} lower-case hex digits, got {value!r}")


def _check_source(name: str, entry) -> None:
    where = f"sources.{name}"
    _check_keys(where, entry, ["mirrored"], SOURCE_KEYS)
    if not isinstance(entry["mirrored"], bool):
        _fail(f"{where}.mirrored", f"must be true or false, got {entry['mirrored']!r}")
    if not entry.get("files") and not entry.get("file_list"):
        _fail(where, "needs a non-empty 'files' list or a 'file_list'")
    files = entry.get("files") or []
    if not isinstance(files, list):
        _fail(f"{where}.files", "must be a list")
    for i, f in enumerate(files):
        _check_file(f"{where}.files[{i}]", f, entry["mirrored"])
    if entry.get("file_list"):
        _check_file(f"{where}.file_list", entry["file_list"], entry["mirrored"])


def _check_dataset(name: str, entry, registry: dict) -> None:
    where = f"datasets.{name}"
    local = isinstance(entry, dict) and "path" in entry
    if local:
        _check_keys(where, entry, LOCAL_REQUIRED, LOCAL_KEYS)
        if not (isinstance(entry["path"], str) and entry["path"].strip()):
            _fail(f"{where}.path", f"must be the path of a data file, got {entry['path']!r}")
    else:
        _check_keys(where, entry, DATASET_KEYS, DATASET_KEYS)
        source = entry["source"]
        if source is not None and source not in registry["sources"]:
            hint = _suggest(str(source), registry["sources"])
            _fail(f"{where}.source", f"unknown source {source!r}; {hint}use a name from 'sources' or null")
    if not (isinstance(entry["loader"], str) and entry["loader"]):
        _fail(f"{where}.loader", f"must be a loader name, got {entry['loader']!r}")
    options = entry.get("options", {})
    if not isinstance(options, dict):
        _fail(f"{where}.options", f"must be a mapping, got {options!r}")
    if "files" in options and not local:
        source = entry["source"]
        known = {f["path"] for f in source_files(registry, source)} if source else set()
        files = options["files"]
        if not (isinstance(files, list) and files and all(isinstance(f, str) and f in known for f in files)):
            _fail(f"{where}.options.files", f"must list files of source {source!r} ({sorted(known)}), got {files!r}")
    shape = entry.get("shape")
    if not (local and shape is None):
        positive = [_is_int(v) and v > 0 for v in shape] if isinstance(shape, list) and len(shape) == 2 else [False]
        if not (positive[0] and (positive[1] or shape[1] is None)):
            _fail(f"{where}.shape", f"must be [n, d], two positive ints (d may be null), got {shape!r}")
    n_classes = entry.get("n_classes")
    if not (local and n_classes is None) and not (_is_int(n_classes) and n_classes >= 1):
        _fail(f"{where}.n_classes", f"must be a positive int, got {n_classes!r}")
    _check_str_list(f"{where}.preprocess", entry.get("preprocess", []))
    _check_str_list(f"{where}.papers", entry.get("papers", []))
    if not (isinstance(entry["description"], str) and entry["description"].strip()):
        _fail(f"{where}.description", "must be a non-empty string")


def validate_registry(registry, origin: str = "registry") -> dict:
    """Check the structure of a parsed registry; return it unchanged, or raise ``RegistryError``."""
    try:
        _check_keys("top level", registry, ["sources", "datasets"], ["sources", "datasets"])
        for section in ("sources", "datasets"):
            if not isinstance(registry[section], dict) or not registry[section]:
                _fail(section, "must be a non-empty mapping")
        owner = {}
        for name, entry in registry["sources"].items():
            _check_source(name, entry)
            for f in source_files(registry, name):
                if f["path"] in owner:
                    _fail(f"sources.{name}", f"file {f['path']!r} is already in source {owner[f['path']]!r}")
                owner[f["path"]] = name
        for name, entry in registry["datasets"].items():
            _check_dataset(name, entry, registry)
    except RegistryError as e:
        raise RegistryError(f"{origin}: {e}") from None
    return registry


def load_registry(path) -> dict:
    """Read (strictly: a duplicate key is an error) and validate the registry YAML file at ``path``."""
    path = Path(path)
    try:
        registry = load_yaml(path)
    except ConfigError as e:
        raise RegistryError(str(e)) from None
    return validate_registry(registry, origin=str(path))


def merge_overlay(registry: dict, sources: dict | None, datasets: dict | None, origin: str = "config") -> dict:
    """The registry plus the ``sources`` and ``datasets`` of a config overlay, validated together.

    An overlay name that is already in the registry is an error (a partial override would mix two
    entries); overlay datasets may leave out ``options``, ``preprocess`` and ``papers``.
    """
    merged = {"sources": dict(registry["sources"]), "datasets": dict(registry["datasets"])}
    for section, extra in (("sources", sources or {}), ("datasets", datasets or {})):
        if not isinstance(extra, dict):
            raise RegistryError(f"{origin}: {section} must be a mapping of names to entries")
        clash = sorted(set(extra) & set(registry[section]))
        if clash:
            raise RegistryError(f"{origin}: {section} {clash} already in the registry; give your entries other names")
        for name, entry in extra.items():
            merged[section][name] = {**OVERLAY_DEFAULTS, **entry} if section == "datasets" and isinstance(entry, dict) else entry
    return validate_registry(merged, origin=f"{origin} (merged with the registry)")


def registry_from_config(config: dict, root) -> dict:
    """The registry the workflow uses: ``data.registry`` (relative to ``root``) merged with the config's overlay."""
    base = load_registry(Path(root) / config["data"]["registry"])
    return merge_overlay(base, config.get("sources"), config.get("datasets"))


def is_local(entry: dict) -> bool:
    """True for a dataset read from a local file (``path``) rather than from a registry source."""
    return "path" in entry


def _suggest(name: str, known) -> str:
    """The hint 'did you mean ...? ' for names close to ``name`` (case-insensitive), or ''."""
    lower = {k.lower(): k for k in known}
    close = difflib.get_close_matches(name.lower(), list(lower), n=3, cutoff=0.6)
    return f"did you mean {' or '.join(repr(lower[c]) for c in close)}? " if close else ""


def _lookup(registry: dict, section: str, kind: str, name: str) -> dict:
    entries = registry[section]
    if name not in entries:
        raise ValueError(f"unknown {kind} {name!r}; {_suggest(str(name), entries)}known: {', '.join(sorted(entries))}")
    return entries[name]


def dataset_entry(registry: dict, name: str) -> dict:
    """The registry entry of dataset ``name``; an unknown name fails, suggesting close names."""
    return _lookup(registry, "datasets", "dataset", name)


def source_files(registry: dict, source_name: str) -> list[dict]:
    """The file entries (path, url, checksum) of a source, its file list (if any) last.

    The first entry of ``files`` is the data file of single-file loaders (mat, rdata_list); the
    files a file list names are known only once the list is downloaded (``download.read_file_list``).
    """
    source = _lookup(registry, "sources", "source", source_name)
    return list(source.get("files") or []) + ([source["file_list"]] if source.get("file_list") else [])
